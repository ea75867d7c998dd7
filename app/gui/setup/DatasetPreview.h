#pragma once
/// @file DatasetPreview.h
/// A compact picture of a loaded dataset: its shape, its classes, sample images or a scatter.

#include <data/Dataset.h>

#include <QImage>
#include <QList>
#include <QPointF>
#include <QRectF>
#include <QStringList>
#include <QWidget>

namespace tb::gui {

/// Paints a dataset summary: one line of shape (n train / n test / d / k), the classes with
/// their training counts, then
///  - for image data (d = 784, or d a perfect square ≥ 64): a grid of up to 24 training images,
///    each scaled to its own min…max so standardised data still shows;
///  - for 2-D inputs with classes: a scatter of the inputs coloured by class;
///  - for 1-D inputs with real targets: each target column against x;
/// train points filled, test points hollow. Colours are app/charts' ChartPalette.
/// GUI thread only, except summarise(), which is reentrant (the panel calls it on its loader thread).
class DatasetPreview : public QWidget {
    Q_OBJECT
public:
    /// What is drawn, computed from a DatasetPair off the UI thread. A plain value type.
    struct Summary {
        enum class Plot { None, Images, Scatter2D, Scatter1D };
        bool valid = false;                  ///< false: nothing loaded
        qint64 trainRows = 0, testRows = 0, inputs = 0, outputs = 0;
        Task task = Task::Regression;
        QString description;                 ///< the train set's description
        QStringList classNames;              ///< classification only
        QList<qint64> trainClassCounts;      ///< per class, classification only
        Plot plot = Plot::None;
        QList<QImage> images;                ///< Plot::Images: grey-scale samples
        QList<int> imageClasses;             ///< class of each image
        QList<QPointF> points;               ///< Scatter*: (x1, x2) or (x, y_j)
        QList<int> groups;                   ///< class (2-D) or target column (1-D) of each point
        QList<bool> isTest;                  ///< per point
        QRectF bounds;                       ///< of points, with a margin
        QStringList groupNames;              ///< legend: class names or target names
    };

    explicit DatasetPreview(QWidget* parent = nullptr);

    /// Summarises @p pair: up to @p maxImages images and up to @p maxPoints points (evenly
    /// spaced rows, so the picture is deterministic). Reentrant; does not touch widgets.
    static Summary summarise(const data::DatasetPair& pair, int maxImages = 24, int maxPoints = 1500);

    /// Shows @p s (replaces any message).
    void setSummary(const Summary& s);
    /// Clears the picture and shows @p text instead (e.g. "Loading…").
    void setMessage(const QString& text);

    const Summary& summary() const { return m_summary; }
    /// "n train 280 / n test 120 / d 2 / k 2", empty when nothing is loaded.
    QString shapeText() const;
    /// "2 classes: 0 (140), 1 (140)" or "regression", empty when nothing is loaded.
    QString classText() const;

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

protected:
    void paintEvent(QPaintEvent* event) override;

private:
    void paintImages(QPainter& p, const QRectF& area) const;
    void paintScatter(QPainter& p, const QRectF& area) const;

    Summary m_summary;
    QString m_message;
};

} // namespace tb::gui
