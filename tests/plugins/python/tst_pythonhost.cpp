// The Python trainer host (plugins/python) through the real registry and runner: the scripts of
// tests/fixtures/python listed as plugins (good ones loaded, broken ones with their reasons, a
// later copy shadowed, unsafe folders and files refused unread), experiments with Python and C++
// trainers side by side, the same seed giving the same curve, the schema's checks, Stop reaching a
// trainer that never polls, and every way a script can fail a run without harming the next.
#include <data/DataSource.h>
#include <engine/ExperimentRunner.h>
#include <engine/ExperimentSpec.h>
#include <engine/PluginRegistry.h>
#include <engine/Runner.h>
#include <store/RunStore.h>

#include <QCryptographicHash>
#include <QFile>
#include <QJsonArray>
#include <QTemporaryDir>
#include <QtTest>
#include <StopMeter.h>
#include <tbb/task_arena.h>

#include <atomic>
#include <cmath>
#include <sys/stat.h>
#include <thread>

using namespace tb;
using tb::testsupport::runAndStop;
using tb::testsupport::StopWhen;

namespace {

const QString kFixtures = QStringLiteral(TB_FIXTURES_DIR "/python");

std::shared_ptr<const data::DatasetPair> moons(int samples = 300)
{
    return std::make_shared<const data::DatasetPair>(
        data::DataSource::load(QJsonObject{{"source", "moons"}, {"samples", samples}, {"noise", 0.1}},
                               QString(), data::DataOverrides{{}, 3}));
}

RunJob job(const QString& id, QVariantMap params = {},
           std::shared_ptr<const data::DatasetPair> data = moons(), std::uint64_t seed = 1)
{
    RunJob j;
    j.algorithmId = id;
    j.label = id;
    j.params = std::move(params);
    j.seed = seed;
    j.data = std::move(data);
    j.datasetDescription = QStringLiteral("moons");
    j.threads = 2;
    return j;
}

ExperimentSpec parse(const QByteArray& json)
{
    QString err;
    auto s = ExperimentSpec::fromJson(json, "test", &err);
    if (!s)
        qFatal("%s", qPrintable(err));
    return *s;
}

/// "sha256:" and the first 16 hex digits of the file's SHA-256: what the host reports as version.
QString versionOf(const QString& path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return {};
    return "sha256:" +
           QString::fromLatin1(
               QCryptographicHash::hash(f.readAll(), QCryptographicHash::Sha256).toHex().left(16));
}

/// Notes the first checkpoint a run logs (the trainer is in its own code after it).
class FirstCheckpoint : public RunObserver {
public:
    void checkpointLogged(const RunJob&, qint64, const MetricPoint&) override { m_seen = true; }
    bool seen() const { return m_seen; }

private:
    std::atomic<bool> m_seen{false};
};

} // namespace

class TestPythonHost : public QObject {
    Q_OBJECT
private:
    PluginRegistry m_reg;
    QTemporaryDir m_dir;

    const PluginSpec* spec(const QString& file) const
    {
        for (const auto& p : m_reg.plugins())
            if (p->filePath == file)
                return p.get();
        return nullptr;
    }

    RunResult run(const RunJob& j, const StopSource& stop = {}, RunObserver* observer = nullptr) const
    {
        RunResult r;
        tbb::task_arena(2).execute([&] { r = Runner(m_reg, nullptr).execute(j, stop, observer); });
        return r;
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        qputenv("TRAINBENCH_PYTHON_PATH", QFile::encodeName(kFixtures + ":" + kFixtures + "/shadow"));
        qunsetenv("TRAINBENCH_TRUST_PLUGIN_DIRS");
        m_reg.scan({TB_PLUGIN_BUILD_DIR});
        QVERIFY2(m_reg.algorithm("linear.ridge"), "linear plugin not built in " TB_PLUGIN_BUILD_DIR);
        QVERIFY2(m_reg.algorithm("python.numpy_logistic"), "python plugin or its fixture not loaded");
    }

    void hostIsLoadedWithoutAlgorithmsOfItsOwn()
    {
        const PluginSpec* host = spec(QStringLiteral(TB_PLUGIN_BUILD_DIR "/trainbench-python.so"));
        QVERIFY(host);
        QVERIFY2(host->isLoaded(), qPrintable(host->stateName() + ": " + host->error));
        QCOMPARE(host->id, QStringLiteral("python"));
        QCOMPARE(host->family, QStringLiteral("python"));
        QVERIFY(host->algorithms.isEmpty());
    }

    void goodScriptsAreLoadedPlugins()
    {
        for (const QString stem :
             {"numpy_logistic", "numpy_ridge", "zero_copy", "busy_loop", "raises_in_fit"}) {
            const QString file = kFixtures + "/" + stem + ".py";
            const PluginSpec* s = spec(file);
            QVERIFY2(s, qPrintable(file + " not listed"));
            QVERIFY2(s->isLoaded(), qPrintable(file + ": " + s->stateName() + ": " + s->error));
            QCOMPARE(s->id, "python:" + stem);
            QCOMPARE(s->family, QStringLiteral("python"));
            QCOMPARE(s->version, versionOf(file));
            QVERIFY(s->factory);
            QCOMPARE(s->algorithms.size(), 1);
            QCOMPARE(s->algorithms[0].id, "python." + stem);
            const AlgorithmEntry* e = m_reg.algorithm("python." + stem);
            QVERIFY(e);
            QCOMPARE(e->plugin, s);
        }
        const AlgorithmEntry* logistic = m_reg.algorithm("python.numpy_logistic");
        QCOMPARE(logistic->info.name, QStringLiteral("NumPy logistic regression"));
        QVERIFY(logistic->info.classification && !logistic->info.regression);
        const ParamSchema& schema = logistic->info.schema;
        QCOMPARE(schema.size(), 5);
        QCOMPARE(schema.specs()[0].key, QStringLiteral("epochs")); // the dict's order
        const ParamSpec* lr = schema.find("lr");
        QVERIFY(lr);
        QCOMPARE(lr->type, ParamType::Real);
        QCOMPARE(lr->label, QStringLiteral("Learning rate"));
        QVERIFY(lr->exclusiveMinimum && lr->logScale);
        QCOMPARE(lr->minimum, 0.0);
        QCOMPARE(lr->maximum, 100.0);
        QCOMPARE(lr->defaultValue, QVariant(0.5));
        QVERIFY2(lr->help.startsWith("Step size. Default 0.5, > 0 and ≤ 100, log scale"),
                 qPrintable(lr->help));
        const ParamSpec* init = schema.find("init");
        QCOMPARE(init->type, ParamType::Choice);
        QCOMPARE(init->choices, QStringList({"zeros", "normal"}));
        QCOMPARE(schema.find("batch_size")->label, QStringLiteral("Batch size")); // from the key
        QCOMPARE(m_reg.plannedEpochs("python.numpy_logistic", {{"epochs", 7}}), 7.0);
        // A script without a description: its docstring's first line.
        QCOMPARE(
            m_reg.algorithm("python.busy_loop")->info.description,
            QStringLiteral("Never polls Stop: a busy loop in pure Python, whose `except Exception` must not "
                           "swallow Stop."));
    }

    void brokenScriptsAreListedWithTheirReasons_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QStringList>("reason");
        QTest::newRow("syntax") << "syntax_error.py"
                                << QStringList{"does not compile", "line 6", "SyntaxError"};
        QTest::newRow("import") << "import_error.py"
                                << QStringList{"line 3", "ModuleNotFoundError",
                                               "trainbench_no_such_module_for_tests"};
        QTest::newRow("no Trainer") << "no_trainer.py" << QStringList{"defines no class Trainer"};
        QTest::newRow("no predict") << "no_predict.py"
                                    << QStringList{"class Trainer (line 4)", "no method predict"};
        QTest::newRow("unknown type")
            << "bad_schema_type.py" << QStringList{"params[\"lr\"]", "unknown type \"float\""};
        QTest::newRow("min > max") << "bad_schema_range.py"
                                   << QStringList{"params[\"epochs\"]",
                                                  "\"min\" 10 is greater than \"max\" 1"};
        QTest::newRow("default outside")
            << "bad_schema_default.py" << QStringList{"params[\"lr\"]", "\"default\" 0 is invalid", "> 0"};
        QTest::newRow("choice default")
            << "bad_schema_choice.py"
            << QStringList{"params[\"loss\"]", "\"hinge\"", "\"squared\", \"logistic\""};
        QTest::newRow("file name") << "Bad-Name.py" << QStringList{"[a-z][a-z0-9_]*"};
    }
    void brokenScriptsAreListedWithTheirReasons()
    {
        QFETCH(QString, file);
        QFETCH(QStringList, reason);
        const PluginSpec* s = spec(kFixtures + "/" + file);
        QVERIFY2(s, qPrintable(file + " not listed"));
        QCOMPARE(s->state, PluginSpec::State::Invalid);
        QCOMPARE(s->family, QStringLiteral("python"));
        QVERIFY(s->algorithms.isEmpty() && !s->factory);
        for (const QString& part : reason)
            QVERIFY2(s->error.contains(part),
                     qPrintable(file + ": \"" + s->error + "\" lacks \"" + part + "\""));
        QVERIFY2(!s->error.contains('\n'), qPrintable(s->error)); // one line in listings
    }

    void laterCopyIsShadowed()
    {
        const PluginSpec* later = spec(kFixtures + "/shadow/numpy_ridge.py");
        QVERIFY(later);
        QCOMPARE(later->state, PluginSpec::State::Shadowed);
        QVERIFY2(later->error.contains(kFixtures + "/numpy_ridge.py"), qPrintable(later->error));
        const PluginSpec* first = spec(kFixtures + "/numpy_ridge.py");
        QCOMPARE(first->replaces, QStringList{kFixtures + "/shadow/numpy_ridge.py"});
        QCOMPARE(m_reg.algorithm("python.numpy_ridge")->plugin, first);
    }

    void unsafeFoldersAndFilesAreRefusedUnread()
    {
        // Each script writes a marker file when it runs: a refused one must leave none.
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString open = dir.filePath("open"), safe = dir.filePath("safe");
        QVERIFY(QDir().mkpath(open) && QDir().mkpath(safe));
        QCOMPARE(::chmod(QFile::encodeName(open).constData(), 0777), 0);
        QCOMPARE(::chmod(QFile::encodeName(safe).constData(), 0755), 0);
        const auto script = [&](const QString& path, const QString& marker, mode_t mode) {
            QFile f(path);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(QStringLiteral("open(%1, 'w').close()\n"
                                   "class Trainer:\n"
                                   "    def __init__(self, params): pass\n"
                                   "    def fit(self, data, ctx): ctx.checkpoint(1)\n"
                                   "    def predict(self, X): return X\n")
                        .arg("'" + marker + "'")
                        .toUtf8());
            f.close();
            QCOMPARE(::chmod(QFile::encodeName(path).constData(), mode), 0);
        };
        script(open + "/in_open_folder.py", dir.filePath("ran_open"), 0644);
        script(safe + "/writable_by_all.py", dir.filePath("ran_loose"), 0666);
        qputenv("TRAINBENCH_PYTHON_PATH", QFile::encodeName(open + ":" + safe));
        {
            PluginRegistry reg;
            reg.scan({TB_PLUGIN_BUILD_DIR});
            for (const QString& f : {open + "/in_open_folder.py", safe + "/writable_by_all.py"}) {
                const auto it = std::find_if(reg.plugins().begin(), reg.plugins().end(),
                                             [&](const auto& p) { return p->filePath == f; });
                QVERIFY2(it != reg.plugins().end(), qPrintable(f + " not listed"));
                QCOMPARE((*it)->state, PluginSpec::State::Refused);
                QVERIFY2((*it)->error.contains("writable by every user") &&
                             (*it)->error.contains("TRAINBENCH_TRUST_PLUGIN_DIRS"),
                         qPrintable((*it)->error));
                QVERIFY2(reg.notices().join("\n").contains(f), qPrintable(reg.notices().join("\n")));
            }
            QVERIFY(!QFile::exists(dir.filePath("ran_open")));
            QVERIFY(!QFile::exists(dir.filePath("ran_loose")));
        }
        // Trusted by the user: read and run.
        qputenv("TRAINBENCH_TRUST_PLUGIN_DIRS", QFile::encodeName(open));
        {
            PluginRegistry reg;
            reg.scan({TB_PLUGIN_BUILD_DIR});
            QVERIFY(reg.algorithm("python.in_open_folder"));
            QVERIFY(QFile::exists(dir.filePath("ran_open")));
            QVERIFY(!reg.algorithm("python.writable_by_all"));
        }
        qunsetenv("TRAINBENCH_TRUST_PLUGIN_DIRS");
        qputenv("TRAINBENCH_PYTHON_PATH", QFile::encodeName(kFixtures + ":" + kFixtures + "/shadow"));
    }

    void pythonAndCppTrainersRunInOneExperiment()
    {
        QString err;
        auto store = RunStore::open(m_dir.filePath("mixed.sqlite"), &err);
        QVERIFY2(store, qPrintable(err));
        const ExperimentSpec spec =
            parse(R"({"name": "mixed", "kind": "learning-curve", "seed": 5, "threads": 2,
            "dataset": {"source": "moons", "samples": 400, "noise": 0.1},
            "algorithms": [{"id": "python.numpy_logistic", "params": {"epochs": 30}},
                           {"id": "linear.ridge", "params": {"ridge": 0.001}},
                           {"id": "python.numpy_ridge"}]})");
        const ExperimentResult res = ExperimentRunner(m_reg, store.get()).run(spec);
        QVERIFY2(res.error.isEmpty(), qPrintable(res.error));
        QVERIFY2(res.runErrors.isEmpty(), qPrintable(res.runErrors.join("\n")));
        QCOMPARE(res.runsFinished, 3);
        for (const AlgorithmCurves& c : res.curves) {
            QCOMPARE(c.statuses.value(0), RunStatus::Finished);
            // A linear boundary separates two moons well above chance (85 % is typical).
            QVERIFY2(c.repeats[0].last().trainAccuracy > 0.8 && c.repeats[0].last().testAccuracy > 0.8,
                     qPrintable(QString("%1: %2 / %3")
                                    .arg(c.algorithmId)
                                    .arg(c.repeats[0].last().trainAccuracy)
                                    .arg(c.repeats[0].last().testAccuracy)));
        }
        QCOMPARE(res.curves[0].repeats[0].size(), 30); // a checkpoint per epoch
        QCOMPARE(res.curves[2].infos[0].value("rows").toInt(), res.curves[2].infos[0].value("rows").toInt());
        // The stored plugin version of a script is its content's hash.
        for (const RunRecord& r : store->runs(res.experimentId)) {
            if (!r.algorithmId.startsWith("python."))
                continue;
            QCOMPARE(r.pluginId, "python:" + r.algorithmId.mid(7));
            QCOMPARE(r.pluginVersion, versionOf(kFixtures + "/" + r.algorithmId.mid(7) + ".py"));
        }
    }

    void sameSeedSameCurve()
    {
        const ExperimentSpec spec =
            parse(R"({"kind": "learning-curve", "seed": 11, "repeats": 2, "threads": 2,
            "dataset": {"source": "gaussian_blobs", "samples": 300, "centers": 3, "features": 4},
            "algorithms": [{"id": "python.numpy_logistic", "params": {"epochs": 8, "batch_size": 16}}]})");
        const ExperimentResult a = ExperimentRunner(m_reg, nullptr).run(spec);
        const ExperimentResult b = ExperimentRunner(m_reg, nullptr).run(spec);
        QCOMPARE(a.runsFinished, 2);
        QCOMPARE(b.runsFinished, 2);
        for (int r = 0; r < 2; ++r) {
            const auto &pa = a.curves[0].repeats[r], &pb = b.curves[0].repeats[r];
            QCOMPARE(pa.size(), 8);
            QCOMPARE(pb.size(), pa.size());
            for (int i = 0; i < pa.size(); ++i) {
                QCOMPARE(pa[i].loss, pb[i].loss); // to the bit
                QCOMPARE(pa[i].trainAccuracy, pb[i].trainAccuracy);
                QCOMPARE(pa[i].testAccuracy, pb[i].testAccuracy);
            }
        }
        // The repeats' seeds differ, and so do their curves.
        QVERIFY(a.curves[0].repeats[0][0].loss != a.curves[0].repeats[1][0].loss);
        QVERIFY(a.curves[0].repeats[0].last().trainAccuracy > 0.9);
    }

    void schemaRefusesInvalidParameters()
    {
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, m_reg.create("python.numpy_logistic", {{"lr", 0.0}}));
        try {
            m_reg.create("python.numpy_logistic", {{"epochs", 0}});
            QFAIL("epochs = 0 accepted");
        } catch (const std::invalid_argument& e) {
            QVERIFY2(QString(e.what()).contains("\"epochs\""), e.what());
        }
        for (const auto& [params, key] :
             {std::pair{QVariantMap{{"lr", -1.0}}, QStringLiteral("lr")},
              std::pair{QVariantMap{{"init", "ones"}}, QStringLiteral("init")},
              std::pair{QVariantMap{{"epochs", 2.5}}, QStringLiteral("epochs")},
              std::pair{QVariantMap{{"no_such_key", 1}}, QStringLiteral("no_such_key")}}) {
            const RunResult r = run(job("python.numpy_logistic", params));
            QCOMPARE(r.status, RunStatus::Failed);
            QVERIFY2(r.error.contains(key), qPrintable(r.error));
        }
    }

    void stopReachesATrainerThatNeverPolls()
    {
        // busy_loop checkpoints once, then spins in pure Python inside `except Exception`: Stop
        // arrives as StopTraining (a BaseException) and the run is cancelled, within the promise.
        StopSource stop;
        FirstCheckpoint first;
        const RunJob j = job("python.busy_loop");
        const auto r = runAndStop(
            stop, StopWhen{.cpuMs = 100, .ready = [&] { return first.seen(); }, .readyCpuMs = 5000},
            [&] { return run(j, stop, &first); });
        QVERIFY(!r.endedBeforeStop);
        QVERIFY2(r.value.status == RunStatus::Cancelled,
                 qPrintable(runStatusName(r.value.status) + ": " + r.value.error));
        QVERIFY2(r.after.withinPromise(), qPrintable(r.after.describe()));
        qInfo("busy_loop, Stop: %s", qPrintable(r.after.describe()));
        QVERIFY2(r.value.info.value("log").toVariant().toStringList().join("\n").contains("StopTraining"),
                 qPrintable(QJsonDocument(r.value.info).toJson()));
    }

    void stopDoesNotLeakIntoTheNextRunOnTheSameThread()
    {
        // The same thread runs the stopped busy loop, then a good trainer, then predicts with it:
        // no StopTraining may be left pending for either.
        StopSource stop;
        FirstCheckpoint first;
        RunResult stopped, next;
        std::thread worker([&] {
            stopped = run(job("python.busy_loop"), stop, &first);
            next = run(job("python.numpy_logistic", {{"epochs", 5}}));
        });
        for (int i = 0; i < 6000 && !first.seen(); ++i)
            QThread::msleep(10);
        QVERIFY(first.seen());
        QThread::msleep(50);
        stop.requestStop();
        worker.join();
        QCOMPARE(stopped.status, RunStatus::Cancelled);
        QVERIFY2(next.status == RunStatus::Finished,
                 qPrintable(runStatusName(next.status) + ": " + next.error));
        QCOMPARE(next.points.size(), 5 + 0);
    }

    void exceptionFailsTheRunWithItsTraceback()
    {
        const ExperimentSpec spec = parse(R"({"kind": "learning-curve", "seed": 3, "threads": 2,
            "dataset": {"source": "moons", "samples": 200},
            "algorithms": [{"id": "python.raises_in_fit"}, {"id": "python.raises_in_init"},
                           {"id": "python.numpy_logistic", "params": {"epochs": 3}}]})");
        const ExperimentResult res = ExperimentRunner(m_reg, nullptr).run(spec);
        QCOMPARE(res.curves.size(), 3);
        QCOMPARE(res.curves[0].statuses.value(0), RunStatus::Failed);
        const QString error = res.curves[0].errors.value(0);
        QVERIFY2(
            error.startsWith("python.raises_in_fit: fit() raised ValueError: boom from the second epoch"),
            qPrintable(error));
        QVERIFY2(error.contains("Traceback (most recent call last)") &&
                     error.contains("raises_in_fit.py\", line 6, in _second_epoch") &&
                     error.contains("in fit"),
                 qPrintable(error));
        QCOMPARE(res.curves[1].statuses.value(0), RunStatus::Failed);
        QVERIFY2(res.curves[1].errors.value(0).startsWith(
                     "python.raises_in_init: __init__() raised RuntimeError: init "
                     "refused mode strict"),
                 qPrintable(res.curves[1].errors.value(0)));
        // The next run of the same experiment is untouched.
        QCOMPARE(res.curves[2].statuses.value(0), RunStatus::Finished);
        QCOMPARE(res.runsFinished, 1);
        QCOMPARE(res.runsFailed, 2);
    }

    void misbehavingPredictionsFailOrDiverge_data()
    {
        QTest::addColumn<QString>("id");
        QTest::addColumn<RunStatus>("status");
        QTest::addColumn<QString>("message");
        QTest::newRow("wrong shape")
            << "python.wrong_shape" << RunStatus::Failed
            << "python.wrong_shape: predict() returned shape (N, 3); expected (N, 2): a row "
               "per row of X, a column per class";
        QTest::newRow("not an array")
            << "python.not_array" << RunStatus::Failed
            << "python.not_array: predict() returned a dict, which is not convertible to a float array";
        QTest::newRow("NaN") << "python.nan_predict" << RunStatus::Diverged << "non-finite predictions";
        QTest::newRow("no checkpoint")
            << "python.never_checkpoints" << RunStatus::Failed
            << "python.never_checkpoints: fit() returned without calling ctx.checkpoint(); call "
               "it at least at the end of every epoch";
        QTest::newRow("kept data") << "python.keeps_data" << RunStatus::Failed
                                   << "python.keeps_data: fit() kept a reference to data.x";
        QTest::newRow("reserved fact")
            << "python.reserved_fact" << RunStatus::Failed
            << "the trainer recorded the fact \"final\", which the host records itself";
    }
    void misbehavingPredictionsFailOrDiverge()
    {
        QFETCH(QString, id);
        QFETCH(RunStatus, status);
        QFETCH(QString, message);
        const RunJob j = job(id);
        const RunResult r = run(j);
        QVERIFY2(r.status == status, qPrintable(runStatusName(r.status) + ": " + r.error));
        message.replace("(N,", QStringLiteral("(%1,").arg(j.data->train.rows())); // the training rows
        QVERIFY2(r.error.contains(message), qPrintable(r.error));
        // And the process goes on training Python.
        QCOMPARE(run(job("python.numpy_ridge")).status, RunStatus::Finished);
    }

    // A script may state its cost (Trainer.predict_cost): recorded like a C++ plugin's, its working
    // memory checked before fit() — a run that cannot fit is refused before the script allocates —
    // and a predict_cost() that returns no dict fails the run with its name.
    void statedCostIsRecordedAndChecked()
    {
        const RunJob j = job("python.stated_cost", {{"width", 5}});
        const RunResult ok = run(j);
        QVERIFY2(ok.status == RunStatus::Finished, qPrintable(runStatusName(ok.status) + ": " + ok.error));
        const QJsonObject cost = ok.info.value("predicted_cost").toObject();
        const double rows = double(j.data->train.rows());
        QCOMPARE(cost.value("memory_bytes").toDouble(), 8 * rows * 5);
        QCOMPARE(cost.value("flops").toDouble(), rows * 2);
        QCOMPARE(cost.value("task").toString(), QStringLiteral("classification"));
        QCOMPARE(cost.value("outputs").toInt(), 2);
        QVERIFY(!cost.contains("memory_unchecked"));

        const RunResult huge = run(job("python.huge_memory"));
        QVERIFY2(huge.status == RunStatus::Failed, qPrintable(runStatusName(huge.status) + ": " + huge.error));
        QVERIFY2(huge.error.contains("memory"), qPrintable(huge.error));
        QVERIFY2(!huge.info.contains("fitted"), "fit() ran although its memory was refused");

        const RunResult bad = run(job("python.bad_cost"));
        QVERIFY2(bad.status == RunStatus::Failed, qPrintable(runStatusName(bad.status) + ": " + bad.error));
        QVERIFY2(bad.error.contains("python.bad_cost: predict_cost() returned a list; expected a dict"),
                 qPrintable(bad.error));
        QCOMPARE(run(job("python.numpy_ridge")).status, RunStatus::Finished);
    }

    void dataReachesPythonWithoutACopy()
    {
        const RunJob j = job("python.zero_copy", {}, moons(100), 42);
        const RunResult r = run(j);
        QVERIFY2(r.status == RunStatus::Finished, qPrintable(runStatusName(r.status) + ": " + r.error));
        const data::Dataset& train = j.data->train;
        QCOMPARE(r.info.value("x_pointer").toDouble(), double(reinterpret_cast<quintptr>(train.x.data())));
        QCOMPARE(r.info.value("y_pointer").toDouble(), double(reinterpret_cast<quintptr>(train.y.data())));
        // Column-major: the next row is 8 bytes on, the next column a whole column on.
        QCOMPARE(r.info.value("x_strides").toArray(), QJsonArray({8, double(8 * train.x.rows())}));
        QCOMPARE(r.info.value("x_writeable").toBool(), false);
        QVERIFY2(r.info.value("x_write").toString().contains("read-only"),
                 qPrintable(r.info.value("x_write").toString()));
        QVERIFY2(!r.info.value("x_make_writeable").toString().contains("made writeable"),
                 qPrintable(r.info.value("x_make_writeable").toString()));
        QJsonArray labels;
        for (Eigen::Index i = 0; i < 4; ++i) {
            Eigen::Index c;
            train.y.row(i).maxCoeff(&c);
            labels.append(double(c));
        }
        QCOMPARE(r.info.value("labels").toArray(), labels);
        QCOMPARE(r.info.value("task").toString(), QStringLiteral("classification"));
        QCOMPARE(r.info.value("class_names").toArray().size(), 2);
        QCOMPARE(r.info.value("seed").toDouble(), 42.0);
        QCOMPARE(r.info.value("threads").toInt(), 2);
        QVERIFY(r.info.value("log").toVariant().toStringList().contains("zero_copy: fitted"));
    }
};

QTEST_GUILESS_MAIN(TestPythonHost)
#include "tst_pythonhost.moc"
