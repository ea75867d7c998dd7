// Cost of one update of the gradient plugin's methods, per batch size, on synthetic
// Fashion-MNIST-shaped data (784 inputs in [0, 1], about half of them zero, 10 classes; network
// 784-50-10 sigmoid/softmax) through the engine's Runner. Each configuration runs `repeats`
// one-epoch runs and keeps the fastest: the minimum filters other processes' load on a shared
// machine, which is what a step costs, not what it waited for.
//
//   build/bin/gradient_steps [--rows 10000] [--repeats 5] [--threads 2] [--batches 1,32,128,1024]
//                            [--algorithms gradient.sgd,gradient.adam] [--precisions double,float32] [--quick]
//
// Prints µs per update and the implied seconds for a 60000-sample epoch.
#include <support/BenchArguments.h>
#include <support/BenchMain.h>
#include <support/BenchRunner.h>

#include <engine/TextTable.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

using tb::bench::BenchArguments;

int main(int argc, char** argv)
{
    BenchArguments args(
        "gradient_steps",
        "Microseconds per update of the gradient plugin's methods by batch size, on synthetic "
        "784-input data (one-epoch runs through the engine's Runner, the fastest of --repeats).");
    args.add("rows", "N", "synthetic training rows", "10000", "2000");
    args.add(BenchArguments::Common::Repeats, "5", "1", "the fastest counts");
    args.add(BenchArguments::Common::Threads, "2");
    args.add("batches", "B,B,…", "batch sizes", "1,32,128,1024");
    args.add("algorithms", "ID,ID,…", "algorithm ids", "gradient.sgd,gradient.adam");
    args.add("precisions", "P,P,…", "the plugin's \"precision\" values to time (double, float32)", "double");
    return tb::bench::benchMain(argc, argv, args, {}, [&] {
        const int rows = int(args.integer("rows", 1));
        const int repeats = int(args.integer("repeats", 1));
        const int threads = int(args.integer("threads", 1, 1024));
        const QList<qint64> batches = args.integers("batches", 1, 1 << 30);
        const QStringList algorithms = args.list("algorithms");
        const QStringList precisions = args.list("precisions");
        const tb::bench::BenchRunner runner;
        for (const QString& alg : algorithms)
            runner.require(alg);

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

        tb::TextTable table({"algorithm", "precision", "batch", "us/update", "s/60000 samples"});
        for (int c = 2; c < 5; ++c)
            table.setAlign(c, tb::TextTable::Align::Right);
        // The precisions alternate within each repeat (A B A B …): both see the same load.
        for (const QString& alg : algorithms) {
            for (qint64 batch : batches) {
                std::vector<double> best(std::size_t(precisions.size()), 1e300);
                for (int r = 0; r < repeats; ++r) {
                    for (qsizetype p = 0; p < precisions.size(); ++p) {
                        tb::RunJob job = tb::bench::BenchRunner::job(alg,
                                                                     {{"batch_size", batch},
                                                                      {"epochs", 1},
                                                                      {"hidden", QVariantList{50}},
                                                                      {"precision", precisions[p]}},
                                                                     data, 1, threads);
                        job.evaluateCheckpoints = false;
                        const tb::bench::BenchRun res = runner.run(job);
                        res.requireFinished(alg);
                        best[std::size_t(p)] = std::min(best[std::size_t(p)], res.result.trainSeconds);
                    }
                }
                const double updates = std::ceil(double(rows) / double(batch));
                for (qsizetype p = 0; p < precisions.size(); ++p)
                    table.addRow({alg, precisions[p], QString::number(batch),
                                  QString::number(1e6 * best[std::size_t(p)] / updates, 'f', 2),
                                  QString::number(best[std::size_t(p)] * 60000.0 / rows, 'f', 3)});
            }
        }
        std::fputs(qPrintable(table.render(tb::TextTable::Format::Text)), stdout);
        return 0;
    });
}
