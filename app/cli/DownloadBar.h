#pragma once
/// @file DownloadBar.h
/// The progress of a data-set fetch on stderr, in the style of the CLI's ProgressBar.

#include <data/DatasetFetcher.h>

#include <QElapsedTimer>
#include <QString>

namespace tb::cli {

/// Draws "[#####.........]  31%  2.9/9.45 MiB  1.2 MiB/s  ETA 0:05  train-images-idx3-ubyte.gz"
/// on stderr, at most ten times a second, when stderr is a terminal; without one (a log, a test)
/// it prints a line per file instead. GUI thread of the CLI only (the fetcher calls back on it).
class DownloadBar {
public:
    explicit DownloadBar(bool terminal);
    ~DownloadBar();

    void progress(const data::FetchProgress& p);
    /// A line above the bar (the fetcher's messages).
    void message(const QString& line);
    /// Ends the bar's line.
    void finish();

private:
    void draw(const data::FetchProgress& p, bool force);

    bool m_terminal;
    bool m_drawn = false;
    QElapsedTimer m_clock;
    qint64 m_lastDraw = -1000;
    QString m_file;
    QString m_phase;
    qint64 m_startBytes = 0;
    qint64 m_startMs = 0;
};

} // namespace tb::cli
