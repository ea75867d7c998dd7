#pragma once
/// @file BandedLineChart.h
/// Base of the Trainbench line charts: per algorithm a few mean lines (test solid, train dashed),
/// each with an optional shaded ± std band, updated in place.

#include <QChart>
#include <QList>
#include <QPointF>
#include <QSet>
#include <QString>
#include <QVector>

class QAbstractAxis;
class QAreaSeries;
class QLineSeries;
class QValueAxis;

namespace tb::charts {

/// A QChart holding "groups" (one per algorithm, coloured by ChartPalette in order; from the 17th
/// on, when the colours come round again, the lines show their points) of mean lines,
/// each optionally with a ± std band (a QAreaSeries of the same colour, alpha 0.18 under solid lines
/// and 0.10 under dashed ones so overlapping bands stay readable; hidden from the legend and drawn
/// beneath every line). Subclasses turn their records into GroupSpecs and call
/// setGroups(), which reuses the existing series (QXYSeries::replace), so it is cheap enough to call
/// ~20 times a second. Axis ranges follow the data unless the user has zoomed (QChart::isZoomed()).
/// The legend lists each group once (its first line's colour and style, its label; a click hides
/// or shows all its lines) and, when groups have several lines, each line kind once as a grey key
/// ("test" solid, "train" dashed; a click is the train/test toggle): twenty runs of test and train
/// are 20 entries and 2 keys, not 40 entries cut mid-number. Below the plot while it fits, else
/// beside it.
/// GUI thread only (like every QGraphicsItem). Qt Charts needs a QApplication.
class BandedLineChart : public QChart {
    Q_OBJECT
public:
    /// One line of a group.
    struct LineSpec {
        QString suffix; ///< legend name is "<group label> — <suffix>"
        Qt::PenStyle style = Qt::SolidLine;
        QList<QPointF> mean; ///< (x, mean y); points with NaN/Inf (or x ≤ 0 on a log axis) are skipped
        QVector<double> std; ///< per point of mean; NaN counts as 0; may be empty when !band
        bool band = false;   ///< draw mean ± std as a shaded band
    };
    /// One algorithm.
    struct GroupSpec {
        QString label;
        QVector<LineSpec> lines;
    };

    explicit BandedLineChart(QGraphicsItem* parent = nullptr);
    ~BandedLineChart() override;

    /// Number of groups (algorithms) shown.
    int groupCount() const { return int(m_groups.size()); }
    /// Number of lines of group @p group (0 if out of range).
    int lineCount(int group) const;
    /// Mean line @p line of group @p group, or nullptr if out of range. Owned by the chart.
    QLineSeries* lineSeries(int group, int line) const;
    /// Band of that line, or nullptr if it has none (single repeat) or is out of range. Owned by the chart.
    QAreaSeries* bandSeries(int group, int line) const;

    /// When the ± std bands are drawn. Auto (the default): every band while at most three groups
    /// are shown, otherwise only the band of the group under the mouse (its line or legend
    /// entry) — seven overlapping bands are a grey mass.
    enum class BandMode { Auto, All, Hovered, None };
    void setBandMode(BandMode mode);
    BandMode bandMode() const { return m_bandMode; }
    /// Whether group @p group's bands are drawn now.
    bool bandsShown(int group) const;

    /// Shows or hides every line whose legend suffix is @p suffix ("train", "test") with its
    /// band: the train/test toggle. Default: all shown.
    void setSuffixVisible(const QString& suffix, bool on);
    bool isSuffixVisible(const QString& suffix) const { return !m_hiddenSuffixes.contains(suffix); }
    /// Hides or shows one line (and its band) by its legend name, as a click on its legend entry
    /// does; hidden lines stay hidden across updates and are left out of the axis ranges.
    void setLineHidden(const QString& name, bool hidden);
    bool isLineHidden(const QString& name) const { return m_hiddenLines.contains(name); }

    /// Y on a log10 axis (values ≤ 0 are left out; a band's lower edge is cut at the smallest
    /// positive value): for RMSE that spans decades (BPLS reaches 1e-14 at σ = 0). Default off.
    void setYLog(bool on);
    bool isYLog() const { return m_yLog; }

    /// Current x axis (a QValueAxis, or a QLogValueAxis when log x is on). Owned by the chart.
    QAbstractAxis* xAxis() const { return m_x; }
    /// The linear y axis (hidden while setYLog(true); then logYAxis() is shown). Owned by the chart.
    QValueAxis* yAxis() const { return m_y; }
    /// The log y axis while setYLog(true), else nullptr.
    QAbstractAxis* logYAxis() const { return m_yLogAxis; }
    /// True when the x axis is logarithmic (base 10).
    bool isXLog() const { return m_xLog; }

    /// Sets both axes' ranges to the data with a little padding (5 %; on a log axis 5 % of the decades,
    /// widened to whole decades when fewer than two powers of ten would be labelled), ticks every
    /// 1, 2 or 5 × 10^k on linear axes. Does nothing while the user has zoomed; call after zoomReset().
    void fitToData();
    /// Sets the linear axes' tick intervals for their current span times @p spanScale (about
    /// 6–8 ticks). Call with the coming scale BEFORE widening a range by zooming out, and with 1
    /// after zooming in, so no intermediate layout has thousands of ticks.
    void retick(double spanScale = 1.0);

protected:
    void resizeEvent(QGraphicsSceneResizeEvent* event) override;

    /// Replaces the shown groups by @p groups: series are created, renamed or dropped only where the
    /// structure changed, points are replaced in place, then fitToData().
    void setGroups(const QVector<GroupSpec>& groups);
    /// Switches the x axis between linear and log10 (recreates the axis, keeps the series).
    void setXLog(bool log);
    void setAxisTitles(const QString& x, const QString& y);
    /// Y range limits applied after padding: e.g. 0 … 100 for accuracy in %. NaN means no limit.
    /// The lower limit only applies when all data are ≥ it (so negative data are never hidden).
    void setYLimits(double lo, double hi);
    /// Marks on every data point (noise sweeps), size in pixels; 0 turns them off.
    void setPointMarkers(double size);

private:
    struct Line {
        QLineSeries* series = nullptr;
        QAreaSeries* band = nullptr;
        QString suffix;
    };
    struct Group {
        QVector<Line> lines;
        QString label;
    };
    /// A legend key of a line kind ("test" solid, "train" dashed): an empty grey series.
    struct Key {
        QLineSeries* series = nullptr;
        QString suffix;
    };

    void restack();
    /// Whether the legend lists configurations, one entry each, and the line kinds once as keys:
    /// when some group has several lines (test and train).
    bool groupedLegend() const;
    /// The keys for the line kinds of the groups (created, renamed or dropped as they change).
    bool updateKeys();
    void placeLegend();
    void applyVisibility();
    void applyKeyVisibility();
    QAbstractAxis* currentY() const;
    void destroyLine(Line& line);
    void attach(QAbstractSeries* s);
    QList<QPointF> filtered(const LineSpec& spec, QVector<double>* std) const;

    QVector<Group> m_groups;
    QVector<Key> m_keys;
    QAbstractAxis* m_x = nullptr;
    QValueAxis* m_y = nullptr;
    bool m_xLog = false;
    bool m_yLog = false;
    QAbstractAxis* m_yLogAxis = nullptr;
    BandMode m_bandMode = BandMode::Auto;
    int m_hoveredGroup = -1;
    QSet<QString> m_hiddenSuffixes;
    QSet<QString> m_hiddenLines;
    double m_yLo;
    double m_yHi;
    double m_markerSize = 0;
};

} // namespace tb::charts
