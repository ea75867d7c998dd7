// The O(1/t) convergence of the doubly stochastic gradients (Dai et al. 2014, Theorem 4) on
// what we have: squared loss on Friedman #1 against exact kernel ridge regression on the same
// rows. f* minimises (1/n)Σ ½(f(x_i) − y_i)² + ν/2·‖f‖²_H over the RKHS of the Gaussian kernel,
// i.e. f* = Σ a_i k(x_i, ·) with (K + nν·I)a = y (dsgd.kernel_ridge with subsample = n);
// dsgd.doubly_stochastic samples the same n rows and its iterate f_t should approach f* as
// E|f_t(x) − f*(x)|² = O(1/t) when γ_t·t → θ·t₀ with θ·t₀·ν > 1 (here γ_t = θ/(1 + t/t₀)).
//
//   dsgd_convergence [--rows 10000] [--test-rows 4096] [--nu 1e-3] [--theta 1] [--t0 SCALE/nu]
//                    [--scale 1.5] [--epochs 10] [--batch 1] [--features-per-step 1]
//                    [--seeds 3] [--threads 2] [--csv FILE] [--plot FILE.png] [--quick]
//
// Inputs and targets are standardised with the training rows' statistics; σ by the median
// trick. Both trainers run through the engine's Runner (the plugin trainbench-cli runs, its
// checkpoint clock); at every checkpoint, with the clock stopped, the program predicts the test
// points and prints the mean over them of |f_t − f*|² (and of |f_t − y|² for reference), and at
// the end the least-squares slope of log error against log t over the last decade (−1 for
// O(1/t)). Results: docs/dsgd.md, "Step sizes of Algorithm 1".

#include <support/BenchArguments.h>
#include <support/BenchMain.h>
#include <support/BenchRunner.h>
#include <support/CsvWriter.h>
#include <support/Spread.h>
#include <support/Stopwatch.h>

#include <charts/ChartRenderer.h>
#include <data/Generators.h>
#include <numerics/Metrics.h>

#include <QChart>
#include <QJsonArray>
#include <QLegend>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QPen>

#include <cmath>
#include <cstdio>
#include <memory>

namespace {

using tb::bench::BenchArguments;

// Least-squares slope of log y against log x.
double slope(const std::vector<double>& x, const std::vector<double>& y)
{
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    const double n = double(x.size());
    for (std::size_t i = 0; i < x.size(); ++i) {
        const double a = std::log(x[i]), b = std::log(y[i]);
        sx += a;
        sy += b;
        sxx += a * a;
        sxy += a * b;
    }
    return (n * sxy - sx * sy) / (n * sxx - sx * sx);
}

// The final model's predictions of some rows (kernel ridge: f* on the test points).
class FinalPrediction final : public tb::RunObserver {
public:
    explicit FinalPrediction(const Eigen::MatrixXd& x) : m_x(x) {}
    Eigen::MatrixXd values;
    void modelReady(const tb::RunJob&, const tb::Trainer& trainer, const tb::MetricPoint&, const QJsonObject&,
                    bool final) override
    {
        if (final)
            values = trainer.predict(m_x);
    }

private:
    const Eigen::MatrixXd& m_x;
};

// At every checkpoint: the error to f* on the test points, against the step t.
class ErrorToExact final : public tb::RunObserver {
public:
    ErrorToExact(const tb::data::Dataset& test, const Eigen::MatrixXd& fStar, double stepsPerEpoch, int seed,
                 tb::bench::CsvWriter* csv)
        : m_test(test), m_fStar(fStar), m_stepsPerEpoch(stepsPerEpoch), m_seed(seed), m_csv(csv)
    {
    }
    std::vector<std::pair<double, double>> curve; // (step, error)
    double features = 0;

    void modelReady(const tb::RunJob&, const tb::Trainer& trainer, const tb::MetricPoint& p,
                    const QJsonObject& facts, bool final) override
    {
        if (final)
            return;
        const Eigen::MatrixXd f = trainer.predict(m_test.x);
        const double err = (f - m_fStar).squaredNorm() / double(f.rows());
        const double mse = (f - m_test.y).squaredNorm() / double(f.rows());
        const double step = p.epoch * m_stepsPerEpoch;
        curve.push_back({step, err});
        features = facts.value("checkpoint_features").toArray().last().toDouble();
        if (m_csv)
            m_csv->addRow({QString::number(m_seed), tb::bench::CsvWriter::fixed(step, 0),
                           tb::bench::CsvWriter::fixed(features, 0),
                           tb::bench::CsvWriter::fixed(p.trainTime, 3), tb::bench::CsvWriter::general(err),
                           tb::bench::CsvWriter::general(mse)});
    }

private:
    const tb::data::Dataset& m_test;
    const Eigen::MatrixXd& m_fStar;
    double m_stepsPerEpoch;
    int m_seed;
    tb::bench::CsvWriter* m_csv;
};

} // namespace

int main(int argc, char** argv)
{
    BenchArguments args(
        "dsgd_convergence",
        "Theorem 4's O(1/t) on Friedman #1: Algorithm 1 (dsgd.doubly_stochastic) against exact "
        "kernel ridge regression (dsgd.kernel_ridge) on the same rows, both through the engine's "
        "Runner.");
    args.add("rows", "N", "training rows", "10000", "2000");
    args.add("test-rows", "N", "test points", "4096", "1024");
    args.add("nu", "NU", "the regularisation ν", "1e-3", "0.05");
    args.add("theta", "THETA", "the step size θ", "1", "0.05");
    args.add("t0", "T0", "the step's t₀ (default: scale/(θ·ν))");
    args.add("scale", "S", "θ·t₀·ν when --t0 is not given (> 1: the 1/t regime)", "1.5");
    args.add("epochs", "E", "passes over the rows", "10", "1");
    args.add("batch", "B", "rows per step", "1");
    args.add("features-per-step", "F", "random features per step", "1");
    args.add(BenchArguments::Common::Seeds, "3", "1", "Algorithm 1's seeds 1000 … 1000 + N − 1");
    args.add(BenchArguments::Common::Threads, "2");
    args.add(BenchArguments::Common::Csv);
    args.add(BenchArguments::Common::Plot);
    return tb::bench::benchMain(argc, argv, args, {.charts = true}, [&] {
        const Eigen::Index rows = args.integer("rows", 2);
        const Eigen::Index testRows = args.integer("test-rows", 1);
        const Eigen::Index batch = args.integer("batch", 1);
        const Eigen::Index perStep = args.integer("features-per-step", 1);
        const double nu = args.real("nu", 0);
        const double theta = args.real("theta", 0);
        const double scale = args.real("scale", 0);
        const double epochs = args.real("epochs", 0);
        const int seeds = int(args.integer("seeds", 1));
        const int threads = int(args.integer("threads", 1, 1024));
        const QString plotPath = args.text("plot");
        double t0 = args.text("t0").isEmpty() ? -1 : args.real("t0");
        if (t0 <= 0)
            t0 = scale / (theta * nu); // θ·t₀·ν = scale > 1: the 1/t regime of Theorem 4

        // Friedman #1, 10 inputs, noise σ = 1, standardised with the training rows' statistics.
        auto data = std::make_shared<tb::data::DatasetPair>();
        data->train = tb::data::Generators::friedman1(rows, 10, 1.0, 1);
        data->test = tb::data::Generators::friedman1(testRows, 10, 1.0, 2);
        tb::data::Dataset& train = data->train;
        const tb::data::Dataset& test = data->test;
        const Eigen::RowVectorXd mean = train.x.colwise().mean();
        const Eigen::RowVectorXd sd = ((train.x.rowwise() - mean).array().square().colwise().mean()).sqrt();
        const double ym = train.y.mean(), ys = std::sqrt((train.y.array() - ym).square().mean());
        for (tb::data::Dataset* s : {&data->train, &data->test}) {
            s->x = ((s->x.rowwise() - mean).array().rowwise() / sd.array()).matrix();
            s->y = ((s->y.array() - ym) / ys).matrix();
        }
        const tb::bench::BenchRunner runner;

        // f*: exact kernel ridge regression on all the training rows.
        const tb::bench::Stopwatch tk;
        FinalPrediction exact(test.x);
        const tb::bench::BenchRun kr = runner.run(
            tb::bench::BenchRunner::job("dsgd.kernel_ridge", {{"ridge", 0.5 * nu}, {"subsample", qlonglong(rows)}},
                                        data, 1, threads),
            &exact);
        kr.requireFinished("dsgd.kernel_ridge");
        const Eigen::MatrixXd fStar = exact.values;
        const double bandwidth = kr.fact("bandwidth");
        std::printf(
            "exact kernel ridge regression on %lld rows (ν = %g, σ = %.4f): %.1f s (training %.1f s), %s; "
            "test RMSE %.4f\n",
            (long long)rows, nu, bandwidth, tk.seconds(), kr.result.trainSeconds,
            qPrintable(kr.result.info.value("kernel_ridge_solve").toString()), tb::num::rmse(fStar, test.y));
        std::printf("doubly stochastic: θ = %g, t₀ = %g (θ·t₀·ν = %g), batch %lld, %lld feature(s) per step, "
                    "%g epochs\n",
                    theta, t0, theta * t0 * nu, (long long)batch, (long long)perStep, epochs);

        std::unique_ptr<tb::bench::CsvWriter> csv;
        if (!args.text("csv").isEmpty())
            csv = std::make_unique<tb::bench::CsvWriter>(
                args.text("csv"),
                QStringList{"seed", "step", "features", "train_seconds", "error_to_exact", "test_mse"});
        std::vector<std::vector<std::pair<double, double>>> curves;
        std::vector<double> slopes;
        for (int s = 0; s < seeds; ++s) {
            const QVariantMap params{{"ridge", 0.5 * nu},  // the common ridge r = ν/2 (docs/parameters.md)
                                     {"theta", theta},
                                     {"t0", t0},
                                     {"loss", "squared"},
                                     {"batch_size", qlonglong(batch)},
                                     {"features_per_step", qlonglong(perStep)},
                                     {"epochs", epochs},
                                     // f*'s kernel: its σ (the median trick draws rows by seed)
                                     {"bandwidth_rule", "fixed"},
                                     {"bandwidth", bandwidth}};
            ErrorToExact error(test, fStar, double(rows) / double(batch), s, csv.get());
            const tb::bench::BenchRun run =
                runner.run(tb::bench::BenchRunner::job("dsgd.doubly_stochastic", params, data,
                                                       1000 + std::uint64_t(s), threads),
                           &error);
            // A diverged run (non-finite predictions: too large a step) keeps its curve so far.
            if (run.result.status == tb::RunStatus::Diverged)
                std::printf("seed %d: %s\n", s, qPrintable(run.result.error));
            else
                run.requireFinished(QStringLiteral("seed %1").arg(s));
            std::vector<std::pair<double, double>>& curve = error.curve;
            if (curve.empty())
                throw std::runtime_error("no checkpoint");
            std::vector<double> xs, es;
            for (const auto& [t, e] : curve)
                if (t >= curve.back().first / 10.0) {
                    xs.push_back(t);
                    es.push_back(e);
                }
            slopes.push_back(slope(xs, es));
            std::printf(
                "seed %d: %zu checkpoints, %.0f features, %.1f s of training; error to f* %.4g at step %.0f, "
                "%.4g at the end; slope over the last decade %.3f\n",
                s, curve.size(), error.features, run.result.trainSeconds, curve.front().second,
                curve.front().first, curve.back().second, slopes.back());
            curves.push_back(std::move(curve));
        }
        if (csv)
            csv->close();
        const auto sl = tb::bench::Spread::of(slopes);
        std::printf(
            "slope of log error against log t over the last decade: %.3f ± %.3f (%d seeds; O(1/t) is −1)\n",
            sl.mean, sl.std, seeds);

        if (!plotPath.isEmpty()) {
            auto* chart = new QChart;
            chart->setTitle(
                QStringLiteral(
                    "Friedman #1: doubly stochastic gradients against exact kernel ridge (%1 rows)")
                    .arg(rows));
            auto* x = new QLogValueAxis;
            x->setTitleText("step t");
            x->setLabelFormat("%g");
            auto* y = new QLogValueAxis;
            y->setTitleText("mean |f_t(x) − f*(x)|² over test points");
            y->setLabelFormat("%g");
            chart->addAxis(x, Qt::AlignBottom);
            chart->addAxis(y, Qt::AlignLeft);
            const QColor colours[] = {QColor(31, 119, 180), QColor(44, 160, 44), QColor(148, 103, 189)};
            double tMin = 1e300, tMax = 0, eMin = 1e300, eMax = 0;
            for (std::size_t s = 0; s < curves.size(); ++s) {
                auto* line = new QLineSeries;
                line->setName(QStringLiteral("seed %1").arg(s));
                line->setPen(QPen(colours[s % 3], 2.0));
                for (const auto& [t, e] : curves[s]) {
                    line->append(t, e);
                    tMin = std::min(tMin, t);
                    tMax = std::max(tMax, t);
                    eMin = std::min(eMin, e);
                    eMax = std::max(eMax, e);
                }
                chart->addSeries(line);
                line->attachAxis(x);
                line->attachAxis(y);
            }
            // The O(1/t) reference through the first curve's last point.
            auto* ref = new QLineSeries;
            ref->setName("O(1/t)");
            QPen dashed(Qt::black, 1.5, Qt::DashLine);
            ref->setPen(dashed);
            const double c = curves.front().back().second * curves.front().back().first;
            ref->append(tMin, c / tMin);
            ref->append(tMax, c / tMax);
            chart->addSeries(ref);
            ref->attachAxis(x);
            ref->attachAxis(y);
            x->setRange(std::pow(10, std::floor(std::log10(tMin))),
                        std::pow(10, std::ceil(std::log10(tMax))));
            y->setRange(std::pow(10, std::floor(std::log10(std::min(eMin, c / tMax)))),
                        std::pow(10, std::ceil(std::log10(std::max(eMax, c / tMin)))));
            chart->legend()->setAlignment(Qt::AlignTop);
            if (!tb::charts::ChartRenderer::savePng(chart, plotPath))
                throw std::runtime_error("cannot write " + plotPath.toStdString());
            std::printf("wrote %s\n", qPrintable(plotPath));
            delete chart;
        }
        return 0;
    });
}
