#include "ExperimentDocument.h"

#include "WindowMessages.h"
#include "setup/AlgorithmPanel.h"
#include "setup/DatasetPanel.h"
#include "setup/ExperimentPanel.h"
#include "teaching/TeachingView.h"
#include "widgets/ShippedFolders.h"

#include <data/DataSource.h>
#include <engine/ExperimentKind.h>
#include <engine/HostBudget.h>
#include <engine/PluginRegistry.h>
#include <engine/Suite.h>

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLineEdit>
#include <QMainWindow>
#include <QMap>
#include <QMenu>
#include <QMessageBox>
#include <QRegularExpression>
#include <QSaveFile>
#include <QSettings>

#include <algorithm>

namespace tb::gui {

namespace {

/// Folders holding the shipped example experiments: installed, then the source tree.
QStringList exampleDirs()
{
    return shippedFolders(QStringLiteral("../share/trainbench/experiments"), QStringLiteral("experiments"));
}

/// What a new experiment starts with: resources/defaults/new-experiment.json (installed beside the
/// examples), the BPLS paper's linear toy problem, whose noise sweep runs in a second, so a
/// newcomer sees a result at once. Without the file: an empty experiment of the first kind.
QJsonObject defaultExperiment()
{
    for (const QString& d : shippedFolders(QStringLiteral("../share/trainbench/defaults"), QStringLiteral("defaults"))) {
        QFile f(QDir(d).filePath(QStringLiteral("new-experiment.json")));
        if (!f.open(QIODevice::ReadOnly))
            continue;
        const QJsonDocument doc = QJsonDocument::fromJson(f.readAll());
        if (doc.isObject())
            return doc.object();
    }
    const QList<const ExperimentKind*> kinds = ExperimentKinds::all();
    return QJsonObject{{"name", "Untitled experiment"},
                       {"kind", kinds.isEmpty() ? QString() : kinds.first()->id()},
                       {"dataset", QJsonObject{{"source", "moons"}}},
                       {"seed", 1},
                       {"algorithms", QJsonArray{}}};
}

/// Whether @p path is one of the bundled examples (File → Open example).
bool isExample(const QString& path)
{
    const QString dir = QFileInfo(path).absoluteDir().canonicalPath();
    for (const QString& d : exampleDirs())
        if (!dir.isEmpty() && QDir(d).canonicalPath() == dir)
            return true;
    return false;
}

} // namespace

ExperimentDocument::ExperimentDocument(const PluginRegistry& registry, QMainWindow* window,
                                       ExperimentPanel* experiment, DatasetPanel* dataset,
                                       AlgorithmPanel* algorithms, TeachingView* teaching,
                                       WindowMessages* messages)
    : QObject(window), m_registry(registry), m_window(window), m_experiment(experiment), m_dataset(dataset),
      m_algorithms(algorithms), m_teaching(teaching), m_messages(messages)
{
    auto changed = [this] { markModified(); };
    connect(m_dataset, &DatasetPanel::changed, this, [this, changed] {
        updateTaskAndKind();
        changed();
    });
    connect(m_algorithms, &AlgorithmPanel::changed, this, changed);
    // The sweep's parameters follow the selection; a form's "Sweep this parameter…" turns the
    // experiment into a param sweep.
    connect(m_algorithms, &AlgorithmPanel::changed, this, &ExperimentDocument::updateSweepParameters);
    connect(m_algorithms, &AlgorithmPanel::sweepRequested, this,
            [this](const QString& id, const QString& key) {
                m_algorithms->setChecked(id, true);
                updateSweepParameters();
                m_experiment->sweepParameter(key);
            });
    connect(m_experiment, &ExperimentPanel::changed, this, [this, changed] {
        updateTaskAndKind();
        changed();
    });
    // Unsaved edits survive a crash: the panels are written to the settings shortly after
    // every change, and the next start continues from them.
    m_sessionTimer.setSingleShot(true);
    m_sessionTimer.setInterval(500);
    connect(&m_sessionTimer, &QTimer::timeout, this, &ExperimentDocument::saveSession);
}

bool ExperimentDocument::isModified() const
{
    return m_window->isWindowModified();
}

QJsonObject ExperimentDocument::experimentJson() const
{
    QJsonObject o = m_experiment->values();
    if (m_suiteKeys.isEmpty())
        o.insert(QStringLiteral("dataset"), m_dataset->spec());
    else // the file's sets as it wrote them; the panel shows the first, read-only
        for (auto it = m_suiteKeys.begin(); it != m_suiteKeys.end(); ++it)
            o.insert(it.key(), it.value());
    QJsonArray algs;
    // As written in a file: labels only where typed, parameters only where given or changed, so
    // a file opened and saved again keeps what it said.
    for (const AlgorithmRun& a : m_algorithms->experimentAlgorithms()) {
        QJsonObject ao{{"id", a.id}, {"params", QJsonObject::fromVariantMap(a.params)}};
        if (!a.label.isEmpty())
            ao.insert(QStringLiteral("label"), a.label);
        for (auto it = a.kindKeys.begin(); it != a.kindKeys.end(); ++it) // e.g. a tuned comparison's "search"
            ao.insert(it.key(), it.value());
        algs.append(ao);
    }
    o.insert(QStringLiteral("algorithms"), algs);
    return o;
}

std::optional<ExperimentSpec> ExperimentDocument::currentSpec(QStringList* problems) const
{
    // Every problem the panels see, all at once (not the first only), in the forms' words.
    QStringList p = m_experiment->problems();
    p << m_dataset->problems();
    if (m_algorithms->selectedAlgorithms().isEmpty())
        p << tr("algorithms: choose at least one algorithm in the Algorithms panel");
    p << m_algorithms->problems();
    std::optional<ExperimentSpec> spec;
    if (p.isEmpty()) {
        QString error;
        spec = ExperimentSpec::fromObject(experimentJson(), sourceName(), &error);
        if (!spec)
            p << m_dataset->withLabels(error);
        else {
            spec->baseDir = m_dataset->baseDir();
            spec->sourcePath = m_path;
            for (const QString& problem : spec->validate(m_registry))
                p << m_dataset->withLabels(problem);
        }
    }
    if (problems)
        *problems = p;
    if (!p.isEmpty())
        return std::nullopt;
    return spec;
}

QStringList ExperimentDocument::setExperiment(const QJsonObject& given, const QString& baseDir)
{
    const bool wasLoading = m_loading;
    m_loading = true;
    // The forms hold values of the current parameter format (the panels write it): a file of an
    // earlier one has its kind's values (a sweep's, ExperimentKind::upgradeFormat()) converted
    // here and its parameters below, each change noted.
    const int format = given.contains(QStringLiteral("format")) ? given.value(QStringLiteral("format")).toInt() : 1;
    QJsonObject spec = given;
    QStringList kindNotes;
    if (format < kParamsFormat) {
        QString ignored;  // a file that does not parse shows what the panels can take, as before
        if (auto parsed = ExperimentSpec::fromObject(given, QStringLiteral("experiment"), &ignored)) {
            parsed->sourcePath = m_path;
            ExperimentSpec kindOnly = *parsed;  // the parameters' notes come from `upgraded` below
            if (const ExperimentKind* kind = ExperimentKinds::find(parsed->kind)) {
                kind->upgradeFormat(kindOnly, m_registry, format, &kindNotes);
                QJsonObject written;
                kind->write(kindOnly, written);
                for (const QString& key : kind->sectionKeys())
                    if (written.contains(key))
                        spec.insert(key, written.value(key));
                // The entries' own keys of the kind (a tuned comparison's "search" ranges).
                QJsonArray entries = spec.value(QStringLiteral("algorithms")).toArray();
                for (int i = 0; i < entries.size() && i < kindOnly.algorithms.size(); ++i) {
                    QJsonObject entry = entries[i].toObject();
                    const QJsonObject& keys = kindOnly.algorithms[i].kindKeys;
                    for (auto it = keys.begin(); it != keys.end(); ++it)
                        entry.insert(it.key(), it.value());
                    entries[i] = entry;
                }
                spec.insert(QStringLiteral("algorithms"), entries);
            }
        }
    }
    for (const QString& note : std::as_const(kindNotes))
        m_messages->appendLog(tr("Note: %1: %2").arg(m_path.isEmpty() ? tr("experiment") : m_path, note));
    spec.insert(QStringLiteral("format"), kParamsFormat);
    if (!baseDir.isEmpty())
        m_dataset->setBaseDir(baseDir);
    const QJsonObject shownDataset = takeSuite(spec); // a suite's sets are the document's, not the Experiment panel's
    m_experiment->setValues(spec);
    ExperimentSpec upgraded; // former spellings (of parameters, of a data source's id) shown as current, noted
    upgraded.sourcePath = m_path;
    upgraded.paramsFormat = format;
    upgraded.dataset = shownDataset;
    for (const QJsonValue& v : spec.value(QStringLiteral("algorithms")).toArray()) {
        const QJsonObject a = v.toObject();
        // The entry's other keys are its kind's (a tuned comparison's "search"): kept with it.
        QJsonObject kindKeys = a;
        for (const char* k : {"id", "label", "params", "time_budget_s", "time_budget_clock"})
            kindKeys.remove(QLatin1String(k));
        upgraded.algorithms << AlgorithmRun{a.value(QStringLiteral("id")).toString(),
                                            a.value(QStringLiteral("label")).toString(),
                                            a.value(QStringLiteral("params")).toObject().toVariantMap(),
                                            HostBudget::fromJson(a, nullptr), kindKeys};
    }
    for (const QString& note : upgraded.upgradeParams(m_registry))
        m_messages->appendLog(tr("Note: %1").arg(note));
    m_dataset->setSpec(upgraded.dataset);
    // The workbench keeps one budget per experiment: algorithms' own budgets (an entry's, or bld
    // 1.1.0's time_limit, upgraded) that all agree become it when the file gives none.
    if (!spec.contains(QString::fromLatin1(kBudgetSecondsKey)) && !upgraded.algorithms.isEmpty()) {
        const std::optional<RunBudget> first = upgraded.algorithms.first().budget;
        bool same = first.has_value(), any = false;
        for (const AlgorithmRun& a : std::as_const(upgraded.algorithms)) {
            same = same && a.budget == first;
            any = any || a.budget.has_value();
        }
        if (same) {
            QJsonObject withBudget = spec;
            HostBudget::toJson(*first, withBudget);
            m_experiment->setValues(withBudget);
            m_messages->appendLog(
                tr("Note: every algorithm has the budget %1 per run: it is the experiment's").arg(HostBudget::describe(*first)));
        } else if (any) {
            m_messages->appendLog(tr("Note: the algorithms' own time budgets differ; the workbench keeps one per "
                                     "experiment: set it in the Experiment panel"));
        }
    }
    m_algorithms->setSelection(upgraded.algorithms);
    updateTaskAndKind();
    // A 2-D classification experiment also sets up the teaching view: its data set, and its
    // first two algorithms side by side (the teaching view's defaults with the file's parameters).
    const QJsonObject& ds = upgraded.dataset;
    if (TeachingView::sets().contains(ds.value(QStringLiteral("source")).toString()) &&
        !m_teaching->isRunning()) {
        m_teaching->setDataset(ds);
        m_teaching->setFromExperiment(upgraded.algorithms); // the parameters as the file gives them
    }
    m_loading = wasLoading;
    Q_EMIT shown(spec.value(QStringLiteral("name")).toString(tr("Untitled experiment")));
    QStringList problems = m_algorithms->problems();
    return problems;
}

bool ExperimentDocument::openExperiment(const QString& path, QString* error)
{
    QString err;
    const auto spec = ExperimentSpec::fromFile(path, &err); // the same check as trainbench-cli run
    if (!spec) {
        if (error)
            *error = err;
        return false;
    }
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) {
        if (error)
            *error = tr("%1: cannot open: %2").arg(path, f.errorString());
        return false;
    }
    const QJsonObject o = QJsonDocument::fromJson(f.readAll()).object();
    const QStringList problems = setExperiment(o, QFileInfo(path).absolutePath());
    m_path = QFileInfo(path).absoluteFilePath();
    // The file dialogs stay in the user's folder: a bundled example's folder is no place to save.
    if (!isExample(path))
        m_lastDir = QFileInfo(path).absolutePath();
    m_window->setWindowModified(false);
    updateTitle();
    saveSession();
    m_messages->appendLog(tr("Opened %1").arg(m_path));
    // The status bar says what happened last: an earlier "Cannot open bad3.json" is over.
    m_messages->setStatus(tr("Opened %1").arg(QFileInfo(path).fileName()));
    if (!problems.isEmpty())
        m_messages->showProblems(tr("Some settings of %1 could not be shown").arg(QFileInfo(path).fileName()),
                                 problems.join('\n'));
    return true;
}

bool ExperimentDocument::saveExperiment(const QString& path, QString* error)
{
    QSaveFile f(path);
    if (!f.open(QIODevice::WriteOnly)) {
        if (error)
            *error = tr("cannot write %1: %2").arg(path, f.errorString());
        return false;
    }
    const QString folder = QFileInfo(path).absolutePath();
    const QJsonObject keptSuite = m_suiteKeys;
    rebaseSuite(folder); // a suite file's path, as the new file's folder reaches it
    f.write(QJsonDocument(experimentJson()).toJson(QJsonDocument::Indented));
    if (!f.commit()) {
        m_suiteKeys = keptSuite;
        if (error)
            *error = tr("cannot write %1: %2").arg(path, f.errorString());
        return false;
    }
    m_path = QFileInfo(path).absoluteFilePath();
    m_lastDir = QFileInfo(path).absolutePath();
    // Relative data paths now resolve against the file's folder, as the CLI resolves them.
    m_dataset->setBaseDir(m_lastDir);
    m_window->setWindowModified(false);
    updateTitle();
    saveSession();
    m_messages->appendLog(tr("Saved %1").arg(m_path));
    return true;
}

void ExperimentDocument::newExperiment()
{
    if (!maybeSave())
        return;
    m_path.clear();
    m_loading = true;
    setExperiment(defaultExperiment(), QDir::currentPath());
    m_loading = false;
    m_window->setWindowModified(false);
    updateTitle();
    saveSession();
}

void ExperimentDocument::openExperimentDialog()
{
    const QString path = QFileDialog::getOpenFileName(m_window, tr("Open experiment"), m_lastDir,
                                                      tr("Experiment files (*.json);;All files (*)"));
    if (!path.isEmpty())
        openChosenFile(path);
}

void ExperimentDocument::openChosenFile(const QString& path)
{
    // The file is checked before "Save changes?" is asked: a file that cannot be opened leaves the
    // experiment shown as it is, with nothing to decide.
    QString error;
    if (!ExperimentSpec::fromFile(path, &error)) {
        m_messages->showProblems(tr("Cannot open %1").arg(QFileInfo(path).fileName()), error);
        return;
    }
    if (!maybeSave())
        return;
    if (!openExperiment(path, &error))
        m_messages->showProblems(tr("Cannot open %1").arg(QFileInfo(path).fileName()), error);
}

bool ExperimentDocument::saveExperimentDialog(bool saveAs)
{
    QString path = m_path;
    // Saving a bundled example means saving a copy of it in the user's folder.
    if (saveAs || path.isEmpty() || isExample(path)) {
        const QString suggestion = QDir(m_lastDir).filePath(
            (m_experiment->nameEdit()->text().trimmed().isEmpty()
                 ? QStringLiteral("experiment")
                 : m_experiment->nameEdit()->text().trimmed())
                .replace(QRegularExpression(QStringLiteral("[^A-Za-z0-9_.-]+")), QStringLiteral("-")) +
            QStringLiteral(".json"));
        path = QFileDialog::getSaveFileName(m_window, tr("Save experiment"), suggestion,
                                            tr("Experiment files (*.json)"));
        if (path.isEmpty())
            return false;
    }
    QString error;
    if (!saveExperiment(path, &error)) {
        m_messages->showProblems(tr("Cannot save the experiment"), error);
        return false;
    }
    return true;
}

bool ExperimentDocument::maybeSave()
{
    if (!m_window->isWindowModified() || !m_messages->confirmations())
        return true;
    const auto answer = QMessageBox::question(
        m_window, tr("Unsaved experiment"), tr("The experiment has unsaved changes. Save them first?"),
        QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel, QMessageBox::Save);
    if (answer == QMessageBox::Cancel)
        return false;
    if (answer == QMessageBox::Save)
        return saveExperimentDialog(false);
    return true;
}

QString ExperimentDocument::exampleGroup(const QString& fileName)
{
    // The teaching examples first, then the four papers, then the comparisons of everything.
    if (fileName.contains(QLatin1String("teaching")) || fileName.startsWith(QLatin1String("tuned-moons")))
        return tr("Teaching");
    if (fileName.startsWith(QLatin1String("bpls-")) || fileName.startsWith(QLatin1String("gradient-toy")))
        return tr("BPLS: closed-form least-squares training");
    if (fileName.startsWith(QLatin1String("lsq-")))
        return tr("Least squares revisited");
    if (fileName.startsWith(QLatin1String("bld-")))
        return tr("Block layer decomposition");
    if (fileName.startsWith(QLatin1String("dsgd-")))
        return tr("Doubly stochastic gradients");
    if (fileName.startsWith(QLatin1String("liblinear-")) || fileName.startsWith(QLatin1String("libsvm-")) ||
        fileName.startsWith(QLatin1String("sparse-")))
        return tr("LIBLINEAR, LIBSVM and sparse data");
    return tr("Comparisons and tuning");
}

void ExperimentDocument::addExamples(QMenu* examples)
{
    const QStringList order{tr("Teaching"), tr("BPLS: closed-form least-squares training"), tr("Least squares revisited"),
                            tr("Block layer decomposition"), tr("Doubly stochastic gradients"),
                            tr("Comparisons and tuning"), tr("LIBLINEAR, LIBSVM and sparse data")};
    QMap<QString, QMenu*> groups;
    for (const QString& g : order) {
        QMenu* m = examples->addMenu(g);
        m->setToolTipsVisible(true);
        groups.insert(g, m);
    }
    for (const QString& dir : exampleDirs()) {
        const QDir d(dir);
        const QStringList files = d.entryList({QStringLiteral("*.json")}, QDir::Files, QDir::Name);
        // teaching-moons first among the teaching examples: the one a class starts with.
        QStringList sorted = files;
        std::stable_sort(sorted.begin(), sorted.end(), [](const QString& a, const QString& b) {
            return a.startsWith(QLatin1String("teaching-")) && !b.startsWith(QLatin1String("teaching-"));
        });
        for (const QString& f : sorted) {
            const QString path = d.filePath(f);
            // One line per example: its own name, the file and its description in the tooltip.
            QString title = QFileInfo(f).completeBaseName(), description;
            QFile file(path);
            if (file.size() < (1 << 20) && file.open(QIODevice::ReadOnly)) {
                const QJsonObject o = QJsonDocument::fromJson(file.readAll()).object();
                if (const QString name = o.value(QLatin1String("name")).toString().trimmed(); !name.isEmpty())
                    title = name;
                description = o.value(QLatin1String("description")).toString();
            }
            QAction* a = groups.value(exampleGroup(f))->addAction(title, this, [this, path] {
                if (!maybeSave())
                    return;
                QString error;
                if (!openExperiment(path, &error))
                    m_messages->showProblems(tr("Cannot open the example"), error);
            });
            a->setObjectName(f);
            a->setToolTip(description.isEmpty() ? f
                                                : QStringLiteral("%1 — %2").arg(f, description.left(400).toHtmlEscaped()));
            a->setStatusTip(f);
        }
        if (!files.isEmpty())
            break;
    }
    for (QMenu* m : std::as_const(groups))
        if (m->isEmpty())
            examples->removeAction(m->menuAction());
    examples->setEnabled(!examples->actions().isEmpty());
}

void ExperimentDocument::start()
{
    m_loading = true;
    setExperiment(defaultExperiment());
    m_loading = false;
    m_window->setWindowModified(false);
}

void ExperimentDocument::continueSession()
{
    restoreSession();
    updateTitle();
}

void ExperimentDocument::restore(const QSettings& s)
{
    m_lastDir = s.value(QStringLiteral("lastDir"), QDir::homePath()).toString();
    if (isExample(QDir(m_lastDir).filePath(QStringLiteral("x.json"))))
        m_lastDir = QDir::homePath(); // saved by an older version that followed File → Open example
}

void ExperimentDocument::save(QSettings& s) const
{
    s.setValue(QStringLiteral("lastDir"), m_lastDir);
}

void ExperimentDocument::markModified()
{
    if (m_loading)
        return;
    m_window->setWindowModified(true);
    updateTitle();
    m_sessionTimer.start();
}

void ExperimentDocument::saveSession() const
{
    QSettings s;
    s.setValue(QStringLiteral("session/experiment"),
               QString::fromUtf8(QJsonDocument(experimentJson()).toJson(QJsonDocument::Compact)));
    s.setValue(QStringLiteral("session/baseDir"), m_dataset->baseDir());
    s.setValue(QStringLiteral("session/path"), m_path);
    s.setValue(QStringLiteral("session/modified"), m_window->isWindowModified());
}

void ExperimentDocument::restoreSession()
{
    QSettings s;
    const QString text = s.value(QStringLiteral("session/experiment")).toString();
    if (text.isEmpty())
        return;
    const QJsonObject o = QJsonDocument::fromJson(text.toUtf8()).object();
    if (o.isEmpty())
        return;
    m_loading = true;
    const QStringList problems = setExperiment(o, s.value(QStringLiteral("session/baseDir")).toString());
    m_loading = false;
    const QString path = s.value(QStringLiteral("session/path")).toString();
    m_path = !path.isEmpty() && QFileInfo::exists(path) ? path : QString();
    const bool modified =
        s.value(QStringLiteral("session/modified")).toBool() || (!path.isEmpty() && m_path.isEmpty());
    m_window->setWindowModified(modified);
    if (modified)
        m_messages->appendLog(tr("Restored the unsaved experiment of the last session"));
    for (const QString& p : problems)
        m_messages->appendLog(tr("Last session: %1").arg(p));
}

void ExperimentDocument::updateTitle()
{
    const QString name = m_path.isEmpty() ? tr("Untitled experiment") : QFileInfo(m_path).fileName();
    m_window->setWindowTitle(tr("%1[*] — Trainbench").arg(name));
    m_window->setWindowFilePath(m_path);
}

void ExperimentDocument::updateTaskAndKind()
{
    const QJsonObject ds = m_dataset->spec();
    m_algorithms->setTask(m_dataset->task());
    // What the chosen kind says of the experiment as a whole (a noise sweep of a data set without a
    // noise level …), live beside the kind's fields; the file's own syntax is the fields' business.
    QStringList kindProblems;
    QString parseError;
    if (const auto spec = ExperimentSpec::fromObject(experimentJson(), sourceName(), &parseError))
        if (const ExperimentKind* kind = ExperimentKinds::find(spec->kind))
            kindProblems = kind->validate(*spec, m_registry);
    m_experiment->setKindProblems(kindProblems);
    // The small 2-D teaching sets suggest settings that learn on them (issue 29, item 5).
    static const QStringList small2d{QStringLiteral("moons"), QStringLiteral("circles"), QStringLiteral("spirals"),
                                     QStringLiteral("xor")};
    const QString source = ds.value(QStringLiteral("source")).toString();
    m_algorithms->setSuggestion(small2d.contains(source) ? tr("a small 2-D set like %1").arg(source) : QString());
    Q_EMIT setupChanged(m_experiment->values().value(QStringLiteral("kind")).toString(),
                        m_dataset->task() == Task::Classification);
}

QJsonObject ExperimentDocument::takeSuite(QJsonObject& spec)
{
    m_suiteKeys = QJsonObject();
    for (const QString& key : {QStringLiteral("datasets"), QStringLiteral("suite")})
        if (spec.contains(key)) {
            m_suiteKeys.insert(key, spec.value(key));
            spec.remove(key); // the document writes it back, not the Experiment panel
        }
    if (m_suiteKeys.isEmpty()) {
        m_dataset->setSuite({}, {});
        return spec.value(QStringLiteral("dataset")).toObject();
    }
    // The sets as the engine reads them (ExperimentSpec::fromObject() says what is wrong when they
    // cannot be read; the note says it too, the panel then shows its defaults).
    QList<SuiteSet> sets;
    QString suiteName, problem, where;
    if (m_suiteKeys.contains(QStringLiteral("suite"))) {
        where = m_suiteKeys.value(QStringLiteral("suite")).toString();
        const QString path = QDir(m_dataset->baseDir()).absoluteFilePath(where);
        if (!Suite::readFile(path, &suiteName, &sets, &problem) && problem.isEmpty())
            problem = tr("cannot read %1").arg(path);
    } else {
        QString key;
        if (!Suite::readArray(m_suiteKeys.value(QStringLiteral("datasets")), sourceName(), &sets, &key, &problem))
            problem = key.isEmpty() ? problem : QStringLiteral("%1: %2").arg(key, problem);
    }
    QStringList names;
    for (const SuiteSet& set : std::as_const(sets))
        names << set.name;
    m_dataset->setSuite(problem.isEmpty() ? names : QStringList(), where, problem);
    return problem.isEmpty() && !sets.isEmpty() ? sets.first().dataset : QJsonObject();
}

QString ExperimentDocument::sourceName() const
{
    const QString name = m_path.isEmpty() ? tr("experiment") : QFileInfo(m_path).fileName();
    if (!m_suiteKeys.contains(QStringLiteral("suite")))
        return name;
    return QDir(m_dataset->baseDir()).absoluteFilePath(m_path.isEmpty() ? QStringLiteral("experiment.json") : name);
}

void ExperimentDocument::rebaseSuite(const QString& folder)
{
    const QString written = m_suiteKeys.value(QStringLiteral("suite")).toString();
    if (written.isEmpty() || QFileInfo(written).isAbsolute())
        return;
    const QString from = QDir(m_dataset->baseDir()).absolutePath();
    if (QDir(folder).absolutePath() == from)
        return; // the same folder: the path as the file wrote it
    const QString target = QDir::cleanPath(QDir(from).absoluteFilePath(written));
    m_suiteKeys.insert(QStringLiteral("suite"), QDir::cleanPath(QDir(folder).relativeFilePath(target)));
}

void ExperimentDocument::updateSweepParameters()
{
    // The parameters every selected algorithm has (with the first one's spec): what a sweep may set.
    QList<ParamSpec> common;
    const QList<AlgorithmRun> selected = m_algorithms->selectedAlgorithms();
    for (int i = 0; i < selected.size(); ++i) {
        const AlgorithmEntry* e = m_registry.algorithm(selected[i].id);
        if (!e)
            continue;
        if (i == 0) {
            common = e->info.schema.specs();
            continue;
        }
        common.removeIf([&](const ParamSpec& p) { return !e->info.schema.find(p.key); });
    }
    m_experiment->setParameters(common);
}

} // namespace tb::gui
