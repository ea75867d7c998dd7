// The BPLS paper's toy problem (Tomić et al. 2024, Fig. 4–5): 5 training and 5 test points of a
// linear or non-linear function of one input, the training targets noisy.

#include <data/DataKeys.h>
#include <data/DataSourceRegistry.h>
#include <data/Generators.h>

#include <QLocale>

namespace tb::data {
namespace {

class BplsToySource : public DataSourceProvider {
public:
    DataSourceInfo info() const override
    {
        DataSourceInfo i;
        i.id = QStringLiteral("bpls_toy");
        i.formerIds = {QStringLiteral("bpls-toy")};
        i.label = QStringLiteral("BPLS toy functions (1-D)");
        i.description = QStringLiteral("The BPLS paper's toy problem: 5 training and 5 test points of a linear or "
                                       "non-linear function with noisy training targets.");
        i.task = Task::Regression;
        i.noiseKey = QStringLiteral("sigma");
        i.testSet = DataSourceInfo::TestSet::Own;
        i.order = 10;
        i.params.add(DataKeys::choice(QStringLiteral("function"), QStringLiteral("Function"),
                                      {QStringLiteral("linear"), QStringLiteral("nonlinear")},
                                      {QStringLiteral("linear"), QStringLiteral("non-linear")}, QVariant(),
                                      QStringLiteral("The toy problem's target functions (Fig. 4: linear, Fig. 5: "
                                                     "non-linear)."))
                         .requiredKey());
        i.params.add(DataKeys::real(QStringLiteral("sigma"), QStringLiteral("Noise σ"), 0, HUGE_VAL, false, 0.0,
                                    QStringLiteral("Standard deviation of the Gaussian noise added to the training "
                                                   "targets (a noise sweep varies it).")));
        i.params = DataKeys::finished(i.params);
        return i;
    }

    DataTables load(const DataRequest& r) const override
    {
        const auto f = r.spec.value(QStringLiteral("function")).toString() == u"linear" ? BplsToyFunction::Linear
                                                                                        : BplsToyFunction::Nonlinear;
        DatasetPair p = Generators::bplsToy(f, r.noise.value_or(r.spec.value(QStringLiteral("sigma")).toDouble()), r.seed);
        DataTables t;
        t.train = std::move(p.train);
        t.test = std::move(p.test);
        return t;
    }

    QString describe(const QVariantMap& spec) const override
    {
        return QStringLiteral("BPLS toy, %1, σ = %2")
            .arg(spec.value(QStringLiteral("function")).toString(),
                 QString::number(spec.value(QStringLiteral("sigma")).toDouble(), 'g', QLocale::FloatingPointShortest));
    }
};

} // namespace
} // namespace tb::data

TB_REGISTER_DATA_SOURCE(tb::data::BplsToySource)
