// ExperimentPanel: the σ grid parser, values() ⇄ setValues(), kept keys and field problems.
#include "setup/ExperimentPanel.h"

#include <ExperimentKind.h>
#include <ExperimentRunner.h>
#include <ExperimentSpec.h>

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
// A kind the panel has no fields for, as a contributor would add one (docs/contributing.md): its
// own key "rounds" and a "sweep" of its own.
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
    bool parseSweep(const QJsonValue&, tb::ExperimentSpec&, QString*, QString*) const override { return true; }
    void write(const tb::ExperimentSpec&, QJsonObject&) const override {}
    int plannedRuns(const tb::ExperimentSpec&) const override { return 1; }
    bool runsOneAtATime(const tb::ExperimentSpec&) const override { return true; }
    tb::ExperimentResult run(tb::ExperimentContext&, const tb::ExperimentSpec&, qint64, tb::ExperimentObserver*) const override
    {
        return {};
    }
    QStringList charts() const override { return {}; }
};
} // namespace
TB_REGISTER_EXPERIMENT_KIND(RoundsKind)

class TestExperimentPanel : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void parsesSigmaLists_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QList<double>>("expected");
        QTest::addColumn<QString>("error");
        QTest::newRow("commas") << "0, 0.1, 0.5" << QList<double>{0, 0.1, 0.5} << "";
        QTest::newRow("spaces") << " 0 0.25\t1 " << QList<double>{0, 0.25, 1} << "";
        QTest::newRow("range") << "0:0.25:1" << QList<double>{0, 0.25, 0.5, 0.75, 1} << "";
        QTest::newRow("range rounding") << "0:0.1:0.3" << QList<double>{0, 0.1, 0.2, 0.3} << "";
        QTest::newRow("not a number") << "0, x" << QList<double>{} << "\"x\" is not a number (in \"0, x\")";
        QTest::newRow("negative") << "0, -1" << QList<double>{} << "σ must be ≥ 0, got -1";
        QTest::newRow("empty") << "  " << QList<double>{} << "give at least one σ value";
        QTest::newRow("bad range") << "0:0:1" << QList<double>{} << "the step must be positive";
        QTest::newRow("huge range") << "0:1e-6:1" << QList<double>{} << "at most 10000";
        QTest::newRow("inf") << "inf" << QList<double>{} << "is not a number";
    }
    void parsesSigmaLists()
    {
        QFETCH(QString, text);
        QFETCH(QList<double>, expected);
        QFETCH(QString, error);
        QList<double> got;
        QString message;
        const bool ok = ExperimentPanel::parseSigmas(text, &got, &message);
        QCOMPARE(ok, error.isEmpty());
        if (ok) {
            QCOMPARE(got.size(), expected.size());
            for (int i = 0; i < got.size(); ++i)
                QCOMPARE(got[i], expected[i]);
            QList<double> again;
            QVERIFY(ExperimentPanel::parseSigmas(ExperimentPanel::formatSigmas(got), &again, nullptr));
            QCOMPARE(again, got); // what is written is read back exactly
        } else {
            QVERIFY2(message.contains(error), qPrintable(message));
        }
    }

    void valuesRoundTripAndKeepWhatThePanelDoesNotEdit()
    {
        ExperimentPanel panel;
        QSignalSpy changed(&panel, &ExperimentPanel::changed);
        const QJsonObject in{{"name", "n"},
                             {"description", "kept"},
                             {"kind", "noise-sweep"},
                             {"sweep", QJsonObject{{"sigma", QJsonArray{0, 0.5}}, {"monte_carlo", 7}}},
                             {"seed", "18446744073709551615"},
                             {"threads", 2},
                             {"time_budget_s", 1.5}};
        panel.setValues(in);
        QCOMPARE(changed.count(), 1);
        QCOMPARE(panel.values(), in);
        QVERIFY(panel.problems().isEmpty());

        panel.kindBox()->setCurrentIndex(0); // learning curve: repeats instead of the sweep
        const QJsonObject lc = panel.values();
        QVERIFY(!lc.contains("sweep"));
        QCOMPARE(lc.value("repeats").toInt(), 1);
        QVERIFY(changed.count() > 1);

        // The file format reads what the panel writes.
        QJsonObject whole = lc;
        whole.insert("dataset", QJsonObject{{"source", "moons"}});
        whole.insert("algorithms", QJsonArray{QJsonObject{{"id", "x"}}});
        QString error;
        const auto spec = tb::ExperimentSpec::fromObject(whole, "panel", &error);
        QVERIFY2(spec, qPrintable(error));
        QCOMPARE(spec->seed, std::numeric_limits<std::uint64_t>::max());
        QCOMPARE(spec->description, QStringLiteral("kept"));
    }

    void theBudgetsClockIsChosenAndWrittenBack()
    {
        ExperimentPanel panel;
        QVERIFY(!panel.budgetClockBox()->isEnabled()); // no budget, no clock
        const QJsonObject cpu{{"name", "n"}, {"kind", "learning-curve"}, {"repeats", 1}, {"seed", 1},
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

    void aKindWithoutFieldsKeepsItsKeys()
    {
        // The panel lists every registered kind; one it has no fields for keeps its keys and its
        // sweep as the file wrote them, and gets no "repeats" of the built-in kinds.
        ExperimentPanel panel;
        QVERIFY(panel.kindBox()->findData("test-rounds") >= 0);
        const QJsonObject in{{"name", "n"}, {"kind", "test-rounds"}, {"rounds", 3}, {"sweep", QJsonObject{{"x", 1}}}, {"seed", 4}};
        panel.setValues(in);
        QVERIFY(!panel.ownsKindKeys());
        QCOMPARE(panel.values(), in);
        panel.kindBox()->setCurrentIndex(panel.kindBox()->findData("learning-curve"));
        QVERIFY(panel.ownsKindKeys());
        QVERIFY(!panel.values().contains("sweep"));
        QCOMPARE(panel.values().value("repeats").toInt(), 1);
    }

    void fieldProblemsNameTheirKey()
    {
        ExperimentPanel panel;
        panel.kindBox()->setCurrentIndex(1);
        panel.sigmaEdit()->setText("0, 0.1,");
        QVERIFY(panel.problems().isEmpty()); // a trailing separator is harmless
        panel.sigmaEdit()->setText("0; abc");
        QCOMPARE(panel.problems().value(0), QStringLiteral("σ values (sweep.sigma): \"abc\" is not a number (in \"0; abc\")"));
        panel.setNoiseSweepAvailable(false);
        QVERIFY(panel.problems().join('\n').contains("Kind (kind): the data set has no noise level"));
        panel.kindBox()->setCurrentIndex(0);
        QVERIFY(panel.problems().isEmpty()); // learning curves need neither
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
        p.repeatsBox()->setFocus();
        p.repeatsBox()->selectAll();
        QTest::keyClicks(p.repeatsBox(), "-3");
        QCOMPARE(p.repeatsBox()->text(), QStringLiteral("-3"));
        QTest::keyClick(p.repeatsBox(), Qt::Key_Return);
        other.setFocus(); // focus-out: Qt's spin box would revert to 1 here
        QApplication::processEvents();
        QCOMPARE(p.repeatsBox()->text(), QStringLiteral("-3"));
        const QString problems = p.problems().join('\n');
        QVERIFY2(problems.contains("Repeats (repeats): \"-3\" is not a whole number from 1 to 1000"), qPrintable(problems));
        auto* message = p.findChildren<QLabel*>().last();
        QVERIFY(message->isVisible());
        QVERIFY(message->text().contains("Repeats (repeats)"));
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
        p.repeatsBox()->setFocus();
        p.repeatsBox()->selectAll();
        QTest::keyClicks(p.repeatsBox(), "0");
        QVERIFY2(p.problems().join('\n').contains("Repeats (repeats): \"0\" is not a whole number from 1 to 1000"),
                 qPrintable(p.problems().join('\n')));
        p.repeatsBox()->selectAll();
        QTest::keyClicks(p.repeatsBox(), "5");
        QVERIFY(p.problems().isEmpty());
        QCOMPARE(p.values().value("repeats").toInt(), 5);
    }
};

QTEST_MAIN(TestExperimentPanel)
#include "tst_experimentpanel.moc"
