// trainbench-cli as a user runs it: the predicted cost of trainers that state one, in `list`,
// before and after each run of `run`, and in `runs` from what the store kept (issue 3).
#include <CliProcess.h>
#include <engine/CostPrediction.h>
#include <store/RunStore.h>

#include <QJsonArray>
#include <QJsonDocument>

#include <cmath>
#include <QProcess>
#include <QtTest>

using namespace tb;

namespace {
struct Output {
    int code = -1;
    QString out, err;
};
} // namespace

class TestCli : public QObject {
    Q_OBJECT
private:
    QTemporaryDir m_dir;

    // Runs the CLI with the build's plugins and the engine test's trainers, isolated from the
    // user's files.
    Output cli(const QStringList& args)
    {
        QProcess p;
        p.setProcessEnvironment(tb::testsupport::cliEnvironment(
            m_dir.filePath("home"), QStringLiteral(TB_TEST_PLUGIN_DIR ":" TB_PLUGIN_BUILD_DIR)));
        p.start(QStringLiteral(TB_BIN_DIR "/trainbench-cli"), args);
        Output o;
        if (!p.waitForFinished(120000))
            return o;
        o.code = p.exitCode();
        o.out = QString::fromUtf8(p.readAllStandardOutput());
        o.err = QString::fromUtf8(p.readAllStandardError());
        return o;
    }

    QString writeSpec(const QString& name, const QByteArray& json)
    {
        QFile f(m_dir.filePath(name));
        if (!f.open(QIODevice::WriteOnly))
            qFatal("cannot write %s", qPrintable(f.fileName()));
        f.write(json);
        return f.fileName();
    }

    static QStringList linesWith(const QString& text, const QString& what)
    {
        return text.split('\n').filter(what);
    }

private Q_SLOTS:
    void listShowsThePredictionForTheReferenceShape()
    {
        const Output o = cli({"list"});
        QCOMPARE(o.code, 0);
        // BPLS predicts flops and seconds (of its first sweep, for Algorithm 2); ridge flops only;
        // both their working memory.
        const QRegularExpression bpls(
            R"(bpls\.classify — [^\n]*\n[^\n]*\n    predicted cost for 60000×784 → 10 classes \(Fashion-MNIST, defaults, \d+ threads\): [0-9.]+ GFLOP, [0-9.e-]+ s \(first sweep\), [0-9.]+ [KMG]iB memory\n)");
        QVERIFY2(bpls.match(o.out).hasMatch(), qPrintable(o.out));
        QVERIFY2(QRegularExpression(
                     R"(linear\.ridge — [^\n]*\n[^\n]*\n    predicted cost for [^:]*: 38\.1 GFLOP, [0-9.]+ [KMG]iB memory\n)")
                     .match(o.out)
                     .hasMatch(),
                 qPrintable(o.out));
        // Trainers that predict nothing show nothing.
        QVERIFY(QRegularExpression(R"(test\.noise — [^\n]*\n[^\n]*\n      epochs)").match(o.out).hasMatch());

        const Output j = cli({"list", "--json"});
        QCOMPARE(j.code, 0);
        QHash<QString, QJsonObject> algorithms;
        for (const auto plugin : QJsonDocument::fromJson(j.out.toUtf8()).object().value("plugins").toArray())
            for (const auto a : plugin.toObject().value("algorithms").toArray())
                algorithms.insert(a.toObject().value("id").toString(), a.toObject());
        const QJsonObject classify = algorithms.value("bpls.classify");
        QVERIFY(classify.value("predicted_cost").toObject().value("flops").toDouble() > 1e9);
        QVERIFY(classify.value("predicted_cost").toObject().value("predicted_seconds").toDouble() > 0);
        QVERIFY(!classify.value("predicted_cost").toObject().value("steps").toArray().isEmpty());
        const QJsonObject shape = classify.value("predicted_cost_for").toObject();
        QCOMPARE(shape.value("rows").toInt(), 60000);
        QCOMPARE(shape.value("inputs").toInt(), 784);
        QCOMPARE(shape.value("outputs").toInt(), 10);
        QCOMPARE(shape.value("task").toString(), QStringLiteral("classification"));
        QCOMPARE(
            algorithms.value("bpls.regress").value("predicted_cost_for").toObject().value("task").toString(),
            QStringLiteral("regression"));
        QVERIFY(!algorithms.value("test.noise").contains("predicted_cost"));
        // Which algorithms take sparse inputs as they are (the others get a dense copy).
        QCOMPARE(algorithms.value("liblinear.classify").value("sparse_inputs").toBool(), true);
        QCOMPARE(algorithms.value("libsvm.classify").value("sparse_inputs").toBool(), true);
        QCOMPARE(algorithms.value("bpls.classify").value("sparse_inputs").toBool(), false);
        QVERIFY2(o.out.contains("liblinear.classify — LIBLINEAR classification  [sparse inputs]") ||
                     QRegularExpression(R"(liblinear\.classify — [^\n]*\[sparse inputs\])").match(o.out).hasMatch(),
                 qPrintable(o.out));
    }

    void sparseLibsvmFileRunsAndItsBadLinesAreNamed()
    {
        // A text-shaped file: 60 rows over 2,000,000 columns (a dense copy would be 0.9 GB), kept
        // sparse; LIBLINEAR trains on it as it is.
        QString rows;
        for (int i = 0; i < 60; ++i)
            rows += QStringLiteral("%1 %2:1 %3:0.5 1999999:0.25\n").arg(i % 2).arg(1 + i % 2).arg(100 + i);
        const QString file = m_dir.filePath("wide.libsvm");
        QFile f(file);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(rows.toUtf8());
        f.close();
        const QString spec = writeSpec("sparse.json", QStringLiteral(R"({"name": "sparse", "kind": "learning-curve", "threads": 1,
            "dataset": {"source": "libsvm", "file": "%1", "task": "classification", "test_fraction": 0.25, "features": 2000000},
            "algorithms": [{"id": "liblinear.classify", "label": "LIBLINEAR"}]})").arg(file).toUtf8());
        const Output o = cli({"run", spec, "--no-db", "--quiet"});
        QVERIFY2(o.code == 0, qPrintable(o.err + o.out));
        QVERIFY2(o.err.contains("sparse, "), qPrintable(o.err)); // the shape it predicted for
        // The same file with a repeated index on line 7: exit 3, file and line named.
        rows.replace(QStringLiteral("0 1:1 106:0.5"), QStringLiteral("0 1:1 1:0.5"));
        QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
        f.write(rows.toUtf8());
        f.close();
        const Output bad = cli({"run", spec, "--no-db", "--quiet"});
        QCOMPARE(bad.code, 3);
        QVERIFY2(bad.err.contains(file + ":7: bad token \"1:0.5\": index 1 appears twice on the line"), qPrintable(bad.err));
    }

    void runShowsPredictedThenMeasuredAndStoresIt()
    {
        const QString db = m_dir.filePath("runs.sqlite");
        const QString spec =
            writeSpec("lc.json", R"({"name": "cost", "kind": "learning-curve", "repeats": 2, "threads": 1,
            "dataset": {"source": "moons", "samples": 200, "noise": 0.1},
            "algorithms": [{"id": "test.sleepy", "label": "Sleepy", "params": {"epochs": 3, "epoch_ms": 30}},
                           {"id": "bpls.classify", "label": "BPLS", "params": {"hidden": [4]}},
                           {"id": "test.noise", "label": "Silent", "params": {"epochs": 2}}]})");
        const Output o = cli({"run", spec, "--db", db, "--quiet"});
        QVERIFY2(o.code == 0, qPrintable(o.err));

        // Before the first run, once per algorithm (not per repeat), on stderr.
        const QStringList sleepyBefore = linesWith(o.err, "Sleepy: predicted");
        QCOMPARE(sleepyBefore.size(), 1);
        QVERIFY2(QRegularExpression(R"(^Sleepy: predicted \d+ FLOP, 0\.09 s for \d+×2 → 2 classes$)")
                     .match(sleepyBefore.first())
                     .hasMatch(),
                 qPrintable(sleepyBefore.first()));
        QCOMPARE(linesWith(o.err, "BPLS: predicted").size(), 1);
        QVERIFY(linesWith(o.err, "BPLS: predicted").first().contains("(first sweep)"));
        QVERIFY(linesWith(o.err, "Silent").isEmpty());

        // After each run: predicted against measured, on the summary line.
        const QStringList sleepyAfter = linesWith(o.out, "Sleepy ");
        QCOMPARE(sleepyAfter.size(), 2);
        for (const QString& line : sleepyAfter)
            QVERIFY2(QRegularExpression(R"(finished .* predicted 0\.09 s, measured 0\.\d+ s$)")
                         .match(line)
                         .hasMatch(),
                     qPrintable(line));
        for (const QString& line : linesWith(o.out, "BPLS "))
            QVERIFY2(QRegularExpression(R"(predicted [0-9.e-]+ s, measured [0-9.e-]+ s \(first sweep\)$)")
                         .match(line)
                         .hasMatch(),
                     qPrintable(line));
        for (const QString& line : linesWith(o.out, "Silent "))
            QVERIFY2(!line.contains("predicted"), qPrintable(line));
        // An algorithm that predicts no memory is run unchecked, and not silently: once.
        QCOMPARE(o.err.count("warning: test.noise states no working memory"), 1);

        // Stored with each run.
        QString error;
        auto store = RunStore::open(db, &error);
        QVERIFY2(store, qPrintable(error));
        const auto exps = store->experiments();
        QCOMPARE(exps.size(), 1);
        const auto runs = store->runs(exps.first().id);
        QCOMPARE(runs.size(), 6);
        for (const RunRecord& r : runs) {
            const CostPrediction c = CostPrediction::fromRunInfo(r.info);
            if (r.algorithmId == "test.noise") {
                // It predicts nothing: the row says the run was not checked, and says only that.
                QVERIFY(std::isnan(c.flops()) && std::isnan(c.seconds()) && std::isnan(c.memoryBytes()));
                QVERIFY2(c.json().value("memory_unchecked").toString().contains("states no working memory"),
                         qPrintable(QJsonDocument(r.info).toJson()));
                continue;
            }
            QVERIFY2(c.flops() > 0, qPrintable(r.algorithmId));
            QVERIFY(c.seconds() > 0);
            QVERIFY(c.measuredSeconds(r.info) > 0);
            if (r.algorithmId == "test.sleepy") {
                QCOMPARE(c.seconds(), 0.09);
                QVERIFY(c.measuredSeconds(r.info) >= 0.08);
            }
        }
        store.reset();

        // `runs` shows the same comparison from the store.
        const Output listed = cli({"runs", "--db", db});
        QCOMPARE(listed.code, 0);
        const QStringList sleepyRuns = linesWith(listed.out, "Sleepy ");
        QCOMPARE(sleepyRuns.size(), 2);
        for (const QString& line : sleepyRuns)
            QVERIFY2(QRegularExpression(R"(predicted 0\.09 s, measured 0\.\d+ s$)").match(line).hasMatch(),
                     qPrintable(line));
        QCOMPARE(linesWith(listed.out, "(first sweep)").size(), 2);
        QVERIFY(!linesWith(listed.out, "Silent ").first().contains("predicted"));
    }

    void runsShowsWholeNames()
    {
        // Issue 50, item 6: a sweep's run names end in the values that tell them apart; `runs`
        // cut them at 24 characters, so every run read "Adam with a long label l".
        const QString db = m_dir.filePath("names.sqlite");
        const QString spec = writeSpec("names.json", R"({"name": "names", "kind": "param-sweep", "seed": 4, "threads": 1,
            "dataset": {"source": "moons", "samples": 100},
            "algorithms": [{"id": "test.noise", "label": "Noise with a long label", "params": {"epochs": 2}}],
            "sweep": {"grid": {"offset": [0.001, 0.0031, 0.03]}}})");
        const Output o = cli({"run", spec, "--db", db, "--quiet"});
        QVERIFY2(o.code == 0, qPrintable(o.err));
        const Output listed = cli({"runs", "--db", db});
        QCOMPARE(listed.code, 0);
        for (const char* name : {"Noise with a long label offset=0.001 ", "Noise with a long label offset=0.0031 ",
                                 "Noise with a long label offset=0.03 "})
            QVERIFY2(linesWith(listed.out, name).size() == 1, qPrintable(listed.out));
    }

    void noiseSweepShowsAndStoresOneCellsPrediction()
    {
        const QString db = m_dir.filePath("sweep.sqlite");
        const QString spec = writeSpec("sweep.json", R"({"name": "sweep", "kind": "noise-sweep", "threads": 2,
            "dataset": {"source": "bpls_toy", "function": "linear"},
            "sweep": {"sigma": [0, 0.1], "monte_carlo": 4},
            "algorithms": [{"id": "linear.ridge", "label": "LS"}]})");
        const Output o = cli({"run", spec, "--db", db, "--quiet"});
        QVERIFY2(o.code == 0, qPrintable(o.err));
        const QStringList before = linesWith(o.err, "LS: predicted");
        QCOMPARE(before.size(), 1);
        // The toy: x (one input) on 5 training points, 2 outputs.
        QVERIFY2(QRegularExpression(R"(^LS: predicted [0-9.]+ FLOP, [0-9.]+ (B|KiB|MiB) memory for 5×1 → 2 outputs per cell$)")
                     .match(before.first())
                     .hasMatch(),
                 qPrintable(before.first()));
        const Output listed = cli({"runs", "--db", db});
        QCOMPARE(listed.code, 0);
        QVERIFY2(linesWith(listed.out, "LS ")
                     .value(0)
                     .contains(QRegularExpression(R"(predicted [0-9.]+ FLOP, [0-9.]+ (B|KiB|MiB) memory per cell)")),
                 qPrintable(listed.out));
    }

    static QString readAll(const QString& path)
    {
        QFile f(path);
        return f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()) : QString();
    }

    // Issue 18 / 10: one CSV format for `run --csv` and `export --csv` (and the workbench, which
    // calls the same writer), and one re-run rule: `rerun` repeats a stored run's numbers.
    void csvOfRunAndExportAreOneFormatAndRerunRepeatsTheNumbers()
    {
        const QString db = m_dir.filePath("csv.sqlite");
        const QString spec =
            writeSpec("csv.json", R"({"name": "csv", "kind": "learning-curve", "repeats": 2, "threads": 1, "seed": 5,
            "dataset": {"source": "moons", "samples": 200, "noise": 0.2},
            "algorithms": [{"id": "gradient.adam", "label": "Adam", "params": {"epochs": 3, "hidden": [8]}},
                           {"id": "linear.ridge"}]})");
        const Output o = cli({"run", spec, "--db", db, "--quiet", "--csv", m_dir.filePath("run.csv")});
        QVERIFY2(o.code == 0, qPrintable(o.err));
        const QString experiment = QRegularExpression(R"(\(experiment (\d+)\))").match(o.out).captured(1);
        QVERIFY2(!experiment.isEmpty(), qPrintable(o.out));
        const Output e = cli({"export", experiment, "--db", db, "--csv", m_dir.filePath("export.csv")});
        QVERIFY2(e.code == 0, qPrintable(e.err));
        const QString ran = readAll(m_dir.filePath("run.csv"));
        QCOMPARE(readAll(m_dir.filePath("export.csv")), ran);
        const QStringList lines = ran.split('\n', Qt::SkipEmptyParts);
        QCOMPARE(lines.first(), QStringLiteral("experiment_id,run_id,algorithm_id,label,repeat,seed,status,sigma,monte_carlo,"
                                               "seq,epoch,train_time_s,loss,train_accuracy,test_accuracy,train_rmse,"
                                               "train_rmse_std,test_rmse,test_rmse_std,validation_accuracy,validation_rmse"));

        // Re-run the second repeat of Adam: the same seed gives the same numbers (all but the
        // measured training time and the ids).
        auto rowsOf = [](const QString& csv, const QString& label, const QString& repeat) {
            QStringList out;
            for (const QString& line : csv.split('\n', Qt::SkipEmptyParts)) {
                QStringList f = line.split(',');
                if (f.value(3) != label || f.value(4) != repeat)
                    continue;
                f[0].clear();
                f[1].clear();
                f[11].clear(); // train_time_s
                out << f.join(',');
            }
            return out;
        };
        const QStringList original = rowsOf(ran, "Adam", "1");
        QVERIFY2(original.size() >= 3, qPrintable(ran)); // one row per checkpoint
        const QString runId =
            lines.filter(QRegularExpression("^[0-9]+,[0-9]+,gradient.adam,Adam,1,")).value(0).section(',', 1, 1);
        QVERIFY(!runId.isEmpty());
        const Output r = cli({"rerun", runId, "--db", db, "--quiet", "--csv", m_dir.filePath("rerun.csv")});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QVERIFY2(r.err.contains("Re-running run " + runId), qPrintable(r.err));
        QVERIFY2(!r.err.contains("QCommandLineParser"), qPrintable(r.err));  // an option rerun does not have was asked about
        QCOMPARE(rowsOf(readAll(m_dir.filePath("rerun.csv")), "Adam", "1"), original);
        // Issue 43: the re-run says how it compares with the stored run; same build, same CPU.
        QVERIFY2(r.out.contains("compared with the stored run: The re-run's final metrics are run " + runId +
                                "'s to the bit."),
                 qPrintable(r.out));
        QVERIFY2(!r.out.contains("differs"), qPrintable(r.out));
        // Both runs record the build and the CPU that trained them.
        const Output js = cli({"runs", "--db", db, "--json"});
        QVERIFY2(js.out.contains("\"build\": \"GCC") || js.out.contains("\"build\":\"GCC"), qPrintable(js.out.left(2000)));
        QVERIFY2(js.out.contains("\"cpu\""), qPrintable(js.out.left(2000)));

        const Output bad = cli({"rerun", "99999", "--db", db});
        QCOMPARE(bad.code, 2);
        QVERIFY2(bad.err.contains("no run 99999"), qPrintable(bad.err));
    }

    void compareTablesFromAStoredSweep()
    {
        // test.noise adds `offset` to noisy predictions of the mean (Friedman #1, regression):
        // offset 2 raises the test RMSE on every seed, offset 0.01 by a hair on every seed —
        // significant, yet inside the 5 % tie band.
        const QString db = m_dir.filePath("compare.sqlite");
        const QString spec = writeSpec("offsets.json", R"({"name": "offsets", "kind": "param-sweep", "seed": 3, "threads": 1,
            "repeats": 4, "dataset": {"source": "friedman1", "samples": 100},
            "algorithms": [{"id": "test.noise", "label": "Noise", "params": {"epochs": 3}}],
            "sweep": {"grid": {"offset": [0, 0.01, 2]}}})");
        const Output run = cli({"run", spec, "--db", db, "--quiet"});
        QVERIFY2(run.code == 0, qPrintable(run.err));
        // The grid after the runs, and each run's measured peak memory.
        QVERIFY2(run.out.contains(QRegularExpression(R"(test RMSE by parameter, mean ± std over seeds\nalgorithm +offset +test RMSE +runs)")),
                 qPrintable(run.out));
        QCOMPARE(linesWith(run.out, "peak memory ").size(), 12);
        const QString id = QRegularExpression(R"(\(experiment (\d+)\))").match(run.out).captured(1);
        QVERIFY(!id.isEmpty());

        Output o = cli({"compare", id, "--db", db, "--format", "csv", "--tables", "matrix,pairs"});
        QVERIFY2(o.code == 0, qPrintable(o.err));
        QStringList lines = o.out.split('\n');
        QCOMPARE(lines.value(0), QStringLiteral("# test RMSE, mean ± std over seeds"));
        QVERIFY(lines.value(1).startsWith("configuration,\"Friedman #1, 100 samples"));
        QVERIFY2(QRegularExpression(R"(^Noise offset=0 \(baseline\),4\.\d+ ± 0\.\d+$)").match(lines.value(2)).hasMatch(),
                 qPrintable(lines.value(2)));
        QVERIFY2(lines.value(4).startsWith("Noise offset=2,5.") && lines.value(4).endsWith(" ▼"), qPrintable(lines.value(4)));
        const QStringList small = linesWith(o.out, "Noise offset=0.01,\"Friedman");
        QCOMPARE(small.size(), 1);
        QVERIFY2(small.first().contains(" 30% test\",4,") && small.first().endsWith(",0/4/0"), qPrintable(small.first())); // 4 seeds, all ties
        const QStringList large = linesWith(o.out, "Noise offset=2,\"Friedman");
        QVERIFY2(large.first().endsWith(",0.13,0/0/4"), qPrintable(large.first())); // exact Wilcoxon: 2/2⁴

        // Two configurations only, the second as baseline: one pairwise row.
        o = cli({"compare", id, "--db", db, "--tables", "pairs", "--format", "csv", "--configurations",
                 "Noise offset=2, Noise offset=0", "--baseline", "Noise offset=0"});
        QVERIFY2(o.code == 0, qPrintable(o.err));
        QCOMPARE(linesWith(o.out, ",\"Friedman").size(), 1);
        QVERIFY(o.out.contains("Noise offset=2,\"Friedman"));
        o = cli({"compare", id, "--db", db, "--format", "latex", "--tables", "time"});
        QVERIFY2(o.code == 0, qPrintable(o.err));
        QVERIFY2(o.out.contains("\\toprule") && o.out.contains("(baseline)") && o.out.contains("4/4"), qPrintable(o.out));
        o = cli({"compare", id, "--db", db, "--format", "markdown", "--baseline", "Noise offset=2", "--test", "wilcoxon"});
        QVERIFY2(o.code == 0, qPrintable(o.err));
        QVERIFY2(o.out.contains("| Noise offset=2 (baseline) |") && o.out.contains("Wilcoxon signed-rank test"), qPrintable(o.out));
        const QString file = m_dir.filePath("table.md");
        o = cli({"compare", id, "--db", db, "--format", "md", "--output", file});
        QCOMPARE(o.code, 0);
        QVERIFY(QFile(file).size() > 100);
    }

    void compareRefusesWhatItCannotDo_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<int>("code");
        QTest::addColumn<QString>("message");
        QTest::newRow("no id") << QStringList{} << 2 << "give at least one experiment id";
        QTest::newRow("unknown id") << QStringList{"999"} << 2 << "no experiment with id 999";
        QTest::newRow("metric") << QStringList{"1", "--metric", "speed"} << 2 << "--metric: expected one of test_accuracy";
        QTest::newRow("baseline") << QStringList{"1", "--baseline", "Adam"} << 2 << "no configuration \"Adam\" (configurations: Noise offset=0";
        QTest::newRow("configurations") << QStringList{"1", "--configurations", "Noise offset=0,Noise offset=9"} << 2
                                        << "--configurations: no configuration \"Noise offset=9\"";
        QTest::newRow("format") << QStringList{"1", "--format", "html"} << 2 << "--format: expected text, csv";
        QTest::newRow("alpha") << QStringList{"1", "--alpha", "2"} << 2 << "--alpha: expected a number in (0, 1)";
        QTest::newRow("table") << QStringList{"1", "--tables", "matrix,chart"} << 2 << "unknown table \"chart\"";
        QTest::newRow("output") << QStringList{"1", "--output", "/nonexistent-dir/t.txt"} << 6 << "/nonexistent-dir/t.txt: cannot write";
    }
    void compareRefusesWhatItCannotDo()
    {
        QFETCH(QStringList, args);
        QFETCH(int, code);
        QFETCH(QString, message);
        const QString db = m_dir.filePath("compare.sqlite"); // from compareTablesFromAStoredSweep
        QVERIFY(QFile::exists(db));
        const Output o = cli(QStringList{"compare"} + args + QStringList{"--db", db});
        QCOMPARE(o.code, code);
        QVERIFY2(o.err.contains(message), qPrintable(o.err));
    }

    // --plot writes the charts of app/charts' registry that are exported for the result: the
    // first at OUT.png, the others beside it as OUT-<suffix>.png, each a 1200×800 PNG.
    void plotWritesTheExportedChartsBesideOut()
    {
        const QString dir = m_dir.filePath("plots");
        QVERIFY(QDir().mkpath(dir));
        auto chartsOf = [](const QString& out) {
            QStringList files;
            for (const QString& line : linesWith(out, "chart: "))
                files << QFileInfo(line.mid(7).trimmed()).fileName();
            return files;
        };
        // The PNG signature, then the IHDR chunk's width and height (big-endian).
        auto isPicture = [](const QString& path) {
            QFile f(path);
            if (!f.open(QIODevice::ReadOnly))
                return false;
            const QByteArray head = f.read(24);
            auto be32 = [&](int at) {
                return (quint32(quint8(head[at])) << 24) | (quint32(quint8(head[at + 1])) << 16) |
                       (quint32(quint8(head[at + 2])) << 8) | quint32(quint8(head[at + 3]));
            };
            return head.size() == 24 && head.startsWith("\x89PNG\r\n\x1a\n") && be32(16) == 1200 && be32(20) == 800;
        };

        // A learning curve: its metric against training time at OUT.png, against epoch, and the
        // frontier; no chart of another kind.
        const QString lc = writeSpec("plot-lc.json", R"({"name": "plots", "kind": "learning-curve", "threads": 1,
            "repeats": 2, "dataset": {"source": "moons", "samples": 200, "noise": 0.1},
            "algorithms": [{"id": "linear.ridge", "label": "LS"},
                           {"id": "test.sleepy", "label": "Sleepy", "params": {"epochs": 3, "epoch_ms": 1}}]})");
        Output o = cli({"run", lc, "--no-db", "--quiet", "--plot", dir + "/lc.png"});
        QVERIFY2(o.code == 0, qPrintable(o.err));
        QStringList files = chartsOf(o.out);
        QVERIFY2(files.mid(0, 2) == QStringList({"lc.png", "lc-epoch.png"}), qPrintable(o.out));
        QVERIFY2(files.contains("lc-frontier.png"), qPrintable(o.out));
        QVERIFY(!files.contains("lc-parallel.png") && !files.contains("lc-loss.png") && !files.contains("lc-sigma.png"));
        for (const QString& f : files)
            QVERIFY2(isPicture(dir + "/" + f), qPrintable(f));

        // A noise sweep: RMSE vs σ, alone.
        const QString sweep = writeSpec("plot-sweep.json", R"({"name": "plot sweep", "kind": "noise-sweep", "threads": 1,
            "dataset": {"source": "bpls_toy", "function": "linear"},
            "sweep": {"sigma": [0, 0.5], "monte_carlo": 2},
            "algorithms": [{"id": "linear.ridge", "label": "LS"}]})");
        o = cli({"run", sweep, "--no-db", "--quiet", "--plot", dir + "/sweep.png"});
        QVERIFY2(o.code == 0, qPrintable(o.err));
        QCOMPARE(chartsOf(o.out), QStringList{"sweep.png"});
        QVERIFY(isPicture(dir + "/sweep.png"));

        // A param sweep over a number: the final metric against it at OUT.png, then its parallel
        // coordinates and the frontier; its learning curves give way.
        const QString ps = writeSpec("plot-ps.json", R"({"name": "plot offsets", "kind": "param-sweep", "threads": 1,
            "repeats": 2, "dataset": {"source": "friedman1", "samples": 100},
            "algorithms": [{"id": "test.noise", "label": "Noise", "params": {"epochs": 2}}],
            "sweep": {"grid": {"offset": [0, 2]}}})");
        o = cli({"run", ps, "--no-db", "--quiet", "--plot", dir + "/ps.png"});
        QVERIFY2(o.code == 0, qPrintable(o.err));
        files = chartsOf(o.out);
        QVERIFY2(files.value(0) == "ps.png" && files.contains("ps-parallel.png") && files.contains("ps-frontier.png"),
                 qPrintable(o.out));
        QVERIFY(!files.contains("ps-epoch.png"));
        for (const QString& f : files)
            QVERIFY2(isPicture(dir + "/" + f), qPrintable(f));

        // A file that cannot be written: exit 6, the message names it.
        o = cli({"run", sweep, "--no-db", "--quiet", "--plot", "/nonexistent-dir/plot.png"});
        QCOMPARE(o.code, 6);
        QVERIFY2(o.err.contains("/nonexistent-dir/plot.png"), qPrintable(o.err));
    }
};

QTEST_GUILESS_MAIN(TestCli)
#include "tst_cli.moc"
