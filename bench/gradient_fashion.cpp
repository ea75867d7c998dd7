// Gradient baselines on Fashion-MNIST through the engine (PluginRegistry + Runner), timed by
// the host's training clock exactly as in the workbench (evaluation at checkpoints excluded).
// Network 784-50-10, sigmoid hidden layer, softmax output with cross-entropy.
//
//   build/bin/gradient_fashion [--threads 2] [--epochs 10] [--batch 128] [--algorithm gradient.adam]
//                              [--lr 0.001] [--batch1-epochs 1] [--seeds 1] [--skip-batch1]
//                              [--train-limit N] [--init uniform|glorot] [--precision double|float32]
//                              [--first-seed S] [--data DIR] [--quick]
//
// Prints one line per epoch (s/epoch, loss, train/test accuracy) of the minibatch run (seeds
// S … S + --seeds − 1), then the batch-1 run (seed S), then a summary line "RESULT ..." that
// bench/README.md quotes and bench/pytorch_fashion.py parses. Compare with
// bench/pytorch_fashion.py run in the same session (see bench/README.md, "Gradient baselines").
#include <support/BenchArguments.h>
#include <support/BenchData.h>
#include <support/BenchMain.h>
#include <support/BenchRunner.h>
#include <support/Spread.h>

#include <cstdio>
#include <vector>

using tb::bench::BenchArguments;

int main(int argc, char** argv)
{
    BenchArguments args(
        "gradient_fashion",
        "The gradient plugin on Fashion-MNIST (784-50-10, sigmoid, softmax) through the engine's "
        "Runner: seconds per epoch on the host's training clock, and accuracy.");
    args.add(BenchArguments::Common::Threads, "2");
    args.add("epochs", "N", "epochs of the minibatch run", "10", "2");
    args.add("batch", "B", "minibatch size", "128");
    args.add(BenchArguments::Common::Algorithm, "gradient.adam");
    args.add("lr", "RATE", "learning rate", "0.001");
    args.add("batch1-epochs", "N", "epochs of the batch-1 run", "1");
    args.add(BenchArguments::Common::Seeds, "1", {}, "the minibatch run, seeds 1 … N");
    args.addSwitch("skip-batch1", "leave out the batch-1 run");
    args.add(BenchArguments::Common::TrainLimit, "0", "6000");
    args.add("init", "uniform|glorot", "initial weights: U[-1, 1] (the BPLS paper's) or Glorot", "uniform");
    args.add("precision", "double|float32", "the plugin's \"precision\" parameter", "double");
    args.add("first-seed", "S", "seed of the first minibatch run and of the batch-1 run", "1");
    args.add(BenchArguments::Common::Data);
    return tb::bench::benchMain(argc, argv, args, {}, [&] {
        const int threads = int(args.integer("threads", 1, 1024));
        const int epochs = int(args.integer("epochs", 1));
        const int batch = int(args.integer("batch", 1));
        const QString algorithm = args.text("algorithm");
        const double lr = args.real("lr", 0);
        const int batch1Epochs = int(args.integer("batch1-epochs", 1));
        const int seeds = int(args.integer("seeds", 1));
        const QString init = args.text("init");
        const QString precision = args.text("precision");
        const auto firstSeed = std::uint64_t(args.integer("first-seed", 1));
        const tb::bench::BenchRunner runner;
        runner.require(algorithm);
        const auto data = std::make_shared<const tb::data::DatasetPair>(
            tb::bench::BenchData::load(tb::bench::BenchData::fashionMnistSpec(args)));
        std::printf("data: %lld train, %lld test, %lld inputs; %s, %d threads\n",
                    (long long)data->train.rows(), (long long)data->test.rows(),
                    (long long)data->train.inputs(), qPrintable(algorithm), threads);

        auto run = [&](int b, int e, std::uint64_t seed) {
            const QVariantMap params{{"lr", lr},
                                     {"batch_size", b},
                                     {"epochs", e},
                                     {"hidden", QVariantList{50}},
                                     {"activation", "sigmoid"},
                                     {"init", init},
                                     {"precision", precision}};
            tb::RunJob job = tb::bench::BenchRunner::job(algorithm, params, data, seed, threads);
            job.datasetDescription = "fashion-mnist";
            tb::bench::BenchRun r = runner.run(job);
            r.requireFinished(algorithm);
            return r.result;
        };

        std::vector<double> perEpoch; // every epoch of every seed
        double lastTest = 0, lastTrain = 0;
        for (int s = 0; s < seeds; ++s) {
            const tb::RunResult r = run(batch, epochs, firstSeed + std::uint64_t(s));
            double prev = 0;
            for (const tb::MetricPoint& p : r.points) {
                perEpoch.push_back(p.trainTime - prev);
                std::printf("batch %d  epoch %2.0f  %.3f s  loss %.4f  train %.2f %%  test %.2f %%\n", batch,
                            p.epoch, p.trainTime - prev, p.loss, 100 * p.trainAccuracy, 100 * p.testAccuracy);
                prev = p.trainTime;
            }
            lastTest = r.last.testAccuracy;
            lastTrain = r.last.trainAccuracy;
        }
        const tb::bench::Spread epoch = tb::bench::Spread::of(perEpoch);

        double batch1 = -1, batch1Test = 0;
        if (!args.isSet("skip-batch1")) {
            const tb::RunResult r = run(1, batch1Epochs, firstSeed);
            batch1 = r.last.trainTime / double(batch1Epochs);
            batch1Test = r.last.testAccuracy;
            std::printf("batch 1  %d epoch(s)  %.3f s/epoch  train %.2f %%  test %.2f %%\n", batch1Epochs,
                        batch1, 100 * r.last.trainAccuracy, 100 * batch1Test);
        }
        std::printf(
            "RESULT cpp %s precision=%s threads=%d batch=%d epochs=%d median_s_per_epoch=%.4f mean_s_per_epoch=%.4f "
            "train_acc=%.2f test_acc=%.2f batch1_s_per_epoch=%.3f batch1_test_acc=%.2f\n",
            qPrintable(algorithm), qPrintable(precision), threads, batch, epochs, epoch.median, epoch.mean, 100 * lastTrain,
            100 * lastTest, batch1, 100 * batch1Test);
        return 0;
    });
}
