// ParamForm: editors generated from a schema, inline validation, defaults and round trips.
#include "widgets/LayerSizeEdit.h"
#include "widgets/LogSlider.h"
#include "setup/ParamForm.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QLabel>
#include <QLayout>
#include <QSignalSpy>
#include <QSpinBox>
#include <QLineEdit>
#include <QTest>

using namespace tb;
using tb::gui::LayerSizeEdit;
using tb::gui::LogSlider;
using tb::gui::ParamForm;

class TestParamForm : public QObject {
    Q_OBJECT
private:
    static ParamSchema schema()
    {
        return ParamSchema{
            ParamSpec::integer("epochs", "Epochs", 20, 1, 10000, "Passes over the data."),
            ParamSpec::real("lr", "Learning rate", 1e-3, 1e-6, 1.0, "Step size.", true),
            ParamSpec::real("lambda", "Ridge λ", 0.0, 0.0, 1e6, "Ridge term."),
            ParamSpec::boolean("nesterov", "Nesterov", false, "Look-ahead gradient."),
            ParamSpec::choice("activation", "Activation", {"tanh", "relu", "sigmoid"}, "relu", "Hidden activation."),
            ParamSpec::intList("hidden", "Hidden layers", {50, 20}, 1, 8, 1, 4096, "Hidden-layer sizes."),
        };
    }

    static bool messageShown(const ParamForm& f, const QString& key)
    {
        return f.messageLabel(key)->isVisibleTo(const_cast<ParamForm*>(&f));
    }

private Q_SLOTS:
    void editorTypesAndRanges()
    {
        ParamForm f(schema());
        auto* epochs = qobject_cast<QSpinBox*>(f.editor("epochs"));
        QVERIFY(epochs);
        // The arrows step inside the valid range [1, 10000] only.
        epochs->setValue(10000);
        epochs->stepUp();
        QCOMPARE(epochs->value(), 10000);
        epochs->setValue(1);
        epochs->stepDown();
        QCOMPARE(epochs->value(), 1);

        auto* lr = qobject_cast<QDoubleSpinBox*>(f.editor("lr"));
        QVERIFY(lr);
        lr->setValue(1.0);
        lr->stepUp();
        QCOMPARE(lr->value(), 1.0);
        QVERIFY(f.slider("lr"));                     // log-scale real gets a slider
        QCOMPARE(f.slider("lr")->lowerBound(), 1e-6);
        QCOMPARE(f.slider("lr")->upperBound(), 1.0);
        QVERIFY(qobject_cast<QDoubleSpinBox*>(f.editor("lambda")));
        QVERIFY(!f.slider("lambda"));                // linear real: no slider

        QVERIFY(qobject_cast<QCheckBox*>(f.editor("nesterov")));
        auto* act = qobject_cast<QComboBox*>(f.editor("activation"));
        QVERIFY(act);
        QCOMPARE(act->count(), 3);
        QCOMPARE(act->itemText(2), QString("sigmoid"));
        QVERIFY(qobject_cast<LayerSizeEdit*>(f.editor("hidden")));
        QVERIFY(!f.editor("nope"));

        // The help text (with default and range) is the tooltip.
        QVERIFY(f.editor("lr")->toolTip().contains("Step size."));
        QVERIFY(f.editor("lr")->toolTip().contains("log scale"));
    }

    void defaultsAreTheSchemaDefaults()
    {
        ParamForm f(schema());
        const QVariantMap v = f.values();
        QCOMPARE(v.keys(), schema().defaults().keys());
        QCOMPARE(v.value("epochs").toLongLong(), 20LL);
        QCOMPARE(v.value("lr").toDouble(), 1e-3);     // not rounded to "0.00" by the spin box
        QCOMPARE(v.value("lambda").toDouble(), 0.0);
        QCOMPARE(v.value("nesterov").toBool(), false);
        QCOMPARE(v.value("activation").toString(), QString("relu"));
        QCOMPARE(v.value("hidden").toList(), (QVariantList{50, 20}));
        QVERIFY(f.problems().isEmpty());
        QCOMPARE(schema().validate(v), QString());
        QCOMPARE(qobject_cast<QDoubleSpinBox*>(f.editor("lr"))->text(), QString("0.001"));
    }

    void badLayerListShowsMessage()
    {
        ParamForm f(schema());
        auto* hidden = qobject_cast<LayerSizeEdit*>(f.editor("hidden"));
        QSignalSpy changed(&f, &ParamForm::changed);
        hidden->setText("50, -3");
        QVERIFY(changed.count() >= 1);
        QVERIFY(messageShown(f, "hidden"));
        QVERIFY2(f.messageLabel("hidden")->text().contains("-3"), qPrintable(f.messageLabel("hidden")->text()));
        QCOMPARE(f.problems().size(), 1);
        QVERIFY(f.problems().first().startsWith("Hidden layers (hidden): "));
        QVERIFY2(f.problems().first().contains("expected an integer 1 to 4096"), qPrintable(f.problems().first()));
        QCOMPARE(f.values().value("hidden").toString(), QString("50, -3")); // raw, so it is reported downstream

        hidden->setText("");
        QVERIFY(messageShown(f, "hidden"));
        QVERIFY2(f.problems().value(0).contains("0 values, expected 1 to 8"), qPrintable(f.problems().value(0)));

        hidden->setText("64 32,16");
        QVERIFY(!messageShown(f, "hidden"));
        QVERIFY(f.problems().isEmpty());
        QCOMPARE(f.values().value("hidden").toList(), (QVariantList{64, 32, 16}));
    }

    void outOfRangeValueIsReportedNotClamped()
    {
        ParamForm f(schema());
        f.setValues({{"lr", 5.0}, {"epochs", 0}});
        QCOMPARE(f.problems().size(), 2);
        QCOMPARE(f.problems().at(0), QString("Epochs (epochs): expected an integer 1 to 10000, got 0"));
        QCOMPARE(f.problems().at(1), QString("Learning rate (lr): expected a number 1e-06 to 1, got 5"));
        QVERIFY(messageShown(f, "lr"));
        QCOMPARE(f.messageLabel("lr")->text(), QString("Learning rate (lr): expected a number 1e-06 to 1, got 5"));
        QCOMPARE(f.values().value("lr").toDouble(), 5.0);
        // The fields show the values as given, beside their messages: never a silent clamp.
        QCOMPARE(qobject_cast<QDoubleSpinBox*>(f.editor("lr"))->text(), QString("5"));
        QCOMPARE(qobject_cast<QSpinBox*>(f.editor("epochs"))->text(), QString("0"));
        // One step with the arrows brings a value back into its range.
        qobject_cast<QSpinBox*>(f.editor("epochs"))->stepUp();
        QCOMPARE(qobject_cast<QSpinBox*>(f.editor("epochs"))->value(), 1);
        QCOMPARE(f.problems(), QStringList{"Learning rate (lr): expected a number 1e-06 to 1, got 5"});

        // Editing the row replaces the rejected value and clears the message.
        qobject_cast<QDoubleSpinBox*>(f.editor("lr"))->setValue(0.01);
        QVERIFY(!messageShown(f, "lr"));
        QCOMPARE(f.values().value("lr").toDouble(), 0.01);
        QVERIFY(f.problems().isEmpty());

        f.setValues({{"activation", "softmax"}});
        QVERIFY2(f.problems().value(0).startsWith("Activation (activation): ") && f.problems().value(0).contains("expected one of") &&
                     f.problems().value(0).contains("\"softmax\""),
                 qPrintable(f.problems().value(0)));
    }

    void resetRestoresDefaults()
    {
        ParamForm f(schema());
        f.setValues({{"epochs", 7}, {"lr", 0.5}, {"nesterov", true}, {"activation", "tanh"}, {"hidden", "9"}});
        QCOMPARE(f.values().value("epochs").toLongLong(), 7LL);
        QSignalSpy changed(&f, &ParamForm::changed);
        f.resetToDefaults();
        QCOMPARE(changed.count(), 1);
        QCOMPARE(*schema().normalise(f.values(), nullptr), *schema().normalise({}, nullptr));
        QCOMPARE(qobject_cast<QComboBox*>(f.editor("activation"))->currentText(), QString("relu"));
        QCOMPARE(qobject_cast<LayerSizeEdit*>(f.editor("hidden"))->text(), QString("50, 20"));
    }

    void setValuesRoundTrips()
    {
        const QVariantMap in{{"epochs", qlonglong(300)}, {"lr", 3.3e-5}, {"lambda", 0.125},
                             {"nesterov", true}, {"activation", QString("sigmoid")},
                             {"hidden", QVariantList{128, 64, 10}}};
        ParamForm f(schema());
        f.setValues(in);
        QCOMPARE(f.values(), in);
        QVERIFY(f.problems().isEmpty());

        // Unknown keys are ignored and missing keys fall back to their default.
        ParamForm g(schema());
        g.setValues({{"epochs", 5}, {"typo", 1}});
        QVariantMap expect = *schema().normalise({{"epochs", 5}}, nullptr);
        QCOMPARE(g.values(), expect);
        QVERIFY(g.problems().isEmpty());

        // A second form fed the first one's values is identical: nothing rounded on the way.
        ParamForm h(schema());
        h.setValues(f.values());
        QCOMPARE(h.values(), in);
    }

    void logSliderDrivesSpinBox()
    {
        ParamForm f(schema());
        auto* lr = qobject_cast<QDoubleSpinBox*>(f.editor("lr"));
        LogSlider* s = f.slider("lr");
        s->setValue(s->maximum());
        QCOMPARE(lr->value(), 1.0);
        s->setValue(0);
        QCOMPARE(lr->value(), 1e-6);
        // Middle of 6 decades is 1e-3 (the slider rounds to 3 significant digits).
        s->setValue(LogSlider::steps() / 2);
        QCOMPARE(lr->value(), 1e-3);
        lr->setValue(0.1);
        QCOMPARE(s->value(), LogSlider::steps() * 5 / 6); // log10(0.1) is 5/6 of the way from -6 to 0
    }

    // Issue 18: a value typed outside its range was ignored silently (the run used the old one).
    // The field keeps what was typed, says why it is invalid while it is typed, and values()
    // reports the typed value before Enter or Tab, so a Run that reads it is refused.
    void typedOutOfRangeValueIsKeptAndNamedNeverIgnored()
    {
        ParamForm f(schema());
        f.show(); // focus changes need a shown window
        QVERIFY(QTest::qWaitForWindowExposed(&f));
        auto* lr = qobject_cast<QDoubleSpinBox*>(f.editor("lr"));
        lr->setFocus();
        lr->selectAll();
        QTest::keyClicks(lr, "20");
        // Not committed yet (no Enter, no Tab): the form already reports the typed value.
        QCOMPARE(f.values().value("lr").toDouble(), 20.0);
        QCOMPARE(f.problems(), QStringList{"Learning rate (lr): expected a number 1e-06 to 1, got 20"});
        QVERIFY(messageShown(f, "lr"));
        // Tab keeps it (it used to revert to the old value silently).
        QTest::keyClick(lr, Qt::Key_Tab);
        QCOMPARE(lr->text(), QString("20"));
        QCOMPARE(f.values().value("lr").toDouble(), 20.0);
        QVERIFY(messageShown(f, "lr"));

        auto* epochs = qobject_cast<QSpinBox*>(f.editor("epochs"));
        epochs->setFocus();
        epochs->selectAll();
        QTest::keyClicks(epochs, "-5");
        QCOMPARE(f.problems().value(0), QString("Epochs (epochs): expected an integer 1 to 10000, got -5"));
        // Half-typed text is named too, not replaced by the previous value.
        epochs->selectAll();
        QTest::keyClick(epochs, Qt::Key_Backspace);
        QVERIFY2(f.problems().value(0).startsWith("Epochs (epochs): "), qPrintable(f.problems().join('|')));
        QTest::keyClicks(epochs, "30");
        lr->selectAll();
        QTest::keyClicks(lr, "0.5");
        QVERIFY(f.problems().isEmpty());
        QCOMPARE(f.values().value("epochs").toLongLong(), 30LL);
        QCOMPARE(f.values().value("lr").toDouble(), 0.5);
        QVERIFY(!messageShown(f, "lr"));
    }

    // Issue 29: "2.5" typed in Epochs became 25 (the '.' was dropped); "abc" in a real field
    // was refused key by key. The text stays, the row names it with the label, Tab keeps it.
    void textThatIsNoNumberOfTheTypeIsKept()
    {
        ParamForm f(schema());
        QLineEdit other(&f);
        f.layout()->addWidget(&other);
        f.show();
        QVERIFY(QTest::qWaitForWindowExposed(&f));
        auto* epochs = qobject_cast<QSpinBox*>(f.editor("epochs"));
        epochs->setFocus();
        epochs->selectAll();
        QTest::keyClicks(epochs, "2.5");
        QCOMPARE(epochs->text(), QString("2.5"));
        QVERIFY(messageShown(f, "epochs"));
        QVERIFY2(f.problems().value(0).startsWith("Epochs (epochs): ") && f.problems().value(0).contains("2.5"),
                 qPrintable(f.problems().join('|')));
        other.setFocus();
        QApplication::processEvents();
        QCOMPARE(epochs->text(), QString("2.5"));
        QVERIFY(messageShown(f, "epochs"));
        auto* lr = qobject_cast<QDoubleSpinBox*>(f.editor("lr"));
        lr->setFocus();
        lr->selectAll();
        QTest::keyClicks(lr, "0.1x");
        QCOMPARE(lr->text(), QString("0.1x"));
        other.setFocus();
        QApplication::processEvents();
        QCOMPARE(lr->text(), QString("0.1x"));
        QCOMPARE(f.problems().size(), 2);
        QVERIFY2(f.problems().value(1).startsWith("Learning rate (lr): "), qPrintable(f.problems().join('|')));
    }

    void explicitValuesAreWhatWasGivenOrEdited()
    {
        ParamForm f(schema());
        QVERIFY(f.explicitValues().isEmpty());
        f.setValues({{"epochs", 20}, {"hidden", QVariantList{50, 20}}}); // both equal their defaults
        QCOMPARE(f.explicitValues(), (QVariantMap{{"epochs", qlonglong(20)}, {"hidden", QVariantList{50, 20}}}));
        qobject_cast<QCheckBox*>(f.editor("nesterov"))->setChecked(true);
        QCOMPARE(f.explicitValues().keys(), (QStringList{"epochs", "hidden", "nesterov"}));
        f.resetToDefaults();
        QVERIFY(f.explicitValues().isEmpty());
    }

    void scientificTextIsAccepted()
    {
        ParamForm f(schema());
        auto* lr = qobject_cast<QDoubleSpinBox*>(f.editor("lr"));
        lr->selectAll();
        QTest::keyClicks(lr, "2.5e-4");
        QTest::keyClick(lr, Qt::Key_Enter);
        QCOMPARE(f.values().value("lr").toDouble(), 2.5e-4);
    }

    void realListIsEditedAsText()
    {
        // A list of numbers (a tolerance ladder) is typed like a layer list; the schema parses it.
        ParamForm f(ParamSchema{ParamSpec::realList("ladder", "Tolerance ladder", {}, 0, 3, 1e-12, 10.0,
                                                    "Tolerances, loosest first.")});
        auto* ladder = qobject_cast<LayerSizeEdit*>(f.editor("ladder"));
        QVERIFY(ladder);
        QCOMPARE(f.values().value("ladder").toList(), QVariantList{}); // the default, empty
        QVERIFY(f.problems().isEmpty());
        ladder->setText("0.1, 1e-3 1e-05");
        QVERIFY(f.problems().isEmpty());
        QCOMPARE(f.values().value("ladder").toList(), (QVariantList{0.1, 1e-3, 1e-5}));
        ladder->setText("0.1, 0");
        QVERIFY(messageShown(f, "ladder"));
        QVERIFY2(f.problems().value(0).contains("expected a number 1e-12 to 10"), qPrintable(f.problems().join('|')));
        ladder->setText("1, 0.1, 0.01, 0.001");
        QVERIFY2(f.problems().value(0).contains("4 values, expected 0 to 3"), qPrintable(f.problems().join('|')));
        f.setValues({{"ladder", QVariantList{0.5, 0.25}}});
        QCOMPARE(ladder->text(), QString("0.5, 0.25"));
        QVERIFY(f.problems().isEmpty());
    }
};

QTEST_MAIN(TestParamForm)
#include "tst_paramform.moc"
