#include "DatabaseControl.h"

#include "WindowMessages.h"
#include "runs/ExperimentController.h"
#include "runs/RunBrowser.h"

#include <store/RunStore.h>
#include <engine/SavedResult.h>

#include <QAction>
#include <QFileDialog>
#include <QFileInfo>
#include <QSettings>

namespace tb::gui {

DatabaseControl::DatabaseControl(const PluginRegistry& registry, ExperimentController* controller,
                                 RunBrowser* browser, WindowMessages* messages, QWidget* dialogParent)
    : QObject(dialogParent), m_registry(registry), m_controller(controller), m_browser(browser),
      m_messages(messages), m_dialogParent(dialogParent),
      m_openAction(new QAction(tr("Open &database…"), this)),
      m_saveResultsAction(new QAction(tr("Save &results to another database…"), this))
{
    m_saveResultsAction->setEnabled(false);
    m_saveResultsAction->setToolTip(
        tr("After the database failed during an experiment: keep its results in another file"));
}

DatabaseControl::~DatabaseControl()
{
    close();
}

void DatabaseControl::close()
{
    if (m_browser)
        m_browser->setStore(nullptr);
    m_store.reset();
}

bool DatabaseControl::openDatabase(const QString& path, QString* error)
{
    if (m_controller->isRunning()) {
        if (error)
            *error = tr("cannot change the database while an experiment runs");
        return false;
    }
    QString err;
    auto store = RunStore::open(path, &err);
    if (!store) {
        if (error)
            *error = err;
        return false;
    }
    m_browser->setStore(nullptr);
    m_controller->setStore(nullptr);
    m_store = std::move(store);
    m_controller->setStore(m_store.get());
    m_browser->setStore(m_store.get());
    m_messages->appendLog(tr("Database %1").arg(m_store->path()));
    if (m_store->interruptedOnOpen() > 0)
        m_messages->appendLog(tr("%n run(s) left running by a process that ended were marked interrupted",
                                 nullptr, m_store->interruptedOnOpen()));
    m_messages->setStatus(tr("Database: %1").arg(m_store->path()));
    // The store calls from its writer thread: queue to the GUI thread.
    connect(
        m_store.get(), &RunStore::waiting, this,
        [this](const QString& message, bool) {
            if (!message.isEmpty()) {
                m_messages->appendLog(message);
                m_messages->setStatus(message);
            }
        },
        Qt::QueuedConnection);
    connect(
        m_store.get(), &RunStore::writeFailed, this,
        [this](const QString& message) {
            m_messages->appendLog(tr("Database write failed: %1").arg(message));
        },
        Qt::QueuedConnection);
    return true;
}

bool DatabaseControl::saveResultsTo(const QString& path, QString* error)
{
    auto fail = [error](const QString& message) {
        if (error)
            *error = message;
        return false;
    };
    const ExperimentResult& result = m_controller->result();
    if (m_controller->isRunning() || (result.curves.isEmpty() && result.summary.isEmpty()))
        return fail(tr("there are no results to save"));
    if (m_store && QFileInfo(path).absoluteFilePath() == m_store->path())
        return fail(tr("%1 is the database that failed; choose another file").arg(path));
    QString err;
    auto target = RunStore::open(path, &err);
    if (!target)
        return fail(err);
    const qint64 id = saveResult(*target, m_controller->spec(), result, m_registry, &err);
    if (id < 0)
        return fail(err);
    m_messages->appendLog(tr("Results of “%1” saved to %2 as experiment %3")
                              .arg(m_controller->spec().name, target->path())
                              .arg(id));
    return true;
}

void DatabaseControl::openDatabaseDialog(const QString& fallbackFolder)
{
    const QString start = m_store ? QFileInfo(m_store->path()).absolutePath() : fallbackFolder;
    QFileDialog dialog(m_dialogParent, tr("Open or create a run database"), start,
                       tr("Run databases (*.sqlite *.db);;All files (*)"));
    dialog.setFileMode(QFileDialog::AnyFile);
    dialog.setAcceptMode(QFileDialog::AcceptOpen);
    dialog.setOption(QFileDialog::DontConfirmOverwrite);
    if (dialog.exec() != QDialog::Accepted || dialog.selectedFiles().isEmpty())
        return;
    QString error;
    if (!openDatabase(dialog.selectedFiles().first(), &error))
        m_messages->showProblems(tr("Cannot open the database"), error);
}

void DatabaseControl::saveResultsDialog(const QString& fallbackFolder)
{
    const QString start = m_store ? QFileInfo(m_store->path()).absolutePath() : fallbackFolder;
    const QString path =
        QFileDialog::getSaveFileName(m_dialogParent, tr("Save results to another database"), start,
                                     tr("Run databases (*.sqlite *.db);;All files (*)"));
    if (path.isEmpty())
        return;
    QString error;
    if (!saveResultsTo(path, &error))
        m_messages->showProblems(tr("The results could not be saved"), error);
    else
        m_messages->setStatus(tr("Results saved to %1").arg(path));
}

void DatabaseControl::experimentFinished(const ExperimentResult& result)
{
    m_saveResultsAction->setEnabled(!result.storeError.isEmpty() &&
                                    (!result.curves.isEmpty() || !result.summary.isEmpty()));
}

void DatabaseControl::restore(const QSettings& s)
{
    const QString db = s.value(QStringLiteral("database"), RunStore::defaultPath()).toString();
    QString error;
    if (!openDatabase(db, &error)) {
        m_messages->appendLog(error);
        m_messages->setStatus(tr("No run database: %1 (File → Open database…)").arg(error));
    }
}

void DatabaseControl::save(QSettings& s) const
{
    if (m_store)
        s.setValue(QStringLiteral("database"), m_store->path());
}

} // namespace tb::gui
