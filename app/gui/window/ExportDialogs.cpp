#include "ExportDialogs.h"

#include "ExperimentDocument.h"
#include "RunControl.h"
#include "WindowMessages.h"
#include "ChartTabs.h"
#include "comparison/ComparisonTab.h"
#include "comparison/SweepResultView.h"
#include "runs/RunBrowser.h"

#include <QDir>
#include <QFileDialog>
#include <QTabWidget>

namespace tb::gui {

ExportDialogs::ExportDialogs(ChartTabs* charts, ComparisonTab* comparison, QTabWidget* centre,
                             QWidget* comparisonPage, RunBrowser* browser, RunControl* runs,
                             ExperimentDocument* document, WindowMessages* messages, QWidget* window)
    : QObject(window), m_charts(charts), m_comparison(comparison), m_centre(centre),
      m_comparisonPage(comparisonPage), m_browser(browser), m_runs(runs), m_document(document),
      m_messages(messages), m_window(window)
{
}

void ExportDialogs::exportChart()
{
    QString filter = tr("PNG images (*.png)");
    const QString path = QFileDialog::getSaveFileName(
        m_window, tr("Export chart"), QDir(m_document->lastDir()).filePath(QStringLiteral("chart.png")),
        tr("PNG images (*.png);;SVG images (*.svg)"), &filter);
    if (path.isEmpty())
        return;
    QString error;
    const QString title = m_runs->chartSpec() ? m_runs->chartSpec()->name : m_charts->caption();
    const bool ok = m_centre->currentWidget() == m_comparisonPage
                        ? m_comparison->sweepView()->savePng(path, &error)
                        : m_charts->saveImage(path, title, m_runs->chartSettings(), &error);
    if (!ok)
        m_messages->showProblems(tr("Cannot export the chart"), error);
    else
        m_messages->appendLog(tr("Chart written to %1").arg(path));
}

void ExportDialogs::exportRuns()
{
    if (m_browser->selectedRunIds().isEmpty()) {
        m_messages->showProblems(tr("Nothing to export"),
                                 tr("Select runs or experiments in the Runs panel first."));
        return;
    }
    const QString path = QFileDialog::getSaveFileName(
        m_window, tr("Export runs as CSV"), QDir(m_document->lastDir()).filePath(QStringLiteral("runs.csv")),
        tr("CSV files (*.csv)"));
    if (path.isEmpty())
        return;
    QString error;
    if (!m_browser->exportSelectedCsv(path, &error))
        m_messages->showProblems(tr("Cannot export the runs"), error);
    else
        m_messages->appendLog(tr("Runs written to %1").arg(path));
}

} // namespace tb::gui
