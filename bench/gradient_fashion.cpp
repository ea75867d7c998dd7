// Gradient baselines on Fashion-MNIST through the engine (PluginRegistry + Runner), timed by
// the host's training clock exactly as in the workbench (evaluation at checkpoints excluded).
// Network 784-50-10, sigmoid hidden layer, softmax output with cross-entropy, U[-1, 1] init.
//
//   build/bin/gradient_fashion [--threads 2] [--epochs 10] [--batch 128] [--algorithm gradient.adam]
//                              [--lr 0.001] [--batch1-epochs 1] [--repeats 1] [--skip-batch1]
//                              [--train-limit N] [--init uniform|glorot]
//
// Prints one line per epoch (s/epoch, loss, train/test accuracy) of the minibatch run, then the
// batch-1 run, then a summary line "RESULT ..." that bench/README.md quotes. Compare with
// bench/pytorch_fashion.py run in the same session (see bench/README.md, "Gradient baselines").
#include <DataSource.h>
#include <PluginRegistry.h>
#include <Runner.h>

#include <QCoreApplication>
#include <QJsonObject>
#include <QStringList>
#include <algorithm>
#include <cstdio>
#include <tbb/task_arena.h>
#include <vector>
#include <ProcessSetup.h>

namespace {

struct Options {
    int threads = 2;
    int epochs = 10;
    int batch = 128;
    QString algorithm = QStringLiteral("gradient.adam");
    double lr = 1e-3;
    int batch1Epochs = 1;
    int repeats = 1;
    bool skipBatch1 = false;
    int trainLimit = 0;
    QString init = QStringLiteral("uniform");
};

Options parse(const QStringList& args)
{
    Options o;
    for (int i = 1; i < args.size(); ++i) {
        const QString& a = args[i];
        const QString v = i + 1 < args.size() ? args[i + 1] : QString();
        if (a == "--threads") o.threads = v.toInt(), ++i;
        else if (a == "--epochs") o.epochs = v.toInt(), ++i;
        else if (a == "--batch") o.batch = v.toInt(), ++i;
        else if (a == "--algorithm") o.algorithm = v, ++i;
        else if (a == "--lr") o.lr = v.toDouble(), ++i;
        else if (a == "--batch1-epochs") o.batch1Epochs = v.toInt(), ++i;
        else if (a == "--repeats") o.repeats = v.toInt(), ++i;
        else if (a == "--train-limit") o.trainLimit = v.toInt(), ++i;
        else if (a == "--init") o.init = v, ++i;
        else if (a == "--skip-batch1") o.skipBatch1 = true;
        else {
            std::fprintf(stderr, "unknown option %s\n", qPrintable(a));
            std::exit(2);
        }
    }
    return o;
}

tb::RunResult run(const tb::PluginRegistry& reg, const Options& o, std::shared_ptr<const tb::data::DatasetPair> data,
                  int batch, int epochs, std::uint64_t seed)
{
    tb::RunJob job;
    job.algorithmId = o.algorithm;
    job.params = QVariantMap{{"lr", o.lr}, {"batch_size", batch}, {"epochs", epochs}, {"hidden", QVariantList{50}},
                             {"activation", "sigmoid"}, {"init", o.init}};
    job.seed = seed;
    job.data = std::move(data);
    job.datasetDescription = "fashion-mnist";
    job.threads = o.threads;
    tb::StopSource stop;
    tb::RunResult r;
    tbb::task_arena arena(o.threads);
    arena.execute([&] { r = tb::Runner(reg, nullptr).execute(job, stop); });
    if (r.status != tb::RunStatus::Finished) {
        std::fprintf(stderr, "run failed: %s %s\n", qPrintable(tb::runStatusName(r.status)), qPrintable(r.error));
        std::exit(1);
    }
    return r;
}

} // namespace

int main(int argc, char** argv)
{
    tb::ProcessSetup::useHugePages(argv); // as the workbench and the CLI run: may restart once
    QCoreApplication app(argc, argv);
    const Options o = parse(app.arguments());
    tb::PluginRegistry reg;
    reg.scan();
    if (!reg.algorithm(o.algorithm)) {
        std::fprintf(stderr, "algorithm %s not found; plugin paths: %s\n", qPrintable(o.algorithm),
                     qPrintable(reg.searchPaths().join(':')));
        return 1;
    }
    QJsonObject spec{{"source", "fashion-mnist"}};
    if (o.trainLimit > 0)
        spec.insert("train_limit", o.trainLimit);
    auto data = std::make_shared<const tb::data::DatasetPair>(tb::data::DataSource::load(spec, QString()));
    std::printf("data: %lld train, %lld test, %lld inputs; %s, %d threads\n", (long long)data->train.rows(),
                (long long)data->test.rows(), (long long)data->train.inputs(), qPrintable(o.algorithm), o.threads);

    std::vector<double> perEpoch;  // every epoch of every repeat
    double lastTest = 0, lastTrain = 0;
    for (int rep = 0; rep < o.repeats; ++rep) {
        const tb::RunResult r = run(reg, o, data, o.batch, o.epochs, 1 + std::uint64_t(rep));
        double prev = 0;
        for (const tb::MetricPoint& p : r.points) {
            perEpoch.push_back(p.trainTime - prev);
            std::printf("batch %d  epoch %2.0f  %.3f s  loss %.4f  train %.2f %%  test %.2f %%\n", o.batch, p.epoch,
                        p.trainTime - prev, p.loss, 100 * p.trainAccuracy, 100 * p.testAccuracy);
            prev = p.trainTime;
        }
        lastTest = r.last.testAccuracy;
        lastTrain = r.last.trainAccuracy;
    }
    std::vector<double> sorted = perEpoch;
    std::sort(sorted.begin(), sorted.end());
    const double median = sorted[sorted.size() / 2];
    double mean = 0;
    for (double t : perEpoch)
        mean += t / double(perEpoch.size());

    double batch1 = -1, batch1Test = 0;
    if (!o.skipBatch1) {
        const tb::RunResult r = run(reg, o, data, 1, o.batch1Epochs, 1);
        batch1 = r.last.trainTime / double(o.batch1Epochs);
        batch1Test = r.last.testAccuracy;
        std::printf("batch 1  %d epoch(s)  %.3f s/epoch  train %.2f %%  test %.2f %%\n", o.batch1Epochs, batch1,
                    100 * r.last.trainAccuracy, 100 * batch1Test);
    }
    std::printf("RESULT cpp %s threads=%d batch=%d epochs=%d median_s_per_epoch=%.4f mean_s_per_epoch=%.4f "
                "train_acc=%.2f test_acc=%.2f batch1_s_per_epoch=%.3f batch1_test_acc=%.2f\n",
                qPrintable(o.algorithm), o.threads, o.batch, o.epochs, median, mean, 100 * lastTrain, 100 * lastTest,
                batch1, 100 * batch1Test);
    return 0;
}
