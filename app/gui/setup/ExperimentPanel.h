#pragma once
/// @file ExperimentPanel.h
/// The experiment's own settings: name, kind, repeats or σ grid, seed, thread cap, time budget.

#include <QJsonObject>
#include <QStringList>
#include <QWidget>

class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QSpinBox;

namespace tb::gui {

class SweepEditor;

/// Edits the top-level keys of an experiment file other than "dataset" and "algorithms":
///  - name (default "Untitled experiment") and kind: learning curve, noise sweep or parameter sweep;
///  - learning curve and parameter sweep: repeats (default 1, 1 … 1000);
///  - parameter sweep: the swept parameters and their values (SweepEditor, "sweep");
///  - noise sweep: the σ grid as text ("0, 0.1, 0.2" or a range "0:0.1:1"; default
///    0, 0.1, …, 1) and the Monte-Carlo count (default 100, 1 … 100 000);
///  - seed (default 1; any unsigned 64-bit integer), thread cap (default: the saved setting, else
///    all cores; 0 = all cores), time budget per run in seconds (0 = none).
/// Keys of an opened file the panel does not edit ("description", "first_repeat") are kept
/// and written back by values(). GUI thread only.
class ExperimentPanel : public QWidget {
    Q_OBJECT
public:
    explicit ExperimentPanel(QWidget* parent = nullptr);

    /// The keys this panel edits (and any kept ones) as they go into an experiment file.
    /// An unparsable σ list is written as the typed text so validation names it.
    QJsonObject values() const;
    /// Shows the keys of @p spec (an opened experiment file); missing keys get their
    /// defaults. Emits changed() once.
    void setValues(const QJsonObject& spec);
    /// Problems of the fields themselves, e.g. "sweep.sigma: \"0, x\" is not a list of numbers".
    QStringList problems() const;

    /// Whether the data set has a noise level to sweep. While it has none, a noise sweep is
    /// reported by problems() (the kind is kept, so a passing dataset edit loses nothing).
    void setNoiseSweepAvailable(bool on);
    /// Whether the kind chosen is one whose keys have fields here (the built-in kinds); another
    /// kind's keys and "sweep" are kept as the file wrote them.
    bool ownsKindKeys() const;
    bool isNoiseSweep() const;
    bool isParamSweep() const;
    /// Switches to a parameter sweep and adds @p key to its grid with suggested values (what
    /// "Sweep this parameter" in an algorithm's form does).
    void sweepParameter(const QString& key);
    /// The grid's editor; the window gives it the parameters of the selected algorithms.
    SweepEditor* sweepEditor() const { return m_sweepEditor; }
    /// The thread cap (0 = all cores).
    int threads() const;
    void setThreads(int n);

    /// Parses "0, 0.1, 0.5", "0 0.1" or "start:step:stop" (inclusive, at most 10 000 values).
    /// Returns false with a message in @p error for anything else or a negative or non-finite σ.
    static bool parseSigmas(const QString& text, QList<double>* out, QString* error);
    /// Formats σ values the way parseSigmas() reads them.
    static QString formatSigmas(const QList<double>& values);

    /// Editors, for tests.
    QComboBox* kindBox() const { return m_kind; }
    QComboBox* budgetClockBox() const { return m_budgetClock; }
    QDoubleSpinBox* budgetBox() const { return m_budget; }
    QLineEdit* sigmaEdit() const { return m_sigmas; }
    QSpinBox* repeatsBox() const { return m_repeats; }
    QSpinBox* monteCarloBox() const { return m_monteCarlo; }
    QLineEdit* seedEdit() const { return m_seed; }
    QLineEdit* nameEdit() const { return m_name; }

Q_SIGNALS:
    /// Any field changed (user edit or setValues()).
    void changed();

private:
    void updateVisibility();
    void refreshMessage();

    QLineEdit* m_name = nullptr;
    QComboBox* m_kind = nullptr;
    QSpinBox* m_repeats = nullptr;
    QLineEdit* m_sigmas = nullptr;
    QSpinBox* m_monteCarlo = nullptr;
    QLineEdit* m_seed = nullptr;
    QSpinBox* m_threads = nullptr;
    QDoubleSpinBox* m_budget = nullptr;
    QComboBox* m_budgetClock = nullptr; ///< time_budget_clock: wall or cpu
    bool m_clockWritten = false;        ///< the file gave time_budget_clock (kept even at "wall")
    QLabel* m_message = nullptr;
    QWidget* m_repeatsRow = nullptr;
    QWidget* m_sweepRows[2] = {nullptr, nullptr};
    SweepEditor* m_sweepEditor = nullptr;
    QJsonObject m_kept; ///< keys of the opened file this panel does not edit
    bool m_noiseAvailable = true;
    bool m_loading = false;
};

} // namespace tb::gui
