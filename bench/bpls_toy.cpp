// The BPLS paper's toy noise sweeps (Tomić et al. 2024, Fig. 4 linear, Fig. 5 non-linear).
//
//   bpls_toy [--function linear|nonlinear] [--mc 1000] [--threads 2] [--seed 1]
//            [--params '{"hidden_activation":"identity"}'] [--csv out.csv] [--quick]
//
// For every σ in 0, 0.1, …, 1.0 and Monte-Carlo index m, the cell's data come from
// tb::data::Generators::bplsToy with seed deriveSeed(seed, σ_index·Mc + m) (the engine's
// noise-sweep convention, docs/experiments.md) and bpls.regress trains on it with the same
// seed, through the engine's Runner as a noise-sweep cell (one thread, checkpoints not
// evaluated, the final model evaluated once). Reported per σ: the paper's RMSE =
// sqrt(1/Mc Σ_m RMSE_m²) for train and test (train against the noisy targets the net was fitted
// to), and the mean ± std of the per-run RMSE that the engine stores. Cells run in parallel.
// Default parameters follow the paper: linear → identity activations; non-linear → sigmoid.

#include <support/BenchArguments.h>
#include <support/BenchMain.h>
#include <support/BenchRunner.h>
#include <support/CsvWriter.h>
#include <support/Spread.h>
#include <support/Stopwatch.h>

#include <data/Generators.h>
#include <engine/TextTable.h>
#include <trainbench/Seeds.h>

#include <QJsonDocument>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <cmath>
#include <cstdio>

using tb::bench::BenchArguments;

int main(int argc, char** argv)
{
    BenchArguments args("bpls_toy",
                        "The BPLS paper's toy noise sweeps (Fig. 4 and 5): bpls.regress on 11 noise "
                        "levels × Mc Monte-Carlo cells through the engine's Runner.");
    args.add("function", "linear|nonlinear", "the toy function", "linear");
    args.add("mc", "N", "Monte-Carlo cells per σ", "1000", "20");
    args.add(BenchArguments::Common::Threads, "2", {}, "cells run in parallel, one thread each");
    args.add(BenchArguments::Common::Seed, "1", {}, "the sweep's base seed (cells: deriveSeed(seed, cell))");
    args.add(BenchArguments::Common::Params, {}, {}, "added to the paper's activations");
    args.add(BenchArguments::Common::Csv);
    return tb::bench::benchMain(argc, argv, args, {}, [&] {
        const QString function = args.text("function");
        if (function != "linear" && function != "nonlinear")
            throw args.invalid("function", "expected linear or nonlinear");
        const int mc = int(args.integer("mc", 1));
        const int threads = int(args.integer("threads", 1, 1024));
        const std::uint64_t seed = args.seed("seed");
        const bool linear = function == "linear";
        QVariantMap p =
            linear ? QVariantMap{{"hidden_activation", "identity"}, {"output_activation", "identity"}}
                   : QVariantMap{{"hidden_activation", "sigmoid"}, {"output_activation", "sigmoid"}};
        p.insert(args.jsonObject("params").toVariantMap());
        const tb::bench::BenchRunner runner;
        const QVariantMap norm = runner.normalise("bpls.regress", p);
        std::printf(
            "bpls.regress on the %s toy, Mc = %d, params %s\n", qPrintable(function), mc,
            QJsonDocument(QJsonObject::fromVariantMap(norm)).toJson(QJsonDocument::Compact).constData());
        std::unique_ptr<tb::bench::CsvWriter> csv;
        if (!args.text("csv").isEmpty())
            csv = std::make_unique<tb::bench::CsvWriter>(
                args.text("csv"), QStringList{"sigma", "train_rmse", "test_rmse", "train_mean", "train_std",
                                              "test_mean", "test_std"});
        tb::TextTable table({"sigma", "train RMSE", "test RMSE", "train mean ± std", "test mean ± std"});
        for (int c = 1; c < 5; ++c)
            table.setAlign(c, tb::TextTable::Align::Right);
        const auto f = linear ? tb::data::BplsToyFunction::Linear : tb::data::BplsToyFunction::Nonlinear;
        tbb::task_arena arena(threads);
        const tb::bench::Stopwatch clock;
        for (int s = 0; s <= 10; ++s) {
            const double sigma = 0.1 * s;
            std::vector<double> train(std::size_t(mc), 0.0), test(std::size_t(mc), 0.0);
            std::vector<QString> failures(static_cast<std::size_t>(mc));
            arena.execute([&] {
                tbb::parallel_for(0, mc, [&](int m) {
                    const std::uint64_t cell =
                        tb::deriveSeed(seed, std::uint64_t(s) * std::uint64_t(mc) + std::uint64_t(m));
                    auto data = std::make_shared<const tb::data::DatasetPair>(
                        tb::data::Generators::bplsToy(f, sigma, cell));
                    // A noise-sweep cell, as the engine runs one: no store, final metrics only.
                    tb::RunJob job = tb::bench::BenchRunner::job("bpls.regress", norm, data, cell, 1);
                    job.sigma = sigma;
                    job.evaluateCheckpoints = false;
                    job.logToStore = false;
                    job.measureMemory = false;
                    const tb::bench::BenchRun r = runner.runHere(job);
                    if (!r.finished())
                        failures[std::size_t(m)] = tb::runStatusName(r.result.status) + ": " + r.result.error;
                    train[std::size_t(m)] = r.result.last.trainRmse;
                    test[std::size_t(m)] = r.result.last.testRmse;
                });
            });
            for (int m = 0; m < mc; ++m)
                if (!failures[std::size_t(m)].isEmpty())
                    throw std::runtime_error(QStringLiteral("σ = %1, cell %2: %3")
                                                 .arg(sigma)
                                                 .arg(m)
                                                 .arg(failures[std::size_t(m)])
                                                 .toStdString());
            double tr2 = 0, te2 = 0;
            for (int m = 0; m < mc; ++m) {
                tr2 += train[std::size_t(m)] * train[std::size_t(m)];
                te2 += test[std::size_t(m)] * test[std::size_t(m)];
            }
            const auto tm = tb::bench::Spread::of(train), em = tb::bench::Spread::of(test);
            auto g = [](double v, int digits) { return QString::number(v, 'g', digits); };
            table.addRow({QString::number(sigma, 'f', 1), g(std::sqrt(tr2 / mc), 4),
                          g(std::sqrt(te2 / mc), 4), g(tm.mean, 4) + " ± " + g(tm.std, 3),
                          g(em.mean, 4) + " ± " + g(em.std, 3)});
            if (csv)
                csv->addRow({QString::number(sigma), QString::number(std::sqrt(tr2 / mc)),
                             QString::number(std::sqrt(te2 / mc)), QString::number(tm.mean),
                             QString::number(tm.std), QString::number(em.mean), QString::number(em.std)});
        }
        std::fputs(qPrintable(table.render(tb::TextTable::Format::Text)), stdout);
        std::printf("%d fits in %.2f s on %d threads\n", 11 * mc, clock.seconds(), threads);
        if (csv)
            csv->close();
        return 0;
    });
}
