#include "DownloadBar.h"

#include <data/MemoryBudget.h>

#include <cstdio>

namespace tb::cli {
namespace {

QString size(qint64 n)
{
    return data::MemoryBudget::formatBytes(std::uint64_t(std::max<qint64>(0, n)));
}

} // namespace

DownloadBar::DownloadBar(bool terminal) : m_terminal(terminal)
{
    m_clock.start();
}

DownloadBar::~DownloadBar()
{
    finish();
}

void DownloadBar::message(const QString& line)
{
    if (m_drawn)
        std::fprintf(stderr, "\r%-100s\r", "");
    std::fprintf(stderr, "%s\n", qPrintable(line));
    std::fflush(stderr);
    m_drawn = false;
}

void DownloadBar::progress(const data::FetchProgress& p)
{
    const bool newFile = p.file != m_file || p.phase != m_phase;
    if (newFile) {
        if (m_drawn)
            finish();
        m_file = p.file;
        m_phase = p.phase;
        m_startBytes = p.fileDone;
        m_startMs = m_clock.elapsed();
        if (!m_terminal) {
            // One line per file and phase: logs stay readable.
            if (p.phase == u"download")
                std::fprintf(stderr, "downloading %s (%d/%d, %s)\n", qPrintable(p.file), p.fileIndex + 1, p.fileCount,
                             p.fileTotal >= 0 ? qPrintable(size(p.fileTotal)) : "size unknown");
            else if (p.phase == u"verify")
                std::fprintf(stderr, "verifying %s\n", qPrintable(p.file));
            std::fflush(stderr);
        }
    }
    if (m_terminal)
        draw(p, newFile || (p.fileTotal >= 0 && p.fileDone >= p.fileTotal));
}

void DownloadBar::draw(const data::FetchProgress& p, bool force)
{
    const qint64 now = m_clock.elapsed();
    if (!force && now - m_lastDraw < 100)
        return;
    m_lastDraw = now;
    const int width = 30;
    QString line;
    if (p.phase == u"download") {
        const double frac = p.fileTotal > 0 ? std::min(1.0, double(p.fileDone) / double(p.fileTotal)) : 0.0;
        const int filled = int(frac * width);
        const double seconds = std::max(1e-3, (now - m_startMs) / 1000.0);
        const double rate = double(p.fileDone - m_startBytes) / seconds;
        QString eta = QStringLiteral("--:--");
        if (rate > 0 && p.fileTotal > 0 && p.fileDone < p.fileTotal) {
            const qint64 s = qint64(double(p.fileTotal - p.fileDone) / rate);
            eta = QStringLiteral("%1:%2").arg(s / 60).arg(s % 60, 2, 10, QLatin1Char('0'));
        } else if (p.fileTotal > 0 && p.fileDone >= p.fileTotal) {
            eta = QStringLiteral("done");
        }
        line = QStringLiteral("\r[%1] %2%  %3/%4  %5/s  ETA %6  %7")
                   .arg(QString(filled, QLatin1Char('#')) + QString(width - filled, QLatin1Char('.')))
                   .arg(int(frac * 100), 3)
                   .arg(size(p.fileDone), p.fileTotal >= 0 ? size(p.fileTotal) : QStringLiteral("?"),
                        size(qint64(rate)), eta, p.file.left(40));
    } else if (p.phase == u"verify") {
        line = QStringLiteral("\rverifying %1 (%2)").arg(p.file, size(p.fileTotal));
    } else {
        line = QStringLiteral("\rwaiting for another process fetching %1").arg(p.file);
    }
    std::fprintf(stderr, "%-100s", qPrintable(line));
    std::fflush(stderr);
    m_drawn = true;
}

void DownloadBar::finish()
{
    if (m_terminal && m_drawn) {
        std::fprintf(stderr, "\n");
        std::fflush(stderr);
    }
    m_drawn = false;
}

} // namespace tb::cli
