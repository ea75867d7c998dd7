#include "IdxLoader.h"

#include "DataError.h"
#include "DataFile.h"
#include "MemoryBudget.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QtEndian>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <functional>
#include <system_error>
#include <thread>
#include <array>
#include <limits>
#include <new>

namespace tb::data {
namespace {

// Sanity cap on the payload a header may announce (1 TiB): larger is surely a broken header.
constexpr quint64 maxPayload = quint64(1) << 40;

QString hex32(std::uint32_t v)
{
    return QStringLiteral("0x%1").arg(v, 8, 16, QLatin1Char('0'));
}

QString describeMagic(std::uint32_t m)
{
    if ((m >> 16) != 0)
        return QStringLiteral("not an IDX file");
    const std::uint32_t type = (m >> 8) & 0xff;
    const std::uint32_t dims = m & 0xff;
    static const std::array<std::pair<std::uint32_t, const char*>, 6> types{
        {{0x08, "unsigned bytes"}, {0x09, "signed bytes"}, {0x0b, "shorts"}, {0x0c, "ints"},
         {0x0d, "floats"}, {0x0e, "doubles"}}};
    for (const auto& t : types)
        if (t.first == type)
            return QStringLiteral("IDX %1, %2 dimension(s)").arg(QLatin1String(t.second)).arg(dims);
    return QStringLiteral("unknown IDX element type 0x%1").arg(type, 2, 16, QLatin1Char('0'));
}

/// Sequential reader over a plain or gzip file that knows its uncompressed offset.
class ByteStream {
public:
    explicit ByteStream(const QString& path) : m_path(path)
    {
        // A regular file only (a FIFO would block here for ever), opened once: gzip reads a
        // duplicate of the same descriptor, so nothing can swap the file in between.
        DataFile::open(m_file, path);
        char head[2] = {0, 0};
        const qint64 got = m_file.read(head, 2);
        m_gz = got == 2 && quint8(head[0]) == 0x1f && quint8(head[1]) == 0x8b;
        m_fileSize = m_file.size();
        if (m_gz && m_fileSize >= 18 && m_file.seek(m_fileSize - 4)) {
            uchar isize[4];
            if (m_file.read(reinterpret_cast<char*>(isize), 4) == 4)
                m_gzTrailerSize = qFromLittleEndian<quint32>(isize);
        }
        if (m_gz) {
            const int fd = ::dup(m_file.handle());
            if (fd < 0 || ::lseek(fd, 0, SEEK_SET) != 0 || !(m_gzf = gzdopen(fd, "rb"))) {
                if (fd >= 0)
                    ::close(fd);
                throw DataError::inFile(path, QStringLiteral("cannot open gzip stream"));
            }
            m_file.close();
            // A large buffer makes inflate run in big steps (the default 8 KiB is slow).
            gzbuffer(m_gzf, 1 << 20);
        } else if (!m_file.seek(0)) {
            throw DataError::inFile(path, QStringLiteral("cannot read: %1").arg(m_file.errorString()));
        }
    }
    ~ByteStream()
    {
        if (m_gzf)
            gzclose(m_gzf);
    }
    ByteStream(const ByteStream&) = delete;
    ByteStream& operator=(const ByteStream&) = delete;

    bool isGzip() const { return m_gz; }
    qint64 offset() const { return m_offset; }
    /// Bytes left for plain files; -1 for gzip (unknown until inflated).
    qint64 remainingKnown() const { return m_gz ? -1 : m_fileSize - m_offset; }

    /// True if the stream is known to hold @p totalBytes uncompressed bytes: from the file size,
    /// or for gzip from the trailer's ISIZE (the size modulo 2^32, single-member files), which
    /// a cut-off or wrong file almost never matches, and from deflate's maximum ratio.
    bool sizeMatches(qint64 totalBytes) const
    {
        if (!m_gz)
            return m_fileSize == totalBytes;
        // Deflate cannot expand data more than about 1032:1, which bounds what a gzip file can hold.
        return m_gzTrailerSize >= 0 && quint32(quint64(totalBytes) & 0xffffffffu) == quint32(m_gzTrailerSize) &&
               totalBytes <= m_fileSize * 1032;
    }

    /// Reads up to @p n bytes; returns how many were read (fewer only at the end of data).
    qint64 read(char* dst, qint64 n)
    {
        qint64 done = 0;
        while (done < n) {
            qint64 got = 0;
            if (m_gz) {
                const unsigned step = unsigned(std::min<qint64>(n - done, qint64(1) << 30));
                const int r = gzread(m_gzf, dst + done, step);
                if (r < 0) {
                    int code = Z_OK;
                    const char* msg = gzerror(m_gzf, &code);
                    const QString why = QString::fromUtf8(msg ? msg : "unknown zlib error");
                    if (code == Z_BUF_ERROR) // zlib's "unexpected end of file": cut-off archive
                        break;
                    throw DataError::atOffset(m_path, m_offset + done, {}, {},
                                              QStringLiteral("corrupt gzip data: %1").arg(why));
                }
                got = r;
            } else {
                got = m_file.read(dst + done, n - done);
                if (got < 0)
                    throw DataError::atOffset(m_path, m_offset + done, {}, {},
                                              QStringLiteral("read error: %1").arg(m_file.errorString()));
            }
            if (got == 0)
                break;
            done += got;
        }
        m_offset += done;
        return done;
    }

    /// Reads exactly @p n bytes of @p what, or throws a truncation error.
    void readExactly(char* dst, qint64 n, const QString& what)
    {
        const qint64 start = m_offset;
        const qint64 got = read(dst, n);
        if (got != n)
            throw truncated(start, n, got, what);
    }

    DataError truncated(qint64 start, qint64 expected, qint64 got, const QString& what) const
    {
        return DataError::atOffset(
            m_path, start, {}, {},
            QStringLiteral("truncated file: expected %1 bytes of %2 from byte offset %3, got %4%5")
                .arg(expected)
                .arg(what)
                .arg(start)
                .arg(got)
                .arg(m_gz ? QStringLiteral(" (gzip stream ends early)") : QString()));
    }

    /// Throws if any byte follows the data the header announced.
    void expectEnd()
    {
        const qint64 end = m_offset;
        qint64 extra = 0;
        if (!m_gz) {
            extra = m_fileSize - end;
        } else {
            char probe[4096];
            for (qint64 got; (got = read(probe, sizeof probe)) > 0;)
                extra += got;
        }
        if (extra > 0)
            throw DataError::atOffset(m_path, end, {}, {},
                                      QStringLiteral("%1 unexpected byte(s) after the %2 bytes the header "
                                                     "announces (wrong file, or a header count too small?)")
                                          .arg(extra)
                                          .arg(end));
    }

    std::uint32_t readU32(const QString& what)
    {
        uchar b[4];
        readExactly(reinterpret_cast<char*>(b), 4, what);
        return qFromBigEndian<quint32>(b);
    }

private:
    QString m_path;
    bool m_gz = false;
    gzFile m_gzf = nullptr;
    QFile m_file;
    qint64 m_fileSize = 0;
    qint64 m_offset = 0;
    qint64 m_gzTrailerSize = -1;
};

struct RawIdx {
    std::vector<std::uint32_t> dims;
    std::vector<unsigned char> bytes;
    qint64 dataOffset = 0;
};

/// Called once the header is read and checked, before the body: dims, and whether the file's
/// size is known to match them (so that allocating for them is safe).
using BeforeBody = std::function<void(const std::vector<std::uint32_t>& dims, bool sizeTrusted)>;

RawIdx readRaw(const QString& path, std::uint32_t expectedMagic, const QString& what,
               const BeforeBody& beforeBody = {})
{
    ByteStream in(path);
    const std::uint32_t magic = in.readU32(QStringLiteral("header (magic number)"));
    if (magic != expectedMagic)
        throw DataError::atOffset(path, 0, QStringLiteral("magic"), hex32(magic),
                                  QStringLiteral("wrong magic number: expected %1 (%2), found %3 (%4)")
                                      .arg(hex32(expectedMagic), describeMagic(expectedMagic), hex32(magic),
                                           describeMagic(magic)));
    RawIdx raw;
    const std::uint32_t nd = magic & 0xff;
    quint64 total = 1;
    for (std::uint32_t i = 0; i < nd; ++i) {
        const qint64 at = in.offset();
        const std::uint32_t d = in.readU32(QStringLiteral("header (dimension %1 of %2)").arg(i + 1).arg(nd));
        if (d == 0)
            throw DataError::atOffset(path, at, QStringLiteral("dimension"), QStringLiteral("0"),
                                      QStringLiteral("dimension %1 of the header is 0: the file holds no %2")
                                          .arg(i + 1)
                                          .arg(what));
        raw.dims.push_back(d);
        total *= d;
        if (total > maxPayload)
            throw DataError::atOffset(path, at, QStringLiteral("dimension"), QString::number(d),
                                      QStringLiteral("header announces more than %1 bytes of %2; the header is "
                                                     "broken")
                                          .arg(maxPayload)
                                          .arg(what));
    }
    raw.dataOffset = in.offset();
    const qint64 expected = qint64(total);
    if (const qint64 left = in.remainingKnown(); left >= 0 && left < expected)
        throw in.truncated(raw.dataOffset, expected, left, what);
    if (beforeBody)
        beforeBody(raw.dims, in.sizeMatches(raw.dataOffset + expected));
    // A gzip header may announce more than its stream holds: such a body grows as it is read
    // (below) and is checked step by step; a plain file's size already confirmed the header.
    if (!in.isGzip())
        MemoryBudget::require(std::uint64_t(expected), QStringLiteral("%1 bytes of %2").arg(expected).arg(what), path);
    try {
        if (in.isGzip()) {
            // Grow as data arrives so that a lying header cannot make us allocate first.
            const qint64 chunk = qint64(16) << 20;
            raw.bytes.reserve(std::size_t(std::min(expected, qint64(64) << 20)));
            qint64 have = 0;
            while (have < expected) {
                const qint64 step = std::min(chunk, expected - have);
                if (std::uint64_t(have + step) > raw.bytes.capacity())
                    MemoryBudget::require(std::uint64_t(have + step), QStringLiteral("%1 bytes of %2 (%3 read so far)")
                                                                          .arg(expected)
                                                                          .arg(what)
                                                                          .arg(have),
                                          path);
                raw.bytes.resize(std::size_t(have + step));
                const qint64 got = in.read(reinterpret_cast<char*>(raw.bytes.data()) + have, step);
                have += got;
                if (got < step)
                    throw in.truncated(raw.dataOffset, expected, have, what);
            }
        } else {
            raw.bytes.resize(std::size_t(expected));
            in.readExactly(reinterpret_cast<char*>(raw.bytes.data()), expected, what);
        }
    } catch (const std::bad_alloc&) {
        throw DataError::inFile(path, QStringLiteral("not enough memory for %1 bytes of %2").arg(expected).arg(what));
    }
    in.expectEnd();
    return raw;
}

std::vector<int> labelsFromRaw(const QString& path, const RawIdx& raw, int classCount)
{
    std::vector<int> labels(raw.bytes.size());
    for (std::size_t i = 0; i < raw.bytes.size(); ++i) {
        const int l = raw.bytes[i];
        if (l >= classCount)
            throw DataError::atOffset(path, raw.dataOffset + qint64(i), QStringLiteral("label"),
                                      QString::number(l),
                                      QStringLiteral("label %1 of item %2 is out of range 0..%3")
                                          .arg(l)
                                          .arg(i)
                                          .arg(classCount - 1));
        labels[i] = l;
    }
    return labels;
}

/// Rows @p rows of the count×pixels byte block as doubles in [0, 1], written into @p x
/// (resized unless it already has the right shape).
void imagesToMatrix(const std::vector<unsigned char>& bytes, Eigen::Index pixels,
                    const std::vector<Eigen::Index>& rows, Eigen::MatrixXd& x)
{
    std::array<double, 256> lut;
    for (int v = 0; v < 256; ++v)
        lut[std::size_t(v)] = v / 255.0; // exact division: 0 → 0.0 and 255 → 1.0 exactly
    const auto n = Eigen::Index(rows.size());
    x.resize(n, pixels);
    // Blocked transpose: row-major bytes into column-major doubles. A block of 64 images
    // (50 KB for 28×28) stays in cache while each column's 64 entries are written contiguously.
    constexpr Eigen::Index block = 64;
    for (Eigen::Index i0 = 0; i0 < n; i0 += block) {
        const Eigen::Index i1 = std::min(n, i0 + block);
        for (Eigen::Index j = 0; j < pixels; ++j) {
            double* col = x.data() + j * n;
            for (Eigen::Index i = i0; i < i1; ++i)
                col[i] = lut[bytes[std::size_t(rows[std::size_t(i)] * pixels + j)]];
        }
    }
}

/// Allocates an n×d matrix and touches its pages on a helper thread while the caller inflates
/// the file: first-touch page faults of a 376 MB matrix cost as much as the inflate itself.
/// The destructor waits for the thread.
class Prefault {
public:
    Prefault() = default;
    Prefault(const Prefault&) = delete;
    Prefault& operator=(const Prefault&) = delete;
    ~Prefault() { wait(); }
    void start(Eigen::MatrixXd& x, Eigen::Index n, Eigen::Index d)
    {
        x.resize(n, d);
        // Small matrices are not worth a thread.
        if (x.size() < (Eigen::Index(1) << 20))
            return;
        try {
            m_thread = std::thread([&x] { x.setZero(); });
        } catch (const std::system_error&) {
            // No thread available: the pages are touched by the conversion instead.
        }
    }
    void wait()
    {
        if (m_thread.joinable())
            m_thread.join();
    }

private:
    std::thread m_thread;
};

std::vector<Eigen::Index> allRows(Eigen::Index n)
{
    std::vector<Eigen::Index> rows(std::size_t(std::max<Eigen::Index>(n, 0)));
    for (std::size_t i = 0; i < rows.size(); ++i)
        rows[i] = Eigen::Index(i);
    return rows;
}

} // namespace

Eigen::MatrixXd IdxLoader::readImages(const QString& path, int* imageRows, int* imageCols)
{
    Eigen::MatrixXd x;
    std::vector<Eigen::Index> rows;
    try {
        Prefault prefault;
        const RawIdx raw = readRaw(path, imagesMagic, QStringLiteral("pixel data"),
                                   [&](const std::vector<std::uint32_t>& dims, bool trusted) {
                                       MemoryBudget::require(MemoryBudget::bytesOf(dims[0], std::uint64_t(dims[1]) * dims[2]),
                                                             QStringLiteral("%1 images of %2×%3 pixels as doubles")
                                                                 .arg(dims[0])
                                                                 .arg(dims[1])
                                                                 .arg(dims[2]),
                                                             path);
                                       // Only a header confirmed by the file size may allocate.
                                       if (trusted)
                                           prefault.start(x, dims[0], Eigen::Index(dims[1]) * dims[2]);
                                   });
        prefault.wait();
        rows = allRows(raw.dims[0]);
        if (imageRows)
            *imageRows = int(raw.dims[1]);
        if (imageCols)
            *imageCols = int(raw.dims[2]);
        imagesToMatrix(raw.bytes, Eigen::Index(raw.dims[1]) * raw.dims[2], rows, x);
    } catch (const std::bad_alloc&) {
        throw DataError::inFile(path, QStringLiteral("not enough memory for the images as doubles"));
    }
    return x;
}

std::vector<int> IdxLoader::readLabels(const QString& path, int classCount)
{
    if (classCount < 1 || classCount > 256)
        throw DataError::inFile(path, QStringLiteral("class count %1 outside 1..256").arg(classCount));
    const RawIdx raw = readRaw(path, labelsMagic, QStringLiteral("labels"));
    return labelsFromRaw(path, raw, classCount);
}

Dataset IdxLoader::load(const QString& imagesPath, const QString& labelsPath, const Options& options)
{
    if (!options.classNames.isEmpty() && options.classNames.size() != options.classCount)
        throw DataError::inFile(labelsPath, QStringLiteral("%1 class names given for %2 classes")
                                                .arg(options.classNames.size())
                                                .arg(options.classCount));
    const std::vector<int> labels = readLabels(labelsPath, options.classCount);
    Dataset d;
    d.task = tb::Task::Classification;
    d.classNames = options.classNames;
    if (d.classNames.isEmpty())
        for (int c = 0; c < options.classCount; ++c)
            d.classNames << QString::number(c);
    std::vector<Eigen::Index> rows;
    Eigen::Index count = 0;
    Eigen::Index pixels = 0;
    try {
        Prefault prefault;
        // Checks run on the header, before the (slow) body is read.
        const RawIdx raw = readRaw(
            imagesPath, imagesMagic, QStringLiteral("pixel data"),
            [&](const std::vector<std::uint32_t>& dims, bool trusted) {
                count = dims[0];
                pixels = Eigen::Index(dims[1]) * dims[2];
                if (Eigen::Index(labels.size()) != count)
                    throw DataError(labelsPath, -1, 4, QStringLiteral("count"), QString::number(labels.size()),
                                    QStringLiteral("image/label count mismatch: %1 labels here but %2 images in %3")
                                        .arg(labels.size())
                                        .arg(count)
                                        .arg(imagesPath));
                if (options.limit >= 0) {
                    if (options.limit < 1 || options.limit > count)
                        throw DataError(imagesPath, -1, -1, QStringLiteral("limit"),
                                        QString::number(options.limit),
                                        QStringLiteral("limit %1 outside 1..%2 (the number of images)")
                                            .arg(options.limit)
                                            .arg(count));
                    rows = Rng(options.seed, options.stream).sampleIndices(count, options.limit);
                } else {
                    rows = allRows(count);
                }
                MemoryBudget::require(MemoryBudget::bytesOf(rows.size(), std::uint64_t(pixels)),
                                      QStringLiteral("%1 images of %2 pixels as doubles").arg(rows.size()).arg(pixels),
                                      imagesPath);
                if (trusted)
                    prefault.start(d.x, Eigen::Index(rows.size()), pixels);
            });
        prefault.wait();
        imagesToMatrix(raw.bytes, pixels, rows, d.x);
        d.labels.resize(rows.size());
        for (std::size_t i = 0; i < rows.size(); ++i)
            d.labels[i] = labels[std::size_t(rows[i])];
        d.setOneHotFromLabels();
    } catch (const std::bad_alloc&) {
        throw DataError::inFile(imagesPath,
                                QStringLiteral("not enough memory for %1×%2 doubles").arg(rows.size()).arg(pixels));
    }
    const QString name = options.name.isEmpty() ? QFileInfo(imagesPath).fileName() : options.name;
    d.description = QStringLiteral("%1 %2×%3").arg(name).arg(d.rows()).arg(pixels);
    if (options.limit >= 0)
        d.description += QStringLiteral(" (random %1 of %2)").arg(options.limit).arg(count);
    return d;
}

QString IdxLoader::fashionMnistDir()
{
    const QString env = qEnvironmentVariable("TRAINBENCH_FASHION_MNIST");
    if (!env.isEmpty() && QFileInfo(env).isDir())
        return QFileInfo(env).absoluteFilePath();
    const QString standard = QStringLiteral("/usr/share/datasets/fashion-mnist");
    if (QFileInfo(standard).isDir())
        return standard;
    return {};
}

QStringList IdxLoader::fashionMnistClassNames()
{
    return {QStringLiteral("T-shirt/top"), QStringLiteral("Trouser"), QStringLiteral("Pullover"),
            QStringLiteral("Dress"),       QStringLiteral("Coat"),    QStringLiteral("Sandal"),
            QStringLiteral("Shirt"),       QStringLiteral("Sneaker"), QStringLiteral("Bag"),
            QStringLiteral("Ankle boot")};
}

QString IdxLoader::findFile(const QString& dir, const QString& baseName)
{
    const QString plain = QDir(dir).filePath(baseName);
    const QString gz = plain + QStringLiteral(".gz");
    return QFileInfo::exists(gz) ? gz : plain;
}

DatasetPair IdxLoader::loadFashionMnist(const QString& dir, Eigen::Index trainLimit, Eigen::Index testLimit,
                                       std::uint64_t seed)
{
    Options o;
    o.classNames = fashionMnistClassNames();
    o.seed = seed;
    DatasetPair p;
    o.limit = trainLimit;
    o.stream = Rng::TrainSubset;
    o.name = QStringLiteral("fashion-mnist train");
    p.train = load(findFile(dir, QStringLiteral("train-images-idx3-ubyte")),
                   findFile(dir, QStringLiteral("train-labels-idx1-ubyte")), o);
    o.limit = testLimit;
    o.stream = Rng::TestSubset;
    o.name = QStringLiteral("fashion-mnist test");
    p.test = load(findFile(dir, QStringLiteral("t10k-images-idx3-ubyte")),
                  findFile(dir, QStringLiteral("t10k-labels-idx1-ubyte")), o);
    return p;
}

} // namespace tb::data
