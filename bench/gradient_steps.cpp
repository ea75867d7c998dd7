// Cost of one update of the gradient plugin's methods, per batch size, on synthetic
// Fashion-MNIST-shaped data (784 inputs in [0, 1], about half of them zero, 10 classes; network
// 784-50-10 sigmoid/softmax) through the engine's Runner. Each configuration runs `repeats`
// one-epoch runs and keeps the fastest: the minimum filters other processes' load on a shared
// machine, which is what a step costs, not what it waited for.
//
//   build/bin/gradient_steps [--rows 10000] [--repeats 5] [--threads 2] [--batches 1,32,128,1024]
//                            [--algorithms gradient.sgd,gradient.adam]
//
// Prints µs per update and the implied seconds for a 60000-sample epoch.
#include <Dataset.h>
#include <PluginRegistry.h>
#include <Runner.h>

#include <QCoreApplication>
#include <QStringList>
#include <algorithm>
#include <cstdio>
#include <random>
#include <tbb/task_arena.h>
#include <ProcessSetup.h>

int main(int argc, char** argv)
{
    tb::ProcessSetup::useHugePages(argv); // as the workbench and the CLI run: may restart once
    QCoreApplication app(argc, argv);
    int rows = 10000, repeats = 5, threads = 2;
    QStringList batches{"1", "32", "128", "1024"};
    QStringList algorithms{"gradient.sgd", "gradient.adam"};
    const QStringList args = app.arguments();
    for (int i = 1; i + 1 < args.size(); i += 2) {
        const QString& a = args[i];
        const QString& v = args[i + 1];
        if (a == "--rows") rows = v.toInt();
        else if (a == "--repeats") repeats = v.toInt();
        else if (a == "--threads") threads = v.toInt();
        else if (a == "--batches") batches = v.split(',');
        else if (a == "--algorithms") algorithms = v.split(',');
        else {
            std::fprintf(stderr, "unknown option %s\n", qPrintable(a));
            return 2;
        }
    }
    tb::PluginRegistry reg;
    reg.scan();

    auto data = std::make_shared<tb::data::DatasetPair>();
    std::mt19937_64 gen(1);
    auto make = [&](tb::data::Dataset& s, int n) {
        s.task = tb::Task::Classification;
        for (int c = 0; c < 10; ++c)
            s.classNames << QString::number(c);
        s.x.resize(n, 784);
        s.labels.resize(std::size_t(n));
        for (Eigen::Index j = 0; j < 784; ++j)
            for (Eigen::Index i = 0; i < n; ++i)
                s.x(i, j) = (gen() & 1) ? 0.0 : double(gen() >> 11) * 0x1.0p-53;
        for (auto& l : s.labels)
            l = int(gen() % 10);
        s.setOneHotFromLabels();
    };
    make(data->train, rows);
    make(data->test, 100);

    std::printf("%-20s %8s %12s %16s\n", "algorithm", "batch", "us/update", "s/60000 samples");
    for (const QString& alg : algorithms) {
        for (const QString& b : batches) {
            const int batch = b.toInt();
            double best = 1e300;
            for (int r = 0; r < repeats; ++r) {
                tb::RunJob job;
                job.algorithmId = alg;
                job.params = QVariantMap{{"batch_size", batch}, {"epochs", 1}, {"hidden", QVariantList{50}}};
                job.data = data;
                job.threads = threads;
                job.evaluateCheckpoints = false;
                tb::StopSource stop;
                tb::RunResult res;
                tbb::task_arena(threads).execute([&] { res = tb::Runner(reg, nullptr).execute(job, stop); });
                if (res.status != tb::RunStatus::Finished) {
                    std::fprintf(stderr, "%s: %s\n", qPrintable(alg), qPrintable(res.error));
                    return 1;
                }
                best = std::min(best, res.trainSeconds);
            }
            const double updates = std::ceil(double(rows) / batch);
            std::printf("%-20s %8d %12.2f %16.3f\n", qPrintable(alg), batch, 1e6 * best / updates,
                        best * 60000.0 / rows);
        }
    }
    return 0;
}
