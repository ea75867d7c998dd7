#include "LibsvmLoader.h"

#include "DataError.h"
#include "DataFile.h"
#include "MemoryBudget.h"
#include "TextParsing.h"

#include <QFile>
#include <QFileInfo>
#include <QHash>
#include <QLocale>

#include <algorithm>
#include <charconv>
#include <string_view>
#include <vector>

namespace tb::data {
namespace {

using detail::NumberStatus;

// Cap on dense width: a larger index is almost surely a corrupt file, and the dense matrix
// would not fit in memory anyway.
constexpr Eigen::Index maxFeatures = Eigen::Index(1) << 26;

QString text(std::string_view s)
{
    return QString::fromUtf8(s.data(), qsizetype(s.size()));
}

struct Entry {
    Eigen::Index index; // 1-based
    double value;
};

} // namespace

QString LibsvmLoader::labelName(double label)
{
    return QString::number(label, 'g', QLocale::FloatingPointShortest);
}

Dataset LibsvmLoader::load(const QString& path, const Options& options)
{
    return parse(DataFile::readAll(path), path, options);
}

Dataset LibsvmLoader::parse(const QByteArray& data, const QString& path, const Options& options)
{
    const bool classification = options.task == tb::Task::Classification;
    if (options.features < 0 || options.features > maxFeatures)
        throw DataError::inFile(path, QStringLiteral("feature count %1 outside 0..%2").arg(options.features).arg(maxFeatures));

    std::vector<double> targets;
    std::vector<std::size_t> rowStart{0};
    std::vector<Entry> entries;
    std::vector<qint64> rowLine;
    Eigen::Index maxIndex = 0;

    std::string_view all(data.constData(), std::size_t(data.size()));
    qint64 lineNo = 0;
    while (!all.empty()) {
        const std::size_t nl = all.find('\n');
        std::string_view line = all.substr(0, nl);
        all = nl == std::string_view::npos ? std::string_view() : all.substr(nl + 1);
        ++lineNo;
        if (const std::size_t hash = line.find('#'); hash != std::string_view::npos)
            line = line.substr(0, hash);
        // Tokens separated by spaces or tabs.
        std::vector<std::string_view> tokens;
        for (std::size_t i = 0; i < line.size();) {
            while (i < line.size() && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r'))
                ++i;
            const std::size_t s = i;
            while (i < line.size() && line[i] != ' ' && line[i] != '\t' && line[i] != '\r')
                ++i;
            if (i > s)
                tokens.push_back(line.substr(s, i - s));
        }
        if (tokens.empty())
            continue;

        const std::string_view labelTok = tokens[0];
        if (labelTok.find(':') != std::string_view::npos)
            throw DataError::atLine(path, lineNo, QStringLiteral("label"), text(labelTok),
                                    QStringLiteral("line starts with %1, expected a label before the "
                                                   "index:value pairs")
                                        .arg(detail::quoted(labelTok)));
        if (labelTok.find(',') != std::string_view::npos)
            throw DataError::atLine(path, lineNo, QStringLiteral("label"), text(labelTok),
                                    QStringLiteral("label %1: multi-label lines are not supported")
                                        .arg(detail::quoted(labelTok)));
        double label = 0;
        if (const NumberStatus st = detail::parseNumber(labelTok, label); st != NumberStatus::Ok)
            throw DataError::atLine(path, lineNo, QStringLiteral("label"), text(labelTok),
                                    QStringLiteral("label: %1").arg(detail::numberProblem(st, labelTok)));
        targets.push_back(label);
        rowLine.push_back(lineNo);

        Eigen::Index previous = 0;
        for (std::size_t t = 1; t < tokens.size(); ++t) {
            const std::string_view tok = tokens[t];
            const std::size_t colon = tok.find(':');
            if (colon == std::string_view::npos || colon == 0 || colon + 1 == tok.size())
                throw DataError::atLine(path, lineNo, {}, text(tok),
                                        QStringLiteral("bad token %1 (token %2): expected index:value")
                                            .arg(detail::quoted(tok))
                                            .arg(t + 1));
            const std::string_view idxText = tok.substr(0, colon);
            const std::string_view valText = tok.substr(colon + 1);
            long long idx = 0;
            const auto [ptr, ec] = std::from_chars(idxText.data(), idxText.data() + idxText.size(), idx);
            if (ec != std::errc() || ptr != idxText.data() + idxText.size())
                throw DataError::atLine(path, lineNo, QStringLiteral("index"), text(tok),
                                        QStringLiteral("bad token %1: index %2 is not an integer")
                                            .arg(detail::quoted(tok), detail::quoted(idxText)));
            if (idx <= 0)
                throw DataError::atLine(path, lineNo, QStringLiteral("index"), text(tok),
                                        QStringLiteral("bad token %1: index %2 must be ≥ 1 (indices are 1-based)")
                                            .arg(detail::quoted(tok))
                                            .arg(idx));
            if (idx <= previous)
                throw DataError::atLine(path, lineNo, QStringLiteral("index"), text(tok),
                                        QStringLiteral("bad token %1: index %2 does not increase (previous %3)")
                                            .arg(detail::quoted(tok))
                                            .arg(idx)
                                            .arg(previous));
            if (options.features > 0 && idx > options.features)
                throw DataError::atLine(path, lineNo, QStringLiteral("index"), text(tok),
                                        QStringLiteral("bad token %1: index %2 exceeds the %3 features expected")
                                            .arg(detail::quoted(tok))
                                            .arg(idx)
                                            .arg(options.features));
            if (idx > maxFeatures)
                throw DataError::atLine(path, lineNo, QStringLiteral("index"), text(tok),
                                        QStringLiteral("bad token %1: index %2 is beyond %3 features")
                                            .arg(detail::quoted(tok))
                                            .arg(idx)
                                            .arg(maxFeatures));
            double v = 0;
            if (const NumberStatus st = detail::parseNumber(valText, v); st != NumberStatus::Ok)
                throw DataError::atLine(path, lineNo, QStringLiteral("value"), text(tok),
                                        QStringLiteral("bad value in token %1: %2")
                                            .arg(detail::quoted(tok), detail::numberProblem(st, valText)));
            if (entries.size() == entries.capacity())
                MemoryBudget::require(MemoryBudget::bytesOf(std::max<std::size_t>(1024, entries.capacity() * 2), sizeof(Entry), 1),
                                      QStringLiteral("reading the index:value pairs (%1 so far)").arg(entries.size()), path);
            entries.push_back({Eigen::Index(idx), v});
            previous = idx;
            maxIndex = std::max(maxIndex, Eigen::Index(idx));
        }
        rowStart.push_back(entries.size());
    }
    const auto n = Eigen::Index(targets.size());
    if (n == 0)
        throw DataError::inFile(path, QStringLiteral("no data lines"));
    const Eigen::Index d = options.features > 0 ? options.features : maxIndex;
    if (d == 0)
        throw DataError::inFile(path, QStringLiteral("no features: no line has an index:value pair"));

    Dataset out;
    out.task = options.task;
    // A 520-byte file of "0 67108864:1" lines asks for 40 × 2^26 doubles: check before allocating.
    MemoryBudget::require(MemoryBudget::bytesOf(std::uint64_t(n), std::uint64_t(d)),
                          QStringLiteral("a dense %1×%2 matrix of doubles (%3)")
                              .arg(n)
                              .arg(d)
                              .arg(options.features > 0 ? QStringLiteral("dataset.features")
                                                        : QStringLiteral("the largest index sets the width")),
                          path);
    try {
        out.x = Eigen::MatrixXd::Zero(n, d);
    } catch (const std::bad_alloc&) {
        throw DataError::inFile(path, QStringLiteral("not enough memory for a dense %1×%2 matrix").arg(n).arg(d));
    }
    for (Eigen::Index i = 0; i < n; ++i)
        for (std::size_t e = rowStart[std::size_t(i)]; e < rowStart[std::size_t(i) + 1]; ++e)
            out.x(i, entries[e].index - 1) = entries[e].value;

    if (classification) {
        QHash<QString, int> index;
        QStringList names = options.classNames;
        if (names.isEmpty()) {
            for (double t : targets)
                names << labelName(t);
            names = detail::sortedLabelNames(names);
        }
        for (int c = 0; c < names.size(); ++c)
            index.insert(names[c], c);
        out.labels.resize(std::size_t(n));
        for (Eigen::Index i = 0; i < n; ++i) {
            const QString name = labelName(targets[std::size_t(i)]);
            const auto it = index.constFind(name);
            if (it == index.constEnd())
                throw DataError::atLine(path, rowLine[std::size_t(i)], QStringLiteral("label"), name,
                                        QStringLiteral("label %1 is not one of the training classes (%2)")
                                            .arg(detail::quoted(name), names.join(", ")));
            out.labels[std::size_t(i)] = *it;
        }
        out.classNames = names;
        out.setOneHotFromLabels();
    } else {
        out.y = Eigen::Map<const Eigen::VectorXd>(targets.data(), n);
    }
    out.description = QStringLiteral("%1 %2×%3").arg(QFileInfo(path).fileName()).arg(n).arg(d);
    if (classification)
        out.description += QStringLiteral(" (%1 classes)").arg(out.classNames.size());
    return out;
}

} // namespace tb::data
