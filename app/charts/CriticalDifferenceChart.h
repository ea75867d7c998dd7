#pragma once
/// @file CriticalDifferenceChart.h
/// Demšar's critical-difference diagram: configurations' average ranks over data sets on one
/// axis, the Nemenyi critical difference, and the groups no test tells apart.

#include <engine/AcrossSets.h>

#include <QImage>
#include <QString>
#include <QStringList>
#include <QWidget>

#include <vector>

class QPainter;

namespace tb::charts {

/// What a critical-difference diagram draws, from an AcrossSetsResult. A value type.
struct CriticalDifferenceDiagram {
    QStringList names;               ///< the configurations, in AcrossSetsResult::configurations order
    std::vector<double> ranks;       ///< their average ranks over the ranked sets, 1 = best
    double criticalDifference = NaN; ///< Nemenyi's, at alpha
    double alpha = 0.05;
    /// The maximal groups of configurations whose average ranks differ by less than the critical
    /// difference (no group contained in another, none of one configuration): indices into
    /// names, by ascending rank; the groups ordered by their best rank.
    std::vector<std::vector<int>> cliques;
    /// "5 data sets, Friedman p = 0.012, Iman–Davenport p = 0.0031; …": what the ranks rest on.
    QString subtitle;
    /// Why there is nothing to draw (fewer than 2 complete sets or 2 configurations); empty when
    /// the diagram is drawn.
    QString message;

    /// The diagram of @p result (its friedman ranks and critical difference).
    static CriticalDifferenceDiagram of(const AcrossSetsResult& result);
    /// The maximal cliques of the "average ranks differ by less than @p cd" relation over
    /// @p ranks: windows of configurations consecutive in rank order (ties by index), each as
    /// indices by ascending rank, without windows of one or windows inside another.
    static std::vector<std::vector<int>> cliquesOf(const std::vector<double>& ranks, double cd);
};

/// Paints a CriticalDifferenceDiagram (Demšar 2006, Fig. 1; scmamp's plotCD): an axis of average
/// rank from 1 (best, left) to k; each configuration a line from its rank down to its name and
/// rank, the better half labelled on the left and the worse half on the right; above the axis a
/// bar of length CD; below it a thick line per clique. Each configuration's line has its
/// ChartPalette colour. GUI thread only.
class CriticalDifferenceView : public QWidget {
    Q_OBJECT
public:
    explicit CriticalDifferenceView(QWidget* parent = nullptr);

    /// Shows @p diagram under @p title.
    void setDiagram(const CriticalDifferenceDiagram& diagram, const QString& title);
    const CriticalDifferenceDiagram& diagram() const { return m_diagram; }
    const QString& title() const { return m_title; }

    /// Paints the diagram at @p size on white, at 96 dpi (as ChartRenderer renders charts).
    QImage render(QSize size) const;

    QSize sizeHint() const override { return {900, 420}; }

protected:
    void paintEvent(QPaintEvent* event) override;

private:
    void paint(QPainter& p, const QRect& area) const;

    CriticalDifferenceDiagram m_diagram;
    QString m_title;
};

} // namespace tb::charts
