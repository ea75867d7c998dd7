#include "ChartRenderer.h"

#include <QChart>
#include <QGraphicsLayout>
#include <QGraphicsScene>
#include <QImageWriter>
#include <QPainter>

#include <memory>

namespace tb::charts {

namespace {
constexpr int kMaxSide = 16384;
constexpr int kDotsPerMeter96Dpi = 3780; // 96 dpi: the logical DPI Qt lays fonts out with
} // namespace

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
