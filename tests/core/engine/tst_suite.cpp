// Suites (engine/Suite.h, SuiteRunner.h): an experiment over several data sets runs each set as an
// ordinary stored experiment, with gaps named, bad suites refused before anything is stored, Stop
// keeping what finished and resume continuing the rest.
#include <data/DataSource.h>
#include <data/DatasetCatalog.h>
#include <engine/AcrossSets.h>
#include <engine/ExperimentRunner.h>
#include <engine/PluginRegistry.h>
#include <engine/StoredRuns.h>
#include <engine/Suite.h>
#include <engine/SuiteRunner.h>
#include <store/RunStore.h>

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QTemporaryDir>
#include <QtTest>

using namespace tb;

namespace {

QJsonObject moons(int seed)
{
    return {{"source", "moons"}, {"samples", 120}, {"noise", 0.2}, {"test_fraction", 0.3}, {"seed", seed}};
}

// Three generated sets (two classification, one regression), two algorithms, three seeds.
QJsonObject suiteFile(bool withRegression = true)
{
    QJsonArray sets{QJsonObject{{"name", "moons"}, {"dataset", moons(1)}},
                    QJsonObject{{"name", "circles"},
                                {"dataset", QJsonObject{{"source", "circles"}, {"samples", 120}, {"noise", 0.1}, {"seed", 2}}}}};
    if (withRegression)
        sets.append(QJsonObject{{"name", "friedman1"},
                                {"dataset", QJsonObject{{"source", "friedman1"}, {"samples", 150}, {"seed", 3}}}});
    return QJsonObject{
        {"name", "suite test"},
        {"kind", "learning-curve"},
        {"format", 2},
        {"datasets", sets},
        {"repeats", 3},
        {"threads", 1},
        {"algorithms", QJsonArray{QJsonObject{{"id", "linear.ridge"}, {"label", "ridge"}, {"params", QJsonObject{}}},
                                  QJsonObject{{"id", "bpls.classify"},
                                              {"label", "BPLS"},
                                              {"params", QJsonObject{{"hidden", QJsonArray{8}}}}}}}};
}

std::optional<ExperimentSpec> parse(const QJsonObject& o, QString* error)
{
    return ExperimentSpec::fromJson(QJsonDocument(o).toJson(), QStringLiteral("suite.json"), error);
}

// Stops the suite as set @p at starts (−1: never), or once @p after of its runs are done.
class StopAtSet : public ExperimentObserver {
public:
    StopAtSet(SuiteRunner& runner, int at, int after = -1) : m_runner(runner), m_at(at), m_after(after) {}
    void suiteSetStarted(int index, int, const ExperimentSpec&) override
    {
        started << index;
        if (index == m_at)
            m_runner.requestStop();
    }
    int lastDone = -1, total = -1;
    QList<int> started;
    void progress(int done, int t) override
    {
        lastDone = done;
        total = t;
        if (m_after >= 0 && done >= m_after)
            m_runner.requestStop();
    }

private:
    SuiteRunner& m_runner;
    int m_at;
    int m_after;
};

} // namespace

class TestSuite : public QObject {
    Q_OBJECT
    PluginRegistry m_reg;
    QTemporaryDir m_dir;

private Q_SLOTS:
    void initTestCase()
    {
        m_reg.scan({TB_PLUGIN_BUILD_DIR});
        QVERIFY(m_reg.algorithm("linear.ridge"));
        QVERIFY(m_reg.algorithm("bpls.classify"));
    }

    void inlineSetsAreRead()
    {
        QString error;
        const auto spec = parse(suiteFile(), &error);
        QVERIFY2(spec, qPrintable(error));
        QVERIFY(spec->isSuite());
        QCOMPARE(spec->suite.size(), 3);
        QCOMPARE(spec->suite[1].name, QStringLiteral("circles"));
        QCOMPARE(spec->suite[2].origin, QStringLiteral("suite.json: datasets[2]"));
        QCOMPARE(spec->dataset, spec->suite.first().dataset);
        // Written back as it was read: the sets, not one data set.
        const QJsonObject json = spec->toJson();
        QVERIFY(!json.contains("dataset"));
        QCOMPARE(json.value("datasets").toArray().size(), 3);
        const auto again = parse(json, &error);
        QVERIFY2(again, qPrintable(error));
        QCOMPARE(again->suite.size(), 3);
        QCOMPARE(again->suite[2].dataset, spec->suite[2].dataset);
    }

    void aSuiteFileIsRead()
    {
        const QString suitePath = m_dir.filePath("sets.json");
        QFile f(suitePath);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(QJsonDocument(QJsonObject{{"name", "two moons"},
                                          {"sets", QJsonArray{moons(1), QJsonObject{{"name", "other moons"}, {"dataset", moons(2)}}}}})
                    .toJson());
        f.close();
        QJsonObject o = suiteFile();
        o.remove("datasets");
        o.insert("suite", "sets.json"); // relative to the experiment file
        const QString expPath = m_dir.filePath("exp.json");
        QFile e(expPath);
        QVERIFY(e.open(QIODevice::WriteOnly));
        e.write(QJsonDocument(o).toJson());
        e.close();
        QString error;
        const auto spec = ExperimentSpec::fromFile(expPath, &error);
        QVERIFY2(spec, qPrintable(error));
        QCOMPARE(spec->suiteName, QStringLiteral("two moons"));
        QCOMPARE(spec->suite.size(), 2);
        // A bare data-set object is named by its description.
        QCOMPARE(spec->suite[0].name, data::DataSource::describe(moons(1)));
        QCOMPARE(spec->suite[1].name, QStringLiteral("other moons"));
        QCOMPARE(spec->toJson().value("suite").toString(), QStringLiteral("sets.json"));
        QVERIFY2(spec->validate(m_reg).isEmpty(), qPrintable(spec->validate(m_reg).join("\n")));
    }

    void badSuitesAreRefusedNamingTheEntry_data()
    {
        QTest::addColumn<QJsonObject>("file");
        QTest::addColumn<QString>("expected");
        QJsonObject o = suiteFile();
        o.insert("dataset", moons(1));
        QTest::newRow("dataset and datasets") << o << "suite.json: dataset and datasets: give one of";
        o = suiteFile();
        o.insert("datasets", QJsonArray{moons(1)});
        QTest::newRow("one set") << o << "a suite needs at least 2 data sets, got 1";
        o.insert("datasets", QJsonArray{QJsonObject{{"name", "a"}, {"dataset", moons(1)}},
                                        QJsonObject{{"name", "a"}, {"dataset", moons(2)}}});
        QTest::newRow("two sets, one name") << o << "suite.json: datasets[1]: the name \"a\" is taken by datasets[0]";
        o.insert("datasets", QJsonArray{QJsonObject{{"name", "a"}, {"dataset", moons(1)}},
                                        QJsonObject{{"name", "b"}, {"dataset", moons(1)}}});
        QTest::newRow("one set twice") << o << "suite.json: datasets[1]: the same data set as datasets[0]";
        o.insert("datasets", QJsonArray{moons(1), QJsonObject{{"source", "no_such_source"}}});
        QTest::newRow("unknown source") << o << "suite.json: datasets[1]: ";
        o.insert("datasets", QJsonArray{moons(1), 7});
        QTest::newRow("not an object") << o << "suite.json: datasets[1]: expected a data-set object, got 7";
        o.insert("datasets", QJsonArray{moons(1), QJsonObject{{"name", "x"}, {"dataset", moons(2)}, {"weight", 2}}});
        QTest::newRow("unknown key") << o << "suite.json: datasets[1].weight: unknown key (known: name, dataset)";
        o.remove("datasets");
        o.insert("suite", "does-not-exist.json");
        QTest::newRow("no suite file") << o << "does-not-exist.json: cannot open the suite file";
        o.insert("suite", "/dev/zero"); // read whole, it would never end
        QTest::newRow("a device") << o << "/dev/zero: not a suite file (a device or pipe)";
        o.insert("suite", "/tmp");
        QTest::newRow("a folder") << o << "/tmp: not a suite file (a folder)";
    }
    void badSuitesAreRefusedNamingTheEntry()
    {
        QFETCH(QJsonObject, file);
        QFETCH(QString, expected);
        QString error;
        QVERIFY(!parse(file, &error));
        QVERIFY2(error.contains(expected), qPrintable(error));
    }

    void aMalformedSuiteFileNamesItsLine()
    {
        const QString path = m_dir.filePath("broken.json");
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("{\n  \"name\": \"x\",\n  \"sets\": [ {\"source\": \"moons\"}, ]\n}\n");
        f.close();
        QString name, error;
        QList<SuiteSet> sets;
        QVERIFY(!Suite::readFile(path, &name, &sets, &error));
        QVERIFY2(error.startsWith(path + ":3:"), qPrintable(error));
    }

    void aSetAnAlgorithmCannotTakeIsAGap()
    {
        QString error;
        const auto spec = parse(suiteFile(), &error);
        QVERIFY2(spec, qPrintable(error));
        QStringList gaps;
        const ExperimentSpec regression = Suite::setSpec(*spec, 2, m_reg, &gaps);
        QCOMPARE(regression.algorithms.size(), 1);
        QCOMPARE(regression.algorithms[0].id, QStringLiteral("linear.ridge"));
        QCOMPARE(gaps.size(), 1);
        QVERIFY2(gaps[0].contains("BPLS on friedman1") && gaps[0].contains("regression"), qPrintable(gaps[0]));
        QCOMPARE(regression.name, QStringLiteral("friedman1 — suite test"));
        QCOMPARE(regression.suitePlace.index, 2);
        QCOMPARE(regression.suitePlace.sets, 3);
        QCOMPARE(regression.toJson().value("suite_set").toObject().value("set").toString(), QStringLiteral("friedman1"));
        // The gap is not a problem of the suite.
        QVERIFY2(spec->validate(m_reg).isEmpty(), qPrintable(spec->validate(m_reg).join("\n")));
    }

    void aSetNoAlgorithmCanTakeIsAnError()
    {
        QJsonObject o = suiteFile();
        QJsonArray algs{QJsonObject{{"id", "bpls.classify"}, {"params", QJsonObject{}}}};
        o.insert("algorithms", algs);
        QString error;
        const auto spec = parse(o, &error);
        QVERIFY2(spec, qPrintable(error));
        const QStringList problems = spec->validate(m_reg);
        QCOMPARE(problems.size(), 1);
        QVERIFY2(problems[0].contains("suite.json: datasets[2]: no algorithm of the experiment can take this regression set"),
                 qPrintable(problems.join("\n")));
    }

    void aNoiseSweepSuiteIsRefused()
    {
        QJsonObject o = suiteFile(false);
        o.insert("kind", "noise-sweep");
        o.remove("repeats");
        o.insert("sweep", QJsonObject{{"sigma", QJsonArray{0.1, 0.2}}, {"monte_carlo", 2}});
        QString error;
        const auto spec = parse(o, &error);
        QVERIFY2(spec, qPrintable(error));
        const QStringList problems = spec->validate(m_reg);
        QVERIFY2(problems.join("\n").contains("kind: a noise sweep over several data sets is not offered"),
                 qPrintable(problems.join("\n")));
    }

    void problemsOfEverySetAreSaidOnce()
    {
        QJsonObject o = suiteFile();
        QJsonArray algs = o.value("algorithms").toArray();
        QJsonObject bad = algs[0].toObject();
        bad.insert("params", QJsonObject{{"ridge", -1}});
        algs[0] = bad;
        o.insert("algorithms", algs);
        QString error;
        const auto spec = parse(o, &error);
        QVERIFY2(spec, qPrintable(error));
        const QStringList problems = spec->validate(m_reg);
        QCOMPARE(problems.size(), 1); // the same bad value on three sets: one message
        QVERIFY2(problems[0].contains("algorithms[0].params"), qPrintable(problems.join("\n")));
    }

    void everyRunIsAnOrdinaryStoredRun()
    {
        QString error;
        const auto spec = parse(suiteFile(), &error);
        QVERIFY2(spec, qPrintable(error));
        auto store = RunStore::open(m_dir.filePath("suite.sqlite"), &error);
        QVERIFY2(store, qPrintable(error));
        ExperimentRunner runner(m_reg, store.get());
        SuiteRunner suite(runner, m_reg, store.get());
        StopAtSet progress(suite, -1);
        const SuiteResult r = suite.run(*spec, &progress, false, &error);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        QVERIFY(!r.cancelled);
        QCOMPARE(r.experimentIds.size(), 3);
        // 2 sets × 2 algorithms × 3 seeds + 1 set × 1 algorithm × 3 seeds.
        QCOMPARE(r.merged.runsFinished, 15);
        QCOMPARE(progress.total, 15);
        QCOMPARE(progress.lastDone, 15);
        int stored = 0;
        for (int i = 0; i < 3; ++i) {
            const auto exp = store->experiment(r.experimentIds[i], &error);
            QVERIFY(exp);
            QCOMPARE(exp->spec.value("suite_set").toObject().value("index").toInt(), i);
            QVERIFY(exp->spec.contains("dataset"));
            const QList<RunRecord> runs = store->runs(r.experimentIds[i], &error);
            for (const RunRecord& run : runs)
                QCOMPARE(run.status, RunStatus::Finished);
            stored += int(runs.size());
            // Read back, a set's runs are named by the set's name, as the suite's result names them.
            const auto back = StoredRuns::experiment(*store, r.experimentIds[i], &error);
            QVERIFY(back);
            for (const AlgorithmCurves& c : back->curves)
                QCOMPARE(c.dataset, spec->suite[i].name);
        }
        QCOMPARE(stored, 15);
        // Each set's own seeded split: the sets' runs differ, the seeds of the runs are the suite's.
        QCOMPARE(r.sets[0].result.curves[0].seeds, r.sets[1].result.curves[0].seeds);
        const AcrossSetsResult across = AcrossSets::compute(AcrossSets::samples(r.merged.curves));
        QCOMPARE(across.sets.size(), 3);
        QCOMPARE(across.configurations, (QStringList{"ridge", "BPLS"}));
        QCOMPARE(across.gaps.size(), 1); // BPLS on friedman1
        QCOMPARE(across.sets[2].metric, MetricId::TestRmse);
        QCOMPARE(across.friedman.sets, 2); // the complete rows
        QCOMPARE(across.friedman.setsLeftOut, 1);
    }

    void stopKeepsWhatFinishedAndResumeDoesTheRest()
    {
        QString error;
        const auto spec = parse(suiteFile(false), &error);
        QVERIFY2(spec, qPrintable(error));
        auto store = RunStore::open(m_dir.filePath("resume.sqlite"), &error);
        QVERIFY2(store, qPrintable(error));
        qint64 first = -1;
        {
            ExperimentRunner runner(m_reg, store.get());
            SuiteRunner suite(runner, m_reg, store.get());
            StopAtSet stop(suite, -1, 8); // two runs into the second set
            const SuiteResult r = suite.run(*spec, &stop, false, &error);
            QVERIFY(r.cancelled);
            QVERIFY(r.sets[0].ran);
            QCOMPARE(r.sets[0].result.runsFinished, 6);
            QVERIFY(r.sets[1].ran);
            QVERIFY(r.sets[1].result.runsFinished >= 2);
            QVERIFY(r.sets[1].result.runsFinished < 6);
            first = r.sets[0].result.experimentId;
        }
        ExperimentRunner runner(m_reg, store.get());
        SuiteRunner suite(runner, m_reg, store.get());
        const QList<SuiteSetOutcome> plan = suite.plan(*spec, true);
        QCOMPARE(plan[0].resumedFrom, first);
        const SuiteResult r = suite.run(*spec, nullptr, true, &error);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        QVERIFY(!r.cancelled);
        QCOMPARE(r.merged.runsFinished, 12);
        QCOMPARE(r.experimentIds.first(), first); // the same stored experiment, continued
        QCOMPARE(store->runs(first, &error).size(), 6);
    }

    void stopAsASetStartsStartsNoOther()
    {
        QString error;
        const auto spec = parse(suiteFile(), &error);
        QVERIFY2(spec, qPrintable(error));
        ExperimentRunner runner(m_reg, nullptr);
        SuiteRunner suite(runner, m_reg, nullptr);
        StopAtSet stop(suite, 1);
        const SuiteResult r = suite.run(*spec, &stop, false, &error);
        QVERIFY(r.cancelled);
        QCOMPARE(stop.started, (QList<int>{0, 1}));
        QCOMPARE(r.merged.runsFinished, 6);
        QVERIFY(!r.sets[1].ran);
        QVERIFY(!r.sets[2].ran);
    }

    void resumingASuiteNeverRunIsRefused()
    {
        QString error;
        const auto spec = parse(suiteFile(false), &error);
        QVERIFY2(spec, qPrintable(error));
        auto store = RunStore::open(m_dir.filePath("empty.sqlite"), &error);
        QVERIFY2(store, qPrintable(error));
        ExperimentRunner runner(m_reg, store.get());
        SuiteRunner suite(runner, m_reg, store.get());
        const SuiteResult r = suite.run(*spec, nullptr, true, &error);
        QVERIFY2(error.contains("nothing to resume"), qPrintable(error));
        QVERIFY(r.experimentIds.isEmpty());
        QVERIFY(store->experiments(&error).isEmpty());
    }

    void anAbsentCatalogueSetIsSkippedWithItsFetchCommand()
    {
        qputenv("TRAINBENCH_DATASETS_DIR", m_dir.filePath("empty-cache").toUtf8());
        const QStringList ids = data::DatasetCatalog::ids();
        QVERIFY(!ids.isEmpty());
        const SuiteSet set{ids.first(), QJsonObject{{"source", ids.first()}}, QStringLiteral("x.json: sets[0]")};
        QCOMPARE(Suite::absentBecause(set), QStringLiteral("trainbench-cli datasets fetch %1").arg(ids.first()));
        QVERIFY(Suite::absentBecause(SuiteSet{"moons", moons(1), {}}).isEmpty());
        qunsetenv("TRAINBENCH_DATASETS_DIR");
    }
};

QTEST_GUILESS_MAIN(TestSuite)
#include "tst_suite.moc"
