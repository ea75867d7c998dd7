// The experiment kinds behind one interface (issue 24): each registered by itself, every example
// experiment file read and written back by its kind unchanged, the keys of one kind refused in
// another, and a stored run narrowed to its own cell for a re-run.

#include "ExperimentKind.h"
#include "ExperimentSpec.h"
#include "ParamSweep.h"

#include <QDir>
#include <QJsonDocument>
#include <QtTest>

using namespace tb;

class TestExperimentKinds : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void builtInKindsAreRegistered()
    {
        const QStringList ids = ExperimentKinds::ids();
        QCOMPARE(ids.mid(0, 3), QStringList({kinds::LearningCurve, kinds::NoiseSweep, kinds::ParamSweep}));
        for (const ExperimentKind* k : ExperimentKinds::all()) {
            QVERIFY(!k->label().isEmpty() && !k->description().isEmpty());
            QVERIFY2(!k->charts().isEmpty(), qPrintable(k->id()));
            QCOMPARE(ExperimentKinds::find(k->id()), k);
        }
        QVERIFY(!ExperimentKinds::find("no-such-kind"));
        // The file's "kind" is checked against the registry.
        QVERIFY(ExperimentSpec::schema().find("kind")->choices == ids);
    }

    void everyExampleRoundTrips()
    {
        // Read by its kind and written back: the same JSON (what the store compares to resume).
        const QDir dir(QStringLiteral(TB_SOURCE_DIR "/resources/experiments"));
        const QStringList files = dir.entryList({"*.json"}, QDir::Files);
        QVERIFY(files.size() >= 20);
        QSet<QString> seen;
        for (const QString& f : files) {
            QString error;
            const auto spec = ExperimentSpec::fromFile(dir.filePath(f), &error);
            QVERIFY2(spec, qPrintable(error));
            seen.insert(spec->kind);
            const QJsonObject once = spec->toJson();
            const auto again = ExperimentSpec::fromObject(once, f, &error);
            QVERIFY2(again, qPrintable(error));
            QVERIFY2(again->toJson() == once, qPrintable(f));
            QCOMPARE(ExperimentKinds::find(spec->kind)->plannedRuns(*spec) > 0, true);
        }
        QCOMPARE(seen, QSet<QString>({kinds::LearningCurve, kinds::NoiseSweep, kinds::ParamSweep}));
    }

    void aKindsKeysBelongToIt()
    {
        // repeats belongs to the learning curve and the param sweep; a noise sweep repeats
        // through monte_carlo and refuses it, naming the keys it knows.
        const QByteArray base = R"("dataset": {"source": "moons"}, "algorithms": [{"id": "linear.ridge"}])";
        QString error;
        QVERIFY(ExperimentSpec::fromJson("{\"kind\": \"learning-curve\", \"repeats\": 3, " + base + "}", "a.json", &error));
        QVERIFY(!ExperimentSpec::fromJson("{\"kind\": \"noise-sweep\", \"repeats\": 3, \"sweep\": {\"sigma\": [0]}, " + base + "}",
                                          "b.json", &error));
        QVERIFY2(error.startsWith("b.json: repeats: unknown key for kind \"noise-sweep\"") && error.contains("(known: "),
                 qPrintable(error));
        // A learning curve has no sweep.
        QVERIFY(!ExperimentSpec::fromJson("{\"kind\": \"learning-curve\", \"sweep\": {}, " + base + "}", "c.json", &error));
        QVERIFY2(error.startsWith("c.json: sweep: only a noise-sweep or a param-sweep has a sweep"), qPrintable(error));
    }

    void aStoredRunIsNarrowedToItsCell()
    {
        QString error;
        auto spec = ExperimentSpec::fromJson(R"({"kind": "param-sweep", "repeats": 5, "seed": 3,
            "dataset": {"source": "moons"}, "algorithms": [{"id": "linear.ridge"}],
            "sweep": {"grid": {"ridge": [0, 1]}, "datasets": [{"samples": 100}, {"samples": 200}]}})",
                                             "s.json", &error);
        QVERIFY2(spec, qPrintable(error));
        RunRecord run;
        run.repeat = 3;
        run.info = QJsonObject{{"sweep_cell", QJsonObject{{"dataset", 1}}}};
        ExperimentKinds::find(kinds::ParamSweep)->narrowToRun(*spec, run);
        QCOMPARE(spec->repeats, 1);
        QCOMPARE(spec->firstRepeat, 3);
        QCOMPARE(spec->dataset.value("samples").toInt(), 200);
        QVERIFY(spec->paramSweep.grid.isEmpty());
    }
};

QTEST_APPLESS_MAIN(TestExperimentKinds)
#include "tst_experimentkinds.moc"
