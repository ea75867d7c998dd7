#include "CostPrediction.h"

#include "PluginRegistry.h"
#include "PreparedConfiguration.h"

#include <data/Dataset.h>

#include <cmath>
#include <exception>
#include <limits>

namespace tb {
namespace {
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// A finite, non-negative number under @p key, else NaN.
double number(const QJsonObject& o, const char* key)
{
    const QJsonValue v = o.value(QLatin1String(key));
    if (!v.isDouble())
        return kNaN;
    const double d = v.toDouble();
    return std::isfinite(d) && d >= 0 ? d : kNaN;
}
} // namespace

CostPrediction::CostPrediction(QJsonObject cost) : m_json(std::move(cost)) {}

ProblemShape CostPrediction::shapeOf(const data::Dataset& train)
{
    return ProblemShape{train.rows(), train.inputs(), train.outputs(), train.task,
                        train.isSparse() ? Eigen::Index(train.xSparse.nonZeros()) : 0};
}

CostPrediction CostPrediction::forAlgorithm(const PluginRegistry& registry, const QString& algorithmId,
                                            const QVariantMap& params, const ProblemShape& shape,
                                            QString* error)
{
    // The configuration's prototype (prepared once for its checks and runs) predicts.
    const auto prepared = registry.prepared(algorithmId, params);
    if (!prepared->ok()) {
        if (error)
            *error = QStringLiteral("%1: %2").arg(algorithmId, prepared->error());
        return {};
    }
    try {
        return CostPrediction(prepared->predictCost(shape));
    } catch (const std::exception& e) {
        if (error)
            *error = QString::fromUtf8(e.what());
    } catch (...) {
        if (error)
            *error = QStringLiteral("%1: unknown exception").arg(algorithmId);
    }
    return {};
}

CostPrediction CostPrediction::fromRunInfo(const QJsonObject& info)
{
    return CostPrediction(info.value(QLatin1String("predicted_cost")).toObject());
}

ProblemShape CostPrediction::referenceShape(Task task)
{
    return ProblemShape{60000, 784, 10, task};
}

QString CostPrediction::describeShape(const ProblemShape& shape)
{
    QString text = QStringLiteral("%1×%2 → %3 %4")
                       .arg(shape.rows)
                       .arg(shape.inputs)
                       .arg(shape.outputs)
                       .arg(shape.task == Task::Classification ? QStringLiteral("classes") : QStringLiteral("outputs"));
    if (shape.isSparse())
        text += QStringLiteral(" (sparse, %1 non-zeros)").arg(shape.nonZeros);
    return text;
}

bool CostPrediction::isShowable() const
{
    return !std::isnan(flops()) || !std::isnan(seconds());
}

double CostPrediction::flops() const
{
    return number(m_json, "flops");
}

double CostPrediction::seconds() const
{
    return number(m_json, "predicted_seconds");
}

double CostPrediction::memoryBytes() const
{
    const double trainer = number(m_json, "memory_bytes");
    return std::isnan(trainer) ? trainer : trainer + kBytesPerCheckpoint * checkpoints();
}

double CostPrediction::checkpoints() const
{
    const double n = number(m_json, "checkpoints");
    return std::isnan(n) ? 0.0 : n;
}

double CostPrediction::measuredMemoryBytes(const QJsonObject& info)
{
    return number(info, "peak_memory_bytes");
}

QString CostPrediction::scope() const
{
    return m_json.value(QLatin1String("scope")).toString();
}

QString CostPrediction::measuredKey() const
{
    const QString key = m_json.value(QLatin1String("scope_measured_key")).toString();
    return key.isEmpty() ? QStringLiteral("measured_seconds") : key;
}

double CostPrediction::measuredSeconds(const QJsonObject& info) const
{
    return number(info, measuredKey().toUtf8().constData());
}

QString CostPrediction::describe() const
{
    QStringList parts;
    if (!std::isnan(flops()))
        parts << formatFlops(flops());
    if (!std::isnan(seconds()))
        parts << formatSeconds(seconds());
    if (!parts.isEmpty() && !scope().isEmpty())
        parts.last() += QStringLiteral(" (%1)").arg(scope());
    if (!std::isnan(memoryBytes()))
        parts << formatBytes(memoryBytes()) + QStringLiteral(" memory");
    return parts.join(QStringLiteral(", "));
}

QString CostPrediction::compareMemory(const QJsonObject& info) const
{
    const double predicted = memoryBytes(), measured = measuredMemoryBytes(info);
    if (std::isnan(predicted))
        return std::isnan(measured) ? QString() : QStringLiteral("peak memory %1").arg(formatBytes(measured));
    QString s = QStringLiteral("memory predicted %1").arg(formatBytes(predicted));
    if (!std::isnan(measured))
        s += QStringLiteral(", measured %1").arg(formatBytes(measured));
    return s;
}

QString CostPrediction::formatBytes(double bytes)
{
    if (!std::isfinite(bytes))
        return QStringLiteral("-");
    static const char* const prefixes[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
    int p = 0;
    while (std::abs(bytes) >= 1024 && p < 5) {
        bytes /= 1024;
        ++p;
    }
    return QStringLiteral("%1 %2").arg(QString::number(bytes, p == 0 ? 'f' : 'g', p == 0 ? 0 : 3),
                                       QLatin1String(prefixes[p]));
}

QString CostPrediction::compare(const QJsonObject& info) const
{
    if (!isShowable())
        return {};
    const double measured = measuredSeconds(info);
    QString s;
    if (!std::isnan(seconds())) {
        s = QStringLiteral("predicted %1").arg(formatSeconds(seconds()));
        if (!std::isnan(measured))
            s += QStringLiteral(", measured %1").arg(formatSeconds(measured));
    } else {
        s = QStringLiteral("predicted %1").arg(formatFlops(flops()));
        if (!std::isnan(measured)) {
            s += QStringLiteral(", measured %1").arg(formatSeconds(measured));
            if (measured > 0)
                s += QStringLiteral(" = %1/s").arg(formatFlops(flops() / measured));
        }
    }
    if (!scope().isEmpty())
        s += QStringLiteral(" (%1)").arg(scope());
    return s;
}

QString CostPrediction::formatFlops(double flops)
{
    if (!std::isfinite(flops))
        return QStringLiteral("-");
    static const char* const prefixes[] = {"", "k", "M", "G", "T", "P", "E"};
    int p = 0;
    while (std::abs(flops) >= 1000 && p < 6) {
        flops /= 1000;
        ++p;
    }
    return QStringLiteral("%1 %2FLOP").arg(QString::number(flops, 'g', 3), QLatin1String(prefixes[p]));
}

QString CostPrediction::formatSeconds(double seconds)
{
    if (!std::isfinite(seconds))
        return QStringLiteral("-");
    // 'g' would write 2000 as "2e+03": whole seconds from 100 s on.
    if (std::abs(seconds) >= 100)
        return QString::number(seconds, 'f', 0) + QStringLiteral(" s");
    return QString::number(seconds, 'g', 3) + QStringLiteral(" s");
}

} // namespace tb
