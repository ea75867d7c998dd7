// AlgorithmPanel and PluginsDialog against the plugins built in this tree.
#include "setup/AlgorithmPanel.h"
#include "widgets/LayerSizeEdit.h"
#include "setup/ParamForm.h"
#include "setup/PluginsDialog.h"

#include <QCheckBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QFile>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTextBrowser>

#include <cmath>

using namespace tb;
using tb::gui::AlgorithmPanel;
using tb::gui::ParamForm;

namespace {

/// A valid value different from the default, so a round trip that drops it is caught.
QVariant otherValue(const ParamSpec& s)
{
    switch (s.type) {
    case ParamType::Int: {
        const qlonglong d = s.defaultValue.toLongLong();
        return QVariant(d + 1 <= s.maximum ? d + 1 : d - 1);
    }
    case ParamType::Real: {
        const double d = s.defaultValue.toDouble();
        double v = d == 0 ? 0.25 : d * 0.5;
        if (!(v >= s.minimum && v <= s.maximum))
            v = (std::isfinite(s.maximum) ? s.maximum : d + 1);
        return QVariant(v);
    }
    case ParamType::Bool:
        return QVariant(!s.defaultValue.toBool());
    case ParamType::Choice:
        return QVariant(s.choices.value(s.choices.indexOf(s.defaultValue.toString()) == 0 ? 1 : 0));
    case ParamType::IntList: {
        QVariantList l;
        for (int i = 0; i < std::max(1, s.minCount); ++i)
            l << int(std::max(s.minimum, 7.0));
        return QVariant(l);
    }
    case ParamType::RealList: {
        // A decreasing list inside the range (a tolerance ladder must tighten).
        QVariantList l;
        const double top = std::isfinite(s.maximum) ? std::min(s.maximum, 0.5) : 0.5;
        for (int i = 0; i < std::max(2, s.minCount) && i < s.maxCount; ++i)
            l << std::max(s.minimum, top / std::pow(10.0, i));
        return QVariant(l);
    }
    default:
        break; // text, paths, columns, seeds: no algorithm declares one
    }
    return {};
}

} // namespace

class TestAlgorithmPanel : public QObject {
    Q_OBJECT
private:
    PluginRegistry m_registry;

private Q_SLOTS:
    void initTestCase()
    {
        m_registry.scan({QStringLiteral(TB_PLUGIN_BUILD_DIR)});
        // The panel test is meaningless without algorithms; the three in-tree plugins are built
        // before this test by the same ninja run.
        QVERIFY2(m_registry.algorithm("linear.ridge"), "linear plugin not built in " TB_PLUGIN_BUILD_DIR);
        QVERIFY2(m_registry.algorithm("bpls.classify"), "bpls plugin not built");
        QVERIFY2(m_registry.algorithm("gradient.adam"), "gradient plugin not built");
    }

    void everyAlgorithmAppears()
    {
        AlgorithmPanel panel(m_registry);
        QStringList expected;
        for (const auto& p : m_registry.plugins())
            if (p->isLoaded())
                for (const auto& a : p->algorithms)
                    expected << a.id;
        QCOMPARE(panel.algorithmIds(), expected);
        for (const auto& a : m_registry.algorithms()) {
            auto* check = panel.findChild<QCheckBox*>(a.info.id);
            QVERIFY2(check, qPrintable(a.info.id));
            QCOMPARE(check->text(), a.info.name);
            QVERIFY(check->toolTip().contains(a.info.description));
            QVERIFY(!check->isChecked());
            QVERIFY(panel.form(a.info.id));
            QCOMPARE(panel.form(a.info.id)->values().keys(), a.info.schema.defaults().keys());
            QCOMPARE(panel.paramsFor(a.info.id), *a.info.schema.normalise({}, nullptr));
        }
        QVERIFY(panel.selectedAlgorithms().isEmpty());
        QVERIFY(panel.problems().isEmpty());
        QVERIFY(!panel.form("no.such"));
    }

    void selectionRoundTrips()
    {
        AlgorithmPanel panel(m_registry);
        // Two algorithms with every parameter moved off its default: selectedAlgorithms() keeps
        // the given order (the file's order), whatever the display order.
        QList<AlgorithmRun> runs;
        for (const QString& id : {QStringLiteral("gradient.adam"), QStringLiteral("linear.ridge")}) {
            const AlgorithmInfo& info = m_registry.algorithm(id)->info;
            QVariantMap params;
            for (const auto& s : info.schema.specs())
                params.insert(s.key, otherValue(s));
            QString error;
            const auto normalised = info.schema.normalise(params, &error);
            QVERIFY2(normalised, qPrintable(error));
            runs.append(AlgorithmRun{id, id == u"gradient.adam" ? QStringLiteral("Adam fast") : info.name, *normalised});
        }
        QSignalSpy changed(&panel, &AlgorithmPanel::changed);
        panel.setSelection(runs);
        QCOMPARE(changed.count(), 1);
        const QList<AlgorithmRun> got = panel.selectedAlgorithms();
        QCOMPARE(got.size(), 2);
        const AlgorithmRun& adam = got[0];
        const AlgorithmRun& ridge = got[1];
        QCOMPARE(adam.id, QString("gradient.adam"));
        QCOMPARE(adam.label, QString("Adam fast"));
        QCOMPARE(adam.params, runs[0].params);
        QCOMPARE(ridge.id, QString("linear.ridge"));
        QCOMPARE(ridge.label, m_registry.algorithm("linear.ridge")->info.name); // empty label edit → name
        QCOMPARE(ridge.params, runs[1].params);
        QVERIFY(panel.problems().isEmpty());

        // A new selection unchecks the rest and resets their forms.
        panel.setSelection({AlgorithmRun{"linear.ridge", {}, {}}});
        QCOMPARE(panel.selectedAlgorithms().size(), 1);
        QVERIFY(!panel.isChecked("gradient.adam"));
        QCOMPARE(panel.paramsFor("gradient.adam"), *m_registry.algorithm("gradient.adam")->info.schema.normalise({}, nullptr));
        QCOMPARE(panel.selectedAlgorithms().first().params,
                 *m_registry.algorithm("linear.ridge")->info.schema.normalise({}, nullptr));
    }

    // Issue 18: two settings of one algorithm could not be expressed; a file listing an
    // algorithm three times lost two of them.
    void severalConfigurationsOfOneAlgorithm()
    {
        AlgorithmPanel panel(m_registry);
        const QList<AlgorithmRun> runs{
            AlgorithmRun{"bpls.classify", "BPLS, straightforward", {{"hidden", QVariantList{50}}, {"standardise", false}}},
            AlgorithmRun{"gradient.adam", {}, {{"lr", 0.01}}},
            AlgorithmRun{"bpls.classify", "BPLS, defaults", {{"hidden", QVariantList{50}}}},
            AlgorithmRun{"bpls.classify", "BPLS, joint", {{"target_rule", "joint_delta"}}}};
        panel.setSelection(runs);
        QCOMPARE(panel.configurationCount("bpls.classify"), 3);
        QCOMPARE(panel.configurationCount("gradient.adam"), 1);
        QVERIFY2(panel.problems().isEmpty(), qPrintable(panel.problems().join('\n')));
        // In the file's order, each with its own label and parameters.
        const QList<AlgorithmRun> file = panel.experimentAlgorithms();
        QCOMPARE(file.size(), 4);
        for (int i = 0; i < 4; ++i) {
            QCOMPARE(file[i].id, runs[i].id);
            QCOMPARE(file[i].label, runs[i].label);
            const auto spec = m_registry.algorithm(runs[i].id)->info.schema;
            QCOMPARE(*spec.normalise(file[i].params, nullptr), *spec.normalise(runs[i].params, nullptr));
            QCOMPARE(file[i].params.keys(), runs[i].params.keys()); // only what the file said
        }
        QCOMPARE(panel.selectedAlgorithms()[1].label, m_registry.algorithm("gradient.adam")->info.name);
        QCOMPARE(panel.form("bpls.classify", 2)->values().value("target_rule").toString(), QString("joint_delta"));

        // Two configurations of one algorithm must not share a label.
        panel.labelEdit("bpls.classify", 1)->setText("BPLS, straightforward");
        QCOMPARE(panel.problems().size(), 1);
        QVERIFY2(panel.problems()[0].contains("two configurations"), qPrintable(panel.problems()[0]));
        panel.labelEdit("bpls.classify", 1)->setText("BPLS, defaults");

        // The button adds a checked configuration with a label of its own; removing it drops it.
        panel.setExpanded("gradient.adam", true);
        QPushButton* add = nullptr;
        for (auto* b : panel.form("gradient.adam")->parentWidget()->findChildren<QPushButton*>())
            if (b->text().contains("Add another"))
                add = b;
        QVERIFY(add);
        QSignalSpy changed(&panel, &AlgorithmPanel::changed);
        add->click();
        QVERIFY(changed.count() >= 1);
        QCOMPARE(panel.configurationCount("gradient.adam"), 2);
        QVERIFY(panel.isChecked("gradient.adam", 1));
        panel.form("gradient.adam", 1)->setValues({{"lr", 0.1}});
        QCOMPARE(panel.selectedAlgorithms().size(), 5);
        QCOMPARE(panel.selectedAlgorithms().last().params.value("lr").toDouble(), 0.1);
        QVERIFY(panel.problems().isEmpty()); // "<name> 2" differs from the first one's label
        QVERIFY(panel.removeConfiguration("gradient.adam", 1));
        QCOMPARE(panel.selectedAlgorithms().size(), 4);
        QVERIFY(!panel.removeConfiguration("gradient.adam", 0)); // the algorithm's own row stays

        // A new selection drops the added configurations.
        panel.setSelection({AlgorithmRun{"bpls.classify", {}, {}}});
        QCOMPARE(panel.configurationCount("bpls.classify"), 1);
        QCOMPARE(panel.selectedAlgorithms().size(), 1);
    }

    void problemsNameAlgorithmAndValue()
    {
        AlgorithmPanel panel(m_registry);
        const QString adamName = m_registry.algorithm("gradient.adam")->info.name;
        panel.setSelection({AlgorithmRun{"gradient.adam", {}, {{"lr", 50.0}, {"typo", 1}}},
                            AlgorithmRun{"no.such", {}, {}}});
        const QStringList p = panel.problems();
        QCOMPARE(p.size(), 3);
        QCOMPARE(p[0], adamName + ": Learning rate η (lr): expected a number 1e-08 to 10, got 50");
        QVERIFY2(p[1].contains("\"typo\""), qPrintable(p[1]));
        QVERIFY2(p[2].contains("\"no.such\"") && p[2].startsWith("algorithms[1]"), qPrintable(p[2]));

        // A bad layer list typed in the form is reported under the algorithm's name.
        panel.setSelection({AlgorithmRun{"gradient.adam", {}, {}}});
        QVERIFY(panel.problems().isEmpty());
        auto* hidden = qobject_cast<gui::LayerSizeEdit*>(panel.form("gradient.adam")->editor("hidden"));
        QVERIFY(hidden);
        hidden->setText("50, -3");
        QCOMPARE(panel.problems().size(), 1);
        QVERIFY2(panel.problems()[0].startsWith(adamName + ": Hidden layers (hidden): "), qPrintable(panel.problems()[0]));
        // Unchecked algorithms are not run, so their forms are not problems.
        panel.setChecked("gradient.adam", false);
        QVERIFY(panel.problems().isEmpty());
        QCOMPARE(panel.paramsFor("gradient.adam").value("hidden").toString(), QString("50, -3"));
    }

    void taskGreysOutUnsupported()
    {
        AlgorithmPanel panel(m_registry);
        panel.setChecked("bpls.classify", true);
        panel.setChecked("bpls.regress", true);
        panel.setTask(Task::Regression);
        int disabled = 0;
        for (const auto& a : m_registry.algorithms()) {
            QCOMPARE(panel.isAvailable(a.info.id), a.info.regression);
            QCOMPARE(panel.findChild<QCheckBox*>(a.info.id)->isEnabled(), a.info.regression);
            disabled += a.info.regression ? 0 : 1;
        }
        QVERIFY(disabled >= 1); // bpls.classify is classification-only
        QVERIFY(!panel.isAvailable("bpls.classify"));
        QList<AlgorithmRun> sel = panel.selectedAlgorithms();
        QCOMPARE(sel.size(), 1);
        QCOMPARE(sel[0].id, QString("bpls.regress"));

        panel.setTask(Task::Classification);
        QVERIFY(panel.isAvailable("bpls.classify"));
        QVERIFY(!panel.isAvailable("bpls.regress"));
        sel = panel.selectedAlgorithms();
        QCOMPARE(sel.size(), 1);
        QCOMPARE(sel[0].id, QString("bpls.classify")); // its check mark survived the regression detour
    }

    void resetButtonRestoresDefaults()
    {
        AlgorithmPanel panel(m_registry);
        panel.setSelection({AlgorithmRun{"gradient.adam", {}, {{"lr", 0.5}, {"epochs", 3}}}});
        panel.setExpanded("gradient.adam", true);
        panel.resize(380, 700); // the dock width the panel is made for
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        QPushButton* reset = nullptr;
        for (auto* b : panel.form("gradient.adam")->parentWidget()->findChildren<QPushButton*>())
            if (b->text().contains("Reset"))
                reset = b;
        QVERIFY(reset);
        QVERIFY(reset->isVisible());
        QTest::mouseClick(reset, Qt::LeftButton);
        QCOMPARE(panel.paramsFor("gradient.adam"), *m_registry.algorithm("gradient.adam")->info.schema.normalise({}, nullptr));
    }

    void pluginsDialogListsBrokenPlugins()
    {
        // A file that looks like a plugin but is not a shared library: the registry must list it
        // as not loaded with a reason, and the dialog must show that reason.
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        QFile bad(dir.filePath("libtrainbench-broken.so"));
        QVERIFY(bad.open(QIODevice::WriteOnly));
        bad.write("this is not an ELF file");
        bad.close();
        PluginRegistry registry;
        registry.scan({QStringLiteral(TB_PLUGIN_BUILD_DIR), dir.path()});

        gui::PluginsDialog dialog(registry);
        QTableWidget* t = dialog.table();
        QCOMPARE(t->rowCount(), int(registry.plugins().size()));
        int brokenRow = -1;
        for (int r = 0; r < t->rowCount(); ++r)
            if (t->item(r, 4)->text().endsWith("libtrainbench-broken.so"))
                brokenRow = r;
        QVERIFY2(brokenRow >= 0, "the broken file is not listed");
        QCOMPARE(brokenRow, 0); // broken plugins come first
        QVERIFY(t->item(brokenRow, 1)->text() != "Loaded");
        t->setCurrentCell(brokenRow, 0);
        const QString details = dialog.details()->toPlainText();
        QVERIFY2(details.contains("Why not loaded"), qPrintable(details));
        QString reason;
        for (const auto& p : registry.plugins())
            if (p->filePath.endsWith("libtrainbench-broken.so"))
                reason = p->error;
        QVERIFY(!reason.isEmpty());
        QVERIFY2(details.contains(reason.left(30)), qPrintable(details));

        // A loaded plugin's details list its algorithms.
        for (int r = 0; r < t->rowCount(); ++r)
            if (t->item(r, 0)->text() == registry.algorithm("linear.ridge")->plugin->name)
                t->setCurrentCell(r, 0);
        QVERIFY(dialog.details()->toPlainText().contains("linear.ridge"));
    }

    // Issue 32: plugins are code. The dialog lists the folders plugins are loaded from with their
    // state, and says first what must be seen: a folder refused because others can write to it, and
    // a plugin that replaces another of the same id.
    void pluginsDialogAnnouncesRefusalsAndReplacements()
    {
        QTemporaryDir dir;
        const QString open = dir.filePath("open"), mine = dir.filePath("mine");
        QVERIFY(QDir().mkpath(open) && QDir().mkpath(mine));
        const QString linear = QStringLiteral(TB_PLUGIN_BUILD_DIR "/trainbench-linear.so");
        QVERIFY(QFile::copy(linear, open + "/trainbench-linear.so"));
        QVERIFY(QFile::copy(linear, mine + "/trainbench-linear.so"));
        QVERIFY(QFile(open).setPermissions(QFileDevice::Permissions(0x7777))); // rwx for everyone
        PluginRegistry registry;
        registry.scan({open, mine, QStringLiteral(TB_PLUGIN_BUILD_DIR)});

        gui::PluginsDialog dialog(registry);
        QVERIFY(dialog.notices());
        const QString notices = dialog.notices()->text();
        QVERIFY2(notices.contains("plugin folder " + open + " refused") && notices.contains("writable by every user"),
                 qPrintable(notices));
        QVERIFY2(notices.contains(QStringLiteral("plugin &quot;linear&quot; 2.0.0 from %1/trainbench-linear.so replaces %2")
                                      .arg(mine, linear)),
                 qPrintable(notices));
        auto* folders = dialog.findChild<QListWidget*>(QStringLiteral("pluginFolders"));
        QVERIFY(folders);
        QCOMPARE(folders->count(), 3);
        QVERIFY2(folders->item(0)->text().startsWith(open + "  (refused: "), qPrintable(folders->item(0)->text()));
        QCOMPARE(folders->item(1)->text(), mine);
        int refusedRow = -1, replacingRow = -1;
        for (int r = 0; r < dialog.table()->rowCount(); ++r) {
            if (dialog.table()->item(r, 4)->text() == open + "/trainbench-linear.so")
                refusedRow = r;
            if (dialog.table()->item(r, 4)->text() == mine + "/trainbench-linear.so")
                replacingRow = r;
        }
        QVERIFY(refusedRow >= 0 && replacingRow >= 0);
        QCOMPARE(dialog.table()->item(refusedRow, 1)->text(), QStringLiteral("Refused"));
        dialog.table()->setCurrentCell(replacingRow, 0);
        QVERIFY2(dialog.details()->toPlainText().contains("Replaces") &&
                     dialog.details()->toPlainText().contains(linear),
                 qPrintable(dialog.details()->toPlainText()));

        // Nothing to say: no notices at all.
        PluginRegistry plain;
        plain.scan({QStringLiteral(TB_PLUGIN_BUILD_DIR)});
        gui::PluginsDialog quiet(plain);
        QVERIFY(!quiet.notices());
    }
};

QTEST_MAIN(TestAlgorithmPanel)
#include "tst_algorithmpanel.moc"
