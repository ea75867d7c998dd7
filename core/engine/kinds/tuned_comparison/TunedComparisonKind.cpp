// The tuned comparison: every algorithm gets the same tuning budget — the same number of trials
// drawn from its search space and/or the same training CPU seconds — the best trial is chosen on
// the validation split, and the chosen configuration and the untuned defaults are retrained on
// fresh seeds and reported on test (DeepOBS; Schmidt et al., ICML 2021; Dodge et al., EMNLP 2019).

#include <engine/ExperimentKind.h>
#include <engine/PluginRegistry.h>
#include "SearchSpaces.h"
#include <engine/SelectionCurves.h>
#include "TunedRun.h"
#include "TuningSection.h"

#include <data/DataSource.h>

#include <QJsonArray>
#include <cmath>
#include <limits>

namespace tb {
namespace {

const TuningSection& sectionOf(const ExperimentSpec& spec)
{
    static const TuningSection none;
    const TuningSection* s = spec.sectionAs<TuningSection>();
    return s ? *s : none;
}

class TunedComparisonKind : public ExperimentKind {
public:
    QString id() const override { return QStringLiteral("tuned-comparison"); }
    QString label() const override { return QStringLiteral("Tuned comparison"); }
    QString description() const override
    {
        return QStringLiteral("Every algorithm tuned with the same budget of trials or CPU seconds, chosen on the "
                              "validation split, then retrained on fresh seeds beside its untuned defaults.");
    }
    int order() const override { return 40; }
    QStringList sectionKeys() const override { return {QStringLiteral("tuning"), QStringLiteral("final")}; }
    QStringList algorithmKeys() const override { return {QStringLiteral("search")}; }
    bool comparesConfigurations() const override { return true; }

    ParamSchema sectionSchema() const override
    {
        ParamSchema s;
        s.add(ParamSpec::integer(QStringLiteral("tuning.trials"), QStringLiteral("Trials per algorithm"), 20, 1,
                                 TuningSection::maxTrials,
                                 QStringLiteral("Configurations drawn from each algorithm's search space and trained "
                                                "once; the same number for every algorithm.")));
        // 0 on the form stands for the key left out (absentText): a file's "cpu_seconds" must be > 0.
        ParamSpec cpu = ParamSpec::real(QStringLiteral("tuning.cpu_seconds"), QStringLiteral("CPU seconds per algorithm"),
                                        0.0, 0.0, 1e7,
                                        QStringLiteral("Training CPU time of tuning each algorithm may use; a trial "
                                                       "starts while its algorithm has used less. 0: no CPU budget."));
        cpu.absentText = QStringLiteral("no CPU budget");
        s.add(cpu);
        s.add(ParamSpec::choice(QStringLiteral("tuning.search"), QStringLiteral("Search"), {"random", "sobol"}, "random",
                                QStringLiteral("How the trials are drawn: independent uniforms, or a scrambled Sobol "
                                               "sequence (more even in few trials).")));
        s.add(ParamSpec::integer(QStringLiteral("tuning.seed"), QStringLiteral("Search seed"), 1, 0, 1000000000,
                                 QStringLiteral("Seed of the draws (not of the runs).")));
        // 0 on the form stands for no halving (absentText); min_fraction takes effect with an eta.
        ParamSpec eta = ParamSpec::real(QStringLiteral("tuning.halving.eta"), QStringLiteral("Halving: eta"), 0.0, 0.0, 100.0,
                                        QStringLiteral("Successive halving: every trial first trains on a fraction of "
                                                       "its epochs or time budget, and the best 1/eta of each rung "
                                                       "train again on eta times more. 0: no halving."));
        eta.absentText = QStringLiteral("no halving");
        s.add(eta);
        ParamSpec fraction = ParamSpec::real(QStringLiteral("tuning.halving.min_fraction"),
                                             QStringLiteral("Halving: smallest fraction"), 0.1, 0.001, 0.99,
                                             QStringLiteral("The first rung's fraction of the budget is the largest "
                                                            "power 1/eta^K not below this."));
        fraction.absentText = QStringLiteral("0.1");
        s.add(fraction);
        s.add(ParamSpec::integer(QStringLiteral("final.seeds"), QStringLiteral("Final seeds"), 5, 1, 1000,
                                 QStringLiteral("Fresh seeds each chosen configuration is retrained on and reported "
                                                "with an interval (at least 5).")));
        s.add(ParamSpec::boolean(QStringLiteral("final.defaults"), QStringLiteral("Also the defaults"), true,
                                 QStringLiteral("Also retrain every algorithm's untuned defaults on the final seeds.")));
        return s;
    }

    bool parseSection(const QJsonObject& file, ExperimentSpec& spec, QString* key, QString* message) const override
    {
        auto fail = [&](const QString& k, const QString& m) {
            *key = k;
            *message = m;
            return false;
        };
        auto section = std::make_shared<TuningSection>();
        const QJsonValue tv = file.value(QStringLiteral("tuning"));
        if (!tv.isObject())
            return fail(QStringLiteral("tuning"), QStringLiteral("a tuned-comparison needs {\"trials\": 30} and/or "
                                                                 "{\"cpu_seconds\": 60}, got %1")
                                                      .arg(jsonValueText(tv)));
        const QJsonObject t = tv.toObject();
        static const QStringList tuningKeys{"trials", "cpu_seconds", "search", "seed", "halving"};
        for (auto it = t.begin(); it != t.end(); ++it)
            if (!tuningKeys.contains(it.key()))
                return fail("tuning." + it.key(), QStringLiteral("unknown key (known: %1)").arg(tuningKeys.join(", ")));
        if (!t.contains("trials") && !t.contains("cpu_seconds"))
            return fail(QStringLiteral("tuning"), QStringLiteral("give the budget every algorithm gets: \"trials\", "
                                                                 "\"cpu_seconds\" or both"));
        if (t.contains("trials") && !integer(t.value("trials"), 1, TuningSection::maxTrials, &section->trials))
            return fail(QStringLiteral("tuning.trials"), QStringLiteral("expected an integer 1 to %1, got %2")
                                                             .arg(TuningSection::maxTrials)
                                                             .arg(jsonValueText(t.value("trials"))));
        if (t.contains("cpu_seconds")) {
            const QJsonValue v = t.value("cpu_seconds");
            if (!v.isDouble() || !(v.toDouble() > 0) || !std::isfinite(v.toDouble()))
                return fail(QStringLiteral("tuning.cpu_seconds"),
                            QStringLiteral("expected CPU seconds > 0, got %1").arg(jsonValueText(v)));
            section->cpuSeconds = v.toDouble();
        }
        if (t.contains("search")) {
            const QString s = t.value("search").toString();
            if (s != u"random" && s != u"sobol")
                return fail(QStringLiteral("tuning.search"),
                            QStringLiteral("expected \"random\" or \"sobol\", got %1").arg(jsonValueText(t.value("search"))));
            section->search = s == u"sobol" ? TrialSearch::Sobol : TrialSearch::Random;
        }
        if (t.contains("seed")) {
            int seed = 0;
            if (!integer(t.value("seed"), 0, 1000000000, &seed))
                return fail(QStringLiteral("tuning.seed"), QStringLiteral("expected an integer 0 to 1000000000, got %1")
                                                               .arg(jsonValueText(t.value("seed"))));
            section->seed = std::uint64_t(seed);
        }
        if (t.contains("halving") && !parseHalving(t, *section, key, message))
            return false;
        if (file.contains("final")) {
            const QJsonValue fv = file.value("final");
            if (!fv.isObject())
                return fail(QStringLiteral("final"), QStringLiteral("expected {\"seeds\": 5}, got %1").arg(jsonValueText(fv)));
            const QJsonObject f = fv.toObject();
            for (auto it = f.begin(); it != f.end(); ++it)
                if (it.key() != u"seeds" && it.key() != u"defaults")
                    return fail("final." + it.key(), QStringLiteral("unknown key (known: seeds, defaults)"));
            if (f.contains("seeds") && !integer(f.value("seeds"), 1, 1000, &section->finalSeeds))
                return fail(QStringLiteral("final.seeds"),
                            QStringLiteral("expected an integer 1 to 1000, got %1").arg(jsonValueText(f.value("seeds"))));
            if (f.contains("defaults")) {
                if (!f.value("defaults").isBool())
                    return fail(QStringLiteral("final.defaults"),
                                QStringLiteral("expected true or false, got %1").arg(jsonValueText(f.value("defaults"))));
                section->defaults = f.value("defaults").toBool();
            }
        }
        for (int a = 0; a < spec.algorithms.size(); ++a) {
            QList<SearchAxis> axes;
            const QJsonObject& keys = spec.algorithms[a].kindKeys;
            const bool given = keys.contains(QStringLiteral("search"));
            if (given && !SearchSpaces::parse(keys.value(QStringLiteral("search")), QStringLiteral("algorithms[%1]").arg(a),
                                              &axes, key, message))
                return false;
            section->overrides << axes;
            section->overridden << given;
        }
        spec.section = std::move(section);
        return true;
    }

    QStringList validate(const ExperimentSpec& spec, const PluginRegistry& registry) const override
    {
        QStringList problems;
        const TuningSection& section = sectionOf(spec);
        if (!spec.dataset.contains(QStringLiteral("validation_fraction")) &&
            !spec.dataset.contains(QStringLiteral("validation_file")))
            problems << QStringLiteral("dataset: a tuned comparison chooses on the validation split only: give the data "
                                       "set \"validation_fraction\" (e.g. 0.2) or \"validation_file\"");
        for (int a = 0; a < spec.algorithms.size(); ++a) {
            const AlgorithmEntry* e = registry.algorithm(spec.algorithms[a].id);
            if (!e)
                continue; // reported by ExperimentSpec::validate()
            const ParamSchema& schema = e->info.schema;
            const QVariantMap fixed = schema.upgrade(spec.algorithms[a].params);
            const QList<SearchAxis> axes =
                SearchSpaces::resolve(schema, section.overrides.value(a), section.overridden.value(a, false), fixed);
            problems << SearchSpaces::check(schema, axes, fixed, QStringLiteral("algorithms[%1]").arg(a));
        }
        return problems;
    }

    // An algorithm's own search ranges of an earlier format convert as its parameters do: the key
    // renamed, the bounds (or choices) scaled — a range scaled end to end draws the values scaled.
    void upgradeFormat(ExperimentSpec& spec, const PluginRegistry& registry, int fromFormat,
                       QStringList* notes) const override
    {
        auto section = std::make_shared<TuningSection>(sectionOf(spec));
        for (int a = 0; a < spec.algorithms.size(); ++a) {
            AlgorithmRun& run = spec.algorithms[a];
            const AlgorithmEntry* e = registry.algorithm(run.id);
            if (!e || !run.kindKeys.value(QStringLiteral("search")).isObject())
                continue;
            QJsonObject search = run.kindKeys.value(QStringLiteral("search")).toObject();
            bool changed = false;
            for (const auto& c : e->info.schema.formatChanges(fromFormat)) {
                if (!search.contains(c.key) || !search.value(c.key).isObject())
                    continue;
                QJsonObject range = search.take(c.key).toObject();
                for (auto it = range.begin(); it != range.end(); ++it)
                    if (it.value().isArray()) {
                        QJsonArray values = it.value().toArray();
                        for (auto&& v : values)
                            v = QJsonValue::fromVariant(ParamSchema::convertedValue(c, v.toVariant()));
                        it.value() = values;
                    }
                search.insert(c.now, range);
                changed = true;
                *notes << QStringLiteral("algorithms[%1].search.%2: written in parameter format %3, where \"%2\" meant "
                                         "%4: it is now \"%5\", its range × %6")
                              .arg(a)
                              .arg(c.key)
                              .arg(fromFormat)
                              .arg(c.then, c.now)
                              .arg(c.factor);
            }
            if (!changed)
                continue;
            run.kindKeys.insert(QStringLiteral("search"), search);
            QList<SearchAxis> axes;
            QString key, message;
            if (SearchSpaces::parse(search, QStringLiteral("algorithms[%1]").arg(a), &axes, &key, &message) &&
                a < section->overrides.size())
                section->overrides[a] = axes;
        }
        spec.section = std::move(section);
    }

    void write(const ExperimentSpec& spec, QJsonObject& json) const override
    {
        const TuningSection& s = sectionOf(spec);
        QJsonObject t;
        if (s.trials > 0)
            t.insert("trials", s.trials);
        if (s.cpuSeconds > 0)
            t.insert("cpu_seconds", s.cpuSeconds);
        t.insert("search", TuningSection::searchName(s.search));
        t.insert("seed", double(s.seed));
        if (s.halvingEta > 0)
            t.insert("halving", QJsonObject{{"eta", s.halvingEta}, {"min_fraction", s.halvingMinFraction}});
        json.insert("tuning", t);
        json.insert("final", QJsonObject{{"seeds", s.finalSeeds}, {"defaults", s.defaults}});
    }

    int plannedRuns(const ExperimentSpec& spec) const override
    {
        return TunedRun::plannedCells(spec, sectionOf(spec), nullptr);
    }

    QString describe(const ExperimentSpec& spec) const override
    {
        const TuningSection& s = sectionOf(spec);
        QStringList budget;
        if (s.trials > 0)
            budget << QStringLiteral("%1 trials").arg(s.trials);
        if (s.cpuSeconds > 0)
            budget << QStringLiteral("%1 CPU s").arg(s.cpuSeconds);
        const QString halving = s.halvingEta > 0 ? QStringLiteral(", successive halving (eta %1, %2 rungs)")
                                                       .arg(s.halvingEta)
                                                       .arg(s.rungs().size())
                                                 : QString();
        return QStringLiteral("tuned comparison: %1 per algorithm (%2 search, seed %3%8), chosen on validation; %4 final "
                              "seed(s)%5; seed %6, %7 threads")
            .arg(budget.join(QStringLiteral(" and at most ")), TuningSection::searchName(s.search))
            .arg(s.seed)
            .arg(s.finalSeeds)
            .arg(s.defaults ? QStringLiteral(" beside the defaults") : QString())
            .arg(spec.seed)
            .arg(spec.effectiveThreads())
            .arg(halving);
    }

    QList<AlgorithmCurves> configurations(const ExperimentSpec& spec, const PluginRegistry* registry) const override
    {
        return TunedRun::configurations(spec, sectionOf(spec), registry);
    }

    void setRepetitions(QJsonObject& file, int n) const override
    {
        QJsonObject f = file.value(QStringLiteral("final")).toObject();
        f.insert(QStringLiteral("seeds"), n);
        file.insert(QStringLiteral("final"), f);
    }

    bool runsOneAtATime(const ExperimentSpec&) const override { return true; }

    void narrowToRun(ExperimentSpec& spec, const RunRecord& run) const override
    {
        // One trial or final run is a learning curve of one repeat: its complete stored parameters
        // (the drawn values among them) and its repeat number, whose seed rule deriveSeed(seed, r)
        // is the tuned comparison's.
        spec.kind = QStringLiteral("learning-curve");
        spec.section.reset();
        spec.repeats = 1;
        spec.firstRepeat = run.repeat;
        for (AlgorithmRun& a : spec.algorithms)
            a.kindKeys = {};
    }

    StoredPlace placeOf(const RunRecord& run) const override
    {
        StoredPlace p;
        const QJsonObject f = run.info.value(SelectionCurves::factKey()).toObject();
        if (f.isEmpty())
            return p;
        p.placed = true;
        p.phase = f.value("phase").toString();
        p.selection = p.phase == u"trial";
        p.trial = f.value("trial").toInt(-1);
        p.configuration = f.value("configuration").toString();
        p.setting = f.value(p.selection ? "drawn" : "setting").toObject().toVariantMap();
        p.order = {f.value("index").toInt()};
        return p;
    }

    QStringList charts() const override
    {
        return {QStringLiteral("tuning"), QStringLiteral("tuning-time"), QStringLiteral("learning-curve-time"),
                QStringLiteral("learning-curve-epoch"), QStringLiteral("parallel-coordinates"), QStringLiteral("frontier")};
    }

    ExperimentResult run(ExperimentContext& ctx, const ExperimentSpec& spec, qint64 experimentId,
                         ExperimentObserver* obs) const override
    {
        return TunedRun(ctx, spec, sectionOf(spec), experimentId, obs).run();
    }

private:
    // tuning.halving: {"eta": 3, "min_fraction": 0.1}.
    static bool parseHalving(const QJsonObject& t, TuningSection& section, QString* key, QString* message)
    {
        auto fail = [&](const QString& k, const QString& m) {
            *key = QStringLiteral("tuning.halving") + k;
            *message = m;
            return false;
        };
        const QJsonValue hv = t.value(QStringLiteral("halving"));
        if (!hv.isObject())
            return fail({}, QStringLiteral("expected {\"eta\": 3, \"min_fraction\": 0.1}, got %1").arg(jsonValueText(hv)));
        const QJsonObject h = hv.toObject();
        for (auto it = h.begin(); it != h.end(); ++it)
            if (it.key() != u"eta" && it.key() != u"min_fraction")
                return fail("." + it.key(), QStringLiteral("unknown key (known: eta, min_fraction)"));
        if (!t.contains(QStringLiteral("trials")))
            return fail({}, QStringLiteral("successive halving starts from a number of trials: give \"tuning.trials\""));
        const QJsonValue v = h.value("eta");
        if (!v.isDouble() || !(v.toDouble() >= 1.5) || !(v.toDouble() <= 100))
            return fail(QStringLiteral(".eta"),
                        QStringLiteral("expected a number 1.5 to 100 (each rung promotes its best 1/eta), got %1")
                            .arg(jsonValueText(v)));
        section.halvingEta = v.toDouble();
        if (h.contains("min_fraction")) {
            const QJsonValue v = h.value("min_fraction");
            if (!v.isDouble() || !(v.toDouble() > 0) || !(v.toDouble() < 1))
                return fail(QStringLiteral(".min_fraction"),
                            QStringLiteral("expected a fraction of the budget between 0 and 1, got %1").arg(jsonValueText(v)));
            section.halvingMinFraction = v.toDouble();
        }
        if (section.rungs().size() < 2)
            return fail(QStringLiteral(".min_fraction"),
                        QStringLiteral("%1 leaves one rung with eta %2: give at most 1/eta (%3)")
                            .arg(section.halvingMinFraction)
                            .arg(section.halvingEta)
                            .arg(1 / section.halvingEta, 0, 'g', 3));
        return true;
    }

    static bool integer(const QJsonValue& v, int lo, int hi, int* out)
    {
        const double d = v.toDouble(std::nan(""));
        if (!v.isDouble() || d != std::floor(d) || d < lo || d > hi)
            return false;
        *out = int(d);
        return true;
    }
};

} // namespace
} // namespace tb

TB_REGISTER_EXPERIMENT_KIND(tb::TunedComparisonKind)
