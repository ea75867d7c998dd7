#pragma once
/// @file ComparisonPanel.h
/// "Is the difference real?" in the workbench: the result matrix with significance markers, the
/// paired tests, the time-to-target table and a param sweep's grid, for an experiment's runs or
/// runs picked in the run browser.

#include <engine/Comparison.h>
#include <engine/TextTable.h>

#include <QList>
#include <QWidget>

class QComboBox;
class QLabel;
class QLineEdit;
class QTabWidget;
class QTableWidget;

namespace tb::gui {

/// Controls on top — metric, baseline, test (paired t or Wilcoxon), α, target — and one tab per
/// table (Comparison, ComparisonTables): "Result matrix" (markers ▲ green / ▼ red), "Paired tests",
/// "Time to target", "Grid" (param sweeps), and for runs on 2 or more data sets of 2 or more
/// configurations (AcrossSets::applies(): a suite's) "Per data set" (each set's scores and ranks,
/// the winner of each row in bold green) and "Ranks" (average ranks, Friedman, Nemenyi), which
/// come forward when they begin to apply; both rank each set on its own task's default metric, as
/// the critical-difference diagram does. Each tab's notes say which test and tie band were used
/// and which runs were left out. "Copy as" puts the current table on the clipboard as text, CSV,
/// Markdown or LaTeX (what `trainbench-cli compare --format` writes). The tables are recomputed
/// when the data or a control changes (cheap: one pass over the runs' final points).
/// GUI thread only.
class ComparisonPanel : public QWidget {
    Q_OBJECT
public:
    enum Tab {
        MatrixTab = 0,
        PairsTab = 1,
        TimeTab = 2,
        GridTab = 3,
        AtTimesTab = 4,
        PerSetTab = 5, ///< across data sets: AcrossSetsTables::perSet()
        RanksTab = 6,  ///< across data sets: AcrossSetsTables::ranks()
        TabCount = 7
    };

    explicit ComparisonPanel(QWidget* parent = nullptr);

    /// Compares @p curves (an ExperimentResult's, several experiments', or picked runs grouped by
    /// configuration). Keeps the chosen metric and baseline when they still apply.
    void setCurves(const QList<AlgorithmCurves>& curves);
    const QList<AlgorithmCurves>& curves() const { return m_curves; }
    /// Empties every table.
    void clear();

    MetricId metric() const;
    void setMetric(MetricId metric);
    QString baseline() const;
    void setBaseline(const QString& configuration);
    /// Target of time-to-target; NaN = the best value every run reaches (the default).
    double target() const;

    /// The tables as last built (what the tabs show), for tests and "Copy as".
    const TextTable& table(Tab tab) const { return m_tables[tab]; }
    QTableWidget* view(Tab tab) const { return m_views[tab]; }
    QTabWidget* tabs() const { return m_tabs; }
    QComboBox* metricBox() const { return m_metric; }
    QComboBox* baselineBox() const { return m_baseline; }
    QComboBox* testBox() const { return m_test; }
    QLineEdit* targetEdit() const { return m_target; }

    /// The current tab's table in @p format.
    QString currentTableText(TextTable::Format format) const;

Q_SIGNALS:
    /// The tables were rebuilt.
    void updated();

private:
    void rebuild();
    /// The baseline when the user has not chosen one: the configuration with the best mean on
    /// the metric's validation counterpart when measured, else on the metric; @p why says which.
    QString defaultBaseline(QString* why) const;
    void fill(Tab tab, const TextTable& table);

    QList<AlgorithmCurves> m_curves;
    QComboBox* m_metric = nullptr;
    QComboBox* m_baseline = nullptr;
    QLabel* m_baselineWhy = nullptr; ///< why the default baseline is the one shown
    bool m_userBaseline = false;     ///< the user picked the baseline
    QComboBox* m_test = nullptr;
    QLineEdit* m_alpha = nullptr;
    QLineEdit* m_target = nullptr;
    QLabel* m_summary = nullptr;
    QTabWidget* m_tabs = nullptr;
    QTableWidget* m_views[TabCount] = {};
    QLabel* m_notes[TabCount] = {};
    TextTable m_tables[TabCount];
    bool m_building = false;
    bool m_acrossSets = false; ///< the last rebuild compared across data sets
};

} // namespace tb::gui
