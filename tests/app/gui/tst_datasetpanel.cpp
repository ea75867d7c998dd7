// DatasetPanel: spec round trips per source, the off-thread preview, errors in the red label.
#include "DatasetPanel.h"
#include "DatasetPreview.h"
#include "IdxLoader.h"

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QLabel>
#include <QLineEdit>
#include <QSignalSpy>
#include <QSpinBox>
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
        const QJsonObject in{{"source", "bpls-toy"}, {"function", "nonlinear"}, {"sigma", 0.15},
                             {"standardise", false}, {"seed", 7}};
        panel.setSpec(in);
        QCOMPARE(json(panel.spec()), json(in));
        QCOMPARE(panel.task(), Task::Regression);
        QVERIFY(panel.hasNoiseLevel());
        QVERIFY(panel.editor("sigma"));
        QVERIFY(!panel.editor("samples")); // not a field of the toy problem
        QCOMPARE(qobject_cast<QComboBox*>(panel.editor("function"))->currentData().toString(), QString("nonlinear"));

        // A minimal spec comes back with its defaults written out.
        panel.setSpec({{"source", "bpls-toy"}, {"function", "linear"}});
        const QJsonObject out = panel.spec();
        QCOMPARE(out.value("function").toString(), QString("linear"));
        QCOMPARE(out.value("sigma").toDouble(), 0.0);
        QVERIFY(!out.contains("seed")); // empty seed: the experiment's
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
        const QJsonObject in{{"source", "fashion-mnist"}, {"train_limit", 600}, {"test_limit", 100},
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

    void destroyedWhileLoading()
    {
        if (data::IdxLoader::fashionMnistDir().isEmpty())
            QSKIP("Fashion-MNIST not installed");
        // The full set takes long enough that the panel dies first; the worker's late result
        // must be dropped, not delivered to freed memory.
        auto* panel = new DatasetPanel;
        panel->setSpec({{"source", "fashion-mnist"}});
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

QTEST_MAIN(TestDatasetPanel)
#include "tst_datasetpanel.moc"
