// Isotropic Gaussian blobs (scikit-learn's make_blobs): `centers` classes in `features` dimensions,
// each a normal cloud of standard deviation `cluster_std` around a centre drawn uniformly from
// [−center_box, center_box]^features. A classification set of any width and class count, whose
// difficulty one key sets (a noise sweep varies cluster_std).

#include <data/DataError.h>
#include <data/DataKeys.h>
#include <data/DataSourceRegistry.h>
#include <data/MemoryBudget.h>
#include <data/Rng.h>

#include <QLocale>

namespace tb::data {
namespace {

QString num(double v)
{
    return QString::number(v, 'g', QLocale::FloatingPointShortest);
}

class GaussianBlobsSource : public DataSourceProvider {
public:
    DataSourceInfo info() const override
    {
        DataSourceInfo i;
        i.id = QStringLiteral("gaussian_blobs");
        i.label = QStringLiteral("Gaussian blobs");
        i.description = QStringLiteral("Isotropic Gaussian clouds around random centres, one class each (as "
                                       "scikit-learn's make_blobs).");
        i.task = Task::Classification;
        i.noiseKey = QStringLiteral("cluster_std");
        i.order = 25;
        i.params.add(DataKeys::integer(QStringLiteral("samples"), QStringLiteral("Samples"), 2, 1e12, 500,
                                       QStringLiteral("Rows generated in total (train + test), shared out evenly "
                                                      "between the blobs.")));
        i.params.add(DataKeys::integer(QStringLiteral("centers"), QStringLiteral("Blobs"), 2, 1000, 3,
                                       QStringLiteral("Number of blobs, one class each.")));
        i.params.add(DataKeys::integer(QStringLiteral("features"), QStringLiteral("Features"), 1, 1e6, 2,
                                       QStringLiteral("Input columns.")));
        i.params.add(DataKeys::real(QStringLiteral("cluster_std"), QStringLiteral("Blob σ"), 0, HUGE_VAL, false, 1.0,
                                    QStringLiteral("Standard deviation of every blob around its centre (a noise "
                                                   "sweep varies it).")));
        i.params.add(DataKeys::real(QStringLiteral("center_box"), QStringLiteral("Centre box"), 0, 1e6, true, 10.0,
                                    QStringLiteral("Centres are drawn uniformly from [−center_box, center_box] in "
                                                   "every dimension.")));
        i.params = DataKeys::finished(i.params);
        return i;
    }

    DataMemoryNeed memoryNeed(const QVariantMap& spec) const override
    {
        // The set, then its train and test copies: twice rows × (inputs + one-hot outputs) doubles.
        const double samples = spec.value(QStringLiteral("samples")).toDouble();
        const double columns =
            spec.value(QStringLiteral("features")).toDouble() + spec.value(QStringLiteral("centers")).toDouble();
        return {double(MemoryBudget::bytesOf(std::uint64_t(samples), std::uint64_t(columns) * 2)),
                QStringLiteral("generating %1 samples × %2 columns (and their train/test split)")
                    .arg(samples, 0, 'f', 0)
                    .arg(columns, 0, 'f', 0),
                QStringLiteral("samples")};
    }

    DataTables load(const DataRequest& r) const override
    {
        const auto n = Eigen::Index(r.spec.value(QStringLiteral("samples")).toLongLong());
        const auto k = Eigen::Index(r.spec.value(QStringLiteral("centers")).toLongLong());
        const auto d = Eigen::Index(r.spec.value(QStringLiteral("features")).toLongLong());
        const double sd = r.noise.value_or(r.spec.value(QStringLiteral("cluster_std")).toDouble());
        const double box = r.spec.value(QStringLiteral("center_box")).toDouble();
        if (n < k)
            throw DataError::inSpec(QStringLiteral("dataset.samples"), QString::number(n),
                                    QStringLiteral("dataset.samples: %1 rows cannot hold %2 blobs (centers); give at "
                                                   "least one row per blob")
                                        .arg(n)
                                        .arg(k));
        Rng centres(r.seed, Rng::Generate);
        Eigen::MatrixXd c(k, d);
        for (Eigen::Index i = 0; i < k; ++i)
            for (Eigen::Index j = 0; j < d; ++j)
                c(i, j) = centres.uniform(-box, box);
        // Rows in class order, then shuffled, so that no prefix of the set is one class.
        Rng noise(r.seed, Rng::Noise);
        Eigen::MatrixXd x(n, d);
        std::vector<int> labels(std::size_t(n), 0);
        for (Eigen::Index i = 0; i < n; ++i) {
            const int cls = int(i * k / n);
            labels[std::size_t(i)] = cls;
            for (Eigen::Index j = 0; j < d; ++j)
                x(i, j) = c(cls, j) + sd * noise.normal();
        }
        std::vector<Eigen::Index> order(static_cast<std::size_t>(n));
        for (Eigen::Index i = 0; i < n; ++i)
            order[std::size_t(i)] = i;
        noise.shuffle(order);
        DataTables t;
        t.train.task = Task::Classification;
        t.train.x.resize(n, d);
        t.train.labels.resize(std::size_t(n));
        for (Eigen::Index i = 0; i < n; ++i) {
            t.train.x.row(i) = x.row(order[std::size_t(i)]);
            t.train.labels[std::size_t(i)] = labels[std::size_t(order[std::size_t(i)])];
        }
        for (Eigen::Index i = 0; i < k; ++i)
            t.train.classNames << QStringLiteral("blob %1").arg(i);
        for (Eigen::Index j = 0; j < d; ++j)
            t.train.featureNames << QStringLiteral("x%1").arg(j + 1);
        t.train.description = QStringLiteral("gaussian_blobs %1 samples, %2 blobs, σ %3").arg(n).arg(k).arg(num(sd));
        return t;
    }

    QString describe(const QVariantMap& spec) const override
    {
        return QStringLiteral("Gaussian blobs, %1 samples × %2 features, %3 blobs, σ %4")
            .arg(spec.value(QStringLiteral("samples")).toLongLong())
            .arg(spec.value(QStringLiteral("features")).toLongLong())
            .arg(spec.value(QStringLiteral("centers")).toLongLong())
            .arg(num(spec.value(QStringLiteral("cluster_std")).toDouble()));
    }
};

} // namespace
} // namespace tb::data

TB_REGISTER_DATA_SOURCE(tb::data::GaussianBlobsSource)
