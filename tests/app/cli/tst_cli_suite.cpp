// trainbench-cli with a suite, as a user drives it (issue 46): `run` of 5 generated sets × 3
// algorithms × 5 seeds stores every run, `compare --suite` prints the ranks, the Friedman p-value,
// the Nemenyi critical difference and the Holm table, `--plot F.png` writes the per-set chart, the
// CD diagram F-cd.png and the performance profile F-profile.png; a bad suite stores nothing; under
// mpirun the sets' cells train on the worker ranks with the same results.
#include <CliProcess.h>
#include <store/RunStore.h>

#include <QJsonArray>
#include <QJsonDocument>
#include <QTemporaryDir>
#include <QtTest>

using namespace tb;
using tb::testsupport::CliOutput;

namespace {

// The width of the PNG image @p path (its IHDR chunk), 0 when it is not a PNG.
int pngWidth(const QString& path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return 0;
    const QByteArray head = f.read(24);
    if (head.size() < 24 || !head.startsWith("\x89PNG\r\n\x1a\n") || head.mid(12, 4) != "IHDR")
        return 0;
    return (uchar(head[16]) << 24) | (uchar(head[17]) << 16) | (uchar(head[18]) << 8) | uchar(head[19]);
}

QJsonObject set(const QString& name, const QJsonObject& dataset)
{
    return QJsonObject{{"name", name}, {"dataset", dataset}};
}

// Five small generated sets, three algorithms, five seeds: 75 runs of a few milliseconds each.
QJsonObject suite(const QString& name = QStringLiteral("cli suite"))
{
    const QJsonArray sets{
        set("moons", {{"source", "moons"}, {"samples", 150}, {"noise", 0.2}, {"validation_fraction", 0.2}, {"seed", 1}}),
        set("circles", {{"source", "circles"}, {"samples", 150}, {"noise", 0.1}, {"validation_fraction", 0.2}, {"seed", 1}}),
        set("spirals", {{"source", "spirals"}, {"samples", 150}, {"noise", 0.1}, {"validation_fraction", 0.2}, {"seed", 1}}),
        set("xor", {{"source", "xor"}, {"samples", 150}, {"noise", 0.1}, {"validation_fraction", 0.2}, {"seed", 1}}),
        set("blobs", {{"source", "gaussian_blobs"}, {"samples", 150}, {"centers", 3}, {"validation_fraction", 0.2}, {"seed", 1}})};
    return QJsonObject{
        {"name", name},
        {"kind", "learning-curve"},
        {"format", 2},
        {"datasets", sets},
        {"repeats", 5},
        {"threads", 1},
        {"algorithms",
         QJsonArray{QJsonObject{{"id", "linear.ridge"}, {"label", "ridge"}, {"params", QJsonObject{}}},
                    QJsonObject{{"id", "bpls.classify"}, {"label", "BPLS"}, {"params", QJsonObject{{"hidden", QJsonArray{8}}}}},
                    QJsonObject{{"id", "gradient.adam"},
                                {"label", "Adam"},
                                {"params", QJsonObject{{"hidden", QJsonArray{8}}, {"epochs", 20}, {"batch_size", 16}}}}}}};
}

} // namespace

class TestCliSuite : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;

    CliOutput cli(const QStringList& args)
    {
        QProcess p;
        p.setProcessEnvironment(environment());
        p.start(QStringLiteral(TB_BIN_DIR "/trainbench-cli"), args);
        return tb::testsupport::finishProcess(p, 300000);
    }
    QProcessEnvironment environment() const
    {
        return tb::testsupport::cliEnvironment(m_dir.filePath("home"), QStringLiteral(TB_PLUGIN_BUILD_DIR));
    }
    QString write(const QString& name, const QJsonObject& o)
    {
        QFile f(m_dir.filePath(name));
        if (!f.open(QIODevice::WriteOnly))
            qFatal("cannot write %s", qPrintable(f.fileName()));
        f.write(QJsonDocument(o).toJson());
        return f.fileName();
    }
    int experiments(const QString& db)
    {
        QString error;
        RunStore::Options o;
        o.readOnly = true;
        auto store = RunStore::open(db, o, &error);
        return store ? int(store->experiments(&error).size()) : -1;
    }

private Q_SLOTS:
    void aSuiteStoresEveryRunAndComparesAcrossSets()
    {
        const QString spec = write("suite.json", suite());
        const QString db = m_dir.filePath("suite.sqlite");
        const QString png = m_dir.filePath("suite.png");
        const CliOutput run = cli({"run", spec, "--db", db, "--plot", png, "--quiet"});
        QVERIFY2(run.code == 0, qPrintable(run.err + run.out));
        QVERIFY2(run.err.contains("Running suite \"cli suite\" (5 data sets × 3 algorithms"), qPrintable(run.err));
        QVERIFY2(run.out.contains("Average ranks over data sets"), qPrintable(run.out));
        // Every (set, algorithm, seed) an ordinary stored run, in one experiment per set.
        QString error;
        RunStore::Options o;
        o.readOnly = true;
        auto store = RunStore::open(db, o, &error);
        QVERIFY2(store, qPrintable(error));
        const QList<ExperimentRecord> exps = store->experiments(&error);
        QCOMPARE(exps.size(), 5);
        int runs = 0;
        for (const ExperimentRecord& e : exps) {
            QCOMPARE(e.spec.value("suite_set").toObject().value("suite").toString(), QStringLiteral("cli suite"));
            for (const RunRecord& r : store->runs(e.id, &error)) {
                QCOMPARE(r.status, RunStatus::Finished);
                ++runs;
            }
        }
        QCOMPARE(runs, 75);
        // The charts: per set (F.png), the CD diagram and the time-to-target profile.
        for (const QString& f : {png, m_dir.filePath("suite-cd.png"), m_dir.filePath("suite-profile.png")}) {
            QVERIFY2(run.out.contains("chart: " + f), qPrintable(run.out));
            QVERIFY2(pngWidth(f) > 400, qPrintable(f));
        }
        QVERIFY2(!QFile::exists(m_dir.filePath("suite-epoch.png")), "a suite's curves mix data sets: not exported");

        const CliOutput compare = cli({"compare", "--suite", "cli suite", "--db", db});
        QVERIFY2(compare.code == 0, qPrintable(compare.err));
        for (const char* what : {"Per data set: mean over seeds", "average rank", "Friedman χ²(2) = ",
                                 "Iman–Davenport F(2, 8) = ", "Nemenyi critical difference at α = 0.05: CD = 1.482",
                                 "Holm's procedure against", "Wilcoxon signed-rank and Bayesian signed-rank"})
            QVERIFY2(compare.out.contains(QString::fromUtf8(what)), qPrintable(what + QStringLiteral("\n") + compare.out));
        // A re-run of one run is an experiment of its own, not the newest run of its set.
        const CliOutput rerun = cli({"rerun", QString::number(store->runs(exps.first().id, &error).first().id), "--db", db});
        QVERIFY2(rerun.code == 0 && rerun.out.contains("to the bit"), qPrintable(rerun.err + rerun.out));
        const CliOutput after = cli({"compare", "--suite", "cli suite", "--db", db, "--tables", "sets"});
        QVERIFY2(after.code == 0, qPrintable(after.err));
        QVERIFY2(compare.out.contains(after.out.trimmed()), qPrintable(after.out + "\n---\n" + compare.out));
        // The same by ids, and as Markdown.
        QStringList ids;
        for (const ExperimentRecord& e : exps)
            ids << QString::number(e.id);
        const CliOutput md = cli(QStringList{"compare"} + ids + QStringList{"--db", db, "--tables", "ranks,holm", "--format", "markdown"});
        QVERIFY2(md.code == 0, qPrintable(md.err));
        QVERIFY2(md.out.contains("| configuration | average rank |"), qPrintable(md.out));
    }

    void aRankTestOfOneSetIsRefused()
    {
        QJsonObject one = suite("one set");
        one.remove("datasets");
        one.insert("dataset", QJsonObject{{"source", "moons"}, {"samples", 100}});
        const QString db = m_dir.filePath("one.sqlite");
        const CliOutput run = cli({"run", write("one.json", one), "--db", db, "--quiet"});
        QVERIFY2(run.code == 0, qPrintable(run.err));
        const CliOutput compare = cli({"compare", "1", "--db", db, "--tables", "ranks"});
        QCOMPARE(compare.code, 2);
        QVERIFY2(compare.err.contains("--tables ranks: a rank test needs at least 2 data sets and 2 configurations"),
                 qPrintable(compare.err));
        const CliOutput none = cli({"compare", "--suite", "no such suite", "--db", db});
        QCOMPARE(none.code, 2);
        QVERIFY2(none.err.contains("holds no set of a suite \"no such suite\""), qPrintable(none.err));
    }

    void aBadSuiteStoresNothing_data()
    {
        QTest::addColumn<QJsonObject>("file");
        QTest::addColumn<QString>("message");
        QJsonObject o = suite();
        QJsonArray sets = o.value("datasets").toArray();
        sets[1] = set("moons", sets[1].toObject().value("dataset").toObject());
        o.insert("datasets", sets);
        QTest::newRow("two sets, one name") << o << "datasets[1]: the name \"moons\" is taken by datasets[0]";
        o = suite();
        sets = o.value("datasets").toArray();
        sets[2] = set("broken", QJsonObject{{"source", "moons"}, {"samples", -3}});
        o.insert("datasets", sets);
        QTest::newRow("a bad set") << o << "datasets[2]";
        o = suite();
        o.insert("datasets", QJsonArray{set("regression", QJsonObject{{"source", "friedman1"}, {"samples", 100}}),
                                        set("moons", QJsonObject{{"source", "moons"}, {"samples", 100}})});
        QJsonArray algs{QJsonObject{{"id", "bpls.classify"}, {"params", QJsonObject{}}}};
        o.insert("algorithms", algs);
        QTest::newRow("a set no algorithm takes") << o << "datasets[0]: no algorithm of the experiment can take this regression set";
    }
    void aBadSuiteStoresNothing()
    {
        QFETCH(QJsonObject, file);
        QFETCH(QString, message);
        const QString db = m_dir.filePath(QStringLiteral("bad-%1.sqlite").arg(QTest::currentDataTag()).replace(' ', '_'));
        const CliOutput run = cli({"run", write("bad.json", file), "--db", db, "--quiet"});
        QCOMPARE(run.code, 3);
        QVERIFY2(run.err.contains(message), qPrintable(run.err));
        QVERIFY2(run.err.contains("bad.json"), qPrintable(run.err)); // the file is named
        QVERIFY(!QFile::exists(db) || experiments(db) == 0);
    }

    void anAbsentCatalogueSetIsSkippedWithItsFetchCommand()
    {
        QJsonObject o = suite("with an absent set");
        QJsonArray sets = o.value("datasets").toArray();
        sets.append(set("California", QJsonObject{{"source", "california_housing"}, {"min_max_scale", true}}));
        o.insert("datasets", sets);
        QJsonArray algs{QJsonObject{{"id", "linear.ridge"}, {"label", "ridge"}, {"params", QJsonObject{}}}};
        o.insert("algorithms", algs);
        QProcess p;
        QProcessEnvironment env = environment();
        env.insert("TRAINBENCH_DATASETS_DIR", m_dir.filePath("no-datasets-here"));
        p.setProcessEnvironment(env);
        p.start(QStringLiteral(TB_BIN_DIR "/trainbench-cli"), {"run", write("absent.json", o), "--no-db", "--quiet"});
        const CliOutput run = tb::testsupport::finishProcess(p, 300000);
        QVERIFY2(run.code == 0, qPrintable(run.err));
        QVERIFY2(run.err.contains("skipped: set \"California\" is not downloaded") &&
                     run.err.contains("run `trainbench-cli datasets fetch california_housing`"),
                 qPrintable(run.err));
        QVERIFY2(run.out.contains("California  absent"), qPrintable(run.out));
        QVERIFY2(run.out.contains("== blobs =="), qPrintable(run.out)); // the other sets ran
    }

#ifdef TB_HAVE_MPI
    void aSuiteUnderMpiTrainsOnTheWorkersWithTheSameResults()
    {
        QJsonObject o = suite("mpi suite");
        QJsonArray two = o.value("datasets").toArray();
        while (two.size() > 2)
            two.removeLast();
        o.insert("datasets", two);
        const QString spec = write("mpi.json", o);
        const CliOutput local = cli({"run", spec, "--no-db", "--csv", m_dir.filePath("local.csv"), "--quiet"});
        QVERIFY2(local.code == 0, qPrintable(local.err));
        QProcess p;
        p.setProcessEnvironment(environment());
        const QString db = m_dir.filePath("mpi.sqlite");
        p.start(tb::testsupport::mpirunProgram(),
                tb::testsupport::mpirunArguments(3) << QStringLiteral(TB_BIN_DIR "/trainbench-cli")
                                                    << QStringList{"run", spec, "--mpi", "--db", db, "--csv",
                                                                   m_dir.filePath("mpi.csv"), "--quiet"});
        const CliOutput mpi = tb::testsupport::finishProcess(p, 300000);
        QVERIFY2(mpi.code == 0, qPrintable(mpi.err + mpi.out));
        QVERIFY2(mpi.out.contains("cells per worker rank: "), qPrintable(mpi.out));
        QCOMPARE(experiments(db), 2);
        // The final metrics of every run: the cells are the same whichever rank trains them.
        const auto finals = [](const QString& out) {
            QStringList lines;
            for (const QString& l : out.split('\n'))
                if (l.contains(" repeat "))
                    lines << l.section(QStringLiteral("train acc"), 1).section(QStringLiteral("  memory"), 0, 0);
            return lines;
        };
        QCOMPARE(finals(mpi.out), finals(local.out));
        QCOMPARE(finals(mpi.out).size(), 30);
        // The CSV says each row's set and its own experiment (the sets are two experiments).
        QFile csv(m_dir.filePath("mpi.csv"));
        QVERIFY(csv.open(QIODevice::ReadOnly));
        const QStringList lines = QString::fromUtf8(csv.readAll()).split('\n', Qt::SkipEmptyParts);
        QVERIFY2(lines.first().endsWith(",dataset"), qPrintable(lines.first()));
        QSet<QString> pairs;
        for (const QString& l : lines.mid(1))
            pairs.insert(l.section(',', 0, 0) + " " + l.section(',', -1));
        QCOMPARE(pairs, (QSet<QString>{"1 moons", "2 circles"}));
    }
#endif
};

QTEST_GUILESS_MAIN(TestCliSuite)
#include "tst_cli_suite.moc"
