// The 2-D two-class teaching sets: two moons, circles, spirals and XOR quadrants, with Gaussian
// noise on the points. One class, four sources.

#include <data/DataError.h>
#include <data/DataKeys.h>
#include <data/DataSourceRegistry.h>
#include <data/Generators.h>
#include <data/MemoryBudget.h>

#include <QLocale>
#include <stdexcept>

namespace tb::data {
namespace {

class TeachingSetSource : public DataSourceProvider {
public:
    using Generate = Dataset (*)(Eigen::Index, double, std::uint64_t);

    TeachingSetSource(QString id, QString label, int order, Generate generate)
        : m_id(std::move(id)), m_label(std::move(label)), m_order(order), m_generate(generate)
    {
    }

    DataSourceInfo info() const override
    {
        DataSourceInfo i;
        i.id = m_id;
        i.label = m_label;
        i.description = QStringLiteral("A 2-D two-class teaching set with Gaussian noise on the points.");
        i.task = Task::Classification;
        i.noiseKey = QStringLiteral("noise");
        i.order = m_order;
        i.params.add(DataKeys::integer(QStringLiteral("samples"), QStringLiteral("Samples"), 2, 1e12, 400,
                                       QStringLiteral("Rows generated in total (train + test).")));
        i.params.add(DataKeys::real(QStringLiteral("noise"), QStringLiteral("Noise"), 0, HUGE_VAL, false, 0.1,
                                    QStringLiteral("Standard deviation of the Gaussian noise on both coordinates (a "
                                                   "noise sweep varies it).")));
        i.params = DataKeys::finished(i.params);
        return i;
    }

    DataMemoryNeed memoryNeed(const QVariantMap& spec) const override
    {
        // The set, then its train and test copies: twice rows × (inputs + outputs) doubles.
        const double samples = spec.value(QStringLiteral("samples")).toDouble();
        return {double(MemoryBudget::bytesOf(std::uint64_t(samples), 4 * 2)),
                QStringLiteral("generating %1 samples × 4 columns (and their train/test split)").arg(samples, 0, 'f', 0),
                QStringLiteral("samples")};
    }

    DataTables load(const DataRequest& r) const override
    {
        const double noise = r.noise.value_or(r.spec.value(QStringLiteral("noise")).toDouble());
        DataTables t;
        try {
            t.train = m_generate(Eigen::Index(r.spec.value(QStringLiteral("samples")).toLongLong()), noise, r.seed);
        } catch (const std::invalid_argument& e) {
            throw DataError::inSpec(QStringLiteral("dataset"), {},
                                    QStringLiteral("dataset: %1 generator: %2").arg(m_id, QString::fromUtf8(e.what())));
        }
        return t;
    }

    QString describe(const QVariantMap& spec) const override
    {
        return QStringLiteral("%1, %2 samples, noise %3")
            .arg(m_id)
            .arg(spec.value(QStringLiteral("samples")).toLongLong())
            .arg(QString::number(spec.value(QStringLiteral("noise")).toDouble(), 'g', QLocale::FloatingPointShortest));
    }

private:
    QString m_id;
    QString m_label;
    int m_order;
    Generate m_generate;
};

Dataset circles(Eigen::Index n, double noise, std::uint64_t seed)
{
    return Generators::circles(n, noise, seed);
}

} // namespace
} // namespace tb::data

TB_REGISTER_DATA_SOURCE(tb::data::TeachingSetSource, QStringLiteral("moons"), QStringLiteral("Two moons (2-D)"), 20,
                        &tb::data::Generators::moons)
TB_REGISTER_DATA_SOURCE(tb::data::TeachingSetSource, QStringLiteral("circles"), QStringLiteral("Circles (2-D)"), 21,
                        &tb::data::circles)
TB_REGISTER_DATA_SOURCE(tb::data::TeachingSetSource, QStringLiteral("spirals"), QStringLiteral("Spirals (2-D)"), 22,
                        &tb::data::Generators::spirals)
TB_REGISTER_DATA_SOURCE(tb::data::TeachingSetSource, QStringLiteral("xor"), QStringLiteral("XOR quadrants (2-D)"), 23,
                        &tb::data::Generators::xorQuadrants)
