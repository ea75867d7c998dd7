#include "SearchSpaces.h"

#include <engine/ExperimentKind.h> // jsonValueText
#include <trainbench/Seeds.h>

#include <QJsonArray>
#include <QJsonObject>

#include <algorithm>
#include <array>
#include <cmath>

namespace tb {
namespace {

// Joe & Kuo's direction numbers (new-joe-kuo-6.21201) of dimensions 2 … 16: the degree s of the
// primitive polynomial, its coefficients a, and the initial m_1 … m_s. Dimension 1 is the van der
// Corput sequence (every m = 1).
struct SobolDim {
    int s;
    unsigned a;
    std::array<unsigned, 6> m;
};
constexpr std::array<SobolDim, 15> kSobol{{{1, 0, {1}},
                                           {2, 1, {1, 3}},
                                           {3, 1, {1, 3, 1}},
                                           {3, 2, {1, 1, 1}},
                                           {4, 1, {1, 1, 3, 3}},
                                           {4, 4, {1, 3, 5, 13}},
                                           {5, 2, {1, 1, 5, 5, 17}},
                                           {5, 4, {1, 1, 5, 5, 5}},
                                           {5, 7, {1, 1, 7, 11, 19}},
                                           {5, 11, {1, 1, 5, 1, 1}},
                                           {5, 13, {1, 1, 1, 3, 11}},
                                           {5, 14, {1, 3, 5, 5, 31}},
                                           {6, 1, {1, 3, 3, 9, 7, 49}},
                                           {6, 13, {1, 1, 1, 15, 21, 21}},
                                           {6, 16, {1, 3, 1, 13, 27, 49}}}};

constexpr int kBits = 32;

// The 32 direction numbers v_1 … v_32 of dimension @p dim (0-based), scaled to 32 bits.
std::array<std::uint32_t, kBits> directions(int dim)
{
    std::array<std::uint32_t, kBits> v{};
    if (dim == 0) {
        for (int k = 0; k < kBits; ++k)
            v[size_t(k)] = std::uint32_t(1) << (kBits - 1 - k);
        return v;
    }
    const SobolDim& d = kSobol[size_t(dim - 1)];
    for (int k = 0; k < kBits; ++k) {
        if (k < d.s) {
            v[size_t(k)] = std::uint32_t(d.m[size_t(k)]) << (kBits - 1 - k);
            continue;
        }
        std::uint32_t x = v[size_t(k - d.s)] ^ (v[size_t(k - d.s)] >> d.s);
        for (int j = 1; j < d.s; ++j)
            if ((d.a >> (d.s - 1 - j)) & 1u)
                x ^= v[size_t(k - j)];
        v[size_t(k)] = x;
    }
    return v;
}

// A uniform double in [0, 1) from 53 bits of @p bits.
double unit(std::uint64_t bits) { return double(bits >> 11) * 0x1.0p-53; }

bool isLog(SearchSpace::Kind k) { return k == SearchSpace::Kind::LogUniform || k == SearchSpace::Kind::LogInteger; }
bool isInteger(SearchSpace::Kind k) { return k == SearchSpace::Kind::Integer || k == SearchSpace::Kind::LogInteger; }

} // namespace

QString SearchSpaces::text(const SearchSpace& s)
{
    if (s.kind == SearchSpace::Kind::Choice) {
        QStringList parts;
        for (const QVariant& c : s.choices)
            parts << c.toString();
        return QStringLiteral("%1 [%2]").arg(SearchSpace::kindName(s.kind), parts.join(QStringLiteral(", ")));
    }
    return QStringLiteral("%1 [%2, %3]").arg(SearchSpace::kindName(s.kind)).arg(s.low, 0, 'g', 12).arg(s.high, 0, 'g', 12);
}

bool SearchSpaces::parse(const QJsonValue& v, const QString& path, QList<SearchAxis>* axes, QString* key, QString* message)
{
    auto fail = [&](const QString& k, const QString& m) {
        *key = k;
        *message = m;
        return false;
    };
    const QString base = path + QStringLiteral(".search");
    if (!v.isObject())
        return fail(base, QStringLiteral("expected an object such as {\"lr\": {\"log_uniform\": [0.0001, 0.1]}}, got %1")
                              .arg(jsonValueText(v)));
    const QJsonObject o = v.toObject();
    static const QStringList kinds{"uniform", "log_uniform", "integer", "log_integer", "choice"};
    for (auto it = o.begin(); it != o.end(); ++it) {
        const QString k = base + QLatin1Char('.') + it.key();
        if (!it.value().isObject() || it.value().toObject().size() != 1)
            return fail(k, QStringLiteral("expected one of {\"%1\": …}, got %2")
                               .arg(kinds.join(QStringLiteral("\": …}, {\"")), jsonValueText(it.value())));
        const QJsonObject spec = it.value().toObject();
        const QString kind = spec.begin().key();
        const QJsonValue arg = spec.begin().value();
        const QString kk = k + QLatin1Char('.') + kind;
        SearchAxis axis{it.key(), {}};
        if (kind == u"choice") {
            if (!arg.isArray() || arg.toArray().isEmpty())
                return fail(kk, QStringLiteral("expected a non-empty array of values, got %1").arg(jsonValueText(arg)));
            axis.space = SearchSpace::choice(arg.toArray().toVariantList());
            *axes << axis;
            continue;
        }
        const int index = int(kinds.indexOf(kind));
        if (index < 0)
            return fail(k + QLatin1Char('.') + kind, QStringLiteral("unknown search kind (known: %1)").arg(kinds.join(", ")));
        const QJsonArray b = arg.toArray();
        if (!arg.isArray() || b.size() != 2 || !b[0].isDouble() || !b[1].isDouble() || !std::isfinite(b[0].toDouble()) ||
            !std::isfinite(b[1].toDouble()))
            return fail(kk, QStringLiteral("expected [low, high], two numbers, got %1").arg(jsonValueText(arg)));
        const double lo = b[0].toDouble(), hi = b[1].toDouble();
        const SearchSpace::Kind kindId = SearchSpace::Kind(index + 1); // Uniform … LogInteger, in kinds' order
        if (lo > hi)
            return fail(kk, QStringLiteral("low %1 is above high %2").arg(jsonValueText(b[0]), jsonValueText(b[1])));
        if (isLog(kindId) && !(lo > 0))
            return fail(kk, QStringLiteral("a log range needs bounds > 0, got [%1, %2]").arg(jsonValueText(b[0]), jsonValueText(b[1])));
        if (isInteger(kindId) && (lo != std::floor(lo) || hi != std::floor(hi)))
            return fail(kk, QStringLiteral("integer bounds must be integers, got [%1, %2]").arg(jsonValueText(b[0]), jsonValueText(b[1])));
        axis.space = SearchSpace{kindId, lo, hi, {}};
        *axes << axis;
    }
    std::sort(axes->begin(), axes->end(), [](const SearchAxis& a, const SearchAxis& b) { return a.key < b.key; });
    return true;
}

QList<SearchAxis> SearchSpaces::resolve(const ParamSchema& schema, const QList<SearchAxis>& override, bool overridden,
                                        const QVariantMap& fixed)
{
    if (overridden)
        return override;
    QList<SearchAxis> axes;
    for (const ParamSpec& p : schema.specs())
        if (p.search.isSet() && !fixed.contains(p.key))
            axes << SearchAxis{p.key, p.search};
    std::sort(axes.begin(), axes.end(), [](const SearchAxis& a, const SearchAxis& b) { return a.key < b.key; });
    return axes;
}

QStringList SearchSpaces::check(const ParamSchema& schema, const QList<SearchAxis>& axes, const QVariantMap& fixed,
                                const QString& path)
{
    QStringList problems;
    for (const SearchAxis& axis : axes) {
        const QString k = QStringLiteral("%1.search.%2").arg(path, axis.key);
        const ParamSpec* p = schema.find(axis.key);
        if (!p) {
            QStringList keys;
            for (const ParamSpec& s : schema.specs())
                keys << s.key;
            problems << QStringLiteral("%1: not a parameter of the algorithm (its parameters: %2)").arg(k, keys.join(", "));
            continue;
        }
        if (fixed.contains(axis.key)) {
            problems << QStringLiteral("%1: also fixed in params (%2): search it or fix it, not both")
                            .arg(k, fixed.value(axis.key).toString());
            continue;
        }
        const SearchSpace& s = axis.space;
        const bool numeric = p->type == ParamType::Int || p->type == ParamType::Real;
        if (s.kind != SearchSpace::Kind::Choice && !numeric) {
            problems << QStringLiteral("%1: a parameter of this type is searched with \"choice\", not \"%2\"")
                            .arg(k, SearchSpace::kindName(s.kind));
            continue;
        }
        if (p->type == ParamType::Int && (s.kind == SearchSpace::Kind::Uniform || s.kind == SearchSpace::Kind::LogUniform)) {
            problems << QStringLiteral("%1: an integer parameter is searched with \"integer\" or \"log_integer\", not \"%2\"")
                            .arg(k, SearchSpace::kindName(s.kind));
            continue;
        }
        // Every value the space can give must be one the schema takes: both ends, or every choice.
        QVariantList values = s.kind == SearchSpace::Kind::Choice ? s.choices : QVariantList{s.low, s.high};
        if (isInteger(s.kind))
            values = {qlonglong(s.low), qlonglong(s.high)};
        for (const QVariant& value : values) {
            QString err;
            if (!schema.normalise(QVariantMap{{axis.key, value}}, &err)) {
                problems << QStringLiteral("%1: %2 %3 is not a value of the parameter: %4")
                                .arg(k, s.kind == SearchSpace::Kind::Choice ? QStringLiteral("choice") : QStringLiteral("bound"),
                                     value.toString(), err);
                break;
            }
        }
    }
    return problems;
}

QVariant SearchSpaces::value(const SearchSpace& s, double u)
{
    u = std::clamp(u, 0.0, std::nextafter(1.0, 0.0));
    switch (s.kind) {
    case SearchSpace::Kind::None:
        break;
    case SearchSpace::Kind::Uniform:
        return std::min(s.high, s.low + u * (s.high - s.low));
    case SearchSpace::Kind::LogUniform:
        return std::clamp(std::exp(std::log(s.low) + u * (std::log(s.high) - std::log(s.low))), s.low, s.high);
    case SearchSpace::Kind::Integer:
        return qlonglong(std::clamp(std::floor(s.low + u * (s.high - s.low + 1)), s.low, s.high));
    case SearchSpace::Kind::LogInteger:
        return qlonglong(
            std::clamp(std::floor(std::exp(std::log(s.low) + u * (std::log(s.high + 1) - std::log(s.low)))), s.low, s.high));
    case SearchSpace::Kind::Choice:
        if (s.choices.isEmpty())
            break;
        return s.choices[std::min<qsizetype>(s.choices.size() - 1, qsizetype(u * double(s.choices.size())))];
    }
    return {};
}

std::vector<double> SearchSpaces::unitPoint(TrialSearch search, std::uint64_t seed, int trial, int dims)
{
    std::vector<double> u(size_t(std::max(0, dims)));
    for (int j = 0; j < dims; ++j) {
        if (search == TrialSearch::Random || j >= maxSobolDims) {
            u[size_t(j)] = unit(deriveSeed(deriveSeed(seed, std::uint64_t(trial)), std::uint64_t(j)));
            continue;
        }
        // The trial-th Sobol point: the XOR of the direction numbers of the Gray code's set bits,
        // shifted digitally by 32 random bits of the dimension.
        const auto v = directions(j);
        const std::uint32_t gray = std::uint32_t(trial) ^ (std::uint32_t(trial) >> 1);
        std::uint32_t x = std::uint32_t(deriveSeed(seed, std::uint64_t(1000 + j)) >> 32);
        for (int k = 0; k < kBits; ++k)
            if ((gray >> k) & 1u)
                x ^= v[size_t(k)];
        u[size_t(j)] = double(x) * 0x1.0p-32;
    }
    return u;
}

QVariantMap SearchSpaces::draw(const QList<SearchAxis>& axes, TrialSearch search, std::uint64_t seed, int trial)
{
    const std::vector<double> u = unitPoint(search, seed, trial, int(axes.size()));
    QVariantMap drawn;
    for (int j = 0; j < axes.size(); ++j)
        drawn.insert(axes[j].key, value(axes[j].space, u[size_t(j)]));
    return drawn;
}

} // namespace tb
