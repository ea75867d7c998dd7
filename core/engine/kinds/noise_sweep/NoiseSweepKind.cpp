// The noise sweep: the BPLS paper's Fig. 4–5. A σ grid × Monte-Carlo repetitions of a generator with
// noisy training targets; every algorithm trains on every cell's data (seed deriveSeed(seed, cell)),
// and train and test RMSE are aggregated per σ. One stored run per algorithm stands for all its cells.

#include <engine/ExperimentKind.h>
#include "NoiseSweepRun.h"
#include "NoiseSweepSection.h"

#include <data/DataSource.h>

#include <QJsonArray>
#include <cmath>
#include <limits>

namespace tb {
namespace {

// The spec's σ grid and Monte-Carlo count (an empty grid for another kind's spec).
const NoiseSweepSection& sectionOf(const ExperimentSpec& spec)
{
    static const NoiseSweepSection none;
    const NoiseSweepSection* s = spec.sectionAs<NoiseSweepSection>();
    return s ? *s : none;
}

class NoiseSweepKind : public ExperimentKind {
public:
    QString id() const override { return QStringLiteral("noise-sweep"); }
    QString label() const override { return QStringLiteral("Noise sweep"); }
    QString description() const override
    {
        return QStringLiteral("Train and test RMSE against the noise level σ of a generator, over Monte-Carlo "
                              "repetitions (the BPLS paper's Fig. 4 and 5).");
    }
    int order() const override { return 20; }

    QStringList sectionKeys() const override { return {QStringLiteral("sweep")}; }
    ParamSchema sectionSchema() const override
    {
        ParamSchema s;
        ParamSpec sigma = ParamSpec::realList(QStringLiteral("sweep.sigma"), QStringLiteral("σ values"),
                                              QVariantList{0.0, 0.1, 0.2, 0.3, 0.4, 0.5}, 1, 10000, 0,
                                              std::numeric_limits<double>::max(),
                                              QStringLiteral("Noise levels of the generator's training targets, each ≥ 0 "
                                                             "(\"0, 0.1, 0.2\"). Default 0, 0.1 … 0.5."));
        s.add(sigma);
        s.add(ParamSpec::integer(QStringLiteral("sweep.monte_carlo"), QStringLiteral("Monte-Carlo runs"), 100, 1, 1000000,
                                 QStringLiteral("Cells per σ and algorithm, each with its own data and seed (the paper "
                                                "uses 1000).")));
        return s;
    }

    bool parseSection(const QJsonObject& file, ExperimentSpec& spec, QString* key, QString* message) const override
    {
        auto fail = [&](const QString& k, const QString& m) {
            *key = k;
            *message = m;
            return false;
        };
        const QJsonValue sw = file.value(QStringLiteral("sweep"));
        if (!sw.isObject())
            return fail(QStringLiteral("sweep"),
                        QStringLiteral("a noise-sweep needs {\"sigma\": [...], \"monte_carlo\": N}, got %1").arg(jsonValueText(sw)));
        const QJsonObject so = sw.toObject();
        for (auto it = so.begin(); it != so.end(); ++it)
            if (it.key() != u"sigma" && it.key() != u"monte_carlo")
                return fail(QStringLiteral("sweep.") + it.key(), QStringLiteral("unknown key (known: sigma, monte_carlo)"));
        const QJsonValue sig = so.value(QStringLiteral("sigma"));
        if (!sig.isArray() || sig.toArray().isEmpty())
            return fail(QStringLiteral("sweep.sigma"),
                        QStringLiteral("expected a non-empty array of noise levels, got %1").arg(jsonValueText(sig)));
        auto section = std::make_shared<NoiseSweepSection>();
        const QJsonArray sa = sig.toArray();
        for (int i = 0; i < sa.size(); ++i) {
            const double d = sa[i].toDouble(-1);
            if (!sa[i].isDouble() || !(d >= 0) || !std::isfinite(d))
                return fail(QStringLiteral("sweep.sigma[%1]").arg(i), QStringLiteral("expected σ ≥ 0, got %1").arg(jsonValueText(sa[i])));
            section->sigmas << d;
        }
        if (so.contains(QStringLiteral("monte_carlo"))) {
            const QJsonValue v = so.value(QStringLiteral("monte_carlo"));
            const double d = v.toDouble(std::nan(""));
            if (!v.isDouble() || d != std::floor(d))
                return fail(QStringLiteral("sweep.monte_carlo"), QStringLiteral("expected an integer, got %1").arg(jsonValueText(v)));
            if (d < 1 || d > 1000000)
                return fail(QStringLiteral("sweep.monte_carlo"), QStringLiteral("%1 is outside [1, 1000000]").arg(jsonValueText(v)));
            section->monteCarlo = int(d);
        }
        spec.section = std::move(section);
        return true;
    }

    void setRepetitions(QJsonObject& file, int n) const override
    {
        QJsonObject sweep = file.value(QStringLiteral("sweep")).toObject();
        sweep.insert(QStringLiteral("monte_carlo"), n);
        file.insert(QStringLiteral("sweep"), sweep);
    }
    bool unitsAreRuns() const override { return false; }
    QString unit(int n) const override { return n == 1 ? QStringLiteral("cell") : QStringLiteral("cells"); }
    QString summaryAxis() const override { return QStringLiteral("noise σ"); }
    QList<AlgorithmCurves> configurations(const ExperimentSpec&, const PluginRegistry*) const override { return {}; }

    QString describe(const ExperimentSpec& spec) const override
    {
        const NoiseSweepSection& s = sectionOf(spec);
        return QStringLiteral("noise sweep: σ from %1 to %2 (%3 values), %4 Monte-Carlo runs each; seed %5, %6 threads")
            .arg(s.sigmas.value(0))
            .arg(s.sigmas.isEmpty() ? 0.0 : s.sigmas.last())
            .arg(s.sigmas.size())
            .arg(s.monteCarlo)
            .arg(spec.seed)
            .arg(spec.effectiveThreads());
    }

    QStringList validate(const ExperimentSpec& spec, const PluginRegistry&) const override
    {
        if (data::DataSource::validate(spec.dataset).isEmpty() && !data::DataSource::hasNoiseLevel(spec.dataset))
            return {QStringLiteral("dataset.source: a noise-sweep needs a generator with a noise level (e.g. "
                                   "\"bpls_toy\"), got \"%1\"")
                        .arg(spec.dataset.value(QStringLiteral("source")).toString())};
        return {};
    }

    void write(const ExperimentSpec& spec, QJsonObject& json) const override
    {
        const NoiseSweepSection& section = sectionOf(spec);
        QJsonArray sa;
        for (double s : section.sigmas)
            sa.append(s);
        json.insert("sweep", QJsonObject{{"sigma", sa}, {"monte_carlo", section.monteCarlo}});
    }

    int plannedRuns(const ExperimentSpec& spec) const override
    {
        const NoiseSweepSection& section = sectionOf(spec);
        const qint64 n = qint64(section.sigmas.size()) * section.monteCarlo * spec.algorithms.size();
        return int(std::min<qint64>(n, std::numeric_limits<int>::max()));
    }
    bool runsOneAtATime(const ExperimentSpec&) const override { return false; }
    QString sideBySide(const ExperimentSpec& spec) const override
    {
        // Its cells train on every thread of the arena at once; on one thread, one after another.
        if (spec.effectiveThreads() == 1)
            return {};
        return QStringLiteral("its cells train %1 at once: set \"threads\": 1").arg(spec.effectiveThreads());
    }
    QStringList charts() const override { return {QStringLiteral("rmse-summary")}; }

    ExperimentResult run(ExperimentContext& ctx, const ExperimentSpec& spec, qint64 experimentId,
                         ExperimentObserver* obs) const override
    {
        return NoiseSweepRun(ctx, spec, sectionOf(spec), experimentId, obs).run();
    }
};

} // namespace
} // namespace tb

TB_REGISTER_EXPERIMENT_KIND(tb::NoiseSweepKind)
