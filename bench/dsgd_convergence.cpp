// The O(1/t) convergence of the doubly stochastic gradients (Dai et al. 2014, Theorem 4) on
// what we have: squared loss on Friedman #1 against exact kernel ridge regression on the same
// rows. f* minimises (1/n)Σ ½(f(x_i) − y_i)² + ν/2·‖f‖²_H over the RKHS of the Gaussian kernel,
// i.e. f* = Σ a_i k(x_i, ·) with (K + nν·I)a = y (dsgd.kernel_ridge with subsample = n);
// dsgd.doubly_stochastic samples the same n rows and its iterate f_t should approach f* as
// E|f_t(x) − f*(x)|² = O(1/t) when γ_t·t → θ·t₀ with θ·t₀·ν > 1 (here γ_t = θ/(1 + t/t₀)).
//
//   dsgd_convergence [--rows 10000] [--test 4096] [--nu 1e-3] [--theta 1] [--t0 SCALE/nu]
//                    [--scale 1.5] [--epochs 10] [--batch 1] [--features-per-step 1]
//                    [--seeds 3] [--threads 2] [--csv FILE] [--plot FILE.png]
//
// Inputs and targets are standardised with the training rows' statistics; σ by the median
// trick. At log-spaced steps the program prints the mean over test points of |f_t − f*|² (and
// of |f_t − y|² for reference), and at the end the least-squares slope of log error against
// log t over the last decade (−1 for O(1/t)). Results: bench/README.md.

#include <DsgdConfig.h>
#include <DsgdTrainer.h>
#include <Generators.h>
#include <KernelRidgeTrainer.h>
#include <Metrics.h>
#include <ProcessSetup.h>
#include <trainbench/testing/TestRunContext.h>

#include <ChartRenderer.h>

#include <QApplication>
#include <QChart>
#include <QLegend>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QPen>
#include <tbb/task_arena.h>

#include <chrono>
#include <cmath>
#include <cstdio>

namespace {

using Clock = std::chrono::steady_clock;
double since(Clock::time_point t0)
{
    return std::chrono::duration<double>(Clock::now() - t0).count();
}

template <class T>
T configure(tb::dsgd::Algorithm a, const QVariantMap& params)
{
    QString err;
    const auto p = tb::dsgd::DsgdConfig::schema(a).normalise(params, &err);
    if (!p)
        throw std::invalid_argument(err.toStdString());
    return T(tb::dsgd::DsgdConfig::fromParams(a, *p));
}

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

} // namespace

int main(int argc, char** argv)
{
    tb::ProcessSetup::useHugePages(argv);
    qputenv("QT_QPA_PLATFORM", qgetenv("QT_QPA_PLATFORM").isEmpty() ? "offscreen" : qgetenv("QT_QPA_PLATFORM"));
    QApplication app(argc, argv);
    Eigen::Index rows = 10000, testRows = 4096, batch = 1, perStep = 1;
    double nu = 1e-3, theta = 1.0, scale = 1.5, t0 = -1, epochs = 10;
    int seeds = 3, threads = 2;
    QString csvPath, plotPath;
    for (int i = 1; i < argc; ++i) {
        const std::string k = argv[i];
        auto next = [&]() -> QString {
            if (i + 1 >= argc) {
                std::fprintf(stderr, "missing value after %s\n", k.c_str());
                std::exit(2);
            }
            return QString::fromLocal8Bit(argv[++i]);
        };
        if (k == "--rows") rows = next().toLongLong();
        else if (k == "--test") testRows = next().toLongLong();
        else if (k == "--nu") nu = next().toDouble();
        else if (k == "--theta") theta = next().toDouble();
        else if (k == "--t0") t0 = next().toDouble();
        else if (k == "--scale") scale = next().toDouble();
        else if (k == "--epochs") epochs = next().toDouble();
        else if (k == "--batch") batch = next().toLongLong();
        else if (k == "--features-per-step") perStep = next().toLongLong();
        else if (k == "--seeds") seeds = next().toInt();
        else if (k == "--threads") threads = next().toInt();
        else if (k == "--csv") csvPath = next();
        else if (k == "--plot") plotPath = next();
        else {
            std::fprintf(stderr, "unknown option %s\n", k.c_str());
            return 2;
        }
    }
    if (t0 <= 0)
        t0 = scale / (theta * nu);  // θ·t₀·ν = scale > 1: the 1/t regime of Theorem 4

    // Friedman #1, 10 inputs, noise σ = 1, standardised with the training rows' statistics.
    tb::data::Dataset train = tb::data::Generators::friedman1(rows, 10, 1.0, 1);
    tb::data::Dataset test = tb::data::Generators::friedman1(testRows, 10, 1.0, 2);
    const Eigen::RowVectorXd mean = train.x.colwise().mean();
    const Eigen::RowVectorXd sd = ((train.x.rowwise() - mean).array().square().colwise().mean()).sqrt();
    const double ym = train.y.mean(), ys = std::sqrt((train.y.array() - ym).square().mean());
    for (tb::data::Dataset* s : {&train, &test}) {
        s->x = ((s->x.rowwise() - mean).array().rowwise() / sd.array()).matrix();
        s->y = ((s->y.array() - ym) / ys).matrix();
    }
    tb::DatasetView view(train.x, train.y);
    tbb::task_arena arena(threads);

    // f*: exact kernel ridge regression on all the training rows.
    auto exact = configure<tb::dsgd::KernelRidgeTrainer>(tb::dsgd::Algorithm::KernelRidge,
                                                         QVariantMap{{"nu", nu}, {"subsample", qlonglong(rows)}});
    Eigen::MatrixXd fStar;
    auto tk = Clock::now();
    {
        tb::testing::TestRunContext ctx(1, threads);
        arena.execute([&] {
            exact.fit(view, ctx);
            fStar = exact.predict(test.x);
        });
        std::printf("exact kernel ridge regression on %lld rows (ν = %g, σ = %.4f): %.1f s, %s; test RMSE %.4f\n",
                    (long long)rows, nu, exact.bandwidth(), since(tk), exact.report().summary().c_str(),
                    tb::num::rmse(fStar, test.y));
    }
    std::printf("doubly stochastic: θ = %g, t₀ = %g (θ·t₀·ν = %g), batch %lld, %lld feature(s) per step, %g epochs\n",
                theta, t0, theta * t0 * nu, (long long)batch, (long long)perStep, epochs);

    std::FILE* csv = csvPath.isEmpty() ? nullptr : std::fopen(qPrintable(csvPath), "w");
    if (csv)
        std::fprintf(csv, "seed,step,features,train_seconds,error_to_exact,test_mse\n");
    std::vector<std::vector<std::pair<double, double>>> curves;
    std::vector<double> slopes;
    for (int s = 0; s < seeds; ++s) {
        auto dsgd = configure<tb::dsgd::DsgdTrainer>(
            tb::dsgd::Algorithm::Doubly, QVariantMap{{"nu", nu}, {"theta", theta}, {"t0", t0}, {"loss", "squared"},
                                                     {"batch_size", qlonglong(batch)},
                                                     {"features_per_step", qlonglong(perStep)}, {"epochs", epochs},
                                                     // f*'s kernel: its σ (the median trick draws rows by seed)
                                                     {"bandwidth_rule", "fixed"}, {"bandwidth", exact.bandwidth()}});
        tb::testing::TestRunContext ctx(1000 + std::uint64_t(s), threads);
        std::vector<std::pair<double, double>> curve;
        double training = 0;
        auto tStart = Clock::now();
        ctx.onCheckpoint = [&](const tb::Checkpoint& cp) {
            training += since(tStart);
            const Eigen::MatrixXd f = dsgd.predict(test.x);
            const double err = (f - fStar).squaredNorm() / double(f.rows());
            const double mse = (f - test.y).squaredNorm() / double(f.rows());
            const double step = cp.epoch * double(rows) / double(batch);
            curve.push_back({step, err});
            if (csv)
                std::fprintf(csv, "%d,%.0f,%lld,%.3f,%.6g,%.6g\n", s, step, (long long)dsgd.model().features(),
                             training, err, mse);
            tStart = Clock::now();
        };
        arena.execute([&] {
            tStart = Clock::now();
            dsgd.fit(view, ctx);
        });
        std::vector<double> xs, es;
        for (const auto& [t, e] : curve)
            if (t >= curve.back().first / 10.0) {
                xs.push_back(t);
                es.push_back(e);
            }
        slopes.push_back(slope(xs, es));
        std::printf("seed %d: %zu checkpoints, %lld features, %.1f s of training; error to f* %.4g at step %.0f, "
                    "%.4g at the end; slope over the last decade %.3f\n",
                    s, curve.size(), (long long)dsgd.model().features(), training, curve.front().second,
                    curve.front().first, curve.back().second, slopes.back());
        curves.push_back(std::move(curve));
    }
    if (csv)
        std::fclose(csv);
    const auto sl = tb::num::meanStd(slopes);
    std::printf("slope of log error against log t over the last decade: %.3f ± %.3f (%d seeds; O(1/t) is −1)\n",
                sl.mean, sl.std, seeds);

    if (!plotPath.isEmpty()) {
        auto* chart = new QChart;
        chart->setTitle(QStringLiteral("Friedman #1: doubly stochastic gradients against exact kernel ridge (%1 rows)")
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
        x->setRange(std::pow(10, std::floor(std::log10(tMin))), std::pow(10, std::ceil(std::log10(tMax))));
        y->setRange(std::pow(10, std::floor(std::log10(std::min(eMin, c / tMax)))),
                    std::pow(10, std::ceil(std::log10(std::max(eMax, c / tMin)))));
        chart->legend()->setAlignment(Qt::AlignTop);
        if (!tb::charts::ChartRenderer::savePng(chart, plotPath)) {
            std::fprintf(stderr, "cannot write %s\n", qPrintable(plotPath));
            return 1;
        }
        std::printf("wrote %s\n", qPrintable(plotPath));
        delete chart;
    }
    return 0;
}
