#pragma once
/// @file ExperimentDocument.h
/// The experiment being edited as a document: the panels' experiment as JSON and back, the
/// experiment files, the title, and the session kept in the settings.

#include <engine/ExperimentSpec.h>

#include <QJsonObject>
#include <QObject>
#include <QString>
#include <QStringList>
#include <QTimer>

#include <optional>

class QMainWindow;
class QMenu;
class QSettings;

namespace tb {
class PluginRegistry;
}

namespace tb::gui {

class AlgorithmPanel;
class DatasetPanel;
class ExperimentPanel;
class TeachingView;
class WindowMessages;

/// The experiment the three set-up panels describe. Reads and writes it as an experiment file's
/// JSON (the files trainbench-cli runs); File → New, Open, Open example, Save and Save as; the
/// window's title names the file with "*" while there are unsaved changes; the panels' experiment,
/// its file and whether it is modified are written to the settings ("session/…") half a second
/// after every change, and a window started after a crash continues from them. Keeps the panels
/// consistent as they change: the data set's task chooses the algorithms that fit, noise sweeps
/// need a data set with a noise level, a sweep may set the parameters every selected algorithm
/// has. A 2-D classification experiment also sets up the teaching view. A suite (the file's
/// "datasets" or "suite", Suite.h) keeps its sets as the file wrote them: the data-set panel shows
/// the first, read-only, with a note naming them all, and experimentJson() writes the file's
/// "datasets" or "suite" back instead of a "dataset" (a "suite" path rewritten to stay right when
/// the experiment is saved in another folder). Settings key of the file dialogs' folder:
/// "lastDir". GUI thread only.
class ExperimentDocument : public QObject {
    Q_OBJECT
public:
    /// Everything given must outlive this object; @p window is its parent and shows the title.
    ExperimentDocument(const PluginRegistry& registry, QMainWindow* window, ExperimentPanel* experiment,
                       DatasetPanel* dataset, AlgorithmPanel* algorithms, TeachingView* teaching,
                       WindowMessages* messages);

    /// The experiment the panels describe, as an experiment file's JSON object (a suite's with its
    /// "datasets" or "suite" as opened).
    QJsonObject experimentJson() const;
    /// Whether the experiment is a suite (its file gave "datasets" or "suite").
    bool isSuite() const { return !m_suiteKeys.isEmpty(); }
    /// The experiment parsed and validated against the registry; nullopt with every problem (one
    /// per line, each naming its key) in @p problems.
    std::optional<ExperimentSpec> currentSpec(QStringList* problems) const;
    /// Shows @p spec in the panels (relative data paths against @p baseDir when given). Returns
    /// the problems of settings that could not be shown. Emits shown().
    QStringList setExperiment(const QJsonObject& spec, const QString& baseDir = QString());
    /// Reads @p path into the panels; false with a message naming the file when it cannot.
    bool openExperiment(const QString& path, QString* error);
    /// Writes experimentJson() to @p path atomically; the window then names it.
    bool saveExperiment(const QString& path, QString* error);
    /// The experiment file, empty for an unsaved experiment.
    QString path() const { return m_path; }
    /// True when the panels changed since the last open, save or new.
    bool isModified() const;
    /// The folder the Open and Save dialogs start in: the user's last folder, never the bundled
    /// examples' (opening an example does not change it).
    QString lastDir() const { return m_lastDir; }

    /// File → New experiment: the BPLS toy problem's noise sweep, after asking to save changes.
    void newExperiment();
    void openExperimentDialog();
    /// Save (to the file, or as a new file when there is none or it is a bundled example) or
    /// Save as. False when cancelled or the file cannot be written.
    bool saveExperimentDialog(bool saveAs);
    /// Asks to save unsaved changes (when confirmations are on); false when the user cancels.
    bool maybeSave();
    /// Fills @p menu with the bundled examples (File → Open example), disabled when there are none:
    /// one submenu per exampleGroup(), the teaching examples first (teaching-moons at the top),
    /// each example under its own name with its file and description in the tooltip.
    void addExamples(QMenu* menu);
    /// File → Open's step after the file dialog: @p path checked first (ExperimentSpec::fromFile:
    /// a file with problems is refused with them, the experiment shown and its unsaved changes
    /// untouched, no "Save changes?" asked), then maybeSave(), then openExperiment().
    void openChosenFile(const QString& path);
    /// The submenu an example file belongs to, by its name: "Teaching", a paper, the comparisons.
    static QString exampleGroup(const QString& fileName);

    /// A window's first experiment: the default one (see newExperiment()), unmodified.
    void start();
    /// Continues the last session's experiment (when the settings hold one) and names it in the
    /// title; after start() and restore().
    void continueSession();
    /// Writes the panels' experiment, its file and whether it is modified to the settings.
    void saveSession() const;
    /// The file dialogs' folder from @p settings (never a bundled examples' folder).
    void restore(const QSettings& settings);
    void save(QSettings& settings) const;

Q_SIGNALS:
    /// setExperiment() showed an experiment named @p name: what the charts show is no longer it.
    void shown(const QString& name);
    /// The experiment's kind or its data set's task may have changed (any edit of either panel).
    void setupChanged(const QString& kind, bool classification);

private:
    void restoreSession();
    void markModified();
    void updateTitle();
    void updateTaskAndKind();
    void updateSweepParameters();
    /// Takes a suite's "datasets" or "suite" out of @p spec into m_suiteKeys and names the sets in
    /// the data-set panel; returns the data set the panel shows (the suite's first, or the file's
    /// "dataset").
    QJsonObject takeSuite(QJsonObject& spec);
    /// The name the panels' experiment is parsed under: the file's name, for messages — its whole
    /// path when it names a suite file, whose path resolves against the experiment's folder.
    QString sourceName() const;
    /// m_suiteKeys' "suite" path rewritten for an experiment file in @p folder (it was relative to
    /// the data-set panel's folder).
    void rebaseSuite(const QString& folder);

    const PluginRegistry& m_registry;
    QMainWindow* m_window;
    ExperimentPanel* m_experiment;
    DatasetPanel* m_dataset;
    AlgorithmPanel* m_algorithms;
    TeachingView* m_teaching;
    WindowMessages* m_messages;
    QTimer m_sessionTimer;  ///< saves the session shortly after a change
    QString m_path;         ///< experiment file, empty when unsaved
    QString m_lastDir;      ///< folder of the last file dialog
    bool m_loading = false; ///< setExperiment() is filling the panels
    QJsonObject m_suiteKeys; ///< a suite's "datasets" or "suite" as the file wrote it; empty for one data set
};

} // namespace tb::gui
