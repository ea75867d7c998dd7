// DatasetPanel: spec round trips per source, the off-thread preview, errors in the red label, and
// the catalogue's Fetch row (progress, cancel, resume, errors) against a local HTTP server.
#include <data/DataSource.h>
#include <data/DataSourceRegistry.h>
#include "setup/DatasetPanel.h"
#include "setup/DatasetPreview.h"
#include <data/IdxLoader.h>
#include <data/DatasetCache.h>
#include <data/DatasetCatalog.h>
#include <data/MemoryBudget.h>
#include "TestHttpServer.h"

#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QCryptographicHash>
#include <QDir>
#include <QDoubleSpinBox>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QProcess>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTableWidget>
#include <QTcpServer>
#include <QTemporaryDir>
#include <QTest>
#include <QThreadPool>

using namespace tb;
using tb::gui::DatasetPanel;

namespace {

QString json(const QJsonObject& o)
{
    return QString::fromUtf8(QJsonDocument(o).toJson(QJsonDocument::Compact));
}

/// Waits for the preview of the panel's current settings (loads of earlier settings are dropped
/// by the panel and emit nothing). Fashion-MNIST takes about a second on a loaded machine; 20 s
/// only bounds a hang.
bool waitForPreview(DatasetPanel& panel, int timeoutMs = 20000)
{
    QSignalSpy ready(&panel, &DatasetPanel::previewReady);
    return ready.wait(timeoutMs);
}

QLabel* errorLabel(DatasetPanel& panel)
{
    return panel.findChild<QLabel*>("error");
}

} // namespace

class TestDatasetPanel : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void bplsToyRoundTrip()
    {
        DatasetPanel panel;
        const QJsonObject in{{"source", "bpls_toy"}, {"function", "nonlinear"}, {"sigma", 0.15},
                             {"standardise", false}, {"seed", 7}};
        panel.setSpec(in);
        QCOMPARE(json(panel.spec()), json(in));
        QCOMPARE(panel.task(), Task::Regression);
        QVERIFY(panel.hasNoiseLevel());
        QVERIFY(panel.editor("sigma"));
        QVERIFY(!panel.editor("samples")); // not a field of the toy problem
        QCOMPARE(qobject_cast<QComboBox*>(panel.editor("function"))->currentData().toString(), QString("nonlinear"));

        // A minimal spec comes back unchanged: defaults it left out stay out (they are the schema's).
        const QJsonObject minimal{{"source", "bpls_toy"}, {"function", "linear"}};
        panel.setSpec(minimal);
        QCOMPARE(json(panel.spec()), json(minimal));
        QCOMPARE(qobject_cast<QDoubleSpinBox*>(panel.editor("sigma"))->value(), 0.0); // shown at its default
        // An edited value is written, also when it is set back to the default.
        qobject_cast<QDoubleSpinBox*>(panel.editor("sigma"))->setValue(0.5);
        QCOMPARE(panel.spec().value("sigma").toDouble(), 0.5);
        qobject_cast<QDoubleSpinBox*>(panel.editor("sigma"))->setValue(0.0);
        QVERIFY(panel.spec().contains("sigma"));
        QVERIFY(!panel.spec().contains("seed")); // empty seed: the experiment's
    }

    void moonsRoundTripAndPreview()
    {
        DatasetPanel panel;
        const QJsonObject in{{"source", "moons"}, {"samples", 400}, {"noise", 0.2}, {"test_fraction", 0.25},
                             {"standardise", true}, {"seed", 3}};
        panel.setSpec(in);
        QCOMPARE(json(panel.spec()), json(in));
        QCOMPARE(panel.task(), Task::Classification);
        QVERIFY(panel.hasNoiseLevel());

        QVERIFY(waitForPreview(panel));
        QCOMPARE(panel.lastError(), QString());
        const auto& s = panel.preview()->summary();
        QVERIFY(s.valid);
        // splitTrainTest puts round(400 · 0.25) = 100 rows in the test set.
        QCOMPARE(s.trainRows, 300);
        QCOMPARE(s.testRows, 100);
        QCOMPARE(s.inputs, 2);
        QCOMPARE(s.outputs, 2);
        QCOMPARE(panel.preview()->shapeText(), QString("n train 300 / n test 100 / d 2 / k 2"));
        QCOMPARE(s.classNames.size(), 2);
        QCOMPARE(s.trainClassCounts[0] + s.trainClassCounts[1], 300);
        QCOMPARE(s.plot, gui::DatasetPreview::Summary::Plot::Scatter2D);
        QCOMPARE(s.points.size(), 400); // every row of both sets (fewer than the cap)
        QVERIFY(!errorLabel(panel)->isVisibleTo(&panel));

        // An edit in the form schedules a new preview with the new shape.
        qobject_cast<QSpinBox*>(panel.editor("samples"))->setValue(100);
        QVERIFY(waitForPreview(panel)); // after the 300 ms debounce
        QCOMPARE(panel.preview()->summary().testRows, 25);
        QCOMPARE(panel.spec().value("samples").toInt(), 100);
    }

    void invalidSpecShowsMessage()
    {
        DatasetPanel panel;
        panel.setSpec({{"source", "moons"}, {"samples", "abc"}, {"colour", "red"}});
        // Nothing the file said is lost, so the message can name it.
        QCOMPARE(panel.spec().value("samples").toString(), QString("abc"));
        QCOMPARE(panel.spec().value("colour").toString(), QString("red"));
        panel.refreshPreview();
        QVERIFY2(panel.lastError().startsWith("dataset.samples:") || panel.lastError().startsWith("dataset.colour:"),
                 qPrintable(panel.lastError()));
        QVERIFY(errorLabel(panel)->isVisibleTo(&panel));
        QCOMPARE(errorLabel(panel)->text(), panel.lastError());

        // Editing the field replaces the value the spin box could not show.
        qobject_cast<QSpinBox*>(panel.editor("samples"))->setValue(50);
        QCOMPARE(panel.spec().value("samples").toInt(), 50);
        QVERIFY(panel.spec().contains("colour"));
    }

    void csvRoundTripAndPreview()
    {
        const QString train = QStringLiteral(TB_FIXTURES_DIR "/data/iris_small.csv");
        const QString test = QStringLiteral(TB_FIXTURES_DIR "/data/iris_small_test.csv");
        DatasetPanel panel;
        const QJsonObject in{{"source", "csv"}, {"file", train}, {"target", "species"}, {"task", "classification"},
                             {"test_file", test}, {"standardise", true}};
        panel.setSpec(in);
        QCOMPARE(json(panel.spec()), json(in));
        QCOMPARE(qobject_cast<QComboBox*>(panel.editor("test_mode"))->currentIndex(), 1);
        QVERIFY(!panel.editor("test_fraction"));
        QVERIFY(!panel.hasNoiseLevel());
        QCOMPARE(panel.task(), Task::Classification);
        QVERIFY(waitForPreview(panel));
        QCOMPARE(panel.lastError(), QString());
        QCOMPARE(panel.preview()->summary().inputs, 4);
        QCOMPARE(panel.preview()->summary().classNames.size(), 3);

        // Multi-output regression with a random split: the target list and the fraction.
        const QString regression = QStringLiteral(TB_FIXTURES_DIR "/data/regression.csv");
        const QJsonObject reg{{"source", "csv"}, {"file", regression}, {"target", QJsonArray{"y1", "y2"}},
                              {"task", "regression"}, {"test_fraction", 0.25}, {"standardise", false}};
        panel.setSpec(reg);
        QCOMPARE(json(panel.spec()), json(reg));
        QCOMPARE(panel.task(), Task::Regression);
        QVERIFY(waitForPreview(panel));
        QCOMPARE(panel.lastError(), QString());
        QCOMPARE(panel.preview()->summary().outputs, 2);
    }

    void csvBadPathNamesTheFile()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString missing = dir.filePath("no_such_file.csv");
        DatasetPanel panel;
        panel.setSpec({{"source", "csv"}, {"file", missing}, {"target", "y"}, {"task", "regression"},
                       {"test_fraction", 0.3}});
        QVERIFY(waitForPreview(panel));
        QVERIFY2(panel.lastError().contains("no_such_file.csv"), qPrintable(panel.lastError()));
        QVERIFY(errorLabel(panel)->isVisibleTo(&panel));
        QVERIFY(!panel.preview()->summary().valid);

        // A broken row: the message names the file and the line.
        const QString broken = dir.filePath("broken.csv");
        QFile f(broken);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("x,y\n1,2\n3,abc\n5,6\n");
        f.close();
        qobject_cast<QLineEdit*>(panel.editor("file"))->setText(broken);
        QVERIFY(waitForPreview(panel));
        QVERIFY2(panel.lastError().contains("broken.csv:3"), qPrintable(panel.lastError()));
    }

    void relativePathsUseBaseDir()
    {
        DatasetPanel panel;
        panel.setBaseDir(QStringLiteral(TB_FIXTURES_DIR "/data"));
        panel.setSpec({{"source", "csv"}, {"file", "iris_small.csv"}, {"target", "species"},
                       {"task", "classification"}, {"test_fraction", 0.3}});
        QVERIFY(waitForPreview(panel));
        QCOMPARE(panel.lastError(), QString());
        QCOMPARE(panel.spec().value("file").toString(), QString("iris_small.csv")); // kept relative
    }

    void fashionMnistPreview()
    {
        if (data::IdxLoader::fashionMnistDir().isEmpty())
            QSKIP("Fashion-MNIST not installed (no /usr/share/datasets/fashion-mnist)");
        DatasetPanel panel;
        const QJsonObject in{{"source", "fashion_mnist"}, {"train_limit", 600}, {"test_limit", 100},
                             {"standardise", false}};
        panel.setSpec(in);
        QCOMPARE(json(panel.spec()), json(in));
        QVERIFY(!panel.hasNoiseLevel());
        QVERIFY(waitForPreview(panel));
        QCOMPARE(panel.lastError(), QString());
        const auto& s = panel.preview()->summary();
        QCOMPARE(s.trainRows, 600);
        QCOMPARE(s.testRows, 100);
        QCOMPARE(s.inputs, 784);
        QCOMPARE(s.classNames.size(), 10);
        QCOMPARE(s.plot, gui::DatasetPreview::Summary::Plot::Images);
        QCOMPARE(s.images.size(), 24);
        QCOMPARE(s.images[0].size(), QSize(28, 28));
    }

    void catalogueSetsOfferAFetch()
    {
        QTemporaryDir cache;
        qputenv("TRAINBENCH_DATASETS_DIR", cache.path().toUtf8());
        DatasetPanel panel;
        panel.setSpec(QJsonObject{{"source", "covtype"}});
        QVERIFY(panel.findChild<QWidget*>("fetch")->isVisibleTo(&panel));
        QCOMPARE(panel.fetchButton()->text(), QStringLiteral("Fetch"));
        QVERIFY2(panel.fetchStatus().startsWith("Not fetched yet (≈ 10.7 MiB, checked against the checksum published by scikit-learn"),
                 qPrintable(panel.fetchStatus()));
        QVERIFY(panel.fetchError().isEmpty());
        // A set that is not fetched says how to get it in the red label too.
        QVERIFY(waitForPreview(panel));
        QVERIFY2(panel.lastError().contains("`trainbench-cli datasets fetch covtype`"), qPrintable(panel.lastError()));
        // Unverifiable sets are fetched from the command line, with a checksum the user gives.
        panel.setSpec(QJsonObject{{"source", "ccpp"}});
        QVERIFY(!panel.fetchButton()->isVisibleTo(&panel));
        QVERIFY2(panel.fetchStatus().contains("--sha256 HEX"), qPrintable(panel.fetchStatus()));
        panel.setSpec(QJsonObject{{"source", "moons"}});
        QVERIFY(!panel.findChild<QWidget*>("fetch_status")->isVisibleTo(&panel));
        qunsetenv("TRAINBENCH_DATASETS_DIR");
    }

    void aFetchShowsProgressAndCanBeCancelled()
    {
        // A slow local server (127.0.0.1) serves a copy of covtype.data.gz under a mirror address;
        // the copy is not the published file, so a complete fetch is refused by its checksum.
        QTemporaryDir cache;
        qputenv("TRAINBENCH_DATASETS_DIR", cache.path().toUtf8());
        for (const char* v : {"http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"})
            qunsetenv(v);
        tb::test::TestHttpServer server;
        QByteArray body(400000, '\0');
        for (int i = 0; i < body.size(); ++i)
            body[i] = char((i * 7919) % 251);
        tb::test::TestHttpServer::Behaviour slow;
        slow.chunk = 4096;
        slow.chunkDelayMs = 20;
        const QString path = "/mirror/covtype/covtype.data.gz";
        server.serve(path, body, slow);
        qputenv("TRAINBENCH_DATASETS_MIRROR", server.url("/mirror").toUtf8());
        DatasetPanel panel;
        panel.setSpec(QJsonObject{{"source", "covtype"}});
        QSignalSpy finished(&panel, &DatasetPanel::fetchFinished);
        QTest::mouseClick(panel.fetchButton(), Qt::LeftButton);
        QVERIFY(panel.isFetching());
        QCOMPARE(panel.fetchButton()->text(), QStringLiteral("Cancel"));
        auto* progress = panel.findChild<QProgressBar*>("fetch_progress");
        QVERIFY(progress->isVisibleTo(&panel));
        // The bar moves once the server's Content-Length is known (the published size is approximate).
        QTRY_VERIFY_WITH_TIMEOUT(progress->maximum() == 1000 && progress->value() > 0, 20000);
        QVERIFY2(progress->format().contains("covtype.data.gz (1/1)"), qPrintable(progress->format()));
        QVERIFY2(panel.fetchStatus().startsWith("Fetching Forest cover type"), qPrintable(panel.fetchStatus()));
        QTest::mouseClick(panel.fetchButton(), Qt::LeftButton);
        QVERIFY(!panel.fetchButton()->isEnabled()); // one cancel is enough
        QVERIFY(finished.wait(20000));
        QCOMPARE(finished.first().first().toBool(), false);
        QVERIFY(!panel.isFetching());
        // A cancel is no error: the row says what became of the part.
        QVERIFY(panel.fetchError().isEmpty());
        QVERIFY2(panel.fetchStatus().contains("cancelled") && panel.fetchStatus().contains("resumes"),
                 qPrintable(panel.fetchStatus()));
        QCOMPARE(panel.fetchButton()->text(), QStringLiteral("Fetch again"));
        QVERIFY(panel.fetchButton()->isEnabled());
        QVERIFY(!progress->isVisibleTo(&panel));
        QVERIFY(QFileInfo(cache.filePath(".partial/covtype/covtype.data.gz.part")).size() > 0);
        // Fetch again: it resumes where it stopped, then the checksum refuses the copy and nothing
        // is left in the cache — neither the file nor its part.
        server.serve(path, body);
        QTest::mouseClick(panel.fetchButton(), Qt::LeftButton);
        QVERIFY(finished.wait(20000));
        QCOMPARE(finished.last().first().toBool(), false);
        QVERIFY2(panel.fetchError().contains("checksum mismatch") && panel.fetchError().contains(server.url(path)),
                 qPrintable(panel.fetchError()));
        QVERIFY2(panel.fetchStatus().startsWith("The fetch failed: ") && panel.fetchStatus().contains("checksum mismatch"),
                 qPrintable(panel.fetchStatus()));
        QVERIFY2(server.ranges(path).last().startsWith("bytes="), qPrintable(server.ranges(path).join(" | ")));
        QVERIFY(!QFileInfo::exists(cache.filePath("covtype/covtype.data.gz")));
        QVERIFY(!QFileInfo::exists(cache.filePath(".partial/covtype/covtype.data.gz.part")));
        // The failure belongs to covtype: another set's row does not show it, covtype's again does.
        panel.setSpec(QJsonObject{{"source", "mnist"}});
        QVERIFY(panel.fetchError().isEmpty());
        QVERIFY2(panel.fetchStatus().startsWith("Not fetched yet"), qPrintable(panel.fetchStatus()));
        panel.setSpec(QJsonObject{{"source", "covtype"}});
        QVERIFY(panel.fetchError().contains("checksum mismatch"));
        // A fetch goes on while another source is shown; its row stays to watch and cancel it.
        server.serve(path, body, slow);
        QTest::mouseClick(panel.fetchButton(), Qt::LeftButton);
        panel.setSpec(QJsonObject{{"source", "moons"}});
        QVERIFY(panel.findChild<QWidget*>("fetch_status")->isVisibleTo(&panel));
        QVERIFY2(panel.fetchStatus().startsWith("Fetching Forest cover type"), qPrintable(panel.fetchStatus()));
        QTest::mouseClick(panel.fetchButton(), Qt::LeftButton);
        QVERIFY(finished.wait(20000));
        QVERIFY(!panel.findChild<QWidget*>("fetch_status")->isVisibleTo(&panel));
        // A panel closed during a fetch cancels it and waits for it.
        {
            DatasetPanel closing;
            closing.setSpec(QJsonObject{{"source", "covtype"}});
            QTest::mouseClick(closing.fetchButton(), Qt::LeftButton);
            QVERIFY(closing.isFetching());
        }
        qunsetenv("TRAINBENCH_DATASETS_MIRROR");
        qunsetenv("TRAINBENCH_DATASETS_DIR");
    }

    void aFetchedSetIsVerifiedAndUsed()
    {
        // The catalogue is read when the process starts, so a set whose checksum the test knows
        // (a small CSV served by the local server) is tried in a child process of this program
        // started with a catalogue file of its own (TestDatasetPanelFetch below).
        QTemporaryDir dir;
        QByteArray body;
        for (int i = 0; i < 60; ++i)
            body += QByteArray::number(i % 7) + ',' + QByteArray::number((i * 13) % 11) + ',' + QByteArray::number(i % 2) + '\n';
        tb::test::TestHttpServer server;
        server.serve("/files/tiny.csv", body);
        QJsonObject entry{{"id", "panel_tiny"},
                          {"title", "Tiny test set"},
                          {"description", "Two numbers per row; the target is 0 or 1."},
                          {"task", "classification"},
                          {"papers", "none (a test fixture)"},
                          {"homepage", server.url("/")},
                          {"licence", "test data"},
                          {"licence_url", server.url("/licence")},
                          {"checksum_source", "tst_datasetpanel, computed by the test"},
                          {"split", "random"},
                          {"test_fraction", 0.2},
                          {"split_note", "a seeded 20 %"},
                          {"rows", 60},
                          {"features", 2},
                          {"classes", 2}};
        entry.insert("files", QJsonArray{QJsonObject{
                                  {"name", "tiny.csv"},
                                  {"size", body.size()},
                                  {"sha256", QString::fromLatin1(QCryptographicHash::hash(body, QCryptographicHash::Sha256).toHex())},
                                  {"urls", QJsonArray{server.url("/files/tiny.csv")}}}});
        entry.insert("load", QJsonObject{{"format", "csv"}, {"file", "tiny.csv"}, {"header", false}, {"target", -1}});
        QFile catalogue(dir.filePath("catalogue.json"));
        QVERIFY(catalogue.open(QIODevice::WriteOnly));
        catalogue.write(QJsonDocument(QJsonArray{entry}).toJson());
        catalogue.close();
        // An address that does not answer: a port just closed.
        QTcpServer closed;
        QVERIFY(closed.listen(QHostAddress::LocalHost, 0));
        const QString dead = QStringLiteral("http://127.0.0.1:%1").arg(closed.serverPort());
        closed.close();

        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert("TB_DATASETPANEL_FETCH_CHILD", "1");
        env.insert("TRAINBENCH_DATASETS_CATALOG", catalogue.fileName());
        env.insert("TRAINBENCH_DATASETS_DIR", dir.filePath("cache"));
        env.insert("TB_TEST_DEAD_MIRROR", dead);
        env.insert("TB_TEST_BODY", dir.filePath("body.csv"));
        env.remove("TRAINBENCH_DATASETS_MIRROR");
        for (const char* v : {"http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"})
            env.remove(v); // loopback only
        QFile copy(dir.filePath("body.csv")); // the file "fetched by hand"
        QVERIFY(copy.open(QIODevice::WriteOnly));
        copy.write(body);
        copy.close();
        QProcess child;
        child.setProcessEnvironment(env);
        child.setProcessChannelMode(QProcess::MergedChannels);
        child.start(QCoreApplication::applicationFilePath(), QStringList());
        QVERIFY(child.waitForFinished(180000));
        const QString out = QString::fromUtf8(child.readAll());
        QVERIFY2(child.exitStatus() == QProcess::NormalExit && child.exitCode() == 0, qPrintable(out));
        QVERIFY2(out.contains("PASS   : TestDatasetPanelFetch::aGoodFetch()"), qPrintable(out));
        // One download in all: the set placed by hand was verified, not fetched.
        QCOMPARE(server.requests("/files/tiny.csv"), 1);
    }

    void formsAreBuiltFromTheSchema()
    {
        // Every key of every source has its editor, with the schema's help as tool tip; no source
        // or key is known to the panel by name.
        DatasetPanel panel;
        auto* source = qobject_cast<QComboBox*>(panel.editor("source"));
        QCOMPARE(source->count(), data::DataSourceRegistry::all().size());
        for (const data::DataSourceEntry* entry : data::DataSourceRegistry::all()) {
            const QString id = entry->info.id;
            source->setCurrentIndex(source->findData(id));
            for (const ParamSpec& p : entry->schema.specs()) {
                if (auto* mode = qobject_cast<QComboBox*>(panel.editor("test_mode"))) // sources with both
                    mode->setCurrentIndex(p.key == u"test_file" || p.key == u"test_target_file" ? 1 : 0);
                // Keys shown only under a condition (the rf_* keys with random features, the
                // regression options with task "regression"): the condition's choice is made.
                for (const ParamCondition& c : p.activeWhen) {
                    if (panel.editor("test_mode") &&
                        (c.key == u"test_file" || c.key == u"test_fraction" || c.key == u"test_target_file"))
                        continue; // the test-set chooser above decides these
                    auto* choice = qobject_cast<QComboBox*>(panel.editor(c.key));
                    // "Unless a file is given" (validation_fraction unless validation_file): met
                    // while the file field is empty, as it is here.
                    if (!choice && c.negate && c.values.isEmpty())
                        continue;
                    QVERIFY2(choice, qPrintable(id + "." + c.key));
                    for (int i = 0; i < choice->count(); ++i)
                        if (c.values.contains(choice->itemData(i).toString()) != c.negate)
                            choice->setCurrentIndex(i);
                }
                QWidget* e = panel.editor(p.key);
                QVERIFY2(e, qPrintable(id + "." + p.key));
                QCOMPARE(e->toolTip(), p.help);
            }
        }
    }

    void randomFeaturesFromTheForm()
    {
        // The option's settings appear once a generator is chosen, reach the spec, and the
        // preview shows the mapped shape; back to "none", they leave the spec again.
        DatasetPanel panel;
        panel.setSpec(QJsonObject{{"source", "moons"}, {"samples", 200}});
        QVERIFY(!panel.editor("rf_count")); // hidden without random features
        auto* kind = qobject_cast<QComboBox*>(panel.editor("random_features"));
        QVERIFY(kind);
        kind->setCurrentIndex(kind->findData("gaussian_cos"));
        auto* count = qobject_cast<QSpinBox*>(panel.editor("rf_count"));
        QVERIFY(count);
        QVERIFY(count->isVisibleTo(&panel));
        count->setValue(24);
        QJsonObject spec = panel.spec();
        QCOMPARE(spec.value("random_features").toString(), QString("gaussian_cos"));
        QCOMPARE(spec.value("rf_count").toInt(), 24);
        QVERIFY2(data::DataSource::validate(spec).isEmpty(), qPrintable(data::DataSource::validate(spec)));
        QVERIFY(waitForPreview(panel));
        QCOMPARE(panel.lastError(), QString());
        QCOMPARE(panel.preview()->summary().inputs, 24);
        kind->setCurrentIndex(kind->findData("none"));
        spec = panel.spec();
        QVERIFY(!spec.contains("rf_count"));
        QVERIFY2(data::DataSource::validate(spec).isEmpty(), qPrintable(data::DataSource::validate(spec)));
    }

    void csvOptionsWithTheFirstRowsOfTheFile()
    {
        // scikit-learn's iris.csv: a count row, no header, the class index last.
        const QString iris = QStringLiteral(TB_FIXTURES_DIR "/data/sklearn/iris.csv");
        DatasetPanel panel;
        panel.setSpec({{"source", "csv"}, {"file", iris}, {"target", "species"}, {"task", "classification"},
                       {"test_fraction", 0.25}});
        QVERIFY(waitForPreview(panel));
        // It does not load yet, but its rows show how the options read it: the count row as header.
        QVERIFY2(panel.lastError().contains("skip_rows"), qPrintable(panel.lastError()));
        QTableWidget* rows = panel.fileRows();
        QVERIFY(rows->isVisibleTo(&panel));
        QVERIFY(panel.editor("test_mode")->isVisibleTo(&panel));
        QVERIFY(panel.editor("test_fraction")->isVisibleTo(&panel));
        QCOMPARE(rows->item(0, 0)->text(), QString("12"));
        QVERIFY(rows->item(0, 0)->font().bold());
        // Set the options as the rows suggest: skip the count row, no header, the last column.
        qobject_cast<QSpinBox*>(panel.editor("skip_rows"))->setValue(1);
        qobject_cast<QCheckBox*>(panel.editor("header"))->setChecked(false);
        qobject_cast<QLineEdit*>(panel.editor("target"))->setText("-1");
        QVERIFY(waitForPreview(panel));
        QCOMPARE(panel.lastError(), QString());
        QCOMPARE(rows->item(0, 0)->text(), QString("5.1"));
        QVERIFY(!rows->item(0, 0)->font().bold());
        QVERIFY(rows->item(0, 4)->background() != rows->item(0, 0)->background()); // the target column
        QCOMPARE(panel.preview()->summary().trainRows + panel.preview()->summary().testRows, 12);
        QCOMPARE(panel.preview()->summary().classNames.size(), 3);
        const QJsonObject out = panel.spec();
        QCOMPARE(out.value("skip_rows").toInt(), 1);
        QCOMPARE(out.value("header").toBool(true), false);
        QCOMPARE(out.value("target").toInt(), -1);
        QVERIFY(!out.contains("delimiter")); // left at its default, so not written
        QCOMPARE(json(panel.spec()), json(out));

        // A whitespace-separated file with targets in a file of its own (diabetes).
        const QJsonObject diabetes{{"source", "csv"},
                                   {"file", QStringLiteral(TB_FIXTURES_DIR "/data/sklearn/diabetes_data_raw.csv.gz")},
                                   {"delimiter", "whitespace"},
                                   {"header", false},
                                   {"target_file", QStringLiteral(TB_FIXTURES_DIR "/data/sklearn/diabetes_target.csv.gz")},
                                   {"task", "regression"},
                                   {"test_fraction", 0.25},
                                   {"standardise_targets", true}};
        panel.setSpec(diabetes);
        QCOMPARE(json(panel.spec()), json(diabetes));
        QVERIFY(waitForPreview(panel));
        QCOMPARE(panel.lastError(), QString());
        QCOMPARE(rows->columnCount(), 10);
        QCOMPARE(panel.preview()->summary().inputs, 10);
    }

    void warningsShow()
    {
        QTemporaryDir dir;
        QFile f(dir.filePath("one.csv"));
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("x,label\n1,a\n2,a\n3,a\n4,a\n");
        f.close();
        DatasetPanel panel;
        panel.setSpec({{"source", "csv"}, {"file", f.fileName()}, {"target", "label"}, {"task", "classification"},
                       {"test_fraction", 0.25}});
        QVERIFY(waitForPreview(panel));
        QCOMPARE(panel.lastError(), QString());
        QCOMPARE(panel.warnings().size(), 1);
        QVERIFY(panel.findChild<QLabel*>("warning")->isVisibleTo(&panel));
        QVERIFY(panel.findChild<QLabel*>("warning")->text().contains("only one class"));
    }

    void destroyedWhileLoading()
    {
        if (data::IdxLoader::fashionMnistDir().isEmpty())
            QSKIP("Fashion-MNIST not installed");
        // The full set takes long enough that the panel dies first; the worker's late result
        // must be dropped, not delivered to freed memory.
        auto* panel = new DatasetPanel;
        panel->setSpec({{"source", "fashion_mnist"}});
        panel->refreshPreview();
        QVERIFY(panel->isLoading());
        delete panel;
        // The load runs on the global pool: wait for it to finish and try to post, then let a
        // posted event (there must be none for a dead panel) be delivered.
        QVERIFY(QThreadPool::globalInstance()->waitForDone(30000));
        QCoreApplication::processEvents();
        DatasetPanel other;
        other.setSpec({{"source", "xor"}, {"samples", 50}});
        QVERIFY(waitForPreview(other));
        QCOMPARE(other.preview()->summary().trainRows + other.preview()->summary().testRows, 50);
    }
};

/// Run in a child process by TestDatasetPanel::aFetchedSetIsVerifiedAndUsed, with a catalogue file
/// holding one set, "panel_tiny", served by the parent's local server.
class TestDatasetPanelFetch : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void theCatalogueHasTheSet()
    {
        QVERIFY2(data::DatasetCatalog::problems().isEmpty(), qPrintable(data::DatasetCatalog::problems().join("\n")));
        QVERIFY(data::DatasetCatalog::find("panel_tiny"));
    }

    void noNetworkThenAFileFetchedByHand()
    {
        const data::DatasetEntry* found = data::DatasetCatalog::find("panel_tiny");
        QVERIFY2(found, "run by TestDatasetPanel::aFetchedSetIsVerifiedAndUsed, with its catalogue");
        const data::DatasetEntry& e = *found;
        const QString target = data::DatasetCache::path(e, e.files.first());
        // No network (the mirror is a port nobody listens on): the error names the address and
        // the exact path where a file fetched by hand goes, and nothing is left in the cache.
        qputenv("TRAINBENCH_DATASETS_MIRROR", qgetenv("TB_TEST_DEAD_MIRROR"));
        DatasetPanel panel;
        panel.setSpec(QJsonObject{{"source", "panel_tiny"}});
        QVERIFY2(panel.fetchStatus().startsWith("Not fetched yet (" + data::MemoryBudget::formatBytes(std::uint64_t(e.totalSize()))),
                 qPrintable(panel.fetchStatus()));
        QSignalSpy finished(&panel, &DatasetPanel::fetchFinished);
        QTest::mouseClick(panel.fetchButton(), Qt::LeftButton);
        QVERIFY(finished.wait(60000));
        QCOMPARE(finished.last().first().toBool(), false);
        const QString address = qEnvironmentVariable("TB_TEST_DEAD_MIRROR") + "/panel_tiny/tiny.csv";
        QVERIFY2(panel.fetchError().contains(address) && panel.fetchError().contains("place it at " + target),
                 qPrintable(panel.fetchError()));
        QVERIFY(panel.fetchStatus().contains(address));
        QVERIFY(!QFileInfo::exists(target));
        QVERIFY(!QFileInfo::exists(data::DatasetCache::partialPath(e, e.files.first())));
        // The file placed there by hand: Fetch verifies it (no download) and the preview uses it.
        QVERIFY(QDir().mkpath(QFileInfo(target).absolutePath()));
        QVERIFY(QFile::copy(qEnvironmentVariable("TB_TEST_BODY"), target));
        panel.setSpec(QJsonObject{{"source", "moons"}});
        panel.setSpec(QJsonObject{{"source", "panel_tiny"}});
        QVERIFY2(panel.fetchStatus().startsWith("In the data-set cache, not verified yet"), qPrintable(panel.fetchStatus()));
        QSignalSpy ready(&panel, &DatasetPanel::previewReady);
        QTest::mouseClick(panel.fetchButton(), Qt::LeftButton);
        QVERIFY(finished.wait(60000));
        QCOMPARE(finished.last().first().toBool(), true);
        QVERIFY2(panel.fetchStatus().startsWith("In the data-set cache") && panel.fetchStatus().endsWith("verified."),
                 qPrintable(panel.fetchStatus()));
        QVERIFY(!panel.fetchButton()->isVisibleTo(&panel));
        QTRY_VERIFY_WITH_TIMEOUT(!ready.isEmpty() && !panel.isLoading(), 60000);
        QVERIFY2(panel.lastError().isEmpty(), qPrintable(panel.lastError()));
        QVERIFY(data::DatasetCache::remove(e, nullptr));
        qunsetenv("TRAINBENCH_DATASETS_MIRROR");
    }

    void aGoodFetch()
    {
        // The published address answers: the file is downloaded, verified, moved into the cache,
        // and the preview loads it.
        const data::DatasetEntry* found = data::DatasetCatalog::find("panel_tiny");
        QVERIFY2(found, "run by TestDatasetPanel::aFetchedSetIsVerifiedAndUsed, with its catalogue");
        const data::DatasetEntry& e = *found;
        DatasetPanel panel;
        panel.setSpec(QJsonObject{{"source", "panel_tiny"}});
        QVERIFY(panel.fetchButton()->isVisibleTo(&panel));
        QSignalSpy finished(&panel, &DatasetPanel::fetchFinished);
        QSignalSpy ready(&panel, &DatasetPanel::previewReady);
        QTest::mouseClick(panel.fetchButton(), Qt::LeftButton);
        QVERIFY(finished.wait(60000));
        QVERIFY2(finished.last().first().toBool(), qPrintable(panel.fetchError()));
        QVERIFY(panel.fetchError().isEmpty());
        QCOMPARE(data::DatasetCache::state(e), data::DatasetCache::State::Verified);
        QVERIFY(!QFileInfo::exists(data::DatasetCache::partialPath(e, e.files.first())));
        QTRY_VERIFY_WITH_TIMEOUT(!ready.isEmpty() && !panel.isLoading(), 60000);
        QVERIFY2(panel.lastError().isEmpty(), qPrintable(panel.lastError()));
        QVERIFY(!panel.findChild<QProgressBar*>("fetch_progress")->isVisibleTo(&panel));
    }
};

int main(int argc, char** argv)
{
    QApplication app(argc, argv);
    app.setAttribute(Qt::AA_Use96Dpi, true);
    QTEST_SET_MAIN_SOURCE_PATH
    if (qEnvironmentVariableIsSet("TB_DATASETPANEL_FETCH_CHILD")) {
        TestDatasetPanelFetch child;
        return QTest::qExec(&child, argc, argv);
    }
    TestDatasetPanel tc;
    return QTest::qExec(&tc, argc, argv);
}
#include "tst_datasetpanel.moc"
