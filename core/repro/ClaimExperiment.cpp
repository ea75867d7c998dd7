#include "ClaimExperiment.h"

#include "ClaimsFile.h"

#include <engine/ExperimentKind.h>

#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>

namespace tb::repro {
namespace {

QJsonObject merged(QJsonObject base, const QJsonObject& changes)
{
    for (auto it = changes.begin(); it != changes.end(); ++it) {
        if (it.value().isNull())
            base.remove(it.key());
        else
            base.insert(it.key(), it.value());
    }
    return base;
}

QString labelOf(const QJsonObject& algorithm)
{
    const QString label = algorithm.value("label").toString();
    return label.isEmpty() ? algorithm.value("id").toString() : label;
}

// Applies one "overrides" object to the experiment @p e; @p where names it in messages.
bool apply(QJsonObject& e, const QJsonObject& overrides, const QString& where, QString* error)
{
    auto fail = [&](const QString& key, const QString& message) {
        *error = QStringLiteral("%1.%2: %3").arg(where, key, message);
        return false;
    };
    for (const char* key : {"seed", "threads", "time_budget_s", "time_budget_clock", "name"})
        if (overrides.contains(key))
            e.insert(key, overrides.value(key));
    if (overrides.contains("dataset")) {
        if (!overrides.value("dataset").isObject())
            return fail("dataset", QStringLiteral("expected an object of data-set keys, got %1")
                                       .arg(jsonValueText(overrides.value("dataset"))));
        e.insert("dataset", merged(e.value("dataset").toObject(), overrides.value("dataset").toObject()));
    }
    if (overrides.contains("sigma")) {
        QJsonObject sweep = e.value("sweep").toObject();
        sweep.insert("sigma", overrides.value("sigma"));
        e.insert("sweep", sweep);
    }
    QJsonArray algorithms = e.value("algorithms").toArray();
    if (overrides.contains("algorithms")) {
        const QJsonValue keep = overrides.value("algorithms");
        if (!keep.isArray() || keep.toArray().isEmpty())
            return fail("algorithms", QStringLiteral("expected a non-empty array of algorithm labels, got %1")
                                          .arg(jsonValueText(keep)));
        QStringList labels;
        for (const QJsonValue& a : algorithms)
            labels << labelOf(a.toObject());
        QStringList wanted;
        const QJsonArray keepArray = keep.toArray();
        for (int i = 0; i < keepArray.size(); ++i) {
            if (!labels.contains(keepArray[i].toString()))
                return fail(QStringLiteral("algorithms[%1]").arg(i),
                            QStringLiteral("no algorithm labelled %1 in the experiment (labels: %2)")
                                .arg(jsonValueText(keepArray[i]), labels.join(QStringLiteral(", "))));
            wanted << keepArray[i].toString();
        }
        QJsonArray kept;
        for (const QJsonValue& a : algorithms)
            if (wanted.contains(labelOf(a.toObject())))
                kept.append(a);
        algorithms = kept;
    }
    if (overrides.contains("params")) {
        if (!overrides.value("params").isObject())
            return fail("params", QStringLiteral("expected an object of parameters, got %1")
                                      .arg(jsonValueText(overrides.value("params"))));
        for (int i = 0; i < algorithms.size(); ++i) {
            QJsonObject a = algorithms[i].toObject();
            a.insert("params", merged(a.value("params").toObject(), overrides.value("params").toObject()));
            algorithms[i] = a;
        }
    }
    if (overrides.contains("algorithm_params")) {
        const QJsonValue per = overrides.value("algorithm_params");
        if (!per.isObject())
            return fail("algorithm_params",
                        QStringLiteral("expected {label: parameters}, got %1").arg(jsonValueText(per)));
        const QJsonObject perObject = per.toObject();
        for (auto it = perObject.begin(); it != perObject.end(); ++it) {
            bool found = false;
            for (int i = 0; i < algorithms.size(); ++i) {
                QJsonObject a = algorithms[i].toObject();
                if (labelOf(a) != it.key())
                    continue;
                if (!it.value().isObject())
                    return fail(QStringLiteral("algorithm_params.%1").arg(it.key()),
                                QStringLiteral("expected an object of parameters, got %1")
                                    .arg(jsonValueText(it.value())));
                a.insert("params", merged(a.value("params").toObject(), it.value().toObject()));
                algorithms[i] = a;
                found = true;
            }
            if (!found)
                return fail(QStringLiteral("algorithm_params.%1").arg(it.key()),
                            QStringLiteral("no algorithm labelled \"%1\" in the experiment").arg(it.key()));
        }
    }
    e.insert("algorithms", algorithms);
    return true;
}

} // namespace

QStringList ClaimExperiment::overrideKeys()
{
    return {"seed",    "threads",    "time_budget_s", "time_budget_clock", "name",
            "dataset", "algorithms", "params",        "algorithm_params",  "sigma"};
}

int ClaimExperiment::seeds(const Claim& claim, bool quick)
{
    return quick && claim.quick.n > 0 ? claim.quick.n : claim.n;
}

std::optional<QJsonObject> ClaimExperiment::json(const ClaimsFile& file, const Claim& claim, bool quick,
                                                 QString* error)
{
    const QString where = QStringLiteral("%1: %2").arg(file.path, claim.jsonPath);
    QJsonObject e = claim.experimentInline;
    if (!claim.experimentPath.isEmpty()) {
        QFile f(claim.experimentPath);
        if (!f.open(QIODevice::ReadOnly)) {
            *error = QStringLiteral("%1.experiment: cannot open %2: %3")
                         .arg(where, claim.experimentPath, f.errorString());
            return std::nullopt;
        }
        QJsonParseError pe;
        const QJsonDocument doc = QJsonDocument::fromJson(f.readAll(), &pe);
        if (pe.error != QJsonParseError::NoError || !doc.isObject()) {
            *error = QStringLiteral("%1.experiment: %2 is not a JSON object (%3)")
                         .arg(where, claim.experimentPath, pe.errorString());
            return std::nullopt;
        }
        e = doc.object();
    }
    if (!apply(e, claim.overrides, where + QStringLiteral(".overrides"), error))
        return std::nullopt;
    if (quick && !apply(e, claim.quick.overrides, where + QStringLiteral(".quick.overrides"), error))
        return std::nullopt;
    const int n = seeds(claim, quick);
    // The claim's n is the experiment's repetitions, in its kind's terms (repeats, Monte-Carlo cells …).
    if (const ExperimentKind* kind = ExperimentKinds::find(e.value("kind").toString()))
        kind->setRepetitions(e, n);
    else
        e.insert("repeats", n);  // an unknown kind is named when the spec is parsed
    if (quick && !claim.quick.overrides.contains("name"))
        e.insert("name", e.value("name").toString() + QStringLiteral(" (quick)"));
    return e;
}

QString ClaimExperiment::sourceName(const ClaimsFile& file, const Claim& claim)
{
    return claim.experimentPath.isEmpty()
               ? QStringLiteral("%1: %2.experiment").arg(file.path, claim.jsonPath)
               : QStringLiteral("%1 (for %2: %3)").arg(claim.experimentPath, file.path, claim.jsonPath);
}

std::optional<ExperimentSpec> ClaimExperiment::spec(const ClaimsFile& file, const Claim& claim, bool quick,
                                                    QString* error)
{
    const auto e = json(file, claim, quick, error);
    if (!e)
        return std::nullopt;
    auto spec = ExperimentSpec::fromObject(*e, sourceName(file, claim), error);
    if (!spec)
        return std::nullopt;
    const QFileInfo at(claim.experimentPath.isEmpty() ? file.path : claim.experimentPath);
    spec->sourcePath = at.absoluteFilePath();
    spec->baseDir = at.absolutePath();
    return spec;
}

} // namespace tb::repro
