#include "KernelSetup.h"

#include "SparseFeatures.h"

#include <training/RandomFeatures.h>

#include <QFile>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace tb::dsgd {
namespace {

// The first non-finite entry of @p m as "row r, column c (value)", 1-based; empty if none.
QString firstNonFinite(const Eigen::Ref<const Eigen::MatrixXd>& m)
{
    if (m.allFinite())
        return {};
    for (Eigen::Index i = 0; i < m.rows(); ++i)
        for (Eigen::Index j = 0; j < m.cols(); ++j)
            if (!std::isfinite(m(i, j)))
                return QStringLiteral("row %1, column %2 is %3").arg(i + 1).arg(j + 1).arg(m(i, j));
    return {};
}

} // namespace

void KernelSetup::checkData(const DatasetView& data)
{
    if (data.rows() < 1)
        throw std::invalid_argument("dsgd: the training set is empty");
    if (data.inputs() < 1)
        throw std::invalid_argument("dsgd: the training set has no input column");
    if (data.y.rows() != data.rows())
        throw std::invalid_argument("dsgd: " + std::to_string(data.rows()) + " input rows but " +
                                    std::to_string(data.y.rows()) + " target rows");
    if (data.xSparse) {
        const std::string bad = SparseFeatures::firstNonFinite(*data.xSparse);
        if (!bad.empty())
            throw std::invalid_argument("dsgd: the training inputs contain NaN or Inf: " + bad);
        if (!data.xSparse->isCompressed())
            throw std::invalid_argument("dsgd: the sparse training inputs are not compressed");
    }
    const QString badX = firstNonFinite(data.x);
    if (!badX.isEmpty())
        throw std::invalid_argument(("dsgd: the training inputs contain NaN or Inf: " + badX).toStdString());
    const QString badY = firstNonFinite(data.y);
    if (!badY.isEmpty())
        throw std::invalid_argument(("dsgd: the training targets contain NaN or Inf: " + badY).toStdString());
}

namespace {

double fromMedian(const DsgdConfig& c, double median, Eigen::Index rows)
{
    const double sigma = c.bandwidthScale * median;
    if (!(sigma > 0) || !std::isfinite(sigma))
        throw std::invalid_argument(QStringLiteral("parameter \"bandwidth_rule\": the median trick found no bandwidth: "
                                                   "the %1 sampled training rows are all the same point (median "
                                                   "distance %2); use bandwidth_rule \"fixed\" with a bandwidth")
                                        .arg(std::min<Eigen::Index>(c.medianRows, rows))
                                        .arg(median)
                                        .toStdString());
    return sigma;
}

} // namespace

double KernelSetup::bandwidth(const DsgdConfig& c, const SparseMatrix& x, std::uint64_t seed)
{
    if (c.bandwidthRule == BandwidthRule::Fixed)
        return c.bandwidth;
    return fromMedian(c, SparseFeatures::medianDistance(x, c.medianRows, deriveSeed(seed, kSeedMedian)), x.rows());
}

double KernelSetup::bandwidth(const DsgdConfig& c, const DatasetView& data, std::uint64_t seed)
{
    return data.xSparse ? bandwidth(c, *data.xSparse, seed) : bandwidth(c, data.x, seed);
}

double KernelSetup::bandwidthBytesSparse(const DsgdConfig& c, Eigen::Index rows, Eigen::Index nonZeros)
{
    if (c.bandwidthRule == BandwidthRule::Fixed)
        return 0.0;
    return SparseFeatures::medianBytes(rows, nonZeros, c.medianRows);
}

double KernelSetup::bandwidth(const DsgdConfig& c, const Eigen::Ref<const Eigen::MatrixXd>& x, std::uint64_t seed)
{
    if (c.bandwidthRule == BandwidthRule::Fixed)
        return c.bandwidth;
    const double median = train::medianDistance(x, c.medianRows, deriveSeed(seed, kSeedMedian));
    const double sigma = c.bandwidthScale * median;
    if (!(sigma > 0) || !std::isfinite(sigma))
        throw std::invalid_argument(QStringLiteral("parameter \"bandwidth_rule\": the median trick found no bandwidth: "
                                                   "the %1 sampled training rows are all the same point (median "
                                                   "distance %2); use bandwidth_rule \"fixed\" with a bandwidth")
                                        .arg(std::min<Eigen::Index>(c.medianRows, x.rows()))
                                        .arg(median)
                                        .toStdString());
    return sigma;
}

double KernelSetup::bandwidthBytes(const DsgdConfig& c, Eigen::Index rows, Eigen::Index inputs)
{
    if (c.bandwidthRule == BandwidthRule::Fixed)
        return 0.0;
    // As train::medianDistance(): indices of all rows, the sample, its norms, products, distances.
    const double n = double(std::max<Eigen::Index>(rows, 1));
    const double m = std::min(n, double(std::max<Eigen::Index>(c.medianRows, 2)));
    return 8.0 * (n + m * double(inputs) + m + m * m + m * (m - 1) / 2.0);
}

double KernelSetup::availableBytes()
{
    QFile f(QStringLiteral("/proc/meminfo"));
    if (!f.open(QIODevice::ReadOnly))
        return std::numeric_limits<double>::infinity();
    while (!f.atEnd()) {
        const QByteArray line = f.readLine();
        if (line.startsWith("MemAvailable:")) {
            const QList<QByteArray> parts = line.simplified().split(' ');
            bool ok = false;
            const double kib = parts.size() >= 2 ? parts[1].toDouble(&ok) : 0.0;
            if (ok)
                return kib * 1024.0;
        }
    }
    return std::numeric_limits<double>::infinity();
}

void KernelSetup::checkMemory(double bytes, const QString& algorithm, const QString& breakdown, const QString& advice)
{
    const double available = availableBytes();
    if (!(bytes <= available))
        throw std::invalid_argument(QStringLiteral("%1: the run would need about %2 (%3) but %4 are available; lower %5")
                                        .arg(algorithm, formatBytes(bytes), breakdown, formatBytes(available), advice)
                                        .toStdString());
}

QString KernelSetup::formatBytes(double bytes)
{
    if (!std::isfinite(bytes))
        return QStringLiteral("%1 bytes").arg(bytes);
    const char* units[] = {"bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    int u = 0;
    while (std::abs(bytes) >= 1024 && u < 6) {
        bytes /= 1024;
        ++u;
    }
    return QStringLiteral("%1 %2").arg(QString::number(bytes, 'g', 3), QLatin1String(units[u]));
}

} // namespace tb::dsgd
