#include "ProgressBar.h"

#include <engine/CostPrediction.h>
#include <engine/ExperimentKind.h>

#include <cstdio>

namespace tb::cli {

ProgressBar::ProgressBar(bool enabled) : m_enabled(enabled)
{
    m_clock.start();
}

ProgressBar::~ProgressBar()
{
    finish();
}

void ProgressBar::experimentStarted(qint64, const ExperimentSpec& spec, int totalUnits)
{
    std::lock_guard lock(m_mutex);
    const ExperimentKind* kind = ExperimentKinds::find(spec.kind);
    m_unit = kind ? kind->unit(1) : QStringLiteral("run");
    m_total = totalUnits;
    m_clock.restart();
    draw(true);
}

void ProgressBar::suiteSetStarted(int index, int sets, const ExperimentSpec& spec)
{
    if (!describeSet)
        return;
    const QStringList lines = describeSet(index, sets, spec);
    std::lock_guard lock(m_mutex);
    for (const QString& line : lines)
        printAbove(line);
}

void ProgressBar::progress(int done, int total)
{
    std::lock_guard lock(m_mutex);
    m_done = done;
    m_total = total;
    draw(done == total);
}

void ProgressBar::runStarted(const RunJob& job, qint64)
{
    std::lock_guard lock(m_mutex);
    if (std::isnan(job.sigma))
        m_current = QStringLiteral("%1 repeat %2").arg(job.label).arg(job.repeat);
    draw(false);
}

void ProgressBar::costPredicted(const RunJob& job, qint64, const QJsonObject& cost)
{
    if (const QString unchecked = cost.value(QStringLiteral("memory_unchecked")).toString(); !unchecked.isEmpty()) {
        std::lock_guard lock(m_mutex);
        if (!m_predicted.contains(job.algorithmId + QStringLiteral("\nunchecked"))) {
            m_predicted.insert(job.algorithmId + QStringLiteral("\nunchecked"));
            printAbove(QStringLiteral("warning: %1").arg(unchecked));
        }
    }
    const QString what = CostPrediction(cost).describe();
    if (what.isEmpty())
        return;
    QString line = QStringLiteral("predicted %1").arg(what);
    // The shape the trainer sees (sparse data made dense for a dense-only trainer is dense).
    if (cost.contains(QStringLiteral("shape")))
        line += QStringLiteral(" for %1").arg(cost.value(QStringLiteral("shape")).toString());
    else if (job.data)
        line += QStringLiteral(" for %1").arg(CostPrediction::describeShape(CostPrediction::shapeOf(job.data->train)));
    std::lock_guard lock(m_mutex);
    if (m_unit != QLatin1String("run"))  // predictions are per run; a kind's unit may be a cell of several
        line += QStringLiteral(" per ") + m_unit;
    // Once per algorithm and prediction: a tuning's 200 trials of one algorithm print a line per
    // distinct cost, under the first trial's label, not 200.
    if (m_predicted.contains(job.algorithmId + QLatin1Char('\n') + line))
        return;
    m_predicted.insert(job.algorithmId + QLatin1Char('\n') + line);
    printAbove(QStringLiteral("%1: %2").arg(job.label.isEmpty() ? job.algorithmId : job.label, line));
}

void ProgressBar::printAbove(const QString& line)
{
    if (m_enabled && m_drawn)
        std::fprintf(stderr, "\r%-100s\r", "");
    std::fprintf(stderr, "%s\n", qPrintable(line));
    std::fflush(stderr);
    if (m_enabled && m_drawn)
        draw(true);
}

void ProgressBar::checkpointLogged(const RunJob& job, qint64, const MetricPoint& p)
{
    std::lock_guard lock(m_mutex);
    m_current = QStringLiteral("%1 repeat %2 epoch %3").arg(job.label).arg(job.repeat).arg(p.epoch);
    draw(false);
}

void ProgressBar::draw(bool force)
{
    if (!m_enabled)
        return;
    const qint64 now = m_clock.elapsed();
    if (!force && now - m_lastDraw < 100)
        return;
    m_lastDraw = now;
    const int width = 30;
    const double frac = m_total > 0 ? double(m_done) / m_total : 0.0;
    const int filled = int(frac * width);
    QString bar = QString(filled, QLatin1Char('#')) + QString(width - filled, QLatin1Char('.'));
    QString eta = QStringLiteral("--:--");
    if (m_done > 0 && m_done < m_total) {
        const qint64 s = qint64(now / 1000.0 * (m_total - m_done) / m_done);
        eta = QStringLiteral("%1:%2").arg(s / 60).arg(s % 60, 2, 10, QLatin1Char('0'));
    } else if (m_done >= m_total && m_total > 0) {
        eta = QStringLiteral("done");
    }
    QString line = QStringLiteral("\r[%1] %2%  %3/%4  ETA %5  %6")
                       .arg(bar)
                       .arg(int(frac * 100), 3)
                       .arg(m_done)
                       .arg(m_total)
                       .arg(eta, m_current.left(40));
    std::fprintf(stderr, "%-100s", qPrintable(line));
    std::fflush(stderr);
    m_drawn = true;
}

void ProgressBar::finish()
{
    std::lock_guard lock(m_mutex);
    if (m_enabled && m_drawn) {
        std::fprintf(stderr, "\n");
        m_drawn = false;
    }
}

} // namespace tb::cli
