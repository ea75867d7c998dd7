// The experiment controller running a suite (engine/Suite.h) on its worker thread: every set
// trains in turn as an experiment of its own, the live curves follow the set that trains, the
// log names each set with its gaps, the progress counts over sets × algorithms, the result is every
// set's; Stop during a set keeps the sets that finished and starts no other.

#include "runs/ExperimentController.h"

#include <engine/AcrossSets.h>
#include <engine/PluginRegistry.h>
#include <store/RunStore.h>

#include <QJsonArray>
#include <QJsonDocument>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

#include <memory>

using namespace tb;
using namespace tb::gui;

namespace {

QJsonObject generated(const QString& source, int seed)
{
    return {{"source", source}, {"samples", 120}, {"noise", 0.15}, {"test_fraction", 0.3}, {"seed", seed}};
}

// Two algorithms on @p sets 120-point 2-D sets, three seeds: a suite that trains in about a second.
// With @p sleepyMs > 0 a third algorithm sleeps that long per epoch (20 epochs), so that a set
// lasts long enough to be stopped in.
QJsonObject tinySuite(const QStringList& sets, int sleepyMs = 0)
{
    QJsonArray entries;
    for (int i = 0; i < sets.size(); ++i)
        entries.append(QJsonObject{{"name", sets[i]}, {"dataset", generated(sets[i], i + 1)}});
    QJsonArray algorithms{QJsonObject{{"id", "linear.ridge"}, {"label", "ridge"}, {"params", QJsonObject{}}},
                          QJsonObject{{"id", "bpls.classify"}, {"label", "BPLS"}, {"params", QJsonObject{{"hidden", QJsonArray{8}}}}}};
    if (sleepyMs > 0)
        algorithms.append(QJsonObject{{"id", "test.sleepy"},
                                      {"label", "Sleepy"},
                                      {"params", QJsonObject{{"epochs", 20}, {"epoch_ms", sleepyMs}}}});
    return QJsonObject{{"name", "tiny suite"}, {"kind", "learning-curve"}, {"format", 2}, {"datasets", entries},
                       {"repeats", 3},         {"seed", 1},                {"threads", 1}, {"algorithms", algorithms}};
}

} // namespace

class TestExperimentController : public QObject {
    Q_OBJECT
    std::unique_ptr<PluginRegistry> m_registry;
    QTemporaryDir m_dir;

    ExperimentSpec parse(const QJsonObject& o)
    {
        QString error;
        auto spec = ExperimentSpec::fromObject(o, QStringLiteral("tiny-suite.json"), &error);
        if (!spec)
            qFatal("%s", qPrintable(error));
        return *spec;
    }

private Q_SLOTS:
    void initTestCase()
    {
        m_registry = std::make_unique<PluginRegistry>();
        m_registry->scan({QStringLiteral(TB_PLUGIN_BUILD_DIR), QStringLiteral(TB_TEST_PLUGIN_DIR)});
        QVERIFY(m_registry->algorithm("linear.ridge"));
        QVERIFY(m_registry->algorithm("bpls.classify"));
        QVERIFY(m_registry->algorithm("test.sleepy"));
        QVERIFY(m_dir.isValid());
    }

    void suiteRunsEverySetToTheEnd()
    {
        QString openError;
        const auto store = RunStore::open(m_dir.filePath("suite.sqlite"), &openError);
        QVERIFY2(store, qPrintable(openError));
        ExperimentController c(*m_registry);
        c.setStore(store.get());
        QStringList log;
        connect(&c, &ExperimentController::logMessage, this, [&log](const QString& l) { log << l; });
        QStringList status;
        connect(&c, &ExperimentController::statusText, this, [&status](const QString& s) { status << s; });
        QList<int> setsStarted;
        QList<int> curvesAtStart;
        connect(&c, &ExperimentController::suiteSetStarted, this, [&](int i) {
            setsStarted << i;
            curvesAtStart << int(c.curves().size());
        });
        int lastDone = -1, lastTotal = -1;
        connect(&c, &ExperimentController::progressChanged, this, [&](int done, int total) {
            lastDone = done;
            lastTotal = total;
        });

        // Sleepy's 20 ms epochs let the status line catch each set under way.
        const ExperimentSpec spec = parse(tinySuite({"moons", "circles"}, 20));
        QVERIFY(spec.isSuite());
        QString error;
        QVERIFY2(c.start(spec, &error), qPrintable(error));
        QCOMPARE(c.suiteSets().size(), 2);
        QVERIFY(c.waitForFinished(60000));

        // Each set came forward in turn with its own two configurations.
        QCOMPARE(setsStarted, (QList<int>{0, 1}));
        QCOMPARE(curvesAtStart, (QList<int>{3, 3}));
        QCOMPARE(c.currentSet(), 1);
        for (const LiveSuiteSet& set : c.suiteSets()) {
            QVERIFY(set.started);
            QCOMPARE(set.curves.size(), 3);
            for (const charts::CurveSeriesData& d : set.curves)
                QCOMPARE(d.repeats.size(), 3); // three seeds each, checkpoints live
        }
        // The log names each set as it starts, the status line the set of how many.
        QVERIFY2(log.filter("Set 1 of 2: moons").size() == 1, qPrintable(log.join('\n')));
        QVERIFY2(log.filter("Set 2 of 2: circles").size() == 1, qPrintable(log.join('\n')));
        QVERIFY2(!status.filter("Set 2 of 2 (circles)").isEmpty(), qPrintable(status.join('\n')));
        // One progress over sets × algorithms × seeds.
        QCOMPARE(lastTotal, 2 * 3 * 3);
        QCOMPARE(lastDone, lastTotal);

        // The result is every set's, each curve named by its set: a comparison across sets.
        const ExperimentResult& r = c.result();
        QVERIFY2(r.error.isEmpty(), qPrintable(r.error));
        QVERIFY(!r.cancelled);
        QCOMPARE(r.runsFinished, 18);
        QCOMPARE(r.curves.size(), 6);
        QStringList datasets;
        for (const AlgorithmCurves& curve : r.curves)
            if (!datasets.contains(curve.dataset))
                datasets << curve.dataset;
        QCOMPARE(datasets, (QStringList{"moons", "circles"}));
        QVERIFY(AcrossSets::applies(r));
        // One stored experiment per set.
        QCOMPARE(c.experimentIds().size(), 2);
        QCOMPARE(c.experimentId(), c.experimentIds().first());
        QVERIFY2(log.last().contains("experiments"), qPrintable(log.last()));
    }

    void gapsAreLoggedAsTheSetStarts()
    {
        // BPLS classifies only: on a regression set it is a gap, named when that set starts.
        QJsonObject o = tinySuite({"moons"});
        QJsonArray sets = o.value("datasets").toArray();
        sets.append(QJsonObject{{"name", "friedman1"}, {"dataset", QJsonObject{{"source", "friedman1"}, {"samples", 150}, {"seed", 3}}}});
        o.insert("datasets", sets);
        ExperimentController c(*m_registry);
        QStringList log;
        connect(&c, &ExperimentController::logMessage, this, [&log](const QString& l) { log << l; });
        QString error;
        QVERIFY2(c.start(parse(o), &error), qPrintable(error));
        QVERIFY(c.waitForFinished(60000));
        QVERIFY2(c.result().error.isEmpty(), qPrintable(c.result().error));
        int second = -1;
        for (int i = 0; i < log.size() && second < 0; ++i)
            if (log[i].startsWith("Set 2 of 2: friedman1"))
                second = i;
        QVERIFY2(second >= 0, qPrintable(log.join('\n')));
        QVERIFY2(log.value(second + 1).startsWith("  gap: ") && log.value(second + 1).contains("BPLS"),
                 qPrintable(log.join('\n')));
        QCOMPARE(c.suiteSets().at(1).curves.size(), 1); // only ridge trains on the regression set
    }

    void stopDuringASetKeepsTheFinishedSetAndStartsNoOther()
    {
        QString openError;
        const auto store = RunStore::open(m_dir.filePath("stop.sqlite"), &openError);
        QVERIFY2(store, qPrintable(openError));
        ExperimentController c(*m_registry);
        c.setStore(store.get());
        // Stop as the second set starts: the first has finished, the third must never start.
        connect(&c, &ExperimentController::suiteSetStarted, this, [&c](int i) {
            if (i == 1)
                c.stop();
        });
        QString error;
        QVERIFY2(c.start(parse(tinySuite({"moons", "circles", "xor"}, 20)), &error), qPrintable(error));
        QVERIFY(c.waitForFinished(60000));

        const ExperimentResult& r = c.result();
        QVERIFY(r.cancelled);
        QVERIFY(c.suiteSets().at(0).started);
        QVERIFY(c.suiteSets().at(1).started);
        QVERIFY(!c.suiteSets().at(2).started);
        int moonsFinished = 0;
        for (const AlgorithmCurves& curve : r.curves) {
            QVERIFY2(curve.dataset != "xor", "the set after Stop started");
            if (curve.dataset == "moons")
                moonsFinished += int(curve.statuses.count(RunStatus::Finished));
        }
        QCOMPARE(moonsFinished, 3 * 3); // the finished set is kept whole
        QVERIFY(r.runsFinished < 3 * 3 * 3);
        // The store holds the sets that ran, no other.
        QCOMPARE(c.experimentIds().size(), 2);
        QCOMPARE(store->experiments().size(), 2);
        QVERIFY(c.progressFormat().startsWith("stopped"));
    }
};

QTEST_MAIN(TestExperimentController)
#include "tst_experimentcontroller.moc"
