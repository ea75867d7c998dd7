// The shared conformance suite: every algorithm of every plugin in the build's plugin folder
// goes through the same checks, run by the engine's Runner exactly as the workbench runs them.
// Plugins are discovered, never listed: a new plugin joins by being built.
//
// Checks per algorithm (docs/plugin-guide.md, "Conformance"):
//  - metadata: id, name, at least one task; schema keys, labels, help, defaults in range;
//    the defaults validate and create() accepts them;
//  - invalid parameters: every parameter given a value of the wrong type or out of range, and an
//    unknown key, makes the run fail with a message naming the parameter;
//  - same seed → same curve (every checkpoint's metrics equal, bit for bit, on 2 threads);
//  - Stop, early in a long run and after its first checkpoint: the run is really interrupted (a
//    run that ends before Stop proves nothing: every algorithm declares a "long_run" that lasts),
//    and the work it does after Stop stays within the 200 ms promise, counted in CPU time so
//    that a busy machine cannot fail it (tests/support/StopMeter.h; the wall-clock latency is
//    bench/stop_latency's);
//  - every choice of every choice parameter runs (or, where it contradicts the task, fails
//    with a message naming the parameter);
//  - known answers, to the tolerance the plugin declares: linear regression reaches the
//    closed-form least-squares optimum's training RMSE; a linearly separable two-class set is
//    classified to the declared training accuracy.
// Tolerances and the parameters for these problems come from the optional "conformance" object
// of the plugin's metadata JSON (read with QPluginLoader::metaData(), never by loading code).
#include <engine/CostPrediction.h>
#include <numerics/LeastSquares.h>
#include <numerics/Metrics.h>
#include <engine/PluginRegistry.h>
#include <engine/Runner.h>

#include <QJsonArray>
#include <QPluginLoader>
#include <QtTest>
#include <LabelledSets.h>
#include <StopMeter.h>
#include <cmath>
#include <mutex>
#include <random>
#include <tbb/task_arena.h>
#include <typeinfo>

using namespace tb;
using tb::testsupport::runAndStop;
using tb::testsupport::uniformPm1;
using tb::testsupport::StopWhen;

namespace {

constexpr double kDefaultRmseExcess = 0.01;
constexpr double kDefaultMinAccuracy = 1.0;
// What a run's measured peak may exceed its trainer's predicted working memory by. It counts what
// no trainer allocates: the pages malloc touches for its own bookkeeping when a thread first
// allocates in a run (a per-thread arena's heap header and top chunk; ≤ 2 threads here), TBB's
// task-arena structures and worker stacks growing, code pages of a plugin faulted in on first use,
// and rounding to whole pages (4 KiB; 2 MiB where a transparent huge page backs a buffer). Measured
// on the known-answer problems, where the predictions are kilobytes: 0.3–2.5 MiB.
constexpr double kMemoryAllowance = 4.0 * 1024 * 1024;

// One algorithm's declared conformance settings, merged from "default" and its own entry.
struct Declared {
    QVariantMap regressionParams, classificationParams, longParams;
    QJsonObject memoryParams;  // over the task's params on the memory bound's larger problems
    Eigen::Index longRows = 20000, longInputs = 20;  // the long run's problem size
    double rmseExcess = kDefaultRmseExcess;
    double minAccuracy = kDefaultMinAccuracy;
    QString source;  // where it came from, for messages
};

// An entry's params over the defaults' params; a null value removes a default key.
QVariantMap mergeParams(QVariantMap base, const QJsonObject& over)
{
    const QJsonObject o = over.value("params").toObject();
    for (auto it = o.begin(); it != o.end(); ++it) {
        if (it.value().isNull())
            base.remove(it.key());
        else
            base.insert(it.key(), it.value().toVariant());
    }
    return base;
}

void apply(Declared& d, const QJsonObject& entry)
{
    const QJsonObject reg = entry.value("regression").toObject();
    const QJsonObject cls = entry.value("classification").toObject();
    d.regressionParams = mergeParams(d.regressionParams, reg);
    d.classificationParams = mergeParams(d.classificationParams, cls);
    const QJsonObject lr = entry.value("long_run").toObject();
    d.longParams = mergeParams(d.longParams, lr);
    if (lr.contains("rows"))
        d.longRows = lr.value("rows").toInteger();
    if (lr.contains("inputs"))
        d.longInputs = lr.value("inputs").toInteger();
    const QJsonObject memory = entry.value("memory").toObject().value("params").toObject();
    for (auto it = memory.begin(); it != memory.end(); ++it)
        d.memoryParams.insert(it.key(), it.value());
    if (reg.contains("max_rmse_excess"))
        d.rmseExcess = reg.value("max_rmse_excess").toDouble();
    if (cls.contains("min_accuracy"))
        d.minAccuracy = cls.value("min_accuracy").toDouble();
}

Declared declared(const PluginSpec& plugin, const QString& algorithmId)
{
    QPluginLoader loader(plugin.filePath);
    const QJsonObject conf = loader.metaData().value("MetaData").toObject().value("conformance").toObject();
    Declared d;
    d.source = conf.isEmpty() ? QStringLiteral("suite defaults") : plugin.filePath + " metadata \"conformance\"";
    apply(d, conf.value("default").toObject());
    apply(d, conf.value(algorithmId).toObject());
    return d;
}

// y = x·B + c + N(0, 0.1²)-ish noise (sum of uniforms), 3 inputs (or more, for long runs: the
// extra inputs carry no signal), 2 outputs.
std::shared_ptr<const data::DatasetPair> linearRegression(Eigen::Index nTrain = 300, Eigen::Index inputs = 3)
{
    std::mt19937_64 gen(20240601);
    Eigen::MatrixXd b = Eigen::MatrixXd::Zero(std::max<Eigen::Index>(inputs, 3), 2);
    b.topRows(3) << 1.0, -2.0, 0.5, 1.5, -1.0, 0.25;
    const Eigen::RowVector2d c(0.3, -0.7);
    auto make = [&](Eigen::Index n) {
        data::Dataset s;
        s.task = Task::Regression;
        s.x.resize(n, b.rows());
        for (Eigen::Index i = 0; i < n; ++i)
            for (Eigen::Index j = 0; j < b.rows(); ++j)
                s.x(i, j) = uniformPm1(gen);
        s.y = s.x * b;
        s.y.rowwise() += c;
        for (Eigen::Index i = 0; i < s.y.size(); ++i)
            s.y.data()[i] += 0.1 * std::sqrt(3.0) * uniformPm1(gen);  // σ = 0.1
        s.description = "conformance linear regression";
        return s;
    };
    auto pair = std::make_shared<data::DatasetPair>();
    pair->train = make(nTrain);
    pair->test = make(100);
    return pair;
}

// Two classes on either side of a line through the origin at 30°, nothing within 0.2 of it.
std::shared_ptr<const data::DatasetPair> separableClasses(Eigen::Index nTrain, Eigen::Index nTest, int inputs = 2)
{
    std::mt19937_64 gen(20240602);
    const double u0 = std::cos(M_PI / 6), u1 = std::sin(M_PI / 6);
    auto make = [&](Eigen::Index n) {
        data::Dataset s;
        s.task = Task::Classification;
        s.classNames = {"below", "above"};
        s.x.resize(n, inputs);
        s.labels.resize(std::size_t(n));
        for (Eigen::Index i = 0; i < n;) {
            for (int j = 0; j < inputs; ++j)
                s.x(i, j) = uniformPm1(gen);
            const double side = u0 * s.x(i, 0) + u1 * s.x(i, 1);
            if (std::abs(side) < 0.2)
                continue;
            s.labels[std::size_t(i)] = side > 0;
            ++i;
        }
        s.setOneHotFromLabels();
        s.description = "conformance separable classes";
        return s;
    };
    auto pair = std::make_shared<data::DatasetPair>();
    pair->train = make(nTrain);
    pair->test = make(nTest);
    return pair;
}

RunJob makeJob(const QString& id, const QVariantMap& params, std::shared_ptr<const data::DatasetPair> d,
               std::uint64_t seed = 1)
{
    RunJob j;
    j.algorithmId = id;
    j.label = id;
    j.params = params;
    j.seed = seed;
    j.data = std::move(d);
    j.datasetDescription = j.data ? j.data->train.description : QString();
    j.threads = 2;
    return j;
}

RunResult runIn2Threads(const PluginRegistry& reg, const RunJob& job, const StopSource& stop,
                        RunObserver* observer = nullptr, std::unique_ptr<Trainer> trainer = nullptr)
{
    RunResult r;
    tbb::task_arena(2).execute([&] { r = Runner(reg, nullptr).execute(job, stop, observer, std::move(trainer)); });
    return r;
}

bool sameNumber(double a, double b)
{
    return a == b || (std::isnan(a) && std::isnan(b));
}

// Where two runs' curves first differ ("checkpoint 3: metrics differ"); empty when they are the same
// to the bit.
QString firstDifference(const RunResult& a, const RunResult& b)
{
    if (a.points.size() != b.points.size())
        return QString("%1 checkpoints against %2").arg(a.points.size()).arg(b.points.size());
    for (int i = 0; i < a.points.size(); ++i) {
        const MetricPoint &p = a.points[i], &q = b.points[i];
        const QString at = QString("checkpoint %1").arg(i);
        if (p.epoch != q.epoch || !sameNumber(p.loss, q.loss))
            return at + ": epoch or loss differ";
        if (!sameNumber(p.trainRmse, q.trainRmse) || !sameNumber(p.testRmse, q.testRmse) ||
            !sameNumber(p.trainAccuracy, q.trainAccuracy) || !sameNumber(p.testAccuracy, q.testAccuracy))
            return at + ": metrics differ";
    }
    return {};
}

// Invalid values for one parameter: wrong types and, where the spec is bounded, out of range.
QList<QVariant> invalidValues(const ParamSpec& s)
{
    QList<QVariant> v;
    switch (s.type) {
    case ParamType::Int:
        v << QVariant("seven") << QVariant(1.5);
        if (std::isfinite(s.minimum))
            v << QVariant(qlonglong(s.minimum) - 1);
        if (std::isfinite(s.maximum) && s.maximum < 9e15)
            v << QVariant(qlonglong(s.maximum) + 1);
        break;
    case ParamType::Real:
        v << QVariant("big") << QVariant(true);
        if (std::isfinite(s.minimum))
            v << QVariant(s.minimum - 1.0 - std::abs(s.minimum));
        if (std::isfinite(s.maximum))
            v << QVariant(s.maximum + 1.0 + std::abs(s.maximum));
        break;
    case ParamType::Bool:
        v << QVariant("maybe") << QVariant(2);
        break;
    case ParamType::Choice:
        v << QVariant("no-such-choice") << QVariant(3);
        break;
    case ParamType::IntList:
        v << QVariant("a, b") << QVariant(QVariantList{1.5});
        if (std::isfinite(s.minimum))
            v << QVariant(QVariantList{qlonglong(s.minimum) - 1});
        break;
    case ParamType::RealList:
        v << QVariant("a, b") << QVariant(QVariantList{true}) << QVariant(2.5);
        if (std::isfinite(s.minimum))
            v << QVariant(QVariantList{s.minimum - 1.0 - std::abs(s.minimum)});
        if (std::isfinite(s.maximum))
            v << QVariant(QVariantList{s.maximum + 1.0 + std::abs(s.maximum)});
        break;
    case ParamType::Text:
    case ParamType::Path:
    case ParamType::Folder:
    case ParamType::Columns:
    case ParamType::Seed:
        v << QVariant(QVariantList{QVariantList{}}); // a list of a list is none of these
        break;
    }
    return v;
}

// Tells whether a run has logged its first checkpoint (from any thread).
class FirstCheckpoint final : public RunObserver {
public:
    void checkpointLogged(const RunJob&, qint64, const MetricPoint&) override
    {
        std::lock_guard lock(m_mutex);
        m_seen = true;
    }
    bool seen()
    {
        std::lock_guard lock(m_mutex);
        return m_seen;
    }

private:
    std::mutex m_mutex;
    bool m_seen = false;
};

// The keys docs/parameters.md lists: the backquoted words of the first cell of every table row
// ("| `ridge` | …"). An empty set and @p error when the file cannot be read or lists nothing.
QSet<QString> glossaryKeys(const QString& path, QString* error)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly | QIODevice::Text)) {
        *error = path + ": " + f.errorString();
        return {};
    }
    QSet<QString> keys;
    const QRegularExpression word(QStringLiteral("`([a-z_][a-z0-9_]*)`"));
    const QStringList lines = QString::fromUtf8(f.readAll()).split(QLatin1Char('\n'));
    for (const QString& line : lines) {
        if (!line.startsWith(QLatin1String("| `")))
            continue;
        const QString firstCell = line.section(QLatin1Char('|'), 1, 1);
        for (auto it = word.globalMatch(firstCell); it.hasNext();)
            keys.insert(it.next().captured(1));
    }
    if (keys.isEmpty())
        *error = path + ": no table row names a key";
    return keys;
}

} // namespace

class TestConformance : public QObject {
    Q_OBJECT
private:
    PluginRegistry m_reg;

    const AlgorithmEntry& entry(const QString& id) const { return *m_reg.algorithm(id); }

    // Known-answer params for the problem the algorithm can do (regression first).
    QVariantMap anyProblemParams(const AlgorithmEntry& e, const Declared& d) const
    {
        return e.info.regression ? d.regressionParams : d.classificationParams;
    }
    std::shared_ptr<const data::DatasetPair> anyProblem(const AlgorithmEntry& e) const
    {
        return e.info.regression ? linearRegression() : separableClasses(300, 100);
    }

    void addAlgorithmRows()
    {
        QTest::addColumn<QString>("id");
        for (const AlgorithmEntry& e : m_reg.algorithms())
            QTest::newRow(qPrintable(e.info.id)) << e.info.id;
    }

private Q_SLOTS:
    void initTestCase()
    {
        m_reg.scan({TB_PLUGIN_BUILD_DIR});
        for (const auto& p : m_reg.plugins())
            QVERIFY2(p->isLoaded(), qPrintable(p->filePath + ": " + p->stateName() + ": " + p->error));
        // The suite must see the plugins of this tree (at least the reference plugin).
        QVERIFY2(m_reg.algorithm("linear.ridge"), qPrintable("no linear.ridge in " + QString(TB_PLUGIN_BUILD_DIR)));
        QStringList ids;
        for (const AlgorithmEntry& e : m_reg.algorithms())
            ids << e.info.id;
        qInfo("conformance: %lld algorithms: %s", qlonglong(ids.size()), qPrintable(ids.join(", ")));
    }

    void metadataAndDefaults_data() { addAlgorithmRows(); }
    void metadataAndDefaults()
    {
        QFETCH(QString, id);
        const AlgorithmEntry& e = entry(id);
        QVERIFY(!e.info.name.isEmpty());
        QVERIFY2(e.info.regression || e.info.classification, "the algorithm handles no task");
        const QRegularExpression keyPattern("^[a-z_][a-z0-9_]*$");
        QSet<QString> keys;
        for (const ParamSpec& s : e.info.schema.specs()) {
            const QString where = id + "." + s.key;
            QVERIFY2(keyPattern.match(s.key).hasMatch(), qPrintable(where + ": key is not [a-z_][a-z0-9_]*"));
            QVERIFY2(!keys.contains(s.key), qPrintable(where + ": duplicate key"));
            keys.insert(s.key);
            QVERIFY2(!s.label.isEmpty() && !s.help.isEmpty(), qPrintable(where + ": label and help are required"));
            QString err;
            QVERIFY2(ParamSchema::convert(s, s.defaultValue, &err), qPrintable(where + ": default invalid: " + err));
        }
        const QString err = e.info.schema.validate(e.info.schema.defaults());
        QVERIFY2(err.isEmpty(), qPrintable(err));
        std::unique_ptr<Trainer> t;
        try {
            t = m_reg.create(id, {});
        } catch (const std::exception& ex) {
            QFAIL(qPrintable(id + ": create() with the defaults threw: " + ex.what()));
        }
        QVERIFY(t);
    }

    void invalidParametersFailClearly_data() { addAlgorithmRows(); }
    void invalidParametersFailClearly()
    {
        QFETCH(QString, id);
        const AlgorithmEntry& e = entry(id);
        const auto data = anyProblem(e);
        StopSource stop;
        int checked = 0;
        for (const ParamSpec& s : e.info.schema.specs()) {
            for (const QVariant& bad : invalidValues(s)) {
                const RunResult r = runIn2Threads(m_reg, makeJob(id, {{s.key, bad}}, data), stop);
                const QString what = QString("%1: %2 = %3").arg(id, s.key, ParamSchema::describe(bad));
                QVERIFY2(r.status == RunStatus::Failed, qPrintable(what + " was accepted"));
                QVERIFY2(r.error.contains(s.key), qPrintable(what + " gave \"" + r.error + "\", which does not name it"));
                ++checked;
            }
        }
        const RunResult r = runIn2Threads(m_reg, makeJob(id, {{"no_such_parameter", 1}}, data), stop);
        QCOMPARE(r.status, RunStatus::Failed);
        QVERIFY2(r.error.contains("no_such_parameter"), qPrintable(r.error));
        qInfo("%s: %d invalid values refused", qPrintable(id), checked + 1);
    }

    void sameSeedSameCurve_data() { addAlgorithmRows(); }
    void sameSeedSameCurve()
    {
        QFETCH(QString, id);
        const AlgorithmEntry& e = entry(id);
        const Declared d = declared(*e.plugin, id);
        const auto data = anyProblem(e);
        const QVariantMap params = anyProblemParams(e, d);
        StopSource stop;
        const RunResult a = runIn2Threads(m_reg, makeJob(id, params, data, 77), stop);
        const RunResult b = runIn2Threads(m_reg, makeJob(id, params, data, 77), stop);
        QVERIFY2(a.status == RunStatus::Finished, qPrintable(runStatusName(a.status) + ": " + a.error));
        QCOMPARE(b.status, RunStatus::Finished);
        QCOMPARE(a.points.size(), b.points.size());
        QVERIFY(!a.points.isEmpty());
        // The declared progress rule bounds the epochs a run reports: a progress bar built from
        // it ends at 100 %, never beyond.
        const double planned = m_reg.plannedEpochs(id, params);
        QVERIFY2(planned > 0, qPrintable(id + ": AlgorithmInfo::progress declares no planned epochs"));
        QVERIFY2(a.points.last().epoch <= planned * (1 + 1e-12),
                 qPrintable(QString("%1: reached epoch %2, planned %3").arg(id).arg(a.points.last().epoch).arg(planned)));
        const QString differ = firstDifference(a, b);
        QVERIFY2(differ.isEmpty(), qPrintable(id + ": " + differ));
    }

    // A run's trainer is its configuration's prototype's fresh() copy (PreparedConfiguration): the
    // copy must be the trainer create() would make — untrained, with every parameter read — so the
    // same seed gives the same curve, to the bit, whichever made it (one build, one CPU).
    void freshCopyTrainsAsCreate_data() { addAlgorithmRows(); }
    void freshCopyTrainsAsCreate()
    {
        QFETCH(QString, id);
        const AlgorithmEntry& e = entry(id);
        const Declared d = declared(*e.plugin, id);
        const auto data = anyProblem(e);
        const QVariantMap params = anyProblemParams(e, d);
        StopSource stop;
        const std::unique_ptr<Trainer> prototype = m_reg.create(id, params);
        std::unique_ptr<Trainer> copy = prototype->fresh();
        QVERIFY2(copy, qPrintable(id + ": its trainer has no fresh() (Trainer.h): every run would read its "
                                       "parameters again"));
        const Trainer &c = *copy, &p = *prototype;
        QVERIFY2(typeid(c) == typeid(p), qPrintable(id + ": fresh() made a trainer of another type"));
        const RunResult created = runIn2Threads(m_reg, makeJob(id, params, data, 77), stop, nullptr, m_reg.create(id, params));
        const RunResult fresh = runIn2Threads(m_reg, makeJob(id, params, data, 77), stop, nullptr, std::move(copy));
        QVERIFY2(created.status == RunStatus::Finished, qPrintable(runStatusName(created.status) + ": " + created.error));
        QVERIFY2(fresh.status == RunStatus::Finished, qPrintable(runStatusName(fresh.status) + ": " + fresh.error));
        const QString differ = firstDifference(created, fresh);
        QVERIFY2(differ.isEmpty(), qPrintable(id + ": fresh() against create(): " + differ));
    }

    void stopWithin200ms_data() { addAlgorithmRows(); }
    void stopWithin200ms()
    {
        QFETCH(QString, id);
        const AlgorithmEntry& e = entry(id);
        const Declared d = declared(*e.plugin, id);
        QVariantMap params = anyProblemParams(e, d);
        for (auto it = d.longParams.begin(); it != d.longParams.end(); ++it)
            params.insert(it.key(), it.value());
        // A larger problem (declared per algorithm) so that the run outlasts the wait for Stop.
        std::shared_ptr<const data::DatasetPair> data;
        if (e.info.classification)
            data = separableClasses(d.longRows, 100, int(d.longInputs));
        else
            data = linearRegression(d.longRows, d.longInputs);
        // Stop twice: early, 50 ms of CPU time into the run (inside the trainer's set-up: copies,
        // features, caches — work that must poll Stop too), and later, 100 ms of CPU time after
        // the first checkpoint or, for a trainer whose first checkpoint is its end (closed-form
        // solvers), after 600 ms of CPU time without one (2 threads: the 300 ms + 50 ms of an
        // idle machine). Counted in CPU time, Stop lands at the same point however busy the
        // machine.
        struct When {
            const char* name;
            bool afterFirstCheckpoint;
        };
        for (const When when : {When{"early", false}, When{"after the first checkpoint", true}}) {
            StopSource stop;
            FirstCheckpoint first;
            const RunJob job = makeJob(id, params, data);
            const StopWhen stopWhen = when.afterFirstCheckpoint
                                          ? StopWhen{.cpuMs = 100, .ready = [&] { return first.seen(); }, .readyCpuMs = 600}
                                          : StopWhen{.cpuMs = 50};
            const auto r = runAndStop(stop, stopWhen, [&] { return runIn2Threads(m_reg, job, stop, &first); });
            // A run that ended before Stop proves nothing about Stop.
            QVERIFY2(!r.endedBeforeStop && r.value.status == RunStatus::Cancelled,
                     qPrintable(QString("%1, Stop %2: the long run ended (%3) before Stop was pressed: declare a "
                                        "\"long_run\" in the plugin's conformance metadata that lasts well over a "
                                        "second (%4); its facts: %5)")
                                    .arg(id, when.name,
                                         runStatusName(r.value.status) +
                                             (r.value.error.isEmpty() ? QString() : ": " + r.value.error),
                                         d.source,
                                         QString::fromUtf8(QJsonDocument(r.value.info)
                                                               .toJson(QJsonDocument::Compact)))));
            // The work after Stop, not the wall time (StopMeter.h): the run was interrupted, and
            // what it did after the flag stays within the promise on a busy machine as on an idle one.
            qInfo("%s, Stop %s: %s", qPrintable(id), when.name, qPrintable(r.after.describe()));
            QVERIFY2(r.after.withinPromise(), qPrintable(QString("%1, Stop %2: %3").arg(id, when.name, r.after.describe())));
        }
    }

    void everyChoiceRuns_data() { addAlgorithmRows(); }
    void everyChoiceRuns()
    {
        // Every choice of every choice parameter, selected by its string, on the known-answer
        // problem: it trains, or, where it contradicts the task (e.g. a cross-entropy loss for
        // regression), fails with a message naming the parameter.
        QFETCH(QString, id);
        const AlgorithmEntry& e = entry(id);
        const Declared d = declared(*e.plugin, id);
        const auto data = anyProblem(e);
        const QVariantMap base = anyProblemParams(e, d);
        int runs = 0;
        for (const ParamSpec& s : e.info.schema.specs()) {
            if (s.type != ParamType::Choice)
                continue;
            for (const QString& choice : s.choices) {
                QVariantMap p = base;
                p.insert(s.key, choice);
                StopSource stop;
                const RunResult r = runIn2Threads(m_reg, makeJob(id, p, data), stop);
                const QString what = QString("%1: %2 = \"%3\"").arg(id, s.key, choice);
                QVERIFY2(r.status == RunStatus::Finished || r.status == RunStatus::Diverged ||
                             (r.status == RunStatus::Failed && r.error.contains(s.key)),
                         qPrintable(what + ": " + runStatusName(r.status) + ": " + r.error));
                QVERIFY2(r.status != RunStatus::Finished || !r.points.isEmpty(), qPrintable(what + ": no metrics"));
                ++runs;
            }
        }
        qInfo("%s: %d choices run", qPrintable(id), runs);
    }

    void knownAnswerLinearRegression_data() { addAlgorithmRows(); }
    void knownAnswerLinearRegression()
    {
        QFETCH(QString, id);
        const AlgorithmEntry& e = entry(id);
        if (!e.info.regression)
            QSKIP("classification only");
        const Declared d = declared(*e.plugin, id);
        const auto data = linearRegression();
        // The closed-form optimum of the training RMSE over affine maps.
        Eigen::MatrixXd a(data->train.rows(), data->train.inputs() + 1);
        a << data->train.x, Eigen::VectorXd::Ones(data->train.rows());
        const Eigen::MatrixXd w = num::solveLeastSquares(a, data->train.y);
        const double optimum = num::rmse(a * w, data->train.y);
        StopSource stop;
        const RunResult r = runIn2Threads(m_reg, makeJob(id, d.regressionParams, data), stop);
        QVERIFY2(r.status == RunStatus::Finished, qPrintable(runStatusName(r.status) + ": " + r.error));
        const double excess = r.last.trainRmse - optimum;
        qInfo("%s: train RMSE %.6f, optimum %.6f, excess %.2e (declared ≤ %.2e, %s)", qPrintable(id),
              r.last.trainRmse, optimum, excess, d.rmseExcess, qPrintable(d.source));
        // (A non-linear model may end below the affine optimum: only the excess is bounded.)
        QVERIFY2(excess <= d.rmseExcess, qPrintable(QString("RMSE %1 above the optimum %2 by more than %3")
                                                         .arg(r.last.trainRmse).arg(optimum).arg(d.rmseExcess)));
    }

    // Issue 32: the host refuses a run whose predicted working memory ("memory_bytes" of
    // Trainer::predictCost()) does not fit, so the prediction must be an upper bound of what the
    // run takes: every algorithm states one, and on each known-answer problem it handles the
    // measured peak (PeakMemory: resident growth during fit() and the host's evaluations) stays
    // below it, up to kMemoryAllowance.
    void predictedMemoryBoundsTheMeasuredPeak_data() { addAlgorithmRows(); }
    void predictedMemoryBoundsTheMeasuredPeak()
    {
        QFETCH(QString, id);
        const AlgorithmEntry& e = entry(id);
        const Declared d = declared(*e.plugin, id);
        // Each problem as the known-answer checks pose it, and grown to 4000 training rows of 20
        // inputs, where the trainer's buffers outweigh what the allowance covers, with the declared
        // "memory" params on top (a library solve without checkpoints must finish quickly there);
        // a time budget ends the slow ones after their first evaluated checkpoint.
        struct Problem {
            QVariantMap params;
            std::shared_ptr<const data::DatasetPair> data;
            QString size;
        };
        QList<Problem> problems;
        const QJsonObject larger{{"params", d.memoryParams}};
        if (e.info.regression)
            problems << Problem{d.regressionParams, linearRegression(), "300×3"}
                     << Problem{mergeParams(d.regressionParams, larger), linearRegression(4000, 20), "4000×20"};
        if (e.info.classification)
            problems << Problem{d.classificationParams, separableClasses(300, 100), "300×2"}
                     << Problem{mergeParams(d.classificationParams, larger), separableClasses(4000, 1000, 20), "4000×20"};
        for (const Problem& p : problems) {
            const auto& [params, data, size] = p;
            StopSource stop;
            RunJob job = makeJob(id, params, data);
            job.budget = tb::RunBudget{1, tb::ClockKind::Wall};
            const RunResult r = runIn2Threads(m_reg, job, stop);
            const QString what = QStringLiteral("%1 on the %2, %3").arg(id, data->train.description, size);
            QVERIFY2(r.status == RunStatus::Finished, qPrintable(what + ": " + runStatusName(r.status) + ": " + r.error));
            const double predicted = CostPrediction::fromRunInfo(r.info).memoryBytes();
            QVERIFY2(!std::isnan(predicted), qPrintable(what + ": predictCost() states no \"memory_bytes\""));
            const double measured = CostPrediction::measuredMemoryBytes(r.info);
            QVERIFY2(!std::isnan(measured), qPrintable(what + ": no peak measured: " + r.info.value("log").toVariant().toString()));
            qInfo("%s: predicted %s, measured %s", qPrintable(what), qPrintable(CostPrediction::formatBytes(predicted)),
                  qPrintable(CostPrediction::formatBytes(measured)));
            QVERIFY2(measured <= predicted + kMemoryAllowance,
                     qPrintable(QStringLiteral("%1: measured peak %2 above the prediction %3 by more than %4")
                                    .arg(what, CostPrediction::formatBytes(measured), CostPrediction::formatBytes(predicted),
                                         CostPrediction::formatBytes(kMemoryAllowance))));
        }
    }

    void knownAnswerSeparableClasses_data() { addAlgorithmRows(); }
    void knownAnswerSeparableClasses()
    {
        QFETCH(QString, id);
        const AlgorithmEntry& e = entry(id);
        if (!e.info.classification)
            QSKIP("regression only");
        const Declared d = declared(*e.plugin, id);
        StopSource stop;
        const RunResult r = runIn2Threads(m_reg, makeJob(id, d.classificationParams, separableClasses(300, 100)), stop);
        QVERIFY2(r.status == RunStatus::Finished, qPrintable(runStatusName(r.status) + ": " + r.error));
        qInfo("%s: train accuracy %.4f, test %.4f (declared ≥ %.4f, %s)", qPrintable(id), r.last.trainAccuracy,
              r.last.testAccuracy, d.minAccuracy, qPrintable(d.source));
        QVERIFY2(r.last.trainAccuracy >= d.minAccuracy,
                 qPrintable(QString("training accuracy %1 < %2").arg(r.last.trainAccuracy).arg(d.minAccuracy)));
    }

    // Issue 44, item 3: docs/parameters.md, the glossary, lists every key an algorithm exposes —
    // a new key is a new word, and the glossary says what it means before a plugin ships it.
    void glossaryListsEveryKey()
    {
        const QString path = QStringLiteral(TB_SOURCE_DIR "/docs/parameters.md");
        QString error;
        const QSet<QString> listed = glossaryKeys(path, &error);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        QStringList missing;
        for (const AlgorithmEntry& e : m_reg.algorithms())
            for (const ParamSpec& s : e.info.schema.specs())
                if (!listed.contains(s.key))
                    missing << QStringLiteral("%1: parameter \"%2\"").arg(e.info.id, s.key);
        QVERIFY2(missing.isEmpty(), qPrintable(path + " does not list " + missing.join(QStringLiteral("; "))));
    }

    // Issue 44, item 6: a default search space lies inside its parameter's schema: log kinds
    // above 0, integer kinds on integer parameters, every end (and every choice) accepted by
    // normalise(), and the algorithm created with all of them at their low and at their high
    // ends (so combinations that fromParams() checks, e.g. dsgd's θ·ν < 1, hold in the corners).
    void searchSpacesLieInTheSchema_data() { addAlgorithmRows(); }
    void searchSpacesLieInTheSchema()
    {
        QFETCH(QString, id);
        const ParamSchema& schema = entry(id).info.schema;
        QVariantMap lows, highs;
        int searched = 0;
        for (const ParamSpec& s : schema.specs()) {
            const SearchSpace& space = s.search;
            if (!space.isSet())
                continue;
            ++searched;
            const QString where = id + "." + s.key + " (" + SearchSpace::kindName(space.kind) + ")";
            QVariantList values;
            switch (space.kind) {
            case SearchSpace::Kind::None:
                break;
            case SearchSpace::Kind::LogUniform:
            case SearchSpace::Kind::LogInteger:
                QVERIFY2(space.low > 0, qPrintable(where + QString(": log bounds must be > 0, low is %1").arg(space.low)));
                [[fallthrough]];
            case SearchSpace::Kind::Uniform:
            case SearchSpace::Kind::Integer: {
                QVERIFY2(std::isfinite(space.low) && std::isfinite(space.high) && space.low < space.high,
                         qPrintable(where + QString(": expected finite low < high, got [%1, %2]").arg(space.low).arg(space.high)));
                const bool integer = space.kind == SearchSpace::Kind::Integer || space.kind == SearchSpace::Kind::LogInteger;
                QVERIFY2(integer == (s.type == ParamType::Int),
                         qPrintable(where + ": integer kinds for integer parameters, real kinds for real ones"));
                if (integer) {
                    QVERIFY2(space.low == std::floor(space.low) && space.high == std::floor(space.high),
                             qPrintable(where + ": integer bounds expected"));
                    values << QVariant(qlonglong(space.low)) << QVariant(qlonglong(space.high));
                } else {
                    values << QVariant(space.low) << QVariant(space.high);
                }
                lows.insert(s.key, values.first());
                highs.insert(s.key, values.last());
                break;
            }
            case SearchSpace::Kind::Choice:
                QVERIFY2(!space.choices.isEmpty(), qPrintable(where + ": no choices"));
                values = space.choices;
                lows.insert(s.key, values.first());
                highs.insert(s.key, values.last());
                break;
            }
            for (const QVariant& v : values) {
                QString err;
                QVERIFY2(schema.normalise({{s.key, v}}, &err),
                         qPrintable(where + ": " + ParamSchema::describe(v) + " is outside the schema: " + err));
            }
        }
        QVERIFY2(searched > 0, qPrintable(id + ": no default search space (docs/parameters.md, \"Default search spaces\")"));
        for (const QVariantMap& corner : {lows, highs}) {
            QString err;
            const auto p = schema.normalise(corner, &err);
            QVERIFY2(p, qPrintable(id + ": the search space's corner is refused: " + err));
            try {
                QVERIFY(m_reg.create(id, *p));
            } catch (const std::exception& ex) {
                QFAIL(qPrintable(id + ": create() refused the search space's corner " +
                                 ParamSchema::describe(QVariant(corner.keys())) + ": " + ex.what()));
            }
        }
        qInfo("%s: %d parameters searched", qPrintable(id), searched);
    }

    // The teaching preset (ParamSpec::teachingValue) is the plugin's own: every value it declares
    // must be one its key takes (teachingPreset() would drop it without a word), the preset must
    // create a trainer, and every classification algorithm with a network must train the same
    // 2-16-2 tanh network — the teaching view compares two training methods side by side, which
    // only means something when the networks are the same.
    void teachingPresetIsValidAndSharesTheNetwork_data() { addAlgorithmRows(); }
    void teachingPresetIsValidAndSharesTheNetwork()
    {
        QFETCH(QString, id);
        const AlgorithmInfo& info = entry(id).info;
        for (const ParamSpec& s : info.schema.specs()) {
            if (!s.teachingValue.isValid())
                continue;
            QString err;
            QVERIFY2(ParamSchema::convert(s, s.teachingValue, &err),
                     qPrintable(id + "." + s.key + ": teaching value refused: " + err));
        }
        const QVariantMap preset = info.schema.teachingPreset();
        QString err;
        const auto params = info.schema.normalise(preset, &err);
        QVERIFY2(params, qPrintable(id + ": teaching preset refused: " + err));
        try {
            QVERIFY(m_reg.create(id, *params));
        } catch (const std::exception& ex) {
            QFAIL(qPrintable(id + ": create() refused the teaching preset: " + ex.what()));
        }
        if (info.classification && info.schema.find("hidden")) {
            QCOMPARE(intListParam(preset, "hidden"), QList<int>{16});
            if (info.schema.find("activation"))
                QCOMPARE(preset.value("activation").toString(), QStringLiteral("tanh"));
        }
    }
};

QTEST_GUILESS_MAIN(TestConformance)
#include "tst_conformance.moc"
