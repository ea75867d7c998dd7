#pragma once
/// @file TeachingView.h
/// The classroom view: decision regions of two algorithms side by side on the same 2-D set.

#include "TeachingSession.h"

#include <QJsonObject>
#include <QVariantMap>
#include <QWidget>
#include <array>
#include <functional>
#include <memory>

class QComboBox;
class QDoubleSpinBox;
class QGridLayout;
class QLabel;
class QPushButton;
class QSpinBox;
class QTableWidget;

namespace tb {
class PluginRegistry;
}

namespace tb::gui {

class DecisionRegionWidget;

/// Side-by-side decision regions of two algorithms on the same 2-D classification set and seed.
///
/// Controls: set (moons, circles, spirals, xor), samples (default 400, 20 … 5000), noise
/// (default 0.1, 0 … 1), seed (default 1), left and right algorithm (every classification-
/// capable algorithm of the registry; default bpls.classify left and gradient.adam right when
/// loaded), a thread cap per side (default 1 each, so both sides train concurrently on two
/// cores), Train and Stop. Each side shows a DecisionRegionWidget (a 160×160 grid over the
/// data's bounding box plus 10 %), a caption "epoch 12 · train 97.5 % · test 95.0 % · 0.41 s"
/// and, when the trainer records "layer_solves" (BPLS), a table of its latest per-layer solves.
/// Sides are redrawn at each checkpoint, at most 20 times a second each.
///
/// Teaching runs are demonstrations: nothing is written to the run store. UI thread only.
/// Destroying the view while it trains stops both runs and waits for them at most the 200 ms
/// stop contract (see TeachingSession).
class TeachingView : public QWidget {
    Q_OBJECT
public:
    /// The 2-D classification sources the view can show: moons, circles, spirals, xor.
    static const QStringList& sets();

    /// Side of the region grid in pixels (each side is evaluated on gridSize² points).
    static constexpr int gridSize = 160;

    /// @p registry must outlive the view.
    explicit TeachingView(const PluginRegistry& registry, QWidget* parent = nullptr);
    ~TeachingView() override;

    /// Where the view gets an algorithm's parameters (the main window passes its forms'
    /// values); they are normalised by the algorithm's schema. Default (or an empty function):
    /// the schema defaults.
    void setParamsProvider(std::function<QVariantMap(const QString& algorithmId)> provider);
    /// Selects the algorithms by id; an id that is not a loaded classification algorithm leaves
    /// that side unchanged and says so in the status line. Takes effect at the next train().
    void setAlgorithms(const QString& leftId, const QString& rightId);
    /// A DataSource "dataset" object of a 2-D set ("moons", "circles", "spirals" or "xor"; other
    /// keys such as "test_fraction" and "standardise" are kept). Sets the controls from its
    /// "source", "samples", "noise" and "seed". Another source or an invalid spec is refused
    /// with a message in the status line; the previous set stays.
    void setDataset(const QJsonObject& spec);
    /// The dataset object the controls describe now.
    QJsonObject datasetSpec() const;
    /// Starts both sides on the current set, seed and algorithms; if they are running, stops
    /// them and restarts as soon as both have ended.
    void train();
    /// Asks both sides to stop; each ends with finished(side, "cancelled") within 200 ms.
    void stop();
    /// True while either side runs (or a restart is pending).
    bool isRunning() const;

    /// 0 = left, 1 = right; nullptr for another index. For tests.
    DecisionRegionWidget* side(int i) const;
    /// The caption under side @p i ("epoch … · train … % · test … % · … s"). For tests.
    QString caption(int i) const;
    /// The per-layer solve table of side @p i (hidden when the trainer records none). For tests.
    QTableWidget* solveTable(int i) const;
    /// The newest frame shown on side @p i (default-constructed before the first). For tests.
    TeachingFrame lastFrame(int i) const;

Q_SIGNALS:
    /// Side @p side has drawn the checkpoint of epoch @p epoch.
    void checkpointShown(int side, double epoch);
    /// Side @p side ended: "finished" | "cancelled" | "failed: <message>" | "diverged".
    void finished(int side, const QString& status);

private:
    struct Side {
        TeachingSession* session = nullptr;
        QComboBox* algorithm = nullptr;
        QSpinBox* threads = nullptr;
        QLabel* title = nullptr;
        DecisionRegionWidget* region = nullptr;
        QLabel* caption = nullptr;
        QTableWidget* solves = nullptr;
        TeachingFrame frame;
    };

    void buildSide(QGridLayout* grid, int i);
    void populateAlgorithms();
    bool reloadData(QString* error);
    void showFrame(int i, const TeachingFrame& frame);
    void sideFinished(int i, const QString& status);
    void updateButtons();
    void setStatus(const QString& text);

    const PluginRegistry& m_registry;
    std::function<QVariantMap(const QString&)> m_paramsProvider;
    QJsonObject m_baseSpec;
    std::shared_ptr<const data::DatasetPair> m_data;
    QRectF m_bounds;
    std::array<Side, 2> m_sides;
    bool m_restartPending = false;

    QComboBox* m_set = nullptr;
    QSpinBox* m_samples = nullptr;
    QDoubleSpinBox* m_noise = nullptr;
    QSpinBox* m_seed = nullptr;
    QPushButton* m_train = nullptr;
    QPushButton* m_stop = nullptr;
    QLabel* m_status = nullptr;
};

} // namespace tb::gui
