#include <support/BenchArguments.h>
#include <support/BenchData.h>
#include <support/BenchRunner.h>
#include <support/CsvWriter.h>
#include <support/Spread.h>

#include <data/DataSource.h>

#include <QtTest>

#include <cmath>
#include <set>

using tb::bench::BenchArguments;

namespace {

BenchArguments declared()
{
    BenchArguments a("prog", "a test program");
    a.add(BenchArguments::Common::Seeds, "10", "1");
    a.add(BenchArguments::Common::Threads, "2");
    a.add(BenchArguments::Common::Data);
    a.add(BenchArguments::Common::Params, "{}");
    a.add("rate", "R", "a rate", "0.5");
    a.add("batches", "B,B", "batch sizes", "1,32");
    a.add("run", "SPEC", "a run, may repeat");
    a.addSwitch("fast", "go fast");
    return a;
}

/// The message of the BenchArguments::Error @p fn throws ("NO ERROR THROWN" when none).
template <typename Fn> QString argumentError(Fn fn)
{
    try {
        fn();
    } catch (const BenchArguments::Error& e) {
        return QString::fromUtf8(e.what());
    }
    return QStringLiteral("NO ERROR THROWN");
}

std::shared_ptr<const tb::data::DatasetPair> moons()
{
    return std::make_shared<const tb::data::DatasetPair>(tb::data::DataSource::load(
        QJsonObject{{"source", "moons"}, {"samples", 300}, {"noise", 0.1}, {"seed", 3}}, QString()));
}

/// A data set whose input is its row index, to see which rows went where.
tb::data::DatasetPair indexed(Eigen::Index n)
{
    tb::data::DatasetPair p;
    p.train.x.resize(n, 1);
    p.train.y.resize(n, 1);
    for (Eigen::Index i = 0; i < n; ++i)
        p.train.x(i, 0) = p.train.y(i, 0) = double(i);
    p.test = p.train.selectRows({0, 1});
    return p;
}

class NotThePluginsClass final : public tb::Trainer {
public:
    void fit(const tb::DatasetView&, tb::RunContext&) override {}
    Eigen::MatrixXd predict(const Eigen::Ref<const Eigen::MatrixXd>&) const override { return {}; }
};

/// Counts the final models a run showed and whether they were of NotThePluginsClass.
class FinalModel final : public tb::RunObserver {
public:
    int finals = 0;
    bool castSucceeded = false;
    void modelReady(const tb::RunJob&, const tb::Trainer& t, const tb::MetricPoint&, const QJsonObject&,
                    bool final) override
    {
        if (!final)
            return;
        ++finals;
        castSucceeded = tb::bench::BenchRunner::pluginTrainer<NotThePluginsClass>(t) != nullptr;
    }
};

} // namespace

class TestBenchSupport : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void defaultsQuickDefaultsAndGivenValues()
    {
        BenchArguments a = declared();
        a.parse({"prog"});
        QCOMPARE(a.integer("seeds", 1), 10);
        QVERIFY(!a.quick());
        QVERIFY(!a.isSet("seeds"));
        BenchArguments q = declared();
        q.parse({"prog", "--quick"});
        QCOMPARE(q.integer("seeds", 1), 1);
        QCOMPARE(q.integer("threads", 1), 2); // no quick default: the default
        BenchArguments g = declared();
        g.parse({"prog", "--quick", "--seeds", "3", "--rate=0.25", "--fast"});
        QCOMPARE(g.integer("seeds", 1), 3); // given wins over --quick
        QCOMPARE(g.real("rate"), 0.25);
        QVERIFY(g.isSet("fast") && g.isSet("seeds") && !g.isSet("threads"));
        QCOMPARE(g.integers("batches", 1, 100), QList<qint64>({1, 32}));
    }

    void dirIsAnotherSpellingOfData()
    {
        BenchArguments a = declared();
        a.parse({"prog", "--dir", "/some/where"});
        QCOMPARE(a.text("data"), QStringLiteral("/some/where"));
        QVERIFY(a.isSet("data"));
    }

    void repeatedOptionsKeepEveryValue()
    {
        BenchArguments a = declared();
        a.parse({"prog", "--run", "A=x {}", "--run", "B=y"});
        QCOMPARE(a.values("run"), QStringList({"A=x {}", "B=y"}));
        QCOMPARE(a.text("run"), QStringLiteral("B=y"));
    }

    void badCommandLinesNameTheOptionAndTheValue()
    {
        QVERIFY(argumentError([] { declared().parse({"prog", "--bogus"}); }).contains("bogus"));
        QVERIFY(argumentError([] { declared().parse({"prog", "--seeds"}); }).contains("seeds"));
        auto parsed = [](const QStringList& args) {
            BenchArguments a = declared();
            a.parse(args);
            return a;
        };
        QString e = argumentError([&] { parsed({"prog", "--seeds", "x"}).integer("seeds", 1); });
        QVERIFY2(e.contains("--seeds") && e.contains("\"x\"") && e.contains("integer"), qPrintable(e));
        e = argumentError([&] { parsed({"prog", "--seeds", "0"}).integer("seeds", 1, 100); });
        QVERIFY2(e.contains("[1, 100]") && e.contains("\"0\""), qPrintable(e));
        e = argumentError([&] { parsed({"prog", "--rate", "nan"}).real("rate", 0); });
        QVERIFY2(e.contains("--rate") && e.contains("finite"), qPrintable(e));
        e = argumentError([&] { parsed({"prog", "--params", "[1, 2]"}).jsonObject("params"); });
        QVERIFY2(e.contains("--params") && e.contains("JSON object"), qPrintable(e));
        e = argumentError([&] { parsed({"prog", "--params", "{\"a\": "}).jsonObject("params"); });
        QVERIFY2(e.contains("--params") && e.contains("offset"), qPrintable(e));
        e = argumentError([&] { parsed({"prog", "--batches", "1,x"}).integers("batches", 1, 100); });
        QVERIFY2(e.contains("--batches") && e.contains("1,x"), qPrintable(e));
        QCOMPARE(parsed({"prog"}).jsonObject("params"), QJsonObject());
    }

    void readingAnUndeclaredOptionIsAProgramError()
    {
        BenchArguments a = declared();
        a.parse({"prog"});
        QVERIFY_THROWS_EXCEPTION(std::logic_error, a.text("nope"));
        QVERIFY(!a.declares("nope") && a.declares("dir") && a.declares("seeds"));
        BenchArguments unparsed = declared();
        QVERIFY_THROWS_EXCEPTION(std::logic_error, unparsed.text("seeds"));
    }

    void helpListsEveryOptionWithItsDefaults()
    {
        const QString help = declared().helpText();
        for (const char* s : {"--seeds N", "(default: 10; --quick: 1)", "--threads N", "(default: 2)",
                              "--data, --dir DIR", "--rate R", "--fast", "--quick", "--help"})
            QVERIFY2(help.contains(QLatin1String(s)), s);
        QVERIFY(!help.contains("default: none"));
    }

    void holdOutKeepsTheSameRowsInEitherOrder()
    {
        tb::data::DatasetPair source = indexed(100), shuffled = indexed(100);
        tb::bench::BenchData::holdOut(source, 20, tb::bench::BenchData::Order::Source);
        tb::bench::BenchData::holdOut(shuffled, 20, tb::bench::BenchData::Order::Shuffled);
        QCOMPARE(source.test.rows(), 20);
        QCOMPARE(source.train.rows(), 80);
        auto rowsOf = [](const tb::data::Dataset& d) {
            std::vector<double> v(d.x.data(), d.x.data() + d.rows());
            return v;
        };
        const std::vector<double> held = rowsOf(source.test), kept = rowsOf(source.train);
        QVERIFY(std::is_sorted(held.begin(), held.end()) && std::is_sorted(kept.begin(), kept.end()));
        std::set<double> all(held.begin(), held.end());
        all.insert(kept.begin(), kept.end());
        QCOMPARE(all.size(), std::size_t(100)); // disjoint, and every row somewhere
        std::vector<double> heldShuffled = rowsOf(shuffled.test), keptShuffled = rowsOf(shuffled.train);
        QVERIFY(!std::is_sorted(keptShuffled.begin(), keptShuffled.end()));
        std::sort(heldShuffled.begin(), heldShuffled.end());
        std::sort(keptShuffled.begin(), keptShuffled.end());
        QCOMPARE(heldShuffled, held);
        QCOMPARE(keptShuffled, kept);
        QCOMPARE(source.train.y, source.train.x); // targets travel with their rows
    }

    void holdOutRefusesImpossibleSizes()
    {
        for (Eigen::Index rows : {Eigen::Index(0), Eigen::Index(-3), Eigen::Index(10), Eigen::Index(11)}) {
            tb::data::DatasetPair p = indexed(10);
            try {
                tb::bench::BenchData::holdOut(p, rows);
                QFAIL(qPrintable(QStringLiteral("held out %1 of 10 rows").arg(rows)));
            } catch (const std::invalid_argument& e) {
                QVERIFY2(QString::fromUtf8(e.what()).contains("--validation"), e.what());
            }
        }
    }

    void csvQuotesWhatNeedsItAndRefusesBadRows()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath("out.csv");
        {
            tb::bench::CsvWriter csv(path, {"label", "value"});
            csv.addRow({"plain", tb::bench::CsvWriter::fixed(0.5, 3)});
            csv.addRow({"a,b \"c\"", tb::bench::CsvWriter::general(1e-7, 3)});
            QVERIFY_THROWS_EXCEPTION(std::logic_error, csv.addRow({"one cell"}));
            csv.close();
        }
        QFile f(path);
        QVERIFY(f.open(QIODevice::ReadOnly));
        QCOMPARE(QString::fromUtf8(f.readAll()),
                 QStringLiteral("label,value\nplain,0.500\n\"a,b \"\"c\"\"\",1e-07\n"));
        try {
            tb::bench::CsvWriter bad(dir.filePath("no/such/folder/out.csv"), {"a"});
            QFAIL("wrote into a folder that does not exist");
        } catch (const std::runtime_error& e) {
            QVERIFY2(QString::fromUtf8(e.what()).contains("no/such/folder/out.csv"), e.what());
        }
    }

    void spreadSummarisesAndSkipsNaN()
    {
        const tb::bench::Spread s = tb::bench::Spread::of({3.0, 1.0, std::nan(""), 2.0});
        QCOMPARE(s.count, 3);
        QCOMPARE(s.mean, 2.0);
        QCOMPARE(s.std, 1.0);
        QCOMPARE(s.min, 1.0);
        QCOMPARE(s.max, 3.0);
        QCOMPARE(s.median, 2.0);
        QCOMPARE(s.text(1, 100), QStringLiteral("200.0 ± 100.0 (100.0 … 300.0)"));
        QCOMPARE(tb::bench::Spread::of({}).count, 0);
    }

    void runsGoThroughTheEngineWithACpuClockPerPoint()
    {
        const tb::bench::BenchRunner runner; // ctest points TRAINBENCH_PLUGIN_PATH at the build's plugins
        QCOMPARE(runner.require("gradient.adam").info.id, QStringLiteral("gradient.adam"));
        const QVariantMap params{{"epochs", 3}, {"batch_size", 32}, {"hidden", QVariantList{8}}};
        FinalModel observer;
        const tb::bench::BenchRun run =
            runner.run(tb::bench::BenchRunner::job("gradient.adam", params, moons(), 5, 2), &observer);
        QVERIFY2(run.finished(), qPrintable(run.result.error));
        QCOMPARE(run.result.points.size(), 3);
        QCOMPARE(run.cpuSeconds.size(), std::size_t(3));
        for (std::size_t i = 1; i < run.cpuSeconds.size(); ++i)
            QVERIFY(run.cpuSeconds[i] >= run.cpuSeconds[i - 1]);
        QVERIFY(run.trainCpuSeconds >= run.cpuSeconds.back());
        QVERIFY(run.result.params.size() > params.size()); // normalised: the defaults filled in
        // The caller's observer sees the run too; a class the plugin does not hold is not found.
        QCOMPARE(observer.finals, 1);
        QVERIFY(!observer.castSucceeded);
        // Same seed, same numbers: the engine's determinism, through the harness.
        const tb::bench::BenchRun again =
            runner.run(tb::bench::BenchRunner::job("gradient.adam", params, moons(), 5, 2));
        QCOMPARE(again.result.last.testAccuracy, run.result.last.testAccuracy);
        QCOMPARE(again.result.last.loss, run.result.last.loss);
    }

    void unknownAlgorithmsAndFailedRunsSayWhy()
    {
        const tb::bench::BenchRunner runner;
        try {
            runner.require("nope.missing");
            QFAIL("found an algorithm no plugin offers");
        } catch (const std::runtime_error& e) {
            const QString m = QString::fromUtf8(e.what());
            QVERIFY2(m.contains("nope.missing") && m.contains("search path"), e.what());
        }
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, runner.normalise("gradient.adam", {{"epochs", -4}}));
        const tb::bench::BenchRun bad =
            runner.run(tb::bench::BenchRunner::job("gradient.adam", {{"epochs", -4}}, moons(), 1, 1));
        QCOMPARE(bad.result.status, tb::RunStatus::Failed);
        try {
            bad.requireFinished("adam, seed 1");
            QFAIL("a failed run passed requireFinished()");
        } catch (const std::runtime_error& e) {
            const QString m = QString::fromUtf8(e.what());
            QVERIFY2(m.contains("adam, seed 1") && m.contains("failed: gradient.adam"), e.what());
        }
    }
};

QTEST_GUILESS_MAIN(TestBenchSupport)
#include "tst_benchsupport.moc"
