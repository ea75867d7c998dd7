// Friedman's regression problem #1: y = 10 sin(π x1 x2) + 20 (x3 − 0.5)² + 10 x4 + 5 x5 + noise.

#include <data/DataError.h>
#include <data/DataKeys.h>
#include <data/DataSourceRegistry.h>
#include <data/Generators.h>
#include <data/MemoryBudget.h>

#include <QLocale>
#include <stdexcept>

namespace tb::data {
namespace {

QString num(double v)
{
    return QString::number(v, 'g', QLocale::FloatingPointShortest);
}

class Friedman1Source : public DataSourceProvider {
public:
    DataSourceInfo info() const override
    {
        DataSourceInfo i;
        i.id = QStringLiteral("friedman1");
        i.label = QStringLiteral("Friedman #1 regression");
        i.description = QStringLiteral("Friedman's regression problem: y = 10 sin(π x1 x2) + 20 (x3 − 0.5)² + 10 x4 + "
                                       "5 x5 + noise; further inputs are irrelevant.");
        i.task = Task::Regression;
        i.noiseKey = QStringLiteral("noise");
        i.order = 30;
        i.params.add(DataKeys::integer(QStringLiteral("samples"), QStringLiteral("Samples"), 2, 1e12, 1000,
                                       QStringLiteral("Rows generated in total (train + test).")));
        i.params.add(DataKeys::integer(QStringLiteral("features"), QStringLiteral("Features"), 5, 1e9, 10,
                                       QStringLiteral("Input columns; the first 5 carry the signal, the rest are noise.")));
        i.params.add(DataKeys::real(QStringLiteral("noise"), QStringLiteral("Noise"), 0, HUGE_VAL, false, 1.0,
                                    QStringLiteral("Standard deviation of the Gaussian noise added to y (a noise sweep "
                                                   "varies it).")));
        i.params = DataKeys::finished(i.params);
        return i;
    }

    DataMemoryNeed memoryNeed(const QVariantMap& spec) const override
    {
        // The set, then its train and test copies: twice rows × (inputs + outputs) doubles.
        const double samples = spec.value(QStringLiteral("samples")).toDouble();
        const double columns = spec.value(QStringLiteral("features")).toDouble() + 1;
        return {double(MemoryBudget::bytesOf(std::uint64_t(samples), std::uint64_t(columns) * 2)),
                QStringLiteral("generating %1 samples × %2 columns (and their train/test split)")
                    .arg(samples, 0, 'f', 0)
                    .arg(columns, 0, 'f', 0),
                QStringLiteral("samples")};
    }

    DataTables load(const DataRequest& r) const override
    {
        DataTables t;
        try {
            t.train = Generators::friedman1(Eigen::Index(r.spec.value(QStringLiteral("samples")).toLongLong()),
                                            Eigen::Index(r.spec.value(QStringLiteral("features")).toLongLong()),
                                            r.noise.value_or(r.spec.value(QStringLiteral("noise")).toDouble()), r.seed);
        } catch (const std::invalid_argument& e) {
            throw DataError::inSpec(QStringLiteral("dataset"), {},
                                    QStringLiteral("dataset: friedman1 generator: %1").arg(QString::fromUtf8(e.what())));
        }
        return t;
    }

    QString describe(const QVariantMap& spec) const override
    {
        return QStringLiteral("Friedman #1, %1 samples × %2 features, noise %3")
            .arg(num(spec.value(QStringLiteral("samples")).toDouble()), num(spec.value(QStringLiteral("features")).toDouble()),
                 num(spec.value(QStringLiteral("noise")).toDouble()));
    }
};

} // namespace
} // namespace tb::data

TB_REGISTER_DATA_SOURCE(tb::data::Friedman1Source)
