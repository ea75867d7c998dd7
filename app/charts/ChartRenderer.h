#pragma once
/// @file ChartRenderer.h
/// Offscreen rendering of a chart to an image or a PNG file (the CLI's export, the GUI's "Save image").

#include <QImage>
#include <QSize>
#include <QString>
#include <QStringList>

class QChart;

namespace tb::charts {

/// Renders QCharts offscreen. Qt Charts needs a QApplication: callers must create one first (the CLI
/// can run with QT_QPA_PLATFORM=offscreen, no display needed). GUI thread only.
class ChartRenderer {
public:
    /// Default export size in pixels.
    static constexpr QSize defaultSize() { return QSize(1200, 800); }

    /// Renders @p chart at exactly @p size pixels (device pixel ratio 1, 96 dpi, so the result does
    /// not depend on the screen) on a white background with antialiasing. A chart that is shown in a
    /// view is temporarily resized and restored. Returns a null image for a null chart or an empty size.
    static QImage render(QChart* chart, QSize size = defaultSize());

    /// Renders like render() and writes a PNG to @p path. On failure returns false and, if @p error is
    /// given, sets it to a message naming the path and the reason (e.g. "cannot write PNG
    /// '/x/y.png': …"). Sizes are limited to 1 … 16384 pixels a side.
    static bool savePng(QChart* chart, const QString& path, QSize size = defaultSize(),
                        QString* error = nullptr);

    /// Writes @p chart at @p size with a header above it: @p title in bold, then one line per
    /// entry of @p settings (data set, kind, seeds, …), so an exported picture says what it
    /// shows. PNG, or SVG (vector, via QSvgGenerator) when @p path ends in ".svg". The file is
    /// replaced atomically. False with @p error naming the path on failure.
    static bool saveWithHeader(QChart* chart, const QString& path, const QString& title,
                               const QStringList& settings, QSize size = defaultSize(), QString* error = nullptr);
};

} // namespace tb::charts
