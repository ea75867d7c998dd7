// trainbench-cli where issue 32 found it short of its own standard, driven as a user drives it:
//  - a network too large for the memory this process may use is refused before it is allocated,
//    as bad input (exit 3), naming the bytes and the parameter that sizes them;
//  - no library noise on stderr (Qt's "XDG_RUNTIME_DIR not set" when there is no session);
//  - a cancelled classification run without a checkpoint is summarised in accuracy's words;
//  - plugin folders that other users can write to are refused unless trusted explicitly, and a
//    plugin that replaces another of the same id is announced at the start of `list`, by `run`
//    and in the run's facts;
//  - a run whose process was killed is shown as interrupted by every reader, not as running.
#include <CliProcess.h>
#include <store/RunStore.h>

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QtTest>

#include <csignal>
#include <sys/stat.h>

using namespace tb;

namespace {

/// The CLI under test: this build's, or another's named by TB_CLI_UNDER_TEST (e.g. main's, to see
/// these checks fail where the issue was found).
QString cliPath()
{
    return qEnvironmentVariable("TB_CLI_UNDER_TEST", QStringLiteral(TB_BIN_DIR "/trainbench-cli"));
}

struct Output {
    int code = -1;
    QString out, err;
};

} // namespace

class TestCliReliability : public QObject {
    Q_OBJECT
private:
    QTemporaryDir m_dir;

    // The environment of a user without a desktop session: no XDG_RUNTIME_DIR, the build's
    // plugins and the engine test's trainers, isolated from the user's files.
    QProcessEnvironment environment(const QString& pluginPath = {}) const
    {
        QProcessEnvironment env = tb::testsupport::cliEnvironment(
            m_dir.filePath("home"),
            pluginPath.isEmpty() ? QStringLiteral(TB_TEST_PLUGIN_DIR ":" TB_PLUGIN_BUILD_DIR) : pluginPath);
        env.remove("XDG_RUNTIME_DIR");
        env.remove("TRAINBENCH_TRUST_PLUGIN_DIRS");
        env.remove("TRAINBENCH_MEMORY_LIMIT");
        return env;
    }

    Output cli(const QStringList& args, const QProcessEnvironment& env)
    {
        QProcess p;
        p.setProcessEnvironment(env);
        p.start(cliPath(), args);
        Output o;
        if (!p.waitForFinished(120000))
            return o;
        o.code = p.exitCode();
        o.out = QString::fromUtf8(p.readAllStandardOutput());
        o.err = QString::fromUtf8(p.readAllStandardError());
        return o;
    }
    Output cli(const QStringList& args) { return cli(args, environment()); }

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

    // Starts `trainbench-cli run SPEC --db DB` and waits until the store holds a running run.
    bool startRunAndWaitForARunningRow(QProcess& p, const QString& spec, const QString& db)
    {
        p.setProcessEnvironment(environment());
        p.start(cliPath(), {"run", spec, "--db", db, "--quiet"});
        if (!p.waitForStarted())
            return false;
        return QTest::qWaitFor(
            [&] {
                if (!QFileInfo::exists(db))
                    return false;
                RunStore::Options o;
                o.readOnly = true;
                QString error;
                auto store = RunStore::open(db, o, &error);
                if (!store)
                    return false;
                for (const RunRecord& r : store->runs())
                    if (r.status == RunStatus::Running)
                        return true;
                return false;
            },
            60000);
    }

private Q_SLOTS:
    // Item 3: what the CLI prints on stderr is about the user's work, also without a session.
    void noLibraryNoiseWithoutASession()
    {
        const QString spec = writeSpec("quiet.json", R"({"name": "quiet", "kind": "learning-curve", "threads": 1,
            "dataset": {"source": "moons", "samples": 60, "noise": 0.1},
            "algorithms": [{"id": "test.mean", "label": "Mean"}]})");
        const QList<QStringList> commands = {
            {"--version"},
            {"list"},
            {"runs", "--db", m_dir.filePath("missing/none.sqlite")},      // an error message scripts parse
            {"run", spec, "--db", m_dir.filePath("quiet.sqlite"), "--quiet", "--plot", m_dir.filePath("quiet.png")},
        };
        for (const QStringList& args : commands) {
            const Output o = cli(args);
            const QString what = args.join(' ') + ": " + o.err;
            QVERIFY2(o.code >= 0, qPrintable(what));
            QVERIFY2(!o.err.contains("XDG_RUNTIME_DIR"), qPrintable(what));
            QVERIFY2(!o.err.contains("QStandardPaths"), qPrintable(what));
            for (const QString& line : o.err.split('\n', Qt::SkipEmptyParts))
                QVERIFY2(!line.startsWith("qt.") && !line.startsWith("QFont") && !line.startsWith("This plugin"),
                         qPrintable(what));
        }
        // The missing database is still reported, as the first line of stderr.
        const Output missing = cli({"runs", "--db", m_dir.filePath("missing/none.sqlite")});
        QVERIFY2(missing.err.startsWith("trainbench-cli: "), qPrintable(missing.err));
    }

    // Item 1: a network too large for this process is bad input, refused before it is allocated.
    void networkTooLargeForMemoryIsRefusedBeforeItStarts()
    {
        const QString db = m_dir.filePath("memory.sqlite");
        const QString spec = writeSpec("memory.json", R"({"name": "memory", "kind": "learning-curve", "threads": 1,
            "dataset": {"source": "moons", "samples": 200, "noise": 0.1},
            "algorithms": [{"id": "gradient.adam", "label": "Adam", "params": {"hidden": [2000, 2000], "epochs": 1}}]})");
        QProcessEnvironment env = environment();
        env.insert("TRAINBENCH_MEMORY_LIMIT", "16M");
        const Output o = cli({"run", spec, "--db", db, "--quiet"}, env);
        QVERIFY2(o.code == 3, qPrintable(QStringLiteral("exit %1\n%2\n%3").arg(o.code).arg(o.out, o.err)));
        const QString refusal = linesWith(o.err, "Adam: gradient.adam needs").value(0);
        QVERIFY2(QRegularExpression(R"(^Adam: gradient\.adam needs [0-9.]+ MiB of working memory for 140×2 → 2 classes, but )"
                                    R"(only 16\.0 MiB is available to this process \(TRAINBENCH_MEMORY_LIMIT=16M\); sized by )"
                                    R"(hidden = \[2000, 2000\] \(its default, \[\d+\], needs [0-9.]+ [KM]iB\))")
                     .match(refusal)
                     .hasMatch(),
                 qPrintable(o.err));
        QVERIFY2(!o.out.contains("Adam "), qPrintable(o.out)); // no run line: nothing ran

        // A param sweep names the configuration that does not fit.
        const QString sweep = writeSpec("memory-sweep.json", R"({"name": "memory", "kind": "param-sweep", "threads": 1,
            "dataset": {"source": "moons", "samples": 200, "noise": 0.1},
            "algorithms": [{"id": "gradient.adam", "label": "Adam", "params": {"epochs": 1}}],
            "sweep": {"grid": {"hidden": [[4], [2000, 2000]]}}})");
        const Output s = cli({"run", sweep, "--db", db, "--quiet"}, env);
        QCOMPARE(s.code, 3);
        QVERIFY2(s.err.contains("Adam hidden=[2000,2000]: gradient.adam needs") &&
                     s.err.contains("sized by hidden = [2000, 2000] (its default, [50], needs"),
                 qPrintable(s.err));

        // Nothing was stored: the database holds no experiment.
        const Output runs = cli({"runs", "--db", db});
        QVERIFY2(runs.out.contains("No experiments in"), qPrintable(runs.out));
    }

    // Item 5: plugins are code. A folder others can write to is refused (unless trusted
    // explicitly), and a plugin that replaces another of its id is announced where it is seen.
    void pluginFoldersOthersCanWriteToAreRefusedAndReplacementsAnnounced()
    {
        const QString folder = m_dir.filePath("shared-plugins");
        QVERIFY(QDir().mkpath(folder));
        QVERIFY(QFile::copy(QStringLiteral(TB_PLUGIN_BUILD_DIR "/trainbench-linear.so"), folder + "/trainbench-linear.so"));
        QCOMPARE(::chmod(QFile::encodeName(folder).constData(), 0777), 0);
        const QString path = folder + ":" TB_TEST_PLUGIN_DIR ":" TB_PLUGIN_BUILD_DIR;

        // Refused: said first, and the built-in plugin is the one used.
        const Output refused = cli({"list"}, environment(path));
        QCOMPARE(refused.code, 0);
        QVERIFY2(refused.out.startsWith("Notice: plugin folder " + folder + " refused: the plugin folder " + folder +
                                        " is writable by every user (mode 0777)"),
                 qPrintable(refused.out.left(600)));
        QVERIFY2(refused.out.contains("TRAINBENCH_TRUST_PLUGIN_DIRS=" + folder), qPrintable(refused.out.left(600)));
        QVERIFY2(refused.out.contains("Plugins are code: they run with your rights. Plugin folders, searched in this "
                                      "order:\n  " + folder + "  (refused: "),
                 qPrintable(refused.out.left(1200)));
        QVERIFY2(refused.out.contains("(linear 2.0.0)  " TB_PLUGIN_BUILD_DIR "/trainbench-linear.so"), qPrintable(refused.out));
        const QString spec = writeSpec("ridge.json", R"({"name": "ridge", "kind": "learning-curve", "threads": 1,
            "dataset": {"source": "moons", "samples": 100, "noise": 0.1},
            "algorithms": [{"id": "linear.ridge", "label": "Ridge"}]})");
        const Output run = cli({"run", spec, "--no-db", "--quiet"}, environment(path));
        QCOMPARE(run.code, 0);
        QVERIFY2(run.err.startsWith("warning: plugin folder " + folder + " refused"), qPrintable(run.err));

        // Trusted explicitly: loaded, and the copy replacing the built-in plugin is announced at the
        // start of `list`, by `run`, and in the run's facts.
        QProcessEnvironment trusting = environment(path);
        trusting.insert("TRAINBENCH_TRUST_PLUGIN_DIRS", folder);
        const QString replaced = QStringLiteral("plugin \"linear\" 2.0.0 from %1/trainbench-linear.so replaces "
                                                TB_PLUGIN_BUILD_DIR "/trainbench-linear.so")
                                     .arg(folder);
        const Output listed = cli({"list"}, trusting);
        QCOMPARE(listed.code, 0);
        QVERIFY2(listed.out.startsWith("Notice: plugin folder " + folder + " loaded although"), qPrintable(listed.out.left(600)));
        QVERIFY2(linesWith(listed.out, "Notice:").join('\n').contains(replaced), qPrintable(listed.out.left(1200)));
        QVERIFY2(listed.out.contains("(linear 2.0.0)  " + folder + "/trainbench-linear.so\n  replaces " TB_PLUGIN_BUILD_DIR
                                     "/trainbench-linear.so"),
                 qPrintable(listed.out));
        const Output json = cli({"list", "--json"}, trusting);
        const QJsonObject root = QJsonDocument::fromJson(json.out.toUtf8()).object();
        QCOMPARE(root.value("folders").toArray().first().toObject().value("state").toString(), QStringLiteral("trusted"));
        QVERIFY(root.value("notices").toArray().contains(QJsonValue(replaced + " (the first folder of the search path wins)")));

        const QString db = m_dir.filePath("replaced.sqlite");
        const Output trustedRun = cli({"run", spec, "--db", db, "--quiet"}, trusting);
        QCOMPARE(trustedRun.code, 0);
        QVERIFY2(linesWith(trustedRun.err, "warning: ").join('\n').contains(replaced), qPrintable(trustedRun.err));
        const Output runs = cli({"runs", "--db", db, "--json"});
        const QJsonObject fact = QJsonDocument::fromJson(runs.out.toUtf8())
                                     .object()
                                     .value("experiments")[0]["runs"][0]["info"]["plugin_replaces"]
                                     .toObject();
        QCOMPARE(fact.value("file").toString(), folder + "/trainbench-linear.so");
        QCOMPARE(fact.value("replaces").toArray().first().toString(), QStringLiteral(TB_PLUGIN_BUILD_DIR "/trainbench-linear.so"));
    }

    // Item 4: a classification run stopped before its first checkpoint speaks of accuracy.
    void cancelledClassificationWithoutCheckpointSpeaksOfAccuracy()
    {
        const QString spec = writeSpec("cancel.json", R"({"name": "cancel", "kind": "learning-curve", "threads": 1,
            "dataset": {"source": "moons", "samples": 100, "noise": 0.1},
            "algorithms": [{"id": "test.sleepy", "label": "Sleepy", "params": {"epochs": 1, "epoch_ms": 600000}}]})");
        const QString db = m_dir.filePath("cancel.sqlite");
        QProcess p;
        QVERIFY(startRunAndWaitForARunningRow(p, spec, db));
        QCOMPARE(::kill(pid_t(p.processId()), SIGINT), 0);
        QVERIFY(p.waitForFinished(60000));
        QCOMPARE(p.exitCode(), 5); // stopped by the user
        const QString out = QString::fromUtf8(p.readAllStandardOutput());
        const QStringList lines = linesWith(out, "Sleepy ");
        QCOMPARE(lines.size(), 1);
        QVERIFY2(lines.first().contains("cancelled"), qPrintable(out));
        QVERIFY2(lines.first().contains("train acc -  test acc -"), qPrintable(out));
        QVERIFY2(!lines.first().contains("RMSE"), qPrintable(out));
        QVERIFY2(lines.first().contains("no checkpoint"), qPrintable(out));
        // And says how to go on.
        const QString err = QString::fromUtf8(p.readAllStandardError());
        QVERIFY2(err.contains(QStringLiteral("`trainbench-cli run %1 --db %2 --resume` trains the rest").arg(spec, db)),
                 qPrintable(err));

        // A regression run stopped the same way speaks of RMSE.
        const QString regression = writeSpec("cancel-reg.json", R"({"name": "cancel", "kind": "learning-curve",
            "threads": 1, "dataset": {"source": "friedman1", "samples": 100},
            "algorithms": [{"id": "test.sleepy", "label": "Sleepy", "params": {"epochs": 1, "epoch_ms": 600000}}]})");
        const QString db2 = m_dir.filePath("cancel-reg.sqlite");
        QProcess q;
        QVERIFY(startRunAndWaitForARunningRow(q, regression, db2));
        QCOMPARE(::kill(pid_t(q.processId()), SIGINT), 0);
        QVERIFY(q.waitForFinished(60000));
        const QString out2 = QString::fromUtf8(q.readAllStandardOutput());
        QVERIFY2(linesWith(out2, "Sleepy ").value(0).contains("train RMSE -  test RMSE -"), qPrintable(out2));
    }

    // Stop during a suite's first set: the set's rows are kept, no other set starts, and the
    // command that trains the rest is said.
    void stopDuringASuiteStartsNoOtherSetAndSaysHowToGoOn()
    {
        const QString spec = writeSpec("suite-stop.json", R"({"name": "suite stop", "kind": "learning-curve",
            "threads": 1, "datasets": [
                {"name": "a", "dataset": {"source": "moons", "samples": 100, "noise": 0.1, "seed": 1}},
                {"name": "b", "dataset": {"source": "moons", "samples": 100, "noise": 0.1, "seed": 2}}],
            "algorithms": [{"id": "test.sleepy", "label": "Sleepy", "params": {"epochs": 1, "epoch_ms": 600000}}]})");
        const QString db = m_dir.filePath("suite-stop.sqlite");
        QProcess p;
        QVERIFY(startRunAndWaitForARunningRow(p, spec, db));
        QCOMPARE(::kill(pid_t(p.processId()), SIGINT), 0);
        QVERIFY(p.waitForFinished(60000));
        QCOMPARE(p.exitCode(), 5);
        const QString err = QString::fromUtf8(p.readAllStandardError());
        QVERIFY2(err.contains(QStringLiteral("`trainbench-cli run %1 --db %2 --resume` trains the rest").arg(spec, db)),
                 qPrintable(err));
        QVERIFY2(!err.contains("Set 2 of 2"), qPrintable(err));
        const Output runs = cli({"runs", "--db", db, "--json"});
        const QJsonArray exps = QJsonDocument::fromJson(runs.out.toUtf8()).object().value("experiments").toArray();
        QCOMPARE(exps.size(), 1); // set b never started
        QCOMPARE(exps[0]["runs"][0]["status"].toString(), QStringLiteral("cancelled"));
    }

    // Item 6: a killed `run` leaves a row "running" in the file; every reader shows it interrupted.
    void killedRunIsShownInterruptedByEveryReader()
    {
        const QString spec = writeSpec("killed.json", R"({"name": "killed", "kind": "learning-curve", "threads": 1,
            "dataset": {"source": "moons", "samples": 100, "noise": 0.1},
            "algorithms": [{"id": "test.sleepy", "label": "Sleepy", "params": {"epochs": 1, "epoch_ms": 600000}}]})");
        const QString db = m_dir.filePath("killed.sqlite");
        QProcess p;
        QVERIFY(startRunAndWaitForARunningRow(p, spec, db));
        const qint64 pid = p.processId();

        // While it trains, `runs` names its owner and calls it running.
        const Output live = cli({"runs", "--db", db});
        QCOMPARE(live.code, 0);
        QVERIFY2(linesWith(live.out, "Sleepy").value(0).contains("running"), qPrintable(live.out));
        QVERIFY2(linesWith(live.out, "Sleepy").value(0).contains(QStringLiteral("pid %1").arg(pid)), qPrintable(live.out));

        // A store opened before the kill, as the workbench keeps its database open.
        QString error;
        auto store = RunStore::open(db, &error);
        QVERIFY2(store, qPrintable(error));
        QCOMPARE(store->runs().value(0).status, RunStatus::Running);

        QCOMPARE(::kill(pid_t(pid), SIGKILL), 0);
        QVERIFY(p.waitForFinished(60000));

        // `runs` opens the file read-only, so nothing rewrites the row: the reader must tell.
        const Output dead = cli({"runs", "--db", db});
        QCOMPARE(dead.code, 0);
        const QString line = linesWith(dead.out, "Sleepy").value(0);
        QVERIFY2(line.contains("interrupted") && !line.contains("running "), qPrintable(dead.out));
        QVERIFY2(line.contains(QStringLiteral("pid %1").arg(pid)), qPrintable(dead.out));
        const Output json = cli({"runs", "--db", db, "--json"});
        const QJsonObject run = QJsonDocument::fromJson(json.out.toUtf8())
                                    .object()
                                    .value("experiments")
                                    .toArray()
                                    .first()
                                    .toObject()
                                    .value("runs")
                                    .toArray()
                                    .first()
                                    .toObject();
        QCOMPARE(run.value("status").toString(), QStringLiteral("interrupted"));
        QCOMPARE(run.value("owner").toObject().value("pid").toInteger(), pid);

        // The store that was open all along reads the same row as interrupted now.
        const QList<RunRecord> runs = store->runs();
        QCOMPARE(runs.size(), 1);
        QCOMPARE(runs.first().status, RunStatus::Interrupted);
    }
};

QTEST_GUILESS_MAIN(TestCliReliability)
#include "tst_cli_reliability.moc"
