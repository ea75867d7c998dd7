#include "RunColumns.h"

#include <QMap>
#include <QStringList>

#include <limits>

namespace tb::python {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// The final metrics Runner records (Runner.cpp, "final"), in the order the frames show them.
const char* const kFinalKeys[] = {
    "epochs",          "loss",      "train_accuracy", "validation_accuracy", "test_accuracy", "train_rmse",
    "validation_rmse", "test_rmse", "train_seconds",  "train_cpu_seconds"};

} // namespace

void RunColumns::putFinal(Columns& c, const std::vector<QJsonObject>& infos, const QSet<QString>& taken)
{
    std::vector<QJsonObject> finals;
    finals.reserve(infos.size());
    QStringList extra;
    QSet<QString> known;
    for (const char* k : kFinalKeys)
        known.insert(QString::fromLatin1(k));
    for (const QJsonObject& info : infos) {
        finals.push_back(info.value(QStringLiteral("final")).toObject());
        for (auto it = finals.back().begin(); it != finals.back().end(); ++it)
            if (it.value().isDouble() && !known.contains(it.key()) && !extra.contains(it.key()))
                extra << it.key();
    }
    auto column = [&](const QString& key, const QString& name) {
        std::vector<double> v;
        v.reserve(finals.size());
        for (const QJsonObject& f : finals) {
            const QJsonValue x = f.value(key);
            v.push_back(x.isDouble() ? x.toDouble() : kNaN);
        }
        c.put(name.toUtf8().constData(), v);
    };
    for (const char* k : kFinalKeys)
        column(QString::fromLatin1(k), QString::fromLatin1(k));
    extra.sort();
    for (const QString& k : std::as_const(extra))
        column(k, taken.contains(k) ? QStringLiteral("final.") + k : k);
}

void RunColumns::putPeakMemory(Columns& c, const std::vector<QJsonObject>& infos)
{
    std::vector<double> v;
    v.reserve(infos.size());
    for (const QJsonObject& info : infos) {
        const QJsonValue x = info.value(QStringLiteral("peak_memory_bytes"));
        v.push_back(x.isDouble() ? x.toDouble() : kNaN);
    }
    c.put("peak_memory_bytes", v);
}

void RunColumns::putParams(Columns& c, const std::vector<QVariantMap>& params, const QString& prefix)
{
    QMap<QString, bool> keys; // sorted
    for (const QVariantMap& p : params)
        for (auto it = p.begin(); it != p.end(); ++it)
            keys.insert(it.key(), true);
    for (auto k = keys.begin(); k != keys.end(); ++k) {
        py::list col(params.size());
        for (std::size_t i = 0; i < params.size(); ++i) {
            const auto it = params[i].constFind(k.key());
            col[i] = it == params[i].constEnd() ? py::none() : PyConvert::variant(it.value(), true);
        }
        c.put((prefix + k.key()).toStdString(), col);
    }
}

void RunColumns::Checkpoints::reserve(std::size_t n)
{
    seq.reserve(n);
    for (auto* v : {&epoch, &trainTime, &loss, &trainAccuracy, &validationAccuracy, &testAccuracy, &trainRmse,
                    &validationRmse, &testRmse})
        v->reserve(n);
}

void RunColumns::Checkpoints::append(const MetricPoint& p)
{
    seq.push_back(p.seq);
    epoch.push_back(p.epoch);
    trainTime.push_back(p.trainTime);
    loss.push_back(p.loss);
    trainAccuracy.push_back(p.trainAccuracy);
    validationAccuracy.push_back(p.validationAccuracy);
    testAccuracy.push_back(p.testAccuracy);
    trainRmse.push_back(p.trainRmse);
    validationRmse.push_back(p.validationRmse);
    testRmse.push_back(p.testRmse);
}

void RunColumns::Checkpoints::putInto(Columns& c) const
{
    c.put("seq", seq);
    c.put("epoch", epoch);
    c.put("train_time", trainTime);
    c.put("loss", loss);
    c.put("train_accuracy", trainAccuracy);
    c.put("validation_accuracy", validationAccuracy);
    c.put("test_accuracy", testAccuracy);
    c.put("train_rmse", trainRmse);
    c.put("validation_rmse", validationRmse);
    c.put("test_rmse", testRmse);
}

void RunColumns::putSummary(Columns& c, const QList<SummaryPoint>& points)
{
    const std::size_t n = std::size_t(points.size());
    std::vector<double> x(n), trainMean(n), trainStd(n), testMean(n), testStd(n);
    std::vector<std::int64_t> count(n);
    QStringList algorithmId, algorithmName;
    for (std::size_t i = 0; i < n; ++i) {
        const SummaryPoint& p = points[qsizetype(i)];
        algorithmId << p.algorithmId;
        algorithmName << p.algorithmName;
        x[i] = p.x;
        count[i] = p.count;
        trainMean[i] = p.trainRmseMean;
        trainStd[i] = p.trainRmseStd;
        testMean[i] = p.testRmseMean;
        testStd[i] = p.testRmseStd;
    }
    c.put("algorithm_id", algorithmId);
    c.put("algorithm_name", algorithmName);
    c.put("x", x);
    c.put("count", count);
    c.put("train_rmse_mean", trainMean);
    c.put("train_rmse_std", trainStd);
    c.put("test_rmse_mean", testMean);
    c.put("test_rmse_std", testStd);
}

} // namespace tb::python
