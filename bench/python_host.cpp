/// python_host — what the Python trainer host (plugins/python) adds to each checkpoint.
///
///   python_host [--checkpoints 20000] [--rows 16] [--repeats 5] [--quick]
///
/// Issue 48's goal: a Python trainer's per-checkpoint host overhead ≤ 50 µs. One loop, two ways,
/// alternating within every repeat (C++, Python, C++, Python …) so that both see the same load:
///  - **C++**: a trainer of this program whose fit() calls ctx.checkpoint() N times and whose
///    predict() returns a zero matrix — the host's own work per checkpoint, the reference;
///  - **Python**: the same loop as a Python script (written to a temporary folder and loaded through
///    the real PluginRegistry and the python plugin, TRAINBENCH_PYTHON_PATH), trained through the same
///    context: each checkpoint crosses into C++ (the GIL released), the host calls the script's
///    predict() back on the same thread (the GIL taken, X wrapped as a NumPy view, the result checked
///    and converted) — the overhead is its time per checkpoint minus C++'s.
/// The context evaluates predict() on the training and the test rows at every checkpoint, as the
/// engine's runner does (RunContext: Runner.cpp), on --rows rows of 2 inputs and 2 outputs, so the
/// host's arithmetic is negligible and what is measured is the crossing. Printed: µs per checkpoint
/// of each (median over repeats), and the overhead with the goal. The Python figure includes the
/// script's own loop and predict() (a dict lookup): a few µs of what is counted as the host's.

#include <support/BenchArguments.h>
#include <support/BenchMain.h>

#include <engine/PluginRegistry.h>
#include <trainbench/Trainbench.h>

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTextStream>

#include <algorithm>
#include <chrono>
#include <stdexcept>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

// The loop as a Python trainer.
const char* kScript = R"(import numpy as np


class Trainer:
    name = "Checkpoint loop"
    params = {"checkpoints": {"type": "int", "default": 1000, "min": 1, "max": 100000000}}

    def __init__(self, params):
        self.n = params["checkpoints"]
        self.out = {}

    def fit(self, data, ctx):
        self.k = data.y.shape[1]
        for i in range(self.n):
            ctx.checkpoint(i + 1)

    def predict(self, X):
        out = self.out.get(X.shape[0])
        if out is None:
            out = self.out[X.shape[0]] = np.zeros((X.shape[0], self.k))
        return out

)";

/// The same loop in C++.
class LoopTrainer final : public tb::Trainer {
public:
    explicit LoopTrainer(int checkpoints) : m_n(checkpoints) {}
    void fit(const tb::DatasetView& data, tb::RunContext& ctx) override
    {
        m_k = data.outputs();
        tb::Checkpoint cp;
        for (int i = 0; i < m_n; ++i) {
            cp.epoch = double(i + 1);
            ctx.checkpoint(cp);
        }
    }
    Eigen::MatrixXd predict(const Eigen::Ref<const Eigen::MatrixXd>& x) const override
    {
        return Eigen::MatrixXd::Zero(x.rows(), m_k);
    }

private:
    int m_n;
    Eigen::Index m_k = 0;
};

/// What a checkpoint costs the host at least: predict() on the training and the test rows, a
/// check that they are finite (as Runner.cpp's evaluation), nothing stored.
class EvaluatingContext final : public tb::RunContext {
public:
    EvaluatingContext(const tb::Trainer& trainer, const Eigen::MatrixXd& train, const Eigen::MatrixXd& test)
        : m_trainer(trainer), m_train(train), m_test(test)
    {
    }
    std::uint64_t seed() const override { return 1; }
    int threads() const override { return 1; }
    tb::StopToken stopToken() const override { return m_stop.token(); }
    tb::CheckpointAction checkpoint(const tb::Checkpoint&) override
    {
        const Eigen::MatrixXd a = m_trainer.predict(m_train), b = m_trainer.predict(m_test);
        if (!a.allFinite() || !b.allFinite())
            throw std::runtime_error("python_host: non-finite predictions");
        ++m_checkpoints;
        return tb::CheckpointAction::Continue;
    }
    void record(const QString&, const QJsonValue&) override {}
    void log(const QString&) override {}
    long checkpoints() const { return m_checkpoints; }

private:
    const tb::Trainer& m_trainer;
    const Eigen::MatrixXd& m_train;
    const Eigen::MatrixXd& m_test;
    tb::StopSource m_stop;
    long m_checkpoints = 0;
};

/// Seconds per checkpoint of @p trainer's fit() through EvaluatingContext.
double perCheckpoint(tb::Trainer& trainer, const Eigen::MatrixXd& x, const Eigen::MatrixXd& y, int n)
{
    EvaluatingContext ctx(trainer, x, x);
    const tb::DatasetView view(x, y, tb::Task::Regression);
    const auto start = Clock::now();
    trainer.fit(view, ctx);
    const double s = std::chrono::duration<double>(Clock::now() - start).count();
    if (ctx.checkpoints() != n)
        throw std::runtime_error("python_host: the trainer made " + std::to_string(ctx.checkpoints()) +
                                 " checkpoints, not " + std::to_string(n));
    return s / n;
}

double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    const size_t m = v.size() / 2;
    return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

} // namespace

int main(int argc, char** argv)
{
    using tb::bench::BenchArguments;
    BenchArguments args("python_host", "What the Python trainer host adds to each checkpoint (issue 48: ≤ 50 µs), "
                                       "against the same loop in C++ through the same context.");
    args.add("checkpoints", "N", "checkpoints per fit()", "20000", "2000");
    args.add("rows", "N", "rows predicted at each checkpoint (twice: train and test)", "16");
    args.add(BenchArguments::Common::Repeats, "5", "3");
    return tb::bench::benchMain(argc, argv, args, {}, [&] {
        QTextStream out(stdout);
        const int n = int(args.integer("checkpoints", 1, 100000000));
        const int rows = int(args.integer("rows", 1, 1000000));
        const int repeats = int(args.integer("repeats", 1, 1000));
        QTemporaryDir dir;
        QFile script(QDir(dir.path()).filePath(QStringLiteral("checkpoint_loop.py")));
        if (!dir.isValid() || !script.open(QIODevice::WriteOnly) || script.write(kScript) < 0 || !script.flush())
            throw std::runtime_error("python_host: cannot write the script into a temporary folder");
        script.close();
        qputenv("TRAINBENCH_PYTHON_PATH", QFile::encodeName(dir.path()));
        tb::PluginRegistry registry;
        registry.scan();
        if (!registry.algorithm(QStringLiteral("python.checkpoint_loop"))) {
            QStringList problems;
            for (const auto& p : registry.plugins())
                if (p->family == QLatin1String("python") || p->filePath.endsWith(QLatin1String(".py")))
                    problems << p->filePath + ": " + p->stateName() + " " + p->error;
            throw std::runtime_error(("python_host: python.checkpoint_loop not loaded (is the python plugin built?) " +
                                      problems.join(QStringLiteral("; ")))
                                         .toStdString());
        }
        const Eigen::MatrixXd x = Eigen::MatrixXd::Zero(rows, 2), y = Eigen::MatrixXd::Zero(rows, 2);
        const QVariantMap params{{QStringLiteral("checkpoints"), n}};
        std::vector<double> cpp, python;
        for (int r = 0; r < repeats; ++r) {
            LoopTrainer c(n);
            cpp.push_back(perCheckpoint(c, x, y, n));
            auto p = registry.create(QStringLiteral("python.checkpoint_loop"), params);
            python.push_back(perCheckpoint(*p, x, y, n));
        }
        const double c = median(cpp), p = median(python);
        out << "python_host: " << repeats << " repeats × " << n << " checkpoints, predict() on 2 × " << rows
            << " rows per checkpoint\n";
        out << "  C++ trainer        " << QString::number(1e6 * c, 'f', 2) << " µs/checkpoint\n";
        out << "  Python trainer     " << QString::number(1e6 * p, 'f', 2) << " µs/checkpoint\n";
        out << "RESULT python host overhead " << QString::number(1e6 * (p - c), 'f', 2)
            << " µs/checkpoint (goal ≤ 50)\n";
        return 0;
    });
}
