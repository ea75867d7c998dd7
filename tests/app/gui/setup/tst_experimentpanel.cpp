// ExperimentPanel: values() ⇄ setValues(), kept keys, field problems — and every kind's fields
// built from what the kind declares (issue 44: nothing in the panel names a kind).
#include "setup/ExperimentPanel.h"
#include "setup/KindFields.h"
#include "setup/ParamForm.h"
#include "setup/SweepEditor.h"

#include <engine/ExperimentKind.h>
#include <engine/ExperimentRunner.h>
#include <engine/ExperimentSpec.h>

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QJsonArray>
#include <QLineEdit>
#include <QSignalSpy>
#include <QSpinBox>
#include <QLabel>
#include <QLayout>
#include <QLineEdit>
#include <QtTest>

using tb::gui::ExperimentPanel;

namespace {
// A kind as a contributor would add one (docs/contributing.md): its own key "rounds" and a section
// "sweep" with a schema field "sweep.width"; the panel has never heard of it.
class RoundsKind final : public tb::ExperimentKind {
public:
    QString id() const override { return QStringLiteral("test-rounds"); }
    QString label() const override { return QStringLiteral("Rounds (test)"); }
    QString description() const override { return QStringLiteral("A kind of the panel's test."); }
    tb::ParamSchema keys() const override
    {
        tb::ParamSchema s;
        s.add(tb::ParamSpec::integer(QStringLiteral("rounds"), QStringLiteral("Rounds"), 1, 1, 100, QStringLiteral("Rounds.")));
        return s;
    }
    QStringList sectionKeys() const override { return {QStringLiteral("sweep")}; }
    tb::ParamSchema sectionSchema() const override
    {
        tb::ParamSchema s;
        s.add(tb::ParamSpec::real(QStringLiteral("sweep.width"), QStringLiteral("Width"), 0.5, 0, 1, QStringLiteral("Width.")));
        return s;
    }
    void write(const tb::ExperimentSpec&, QJsonObject&) const override {}
    int plannedRuns(const tb::ExperimentSpec&) const override { return 1; }
    QString describe(const tb::ExperimentSpec&) const override { return QStringLiteral("rounds"); }
    QList<tb::AlgorithmCurves> configurations(const tb::ExperimentSpec&, const tb::PluginRegistry*) const override
    {
        return {};
    }
    bool runsOneAtATime(const tb::ExperimentSpec&) const override { return true; }
    tb::ExperimentResult run(tb::ExperimentContext&, const tb::ExperimentSpec&, qint64, tb::ExperimentObserver*) const override
    {
        return {};
    }
    QStringList charts() const override { return {}; }
};

// The editor of field @p key of the panel's chosen kind, as a spin box.
QSpinBox* spinBox(const ExperimentPanel& p, const QString& key)
{
    return qobject_cast<QSpinBox*>(p.field(key));
}
} // namespace
TB_REGISTER_EXPERIMENT_KIND(RoundsKind)

class TestExperimentPanel : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void everyKindHasItsFieldsFromItsSchemas()
    {
        ExperimentPanel panel;
        for (const tb::ExperimentKind* k : tb::ExperimentKinds::all()) {
            QVERIFY(panel.kindBox()->findData(k->id()) >= 0);
            tb::gui::KindFields* fields = panel.kindFields(k->id());
            QVERIFY2(fields, qPrintable(k->id()));
            tb::ParamSchema all = k->keys();
            all.append(k->sectionSchema());
            for (const tb::ParamSpec& s : all.specs())
                QVERIFY2(fields->form() && fields->form()->editor(s.key), qPrintable(k->id() + ": " + s.key));
            QCOMPARE(fields->editor() != nullptr, !k->sectionEditor().isEmpty());
        }
        // A kind the panel never heard of gets its fields, only while chosen.
        panel.setValues(QJsonObject{{"kind", "test-rounds"}, {"rounds", 3}, {"sweep", QJsonObject{{"width", 0.25}}}});
        QVERIFY(panel.kindFields("test-rounds")->isVisibleTo(&panel));
        QVERIFY(!panel.kindFields("learning-curve")->isVisibleTo(&panel));
        QCOMPARE(spinBox(panel, "rounds")->value(), 3);
        QCOMPARE(qobject_cast<QDoubleSpinBox*>(panel.field("sweep.width"))->value(), 0.25);
        // The param sweep names its grid editor, which the workbench has.
        QVERIFY(qobject_cast<tb::gui::SweepEditor*>(panel.kindFields("param-sweep")->editor()));
    }

    void valuesRoundTripAndKeepWhatThePanelDoesNotEdit()
    {
        ExperimentPanel panel;
        QSignalSpy changed(&panel, &ExperimentPanel::changed);
        // What the panel holds is in the current parameter format, which it writes.
        const QJsonObject in{{"name", "n"},
                             {"description", "kept"},
                             {"kind", "noise-sweep"},
                             {"format", tb::kParamsFormat},
                             {"sweep", QJsonObject{{"sigma", QJsonArray{0, 0.5}}, {"monte_carlo", 7}}},
                             {"seed", "18446744073709551615"},
                             {"threads", 2},
                             {"time_budget_s", 1.5}};
        panel.setValues(in);
        QCOMPARE(changed.count(), 1);
        QCOMPARE(panel.values(), in);
        QVERIFY(panel.problems().isEmpty());
        QCOMPARE(spinBox(panel, "sweep.monte_carlo")->value(), 7);

        panel.kindBox()->setCurrentIndex(panel.kindBox()->findData("learning-curve"));  // repeats instead of the sweep
        const QJsonObject lc = panel.values();
        QVERIFY(!lc.contains("sweep"));
        QVERIFY(changed.count() > 1);

        // The file format reads what the panel writes.
        QJsonObject whole = lc;
        whole.insert("dataset", QJsonObject{{"source", "moons"}});
        whole.insert("algorithms", QJsonArray{QJsonObject{{"id", "x"}}});
        QString error;
        const auto spec = tb::ExperimentSpec::fromObject(whole, "panel", &error);
        QVERIFY2(spec, qPrintable(error));
        QCOMPARE(spec->repeats, 1);
        QCOMPARE(spec->seed, std::numeric_limits<std::uint64_t>::max());
        QCOMPARE(spec->description, QStringLiteral("kept"));
        // And back: the noise sweep keeps its fields as they were (the σ grid typed as a range).
        panel.kindBox()->setCurrentIndex(panel.kindBox()->findData("noise-sweep"));
        qobject_cast<QLineEdit*>(panel.field("sweep.sigma"))->setText("0:0.25:1");
        QCOMPARE(panel.values().value("sweep").toObject().value("sigma").toArray(), (QJsonArray{0, 0.25, 0.5, 0.75, 1}));
    }

    void theBudgetsClockIsChosenAndWrittenBack()
    {
        ExperimentPanel panel;
        QVERIFY(!panel.budgetClockBox()->isEnabled()); // no budget, no clock
        const QJsonObject cpu{{"name", "n"}, {"kind", "learning-curve"}, {"format", tb::kParamsFormat}, {"repeats", 1}, {"seed", 1},
                              {"time_budget_s", 5}, {"time_budget_clock", "cpu"}};
        panel.setValues(cpu);
        QVERIFY(panel.budgetClockBox()->isEnabled());
        QCOMPARE(panel.budgetClockBox()->currentData().toString(), QStringLiteral("cpu"));
        QCOMPARE(panel.values(), cpu);
        // Wall is the default: not written unless the file wrote it.
        QJsonObject wall = cpu;
        wall.remove("time_budget_clock");
        panel.setValues(wall);
        QCOMPARE(panel.values(), wall);
        panel.budgetClockBox()->setCurrentIndex(panel.budgetClockBox()->findData("cpu"));
        QCOMPARE(panel.values().value("time_budget_clock").toString(), QStringLiteral("cpu"));
        // Without a budget the clock goes too (a clock alone is an error).
        panel.setValues(cpu);
        panel.budgetBox()->setValue(0);
        QVERIFY(!panel.values().contains("time_budget_clock"));
        QVERIFY(!panel.budgetClockBox()->isEnabled());
    }

    void aNewKindsKeysAreWrittenAndOtherKindsKeysGo()
    {
        // The panel lists every registered kind and edits each from its schemas; another kind's
        // section goes when the kind changes.
        ExperimentPanel panel;
        const QJsonObject in{{"name", "n"}, {"kind", "test-rounds"}, {"format", tb::kParamsFormat}, {"rounds", 3},
                             {"sweep", QJsonObject{{"width", 0.25}}}, {"seed", 4}};
        panel.setValues(in);
        QCOMPARE(panel.values(), in);
        panel.kindBox()->setCurrentIndex(panel.kindBox()->findData("learning-curve"));
        QVERIFY(!panel.values().contains("sweep"));
        QVERIFY(!panel.values().contains("rounds"));
        spinBox(panel, "repeats")->setValue(4);
        QCOMPARE(panel.values().value("repeats").toInt(), 4);
    }

    void fieldProblemsNameTheirKey()
    {
        ExperimentPanel panel;
        panel.kindBox()->setCurrentIndex(panel.kindBox()->findData("noise-sweep"));
        auto* sigma = qobject_cast<QLineEdit*>(panel.field("sweep.sigma"));
        QVERIFY(sigma);
        sigma->setText("0, 0.1,");
        QVERIFY2(panel.problems().isEmpty(), qPrintable(panel.problems().join('\n'))); // a trailing separator is harmless
        sigma->setText("0; abc");
        QVERIFY2(panel.problems().value(0).contains("sweep.sigma") && panel.problems().value(0).contains("abc"),
                 qPrintable(panel.problems().join('\n')));
        sigma->setText("0, -1");
        QVERIFY2(panel.problems().value(0).contains("sweep.sigma"), qPrintable(panel.problems().join('\n')));
        sigma->setText("0:0:1");
        QVERIFY2(panel.problems().value(0).contains("the step must be positive"), qPrintable(panel.problems().join('\n')));
        sigma->setText("0, 0.5");
        // What the kind says of the whole experiment (the document asks it) is shown with them.
        panel.setKindProblems({"dataset.source: a noise-sweep needs a generator with a noise level"});
        QVERIFY(panel.problems().join('\n').contains("needs a generator"));
        panel.setKindProblems({});
        QVERIFY(panel.problems().isEmpty());
        panel.seedEdit()->setText("99999999999999999999"); // 20 digits, above 2^64
        QVERIFY(panel.problems().join('\n').startsWith("Seed (seed): expected an integer"));
    }

    // Issue 29: "-3" in Repeats became 3 (the '-' was dropped) and a bad value was put back on
    // focus-out. The typed text stays, the panel names it in red, values() keeps the last good one.
    void typedTextIsKeptAfterFocusOutAndNamed()
    {
        ExperimentPanel p;
        QLineEdit other;
        p.layout()->addWidget(&other);
        p.show();
        QVERIFY(QTest::qWaitForWindowExposed(&p));
        p.activateWindow();
        QSpinBox* repeats = spinBox(p, "repeats");
        QVERIFY(repeats);
        repeats->setFocus();
        repeats->selectAll();
        QTest::keyClicks(repeats, "-3");
        QCOMPARE(repeats->text(), QStringLiteral("-3"));
        QTest::keyClick(repeats, Qt::Key_Return);
        other.setFocus(); // focus-out: Qt's spin box would revert to 1 here
        QApplication::processEvents();
        QCOMPARE(repeats->text(), QStringLiteral("-3"));
        const QString problems = p.problems().join('\n');
        QVERIFY2(problems.contains("repeats") && problems.contains("-3"), qPrintable(problems));
        auto* message = p.findChildren<QLabel*>().last();
        QVERIFY(message->isVisible());
        QVERIFY(message->text().contains("repeats"));
        QVERIFY(message->styleSheet().contains("color"));
        // A real field: "1.5x" is kept too.
        p.budgetBox()->setFocus();
        p.budgetBox()->selectAll();
        QTest::keyClicks(p.budgetBox(), "2.5.1");
        other.setFocus();
        QApplication::processEvents();
        QCOMPARE(p.budgetBox()->cleanText(), QStringLiteral("2.5.1"));
        QVERIFY(p.problems().join('\n').contains("Time budget per run (time_budget_s): \"2.5.1\""));
    }

    // Issue 18: a number typed outside its range must be named while it shows, not ignored.
    void typedOutOfRangeNumberIsAProblem()
    {
        ExperimentPanel p;
        p.show();
        QVERIFY(QTest::qWaitForWindowExposed(&p));
        QSpinBox* repeats = spinBox(p, "repeats");
        repeats->setFocus();
        repeats->selectAll();
        QTest::keyClicks(repeats, "0");
        QVERIFY2(p.problems().join('\n').contains("repeats") && p.problems().join('\n').contains("0"),
                 qPrintable(p.problems().join('\n')));
        repeats->selectAll();
        QTest::keyClicks(repeats, "5");
        QVERIFY(p.problems().isEmpty());
        QCOMPARE(p.values().value("repeats").toInt(), 5);
    }
};

QTEST_MAIN(TestExperimentPanel)
#include "tst_experimentpanel.moc"
