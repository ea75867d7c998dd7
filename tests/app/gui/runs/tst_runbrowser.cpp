// RunBrowser against a prepared run database: every run listed with its status and final metrics,
// selection through experiments, deletes reaching the store, CSV export read back, the actions'
// signals, and refresh() picking up runs another RunStore wrote.

#include "runs/RunBrowser.h"
#include "runs/RunFilterModel.h"
#include "runs/RunTreeModel.h"
#include "widgets/LatestJob.h"

#include <engine/ResultCsv.h>
#include <store/RunStore.h>
#include <store/RunStoreOwner.h>

#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QFile>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QProcess>
#include <QPushButton>
#include <QTimer>
#include <QSignalSpy>
#include <QSqlDatabase>
#include <QSqlQuery>
#include <QTemporaryDir>
#include <QTreeView>
#include <QtTest>

#include <cmath>
#include <memory>

using namespace tb;
using namespace tb::gui;

namespace {

/// Splits one CSV line (RFC 4180 quoting, no embedded newlines in this data).
QStringList parseCsvLine(const QString& line)
{
    QStringList fields;
    QString cur;
    bool quoted = false;
    for (int i = 0; i < line.size(); ++i) {
        const QChar c = line[i];
        if (quoted) {
            if (c == QLatin1Char('"') && i + 1 < line.size() && line[i + 1] == QLatin1Char('"')) {
                cur += c;
                ++i;
            } else if (c == QLatin1Char('"')) {
                quoted = false;
            } else {
                cur += c;
            }
        } else if (c == QLatin1Char('"')) {
            quoted = true;
        } else if (c == QLatin1Char(',')) {
            fields << cur;
            cur.clear();
        } else {
            cur += c;
        }
    }
    fields << cur;
    return fields;
}

MetricPoint point(int seq, double acc)
{
    MetricPoint p;
    p.seq = seq;
    p.epoch = seq + 1;
    p.trainTime = 0.125 * (seq + 1);
    p.loss = 1.0 / (seq + 2);
    p.trainAccuracy = acc + 0.01;
    p.testAccuracy = acc;
    return p;
}

const QDateTime T0 = QDateTime(QDate(2026, 3, 1), QTime(10, 0, 0), Qt::UTC);

} // namespace

class TestRunBrowser : public QObject {
    Q_OBJECT

    std::unique_ptr<QTemporaryDir> m_dir;
    std::unique_ptr<RunStore> m_store;
    std::unique_ptr<RunBrowser> m_browser;
    qint64 m_expA = -1, m_expB = -1;
    qint64 m_finished = -1, m_cancelled = -1, m_failed = -1, m_diverged = -1, m_interrupted = -1,
           m_regression = -1, m_running = -1;

    qint64 addRun(qint64 exp, const QString& label, RunStatus status, int seconds, const QJsonObject& final,
                  const QString& error = {}, std::uint64_t seed = 42)
    {
        RunRecord r;
        r.experimentId = exp;
        r.algorithmId = QStringLiteral("gradient.adam");
        r.algorithmName = label;
        r.pluginId = QStringLiteral("gradient");
        r.pluginVersion = QStringLiteral("1.4.0");
        r.params = {{QStringLiteral("lr"), 0.001}, {QStringLiteral("hidden"), QVariantList{64, 32}}};
        r.dataset = QStringLiteral("bpls-toy-linear σ=0.1");
        r.seed = seed;
        r.threads = 2;
        r.status = status;
        r.error = error;
        r.started = T0;
        if (status != RunStatus::Running)
            r.ended = T0.addSecs(seconds);
        r.info = {{QStringLiteral("rank"), 17}};
        if (!final.isEmpty())
            r.info.insert(QStringLiteral("final"), final);
        r.appVersion = QStringLiteral("0.1.0");
        const qint64 id = m_store->createRun(r);
        if (id < 0)
            qFatal("createRun failed: %s", qPrintable(m_store->lastError()));
        return id;
    }

    QTreeView* view() const { return m_browser->findChild<QTreeView*>(QStringLiteral("runTree")); }
    QAction* action(const char* name) const { return m_browser->findChild<QAction*>(QLatin1String(name)); }
    RunTreeModel* treeModel() const { return qobject_cast<RunTreeModel*>(m_browser->model()); }

    /// Display text of run @p id in @p column of the (unfiltered) model.
    QString cell(qint64 id, int column) const
    {
        return treeModel()->indexOfRun(id, column).data().toString();
    }

private Q_SLOTS:
    void init()
    {
        m_dir = std::make_unique<QTemporaryDir>();
        QVERIFY(m_dir->isValid());
        QString error;
        m_store = RunStore::open(m_dir->filePath(QStringLiteral("runs.sqlite")), &error);
        QVERIFY2(m_store, qPrintable(error));

        ExperimentRecord a;
        a.name = QStringLiteral("Toy curve");
        a.kind = QStringLiteral("learning-curve");
        a.spec = {{QStringLiteral("name"), a.name}, {QStringLiteral("seed"), 7}, {QStringLiteral("threads"), 2}};
        a.created = T0;
        m_expA = m_store->createExperiment(a);
        ExperimentRecord b;
        b.name = QStringLiteral("Friedman regression");
        b.kind = QStringLiteral("learning-curve");
        b.created = T0.addSecs(60);
        m_expB = m_store->createExperiment(b);
        QVERIFY(m_expA >= 0 && m_expB >= 0);

        const QJsonObject accFinal{{QStringLiteral("train_accuracy"), 0.9475},
                                   {QStringLiteral("test_accuracy"), 0.9375},
                                   {QStringLiteral("train_seconds"), 0.375}};
        // A comma and quotes in the label exercise the CSV quoting.
        m_finished = addRun(m_expA, QStringLiteral("Adam, \"fast\""), RunStatus::Finished, 3, accFinal);
        m_cancelled = addRun(m_expA, QStringLiteral("SGD"), RunStatus::Cancelled, 1,
                             {{QStringLiteral("test_accuracy"), 0.5}, {QStringLiteral("train_accuracy"), 0.625}});
        m_failed = addRun(m_expA, QStringLiteral("BPLS"), RunStatus::Failed, 0, {},
                          QStringLiteral("layer 2: Gram matrix is singular"));
        m_diverged = addRun(m_expA, QStringLiteral("RMSProp"), RunStatus::Diverged, 2, {},
                            QStringLiteral("loss became NaN at epoch 3"), 18446744073709551615ULL);
        m_interrupted = addRun(m_expB, QStringLiteral("L-BFGS"), RunStatus::Interrupted, 5, {});
        m_regression = addRun(m_expB, QStringLiteral("Ridge"), RunStatus::Finished, 125,
                              {{QStringLiteral("train_rmse"), 0.123456}, {QStringLiteral("test_rmse"), 0.25}});
        m_running = addRun(m_expB, QStringLiteral("Adam live"), RunStatus::Running, 0, {});
        for (int s = 0; s < 3; ++s)
            m_store->appendMetric(m_finished, point(s, 0.8 + 0.05 * s));
        m_store->appendMetric(m_cancelled, point(0, 0.5));
        for (int s = 0; s < 2; ++s) {
            MetricPoint p;
            p.seq = s;
            p.epoch = 0.5 * (s + 1);
            p.trainTime = 0.1 * (s + 1);
            p.trainRmse = 0.3 - 0.1 * s;
            p.testRmse = 0.35 - 0.1 * s;
            m_store->appendMetric(m_regression, p);
        }
        QVERIFY(m_store->flush());

        m_browser = std::make_unique<RunBrowser>();
        m_browser->setConfirmDeletes(false);
        m_browser->resize(900, 600);
        m_browser->setStore(m_store.get());
        QVERIFY(m_browser->waitUntilIdle()); // reads and filters run off the GUI thread
    }

    void cleanup()
    {
        m_browser.reset();
        m_store.reset();
        m_dir.reset();
    }

    void listsEveryRunWithStatusAndFinalMetrics()
    {
        RunTreeModel* model = treeModel();
        QVERIFY(model);
        QCOMPARE(model->rowCount(), 2);
        QCOMPARE(model->rowCount(model->indexOfExperiment(m_expA)), 4);
        QCOMPARE(model->rowCount(model->indexOfExperiment(m_expB)), 3);
        QVERIFY(model->indexOfExperiment(m_expA).data().toString().startsWith(QStringLiteral("Toy curve")));

        const QList<QPair<qint64, QString>> statuses{{m_finished, "finished"},   {m_cancelled, "cancelled"},
                                                     {m_failed, "failed"},       {m_diverged, "diverged"},
                                                     {m_interrupted, "interrupted"}, {m_regression, "finished"},
                                                     {m_running, "running"}};
        for (const auto& [id, name] : statuses) {
            QCOMPARE(cell(id, RunTreeModel::StatusColumn), name);
            // Each status has its own colour so failures stand out.
            QCOMPARE(model->indexOfRun(id, RunTreeModel::StatusColumn).data(Qt::ForegroundRole).value<QColor>(),
                     RunTreeModel::statusColor(runStatusFromName(name)));
        }
        QVERIFY(RunTreeModel::statusColor(RunStatus::Failed) != RunTreeModel::statusColor(RunStatus::Finished));

        // Final metrics as the CLI prints them: accuracy in % with 2 decimals, RMSE with 4 digits.
        QCOMPARE(cell(m_finished, RunTreeModel::TrainColumn), QStringLiteral("94.75%"));
        QCOMPARE(cell(m_finished, RunTreeModel::TestColumn), QStringLiteral("93.75%"));
        QCOMPARE(cell(m_cancelled, RunTreeModel::TestColumn), QStringLiteral("50.00%"));
        QCOMPARE(cell(m_regression, RunTreeModel::TrainColumn), QStringLiteral("RMSE 0.1235"));
        QCOMPARE(cell(m_regression, RunTreeModel::TestColumn), QStringLiteral("RMSE 0.25"));
        QCOMPARE(cell(m_failed, RunTreeModel::TestColumn), QStringLiteral("-"));

        QCOMPARE(cell(m_finished, RunTreeModel::DurationColumn), QStringLiteral("3.00 s"));
        QCOMPARE(cell(m_regression, RunTreeModel::DurationColumn), QStringLiteral("2 min 05 s"));
        QCOMPARE(cell(m_running, RunTreeModel::DurationColumn), QStringLiteral("-"));
        QCOMPARE(cell(m_diverged, RunTreeModel::SeedColumn), QStringLiteral("18446744073709551615"));
        QCOMPARE(cell(m_finished, RunTreeModel::ThreadsColumn), QStringLiteral("2"));
        QCOMPARE(cell(m_finished, RunTreeModel::StartedColumn),
                 T0.toLocalTime().toString(QStringLiteral("yyyy-MM-dd hh:mm")));

        // Errors, parameters, facts and versions reach the tooltip and the details pane.
        const QModelIndex failed = model->indexOfRun(m_failed);
        QVERIFY(failed.data(Qt::ToolTipRole).toString().contains(QStringLiteral("Gram matrix is singular")));
        const QString details = failed.data(RunTreeModel::DetailsRole).toString();
        for (const char* needle : {"Gram matrix is singular", "&quot;lr&quot;", "0.001", "&quot;rank&quot;",
                                   "gradient 1.4.0", "0.1.0"})
            QVERIFY2(details.contains(QLatin1String(needle)), needle);

        // The experiment row sums up its runs.
        const QModelIndex summary = model->indexOfExperiment(m_expA, RunTreeModel::StatusColumn);
        QCOMPARE(summary.data().toString(), QStringLiteral("1/4 finished"));
        QVERIFY(summary.data(Qt::ToolTipRole).toString().contains(
            QStringLiteral("1 finished, 1 cancelled, 1 failed, 1 diverged")));
        QCOMPARE(summary.data(Qt::ForegroundRole).value<QColor>(), RunTreeModel::statusColor(RunStatus::Failed));
        QCOMPARE(model->indexOfExperiment(m_expB, RunTreeModel::StatusColumn).data().toString(),
                 QStringLiteral("1/3 finished, 1 running"));
        QCOMPARE(model->indexOfExperiment(m_expA, RunTreeModel::SeedColumn).data().toString(), QStringLiteral("7"));
    }

    void selectingAnExperimentSelectsItsRuns()
    {
        QSignalSpy changed(m_browser.get(), &RunBrowser::selectionChanged);
        m_browser->setSelection({m_expA}, {});
        QCOMPARE(m_browser->selectedRunIds(), (QList<qint64>{m_finished, m_cancelled, m_failed, m_diverged}));
        QCOMPARE(m_browser->selectedExperimentIds(), QList<qint64>{m_expA});
        QCOMPARE(changed.count(), 1);

        // A run of the other experiment besides: its run is added, the experiment is not.
        m_browser->setSelection({m_expA}, {m_regression});
        QCOMPARE(m_browser->selectedRunIds(),
                 (QList<qint64>{m_finished, m_cancelled, m_failed, m_diverged, m_regression}));
        QCOMPARE(m_browser->selectedExperimentIds(), QList<qint64>{m_expA});

        // A mouse click on experiment B's row selects B and only B.
        m_browser->show();
        QVERIFY(QTest::qWaitForWindowExposed(m_browser.get()));
        QTreeView* v = view();
        auto* proxy = qobject_cast<QSortFilterProxyModel*>(v->model());
        QVERIFY(proxy);
        const QModelIndex b = proxy->mapFromSource(treeModel()->indexOfExperiment(m_expB));
        QTest::mouseClick(v->viewport(), Qt::LeftButton, {}, v->visualRect(b).center());
        QCOMPARE(m_browser->selectedExperimentIds(), QList<qint64>{m_expB});
        QCOMPARE(m_browser->selectedRunIds(), (QList<qint64>{m_interrupted, m_regression, m_running}));
    }

    void deleteSelectedRemovesFromStoreAndModel()
    {
        m_browser->setSelection({m_expA}, {m_interrupted});
        QCOMPARE(m_browser->deleteSelected(), 2);
        QVERIFY(m_browser->waitUntilIdle()); // reads and filters run off the GUI thread
        QVERIFY(!m_store->experiment(m_expA));
        for (qint64 id : {m_finished, m_cancelled, m_failed, m_diverged, m_interrupted})
            QVERIFY2(!m_store->run(id), qPrintable(QString::number(id)));
        QVERIFY(m_store->metrics(m_finished).isEmpty());
        QVERIFY(m_store->run(m_regression));

        RunTreeModel* model = treeModel();
        QCOMPARE(model->rowCount(), 1);
        QVERIFY(!model->indexOfExperiment(m_expA).isValid());
        QVERIFY(!model->indexOfRun(m_interrupted).isValid());
        QCOMPARE(model->rowCount(model->indexOfExperiment(m_expB)), 2);
        QVERIFY(m_browser->selectedRunIds().isEmpty());
    }

    void deleteAsksFirstNamingWhatGoes()
    {
        m_browser->setConfirmDeletes(true);
        m_browser->setSelection({m_expA}, {m_interrupted});
        QString text;
        // The dialog is modal: answer it from the event loop it runs.
        auto answer = [&text](const QString& button) {
            QTimer::singleShot(0, [&text, button] {
                auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget());
                QVERIFY(box);
                text = box->text() + QLatin1Char('\n') + box->informativeText();
                for (QAbstractButton* b : box->buttons())
                    if (b->text().remove(QLatin1Char('&')) == button)
                        b->click();
            });
        };
        answer(QStringLiteral("Cancel"));
        QCOMPARE(m_browser->deleteSelected(), 0);
        QVERIFY(m_browser->waitUntilIdle()); // reads and filters run off the GUI thread
        QVERIFY(m_store->experiment(m_expA));
        QVERIFY(m_store->run(m_interrupted));
        QVERIFY2(text.contains(QStringLiteral("1 experiment with its 4 runs: “Toy curve”")), qPrintable(text));
        QVERIFY2(text.contains(QStringLiteral("1 run: %1 “L-BFGS”").arg(m_interrupted)), qPrintable(text));

        answer(QStringLiteral("Delete"));
        QCOMPARE(m_browser->deleteSelected(), 2);
        QVERIFY(m_browser->waitUntilIdle()); // reads and filters run off the GUI thread
        QVERIFY(!m_store->experiment(m_expA));
        QVERIFY(!m_store->run(m_interrupted));
    }

    // Issue 29, item 10: the details pane kept showing a run with nothing selected.
    void detailsAreClearedWhenNothingIsSelected()
    {
        m_browser->setSelection({}, {m_running});
        QVERIFY(!m_browser->detailsHtml().contains("Select an experiment"));
        view()->selectionModel()->clearSelection();
        QVERIFY2(m_browser->detailsHtml().contains("Select an experiment"), qPrintable(m_browser->detailsHtml().left(300)));
    }

    void runningRunsAreNeverDeleted()
    {
        // The runner still writes to a running run: deleting it would make its writes fail.
        m_browser->setSelection({}, {m_running});
        QCOMPARE(m_browser->deleteSelected(), 0);
        QVERIFY(m_browser->waitUntilIdle()); // reads and filters run off the GUI thread
        QVERIFY(m_store->run(m_running));
        m_browser->setSelection({m_expB}, {});
        QCOMPARE(m_browser->deleteSelected(), 0);
        QVERIFY(m_browser->waitUntilIdle()); // reads and filters run off the GUI thread
        QVERIFY(m_store->experiment(m_expB));
        QCOMPARE(treeModel()->rowCount(treeModel()->indexOfExperiment(m_expB)), 3);
    }

    void deleteKeyDeletesTheSelection()
    {
        m_browser->show();
        QApplication::setActiveWindow(m_browser.get());
        QVERIFY(QTest::qWaitForWindowActive(m_browser.get()));
        view()->setFocus();
        m_browser->setSelection({}, {m_cancelled});
        QTest::keyClick(view(), Qt::Key_Delete);
        QVERIFY(m_browser->waitUntilIdle()); // reads and filters run off the GUI thread
        QVERIFY(!m_store->run(m_cancelled));
        QVERIFY(!treeModel()->indexOfRun(m_cancelled).isValid());
        QVERIFY(m_store->run(m_finished));
    }

    void exportWritesOneLinePerCheckpoint()
    {
        m_browser->setSelection({m_expA}, {m_regression});
        const QString path = m_dir->filePath(QStringLiteral("export.csv"));
        QString error;
        QVERIFY2(m_browser->exportSelectedCsv(path, &error), qPrintable(error));

        QFile f(path);
        QVERIFY(f.open(QIODevice::ReadOnly | QIODevice::Text));
        const QStringList lines = QString::fromUtf8(f.readAll()).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        const QStringList header = parseCsvLine(lines.value(0));
        // The one format of the CLI and the workbench (ResultCsv, docs/cli.md).
        QCOMPARE(header, ResultCsv::columns());
        auto col = [&](const QStringList& f, const char* name) { return f.value(int(header.indexOf(QLatin1String(name)))); };
        // 3 checkpoints of the finished run, 1 of the cancelled one, 2 of the regression run;
        // the failed and the diverged run have none and get one row each: no run is left out.
        QCOMPARE(lines.size(), 1 + 3 + 1 + 2 + 2);
        QMap<qint64, QVector<MetricPoint>> seen;
        QStringList withoutPoints;
        for (int i = 1; i < lines.size(); ++i) {
            const QStringList f = parseCsvLine(lines[i]);
            QCOMPARE(f.size(), header.size());
            const qint64 run = col(f, "run_id").toLongLong();
            if (col(f, "seq").isEmpty()) {
                withoutPoints << col(f, "status");
                continue;
            }
            MetricPoint p;
            p.seq = col(f, "seq").toInt();
            p.epoch = col(f, "epoch").toDouble();
            p.trainTime = col(f, "train_time_s").toDouble();
            p.loss = col(f, "loss").isEmpty() ? NaN : col(f, "loss").toDouble();
            p.testAccuracy = col(f, "test_accuracy").isEmpty() ? NaN : col(f, "test_accuracy").toDouble();
            p.testRmse = col(f, "test_rmse").isEmpty() ? NaN : col(f, "test_rmse").toDouble();
            seen[run] << p;
            if (run == m_finished) {
                QCOMPARE(col(f, "experiment_id"), QString::number(m_expA));
                QCOMPARE(col(f, "label"), QStringLiteral("Adam, \"fast\""));
                QCOMPARE(col(f, "algorithm_id"), QStringLiteral("gradient.adam"));
                QCOMPARE(col(f, "seed"), QStringLiteral("42"));
                QCOMPARE(col(f, "repeat"), QStringLiteral("0")); // 0-based, as first_repeat
                QCOMPARE(col(f, "status"), QStringLiteral("finished"));
            }
        }
        QCOMPARE(withoutPoints, (QStringList{"failed", "diverged"}));
        QCOMPARE(seen.keys(), (QList<qint64>{m_finished, m_cancelled, m_regression}));
        // Shortest round-trip formatting: the values read back are the very doubles stored.
        for (qint64 run : seen.keys()) {
            const QVector<MetricPoint> stored = m_store->metrics(run);
            QCOMPARE(seen[run].size(), stored.size());
            for (int i = 0; i < stored.size(); ++i) {
                QCOMPARE(seen[run][i].seq, stored[i].seq);
                QCOMPARE(seen[run][i].epoch, stored[i].epoch);
                QCOMPARE(seen[run][i].trainTime, stored[i].trainTime);
                QVERIFY(std::isnan(stored[i].testAccuracy) ? std::isnan(seen[run][i].testAccuracy)
                                                          : seen[run][i].testAccuracy == stored[i].testAccuracy);
                QVERIFY(std::isnan(stored[i].testRmse) ? std::isnan(seen[run][i].testRmse)
                                                      : seen[run][i].testRmse == stored[i].testRmse);
            }
        }
    }

    void exportErrorsAreReported()
    {
        QString error;
        m_browser->setSelection({}, {});
        QVERIFY(!m_browser->exportSelectedCsv(m_dir->filePath(QStringLiteral("none.csv")), &error));
        QVERIFY2(error.contains(QStringLiteral("no runs")), qPrintable(error));

        m_browser->setSelection({}, {m_finished});
        const QString bad = m_dir->filePath(QStringLiteral("missing-dir/x.csv"));
        QVERIFY(!m_browser->exportSelectedCsv(bad, &error));
        QVERIFY2(error.contains(bad), qPrintable(error));
        QVERIFY(!QFile::exists(bad));
    }

    void actionsEmitTheirSignals()
    {
        QSignalSpy overlay(m_browser.get(), &RunBrowser::overlayRequested);
        QSignalSpy rerun(m_browser.get(), &RunBrowser::rerunRequested);
        QSignalSpy rerunExp(m_browser.get(), &RunBrowser::rerunExperimentRequested);
        QAction* show = action("showOnChartsAction");
        QAction* again = action("rerunAction");
        QAction* againExp = action("rerunExperimentAction");
        QVERIFY(show && again && againExp);

        QVERIFY(!show->isEnabled()); // nothing selected yet
        m_browser->setSelection({}, {m_finished, m_regression});
        QVERIFY(show->isEnabled());
        QVERIFY(!again->isEnabled()); // re-run needs exactly one row
        show->trigger();
        QCOMPARE(overlay.count(), 1);
        QCOMPARE(overlay.at(0).at(0).value<QList<qint64>>(), (QList<qint64>{m_finished, m_regression}));

        m_browser->setSelection({}, {m_failed});
        again->trigger();
        QCOMPARE(rerun.count(), 1);
        QCOMPARE(rerun.at(0).at(0).toLongLong(), m_failed);
        againExp->trigger();
        QCOMPARE(rerunExp.count(), 1);
        QCOMPARE(rerunExp.at(0).at(0).toLongLong(), m_expA);

        // Issue 18: buttons never change meaning with the selection. On an experiment row
        // "Re-run run" is disabled (it used to turn into a whole-experiment re-run), and
        // "Re-run experiment…" asks first.
        const QString againText = again->text(), againExpText = againExp->text();
        m_browser->setSelection({m_expB}, {});
        QVERIFY(!again->isEnabled());
        QCOMPARE(again->text(), againText);
        QCOMPARE(againExp->text(), againExpText);
        again->trigger();
        QCOMPARE(rerun.count(), 1);
        QCOMPARE(rerunExp.count(), 1);
        againExp->trigger();
        QCOMPARE(rerunExp.count(), 2);
        QCOMPARE(rerunExp.at(1).at(0).toLongLong(), m_expB);
        m_browser->setConfirmDeletes(true);
        QTimer::singleShot(0, [] {
            if (auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget())) {
                QVERIFY(box->text().contains("again?"));
                box->reject(); // Cancel
            }
        });
        againExp->trigger();
        QCOMPARE(rerunExp.count(), 2); // cancelled: nothing started
        m_browser->setConfirmDeletes(false);

        // Double-clicking a run overlays it.
        m_browser->show();
        QVERIFY(QTest::qWaitForWindowExposed(m_browser.get()));
        m_browser->setSelection({}, {m_regression});
        QTreeView* v = view();
        const QRect r = v->visualRect(v->selectionModel()->selectedRows().value(0));
        QVERIFY(r.isValid());
        // QTest's widget double-click sends only the MouseButtonDblClick event; a real one
        // follows a click, which the view needs to accept it as a double-click on that row.
        QTest::mouseClick(v->viewport(), Qt::LeftButton, {}, r.center());
        QTest::mouseDClick(v->viewport(), Qt::LeftButton, {}, r.center());
        QCOMPARE(overlay.count(), 2);
        QCOMPARE(overlay.at(1).at(0).value<QList<qint64>>(), QList<qint64>{m_regression});
    }

    void refreshShowsRunsOfAnotherStoreAndKeepsState()
    {
        m_browser->setSelection({}, {m_cancelled});
        QVERIFY(view()->isExpanded(view()->selectionModel()->selectedRows().value(0).parent()));

        QString error;
        auto other = RunStore::open(m_store->path(), &error);
        QVERIFY2(other, qPrintable(error));
        RunRecord r;
        r.experimentId = m_expA;
        r.algorithmId = QStringLiteral("bpls.classify");
        r.algorithmName = QStringLiteral("BPLS from elsewhere");
        r.status = RunStatus::Finished;
        r.started = T0;
        r.ended = T0.addSecs(4);
        r.info = {{QStringLiteral("final"), QJsonObject{{QStringLiteral("test_accuracy"), 0.8125}}}};
        const qint64 id = other->createRun(r);
        QVERIFY(id >= 0);
        QVERIFY(other->flush());

        QVERIFY(!treeModel()->indexOfRun(id).isValid());
        QSignalSpy changed(m_browser.get(), &RunBrowser::selectionChanged);
        m_browser->refresh();
        QVERIFY(m_browser->waitUntilIdle()); // reads and filters run off the GUI thread
        QCOMPARE(cell(id, RunTreeModel::NameColumn), QStringLiteral("BPLS from elsewhere"));
        QCOMPARE(cell(id, RunTreeModel::TestColumn), QStringLiteral("81.25%"));
        QCOMPARE(treeModel()->rowCount(treeModel()->indexOfExperiment(m_expA)), 5);
        // Selection and expansion survive the re-read; the selection did not change, so no signal.
        QCOMPARE(m_browser->selectedRunIds(), QList<qint64>{m_cancelled});
        QVERIFY(view()->isExpanded(view()->selectionModel()->selectedRows().value(0).parent()));
        QCOMPARE(changed.count(), 0);

        // A selected run deleted elsewhere leaves the selection, with a signal.
        QVERIFY(other->deleteRun(m_cancelled));
        m_browser->refresh();
        QVERIFY(m_browser->waitUntilIdle()); // reads and filters run off the GUI thread
        QVERIFY(m_browser->selectedRunIds().isEmpty());
        QCOMPARE(changed.count(), 1);
    }

    void anExperimentSelectedBeforeItIsListedIsSelectedWhenItIs()
    {
        // RunControl selects a finished experiment while the browser's re-read is on its way.
        ExperimentRecord c;
        c.name = QStringLiteral("Written just now");
        c.kind = QStringLiteral("learning-curve");
        c.created = T0.addSecs(120);
        const qint64 exp = m_store->createExperiment(c);
        QVERIFY(exp >= 0);
        QVERIFY(m_store->flush());
        QVERIFY(!treeModel()->indexOfExperiment(exp).isValid());
        m_browser->setSelection({exp}, {});
        QVERIFY(m_browser->selectedExperimentIds().isEmpty()); // not listed yet
        m_browser->refresh();
        QVERIFY(m_browser->waitUntilIdle());
        QCOMPARE(m_browser->selectedExperimentIds(), QList<qint64>{exp});
        // Once applied it waits no more: the user's next choice stands through later reloads.
        m_browser->setSelection({m_expA}, {});
        m_browser->refresh();
        QVERIFY(m_browser->waitUntilIdle());
        QCOMPARE(m_browser->selectedExperimentIds(), QList<qint64>{m_expA});
    }

    void aPendingSelectionGivesWayToTheUsersChoice()
    {
        const qint64 never = 999999; // no reload lists it
        m_browser->setSelection({never}, {});
        // The user clicks a run before any reload.
        const QModelIndex run = view()->model()->index(0, 0);
        view()->selectionModel()->select(run, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
        const QList<qint64> chosen = m_browser->selectedExperimentIds();
        m_browser->refresh();
        QVERIFY(m_browser->waitUntilIdle());
        QCOMPARE(m_browser->selectedExperimentIds(), chosen);
    }

    void perLayerFactsReadAsTables()
    {
        // The block-layer methods' updates per layer (the paper's Table 5) and BPLS's per-layer
        // solves are lists of records: the details pane shows them as tables, not as JSON.
        RunRecord r;
        r.experimentId = m_expA;
        r.algorithmId = QStringLiteral("bld.b2ld");
        r.algorithmName = QStringLiteral("B2LD");
        r.status = RunStatus::Finished;
        r.started = T0;
        r.ended = T0.addSecs(2);
        r.info = {{QStringLiteral("layer_updates"),
                   QJsonArray{QJsonObject{{"layer", 0}, {"updates", 12}, {"armijo_fallbacks", 3}, {"seconds", 0.123456}},
                              QJsonObject{{"layer", 1}, {"updates", 7}, {"armijo_fallbacks", 0}, {"closed_form", true}}}},
                  {QStringLiteral("network"), QStringLiteral("10-50-1")}};
        const qint64 id = m_store->createRun(r);
        QVERIFY(m_store->flush());
        m_browser->refresh();
        QVERIFY(m_browser->waitUntilIdle()); // reads and filters run off the GUI thread
        const QString html = treeModel()->indexOfRun(id).data(RunTreeModel::DetailsRole).toString();
        QVERIFY2(html.contains("<h4>layer_updates</h4><table"), qPrintable(html));
        // The layer first, then every key of any row (JSON objects keep their keys sorted).
        QVERIFY2(html.contains("<th>layer</th><th>armijo fallbacks</th><th>seconds</th><th>updates</th><th>closed form</th>"),
                 qPrintable(html));
        QVERIFY2(html.contains("<td align='right'>0</td><td align='right'>3</td><td align='right'>0.1235</td>"
                               "<td align='right'>12</td><td align='right'></td>"),
                 qPrintable(html));
        QVERIFY2(html.contains("<td align='right'>yes</td>"), qPrintable(html)); // layer 1's closed form
        // A fact that is not a list of layers stays in the JSON.
        QVERIFY(!html.contains("<h4>network</h4>"));
    }

    void aRunOfAReplacingPluginSaysSoInItsRow()
    {
        // Issue 32: a plugin that replaced another of its id (a copy earlier on the search path)
        // is named by the run it trained: its row's tooltip and its details.
        RunRecord r;
        r.experimentId = m_expA;
        r.algorithmId = QStringLiteral("linear.ridge");
        r.algorithmName = QStringLiteral("Ridge");
        r.status = RunStatus::Finished;
        r.started = T0;
        r.ended = T0.addSecs(1);
        r.info = {{QStringLiteral("plugin_replaces"),
                   QJsonObject{{"file", "/tmp/open/trainbench-linear.so"},
                               {"replaces", QJsonArray{"/opt/tb/plugins/trainbench-linear.so"}}}}};
        const qint64 id = m_store->createRun(r);
        QVERIFY(m_store->flush());
        m_browser->refresh();
        QVERIFY(m_browser->waitUntilIdle()); // reads and filters run off the GUI thread
        const QModelIndex run = treeModel()->indexOfRun(id);
        const QString said = QStringLiteral("/tmp/open/trainbench-linear.so, which replaced /opt/tb/plugins/trainbench-linear.so");
        QVERIFY2(run.data(Qt::ToolTipRole).toString().contains("Trained by plugin " + said),
                 qPrintable(run.data(Qt::ToolTipRole).toString()));
        const QString html = run.data(RunTreeModel::DetailsRole).toString();
        QVERIFY2(html.contains("Plugin file") && html.contains(said), qPrintable(html));
        // A run of the plugin it should be says nothing of the kind.
        QVERIFY(!treeModel()->indexOfRun(m_finished).data(Qt::ToolTipRole).toString().contains("which replaced"));
    }

    void writesOfAnotherProcessAppearByThemselves()
    {
        // An MPI job's rank 0 (or any trainbench-cli) writing the open database: its runs show up
        // without Refresh, the selection kept; nothing is re-read while the files do not change.
        m_browser->setFollowIntervalMs(50);
        m_browser->show();
        QVERIFY(QTest::qWaitForWindowExposed(m_browser.get()));
        m_browser->setSelection({}, {m_finished});
        QString error;
        auto other = RunStore::open(m_store->path(), &error); // a connection of its own, as another process has
        QVERIFY2(other, qPrintable(error));
        RunRecord r;
        r.experimentId = m_expB;
        r.algorithmId = QStringLiteral("gradient.adam");
        r.algorithmName = QStringLiteral("Adam on rank 2");
        r.status = RunStatus::Running;
        r.started = T0;
        const qint64 id = other->createRun(r);
        QVERIFY(id >= 0);
        QTRY_COMPARE_WITH_TIMEOUT(cell(id, RunTreeModel::NameColumn), QStringLiteral("Adam on rank 2"), 30000);
        QCOMPARE(m_browser->selectedRunIds(), QList<qint64>{m_finished});
        other->finishRun(id, RunStatus::Finished, {}, {{QStringLiteral("final"), QJsonObject{{QStringLiteral("train_rmse"), 0.5}}}});
        QVERIFY(other->flush());
        QTRY_COMPARE_WITH_TIMEOUT(cell(id, RunTreeModel::StatusColumn), QStringLiteral("finished"), 30000);
        // Following off: another write stays unseen until Refresh.
        m_browser->setFollowIntervalMs(0);
        QCOMPARE(m_browser->followIntervalMs(), 0);
        r.algorithmName = QStringLiteral("Unseen");
        const qint64 unseen = other->createRun(r);
        QVERIFY(other->flush());
        // Six of the former follow intervals pass on the event loop — counted as timeouts of a
        // timer of that interval, which a busy machine delays as much as it would the follow
        // timer, where a 300 ms wait may see the loop turn once.
        QTimer interval;
        QSignalSpy intervals(&interval, &QTimer::timeout);
        interval.start(50);
        QTRY_VERIFY_WITH_TIMEOUT(intervals.count() >= 6, 30000);
        QVERIFY(!treeModel()->indexOfRun(unseen).isValid());
        m_browser->refresh();
        QVERIFY(m_browser->waitUntilIdle()); // reads and filters run off the GUI thread
        QCOMPARE(cell(unseen, RunTreeModel::NameColumn), QStringLiteral("Unseen"));
    }

    void filterByTextAndStatus()
    {
        QTreeView* v = view();
        QAbstractItemModel* shown = v->model();
        auto* edit = m_browser->findChild<QLineEdit*>(QStringLiteral("runFilterEdit"));
        auto* status = m_browser->findChild<QComboBox*>(QStringLiteral("runStatusFilter"));
        QVERIFY(edit && status);

        edit->setText(QStringLiteral("singular")); // matches the failed run's error only
        QVERIFY(m_browser->waitUntilIdle()); // reads and filters run off the GUI thread
        QCOMPARE(shown->rowCount(), 1);
        QCOMPARE(shown->rowCount(shown->index(0, 0)), 1);
        QCOMPARE(shown->index(0, 0, shown->index(0, 0)).data(RunTreeModel::RunIdRole).toLongLong(), m_failed);

        edit->setText(QStringLiteral("friedman")); // an experiment's name shows all its runs
        QVERIFY(m_browser->waitUntilIdle()); // reads and filters run off the GUI thread
        QCOMPARE(shown->rowCount(), 1);
        QCOMPARE(shown->rowCount(shown->index(0, 0)), 3);

        edit->clear();
        QVERIFY(m_browser->waitUntilIdle()); // reads and filters run off the GUI thread
        status->setCurrentIndex(status->findText(QStringLiteral("finished")));
        QVERIFY(m_browser->waitUntilIdle()); // reads and filters run off the GUI thread
        QCOMPARE(shown->rowCount(), 2);
        QCOMPARE(shown->rowCount(shown->index(0, 0)) + shown->rowCount(shown->index(1, 0)), 2);

        edit->setText(QStringLiteral("friedman")); // both criteria must hold
        QVERIFY(m_browser->waitUntilIdle()); // reads and filters run off the GUI thread
        QCOMPARE(shown->rowCount(), 1);
        QCOMPARE(shown->rowCount(shown->index(0, 0)), 1);
        QCOMPARE(shown->index(0, 0, shown->index(0, 0)).data(RunTreeModel::RunIdRole).toLongLong(), m_regression);

        status->setCurrentIndex(0);
        QVERIFY(m_browser->waitUntilIdle()); // reads and filters run off the GUI thread
        edit->clear();
        QVERIFY(m_browser->waitUntilIdle()); // reads and filters run off the GUI thread
        QCOMPARE(shown->rowCount(), 2);
    }

    void sortsNumbersAsNumbers()
    {
        QTreeView* v = view();
        QAbstractItemModel* shown = v->model();
        auto* proxy = qobject_cast<QSortFilterProxyModel*>(shown);
        QVERIFY(proxy);
        // Descending test metric: 93.75 % before 50 %.
        v->sortByColumn(RunTreeModel::TestColumn, Qt::DescendingOrder);
        const QModelIndex expA = proxy->mapFromSource(treeModel()->indexOfExperiment(m_expA));
        QList<qint64> order;
        for (int i = 0; i < shown->rowCount(expA); ++i)
            order << shown->index(i, 0, expA).data(RunTreeModel::RunIdRole).toLongLong();
        QCOMPARE(order.indexOf(m_finished) < order.indexOf(m_cancelled), true);
        v->sortByColumn(RunTreeModel::DurationColumn, Qt::AscendingOrder);
        // As text "2 min 05 s" < "5.00 s"; as numbers 5 s < 125 s; a run without an end (no duration) last.
        const QModelIndex expB = proxy->mapFromSource(treeModel()->indexOfExperiment(m_expB));
        QCOMPARE(shown->index(0, 0, expB).data(RunTreeModel::RunIdRole).toLongLong(), m_interrupted); // 5 s
        QCOMPARE(shown->index(1, 0, expB).data(RunTreeModel::RunIdRole).toLongLong(), m_regression);  // 125 s
        QCOMPARE(shown->index(2, 0, expB).data(RunTreeModel::RunIdRole).toLongLong(), m_running);     // none
    }

    void noiseSweepRunShowsItsCells()
    {
        // A noise sweep logs one run per algorithm standing for all its (σ, Monte-Carlo) cells.
        ExperimentRecord e;
        e.name = QStringLiteral("Sweep");
        e.kind = QStringLiteral("noise-sweep");
        const qint64 exp = m_store->createExperiment(e);
        RunRecord r;
        r.experimentId = exp;
        r.algorithmId = QStringLiteral("bpls.regress");
        r.status = RunStatus::Finished;
        r.started = T0;
        r.ended = T0.addSecs(1);
        r.info = {{QStringLiteral("cells"), 12}, {QStringLiteral("cells_finished"), 10}};
        const qint64 id = m_store->createRun(r);
        QVERIFY(exp >= 0 && id >= 0);
        m_browser->refresh();
        QVERIFY(m_browser->waitUntilIdle()); // reads and filters run off the GUI thread
        QCOMPARE(cell(id, RunTreeModel::NameColumn), QStringLiteral("bpls.regress")); // no label: the id
        QCOMPARE(cell(id, RunTreeModel::TrainColumn), QStringLiteral("10/12 cells"));
        QCOMPARE(cell(id, RunTreeModel::TestColumn), QStringLiteral("-"));
        QVERIFY(treeModel()->indexOfExperiment(exp).data().toString().contains(QStringLiteral("noise-sweep")));

        // Issue 18: with its sweep points the row shows RMSE (mean over the σ grid), not a count.
        for (double sigma : {0.0, 0.5}) {
            SummaryPoint p;
            p.algorithmId = r.algorithmId;
            p.x = sigma;
            p.count = 5;
            p.trainRmseMean = sigma == 0 ? 1e-14 : 0.4;
            p.testRmseMean = sigma == 0 ? 0.1 : 0.5;
            m_store->addSummaryPoint(exp, p);
        }
        QVERIFY(m_store->flush());
        m_browser->refresh();
        QVERIFY(m_browser->waitUntilIdle()); // reads and filters run off the GUI thread
        // The number alone (issue 29: "RMSE …" was all the narrow column showed); the tooltip says RMSE.
        QCOMPARE(cell(id, RunTreeModel::TrainColumn), QStringLiteral("0.2"));
        QCOMPARE(cell(id, RunTreeModel::TestColumn), QStringLiteral("0.3"));
        const QModelIndex status = treeModel()->indexOfExperiment(exp).siblingAtColumn(RunTreeModel::StatusColumn);
        QCOMPARE(status.data().toString(), QStringLiteral("1/1 finished"));

        // Issue 29, item 6: a stopped sweep is partial (cells done of planned), not "0/2 finished".
        r.algorithmId = QStringLiteral("linear.ridge");
        r.status = RunStatus::Cancelled;
        r.info = {{QStringLiteral("cells"), 12}, {QStringLiteral("cells_finished"), 4}};
        QVERIFY(m_store->createRun(r) >= 0);
        m_browser->refresh();
        QVERIFY(m_browser->waitUntilIdle()); // reads and filters run off the GUI thread
        const QModelIndex partial = treeModel()->indexOfExperiment(exp).siblingAtColumn(RunTreeModel::StatusColumn);
        QCOMPARE(partial.data().toString(), QStringLiteral("partial: 14/24 cells"));
        QVERIFY2(partial.data(Qt::ToolTipRole).toString().contains("Resume"), qPrintable(partial.data(Qt::ToolTipRole).toString()));
    }

    // Issue 18 (a lab's run browser): filter by parameter, the diff of two runs, tags and notes
    // stored in the database.
    void parameterFilterDiffTagsAndNotes()
    {
        RunRecord r = *m_store->run(m_finished);
        r.params.insert(QStringLiteral("lr"), 0.01);
        r.params.insert(QStringLiteral("hidden"), QVariantList{16, 16});
        r.seed = 43;
        const qint64 fast = m_store->createRun(r);
        QVERIFY(fast >= 0);
        m_browser->refresh();
        QVERIFY(m_browser->waitUntilIdle()); // reads and filters run off the GUI thread
        auto* edit = m_browser->findChild<QLineEdit*>(QStringLiteral("runFilterEdit"));
        QAbstractItemModel* shown = view()->model();
        auto shownRuns = [&] {
            QList<qint64> ids;
            for (int e = 0; e < shown->rowCount(); ++e)
                for (int i = 0; i < shown->rowCount(shown->index(e, 0)); ++i)
                    ids << shown->index(i, 0, shown->index(e, 0)).data(RunTreeModel::RunIdRole).toLongLong();
            std::sort(ids.begin(), ids.end());
            return ids;
        };
        edit->setText("lr=0.01");
        QVERIFY(m_browser->waitUntilIdle()); // reads and filters run off the GUI thread
        QCOMPARE(shownRuns(), QList<qint64>{fast});
        edit->setText("lr < 0.01");
        QVERIFY(m_browser->waitUntilIdle()); // reads and filters run off the GUI thread
        QVERIFY(!shownRuns().contains(fast));
        QVERIFY(shownRuns().contains(m_finished));
        edit->setText("hidden=16,16 lr>=0.01");
        QVERIFY(m_browser->waitUntilIdle()); // reads and filters run off the GUI thread
        QCOMPARE(shownRuns(), QList<qint64>{fast});
        edit->setText("hidden!=16,16 fast");
        QVERIFY(m_browser->waitUntilIdle()); // reads and filters run off the GUI thread
        QCOMPARE(shownRuns(), QList<qint64>{m_finished}); // a word and a condition together
        edit->setText("momentum=0.9");
        QVERIFY(m_browser->waitUntilIdle()); // reads and filters run off the GUI thread
        QVERIFY(shownRuns().isEmpty()); // no run has the key
        edit->clear();
        QVERIFY(m_browser->waitUntilIdle()); // reads and filters run off the GUI thread

        // Two runs selected: the details say what differs.
        m_browser->setSelection({}, {m_finished, fast});
        const QString diff = m_browser->detailsHtml();
        QVERIFY2(diff.contains("differs") && diff.contains("0.001") && diff.contains("0.01") && diff.contains("43"),
                 qPrintable(diff));
        QVERIFY(!diff.contains("bpls-toy-linear")); // the same data set is not listed

        // Tags and a note, kept in the database and searchable.
        QString error;
        QVERIFY2(m_browser->setNotes(fast, {"baseline", "lab"}, "lr raised to 0.01", &error), qPrintable(error));
        QVERIFY(m_browser->waitUntilIdle()); // reads and filters run off the GUI thread
        QCOMPARE(m_store->run(fast)->tags, (QStringList{"baseline", "lab"}));
        QVERIFY(cell(fast, RunTreeModel::NameColumn).contains("baseline, lab"));
        edit->setText("tag=lab");
        QVERIFY(m_browser->waitUntilIdle()); // reads and filters run off the GUI thread
        QCOMPARE(shownRuns(), QList<qint64>{fast});
        edit->setText("raised");
        QVERIFY(m_browser->waitUntilIdle()); // reads and filters run off the GUI thread
        QCOMPARE(shownRuns(), QList<qint64>{fast});
        edit->clear();
        QVERIFY(m_browser->waitUntilIdle()); // reads and filters run off the GUI thread
        m_browser->setSelection({}, {fast});
        QVERIFY(m_browser->detailsHtml().contains("lr raised to 0.01"));
        QVERIFY(!m_browser->setNotes(999999, {}, {}, &error));
        QVERIFY(m_browser->waitUntilIdle()); // reads and filters run off the GUI thread
        QVERIFY2(error.contains("999999"), qPrintable(error));
    }

    void anotherStoreStartsWithNothingSelected()
    {
        m_browser->setSelection({m_expA}, {});
        QSignalSpy changed(m_browser.get(), &RunBrowser::selectionChanged);
        QTemporaryDir dir;
        QString error;
        auto other = RunStore::open(dir.filePath(QStringLiteral("other.sqlite")), &error);
        QVERIFY2(other, qPrintable(error));
        ExperimentRecord e;
        e.name = QStringLiteral("Same id, other database");
        QCOMPARE(other->createExperiment(e), m_expA); // ids restart in every file
        m_browser->setStore(other.get());
        QVERIFY(m_browser->waitUntilIdle()); // reads and filters run off the GUI thread
        QCOMPARE(treeModel()->rowCount(), 1);
        QVERIFY(m_browser->selectedExperimentIds().isEmpty());
        QCOMPARE(changed.count(), 1);
        m_browser->setStore(m_store.get());
        QVERIFY(m_browser->waitUntilIdle()); // reads and filters run off the GUI thread
    }

    void runsWithoutAnExperimentAndNoStore()
    {
        const qint64 loose = addRun(-1, QStringLiteral("Loose run"), RunStatus::Finished, 1, {});
        m_browser->refresh();
        QVERIFY(m_browser->waitUntilIdle()); // reads and filters run off the GUI thread
        RunTreeModel* model = treeModel();
        QCOMPARE(model->rowCount(), 3);
        const QModelIndex group = model->indexOfExperiment(-1);
        QVERIFY(group.isValid());
        QCOMPARE(model->rowCount(group), 1);
        m_browser->setSelection({-1}, {});
        QCOMPARE(m_browser->selectedRunIds(), QList<qint64>{loose});
        QVERIFY(m_browser->selectedExperimentIds().isEmpty());
        QCOMPARE(m_browser->deleteSelected(), 1);
        QVERIFY(m_browser->waitUntilIdle()); // reads and filters run off the GUI thread
        QVERIFY(!m_store->run(loose));
        QCOMPARE(model->rowCount(), 2);

        m_browser->setStore(nullptr);
        QVERIFY(m_browser->waitUntilIdle()); // reads and filters run off the GUI thread
        QCOMPARE(model->rowCount(), 0);
        QVERIFY(m_browser->selectedRunIds().isEmpty());
        QString error;
        QVERIFY(!m_browser->exportSelectedCsv(m_dir->filePath(QStringLiteral("x.csv")), &error));
        QVERIFY(!error.isEmpty());
        QCOMPARE(m_browser->deleteSelected(), 0);
        QVERIFY(m_browser->waitUntilIdle()); // reads and filters run off the GUI thread
    }

    // Issue 32: a run whose process was killed while this store was open (another `trainbench-cli
    // run` writing the same file) is shown interrupted, with why, and may be deleted: the browser
    // offers no wait for a run nobody is training. A live one still says who trains it.
    void aRunWhoseProcessDiedIsInterruptedNotRunning()
    {
        QProcess trainer;
        trainer.start(QStringLiteral("/bin/sleep"), {QStringLiteral("60")});
        QVERIFY(trainer.waitForStarted());
        const qint64 pid = trainer.processId();
        {
            // The row as another process leaves it: running, owned by that process.
            const QString name = QStringLiteral("raw-owner");
            {
                QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), name);
                db.setDatabaseName(m_store->path());
                QVERIFY(db.open());
                QSqlQuery q(db);
                qint64 ticks = 0;
                bool zombie = false;
                QVERIFY(RunStoreOwner::readProcStat(pid, &ticks, &zombie));
                QVERIFY(q.prepare(QStringLiteral("UPDATE runs SET owner_pid = ?, owner_start = ?, owner_token = "
                                                 "'another process' WHERE id = ?")));
                q.addBindValue(pid);
                q.addBindValue(ticks);
                q.addBindValue(m_running);
                QVERIFY(q.exec());
                QCOMPARE(q.numRowsAffected(), 1);
            }
            QSqlDatabase::removeDatabase(name);
        }
        m_browser->refresh();
        QVERIFY(m_browser->waitUntilIdle()); // reads and filters run off the GUI thread
        QCOMPARE(cell(m_running, RunTreeModel::StatusColumn), QStringLiteral("running"));
        m_browser->setSelection({}, {m_running});
        QVERIFY2(m_browser->detailsHtml().contains(QStringLiteral("pid %1").arg(pid)), qPrintable(m_browser->detailsHtml()));
        QCOMPARE(m_browser->deleteSelected(), 0); // someone trains it
        QVERIFY(m_browser->waitUntilIdle()); // reads and filters run off the GUI thread

        trainer.kill();
        QVERIFY(trainer.waitForFinished());
        m_browser->refresh();
        QVERIFY(m_browser->waitUntilIdle()); // reads and filters run off the GUI thread
        QCOMPARE(cell(m_running, RunTreeModel::StatusColumn), QStringLiteral("interrupted"));
        QVERIFY2(!treeModel()->indexOfExperiment(m_expB, RunTreeModel::StatusColumn).data().toString().contains("running"),
                 qPrintable(treeModel()->indexOfExperiment(m_expB, RunTreeModel::StatusColumn).data().toString()));
        m_browser->setSelection({}, {m_running});
        QVERIFY2(m_browser->detailsHtml().contains(QStringLiteral("pid %1").arg(pid)) &&
                     m_browser->detailsHtml().contains(QStringLiteral("ended before the run finished")),
                 qPrintable(m_browser->detailsHtml()));
        QCOMPARE(m_browser->deleteSelected(), 1);
        QVERIFY(m_browser->waitUntilIdle()); // reads and filters run off the GUI thread
        QVERIFY(!m_store->run(m_running));
    }

    // Issue 49: swept values are shown rounded (the whole label still matches a filter), the
    // filter is matched off the GUI thread while the tree keeps the previous rows, and the summary
    // says how many runs match.
    void filterIsMatchedOffTheGuiThreadAndCounted()
    {
        QCOMPARE(RunTreeModel::roundedLabel(QStringLiteral("Adam lr=0.00316227766017, hidden=[16,16]")),
                 QStringLiteral("Adam lr=0.003162, hidden=[16,16]"));
        QCOMPARE(RunTreeModel::roundedLabel(QStringLiteral("x=1.23456789e-05 y=0.001")), QStringLiteral("x=1.235e-05 y=0.001"));
        for (const char* kept : {"plugin v1.4.0", "seed 123456789", "lr=0.0001 batch 32", "σ=0.25"})
            QCOMPARE(RunTreeModel::roundedLabel(QString::fromUtf8(kept)), QString::fromUtf8(kept));

        const qint64 swept = addRun(m_expA, QStringLiteral("Adam lr=0.00316227766017"), RunStatus::Finished, 1, {});
        QVERIFY(m_store->flush());
        m_browser->refresh();
        QVERIFY(m_browser->waitUntilIdle());
        QCOMPARE(cell(swept, RunTreeModel::NameColumn), QStringLiteral("Adam lr=0.003162"));

        auto* edit = m_browser->findChild<QLineEdit*>(QStringLiteral("runFilterEdit"));
        auto* summary = m_browser->findChild<QLabel*>(QStringLiteral("runSummary"));
        QAbstractItemModel* shown = view()->model();
        QCOMPARE(shown->rowCount(), 2);
        QSignalSpy busy(m_browser.get(), &RunBrowser::busyChanged);
        edit->setText(QStringLiteral("singular"));
        QVERIFY(m_browser->isBusy());     // handed to a worker …
        QCOMPARE(shown->rowCount(), 2);   // … the tree unchanged until it answers
        QVERIFY(m_browser->waitUntilIdle());
        QCOMPARE(busy.count(), 2); // busy, then idle
        QCOMPARE(shown->rowCount(), 1);
        QVERIFY2(summary->text().contains(QStringLiteral("1 of 8 runs match")), qPrintable(summary->text()));
        edit->setText(QStringLiteral("0.00316227766017")); // the label as stored
        QVERIFY(m_browser->waitUntilIdle());
        QVERIFY2(summary->text().contains(QStringLiteral("1 of 8 runs match")), qPrintable(summary->text()));
        edit->clear();
        QVERIFY(m_browser->waitUntilIdle());
        QCOMPARE(shown->rowCount(), 2);
        QVERIFY2(summary->text().contains(QStringLiteral("2 experiments, 8 runs")), qPrintable(summary->text()));

        // The name keeps the room: cut in the middle (the repeat stays in sight), the columns a
        // row does not need hidden until asked for, the status wide enough for "999/999 finished".
        QTreeView* v = view();
        QCOMPARE(v->textElideMode(), Qt::ElideMiddle);
        for (int c : {int(RunTreeModel::SeedColumn), int(RunTreeModel::ThreadsColumn), int(RunTreeModel::MemoryColumn)})
            QVERIFY(v->header()->isSectionHidden(c));
        QVERIFY(v->columnWidth(RunTreeModel::StatusColumn) >=
                v->fontMetrics().horizontalAdvance(QStringLiteral("999/999 finished")));
        QVERIFY(v->columnWidth(RunTreeModel::NameColumn) >= v->viewport()->width() / 4);
    }

    // The worker behind it: jobs run on a pool thread, the newest one's result arrives on the
    // owner's thread, a superseded one's never.
    void latestJobDeliversOnlyTheNewestResultOnTheOwnersThread()
    {
        QObject owner;
        QList<int> delivered;
        QThread* deliveredOn = nullptr;
        LatestJob<int> job(&owner, [&](int v) {
            delivered << v;
            deliveredOn = QThread::currentThread();
        });
        std::atomic<QThread*> ranOn{nullptr};
        std::atomic<bool> release{false};
        job.start([&] {
            ranOn = QThread::currentThread();
            while (!release)
                QThread::msleep(1);
            return 1;
        });
        QVERIFY(job.isBusy());
        QTRY_VERIFY(ranOn.load());
        job.start([] { return 2; }); // supersedes the first, which is still running
        release = true;
        QTRY_VERIFY(!job.isBusy());
        job.wait();
        QCoreApplication::processEvents();
        QCOMPARE(delivered, QList<int>{2});
        QVERIFY(ranOn.load() && ranOn.load() != QThread::currentThread());
        QCOMPARE(deliveredOn, QThread::currentThread());
    }
};

QTEST_MAIN(TestRunBrowser)
#include "tst_runbrowser.moc"
