#include "SelectionCurves.h"

#include "SettingLabel.h"

#include <QJsonObject>

#include <algorithm>
#include <cmath>
#include <numeric>

namespace tb {
namespace {

bool failedStatus(RunStatus s) { return s == RunStatus::Failed || s == RunStatus::Diverged; }

// "lr=0.0123, batch_size=64": a drawn setting with numbers to 3 significant digits, for a table.
QString compactSetting(const QVariantMap& setting)
{
    QStringList parts;
    for (auto it = setting.begin(); it != setting.end(); ++it) {
        const QVariant& v = it.value();
        const bool real = v.typeId() == QMetaType::Double || v.typeId() == QMetaType::Float;
        parts << QStringLiteral("%1=%2").arg(it.key(), real ? QString::number(v.toDouble(), 'g', 3) : settingValueText(v));
    }
    return parts.join(QStringLiteral(", "));
}

struct Trial {
    int number = -1;
    int rung = 0; ///< successive halving's rung (0 without)
    double validation = NaN;
    double test = NaN;
    double cpu = 0;
    bool failed = false;
    QVariantMap drawn;
};

} // namespace

const QString& SelectionCurves::factKey()
{
    static const QString key = QStringLiteral("tuning");
    return key;
}

QList<TuningCurve> SelectionCurves::of(const ExperimentResult& result)
{
    QList<TuningCurve> out;
    for (const AlgorithmCurves& c : result.selection) {
        TuningCurve t;
        t.algorithmId = c.algorithmId;
        t.label = c.label;
        // Classification when any trial has a validation accuracy, else regression (RMSE).
        bool accuracy = false;
        for (const auto& points : c.repeats)
            for (const MetricPoint& p : points)
                accuracy = accuracy || std::isfinite(p.validationAccuracy);
        t.selectedOn = accuracy ? MetricId::ValidationAccuracy : MetricId::ValidationRmse;
        t.reported = accuracy ? MetricId::TestAccuracy : MetricId::TestRmse;
        const stats::Better better = RunMetric::better(t.selectedOn);
        std::vector<Trial> trials;
        for (int k = 0; k < c.repeats.size(); ++k) {
            const RunStatus status = c.statuses.value(k, RunStatus::Cancelled);
            const bool failed = failedStatus(status);
            if (status != RunStatus::Finished && !failed)
                continue; // Stop kept it from starting, or interrupted it: not a trial of the budget
            const QJsonObject info = c.infos.value(k);
            const QJsonObject fact = info.value(factKey()).toObject();
            Trial tr;
            tr.number = fact.value(QStringLiteral("trial")).toInt(k);
            tr.rung = fact.value(QStringLiteral("rung")).toInt(0);
            tr.drawn = fact.value(QStringLiteral("drawn")).toObject().toVariantMap();
            tr.cpu = info.value(QStringLiteral("final")).toObject().value(QStringLiteral("train_cpu_seconds")).toDouble();
            tr.failed = failed;
            if (!failed && !c.repeats[k].isEmpty()) {
                tr.validation = RunMetric::atPoint(t.selectedOn, c.repeats[k].last());
                tr.test = RunMetric::atPoint(t.reported, c.repeats[k].last());
            }
            tr.failed = failed || !std::isfinite(tr.validation);
            trials.push_back(tr);
        }
        std::sort(trials.begin(), trials.end(), [](const Trial& a, const Trial& b) {
            return a.rung != b.rung ? a.rung < b.rung : a.number < b.number;
        });
        // Under successive halving every rung's runs cost CPU time, and the choice is made among
        // the runs of the highest rung reached: trained on the whole budget.
        int top = 0;
        for (const Trial& tr : trials) {
            t.cpuSeconds += tr.cpu;
            top = std::max(top, tr.rung);
            t.trials += tr.rung == 0 ? 1 : 0;
        }
        t.topRung = top;
        std::erase_if(trials, [top](const Trial& tr) { return tr.rung != top; });
        t.atTopRung = int(trials.size());
        // A failed trial counts against the budget and scores as the worst finished one.
        double worstValidation = NaN, worstTest = NaN;
        for (const Trial& tr : trials) {
            if (tr.failed) {
                t.failed++;
                continue;
            }
            if (!std::isfinite(worstValidation) || stats::isBetter(worstValidation, tr.validation, better)) {
                worstValidation = tr.validation;
                worstTest = tr.test;
            }
            if (!std::isfinite(t.bestValidation) || stats::isBetter(tr.validation, t.bestValidation, better)) {
                t.bestValidation = tr.validation;
                t.bestTest = tr.test;
                t.bestTrial = tr.number;
                t.bestSetting = tr.drawn;
            }
        }
        if (std::isfinite(worstValidation)) {
            std::vector<double> scores, tests;
            for (const Trial& tr : trials) {
                scores.push_back(tr.failed ? worstValidation : tr.validation);
                tests.push_back(tr.failed ? worstTest : tr.test);
            }
            t.byTrials = stats::ExpectedMax::curve(scores, tests, t.atTopRung, better);
            // Without halving, n trials cost n mean trials; with it, n runs of the top rung cost
            // their share of every rung's time.
            const double mean = t.atTopRung > 0 ? t.cpuSeconds / t.atTopRung : 0;
            for (int n = 1; n <= t.atTopRung; ++n)
                t.cpuAt.push_back(n * mean);
        }
        out << t;
    }
    return out;
}

QList<AlgorithmCurves> SelectionCurves::candidates(const ExperimentResult& result)
{
    QList<AlgorithmCurves> out;
    for (const AlgorithmCurves& c : result.selection)
        for (int k = 0; k < c.repeats.size(); ++k) {
            AlgorithmCurves one;
            one.algorithmId = c.algorithmId;
            one.algorithmIndex = c.algorithmIndex;
            one.label = one.configuration = c.label;
            one.dataset = c.dataset;
            one.clock = c.clock;
            one.setting = c.infos.value(k).value(factKey()).toObject().value(QStringLiteral("drawn")).toObject().toVariantMap();
            one.repeats << c.repeats[k];
            one.statuses << c.statuses.value(k, RunStatus::Finished);
            one.infos << c.infos.value(k);
            one.errors << c.errors.value(k);
            one.repeatNumbers << c.repeatNumbers.value(k, k);
            one.seeds << c.seeds.value(k, 0);
            one.runIds << c.runIds.value(k, -1);
            out << one;
        }
    return out;
}

QString SelectionCurves::budget(const ExperimentResult& result)
{
    // Successive halving, named when any algorithm was halved (a closed-form one is not).
    QString halving;
    for (const AlgorithmCurves& c : result.selection)
        for (const QJsonObject& info : c.infos)
            if (const QJsonObject h = info.value(factKey()).toObject().value(QStringLiteral("halving")).toObject();
                !h.isEmpty() && halving.isEmpty())
                halving = QStringLiteral("; successive halving, eta %1, from %2 of the epochs or time budget")
                              .arg(h.value(QStringLiteral("eta")).toDouble())
                              .arg(h.value(QStringLiteral("min_fraction")).toDouble());
    for (const AlgorithmCurves& c : result.selection)
        for (const QJsonObject& info : c.infos) {
            const QJsonObject f = info.value(factKey()).toObject();
            if (f.isEmpty())
                continue;
            QString s = QStringLiteral("%1 search, seed %2").arg(f.value(QStringLiteral("search")).toString(),
                                                                  f.value(QStringLiteral("seed")).toString());
            const int trials = f.value(QStringLiteral("trials")).toInt();
            const double cpu = f.value(QStringLiteral("cpu_seconds")).toDouble();
            QStringList parts;
            if (trials > 0)
                parts << QStringLiteral("%1 trials").arg(trials);
            if (cpu > 0)
                parts << QStringLiteral("%1 CPU s of tuning").arg(cpu);
            return QStringLiteral("the same budget for every algorithm: %1 (%2%3)")
                .arg(parts.join(QStringLiteral(" and at most ")), s, halving);
        }
    return {};
}

TextTable SelectionCurves::table(const ExperimentResult& result)
{
    const QList<TuningCurve> curves = of(result);
    int most = 0;
    for (const TuningCurve& t : curves)
        most = std::max(most, t.atTopRung);
    QList<int> at;
    for (int n : {1, 2, 5, 10, 20, 50, 100, 200, 500, 1000})
        if (n < most)
            at << n;
    at << most;
    const MetricId selectedOn = curves.isEmpty() ? MetricId::ValidationAccuracy : curves.first().selectedOn;
    const MetricId reported = curves.isEmpty() ? MetricId::TestAccuracy : curves.first().reported;
    QStringList header{QStringLiteral("algorithm"), QStringLiteral("trials"), QStringLiteral("tuning CPU s")};
    for (int n : at)
        header << QStringLiteral("E[best] %1").arg(n);
    header << QStringLiteral("chosen trial") << QStringLiteral("setting") << RunMetric::label(selectedOn)
           << RunMetric::label(reported);
    TextTable table(header);
    table.setTitle(QStringLiteral("Tuning: the expected best %1 of n trials, and the trial chosen on it")
                       .arg(RunMetric::label(selectedOn)));
    for (int col = 1; col < header.size(); ++col)
        if (col != header.size() - 3)
            table.setAlign(col, TextTable::Align::Right);
    for (const TuningCurve& t : curves) {
        QString trials = QString::number(t.trials);
        if (t.topRung > 0)
            trials += QStringLiteral(" (%1 at rung %2)").arg(t.atTopRung).arg(t.topRung);
        if (t.failed)
            trials += QStringLiteral(" (%1 failed)").arg(t.failed);
        QStringList row{t.label, trials,
                        QString::number(t.cpuSeconds, 'f', 2)};
        for (int n : at)
            row << (n <= int(t.byTrials.size())
                        ? RunMetric::formatMeanStd(t.selectedOn, t.byTrials[size_t(n - 1)].mean, t.byTrials[size_t(n - 1)].sd)
                        : QString());
        row << (t.bestTrial >= 0 ? QString::number(t.bestTrial) : QStringLiteral("none"))
            << (t.bestSetting.isEmpty() ? QStringLiteral("(defaults)") : compactSetting(t.bestSetting))
            << RunMetric::format(t.selectedOn, t.bestValidation) << RunMetric::format(t.reported, t.bestTest);
        table.addRow(row);
    }
    if (const QString b = budget(result); !b.isEmpty())
        table.addNote(b.left(1).toUpper() + b.mid(1) + QLatin1Char('.'));
    table.addNote(QStringLiteral("Chosen on the validation split only; test is reported, never selected on. E[best] n: "
                                 "the expected best of n trials drawn from those run, ± its sd (Dodge et al. 2019); "
                                 "a failed trial scores as the worst finished one."));
    if (std::any_of(curves.begin(), curves.end(), [](const TuningCurve& t) { return t.topRung > 0; }))
        table.addNote(QStringLiteral("Under successive halving the choice and E[best] are of the runs at the highest "
                                     "rung (the whole budget); tuning CPU s counts every rung."));
    return table;
}

} // namespace tb
