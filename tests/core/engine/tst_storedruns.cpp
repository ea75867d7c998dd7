// Old names keep working (issue 24, item 3): a run store written before the shared parameter
// blocks — former algorithm ids (libsvm.c_svc), former keys (theta, t0, nu, kernel, features,
// bandwidth_scale, median_rows, method, weight_decay, tolerance, initial_step, step_decay,
// relative_ridge, gram_precision, bias) — re-runs every stored run with the results the old build
// stored, within rounding (issue 43: to the bit on the CPU and build that recorded it, an Intel
// Xeon; an AMD EPYC's build rounds differently); the experiment files it was made from run the
// same; each rename is noted. StoredRuns::agreement() says how a re-run compares and why.
// The store is tests/fixtures/data/old-names/store-before-param-blocks.sql (see its header).

#include <engine/ExperimentRunner.h>
#include <engine/PluginRegistry.h>
#include <store/RunStore.h>
#include <engine/StoredRuns.h>

#include <QFile>
#include <QSqlDatabase>
#include <QSqlError>
#include <QSqlQuery>
#include <QTemporaryDir>

#include <QtTest>
#include <cmath>

using namespace tb;

namespace {

const QString kDir = QStringLiteral(TB_FIXTURES_DIR "/data/old-names/");

// How far a re-run on another CPU or build may be from the stored run, relative to each final
// metric. Another CPU's code generation changes each sum by a few ulps; what a run does with that
// decides how far it spreads. The least-squares trainers here solve ridge-regularised normal
// equations with ridges down to 1e-8 of the Gram's scale (BPLS's relative_ridge), whose condition
// numbers magnify rounding by up to 1e8, and lsq's default arithmetic rounds its products to float
// (u = 6e-8, "precision": "mixed"): between -march=native and -mtune=znver3 (what GCC tunes an AMD
// EPYC for) lsq.gls's loss moved by 6.8e-9, lsq.stagewise's by 1.6e-8, bpls.classify's by 1.7e-9,
// bld.b2ld's test RMSE by 5.2e-10, L-BFGS's loss by 9.9e-16 (to the value the EPYC itself
// computed), dsgd.kernel_ridge's by 2.4e-16, the rest not at all. A change of an algorithm moves
// these losses by 1e-4 or more; 1e-6 lies between.
constexpr double kAcrossMachines = 1e-6;

// The bound for run @p run in this build. The fixture was recorded by a build for AVX2 and FMA,
// whose random features (lsq) take glibc's vector cos and sin (libmvec, RandomFeatures.cpp); a
// build without them computes each feature with the scalar cos, a few ulps away, and lsq's float
// products (u = 6e-8) then round some features to the next float, which its solves magnify:
// lsq.stagewise's loss moved by 9.7e-5 in a generic x86-64 build. 1e-3 there, for lsq only.
// The same holds for a build for AVX2 and FMA on another CPU: on an AMD EPYC (Zen 3, family 25
// model 1; -march=native: AVX2 FMA, no AVX-512) lsq.stagewise's loss moved by 1.2e-4 and its test
// RMSE by 1.2e-4 — Eigen's float products there run 8-wide where the fixture's machine ran
// 16-wide, so sums round in another order, and each greedy stage's choice magnifies it. So lsq's
// stored runs are held to 1e-3 on every machine, as in a generic build; the other families to 1e-6.
double toleranceFor(const RunRecord& run)
{
    return run.algorithmId.startsWith(QLatin1String("lsq.")) ? 1e-3 : kAcrossMachines;
}

// The final metrics a run stored ("final") against a point of this build: the same doubles
// within @p tolerance (relative).
QString differences(const QJsonObject& stored, const MetricPoint& p, double tolerance)
{
    QStringList out;
    auto check = [&](const char* key, double now) {
        const QJsonValue v = stored.value(QLatin1String(key));
        const double then = v.isDouble() ? v.toDouble() : std::nan("");
        const bool close = std::abs(then - now) <= tolerance * std::max(std::abs(then), std::abs(now));
        if (!(then == now || close || (std::isnan(then) && std::isnan(now))))
            out << QStringLiteral("%1: stored %2, now %3").arg(QLatin1String(key)).arg(then, 0, 'g', 17).arg(now, 0, 'g', 17);
    };
    check("train_accuracy", p.trainAccuracy);
    check("test_accuracy", p.testAccuracy);
    check("train_rmse", p.trainRmse);
    check("test_rmse", p.testRmse);
    check("loss", p.loss);
    check("epochs", p.epoch);
    return out.join("; ");
}

} // namespace

class TestStoredRuns : public QObject {
    Q_OBJECT
    PluginRegistry m_reg;
    QTemporaryDir m_dir;
    std::unique_ptr<RunStore> m_store;

    // The old store's runs of experiment @p experiment.
    QList<RunRecord> runsOf(qint64 experiment)
    {
        QString err;
        const QList<RunRecord> runs = m_store->runs(experiment, &err);
        if (!err.isEmpty())
            qFatal("%s", qPrintable(err));
        return runs;
    }

private Q_SLOTS:
    void initTestCase()
    {
        m_reg.scan({TB_PLUGIN_BUILD_DIR});
        for (const char* id : {"libsvm.classify", "liblinear.classify", "dsgd.doubly_stochastic", "gradient.lbfgs",
                               "bld.ig", "lsq.gls", "bpls.classify"})
            QVERIFY2(m_reg.algorithm(QLatin1String(id)), id);
        // The dump into a fresh SQLite file, as the old build left it (schema version 3).
        const QString path = m_dir.filePath("old.sqlite");
        {
            QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), QStringLiteral("dump"));
            db.setDatabaseName(path);
            QVERIFY(db.open());
            QFile dump(kDir + "store-before-param-blocks.sql");
            QVERIFY(dump.open(QIODevice::ReadOnly));
            const QStringList lines = QString::fromUtf8(dump.readAll()).split('\n');
            for (const QString& line : lines) {
                if (line.isEmpty() || line.startsWith("--") || line == "BEGIN TRANSACTION;" || line == "COMMIT;")
                    continue;
                QSqlQuery q(db);
                QVERIFY2(q.exec(line), qPrintable(q.lastError().text() + ": " + line.left(200)));
            }
            QSqlQuery(db).exec(QStringLiteral("PRAGMA user_version = 3"));
            db.close();
        }
        QSqlDatabase::removeDatabase(QStringLiteral("dump"));
        QString err;
        m_store = RunStore::open(path, &err);
        QVERIFY2(m_store, qPrintable(err));
        QCOMPARE(m_store->experiments().size(), 3);
    }

    void formerIdsResolveToCurrentOnes()
    {
        const AlgorithmEntry* svc = m_reg.algorithm("libsvm.c_svc");
        QVERIFY(svc);
        QCOMPARE(svc->info.id, QString("libsvm.classify"));
        QCOMPARE(m_reg.currentId("libsvm.epsilon_svr"), QString("libsvm.regress"));
        QCOMPARE(m_reg.currentId("libsvm.classify"), QString("libsvm.classify"));
        QVERIFY2(m_reg.renamedNote("libsvm.c_svc").contains("\"libsvm.c_svc\" is now \"libsvm.classify\""),
                 qPrintable(m_reg.renamedNote("libsvm.c_svc")));
        QVERIFY(m_reg.renamedNote("libsvm.classify").isEmpty());
        QVERIFY(!m_reg.algorithm("libsvm.nu_svc"));
        // A trainer for the former id is the current algorithm's.
        QVariantMap normalised;
        QVERIFY(m_reg.create("libsvm.c_svc", {{"c", 2.0}}, &normalised));
        QCOMPARE(normalised.value("c").toDouble(), 2.0);
    }

    void oldStoredRunsRerunWithTheirStoredResults_data()
    {
        QTest::addColumn<qint64>("runId");
        for (qint64 e : {1, 2})
            for (const RunRecord& r : runsOf(e))
                QTest::newRow(qPrintable(QStringLiteral("run %1 %2").arg(r.id).arg(r.algorithmId))) << r.id;
    }
    void oldStoredRunsRerunWithTheirStoredResults()
    {
        QFETCH(qint64, runId);
        const auto run = m_store->run(runId);
        QVERIFY(run);
        QString err;
        const auto rerun = StoredRuns::rerunOfRun(*m_store, m_reg, runId, &err);
        QVERIFY2(rerun, qPrintable(err));
        const QString notes = rerun->notes.join('\n');
        // Every one of these stored runs used at least one former spelling (or id), and says so.
        QVERIFY2(notes.contains("deprecated") || notes.contains(" is now "), qPrintable(notes));
        QCOMPARE(rerun->spec.algorithms.size(), 1);
        QCOMPARE(rerun->spec.algorithms.first().id, m_reg.currentId(run->algorithmId));
        const QStringList problems = rerun->spec.validate(m_reg);
        QVERIFY2(problems.isEmpty(), qPrintable(problems.join('\n')));

        const ExperimentResult res = ExperimentRunner(m_reg, nullptr).run(rerun->spec);
        QVERIFY2(res.error.isEmpty(), qPrintable(res.error));
        const AlgorithmCurves& c = res.curves.first();
        QCOMPARE(c.statuses.first(), RunStatus::Finished);
        QCOMPARE(c.seeds.first(), run->seed);
        const QString diff = differences(run->info.value("final").toObject(), c.repeats.first().last(), toleranceFor(*run));
        QVERIFY2(diff.isEmpty(), qPrintable(QStringLiteral("%1 (%2): %3\n%4").arg(run->algorithmName, run->algorithmId, diff, notes)));
        // What a user is told of it: the old store records no CPU or build; the relative
        // difference, if any, is within the bound.
        const StoredRuns::RerunAgreement a = StoredRuns::agreement(*run, c.infos.first());
        QVERIFY(a.compared);
        QVERIFY2(a.largestRelative <= toleranceFor(*run), qPrintable(a.text));
        QVERIFY2(a.text.contains("does not record the CPU and build"), qPrintable(a.text));
        QVERIFY2(a.text.contains(c.infos.first().value("cpu").toString()), qPrintable(a.text));
        // The host records both; /proc/cpuinfo reports a size of 0, so it must be read to its end.
        QVERIFY(!c.infos.first().value("cpu").toString().isEmpty());
        if (QFile::exists(QStringLiteral("/proc/cpuinfo")))
            QVERIFY2(c.infos.first().value("cpu").toString() != "unknown", "the CPU model was not read");
        QVERIFY2(c.infos.first().value("build").toString().contains("Release"),
                 qPrintable(c.infos.first().value("build").toString()));
        if (!a.identical)
            qInfo("%s", qPrintable(a.text));
    }

    // StoredRuns::agreement() on hand-made records: what it says for each case a user meets.
    void rerunAgreementSaysWhatDiffers()
    {
        RunRecord stored;
        stored.id = 7;
        stored.info = QJsonObject{{"final", QJsonObject{{"loss", 0.25}, {"test_accuracy", 0.875}, {"epochs", 10}}},
                                  {"cpu", "Intel Xeon"}, {"build", "GCC 12.2.0, Release, -march=native: AVX2 FMA"},
                                  {"git_hash", "abc"}};
        QJsonObject same = stored.info;
        same["final"] = QJsonObject{{"loss", 0.25}, {"test_accuracy", 0.875}, {"epochs", 10}, {"train_seconds", 3.0}};
        StoredRuns::RerunAgreement a = StoredRuns::agreement(stored, same);
        QVERIFY(a.compared && a.identical && a.sameMachine);
        QVERIFY2(a.text.contains("run 7's to the bit"), qPrintable(a.text));  // training time is not compared

        QJsonObject amd = same;
        amd["cpu"] = "AMD EPYC";
        amd["final"] = QJsonObject{{"loss", 0.25000000000000006}, {"test_accuracy", 0.875}, {"epochs", 10}};
        a = StoredRuns::agreement(stored, amd);
        QVERIFY(a.compared && !a.identical && !a.sameMachine);
        QVERIFY(std::abs(a.largestRelative - 2.2e-16) < 1e-16);
        QCOMPARE(a.differences.size(), 1);
        QVERIFY2(a.differences.first().startsWith("loss: stored 0.25, now 0.25000000000000006"), qPrintable(a.differences.first()));
        QVERIFY2(a.text.contains("CPU differs (Intel Xeon then, AMD EPYC now)") && a.text.contains("within rounding"),
                 qPrintable(a.text));

        QJsonObject drift = same;
        drift["final"] = QJsonObject{{"loss", 0.3}, {"test_accuracy", 0.875}, {"epochs", 10}};
        a = StoredRuns::agreement(stored, drift);
        QVERIFY(a.sameMachine && !a.identical);
        QVERIFY2(a.text.contains("same build on the same CPU") && a.text.contains("not rounding"), qPrintable(a.text));

        RunRecord budgeted = stored;
        budgeted.info["time_budget"] = QJsonObject{{"seconds", 1.0}, {"clock", "cpu"}};
        a = StoredRuns::agreement(budgeted, drift);
        QVERIFY2(a.text.contains("time budget") && !a.text.contains("not rounding"), qPrintable(a.text));

        QJsonObject rebuilt = same;
        rebuilt["build"] = "GCC 12.2.0, Release, generic x86-64: SSE2";
        rebuilt["final"] = drift["final"];
        a = StoredRuns::agreement(stored, rebuilt);
        QVERIFY2(a.text.contains("The build differs"), qPrintable(a.text));

        QJsonObject none;
        a = StoredRuns::agreement(stored, none);
        QVERIFY(!a.compared);
    }

    void oldTimeLimitsRerunOnTheHostsBudget()
    {
        // Experiment 3: bld 1.1.0's own time limits (0.3 s on the cpu clock for IG, on the wall
        // clock for B2LD, stored as "time_limit"/"time_clock" among the parameters). Their results
        // depend on the clock; what must hold is the budget: the host's, on the same clock.
        const QList<RunRecord> runs = runsOf(3);
        QCOMPARE(runs.size(), 2);
        for (const RunRecord& run : runs) {
            QCOMPARE(run.params.value("time_limit").toDouble(), 0.3);
            QString err;
            const auto rerun = StoredRuns::rerunOfRun(*m_store, m_reg, run.id, &err);
            QVERIFY2(rerun, qPrintable(err));
            const ClockKind clock = run.params.value("time_clock").toString() == "cpu" ? ClockKind::Cpu : ClockKind::Wall;
            QCOMPARE(rerun->spec.budgetOf(0), (RunBudget{0.3, clock}));
            QVERIFY(!rerun->spec.algorithms.first().params.contains("time_limit"));
            QVERIFY2(rerun->notes.join('\n').contains("\"time_limit\""), qPrintable(rerun->notes.join('\n')));
            QVERIFY(rerun->spec.validate(m_reg).isEmpty());
            const ExperimentResult res = ExperimentRunner(m_reg, nullptr).run(rerun->spec);
            QVERIFY2(res.error.isEmpty(), qPrintable(res.error));
            const QJsonObject info = res.curves.first().infos.first();
            QCOMPARE(res.curves.first().statuses.first(), RunStatus::Finished);
            QCOMPARE(info.value("stopped_by").toString(), QStringLiteral("time budget (%1)").arg(clockName(clock)));
            QCOMPARE(info.value("end_reason").toString(), run.info.value("end_reason").toString());  // "time limit"
            QVERIFY(info.value("time_budget").toObject().value("used").toDouble() >= 0.3);
        }
    }

    void oldExperimentFilesRunAsTheyDid_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<qint64>("storedExperiment");
        QTest::newRow("classification") << "old-names.json" << qint64(1);
        QTest::newRow("regression") << "old-names-regression.json" << qint64(2);
    }
    void oldExperimentFilesRunAsTheyDid()
    {
        QFETCH(QString, file);
        QFETCH(qint64, storedExperiment);
        QString err;
        auto spec = ExperimentSpec::fromFile(kDir + file, &err);
        QVERIFY2(spec, qPrintable(err));
        const QStringList notes = spec->upgradeParams(m_reg);
        const QString all = notes.join('\n');
        // Each former spelling of the file is named with what it is now.
        const QStringList expected = storedExperiment == 1
            ? QStringList{"\"libsvm.c_svc\" is now \"libsvm.classify\"", "\"bias\" is deprecated: it is now \"bias_value\"",
                          "\"theta\" is deprecated: it is now \"lr\"", "\"t0\" is deprecated: it is now \"inverse_decay\"",
                          "\"nu\" is deprecated: it is now \"ridge\"", "\"kernel\" is deprecated: it is now \"random_features\"",
                          "\"laplace\" is deprecated: it is now \"laplace_cos\"", "\"bandwidth_scale\" is deprecated",
                          "\"median_rows\" is deprecated: it is now \"median_sample\"",
                          "\"features\" is deprecated: it is now \"feature_count\"",
                          "\"method\" is deprecated: it is now \"optimizer\"",
                          "\"tolerance\" is deprecated: it is now \"gradient_tolerance\"",
                          "\"weight_decay\" is deprecated: it is now \"ridge\"",
                          "\"initial_step\" is deprecated: it is now \"lr\"",
                          "\"step_decay\" is deprecated: it is now \"diminishing_decay\"",
                          "\"relative_ridge\" is deprecated: it is now \"mean_square_ridge\"",
                          "\"features\" is deprecated: it is now \"random_features\"",
                          "\"gram_precision\" is deprecated: it is now \"precision\""}
            : QStringList{"\"libsvm.epsilon_svr\" is now \"libsvm.regress\"", "\"nu\" is deprecated: it is now \"ridge\"",
                          "\"bandwidth_scale\" is deprecated (with bandwidth_rule \"fixed\" it was not used): dropped",
                          "\"bias\" is deprecated: it is now \"bias_value\"",
                          "\"features\" is deprecated: it is now \"random_features\""};
        for (const QString& e : expected)
            QVERIFY2(all.contains(e), qPrintable(QStringLiteral("missing \"%1\" in:\n%2").arg(e, all)));
        for (const AlgorithmRun& a : spec->algorithms)
            QCOMPARE(m_reg.currentId(a.id), a.id);
        const QStringList problems = spec->validate(m_reg);
        QVERIFY2(problems.isEmpty(), qPrintable(problems.join('\n')));

        const ExperimentResult res = ExperimentRunner(m_reg, nullptr).run(*spec);
        QVERIFY2(res.error.isEmpty(), qPrintable(res.error));
        const QList<RunRecord> stored = runsOf(storedExperiment);
        QCOMPARE(res.curves.size(), stored.size());
        for (int i = 0; i < stored.size(); ++i) {
            QCOMPARE(res.curves[i].label, stored[i].algorithmName);
            const QString diff = differences(stored[i].info.value("final").toObject(), res.curves[i].repeats.first().last(),
                                             toleranceFor(stored[i]));
            QVERIFY2(diff.isEmpty(), qPrintable(stored[i].algorithmName + ": " + diff));
        }
    }
};

QTEST_GUILESS_MAIN(TestStoredRuns)
#include "tst_storedruns.moc"
