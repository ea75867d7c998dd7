// The BPLS paper's toy noise sweeps (Tomić et al. 2024, Fig. 4 linear, Fig. 5 non-linear).
//
//   bpls_toy [--function linear|nonlinear] [--mc 1000] [--threads 2] [--seed 1]
//            [--params '{"hidden_activation":"identity"}'] [--csv out.csv]
//
// For every σ in 0, 0.1, …, 1.0 and Monte-Carlo index m, the cell's data come from
// tb::data::Generators::bplsToy with seed deriveSeed(seed, σ_index·Mc + m) (the engine's
// noise-sweep convention, docs/experiments.md) and bpls.regress trains on it with the same
// seed. Reported per σ: the paper's RMSE = sqrt(1/Mc Σ_m RMSE_m²) for train and test, and the
// mean ± std of the per-run RMSE that the engine stores. Cells run in parallel.
// Default parameters follow the paper: linear → identity activations; non-linear → sigmoid.

#include <BplsConfig.h>
#include <BplsTrainer.h>
#include <Generators.h>
#include <Metrics.h>

#include <trainbench/Seeds.h>
#include <trainbench/testing/TestRunContext.h>

#include <QCoreApplication>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTextStream>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <chrono>
#include <cstdio>
#include <iostream>
#include <ProcessSetup.h>

namespace {


} // namespace

int main(int argc, char** argv)
{
    tb::ProcessSetup::useHugePages(argv); // as the workbench and the CLI run: may restart once
    QCoreApplication app(argc, argv);
    try {
        QString function = "linear", params, csv;
        int mc = 1000, threads = 2;
        std::uint64_t seed = 1;
        for (int i = 1; i < argc; ++i) {
            const std::string k = argv[i];
            if (i + 1 >= argc)
                throw std::invalid_argument("missing value after " + k);
            const QString v = QString::fromLocal8Bit(argv[++i]);
            if (k == "--function")
                function = v;
            else if (k == "--mc")
                mc = v.toInt();
            else if (k == "--threads")
                threads = v.toInt();
            else if (k == "--seed")
                seed = v.toULongLong();
            else if (k == "--params")
                params = v;
            else if (k == "--csv")
                csv = v;
            else
                throw std::invalid_argument("unknown option " + k);
        }
        if (function != "linear" && function != "nonlinear")
            throw std::invalid_argument("--function must be linear or nonlinear");
        const bool linear = function == "linear";
        QVariantMap p = linear ? QVariantMap{{"hidden_activation", "identity"}, {"output_activation", "identity"}}
                               : QVariantMap{{"hidden_activation", "sigmoid"}, {"output_activation", "sigmoid"}};
        if (!params.isEmpty()) {
            const QJsonDocument doc = QJsonDocument::fromJson(params.toUtf8());
            if (!doc.isObject())
                throw std::invalid_argument("--params: not a JSON object");
            p.insert(doc.object().toVariantMap());
        }
        QString err;
        const auto norm = tb::bpls::BplsConfig::schema(false).normalise(p, &err);
        if (!norm)
            throw std::invalid_argument(err.toStdString());
        const tb::bpls::BplsConfig config = tb::bpls::BplsConfig::fromParams(*norm, false);
        std::printf("bpls.regress on the %s toy, Mc = %d, params %s\n", qPrintable(function), mc,
                    QJsonDocument(QJsonObject::fromVariantMap(*norm)).toJson(QJsonDocument::Compact).constData());
        std::printf("%6s %12s %12s %20s %20s\n", "sigma", "train RMSE", "test RMSE", "train mean±std", "test mean±std");
        QString table = "sigma,train_rmse,test_rmse,train_mean,train_std,test_mean,test_std\n";
        const auto f = linear ? tb::data::BplsToyFunction::Linear : tb::data::BplsToyFunction::Nonlinear;
        tbb::task_arena arena(threads);
        const auto t0 = std::chrono::steady_clock::now();
        for (int s = 0; s <= 10; ++s) {
            const double sigma = 0.1 * s;
            std::vector<double> train(std::size_t(mc), 0.0), test(std::size_t(mc), 0.0);
            arena.execute([&] {
                tbb::parallel_for(0, mc, [&](int m) {
                    const std::uint64_t cell = tb::deriveSeed(seed, std::uint64_t(s) * std::uint64_t(mc) + std::uint64_t(m));
                    const tb::data::DatasetPair data = tb::data::Generators::bplsToy(f, sigma, cell);
                    tb::bpls::BplsTrainer trainer(config);
                    tb::testing::TestRunContext ctx(cell); // fits only: the sweep evaluates the final model itself
                    trainer.fit(data.train.view(), ctx);
                    // Train RMSE against the noisy targets the net was fitted to, as in the paper.
                    train[std::size_t(m)] = tb::num::rmse(trainer.predict(data.train.x), data.train.y);
                    test[std::size_t(m)] = tb::num::rmse(trainer.predict(data.test.x), data.test.y);
                });
            });
            double tr2 = 0, te2 = 0;
            for (int m = 0; m < mc; ++m) {
                tr2 += train[std::size_t(m)] * train[std::size_t(m)];
                te2 += test[std::size_t(m)] * test[std::size_t(m)];
            }
            const auto tm = tb::num::meanStd(train), em = tb::num::meanStd(test);
            std::printf("%6.1f %12.4g %12.4g %10.4g ± %-8.3g %10.4g ± %-8.3g\n", sigma, std::sqrt(tr2 / mc),
                        std::sqrt(te2 / mc), tm.mean, tm.std, em.mean, em.std);
            table += QStringLiteral("%1,%2,%3,%4,%5,%6,%7\n")
                         .arg(sigma)
                         .arg(std::sqrt(tr2 / mc))
                         .arg(std::sqrt(te2 / mc))
                         .arg(tm.mean)
                         .arg(tm.std)
                         .arg(em.mean)
                         .arg(em.std);
        }
        std::printf("%d fits in %.2f s on %d threads\n", 11 * mc,
                    std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), threads);
        if (!csv.isEmpty()) {
            QFile out(csv);
            if (!out.open(QIODevice::WriteOnly | QIODevice::Text))
                throw std::runtime_error("cannot write " + csv.toStdString());
            QTextStream(&out) << table;
        }
    } catch (const std::exception& e) {
        std::cerr << "bpls_toy: " << e.what() << "\n";
        return 1;
    }
    return 0;
}
