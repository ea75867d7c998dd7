#include "BenchData.h"

#include "BenchArguments.h"
#include "Stopwatch.h"

#include <data/DataSource.h>
#include <data/Rng.h>

#include <algorithm>
#include <cstdio>
#include <numeric>
#include <stdexcept>

namespace tb::bench {

QJsonObject BenchData::fashionMnistSpec(const BenchArguments& args, const QJsonObject& extra)
{
    QJsonObject spec{{"source", "fashion_mnist"}};
    if (args.declares("data") && !args.text("data").isEmpty())
        spec.insert("dir", args.text("data"));
    if (args.declares("train-limit")) {
        const qint64 limit = args.integer("train-limit", 0);
        if (limit > 0)
            spec.insert("train_limit", double(limit));
    }
    for (auto it = extra.begin(); it != extra.end(); ++it)
        spec.insert(it.key(), it.value());
    return spec;
}

data::DatasetPair BenchData::load(const QJsonObject& spec, const QString& baseDir)
{
    const Stopwatch clock;
    data::DatasetPair p = data::DataSource::load(spec, baseDir);
    std::printf("load: %s and %s in %.2f s (%s)\n", qPrintable(p.train.description),
                qPrintable(p.test.description), clock.seconds(),
                qPrintable(data::DataSource::describe(spec)));
    for (const QString& w : p.warnings)
        std::printf("load: warning: %s\n", qPrintable(w));
    return p;
}

void BenchData::holdOut(data::DatasetPair& data, Eigen::Index rows, Order order)
{
    const Eigen::Index n = data.train.rows();
    if (rows < 1 || rows >= n)
        throw std::invalid_argument(
            QStringLiteral("--validation: expected 1 … %1 held-out rows (the training set "
                           "has %2), got %3")
                .arg(n - 1)
                .arg(n)
                .arg(rows)
                .toStdString());
    data::Rng rng(12345, data::Rng::Split);
    std::vector<Eigen::Index> perm(static_cast<std::size_t>(n));
    std::iota(perm.begin(), perm.end(), Eigen::Index(0));
    rng.shuffle(perm);
    std::vector<Eigen::Index> held(perm.begin(), perm.begin() + rows), kept(perm.begin() + rows, perm.end());
    if (order == Order::Source) {
        std::sort(held.begin(), held.end());
        std::sort(kept.begin(), kept.end());
    }
    data::Dataset validation = data.train.selectRows(held);
    validation.description = QStringLiteral("%1 training rows held out for validation").arg(rows);
    data.train = data.train.selectRows(kept);
    data.test = std::move(validation);
}

} // namespace tb::bench
