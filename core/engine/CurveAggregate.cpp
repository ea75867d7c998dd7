#include "CurveAggregate.h"

#include <algorithm>
#include <cmath>

namespace tb {

MetricStat CurveAggregate::stat(const QVector<double>& values)
{
    MetricStat s;
    double sum = 0;
    for (double v : values) {
        if (std::isnan(v))
            continue;
        sum += v;
        ++s.count;
    }
    if (s.count == 0)
        return s;
    s.mean = sum / s.count;
    if (s.count == 1) {
        s.std = 0;
        return s;
    }
    double ss = 0;
    for (double v : values) {
        if (!std::isnan(v))
            ss += (v - s.mean) * (v - s.mean);
    }
    s.std = std::sqrt(ss / (s.count - 1));
    return s;
}

QVector<AggregatePoint> CurveAggregate::aggregate(const QList<QVector<MetricPoint>>& repeats)
{
    qsizetype longest = 0;
    for (const auto& r : repeats)
        longest = std::max(longest, r.size());

    QVector<AggregatePoint> out;
    out.reserve(longest);
    QVector<double> epoch, time, loss, trainAcc, testAcc, trainRmse, testRmse, valAcc, valRmse;
    for (qsizetype i = 0; i < longest; ++i) {
        for (auto* v : {&epoch, &time, &loss, &trainAcc, &testAcc, &trainRmse, &testRmse, &valAcc, &valRmse})
            v->clear();
        for (const auto& r : repeats) {
            if (i >= r.size())
                continue;
            const MetricPoint& p = r[i];
            epoch.append(p.epoch);
            time.append(p.trainTime);
            loss.append(p.loss);
            trainAcc.append(p.trainAccuracy);
            testAcc.append(p.testAccuracy);
            trainRmse.append(p.trainRmse);
            testRmse.append(p.testRmse);
            valAcc.append(p.validationAccuracy);
            valRmse.append(p.validationRmse);
        }
        AggregatePoint a;
        a.index = int(i);
        a.count = int(epoch.size());
        a.epoch = stat(epoch).mean;
        a.trainTime = stat(time).mean;
        a.loss = stat(loss);
        a.trainAccuracy = stat(trainAcc);
        a.testAccuracy = stat(testAcc);
        a.trainRmse = stat(trainRmse);
        a.testRmse = stat(testRmse);
        a.validationAccuracy = stat(valAcc);
        a.validationRmse = stat(valRmse);
        out.append(a);
    }
    return out;
}

} // namespace tb
