#include "ChartRenderer.h"

#include <QChart>
#include <QGraphicsLayout>
#include <QGraphicsScene>
#include <QImageWriter>
#include <QBuffer>
#include <QFontMetrics>
#include <QGuiApplication>
#include <QPainter>
#include <QSaveFile>
#include <QSvgGenerator>

#include <memory>

namespace tb::charts {

namespace {
constexpr int kMaxSide = 16384;
constexpr int kDotsPerMeter96Dpi = 3780; // 96 dpi: the logical DPI Qt lays fonts out with
} // namespace

namespace {

/// Paints @p chart into @p target of @p painter at @p size (a chart in a view is temporarily
/// resized and restored).
void paintChart(QChart* chart, QPainter& painter, const QRectF& target, QSize size)
{
    QGraphicsScene* scene = chart->scene();
    std::unique_ptr<QGraphicsScene> ownScene;
    if (!scene) {
        ownScene = std::make_unique<QGraphicsScene>();
        scene = ownScene.get();
        scene->addItem(chart);
    }
    const QRectF oldGeometry = chart->geometry();
    chart->setGeometry(QRectF(chart->pos(), QSizeF(size)));
    if (chart->layout())
        chart->layout()->activate();
    scene->render(&painter, target, chart->sceneBoundingRect(), Qt::IgnoreAspectRatio);
    if (ownScene)
        ownScene->removeItem(chart);
    chart->setGeometry(oldGeometry);
}

/// Height of the header block of @p lines (title in bold, then settings) at @p width.
int headerHeight(const QString& title, const QStringList& lines)
{
    if (title.isEmpty() && lines.isEmpty())
        return 0;
    QFont f = QGuiApplication::font();
    f.setPointSizeF(f.pointSizeF() * 1.3);
    f.setBold(true);
    QFont g = QGuiApplication::font();
    return 16 + (title.isEmpty() ? 0 : QFontMetrics(f).height() + 4) + int(lines.size()) * (QFontMetrics(g).height() + 2);
}

void paintHeader(QPainter& p, int width, const QString& title, const QStringList& lines)
{
    QFont f = QGuiApplication::font();
    f.setPointSizeF(f.pointSizeF() * 1.3);
    f.setBold(true);
    int y = 10;
    p.setPen(Qt::black);
    if (!title.isEmpty()) {
        p.setFont(f);
        const QFontMetrics fm(f);
        p.drawText(QRect(12, y, width - 24, fm.height()), Qt::AlignLeft, fm.elidedText(title, Qt::ElideRight, width - 24));
        y += fm.height() + 4;
    }
    const QFont g = QGuiApplication::font();
    p.setFont(g);
    p.setPen(QColor(0x44, 0x44, 0x44));
    const QFontMetrics gm(g);
    for (const QString& line : lines) {
        p.drawText(QRect(12, y, width - 24, gm.height()), Qt::AlignLeft, gm.elidedText(line, Qt::ElideRight, width - 24));
        y += gm.height() + 2;
    }
}

} // namespace

bool ChartRenderer::saveWithHeader(QChart* chart, const QString& path, const QString& title,
                                   const QStringList& settings, QSize size, QString* error)
{
    const bool svg = path.endsWith(QLatin1String(".svg"), Qt::CaseInsensitive);
    auto fail = [&](const QString& why) {
        if (error)
            *error = QStringLiteral("cannot write %1 '%2': %3").arg(svg ? QStringLiteral("SVG") : QStringLiteral("PNG"), path, why);
        return false;
    };
    if (!chart)
        return fail(QStringLiteral("no chart given"));
    const int header = headerHeight(title, settings);
    const QSize total(size.width(), size.height() + header);
    if (size.isEmpty() || total.width() > kMaxSide || total.height() > kMaxSide)
        return fail(QStringLiteral("size %1×%2 is outside 1 … %3 pixels a side").arg(total.width()).arg(total.height()).arg(kMaxSide));
    if (path.isEmpty())
        return fail(QStringLiteral("empty file name"));
    if (svg) {
        QBuffer buffer;
        QSvgGenerator generator;
        generator.setOutputDevice(&buffer);
        generator.setSize(total);
        generator.setViewBox(QRect(QPoint(0, 0), total));
        generator.setResolution(96);
        generator.setTitle(title);
        generator.setDescription(settings.join(QLatin1Char('\n')));
        {
            QPainter painter(&generator);
            painter.fillRect(QRect(QPoint(0, 0), total), Qt::white);
            paintHeader(painter, total.width(), title, settings);
            paintChart(chart, painter, QRectF(0, header, size.width(), size.height()), size);
        }
        // QSaveFile: a failed export never leaves half a file in place of a good one.
        QSaveFile f(path);
        if (!f.open(QIODevice::WriteOnly) || f.write(buffer.data()) != buffer.data().size() || !f.commit())
            return fail(f.errorString());
        return true;
    }
    QImage image(total, QImage::Format_ARGB32_Premultiplied);
    image.setDevicePixelRatio(1);
    image.setDotsPerMeterX(kDotsPerMeter96Dpi);
    image.setDotsPerMeterY(kDotsPerMeter96Dpi);
    image.fill(Qt::white);
    {
        QPainter painter(&image);
        painter.setRenderHint(QPainter::Antialiasing);
        painter.setRenderHint(QPainter::TextAntialiasing);
        paintHeader(painter, total.width(), title, settings);
        paintChart(chart, painter, QRectF(0, header, size.width(), size.height()), size);
    }
    QImageWriter writer(path, "png");
    if (!writer.write(image))
        return fail(writer.errorString());
    return true;
}

QImage ChartRenderer::render(QChart* chart, QSize size)
{
    if (!chart || size.isEmpty() || size.width() > kMaxSide || size.height() > kMaxSide)
        return {};

    // A chart not yet in a scene gets a temporary one (it keeps ownership of nothing: removeItem
    // below hands the chart back). A chart shown in a view is rendered from its own scene.
    QGraphicsScene* scene = chart->scene();
    std::unique_ptr<QGraphicsScene> ownScene;
    if (!scene) {
        ownScene = std::make_unique<QGraphicsScene>();
        scene = ownScene.get();
        scene->addItem(chart);
    }
    const QRectF oldGeometry = chart->geometry();
    const QRectF target(QPointF(0, 0), QSizeF(size));
    chart->setGeometry(QRectF(chart->pos(), QSizeF(size)));
    if (chart->layout())
        chart->layout()->activate(); // lay out title, legend and plot area for the new size now

    QImage image(size, QImage::Format_ARGB32_Premultiplied);
    image.setDevicePixelRatio(1);
    image.setDotsPerMeterX(kDotsPerMeter96Dpi);
    image.setDotsPerMeterY(kDotsPerMeter96Dpi);
    image.fill(Qt::white);
    {
        QPainter painter(&image);
        painter.setRenderHint(QPainter::Antialiasing);
        painter.setRenderHint(QPainter::TextAntialiasing);
        painter.setRenderHint(QPainter::SmoothPixmapTransform);
        scene->render(&painter, target, chart->sceneBoundingRect(), Qt::IgnoreAspectRatio);
    }

    if (ownScene)
        ownScene->removeItem(chart);
    chart->setGeometry(oldGeometry);
    return image;
}

bool ChartRenderer::savePng(QChart* chart, const QString& path, QSize size, QString* error)
{
    auto fail = [&](const QString& why) {
        if (error)
            *error = QStringLiteral("cannot write PNG '%1': %2").arg(path, why);
        return false;
    };
    if (!chart)
        return fail(QStringLiteral("no chart given"));
    if (size.isEmpty() || size.width() > kMaxSide || size.height() > kMaxSide)
        return fail(QStringLiteral("size %1×%2 is outside 1 … %3 pixels a side")
                        .arg(size.width())
                        .arg(size.height())
                        .arg(kMaxSide));
    if (path.isEmpty())
        return fail(QStringLiteral("empty file name"));
    const QImage image = render(chart, size);
    if (image.isNull())
        return fail(QStringLiteral("rendering failed"));
    QImageWriter writer(path, "png");
    if (!writer.write(image))
        return fail(writer.errorString());
    return true;
}

} // namespace tb::charts
