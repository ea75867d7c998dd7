// ParamSchema's real lists as a form types them (issue 44: the Experiment panel's σ field is a
// schema field now, so the range syntax the panel once parsed itself is the schema's): "0, 0.1",
// "0 0.1", "0; 0.1", and a range "start:step:stop", inclusive, rounded to 12 significant digits;
// bad ranges, too many values, values outside the range and empty lists named.
#include <trainbench/ParamSchema.h>

#include <QtTest>

using namespace tb;

namespace {

ParamSchema sigmas()
{
    ParamSchema s;
    s.add(ParamSpec::realList(QStringLiteral("sigma"), QStringLiteral("σ values"), QVariantList{0.0}, 1, 100, 0,
                              1e300, QStringLiteral("Noise levels.")));
    return s;
}

} // namespace

class TestParamSchema : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void realListsAsTyped_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QVariantList>("expected");
        QTest::addColumn<QString>("error");
        QTest::newRow("commas") << "0, 0.1, 0.5" << QVariantList{0.0, 0.1, 0.5} << "";
        QTest::newRow("spaces") << " 0 0.25\t1 " << QVariantList{0.0, 0.25, 1.0} << "";
        QTest::newRow("semicolons") << "0; 0.5" << QVariantList{0.0, 0.5} << "";
        QTest::newRow("trailing separator") << "0, 0.1," << QVariantList{0.0, 0.1} << "";
        QTest::newRow("range") << "0:0.25:1" << QVariantList{0.0, 0.25, 0.5, 0.75, 1.0} << "";
        // 0.1 + 0.1 + 0.1 is 0.30000000000000004: the range gives what a person typed.
        QTest::newRow("range rounding") << "0:0.1:0.3" << QVariantList{0.0, 0.1, 0.2, 0.3} << "";
        QTest::newRow("not a number") << "0, x" << QVariantList{} << "element 1";
        QTest::newRow("negative") << "0, -1" << QVariantList{} << "element 1";
        QTest::newRow("empty") << "  " << QVariantList{} << "0 values";
        QTest::newRow("zero step") << "0:0:1" << QVariantList{} << "the step must be positive";
        QTest::newRow("backwards") << "1:0.5:0" << QVariantList{} << "stop ≥ start";
        QTest::newRow("not a range") << "0:1" << QVariantList{} << "start:step:stop";
        QTest::newRow("too many") << "0:0.001:1" << QVariantList{} << "1001 values";
        QTest::newRow("inf") << "inf" << QVariantList{} << "element 0";
    }
    void realListsAsTyped()
    {
        QFETCH(QString, text);
        QFETCH(QVariantList, expected);
        QFETCH(QString, error);
        QString message;
        const auto out = sigmas().normalise({{"sigma", text}}, &message);
        QCOMPARE(bool(out), error.isEmpty());
        if (out)
            QCOMPARE(out->value("sigma").toList(), expected);
        else
            QVERIFY2(message.contains("sigma") && message.contains(error), qPrintable(message));
    }

    void integerListsTakeNoRanges()
    {
        ParamSchema s;
        s.add(ParamSpec::intList(QStringLiteral("hidden"), QStringLiteral("Hidden"), {50}, 0, 16, 1, 1000, QStringLiteral("Widths.")));
        QString message;
        QVERIFY(!s.normalise({{"hidden", "1:1:3"}}, &message));  // "1:1:3" is no list of integers
        const auto out = s.normalise({{"hidden", "50, 20"}}, &message);
        QVERIFY2(out, qPrintable(message));
        QCOMPARE(out->value("hidden").toList(), (QVariantList{50, 20}));
    }
};

QTEST_APPLESS_MAIN(TestParamSchema)
#include "tst_paramschema.moc"
