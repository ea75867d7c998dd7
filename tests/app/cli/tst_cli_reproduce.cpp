// trainbench-cli reproduce as a user runs it, end to end on a tiny claims file (two moons, ridge,
// seconds): a claim that holds, one that does not (a figure no linear model reaches on noisy
// moons), one whose data file is absent and one whose catalogue set is not fetched (both
// inconclusive, the reason named), the verdict lines of the report, its chart, --resume training
// nothing the second time (runs counted in the store), --no-train's reports from the store, run
// facts read back from the store, --quick's declared subset, and the refusals: a malformed claims
// file (nothing runs, the message names the file, claim, key and value) and --worker-timeout without
// --mpi (--mpi itself: tst_cli_reproduce_mpi).

#include <CliProcess.h>

#include <QFile>
#include <QProcess>
#include <QRegularExpression>
#include <QSqlDatabase>
#include <QSqlQuery>
#include <QUuid>
#include <QtTest>

namespace {

using Output = tb::testsupport::CliOutput;

QByteArray fixture(const QString& name)
{
    QFile f(QStringLiteral(TB_FIXTURES_DIR "/claims/") + name);
    if (!f.open(QIODevice::ReadOnly))
        qFatal("cannot read the fixture %s", qPrintable(f.fileName()));
    return f.readAll();
}

} // namespace

class TestCliReproduce : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;
    QByteArray m_claims;

    Output cli(const QStringList& args)
    {
        // The CLI tests' environment (tests/support/CliProcess.h); no catalogue set is fetched in
        // its cache folder.
        QProcessEnvironment env =
            tb::testsupport::cliEnvironment(m_dir.filePath("home"), QStringLiteral(TB_PLUGIN_BUILD_DIR));
        env.insert("TRAINBENCH_NO_HUGEPAGES", "1");
        QProcess p;
        p.setProcessEnvironment(env);
        p.setWorkingDirectory(m_dir.path());
        p.start(QStringLiteral(TB_BIN_DIR "/trainbench-cli"), args);
        return tb::testsupport::finishProcess(p, 240000);
    }

    QString write(const QString& name, const QByteArray& bytes)
    {
        QDir(m_dir.path()).mkpath(QFileInfo(m_dir.filePath(name)).path());
        QFile f(m_dir.filePath(name));
        if (!f.open(QIODevice::WriteOnly) || f.write(bytes) != bytes.size())
            qFatal("cannot write %s", qPrintable(f.fileName()));
        return f.fileName();
    }

    QString read(const QString& name)
    {
        QFile f(m_dir.filePath(name));
        return f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()) : QString();
    }

    qint64 count(const QString& db, const QString& sql)
    {
        const QString name = QUuid::createUuid().toString();
        qint64 n = -1;
        {
            QSqlDatabase c = QSqlDatabase::addDatabase("QSQLITE", name);
            c.setDatabaseName(db);
            if (c.open()) {
                QSqlQuery q(c);
                if (q.exec(sql) && q.next())
                    n = q.value(0).toLongLong();
            }
        }
        QSqlDatabase::removeDatabase(name);
        return n;
    }

    // Claim id → the verdict of its "**Verdict: …**" line, and the text after it.
    static QMap<QString, QString> verdicts(const QString& md)
    {
        QMap<QString, QString> out;
        QString current;
        static const QRegularExpression verdict(QStringLiteral("^\\*\\*Verdict: ([a-z ]+)\\*\\* — (.*)$"));
        for (const QString& line : md.split('\n')) {
            if (line.startsWith("### "))
                current = line.mid(4).trimmed();
            else if (const auto m = verdict.match(line); m.hasMatch() && !current.isEmpty())
                out.insert(current, m.captured(1) + " | " + m.captured(2));
        }
        return out;
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        // tests/fixtures/claims: the claims file and the experiment it names by a relative path.
        write("claims/experiments/moons.json", fixture("experiments/moons.json"));
        m_claims = fixture("toy.json");
        write("claims/toy.json", m_claims);
    }

    void reproducesAndReportsVerdicts()
    {
        const QString db = m_dir.filePath("runs.sqlite");
        const Output o = cli({"reproduce", "claims/toy.json", "--out", "out", "--db", db, "--quiet"});
        QVERIFY2(o.code == 0, qPrintable(o.err));
        const QString md = read("out/toy.md");
        QVERIFY2(!md.isEmpty(), "no report written");
        const QMap<QString, QString> v = verdicts(md);
        QCOMPARE(v.size(), 4);
        QVERIFY2(v.value("ridge-holds").startsWith("holds |"), qPrintable(v.value("ridge-holds")));
        QVERIFY2(v.value("ridge-unreachable").startsWith("does not hold |"),
                 qPrintable(v.value("ridge-unreachable")));
        QVERIFY2(v.value("file-absent").startsWith("inconclusive |") &&
                     v.value("file-absent")
                         .contains("data absent: dataset.file: " + m_dir.filePath("claims/not-here.csv") +
                                   " does not exist"),
                 qPrintable(v.value("file-absent")));
        QVERIFY2(v.value("catalogue-absent").startsWith("inconclusive |") &&
                     v.value("catalogue-absent").contains("catalogue data set(s) mnist") &&
                     v.value("catalogue-absent").contains("trainbench-cli datasets fetch mnist"),
                 qPrintable(v.value("catalogue-absent")));
        // The header: command, machine, version; each claim its reading, figure, n and chart.
        QVERIFY(md.contains("- Command: `trainbench-cli reproduce claims/toy.json --out out --db "));
        QVERIFY(md.contains("- Machine: ") && md.contains(" core(s)"));
        QVERIFY(md.contains(QRegularExpression("- Trainbench [0-9.]+ \\(git [0-9a-z]+(-dirty)?\\)")));
        QVERIFY(md.contains("- Reading *moons*: Two moons stand in for the paper's data."));
        QVERIFY(md.contains("- Paper's figure: 99.90 %"));
        QVERIFY(md.contains(", n = 5 (of 5 asked for)"));
        QVERIFY(md.contains("![moons for reproduce](toy-1.png)"));
        QVERIFY(QFileInfo(m_dir.filePath("out/toy-1.png")).size() > 1000);
        QVERIFY(o.out.contains("ridge-holds: holds"));
        // 5 seeds × 2 algorithms, once for both claims: the absent data trained nothing.
        QCOMPARE(count(db, "select count(*) from runs"), 10);
        QCOMPARE(count(db, "select count(*) from experiments"), 1);
    }

    void resumeTrainsNothingTheSecondTime()
    {
        const QString db = m_dir.filePath("runs.sqlite");
        const qint64 before = count(db, "select count(*) from runs");
        QVERIFY(before > 0);
        const Output o =
            cli({"reproduce", "claims/toy.json", "--out", "out", "--db", db, "--quiet", "--resume"});
        QVERIFY2(o.code == 0, qPrintable(o.err));
        QCOMPARE(count(db, "select count(*) from runs"), before);
        const QString md = read("out/toy.md");
        QVERIFY(md.contains("read back, nothing left to train"));
        // Trained by the first command, not this one: the report says when and by which build.
        QVERIFY2(md.contains(QRegularExpression("- Runs: 10 run\\(s\\) trained 20[0-9-]+ [0-9:]+ – 20[0-9-]+ [0-9:]+ "
                                                "UTC by git [0-9a-z]+(-dirty)?\n")),
                 qPrintable(md));
        QVERIFY(verdicts(md).value("ridge-holds").startsWith("holds"));
        // --no-train writes the same report from the store and trains nothing; on a database that
        // holds nothing, every claim says why it was not run.
        const Output readBack = cli({"reproduce", "claims/toy.json", "--out", "out-read", "--db", db, "--quiet", "--no-train"});
        QVERIFY2(readBack.code == 0, qPrintable(readBack.err));
        QCOMPARE(count(db, "select count(*) from runs"), before);
        const QString readMd = read("out-read/toy.md");
        QCOMPARE(verdicts(readMd).value("ridge-holds"), verdicts(md).value("ridge-holds"));
        QCOMPARE(verdicts(readMd).value("ridge-unreachable"), verdicts(md).value("ridge-unreachable"));
        const QString emptyDb = m_dir.filePath("empty.sqlite");
        const Output none =
            cli({"reproduce", "claims/toy.json", "--out", "out-none", "--db", emptyDb, "--quiet", "--no-train"});
        QVERIFY2(none.code == 0, qPrintable(none.err));
        QCOMPARE(count(emptyDb, "select count(*) from runs"), 0);
        const QString ridge = verdicts(read("out-none/toy.md")).value("ridge-holds");
        QVERIFY2(ridge.startsWith("inconclusive |") && ridge.contains("--no-train"), qPrintable(ridge));
        // A part-trained experiment (Ridge's runs not trained yet): its claims say so, and that is
        // not a malformed claims file (exit 0, not 3).
        const QString partDb = m_dir.filePath("part.sqlite");
        QFile::remove(partDb);
        QVERIFY(QFile::copy(db, partDb));
        count(partDb, "delete from metrics where run_id in (select id from runs where algorithm_name = 'Ridge')");
        count(partDb, "delete from runs where algorithm_name = 'Ridge'");
        QCOMPARE(count(partDb, "select count(*) from runs where algorithm_name = 'Ridge'"), 0);
        const Output part =
            cli({"reproduce", "claims/toy.json", "--out", "out-part", "--db", partDb, "--quiet", "--no-train"});
        QVERIFY2(part.code == 0, qPrintable(part.err));
        const QString partRidge = verdicts(read("out-part/toy.md")).value("ridge-holds");
        QVERIFY2(partRidge.startsWith("inconclusive |") && partRidge.contains("partly trained") &&
                     partRidge.contains("no configuration \"Ridge\""),
                 qPrintable(partRidge));
        // Part of Ridge's seeds trained (2 of 5): no verdict on two seeds — the claim says how many
        // it has of how many, and the experiment line that it was read back part-trained.
        const QString fewDb = m_dir.filePath("few.sqlite");
        QFile::remove(fewDb);
        QVERIFY(QFile::copy(db, fewDb));
        count(fewDb, "delete from metrics where run_id in (select id from runs where algorithm_name = 'Ridge' order by id limit 3)");
        count(fewDb, "delete from runs where id in (select id from runs where algorithm_name = 'Ridge' order by id limit 3)");
        const Output few = cli({"reproduce", "claims/toy.json", "--out", "out-few", "--db", fewDb, "--quiet", "--no-train"});
        QVERIFY2(few.code == 0, qPrintable(few.err));
        const QString fewMd = read("out-few/toy.md");
        const QString fewRidge = verdicts(fewMd).value("ridge-holds");
        QVERIFY2(fewRidge.startsWith("inconclusive |") && fewRidge.contains("partly trained (7 of 10 runs finished)") &&
                     fewRidge.contains("n = 2 of the 5 the claim asks for"),
                 qPrintable(fewRidge));
        QVERIFY2(fewMd.contains("read back as it is: experiment 1 is partly trained (7 of 10 runs finished)"), qPrintable(fewMd));
        // A run that failed is a result, not a run still to train: the claim is decided on the
        // seeds that finished and says how many did not.
        const QString failDb = m_dir.filePath("fail.sqlite");
        QFile::remove(failDb);
        QVERIFY(QFile::copy(db, failDb));
        count(failDb, "update runs set status = 'failed', error = 'diverged on purpose' where id = "
                      "(select min(id) from runs where algorithm_name = 'Ridge')");
        const Output failed = cli({"reproduce", "claims/toy.json", "--out", "out-fail", "--db", failDb, "--quiet", "--no-train"});
        QVERIFY2(failed.code == 0, qPrintable(failed.err));
        const QString failMd = read("out-fail/toy.md");
        QVERIFY2(verdicts(failMd).value("ridge-holds").startsWith("holds |"), qPrintable(verdicts(failMd).value("ridge-holds")));
        QVERIFY2(failMd.contains("**1 run(s) did not finish**") && failMd.contains("read back, nothing left to train"),
                 qPrintable(failMd));
        // Without --resume the claims are measured again: a new experiment.
        const Output again = cli({"reproduce", "claims/toy.json", "--out", "out", "--db", db, "--quiet"});
        QVERIFY2(again.code == 0, qPrintable(again.err));
        QCOMPARE(count(db, "select count(*) from runs"), 2 * before);
    }

    void factClaimsReadTheStoredRuns()
    {
        // Run facts read back from the store (--resume trains nothing): the host's fact
        // final.test_accuracy is the final test accuracy, so the fact claim measures what the
        // final claim measures; a ratio against BPLS pairs the runs by seed. A fact path no run
        // has is an error naming the file, the claim and the fact: exit 3.
        const QString db = m_dir.filePath("runs.sqlite");
        const qint64 before = count(db, "select count(*) from runs");
        QVERIFY(before > 0);
        const QByteArray claims = R"({"paper": "facts", "title": "Facts", "claims": [
            {"id": "ridge-final", "quote": "q", "figure": {"value": 0.5, "unit": "accuracy"}, "experiment": "experiments/moons.json",
             "statistic": {"kind": "final", "algorithm": "Ridge"}, "n": 5, "verdict": {"rule": "mean_ci_above"}},
            {"id": "ridge-fact", "quote": "q", "figure": {"value": 0.5, "unit": "accuracy"}, "experiment": "experiments/moons.json",
             "statistic": {"kind": "fact", "algorithm": "Ridge", "fact": "final.test_accuracy"}, "n": 5,
             "verdict": {"rule": "mean_ci_above"}},
            {"id": "ridge-over-bpls", "quote": "q", "figure": {"value": 0.01, "unit": "x"}, "experiment": "experiments/moons.json",
             "statistic": {"kind": "fact_ratio", "algorithm": "Ridge", "against": "BPLS", "fact": "final.test_accuracy"},
             "n": 5, "verdict": {"rule": "ratio_at_least"}}]})";
        write("claims/facts.json", claims);
        const Output o =
            cli({"reproduce", "claims/facts.json", "--out", "out", "--db", db, "--quiet", "--resume"});
        QVERIFY2(o.code == 0, qPrintable(o.err));
        QCOMPARE(count(db, "select count(*) from runs"), before);
        const QString md = read("out/facts.md");
        const QMap<QString, QString> v = verdicts(md);
        for (const char* id : {"ridge-final", "ridge-fact", "ridge-over-bpls"})
            QVERIFY2(v.value(id).startsWith("holds |"), qPrintable(id + QStringLiteral(": ") + v.value(id)));
        // The summary rows' measured cells: the same mean and interval from the fact as from the metric.
        auto measured = [&](const QString& id) {
            const QRegularExpression row(
                QStringLiteral("^\\| \\[%1\\]\\(#%1\\) \\|[^|]*\\|[^|]*\\| ([^|]+) \\|")
                    .arg(QRegularExpression::escape(id)),
                QRegularExpression::MultilineOption);
            return row.match(md).captured(1);
        };
        QVERIFY2(!measured("ridge-final").isEmpty() && measured("ridge-final") == measured("ridge-fact"),
                 qPrintable(measured("ridge-final") + " / " + measured("ridge-fact")));

        QByteArray wrong = claims;
        wrong.replace("\"fact\": \"final.test_accuracy\"}, \"n\": 5,",
                      "\"fact\": \"final.test_acc\"}, \"n\": 5,");
        QVERIFY(wrong.contains("final.test_acc\""));
        const QString path = write("claims/facts-wrong.json", wrong);
        const Output w =
            cli({"reproduce", "claims/facts-wrong.json", "--out", "out", "--db", db, "--quiet", "--resume"});
        QCOMPARE(w.code, 3);
        QVERIFY2(w.err.contains(path +
                                ": claims[1] (\"ridge-fact\").statistic: fact \"final.test_acc\": no key "
                                "\"test_acc\" in final"),
                 qPrintable(w.err));
        QCOMPARE(count(db, "select count(*) from runs"), before);
    }

    void quickRunsTheDeclaredSubset()
    {
        const QString db = m_dir.filePath("quick.sqlite");
        const Output o =
            cli({"reproduce", "claims/toy.json", "--out", "out", "--db", db, "--quiet", "--quick"});
        QVERIFY2(o.code == 0, qPrintable(o.err));
        const QString md = read("out/toy-quick.md");
        QVERIFY(md.contains("**Quick mode**"));
        QVERIFY(md.contains("- Quick variant: two seeds"));
        const QMap<QString, QString> v = verdicts(md);
        QVERIFY2(v.value("ridge-unreachable").contains("not in the --quick subset"),
                 qPrintable(v.value("ridge-unreachable")));
        QVERIFY(md.contains(", n = 2 (of 2 asked for)"));
        QCOMPARE(count(db, "select count(*) from runs"), 4); // 2 seeds × 2 algorithms
    }

    void malformedFileRunsNothing()
    {
        QByteArray bad = m_claims;
        bad.replace("\"kind\": \"final\", \"algorithm\": \"Ridge\"}, \"n\": 5,\n     \"verdict\": {\"rule\": "
                    "\"mean_ci_contains_or_exceeds\"}, \"readings\"",
                    "\"kind\": \"final\", \"algorithm\": \"Ridge\"}, \"n\": 3,\n     \"verdict\": {\"rule\": "
                    "\"mean_ci_contains_or_exceeds\"}, \"readings\"");
        QVERIFY(bad != m_claims);
        const QString path = write("claims/bad.json", bad);
        const QString db = m_dir.filePath("bad.sqlite");
        const Output o = cli({"reproduce", "claims/bad.json", "--out", "out-bad", "--db", db, "--quiet"});
        QCOMPARE(o.code, 3);
        QVERIFY2(
            o.err.contains(path + ": claims[0] (\"ridge-holds\").n: 3 seeds: a claim needs at least 5 seeds"),
            qPrintable(o.err));
        QVERIFY(!QFileInfo::exists(db));
        QVERIFY(!QFileInfo::exists(m_dir.filePath("out-bad/toy.md")));

        // A configuration the experiment does not have is found against the results: named, exit 3.
        QByteArray typo = m_claims;
        typo.replace("\"Ridge gets 99.9 %\"", "\"Ridge gets 99.9 % (typo)\"");
        typo.replace("\"statistic\": {\"kind\": \"final\", \"algorithm\": \"Ridge\"}, \"n\": 5,\n     "
                     "\"verdict\": {\"rule\": \"mean_ci_contains_or_exceeds\"}},",
                     "\"statistic\": {\"kind\": \"final\", \"algorithm\": \"Ridg\"}, \"n\": 5,\n     "
                     "\"verdict\": {\"rule\": \"mean_ci_contains_or_exceeds\"}},");
        QVERIFY(typo.contains("\"Ridg\""));
        const QString typoPath = write("claims/typo.json", typo);
        const Output t = cli({"reproduce", "claims/typo.json", "--out", "out-typo", "--db",
                              m_dir.filePath("typo.sqlite"), "--quiet"});
        QCOMPARE(t.code, 3);
        QVERIFY2(t.err.contains(typoPath +
                                ": claims[1] (\"ridge-unreachable\").statistic: no configuration \"Ridg\"") &&
                     t.err.contains("Ridge, BPLS"),
                 qPrintable(t.err));
    }

    void shippedClaimsFilesCheck()
    {
        // The papers' files against the real plugins: every experiment builds and validates.
        const QDir dir(QStringLiteral(TB_SOURCE_DIR "/resources/claims"));
        QStringList args{"reproduce", "--check"};
        for (const QString& f : dir.entryList({"*.json"}, QDir::Files))
            args << dir.filePath(f);
        QVERIFY(args.size() > 2);
        const Output o = cli(args);
        QVERIFY2(o.code == 0, qPrintable(o.err + o.out));
        QVERIFY2(o.out.contains("every file is valid"), qPrintable(o.out));
        // Data the papers used that is not here is named, never dropped.
        QVERIFY2(o.out.contains("not run: data absent: the catalogue data set(s) mnist"), qPrintable(o.out));
        const Output quick = cli(args << "--quick");
        QVERIFY2(quick.code == 0, qPrintable(quick.err + quick.out));
    }

    void workerTimeoutGoesWithMpi()
    {
        // --mpi itself: tst_cli_reproduce_mpi (only in the MPI build).
        const Output o = cli({"reproduce", "claims/toy.json", "--worker-timeout", "10"});
        QCOMPARE(o.code, 2);
        QVERIFY2(o.err.contains("--worker-timeout goes with --mpi"), qPrintable(o.err));
    }
};

QTEST_GUILESS_MAIN(TestCliReproduce)
#include "tst_cli_reproduce.moc"
