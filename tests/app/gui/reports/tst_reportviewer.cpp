// File → Open reproduction report: a report written by `trainbench-cli reproduce` is shown
// rendered, its chart loaded from beside it, its verdicts counted; a file that is not a report, or
// is missing, is refused with its name.

#include "reports/ReportViewer.h"
#include "window/MainWindow.h"

#include <engine/PluginRegistry.h>

#include <QComboBox>
#include <QFile>
#include <QImage>
#include <QTemporaryDir>
#include <QTextBrowser>
#include <QtTest>

using namespace tb;
using namespace tb::gui;

namespace {

const char* kReport = R"md(# Reproduction: A toy paper

- Command: `trainbench-cli reproduce toy.json`

## Claims

### ridge-holds

> Ridge gets at least 60 %

- Paper's figure: 60.00 %

**Verdict: holds** — interval [83.33 %, 83.33 %] lies above 60.00 %

![toy moons](toy-1.png)

### ridge-unreachable

> Ridge gets 99.9 %

**Verdict: does not hold** — interval [83.33 %, 83.33 %] lies below 99.90 %

### absent

**Verdict: inconclusive** — data absent: dataset.file: /nowhere.csv does not exist
)md";

} // namespace

class TestReportViewer : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;

    QString write(const QString& name, const QByteArray& bytes)
    {
        QFile f(m_dir.filePath(name));
        if (!f.open(QIODevice::WriteOnly) || f.write(bytes) != bytes.size())
            qFatal("cannot write %s", qPrintable(f.fileName()));
        return f.fileName();
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        write("toy.md", kReport);
        write("other-quick.md", QByteArray(kReport).replace("A toy paper", "Another paper"));
        write("README.md", "# not a report\n");
        QImage chart(72, 45, QImage::Format_RGB32);
        chart.fill(Qt::red);
        QVERIFY(chart.save(m_dir.filePath("toy-1.png")));
    }

    void showsAReportWithItsChartAndVerdicts()
    {
        ReportViewer viewer;
        QString error;
        QVERIFY2(viewer.openReport(m_dir.filePath("toy.md"), &error), qPrintable(error));
        QCOMPARE(viewer.summary(), QStringLiteral("3 claims: 1 hold, 1 do not hold, 1 inconclusive"));
        const QString text = viewer.browser()->toPlainText();
        QVERIFY2(text.contains("Reproduction: A toy paper") && text.contains("Verdict: does not hold"),
                 qPrintable(text));
        QVERIFY(!text.contains("**")); // rendered, not shown as source
        // The chart, named relative to the report, comes from the report's folder.
        const QVariant image =
            viewer.browser()->document()->resource(QTextDocument::ImageResource, QUrl("toy-1.png"));
        QVERIFY(image.isValid());
        QCOMPARE(image.value<QImage>().size(), QSize(72, 45));
        // The other reports of the folder are offered; README.md is not a report.
        auto* combo = viewer.findChild<QComboBox*>();
        QVERIFY(combo);
        QCOMPARE(combo->count(), 2);
        QCOMPARE(combo->currentText(), QStringLiteral("toy.md"));
    }

    void refusesWhatIsNotAReport()
    {
        ReportViewer viewer;
        QString error;
        QVERIFY(!viewer.openReport(m_dir.filePath("README.md"), &error));
        QVERIFY2(error.contains(m_dir.filePath("README.md")) && error.contains("not a reproduction report"),
                 qPrintable(error));
        QVERIFY(!viewer.openReport(m_dir.filePath("missing.md"), &error));
        QVERIFY2(error.contains(m_dir.filePath("missing.md")) && error.contains("cannot open"),
                 qPrintable(error));
        QVERIFY(viewer.path().isEmpty());
    }

    void theWindowOpensIt()
    {
        PluginRegistry registry;
        registry.scan({QStringLiteral(TB_PLUGIN_BUILD_DIR)});
        MainWindow w(registry);
        w.setConfirmations(false);
        QVERIFY(!w.reportViewer());
        QVERIFY(w.showReproductionReport(m_dir.filePath("toy.md")));
        QVERIFY(w.reportViewer() && w.reportViewer()->isVisible());
        QCOMPARE(w.reportViewer()->path(), QFileInfo(m_dir.filePath("toy.md")).absoluteFilePath());
    }
};

QTEST_MAIN(TestReportViewer)
#include "tst_reportviewer.moc"
