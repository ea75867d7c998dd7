#include "DataKeys.h"

#include "RandomFeatureOption.h"

namespace tb::data {
namespace {

const QString kSeedHelp =
    QStringLiteral("Seed of generation, split and subsets; absent: the experiment's seed.");
const QString kStandardiseHelp = QStringLiteral(
    "Standardise the inputs: zero mean and unit variance per input column, fitted on the training set and "
    "applied to both sets. Targets are not changed (see standardise_targets).");
const QString kStandardiseTargetsHelp = QStringLiteral(
    "Regression: standardise the targets too, fitted on the training set; predictions are mapped back, so "
    "train and test RMSE stay in the targets' own units (a trainer's loss is in standardised units).");
const QString kMinMaxHelp = QStringLiteral(
    "Regression: scale every input column and the targets to [0, 1] with the training rows' minimum and "
    "maximum, applied to both sets (Palagi & Seccia 2019 scale this way). Predictions are mapped back, so "
    "RMSE stays in the targets' own units. Not with standardise or standardise_targets.");
const QString kTestFractionHelp =
    QStringLiteral("Share of the rows held out as the test set, drawn with the seed.");
const QString kKeepClassesHelp = QStringLiteral(
    "Keep only the rows of these classes (names or 0-based indices, at least two; after train_limit/test_limit), "
    "relabelled in the order given: the first becomes class 0, e.g. [0, 6] is T-shirt/top against Shirt. "
    "Absent: all.");

QString shown(const QVariant& v)
{
    return ParamSchema::describe(v);
}

} // namespace

ParamSpec DataKeys::finished(ParamSpec p)
{
    QStringList parts;
    if (p.required)
        parts << QStringLiteral("Required");
    else if (!p.requiredUnless.isEmpty())
        parts << QStringLiteral("Required unless %1 is given").arg(p.requiredUnless);
    if (p.defaultValue.isValid())
        parts << QStringLiteral("default %1").arg(shown(p.defaultValue));
    if (const QString r = ParamSchema::rangeText(p); !r.isEmpty())
        parts << r;
    if (p.type == ParamType::Choice) {
        QStringList q;
        for (const QString& c : p.choices)
            q << QLatin1Char('"') + c + QLatin1Char('"');
        parts << QStringLiteral("one of %1").arg(q.join(QStringLiteral(", ")));
    }
    if (!parts.isEmpty()) {
        QString tail = parts.join(QStringLiteral("; "));
        tail[0] = tail[0].toUpper();
        p.help += QLatin1Char(' ') + tail + QLatin1Char('.');
    }
    return p;
}

ParamSpec DataKeys::integer(const QString& key, const QString& label, double lo, double hi, const QVariant& def,
                            const QString& help)
{
    ParamSpec p = ParamSpec::make(key, label, ParamType::Int, def.isValid() ? QVariant(def.toLongLong()) : QVariant(), lo, hi);
    p.help = help;
    return p;
}

ParamSpec DataKeys::real(const QString& key, const QString& label, double lo, double hi, bool exclusive,
                         const QVariant& def, const QString& help)
{
    ParamSpec p = ParamSpec::make(key, label, ParamType::Real, def.isValid() ? QVariant(def.toDouble()) : QVariant(), lo, hi);
    p.exclusiveMinimum = p.exclusiveMaximum = exclusive;
    p.help = help;
    return p;
}

ParamSpec DataKeys::boolean(const QString& key, const QString& label, bool def, const QString& help)
{
    ParamSpec p = ParamSpec::make(key, label, ParamType::Bool, QVariant(def));
    p.help = help;
    return p;
}

ParamSpec DataKeys::choice(const QString& key, const QString& label, const QStringList& choices,
                           const QStringList& labels, const QVariant& def, const QString& help)
{
    ParamSpec p = ParamSpec::make(key, label, ParamType::Choice, def.isValid() ? QVariant(def.toString()) : QVariant());
    p.choices = choices;
    p.choiceLabels = labels;
    p.help = help;
    return p;
}

ParamSpec DataKeys::path(const QString& key, const QString& label, bool required, const QString& filter,
                         const QString& help)
{
    ParamSpec p = ParamSpec::path(key, label, filter, help);
    p.required = required;
    return p;
}

ParamSpec DataKeys::folder(const QString& key, const QString& label, const QString& help)
{
    return ParamSpec::path(key, label, QString(), help, true);
}

ParamSpec DataKeys::columns(const QString& key, const QString& label, const QString& help)
{
    return ParamSpec::columns(key, label, help);
}

ParamSpec DataKeys::seed(const QString& key, const QString& label, const QString& help)
{
    return ParamSpec::seed(key, label, help);
}

ParamSchema DataKeys::finished(const ParamSchema& schema)
{
    ParamSchema out;
    for (const ParamSpec& p : schema.specs())
        out.add(finished(p));
    return out;
}

QString DataKeys::taskName(Task task)
{
    return task == Task::Classification ? QStringLiteral("classification") : QStringLiteral("regression");
}

ParamSchema DataKeys::common(const DataSourceInfo& info)
{
    const QString task = QStringLiteral("task");
    const QStringList classification{QStringLiteral("classification")};
    const QStringList regression{QStringLiteral("regression")};
    const bool canClassify = !info.task || *info.task == Task::Classification;
    const bool canRegress = !info.task || *info.task == Task::Regression;
    // With a "task" key the task-specific keys apply to its value only; a fixed task leaves out
    // the keys of the other task altogether.
    auto forTask = [&](ParamSpec p, const QStringList& values) {
        return info.task ? p : p.activeWhenIn(task, values);
    };

    ParamSchema out;
    if (info.testSet != DataSourceInfo::TestSet::Own) {
        ParamSpec f = real(QStringLiteral("test_fraction"), QStringLiteral("Test fraction"), 0, 1, true, info.testFraction,
                           kTestFractionHelp);
        if (info.testSet == DataSourceInfo::TestSet::OwnOrSplit && !info.testKey.isEmpty()) {
            f.requiredUnless = info.testKey;
            f = f.activeUnless(info.testKey);
        }
        out.add(f);
    }
    if (canClassify)
        out.add(forTask(columns(QStringLiteral("keep_classes"), QStringLiteral("Keep classes"), kKeepClassesHelp)
                            .absentMeans(QStringLiteral("all")),
                        classification));
    out.add(boolean(QStringLiteral("standardise"), QStringLiteral("Standardise inputs"), false, kStandardiseHelp));
    if (canRegress) {
        out.add(forTask(boolean(QStringLiteral("standardise_targets"), QStringLiteral("Standardise targets"), false,
                                kStandardiseTargetsHelp),
                        regression));
        out.add(forTask(boolean(QStringLiteral("min_max_scale"), QStringLiteral("Min-max scale"), false, kMinMaxHelp),
                        regression));
    }
    out.add(seed(QStringLiteral("seed"), QStringLiteral("Seed"), kSeedHelp).absentMeans(QStringLiteral("the experiment's seed")));
    out.append(RandomFeatureOption::keys());
    return finished(out);
}

ParamContext DataKeys::context(const DataSourceInfo& info)
{
    ParamContext ctx;
    ctx.keyNames = ParamContext::KeyNames::Path;
    ctx.path = QStringLiteral("dataset");
    ctx.owner = QStringLiteral("source \"%1\"").arg(info.id);
    ctx.otherKeys = {QStringLiteral("source")};
    if (info.task)
        ctx.values.insert(QStringLiteral("task"), taskName(*info.task));
    return ctx;
}

} // namespace tb::data
