#include "MissingValues.h"

#include "DataError.h"

#include <cmath>

namespace tb::data {

qint64 MissingValues::fillWithTrainingMeans(DatasetPair& pair, const QString& origin)
{
    qint64 filled = 0;
    for (Eigen::Index j = 0; j < pair.train.x.cols(); ++j) {
        double sum = 0;
        Eigen::Index count = 0;
        bool missing = false;
        for (Eigen::Index i = 0; i < pair.train.x.rows(); ++i) {
            const double v = pair.train.x(i, j);
            if (std::isnan(v))
                missing = true;
            else {
                sum += v;
                ++count;
            }
        }
        for (Eigen::Index i = 0; i < pair.test.x.rows() && !missing; ++i)
            missing = std::isnan(pair.test.x(i, j));
        if (!missing)
            continue;
        const QString column = pair.train.featureNames.value(qsizetype(j), QString::number(j));
        if (count == 0)
            throw DataError::inFile(origin, QStringLiteral("column '%1' has no value in any training row: its missing values "
                                                           "cannot be filled with the training mean")
                                                .arg(column));
        const double mean = sum / double(count);
        for (Dataset* d : {&pair.train, &pair.test})
            for (Eigen::Index i = 0; i < d->x.rows(); ++i)
                if (std::isnan(d->x(i, j))) {
                    d->x(i, j) = mean;
                    ++filled;
                }
    }
    if (filled > 0) {
        pair.train.description += QStringLiteral(", %1 missing value%2 filled with the training mean")
                                      .arg(filled)
                                      .arg(filled == 1 ? "" : "s");
        pair.test.description += QStringLiteral(", missing values filled with the training mean");
    }
    return filled;
}

} // namespace tb::data
