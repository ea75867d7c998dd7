#pragma once
/// @file DecisionRegionWidget.h
/// The decision regions of a 2-D classifier: a class-coloured background image with the
/// training and test points drawn over it.

#include <Eigen/Core>
#include <QImage>
#include <QRectF>
#include <QStringList>
#include <QWidget>
#include <vector>

namespace tb::gui {

/// Paints a region image (the arg-max class of a grid of predictions, soft colours) stretched
/// over the data rectangle, the training points as filled circles and the test points as
/// hollow circles in saturated class colours, axis ticks and a small class legend.
///
/// Coordinates: bounds() is in data units with left() = x minimum, top() = y MINIMUM,
/// right() = x maximum, bottom() = y maximum; y grows upwards on screen. Row 0 of a region
/// image is the TOP of the plot (largest y). UI thread only, except the static functions,
/// which are reentrant and may run on any thread.
class DecisionRegionWidget : public QWidget {
    Q_OBJECT
public:
    explicit DecisionRegionWidget(QWidget* parent = nullptr);

    /// The points to draw: rows of @p trainX / @p testX (n×2) with class indices in
    /// [0, classNames.size()). Labels outside that range are drawn grey. Replaces earlier points
    /// and clears the region image.
    void setPoints(const Eigen::MatrixXd& trainX, const std::vector<int>& trainLabels, const Eigen::MatrixXd& testX,
                   const std::vector<int>& testLabels, const QStringList& classNames);
    /// The data rectangle shown (see the class comment). An empty or non-finite rectangle is
    /// ignored.
    void setBounds(const QRectF& bounds);
    QRectF bounds() const { return m_bounds; }
    /// A region image made by renderRegion() for bounds(); a null image clears the background.
    void setRegion(const QImage& image);
    /// The current region image (null before the first checkpoint).
    QImage regionImage() const { return m_region; }
    int classCount() const { return int(m_classNames.size()); }

    /// Saturated colour of class @p c (the chart palette; grey for c < 0).
    static QColor classColor(int c);
    /// Soft background colour of class @p c: classColor blended 75 % towards white.
    static QColor softClassColor(int c);
    /// A @p width × @p height image whose pixel (px, py) has the soft colour of the arg-max of
    /// row py·width + px of @p scores (as laid out by gridPoints()); rows with a non-finite
    /// score are light grey. Throws std::invalid_argument if scores has not width·height rows.
    static QImage renderRegion(const Eigen::Ref<const Eigen::MatrixXd>& scores, int width, int height);
    /// The centres of a @p width × @p height pixel grid over @p bounds, row-major from the top
    /// left (largest y): (width·height)×2.
    static Eigen::MatrixXd gridPoints(const QRectF& bounds, int width, int height);
    /// The bounding box of the rows of @p a and @p b (n×2 each, either may be empty) grown by
    /// @p margin (share of each side's extent, default 10 %); a degenerate extent becomes ±1.
    static QRectF dataBounds(const Eigen::MatrixXd& a, const Eigen::MatrixXd& b, double margin = 0.1);

    QSize sizeHint() const override { return {360, 360}; }
    QSize minimumSizeHint() const override { return {160, 160}; }

protected:
    void paintEvent(QPaintEvent* event) override;

private:
    QRectF plotRect() const;
    QPointF toScreen(const QRectF& plot, double x, double y) const;

    QRectF m_bounds{-1, -1, 2, 2};
    QImage m_region;
    Eigen::MatrixXd m_trainX, m_testX;
    std::vector<int> m_trainLabels, m_testLabels;
    QStringList m_classNames;
};

} // namespace tb::gui
