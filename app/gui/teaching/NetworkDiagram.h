#pragma once
/// @file NetworkDiagram.h
/// A drawing of a feed-forward network: layers, units, connections.

#include <QJsonArray>
#include <QList>
#include <QPair>
#include <QRectF>
#include <QString>
#include <QWidget>

namespace tb::gui {

/// Draws the network a trainer describes in its "network" fact ("2-16-16-2, tanh/softmax,
/// bias": layer widths, activations, bias) as columns of units joined by their connections,
/// at most 10 units a layer (the rest are counted, "… 40 more"). When the trainer also reports
/// per-layer solves ("layer_solves", BPLS), each layer's connections are coloured by the
/// relative residual ‖AW − B‖/‖B‖ of its latest solve — green near 0 (the layer meets its
/// targets), through orange to red at 1 — and redrawn as the sweeps go on; otherwise they are
/// grey. The trainer API gives no access to the weights themselves, so they are not drawn.
/// GUI thread only.
class NetworkDiagram : public QWidget {
    Q_OBJECT
public:
    explicit NetworkDiagram(QWidget* parent = nullptr);

    /// Parses @p network ("2-16-2, tanh/softmax, bias"); false (and nothing drawn) when it is
    /// not such a description.
    bool setNetwork(const QString& network);
    /// The latest per-layer solves (BPLS's "layer_solves"); empty for none.
    void setLayerSolves(const QJsonArray& solves);
    /// Layer widths parsed from the description, input first.
    QList<int> layers() const { return m_layers; }
    /// Residual of layer @p i's latest solve, NaN when none.
    double residual(int layer) const;

    /// Where the texts go in the current size: [0] the activations at the top right, then one
    /// label per layer that fits (the width alone, "16", when "16 (… 6 more)" would reach the
    /// next one; none when even that would) — no two overlap, and none lies over the units and
    /// connections (drawingArea()). For tests and paintEvent().
    QList<QPair<QRectF, QString>> textPlacement() const;
    /// Where the units and connections are drawn.
    QRectF drawingArea() const;

    QSize sizeHint() const override { return {320, 140}; }
    QSize minimumSizeHint() const override { return {120, 80}; }

protected:
    void paintEvent(QPaintEvent* event) override;

private:
    QList<int> m_layers;
    QString m_activations;
    QString m_description;
    QJsonArray m_solves;
};

} // namespace tb::gui
