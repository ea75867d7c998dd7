// Performance profiles (Dolan & Moré 2002) of configurations over data sets: for each
// configuration, the fraction of the data sets on which its cost is within a factor τ of the best
// configuration's there, as a step line against τ on a log2 axis. Two entries: the time to a
// validation-chosen target ("performance-profile", OUT-profile.png) and the final test error
// ("error-profile", OUT-error-profile.png). Registered below; nothing else names them.

#include "ChartPalette.h"
#include "ChartRegistry.h"
#include "ChartStyle.h"

#include <engine/AcrossSets.h>

#include <QChart>
#include <QGuiApplication>
#include <QLegend>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QValueAxis>

#include <algorithm>
#include <cmath>

namespace tb::charts {
namespace {

enum class Profile { Time, Error };

/// The step line of one configuration's ρ(τ): from (1, ρ(1)), level until each breakpoint where
/// ρ changes, up there, and level on to @p xmax. ρ is right-continuous: at a breakpoint τ it
/// already counts the sets with ratio τ.
QList<QPointF> stepPoints(const std::vector<double>& taus, const std::vector<double>& rho, double xmax)
{
    QList<QPointF> pts;
    const size_t n = std::min(taus.size(), rho.size());
    double level = 0;
    size_t i = 0;
    for (; i < n && taus[i] <= 1; ++i)
        level = rho[i];
    pts << QPointF(1, level);
    for (; i < n; ++i) {
        if (!std::isfinite(taus[i]) || taus[i] >= xmax)
            break;
        if (rho[i] != level) {
            pts << QPointF(taus[i], level) << QPointF(taus[i], rho[i]);
            level = rho[i];
        }
    }
    pts << QPointF(xmax, level);
    return pts;
}

/// What a set's error is, in words: "1 − test accuracy", "test RMSE".
QString errorWords(MetricId metric)
{
    switch (metric) {
    case MetricId::TestAccuracy:
    case MetricId::TrainAccuracy:
    case MetricId::ValidationAccuracy: return QStringLiteral("1 − ") + RunMetric::label(metric);
    default: break;
    }
    return RunMetric::label(metric);
}

QString subtitleOf(const AcrossSetsResult& a, const stats::PerformanceProfile& profile, Profile which)
{
    QStringList parts;
    if (which == Profile::Time) {
        bool validation = false;
        for (const AcrossSetsColumn& c : a.sets)
            validation = validation || c.selection == MetricId::ValidationAccuracy || c.selection == MetricId::ValidationRmse;
        parts << (a.selectedOnTest && !validation
                      ? QStringLiteral("target: the best test value every run reaches, per set (no validation split)")
                      : a.selectedOnTest ? QStringLiteral("target: the best validation value every run reaches, per set "
                                                          "(test where a set has no validation split)")
                                         : QStringLiteral("target: the best validation value every run reaches, per set"));
        parts << QStringLiteral("median time over seeds");
    } else {
        QStringList words;
        for (const AcrossSetsColumn& c : a.sets)
            if (!words.contains(errorWords(c.metric)))
                words << errorWords(c.metric);
        parts << QStringLiteral("error: %1, mean over seeds").arg(words.join(QStringLiteral(" or ")));
    }
    parts << QStringLiteral("%1 data set%2").arg(profile.sets).arg(profile.sets == 1 ? "" : "s");
    if (!a.gaps.isEmpty())
        parts << QStringLiteral("%1 gap%2 (no finished run)").arg(a.gaps.size()).arg(a.gaps.size() == 1 ? "" : "s");
    return parts.join(QStringLiteral(" · "));
}

/// Replaces what @p chart shows by the @p which profile of @p result.
void showProfile(QChart* chart, const ExperimentResult& result, const ChartOptions& options, Profile which)
{
    chart->removeAllSeries(); // deletes the series
    for (QAbstractAxis* axis : chart->axes()) {
        chart->removeAxis(axis);
        delete axis;
    }
    // Each set on its own task's default metric: a suite may mix classification and regression.
    const AcrossSetsResult a = AcrossSets::compute(AcrossSets::samples(result.curves));
    const stats::PerformanceProfile& profile = which == Profile::Time ? a.timeProfile : a.errorProfile;

    double largest = 1;
    for (const std::vector<double>& row : profile.ratios)
        for (double v : row)
            if (std::isfinite(v))
                largest = std::max(largest, v);
    // At least one doubling: a log2 axis shorter than that has no tick beyond 1.
    const double xmax = std::max(2.0, largest * 1.1);

    const QString what = which == Profile::Time ? QStringLiteral("Performance profile of the time to target")
                                                : QStringLiteral("Performance profile of the final test error");
    QFont small = QGuiApplication::font();
    chart->setTitle(QStringLiteral("<div align=\"center\">%1<br><span style=\"font-weight:normal; font-size:%2pt; "
                                   "color:#444444\">%3</span></div>")
                        .arg(options.titled(what).toHtmlEscaped())
                        .arg(small.pointSizeF())
                        .arg(subtitleOf(a, profile, which).toHtmlEscaped()));

    auto* x = new QLogValueAxis;
    x->setBase(2);
    x->setLabelFormat("%g");
    x->setRange(1, xmax);
    x->setMinorTickCount(3);
    x->setGridLineColor(QColor(0xDD, 0xDD, 0xDD));
    x->setMinorGridLineColor(QColor(0xF0, 0xF0, 0xF0));
    x->setTitleText(which == Profile::Time ? QStringLiteral("τ (time / best time on the set)")
                                           : QStringLiteral("τ (error / best error on the set)"));
    auto* y = new QValueAxis;
    // A little room beyond 0 and 1, so that a line at either is not cut in half by the plot's edge.
    y->setRange(-0.02, 1.02);
    y->setTickType(QValueAxis::TicksDynamic);
    y->setTickAnchor(0);
    y->setTickInterval(0.2);
    y->setLabelFormat("%.1f");
    y->setGridLineColor(QColor(0xDD, 0xDD, 0xDD));
    y->setTitleText(QStringLiteral("fraction of data sets"));
    chart->addAxis(x, Qt::AlignBottom);
    chart->addAxis(y, Qt::AlignLeft);

    for (int j = 0; j < a.configurations.size(); ++j) {
        auto* s = new QLineSeries;
        s->setName(a.configurations[j]);
        QPen pen(ChartPalette::color(j));
        pen.setWidthF(2.5);
        pen.setCapStyle(Qt::FlatCap);
        pen.setJoinStyle(Qt::MiterJoin);
        s->setPen(pen);
        if (size_t(j) < profile.rho.size())
            s->replace(stepPoints(profile.taus, profile.rho[size_t(j)], xmax));
        chart->addSeries(s);
        s->attachAxis(x);
        s->attachAxis(y);
    }
    // One row of names below the plot, or a column beside it when a row would cut them short.
    chart->legend()->setAlignment(a.configurations.size() > 6 ? Qt::AlignRight : Qt::AlignBottom);
    chart->legend()->setVisible(true);
}

ChartEntry profileEntry(Profile which)
{
    ChartEntry e;
    const bool time = which == Profile::Time;
    e.id = time ? QStringLiteral("performance-profile") : QStringLiteral("error-profile");
    e.title = ChartEntry::fixedTitle(time ? QStringLiteral("Performance profile") : QStringLiteral("Error profile"));
    e.toolTip = time ? QStringLiteral("Per configuration, the fraction of the data sets on which its time to the "
                                      "target is within a factor τ of the fastest's (Dolan & Moré 2002)")
                     : QStringLiteral("Per configuration, the fraction of the data sets on which its final test "
                                      "error is within a factor τ of the best's (Dolan & Moré 2002)");
    e.place = ChartPlace::Comparison;
    e.order = time ? 154 : 156;
    e.applies = [](const ExperimentResult& r) { return AcrossSets::applies(r); };
    e.exportedFor = [](const ExperimentResult& r) { return AcrossSets::applies(r); };
    e.fileSuffix = time ? QStringLiteral("profile") : QStringLiteral("error-profile");
    e.build = [which](const ChartOptions&) {
        auto* chart = new QChart;
        styleChart(chart);
        return std::make_unique<ChartPlot>(chart, [chart, which](const ExperimentResult& r, const ChartOptions& o) {
            showProfile(chart, r, o, which);
        });
    };
    return e;
}

const ChartRegistry::Registration timeRegistration{profileEntry(Profile::Time)};
const ChartRegistry::Registration errorRegistration{profileEntry(Profile::Error)};

} // namespace
} // namespace tb::charts
