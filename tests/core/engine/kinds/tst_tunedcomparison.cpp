// The tuned comparison (issue 45): search spaces drawn as declared (distribution, bounds, seeds,
// Sobol's stratification), every contender the same budget of trials or CPU seconds, the choice
// made on validation and retrained on fresh seeds beside the defaults, the tuning table's
// numbers, and bad input refused naming the key and the value.

#include <engine/ExperimentKind.h>
#include <engine/ExperimentRunner.h>
#include <engine/ExperimentSpec.h>
#include <engine/PluginRegistry.h>
#include <store/RunStore.h>
#include <engine/kinds/tuned_comparison/SearchSpaces.h>
#include <engine/SelectionCurves.h>
#include <engine/StoredRuns.h>

#include <trainbench/Seeds.h>

#include <QTemporaryDir>
#include <QtTest>

#include <cmath>

using namespace tb;

namespace {

ExperimentSpec parse(const QByteArray& json)
{
    QString err;
    auto s = ExperimentSpec::fromJson(json, "tuned.json", &err);
    if (!s)
        qFatal("%s", qPrintable(err));
    return *s;
}

// A small tuned comparison: test.noise (its epochs searched) and linear.ridge (its ridge).
QByteArray smallSpec(const QByteArray& tuning, const QByteArray& final = R"({"seeds": 3})")
{
    return R"({"name": "tuned", "kind": "tuned-comparison", "format": 2, "seed": 5, "threads": 2,
        "dataset": {"source": "moons", "samples": 240, "noise": 0.25, "validation_fraction": 0.25},
        "algorithms": [
          {"id": "test.noise", "label": "Noise", "params": {"offset": 0.1}, "search": {"epochs": {"integer": [1, 6]}}},
          {"id": "linear.ridge", "label": "Ridge", "search": {"ridge": {"log_uniform": [0.0001, 100]}}}],
        "tuning": )" + tuning + R"(, "final": )" + final + "}";
}

} // namespace

class TestTunedComparison : public QObject {
    Q_OBJECT
private:
    PluginRegistry m_reg;
    QTemporaryDir m_dir;

    // The problems of @p json: its parse error, or what validate() finds.
    QStringList problems(const QByteArray& json)
    {
        QString err;
        const auto s = ExperimentSpec::fromJson(json, "bad.json", &err);
        if (!s)
            return {err};
        return s->validate(m_reg);
    }

private Q_SLOTS:
    void initTestCase()
    {
        m_reg.scan({TB_TEST_PLUGIN_DIR, TB_PLUGIN_BUILD_DIR});
        QVERIFY(m_reg.algorithm("test.noise"));
        QVERIFY(m_reg.algorithm("linear.ridge"));
        QVERIFY(m_reg.algorithm("gradient.adam"));
        QVERIFY(ExperimentKinds::find("tuned-comparison"));
    }

    void drawsFollowTheirDistributions()
    {
        // 4000 random draws of each kind of space: inside the bounds, with the moments and
        // frequencies of the distribution within 4 standard errors (a 6e-5 chance of a false
        // alarm per check; the draws are seeded, so the test is deterministic anyway).
        const int n = 4000;
        const QList<SearchAxis> axes{{"a", SearchSpace::uniform(2, 5)},
                                     {"b", SearchSpace::logUniform(1e-4, 1)},
                                     {"c", SearchSpace::integer(1, 3)},
                                     {"d", SearchSpace::logInteger(1, 100)},
                                     {"e", SearchSpace::choice({16, 32, 64})}};
        double sumA = 0, sumLogB = 0;
        QMap<qlonglong, int> c, d;
        QMap<int, int> e;
        for (int t = 0; t < n; ++t) {
            const QVariantMap v = SearchSpaces::draw(axes, TrialSearch::Random, 11, t);
            const double a = v["a"].toDouble(), b = v["b"].toDouble();
            QVERIFY(a >= 2 && a <= 5);
            QVERIFY(b >= 1e-4 && b <= 1);
            sumA += a;
            sumLogB += std::log10(b);
            c[v["c"].toLongLong()]++;
            d[v["d"].toLongLong()]++;
            e[v["e"].toInt()]++;
            QCOMPARE(v["c"].typeId(), QMetaType::LongLong); // integers are integers, for the schema
        }
        const double se = 1 / std::sqrt(double(n));
        QVERIFY(std::fabs(sumA / n - 3.5) < 4 * (3 / std::sqrt(12.0)) * se);   // uniform: mean (lo+hi)/2, sd (hi−lo)/√12
        QVERIFY(std::fabs(sumLogB / n + 2) < 4 * (4 / std::sqrt(12.0)) * se);  // log-uniform: log10 uniform in [−4, 0]
        QCOMPARE(c.keys(), QList<qlonglong>({1, 2, 3}));                       // both ends included
        for (int k : {1, 2, 3})
            QVERIFY(std::fabs(c[k] / double(n) - 1.0 / 3) < 4 * std::sqrt(2.0 / 9) * se);
        QVERIFY(d.firstKey() >= 1 && d.lastKey() <= 100);
        const double p1 = std::log(2.0) / std::log(101.0); // log-integer: P(1) = log 2 / log 101
        QVERIFY(std::fabs(d[1] / double(n) - p1) < 4 * std::sqrt(p1 * (1 - p1)) * se);
        QCOMPARE(e.keys(), QList<int>({16, 32, 64}));
        for (int k : {16, 32, 64})
            QVERIFY(std::fabs(e[k] / double(n) - 1.0 / 3) < 4 * std::sqrt(2.0 / 9) * se);
    }

    void drawsDependOnTheSeedAndTheTrialOnly()
    {
        const QList<SearchAxis> axes{{"lr", SearchSpace::logUniform(1e-5, 1)}, {"x", SearchSpace::uniform(0, 1)}};
        for (TrialSearch s : {TrialSearch::Random, TrialSearch::Sobol}) {
            QCOMPARE(SearchSpaces::draw(axes, s, 3, 7), SearchSpaces::draw(axes, s, 3, 7));
            QVERIFY(SearchSpaces::draw(axes, s, 3, 7) != SearchSpaces::draw(axes, s, 4, 7));
            QVERIFY(SearchSpaces::draw(axes, s, 3, 7) != SearchSpaces::draw(axes, s, 3, 8));
        }
        QVERIFY(SearchSpaces::draw(axes, TrialSearch::Random, 3, 7) != SearchSpaces::draw(axes, TrialSearch::Sobol, 3, 7));
    }

    void sobolPointsAreStratified()
    {
        // The first 2^m Sobol points, digitally shifted, form a (0, m, 1)-net in every dimension
        // (one point in each interval of width 2^−m) and a (0, m, 2)-net in the first two: one point
        // in every box of area 2^−m, whatever its aspect.
        const int m = 6, count = 1 << m;
        std::vector<std::vector<double>> points;
        for (int t = 0; t < count; ++t)
            points.push_back(SearchSpaces::unitPoint(TrialSearch::Sobol, 9, t, SearchSpaces::maxSobolDims));
        for (int j = 0; j < SearchSpaces::maxSobolDims; ++j) {
            std::vector<int> hits(size_t(count), 0);
            for (const auto& p : points)
                hits[size_t(p[size_t(j)] * count)]++;
            QVERIFY2(std::all_of(hits.begin(), hits.end(), [](int h) { return h == 1; }), qPrintable(QString::number(j)));
        }
        for (int a = 0; a <= m; ++a) {
            const int nx = 1 << a, ny = 1 << (m - a);
            std::vector<int> hits(size_t(count), 0);
            for (const auto& p : points)
                hits[size_t(int(p[0] * nx) * ny + int(p[1] * ny))]++;
            QVERIFY2(std::all_of(hits.begin(), hits.end(), [](int h) { return h == 1; }), qPrintable(QString::number(a)));
        }
    }

    void badInputIsRefusedNamingKeyAndValue_data()
    {
        QTest::addColumn<QByteArray>("json");
        QTest::addColumn<QString>("expected");
        const QByteArray head = R"({"kind": "tuned-comparison", "format": 2, "dataset": {"source": "moons", "validation_fraction": 0.2},)";
        auto ridge = [&](const QByteArray& search, const QByteArray& params = "{}") {
            return head + R"( "algorithms": [{"id": "linear.ridge", "params": )" + params + R"(, "search": )" + search +
                   R"(}], "tuning": {"trials": 3}})";
        };
        QTest::newRow("range outside the schema") << ridge(R"({"ridge": {"log_uniform": [1e-4, 1e300]}})")
                                                  << "algorithms[0].search.ridge: bound 1e+300 is not a value of the parameter";
        QTest::newRow("log bound ≤ 0") << ridge(R"({"ridge": {"log_uniform": [0, 1]}})")
                                       << "algorithms[0].search.ridge.log_uniform: a log range needs bounds > 0, got [0, 1]";
        QTest::newRow("choice not offered") << ridge(R"({"bias": {"choice": [true, "maybe"]}})")
                                            << "algorithms[0].search.bias: choice maybe is not a value of the parameter";
        QTest::newRow("not a parameter") << ridge(R"({"lr": {"log_uniform": [0.001, 0.1]}})")
                                         << "algorithms[0].search.lr: not a parameter of the algorithm";
        QTest::newRow("also fixed") << ridge(R"({"ridge": {"log_uniform": [0.001, 0.1]}})", R"({"ridge": 0.5})")
                                    << "algorithms[0].search.ridge: also fixed in params (0.5)";
        QTest::newRow("unknown search kind") << ridge(R"({"ridge": {"normal": [0, 1]}})")
                                             << "algorithms[0].search.ridge.normal: unknown search kind";
        QTest::newRow("low above high") << ridge(R"({"ridge": {"uniform": [2, 1]}})")
                                        << "algorithms[0].search.ridge.uniform: low 2 is above high 1";
        const QByteArray algs = R"( "algorithms": [{"id": "linear.ridge"}], )";
        QTest::newRow("trials 0") << head + algs + R"("tuning": {"trials": 0}})"
                                  << "tuning.trials: expected an integer 1 to 1000, got 0";
        QTest::newRow("CPU budget ≤ 0") << head + algs + R"("tuning": {"cpu_seconds": -1}})"
                                        << "tuning.cpu_seconds: expected CPU seconds > 0, got -1";
        QTest::newRow("no budget") << head + algs + R"("tuning": {"search": "sobol"}})"
                                   << "tuning: give the budget every algorithm gets";
        QTest::newRow("unknown search") << head + algs + R"("tuning": {"trials": 2, "search": "grid"}})"
                                        << "tuning.search: expected \"random\" or \"sobol\", got \"grid\"";
        QTest::newRow("no validation split")
            << QByteArray(R"({"kind": "tuned-comparison", "dataset": {"source": "moons"}, "algorithms": [{"id": "linear.ridge"}], "tuning": {"trials": 2}})")
            << "dataset: a tuned comparison chooses on the validation split only";
        QTest::newRow("final seeds 0") << head + algs + R"("tuning": {"trials": 2}, "final": {"seeds": 0}})"
                                       << "final.seeds: expected an integer 1 to 1000, got 0";
        QTest::newRow("halving without trials") << head + algs + R"("tuning": {"cpu_seconds": 5, "halving": {"eta": 3}}})"
                                                << "tuning.halving: successive halving starts from a number of trials";
        QTest::newRow("halving eta 1") << head + algs + R"("tuning": {"trials": 9, "halving": {"eta": 1}}})"
                                       << "tuning.halving.eta: expected a number 1.5 to 100 (each rung promotes its best 1/eta), got 1";
        QTest::newRow("halving without eta") << head + algs + R"("tuning": {"trials": 9, "halving": {"min_fraction": 0.2}}})"
                                             << "tuning.halving.eta: expected a number 1.5 to 100";
        QTest::newRow("halving, one rung") << head + algs + R"("tuning": {"trials": 9, "halving": {"eta": 3, "min_fraction": 0.5}}})"
                                           << "tuning.halving.min_fraction: 0.5 leaves one rung with eta 3: give at most 1/eta (0.333)";
        QTest::newRow("halving fraction 0") << head + algs + R"("tuning": {"trials": 9, "halving": {"eta": 3, "min_fraction": 0}}})"
                                            << "tuning.halving.min_fraction: expected a fraction of the budget between 0 and 1, got 0";
        QTest::newRow("halving unknown key") << head + algs + R"("tuning": {"trials": 9, "halving": {"eta": 3, "rungs": 4}}})"
                                             << "tuning.halving.rungs: unknown key (known: eta, min_fraction)";
    }

    void badInputIsRefusedNamingKeyAndValue()
    {
        QFETCH(QByteArray, json);
        QFETCH(QString, expected);
        const QStringList found = problems(json);
        QVERIFY2(std::any_of(found.begin(), found.end(), [&](const QString& p) { return p.contains(expected); }),
                 qPrintable(found.join(" | ")));
        // Nothing is stored: a refused file never reaches the runner (the CLI and the workbench
        // validate first); a store opened beside stays empty.
    }

    void everyContenderGetsItsTrialsThenFinalsOnFreshSeeds()
    {
        const ExperimentSpec spec = parse(smallSpec(R"({"trials": 6, "search": "sobol", "seed": 2})"));
        QVERIFY2(spec.validate(m_reg).isEmpty(), qPrintable(spec.validate(m_reg).join("; ")));
        QString err;
        auto store = RunStore::open(m_dir.filePath("tuned.sqlite"), &err);
        QVERIFY2(store, qPrintable(err));
        const ExperimentResult res = ExperimentRunner(m_reg, store.get()).run(spec);
        QVERIFY2(res.error.isEmpty(), qPrintable(res.error));
        QVERIFY(store->flush());
        // 6 trials each, 3 final seeds of the chosen and of the default configuration each.
        QMap<QString, int> phases;
        QSet<std::uint64_t> trialSeeds, finalSeeds;
        for (const RunRecord& r : store->runs(res.experimentId)) {
            const QJsonObject f = r.info.value("tuning").toObject();
            phases[f.value("phase").toString()]++;
            QCOMPARE(r.status, RunStatus::Finished);
            (f.value("phase").toString() == "trial" ? trialSeeds : finalSeeds).insert(r.seed);
            QCOMPARE(r.seed, deriveSeed(spec.seed, std::uint64_t(r.repeat)));
            QVERIFY(r.info.value("final").toObject().contains("train_cpu_seconds"));
        }
        QCOMPARE(phases, (QMap<QString, int>{{"trial", 12}, {"final", 6}, {"default", 6}}));
        QCOMPARE(trialSeeds.size(), 6);                    // trial t of every algorithm: the same seed
        QCOMPARE(finalSeeds.size(), 3);                    // tuned and defaults paired on fresh seeds
        QVERIFY(!trialSeeds.intersects(finalSeeds));
        QCOMPARE(res.runsFinished, 24);
        QCOMPARE(res.selection.size(), 2);
        QCOMPARE(res.curves.size(), 4);
        QCOMPARE(res.curves[0].configuration, QString("Noise (tuned)"));
        QCOMPARE(res.curves[1].configuration, QString("Noise (defaults)"));

        // The choice: the trial with the best validation accuracy (the first of equals), read from
        // the stored trials; the tuned runs carry its drawn values, the defaults none of them.
        const auto stored = StoredRuns::experiment(*store, res.experimentId, &err);
        QVERIFY2(stored, qPrintable(err));
        QCOMPARE(stored->selection.size(), 2);
        const QList<TuningCurve> tuning = SelectionCurves::of(*stored);
        for (int a = 0; a < 2; ++a) {
            const AlgorithmCurves& trials = stored->selection[a];
            QCOMPARE(trials.repeats.size(), 6);
            int best = -1;
            double bestScore = -1;
            for (int k = 0; k < 6; ++k) {
                const double v = trials.repeats[k].last().validationAccuracy;
                if (v > bestScore) {
                    bestScore = v;
                    best = trials.infos[k].value("tuning").toObject().value("trial").toInt();
                }
            }
            QCOMPARE(tuning[a].bestTrial, best);
            QCOMPARE(tuning[a].bestValidation, bestScore);
            // E[best of 1 trial] is the mean of the trials; of 6, at least that and at most the best.
            double mean = 0;
            for (int k = 0; k < 6; ++k)
                mean += trials.repeats[k].last().validationAccuracy / 6;
            QVERIFY(std::fabs(tuning[a].byTrials[0].mean - mean) < 1e-12);
            QVERIFY(tuning[a].byTrials[5].mean >= mean - 1e-12 && tuning[a].byTrials[5].mean <= bestScore + 1e-12);
            const AlgorithmCurves& tuned = stored->curves[2 * a];
            const AlgorithmCurves& defaults = stored->curves[2 * a + 1];
            QCOMPARE(tuned.repeats.size(), 3);
            QCOMPARE(defaults.repeats.size(), 3);
            QCOMPARE(tuned.setting, tuning[a].bestSetting);
            QCOMPARE(tuned.seeds, defaults.seeds);
        }
        const QString key = tuning[1].bestSetting.firstKey();
        QCOMPARE(key, QString("ridge"));
        for (const RunRecord& r : store->runs(res.experimentId)) {
            const QJsonObject f = r.info.value("tuning").toObject();
            if (f.value("phase") == "final" && r.algorithmId == "linear.ridge")
                QCOMPARE(r.params.value("ridge"), tuning[1].bestSetting.value("ridge"));
            if (f.value("phase") == "default" && r.algorithmId == "linear.ridge")
                QCOMPARE(r.params.value("ridge").toDouble(), 0.0); // linear.ridge's default
        }
        // The table names the budget and the choice.
        const QString table = SelectionCurves::table(*stored).render(TextTable::Format::Text);
        QVERIFY2(table.contains("6 trials (sobol search, seed 2)") && table.contains("Chosen on the validation split only"),
                 qPrintable(table));
    }

    void aCpuBudgetEndsEachContendersTrials()
    {
        // The same training CPU seconds for each: a trial starts only while its algorithm's trials
        // so far used less, so every algorithm ends with its budget just spent (or its trial cap),
        // counted on the CPU clock — what a busy machine does not change.
        const QByteArray json = R"({"name": "cpu", "kind": "tuned-comparison", "format": 2, "seed": 1, "threads": 1,
            "dataset": {"source": "moons", "samples": 600, "noise": 0.25, "validation_fraction": 0.25},
            "algorithms": [
              {"id": "gradient.adam", "params": {"epochs": 20, "hidden": [16]}, "search": {"lr": {"log_uniform": [0.001, 0.1]}}},
              {"id": "linear.ridge", "search": {"ridge": {"log_uniform": [0.0001, 100]}}}],
            "tuning": {"cpu_seconds": 0.05, "trials": 400}, "final": {"seeds": 1, "defaults": false}})";
        const ExperimentSpec spec = parse(json);
        QVERIFY(spec.validate(m_reg).isEmpty());
        const ExperimentResult res = ExperimentRunner(m_reg, nullptr).run(spec);
        QVERIFY2(res.error.isEmpty(), qPrintable(res.error));
        for (const AlgorithmCurves& c : res.selection) {
            double used = 0;
            const int n = int(c.repeats.size());
            QVERIFY(n >= 1);
            for (int k = 0; k < n; ++k) {
                QVERIFY2(used < 0.05, qPrintable(c.label)); // each trial started under the budget
                used += c.infos[k].value("final").toObject().value("train_cpu_seconds").toDouble();
            }
            QVERIFY2(used >= 0.05 || n == 400, qPrintable(QString("%1: %2 s in %3 trials").arg(c.label).arg(used).arg(n)));
        }
        QCOMPARE(res.runsPlanned, int(res.selection[0].repeats.size() + res.selection[1].repeats.size()) + 2);
        // Under MPI the budget cannot be kept (the ranks do not see each other's clocks): refused.
    }

    void successiveHalvingPromotesTheBestThirdOfEachRung()
    {
        // 9 trials, eta 3 from 1/10 of the budget: rungs at 1/9, 1/3 and all of Adam's 18 epochs
        // (2, 6, 18 epochs), 9 → 3 → 1 runs; each rung's runs are the best third of the rung
        // below by validation accuracy, with the trial's own seed. Ridge, closed-form, has no
        // epochs to halve: its 9 trials train whole. The choice is the top rung's run.
        const QByteArray json = R"({"name": "halving", "kind": "tuned-comparison", "format": 2, "seed": 3, "threads": 1,
            "dataset": {"source": "moons", "samples": 240, "noise": 0.25, "validation_fraction": 0.25},
            "algorithms": [
              {"id": "gradient.adam", "label": "Adam", "params": {"epochs": 18, "hidden": [4]}, "search": {"lr": {"log_uniform": [0.0001, 0.3]}}},
              {"id": "linear.ridge", "label": "Ridge", "search": {"ridge": {"log_uniform": [0.0001, 100]}}}],
            "tuning": {"trials": 9, "seed": 4, "halving": {"eta": 3, "min_fraction": 0.1}}, "final": {"seeds": 1, "defaults": false}})";
        const ExperimentSpec spec = parse(json);
        QVERIFY2(spec.validate(m_reg).isEmpty(), qPrintable(spec.validate(m_reg).join("; ")));
        QString err;
        auto store = RunStore::open(m_dir.filePath("halving.sqlite"), &err);
        QVERIFY2(store, qPrintable(err));
        const ExperimentResult res = ExperimentRunner(m_reg, store.get()).run(spec);
        QVERIFY2(res.error.isEmpty(), qPrintable(res.error));
        QVERIFY(store->flush());
        QCOMPARE(res.runsPlanned, 9 + 3 + 1 + 9 + 2);
        QCOMPARE(res.runsFinished, res.runsPlanned);
        // Adam's runs per rung: trial → (validation accuracy, seed), and the epochs they trained.
        QMap<int, QMap<int, double>> score;
        QMap<int, QMap<int, std::uint64_t>> seed;
        double cpu = 0;
        int ridgeTrials = 0;
        for (const RunRecord& r : store->runs(res.experimentId)) {
            const QJsonObject f = r.info.value("tuning").toObject();
            if (f.value("phase") != "trial")
                continue;
            if (r.algorithmId == "linear.ridge") {
                QVERIFY(!f.contains("rung"));
                ridgeTrials++;
                continue;
            }
            const int rung = f.value("rung").toInt(-1), trial = f.value("trial").toInt();
            QVERIFY(rung >= 0 && rung <= 2);
            QCOMPARE(f.value("rungs").toInt(), 3);
            QCOMPARE(r.params.value("epochs").toInt(), QList<int>({2, 6, 18})[rung]);
            QCOMPARE(int(store->metrics(r.id).size()) > 0, true);
            score[rung][trial] = store->metrics(r.id).last().validationAccuracy;
            seed[rung][trial] = r.seed;
            cpu += r.info.value("final").toObject().value("train_cpu_seconds").toDouble();
        }
        QCOMPARE(ridgeTrials, 9);
        QCOMPARE(score[0].size(), 9);
        QCOMPARE(score[1].size(), 3);
        QCOMPARE(score[2].size(), 1);
        // Promoted: the best 3 of rung 0 (ties to the lower trial number), then the best of those at rung 1.
        auto best = [](const QMap<int, double>& m, int n) {
            QList<int> trials = m.keys();
            std::stable_sort(trials.begin(), trials.end(), [&](int a, int b) { return m[a] > m[b]; });
            trials = trials.mid(0, n);
            std::sort(trials.begin(), trials.end());
            return trials;
        };
        QCOMPARE(score[1].keys(), best(score[0], 3));
        QCOMPARE(score[2].keys(), best(score[1], 1));
        for (int rung : {1, 2})
            for (int trial : seed[rung].keys())
                QCOMPARE(seed[rung][trial], seed[0][trial]);
        // The choice and its tuning curve: of the top rung, with every rung's CPU time counted.
        const auto stored = StoredRuns::experiment(*store, res.experimentId, &err);
        QVERIFY2(stored, qPrintable(err));
        const QList<TuningCurve> tuning = SelectionCurves::of(*stored);
        QCOMPARE(tuning[0].trials, 9);
        QCOMPARE(tuning[0].topRung, 2);
        QCOMPARE(tuning[0].atTopRung, 1);
        QCOMPARE(tuning[0].bestTrial, score[2].firstKey());
        QCOMPARE(tuning[0].bestValidation, score[2].first());
        QVERIFY(std::fabs(tuning[0].cpuSeconds - cpu) < 1e-12);
        QCOMPARE(int(tuning[0].byTrials.size()), 1);
        QCOMPARE(tuning[1].topRung, 0);
        QCOMPARE(tuning[1].atTopRung, 9);
        for (const RunRecord& r : store->runs(res.experimentId))
            if (r.info.value("tuning").toObject().value("phase") == "final" && r.algorithmId == "gradient.adam") {
                QCOMPARE(r.params.value("epochs").toInt(), 18); // the chosen configuration trains whole
                QCOMPARE(r.params.value("lr"), tuning[0].bestSetting.value("lr"));
            }
        const QString table = SelectionCurves::table(*stored).render(TextTable::Format::Text);
        QVERIFY2(table.contains("successive halving, eta 3, from 0.1") && table.contains("9 (1 at rung 2)"), qPrintable(table));
    }

    void aRunReRunsAsALearningCurveOfOneRepeat()
    {
        // A stored trial narrowed for a re-run: one learning-curve repeat with its stored
        // parameters (the drawn values among them) and its seed.
        const ExperimentSpec spec = parse(smallSpec(R"({"trials": 2})", R"({"seeds": 1, "defaults": false})"));
        QString err;
        auto store = RunStore::open(m_dir.filePath("rerun.sqlite"), &err);
        const ExperimentResult res = ExperimentRunner(m_reg, store.get()).run(spec);
        QVERIFY(res.error.isEmpty());
        QVERIFY(store->flush());
        const RunRecord trial = store->runs(res.experimentId).at(3); // Ridge trial 1
        QCOMPARE(trial.info.value("tuning").toObject().value("trial").toInt(), 1);
        const auto rerun = StoredRuns::rerunOfRun(*store, m_reg, trial.id, &err);
        QVERIFY2(rerun, qPrintable(err));
        QCOMPARE(rerun->spec.kind, QString("learning-curve"));
        const ExperimentResult again = ExperimentRunner(m_reg, nullptr).run(rerun->spec);
        QVERIFY2(again.error.isEmpty(), qPrintable(again.error));
        QCOMPARE(again.curves.size(), 1);
        QCOMPARE(again.curves[0].seeds.value(0), trial.seed);
        const auto points = store->metrics(trial.id);
        QCOMPARE(again.curves[0].repeats[0].last().validationAccuracy, points.last().validationAccuracy);
        QCOMPARE(again.curves[0].repeats[0].last().testAccuracy, points.last().testAccuracy);
    }
};

QTEST_GUILESS_MAIN(TestTunedComparison)
#include "tst_tunedcomparison.moc"
