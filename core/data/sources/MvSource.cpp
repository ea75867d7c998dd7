// Delve's synthetic "mv" regression set (MvGenerator), the deep-net data of Palagi & Seccia 2019.

#include <data/DataError.h>
#include <data/DataKeys.h>
#include <data/DataSourceRegistry.h>
#include <data/MemoryBudget.h>
#include <data/MvGenerator.h>

#include <QLocale>
#include <stdexcept>

namespace tb::data {
namespace {

class MvSource : public DataSourceProvider {
public:
    DataSourceInfo info() const override
    {
        DataSourceInfo i;
        i.id = QStringLiteral("mv");
        i.label = QStringLiteral("Mv regression (Delve)");
        i.description = QStringLiteral("Delve's synthetic \"mv\" set: 10 attributes with dependencies between them "
                                       "(one-hot and 0/1 encoded: 12 inputs), a piecewise target, no noise; Palagi & "
                                       "Seccia's deep-net data.");
        i.task = Task::Regression;
        i.testFraction = 0.2; // the paper's split
        i.order = 40;
        i.params.add(DataKeys::integer(QStringLiteral("samples"), QStringLiteral("Samples"), 2,
                                       double(MvGenerator::kMaxRows), double(MvGenerator::kPaperRows),
                                       QStringLiteral("Rows generated in total (train + test); the paper: 40768.")));
        i.params = DataKeys::finished(i.params);
        return i;
    }

    DataMemoryNeed memoryNeed(const QVariantMap& spec) const override
    {
        const double samples = spec.value(QStringLiteral("samples")).toDouble();
        return {double(MemoryBudget::bytesOf(std::uint64_t(samples), std::uint64_t(MvGenerator::kInputs + 1) * 2)),
                QStringLiteral("generating %1 Mv samples × %2 columns (and their train/test split)")
                    .arg(samples, 0, 'f', 0)
                    .arg(MvGenerator::kInputs + 1),
                QStringLiteral("samples")};
    }

    DataTables load(const DataRequest& r) const override
    {
        DataTables t;
        try {
            t.train = MvGenerator::generate(Eigen::Index(r.spec.value(QStringLiteral("samples")).toLongLong()), r.seed);
        } catch (const std::invalid_argument& e) {
            throw DataError::inSpec(QStringLiteral("dataset"), {},
                                    QStringLiteral("dataset: mv generator: %1").arg(QString::fromUtf8(e.what())));
        }
        return t;
    }

    QString describe(const QVariantMap& spec) const override
    {
        return QStringLiteral("Mv, %1 samples")
            .arg(QString::number(spec.value(QStringLiteral("samples")).toDouble(), 'g', QLocale::FloatingPointShortest));
    }
};

} // namespace
} // namespace tb::data

TB_REGISTER_DATA_SOURCE(tb::data::MvSource)
