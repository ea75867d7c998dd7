#pragma once
/// @file TeachingView.h
/// The classroom view: decision regions of two algorithms side by side on the same 2-D set.

#include "TeachingSession.h"

#include <engine/ExperimentSpec.h>

#include <QJsonObject>
#include <QTimer>
#include <QVariantMap>
#include <QWidget>
#include <array>
#include <memory>

class QComboBox;
class QDoubleSpinBox;
class QGridLayout;
class QLabel;
class QPushButton;
class QScrollArea;
class QSlider;
class QSpinBox;
class QTableWidget;
class QToolButton;

namespace tb {
class PluginRegistry;
struct AlgorithmInfo;
}

namespace tb::gui {

class DecisionRegionWidget;
class NetworkDiagram;
class ParamForm;
class TeachingCurves;

/// Side-by-side decision regions of two algorithms on the same 2-D classification set and seed,
/// for a teacher in front of a class (anchor: TensorFlow Playground).
///
/// Data: the view's own set (its "Teaching data" controls; not the Data set panel's): moons,
/// circles, spirals, xor; samples (default 400, 20 … 5000), noise (default 0.2, 0 … 1), seed
/// (default 1).
///
/// Each side: an algorithm (every classification-capable one; default bpls.classify left and
/// gradient.adam right), its own parameter form (ParamForm, independent of the experiment's
/// Algorithms panel) starting from its plugin's teaching preset (ParamSchema::teachingPreset(): for the in-tree
/// plugins 300 epochs or iterations, a 2-16-2 tanh network, batches of 16, lr ≥ 0.01), a thread cap (default 1 each, so both
/// sides train at once on two cores), the decision regions (a 160×160 grid over the data's
/// bounding box plus 10 %), a caption "epoch 12 · train 97.5 % · test 95.0 % · 0.41 s", small
/// live accuracy and loss curves, a drawing of the network, and for BPLS a table of its latest
/// per-layer solves (under both sides, across the whole width) with its columns explained.
///
/// Playback: Train (Restart while running), Pause / Play, Step (one epoch while paused), Stop,
/// and a speed slider: the least wall time per epoch, from "fastest" to 500 ms (default 20 ms,
/// so the default 300 Adam epochs take about 6 s to watch). After the first Train, any change
/// (data, an algorithm, a parameter) retrains both sides automatically 0.4 s after the last edit.
///
/// Teaching runs go through the engine's run execution (TeachingSession) and are not stored.
/// UI thread only. Destroying the view while it trains stops both runs and waits for them at
/// most the 200 ms stop contract.
class TeachingView : public QWidget {
    Q_OBJECT
public:
    /// The 2-D classification sources the view can show: moons, circles, spirals, xor.
    static const QStringList& sets();
    /// Side of the region grid in pixels (each side is evaluated on gridSize² points).
    static constexpr int gridSize = 160;
    /// The speed slider's paces in ms per epoch, slowest last; index 0 = as fast as it trains.
    static const QList<int>& paces();

    /// @p registry must outlive the view.
    explicit TeachingView(const PluginRegistry& registry, QWidget* parent = nullptr);
    ~TeachingView() override;

    /// Selects the algorithms by id (their forms reset to the teaching preset); an id that is not
    /// a loaded classification algorithm leaves that side unchanged and says so in the status line.
    void setAlgorithms(const QString& leftId, const QString& rightId);
    /// What an experiment file of a 2-D set gives the view: its first algorithm on the left, its
    /// second on the right — or, when it names one, the right side keeps its algorithm if that is
    /// another one, else the first other loaded classification algorithm (never "Adam vs Adam").
    /// Each side's form is the algorithm's teaching preset with the file's parameters of that algorithm on
    /// top, so a file sets its own lr rather than keeping the previous file's.
    void setFromExperiment(const QList<AlgorithmRun>& algorithms);
    /// The algorithm id shown on side @p i (0 left, 1 right), empty for another @p i.
    QString algorithmId(int i) const;
    /// The parameter form of side @p i (0 left, 1 right), or nullptr.
    ParamForm* form(int i) const;
    /// A DataSource "dataset" object of a 2-D set ("moons", "circles", "spirals" or "xor"; other
    /// keys such as "test_fraction" and "standardise" are kept). Sets the data controls from its
    /// "source", "samples", "noise" and "seed". Another source or an invalid spec is refused
    /// with a message in the status line; the previous set stays.
    void setDataset(const QJsonObject& spec);
    /// The dataset object the controls describe now.
    QJsonObject datasetSpec() const;
    /// Starts both sides on the current set, seed, algorithms and forms; if they are running,
    /// stops them and restarts as soon as both have ended.
    void train();
    /// Asks both sides to stop; each ends with finished(side, "cancelled") within 200 ms.
    void stop();
    /// True while either side runs (or a restart is pending).
    bool isRunning() const;

    /// Least wall time per epoch of both sides in ms (0 = fastest). Default 20.
    void setPace(int msPerEpoch);
    int pace() const;
    /// Holds both sides at their next checkpoint (true) or lets them go on.
    void setPaused(bool on);
    bool isPaused() const;
    /// While paused: one more epoch on both sides.
    void step();

    /// 0 = left, 1 = right; nullptr for another index. For tests.
    DecisionRegionWidget* side(int i) const;
    /// The caption under side @p i ("epoch … · train … % · test … % · … s"). For tests.
    QString caption(int i) const;
    /// The per-layer solve table of side @p i (hidden when the trainer records none, and until
    /// Solver details is pressed). For tests.
    QTableWidget* solveTable(int i) const;
    /// "Solver details": shows the solve tables under the plots (off by default: a class sees the
    /// plots, captions and curves first). For tests.
    QPushButton* detailsButton() const { return m_details; }
    /// The line that says what the marks and lines mean. For tests.
    QLabel* keyLabel() const { return m_key; }
    /// The live curves and the network drawing of side @p i. For tests.
    TeachingCurves* curves(int i) const;
    NetworkDiagram* network(int i) const;
    /// The newest frame shown on side @p i (default-constructed before the first). For tests.
    TeachingFrame lastFrame(int i) const;
    /// The session that trains side @p i, or nullptr. For tests (TeachingSession::heldEpoch(),
    /// TeachingSession::setPaceClock()).
    TeachingSession* session(int i) const;

Q_SIGNALS:
    /// Side @p side has drawn the checkpoint of epoch @p epoch.
    void checkpointShown(int side, double epoch);
    /// Side @p side ended: "finished" | "cancelled" | "failed: <message>" | "diverged".
    void finished(int side, const QString& status);

private:
    struct Side {
        TeachingSession* session = nullptr;
        QComboBox* algorithm = nullptr;
        QGridLayout* pick = nullptr;  ///< the algorithm, then its controls beside or under it
        QWidget* controls = nullptr;  ///< Parameters and Threads
        QSpinBox* threads = nullptr;
        QToolButton* showForm = nullptr;
        QScrollArea* formArea = nullptr;
        ParamForm* form = nullptr;
        QLabel* title = nullptr;
        DecisionRegionWidget* region = nullptr;
        QLabel* caption = nullptr;
        TeachingCurves* curves = nullptr;
        NetworkDiagram* network = nullptr;
        QLabel* solvesTitle = nullptr; ///< whose solves the table shows (it spans both sides)
        QTableWidget* solves = nullptr;
        bool hasSolves = false; ///< the last frame recorded layer solves (shown with Solver details)
        TeachingFrame frame;
    };

    void buildSide(QGridLayout* grid, int i);
    /// Puts each side's Parameters and Threads under its algorithm when beside it the two sides
    /// would not fit the tab's width with the algorithms' names whole (a 1024-pixel screen with
    /// the docks open), and back beside it when they fit.
    void fitPicks();
    /// Lays the tab's content out at the viewport's size (at least its minimum: then it scrolls).
    void fitContent();
    bool eventFilter(QObject* watched, QEvent* event) override;
    void populateAlgorithms();
    void algorithmChosen(int i);
    bool reloadData(QString* error);
    void showFrame(int i, const TeachingFrame& frame);
    void showSolves(int i, const QJsonArray& solves);
    /// Hides side @p i's solve table, and the columns' explanation when no table is left.
    void hideSolves(int i);
    void sideFinished(int i, const QString& status);
    void updateButtons();
    void setStatus(const QString& text);
    /// A change after the first Train: retrain shortly (coalescing quick edits).
    void scheduleRetrain();

    const PluginRegistry& m_registry;
    QJsonObject m_baseSpec;
    std::shared_ptr<const data::DatasetPair> m_data;
    QRectF m_bounds;
    std::array<Side, 2> m_sides;
    bool m_restartPending = false;
    bool m_trainedOnce = false;
    bool m_paused = false;
    QTimer m_retrain;

    QComboBox* m_set = nullptr;
    QSpinBox* m_samples = nullptr;
    QDoubleSpinBox* m_noise = nullptr;
    QSpinBox* m_seed = nullptr;
    QPushButton* m_train = nullptr;
    QPushButton* m_pause = nullptr;
    QPushButton* m_step = nullptr;
    QPushButton* m_stop = nullptr;
    QSlider* m_speed = nullptr;
    QLabel* m_speedLabel = nullptr;
    QLabel* m_status = nullptr;
    QLabel* m_solvesHelp = nullptr; ///< what the solve tables' columns mean, under both sides
    QPushButton* m_details = nullptr; ///< Solver details: the solve tables shown or not
    QLabel* m_key = nullptr;          ///< filled = training data, hollow = test data, solid/dashed curves
    void applyDetails();
    QScrollArea* m_scroll = nullptr;  ///< the whole tab scrolls (vertically; never sideways at 1024 px)
    QGridLayout* m_sidesGrid = nullptr;
    bool m_picksStacked = false;
};

} // namespace tb::gui
