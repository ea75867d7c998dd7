#include "LibsvmLoader.h"

#include "DataError.h"
#include "DataFile.h"
#include "MemoryBudget.h"
#include "TextParsing.h"

#include <trainbench/SparseMatrix.h>

#include <QFileInfo>
#include <QHash>
#include <QLocale>

#include <algorithm>
#include <charconv>
#include <functional>
#include <string_view>
#include <vector>

namespace tb::data {
namespace {

using detail::NumberStatus;

QString text(std::string_view s)
{
    return QString::fromUtf8(s.data(), qsizetype(s.size()));
}

/// One pass over the file's lines. Count: checks every line, records labels and each row's
/// non-zeros. Fill: writes the entries into the matrices the count sized.
class Reader {
public:
    enum class Pass { Count, Fill };

    Reader(const QString& path, const LibsvmLoader::Options& options) : m_path(path), m_options(options) {}

    void begin(Pass pass)
    {
        m_pass = pass;
        m_lineNo = 0;
        m_row = 0;
        m_entry = 0;
    }

    /// Whole lines (each ending in '\n', except perhaps the last piece of the file).
    void consume(std::string_view piece)
    {
        while (!piece.empty()) {
            const std::size_t nl = piece.find('\n');
            line(piece.substr(0, nl));
            piece = nl == std::string_view::npos ? std::string_view() : piece.substr(nl + 1);
        }
    }

    void end() const
    {
        if (m_pass == Pass::Fill && (m_row != rows() || m_entry != m_nonZeros))
            throw changed();
    }

    Eigen::Index rows() const { return Eigen::Index(m_targets.size()); }
    std::uint64_t nonZeros() const { return m_nonZeros; }
    Eigen::Index maxIndex() const { return m_maxIndex; }
    const std::vector<double>& targets() const { return m_targets; }
    const std::vector<qint64>& rowLines() const { return m_rowLine; }

    /// Fill pass: where the entries go (one of the two).
    Eigen::MatrixXd* dense = nullptr;
    SparseMatrix* sparse = nullptr;

private:
    DataError changed() const
    {
        return DataError::inFile(m_path, QStringLiteral("the file changed while it was being read (its lines differ "
                                                        "between the two passes); read it again"));
    }

    void line(std::string_view line)
    {
        ++m_lineNo;
        if (const std::size_t hash = line.find('#'); hash != std::string_view::npos)
            line = line.substr(0, hash);
        std::size_t i = 0;
        auto nextToken = [&]() -> std::string_view {
            while (i < line.size() && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r'))
                ++i;
            const std::size_t s = i;
            while (i < line.size() && line[i] != ' ' && line[i] != '\t' && line[i] != '\r')
                ++i;
            return line.substr(s, i - s);
        };
        const std::string_view labelTok = nextToken();
        if (labelTok.empty())
            return;
        if (m_pass == Pass::Fill) {
            fill(nextToken);
            return;
        }
        if (labelTok.find(':') != std::string_view::npos)
            throw DataError::atLine(m_path, m_lineNo, QStringLiteral("label"), text(labelTok),
                                    QStringLiteral("line starts with %1, expected a label before the "
                                                   "index:value pairs")
                                        .arg(detail::quoted(labelTok)));
        if (labelTok.find(',') != std::string_view::npos)
            throw DataError::atLine(m_path, m_lineNo, QStringLiteral("label"), text(labelTok),
                                    QStringLiteral("label %1: multi-label lines are not supported")
                                        .arg(detail::quoted(labelTok)));
        double label = 0;
        if (const NumberStatus st = detail::parseNumber(labelTok, label); st != NumberStatus::Ok)
            throw DataError::atLine(m_path, m_lineNo, QStringLiteral("label"), text(labelTok),
                                    QStringLiteral("label: %1").arg(detail::numberProblem(st, labelTok)));
        if (m_targets.size() == m_targets.capacity())
            MemoryBudget::require(MemoryBudget::bytesOf(std::max<std::size_t>(1024, m_targets.capacity() * 2),
                                                        sizeof(double) + sizeof(qint64), 1),
                                  QStringLiteral("reading the labels (%1 rows so far)").arg(m_targets.size()), m_path);
        m_targets.push_back(label);
        m_rowLine.push_back(m_lineNo);

        long long previous = 0;
        int token = 1;
        for (std::string_view tok = nextToken(); !tok.empty(); tok = nextToken()) {
            ++token;
            const std::size_t colon = tok.find(':');
            if (colon == std::string_view::npos || colon == 0 || colon + 1 == tok.size())
                throw DataError::atLine(m_path, m_lineNo, {}, text(tok),
                                        QStringLiteral("bad token %1 (token %2): expected index:value")
                                            .arg(detail::quoted(tok))
                                            .arg(token));
            const std::string_view idxText = tok.substr(0, colon);
            const std::string_view valText = tok.substr(colon + 1);
            long long idx = 0;
            const auto [ptr, ec] = std::from_chars(idxText.data(), idxText.data() + idxText.size(), idx);
            if (ec == std::errc::result_out_of_range || (ec == std::errc() && ptr == idxText.data() + idxText.size() &&
                                                         idx > SparseMaxIndex))
                throw DataError::atLine(m_path, m_lineNo, QStringLiteral("index"), text(tok),
                                        QStringLiteral("bad token %1: index %2 overflows 32 bits: a row's indices go up "
                                                       "to %3 (LIBLINEAR's and LIBSVM's limit too)")
                                            .arg(detail::quoted(tok), text(idxText))
                                            .arg(SparseMaxIndex));
            if (ec != std::errc() || ptr != idxText.data() + idxText.size())
                throw DataError::atLine(m_path, m_lineNo, QStringLiteral("index"), text(tok),
                                        QStringLiteral("bad token %1: index %2 is not an integer")
                                            .arg(detail::quoted(tok), detail::quoted(idxText)));
            if (idx <= 0)
                throw DataError::atLine(m_path, m_lineNo, QStringLiteral("index"), text(tok),
                                        QStringLiteral("bad token %1: index %2 must be ≥ 1 (indices are 1-based)")
                                            .arg(detail::quoted(tok))
                                            .arg(idx));
            if (idx == previous)
                throw DataError::atLine(m_path, m_lineNo, QStringLiteral("index"), text(tok),
                                        QStringLiteral("bad token %1: index %2 appears twice on the line")
                                            .arg(detail::quoted(tok))
                                            .arg(idx));
            if (idx < previous)
                throw DataError::atLine(m_path, m_lineNo, QStringLiteral("index"), text(tok),
                                        QStringLiteral("bad token %1: index %2 does not increase (previous %3)")
                                            .arg(detail::quoted(tok))
                                            .arg(idx)
                                            .arg(previous));
            if (m_options.features > 0 && idx > m_options.features)
                throw DataError::atLine(m_path, m_lineNo, QStringLiteral("index"), text(tok),
                                        QStringLiteral("bad token %1: index %2 exceeds the %3 features expected")
                                            .arg(detail::quoted(tok))
                                            .arg(idx)
                                            .arg(m_options.features));
            double v = 0;
            if (const NumberStatus st = detail::parseNumber(valText, v); st != NumberStatus::Ok)
                throw DataError::atLine(m_path, m_lineNo, QStringLiteral("value"), text(tok),
                                        QStringLiteral("bad value in token %1: %2")
                                            .arg(detail::quoted(tok), detail::numberProblem(st, valText)));
            previous = idx;
            m_maxIndex = std::max(m_maxIndex, Eigen::Index(idx));
            if (v == 0.0)
                continue; // an explicit zero: nothing to store
            if (m_nonZeros == std::uint64_t(SparseMaxIndex))
                throw DataError::atLine(m_path, m_lineNo, QStringLiteral("index"), text(tok),
                                        QStringLiteral("more than %1 non-zeros: beyond what 32-bit row offsets hold")
                                            .arg(SparseMaxIndex));
            ++m_nonZeros;
            ++m_rowCount;
        }
        if (m_rowNonZeros.size() == m_rowNonZeros.capacity())
            MemoryBudget::require(MemoryBudget::bytesOf(std::max<std::size_t>(1024, m_rowNonZeros.capacity() * 2), sizeof(int), 1),
                                  QStringLiteral("counting each row's non-zeros (%1 rows so far)").arg(m_rowNonZeros.size()),
                                  m_path);
        m_rowNonZeros.push_back(int(m_rowCount));
        m_rowCount = 0;
    }

    // The second pass: the line was checked by the first, unless the file changed since.
    template <class Next>
    void fill(Next& nextToken)
    {
        if (m_row >= rows())
            throw changed();
        const Eigen::Index row = m_row++;
        std::uint64_t written = 0;
        for (std::string_view tok = nextToken(); !tok.empty(); tok = nextToken()) {
            const std::size_t colon = tok.find(':');
            long long idx = 0;
            double v = 0;
            if (colon == std::string_view::npos ||
                std::from_chars(tok.data(), tok.data() + colon, idx).ec != std::errc() || idx < 1 ||
                detail::parseNumber(tok.substr(colon + 1), v) != NumberStatus::Ok)
                throw changed();
            if (v == 0.0)
                continue;
            if (dense) {
                if (idx > dense->cols())
                    throw changed();
                (*dense)(row, Eigen::Index(idx - 1)) = v;
                ++m_entry;
            } else {
                if (m_entry >= m_nonZeros || idx > sparse->cols())
                    throw changed();
                sparse->innerIndexPtr()[m_entry] = int(idx - 1);
                sparse->valuePtr()[m_entry] = v;
                ++m_entry;
            }
            ++written;
        }
        if (written != std::uint64_t(m_rowNonZeros[std::size_t(row)]))
            throw changed();
    }

public:
    const std::vector<int>& rowNonZeros() const { return m_rowNonZeros; }

private:
    QString m_path;
    LibsvmLoader::Options m_options;
    Pass m_pass = Pass::Count;
    qint64 m_lineNo = 0;
    std::vector<double> m_targets;
    std::vector<qint64> m_rowLine;
    std::vector<int> m_rowNonZeros;
    std::uint64_t m_rowCount = 0;
    std::uint64_t m_nonZeros = 0;
    Eigen::Index m_maxIndex = 0;
    Eigen::Index m_row = 0;
    std::uint64_t m_entry = 0;
};

Dataset read(const QString& path, const LibsvmLoader::Options& options,
             const std::function<void(const std::function<void(std::string_view)>&)>& eachPiece)
{
    const bool classification = options.task == tb::Task::Classification;
    if (options.features < 0 || options.features > SparseMaxIndex)
        throw DataError::inFile(path, QStringLiteral("feature count %1 outside 0..%2 (32-bit column indices)")
                                          .arg(options.features)
                                          .arg(SparseMaxIndex));
    Reader reader(path, options);
    reader.begin(Reader::Pass::Count);
    eachPiece([&](std::string_view piece) { reader.consume(piece); });
    const Eigen::Index n = reader.rows();
    if (n == 0)
        throw DataError::inFile(path, QStringLiteral("no data lines"));
    const Eigen::Index d = options.features > 0 ? options.features : reader.maxIndex();
    if (d == 0)
        throw DataError::inFile(path, QStringLiteral("no features: no line has an index:value pair"));

    LibsvmLoader::Storage storage = options.storage;
    if (storage == LibsvmLoader::Storage::Auto)
        storage = LibsvmLoader::automaticStorage(n, d, reader.nonZeros());
    const QString widthFrom = options.features > 0 ? QStringLiteral("dataset.features")
                                                   : QStringLiteral("the largest index sets the width");
    Dataset out;
    out.task = options.task;
    if (storage == LibsvmLoader::Storage::Dense) {
        // A 520-byte file of "0 67108864:1" lines asks for 40 × 2^26 doubles: check before allocating.
        MemoryBudget::require(MemoryBudget::bytesOf(std::uint64_t(n), std::uint64_t(d)),
                              QStringLiteral("a dense %1×%2 matrix of doubles (%3)").arg(n).arg(d).arg(widthFrom), path);
        try {
            out.x = Eigen::MatrixXd::Zero(n, d);
        } catch (const std::bad_alloc&) {
            throw DataError::inFile(path, QStringLiteral("not enough memory for a dense %1×%2 matrix").arg(n).arg(d));
        }
        reader.dense = &out.x;
    } else {
        MemoryBudget::require(sparseBytes(std::uint64_t(n), reader.nonZeros()),
                              QStringLiteral("a sparse %1×%2 matrix with %3 non-zeros (%4)")
                                  .arg(n)
                                  .arg(d)
                                  .arg(reader.nonZeros())
                                  .arg(widthFrom),
                              path);
        try {
            out.x.resize(n, 0);
            out.xSparse.resize(n, d);
            out.xSparse.resizeNonZeros(Eigen::Index(reader.nonZeros()));
        } catch (const std::bad_alloc&) {
            throw DataError::inFile(path, QStringLiteral("not enough memory for a sparse %1×%2 matrix with %3 non-zeros")
                                              .arg(n)
                                              .arg(d)
                                              .arg(reader.nonZeros()));
        }
        int* outer = out.xSparse.outerIndexPtr();
        outer[0] = 0;
        for (Eigen::Index i = 0; i < n; ++i)
            outer[i + 1] = outer[i] + reader.rowNonZeros()[std::size_t(i)];
        reader.sparse = &out.xSparse;
    }
    reader.begin(Reader::Pass::Fill);
    eachPiece([&](std::string_view piece) { reader.consume(piece); });
    reader.end();

    const std::vector<double>& targets = reader.targets();
    if (classification) {
        QHash<QString, int> index;
        QStringList names = options.classNames;
        if (names.isEmpty()) {
            for (double t : targets)
                names << LibsvmLoader::labelName(t);
            names = detail::sortedLabelNames(names);
        }
        for (int c = 0; c < names.size(); ++c)
            index.insert(names[c], c);
        out.labels.resize(std::size_t(n));
        for (Eigen::Index i = 0; i < n; ++i) {
            const QString name = LibsvmLoader::labelName(targets[std::size_t(i)]);
            const auto it = index.constFind(name);
            if (it == index.constEnd())
                throw DataError::atLine(path, reader.rowLines()[std::size_t(i)], QStringLiteral("label"), name,
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
    if (out.isSparse())
        out.description += QStringLiteral(" sparse (%1 % non-zero)")
                               .arg(QLocale::c().toString(100.0 * double(reader.nonZeros()) / (double(n) * double(d)), 'g', 3));
    if (classification)
        out.description += QStringLiteral(" (%1 classes)").arg(out.classNames.size());
    return out;
}

} // namespace

QString LibsvmLoader::labelName(double label)
{
    return QString::number(label, 'g', QLocale::FloatingPointShortest);
}

LibsvmLoader::Storage LibsvmLoader::automaticStorage(Eigen::Index rows, Eigen::Index features, std::uint64_t nonZeros)
{
    const std::uint64_t dense = MemoryBudget::bytesOf(std::uint64_t(rows), std::uint64_t(features));
    const std::uint64_t sparse = sparseBytes(std::uint64_t(rows), nonZeros);
    const bool large = dense > (std::uint64_t(64) << 20);
    return large && dense / 4 >= sparse ? Storage::Sparse : Storage::Dense;
}

QString LibsvmLoader::storageName(Storage s)
{
    switch (s) {
    case Storage::Auto: return QStringLiteral("auto");
    case Storage::Dense: return QStringLiteral("dense");
    case Storage::Sparse: return QStringLiteral("sparse");
    }
    return {};
}

Dataset LibsvmLoader::load(const QString& path, const Options& options)
{
    return read(path, options, [&](const std::function<void(std::string_view)>& consume) {
        DataFile::forEachLines(path, consume);
    });
}

Dataset LibsvmLoader::parse(const QByteArray& data, const QString& path, const Options& options)
{
    return read(path, options, [&](const std::function<void(std::string_view)>& consume) {
        consume(std::string_view(data.constData(), std::size_t(data.size())));
    });
}

} // namespace tb::data
