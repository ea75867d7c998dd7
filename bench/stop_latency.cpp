/// stop_latency — how long after Stop a run of each algorithm returns, in wall time.
///
///   stop_latency [--repeats N] [--delay-ms D] [ALGORITHM-ID...]
///
/// The figure behind the promise "Stop takes effect within 200 ms", which the tests no longer
/// assert in wall time (a busy machine stretches it whatever the code does; the tests count the
/// work after Stop instead, tests/support/StopMeter.h). Run it on a quiet machine.
///
/// For every algorithm the plugin folder offers (or the ids given): the conformance suite's long
/// run — the parameters and problem size of its plugin's metadata "conformance.long_run", on the
/// suite's problems (two separable classes, or a linear regression with 0.1 noise) — through the
/// engine's Runner in a 2-thread arena, as tst_conformance runs it. Stop comes D ms (default 50)
/// after the first checkpoint, or after 300 ms without one (closed-form solvers checkpoint at
/// their end); N runs (default 5) per algorithm. Printed per algorithm: the wall time from Stop
/// to the run's return (median and largest), the CPU time the process spent meanwhile (median),
/// and how the runs ended. A run that ended before Stop is reported, not timed.
#include <engine/PluginRegistry.h>
#include <engine/ProcessSetup.h>
#include <engine/Runner.h>

#include <QCoreApplication>
#include <QJsonObject>
#include <QPluginLoader>
#include <QTextStream>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <ctime>
#include <future>
#include <mutex>
#include <random>
#include <tbb/task_arena.h>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

double processCpuMs()
{
    timespec ts{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return 1e3 * double(ts.tv_sec) + 1e-6 * double(ts.tv_nsec);
}

// Uniform in [−1, 1) from the top 53 bits (the suite's generator).
double uniformPm1(std::mt19937_64& gen)
{
    return 2.0 * double(gen() >> 11) * 0x1.0p-53 - 1.0;
}

// The conformance suite's long-run problems: y = x·B + c + noise (3 informative inputs), or two
// classes on either side of a line at 30° with nothing within 0.2 of it.
std::shared_ptr<const tb::data::DatasetPair> longRunProblem(bool classification, Eigen::Index rows, Eigen::Index inputs)
{
    std::mt19937_64 gen(classification ? 20240602 : 20240601);
    auto make = [&](Eigen::Index n) {
        tb::data::Dataset s;
        s.x.resize(n, std::max<Eigen::Index>(inputs, classification ? 2 : 3));
        if (classification) {
            s.task = tb::Task::Classification;
            s.classNames = {"below", "above"};
            s.labels.resize(std::size_t(n));
            const double u0 = std::cos(M_PI / 6), u1 = std::sin(M_PI / 6);
            for (Eigen::Index i = 0; i < n;) {
                for (Eigen::Index j = 0; j < s.x.cols(); ++j)
                    s.x(i, j) = uniformPm1(gen);
                const double side = u0 * s.x(i, 0) + u1 * s.x(i, 1);
                if (std::abs(side) < 0.2)
                    continue;
                s.labels[std::size_t(i)] = side > 0;
                ++i;
            }
            s.setOneHotFromLabels();
        } else {
            s.task = tb::Task::Regression;
            Eigen::MatrixXd b = Eigen::MatrixXd::Zero(s.x.cols(), 2);
            b.topRows(3) << 1.0, -2.0, 0.5, 1.5, -1.0, 0.25;
            for (Eigen::Index i = 0; i < s.x.size(); ++i)
                s.x.data()[i] = uniformPm1(gen);
            s.y = s.x * b;
            for (Eigen::Index i = 0; i < s.y.size(); ++i)
                s.y.data()[i] += 0.1 * std::sqrt(3.0) * uniformPm1(gen);
        }
        s.description = "stop_latency long run";
        return s;
    };
    auto pair = std::make_shared<tb::data::DatasetPair>();
    pair->train = make(rows);
    pair->test = make(100);
    return pair;
}

// One algorithm's long run as tst_conformance builds it from the metadata's "conformance"
// object: "default" then the algorithm's own entry, the problem's params (regression first) with
// the "long_run" params over them, and the long run's problem size.
struct LongRun {
    QVariantMap problemParams, longParams;
    Eigen::Index rows = 20000, inputs = 20;
};

void merge(QVariantMap& into, const QJsonObject& params)
{
    for (auto it = params.begin(); it != params.end(); ++it) {
        if (it.value().isNull())
            into.remove(it.key());
        else
            into.insert(it.key(), it.value().toVariant());
    }
}

void apply(LongRun& r, const QJsonObject& entry, bool regression)
{
    merge(r.problemParams, entry.value(regression ? "regression" : "classification").toObject().value("params").toObject());
    const QJsonObject lr = entry.value("long_run").toObject();
    merge(r.longParams, lr.value("params").toObject());
    if (lr.contains("rows"))
        r.rows = lr.value("rows").toInteger();
    if (lr.contains("inputs"))
        r.inputs = lr.value("inputs").toInteger();
}

class FirstCheckpoint final : public tb::RunObserver {
public:
    void checkpointLogged(const tb::RunJob&, qint64, const tb::MetricPoint&) override
    {
        std::lock_guard lock(m_mutex);
        m_seen = true;
        m_cv.notify_all();
    }
    void wait(std::chrono::milliseconds limit)
    {
        std::unique_lock lock(m_mutex);
        m_cv.wait_for(lock, limit, [&] { return m_seen; });
    }

private:
    std::mutex m_mutex;
    std::condition_variable m_cv;
    bool m_seen = false;
};

double median(std::vector<double> v)
{
    if (v.empty())
        return std::nan("");
    std::sort(v.begin(), v.end());
    const std::size_t n = v.size();
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

} // namespace

int main(int argc, char** argv)
{
    tb::ProcessSetup::useHugePages(argv); // as the workbench and the CLI run: may restart once
    QCoreApplication app(argc, argv);
    QTextStream out(stdout);
    QTextStream err(stderr);
    int repeats = 5, delayMs = 50;
    QStringList ids;
    const QStringList args = app.arguments().mid(1);
    for (int i = 0; i < args.size(); ++i) {
        const QString& a = args[i];
        if ((a == "--repeats" || a == "--delay-ms") && i + 1 < args.size()) {
            bool ok = false;
            const int v = args[++i].toInt(&ok);
            if (!ok || v < (a == "--repeats" ? 1 : 0)) {
                err << "stop_latency: " << a << " needs a whole number" << (a == "--repeats" ? " ≥ 1" : " ≥ 0")
                    << ", got \"" << args[i] << "\"\n";
                return 2;
            }
            (a == "--repeats" ? repeats : delayMs) = v;
        } else if (a.startsWith("--")) {
            err << "usage: stop_latency [--repeats N] [--delay-ms D] [ALGORITHM-ID...]\n";
            return 2;
        } else {
            ids << a;
        }
    }

    tb::PluginRegistry registry;
    registry.scan();
    QList<tb::AlgorithmEntry> algorithms;
    for (const QString& id : ids) {
        if (!registry.algorithm(id)) {
            err << "stop_latency: no algorithm \"" << id << "\" in " << registry.searchPaths().join(':') << '\n';
            return 2;
        }
        algorithms << *registry.algorithm(id);
    }
    if (ids.isEmpty())
        algorithms = registry.algorithms();
    if (algorithms.isEmpty()) {
        err << "stop_latency: no algorithms in " << registry.searchPaths().join(':') << '\n';
        return 2;
    }

    out << QString("Stop %1 ms after the first checkpoint (or after 300 ms), %2 runs each, 2 threads\n")
               .arg(delayMs)
               .arg(repeats);
    out << QString("%1 %2 %3 %4  %5\n")
               .arg("algorithm", -26)
               .arg("median ms", 10)
               .arg("max ms", 8)
               .arg("CPU ms", 8)
               .arg("ended");
    out.flush();
    int status = 0;
    for (const tb::AlgorithmEntry& e : algorithms) {
        LongRun lr;
        const QJsonObject conf =
            QPluginLoader(e.plugin->filePath).metaData().value("MetaData").toObject().value("conformance").toObject();
        apply(lr, conf.value("default").toObject(), e.info.regression);
        apply(lr, conf.value(e.info.id).toObject(), e.info.regression);
        QVariantMap params = lr.problemParams;
        for (auto it = lr.longParams.begin(); it != lr.longParams.end(); ++it)
            params.insert(it.key(), it.value());
        const auto data = longRunProblem(e.info.classification, lr.rows, lr.inputs);
        std::vector<double> wall, cpu;
        QMap<QString, int> ends;
        for (int r = 0; r < repeats; ++r) {
            tb::RunJob job;
            job.algorithmId = job.label = e.info.id;
            job.params = params;
            job.data = data;
            job.datasetDescription = data->train.description;
            job.threads = 2;
            tb::StopSource stop;
            FirstCheckpoint first;
            auto fut = std::async(std::launch::async, [&] {
                tb::RunResult res;
                tbb::task_arena(2).execute([&] { res = tb::Runner(registry, nullptr).execute(job, stop, &first); });
                return res;
            });
            first.wait(std::chrono::milliseconds(300));
            std::this_thread::sleep_for(std::chrono::milliseconds(delayMs));
            const bool endedBefore = fut.wait_for(std::chrono::seconds(0)) == std::future_status::ready;
            const double cpu0 = processCpuMs();
            const auto t0 = Clock::now();
            stop.requestStop();
            const tb::RunResult res = fut.get();
            const double ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
            const double cpuMs = processCpuMs() - cpu0;
            const QString end = endedBefore ? QStringLiteral("before Stop: ") + tb::runStatusName(res.status)
                                            : tb::runStatusName(res.status);
            ++ends[end];
            if (!endedBefore) {
                wall.push_back(ms);
                cpu.push_back(cpuMs);
            }
            if (!endedBefore && res.status != tb::RunStatus::Cancelled)
                status = 1;
        }
        QStringList endText;
        for (auto it = ends.begin(); it != ends.end(); ++it)
            endText << QString("%1 %2").arg(it.value()).arg(it.key());
        out << QString("%1 %2 %3 %4  %5\n")
                   .arg(e.info.id, -26)
                   .arg(median(wall), 10, 'f', 1)
                   .arg(wall.empty() ? std::nan("") : *std::max_element(wall.begin(), wall.end()), 8, 'f', 1)
                   .arg(median(cpu), 8, 'f', 1)
                   .arg(endText.join(", "));
        out.flush();
    }
    return status;
}
