#include <engine/TextTable.h>

#include <QtTest>

using namespace tb;

class TestTextTable : public QObject {
    Q_OBJECT
private:
    static TextTable sample()
    {
        TextTable t({"name", "value"});
        t.setTitle("Scores");
        t.setAlign(1, TextTable::Align::Right);
        t.addRow({"Adam, lr=0.001", "91.2 ± 0.3 % ▲"});
        t.addRow({"a|b_c", "5"});
        t.addNote("▲: better");
        return t;
    }
private Q_SLOTS:
    void text()
    {
        QCOMPARE(sample().render(TextTable::Format::Text), QStringLiteral("Scores\n"
                                                                          "name                     value\n"
                                                                          "------------------------------\n"
                                                                          "Adam, lr=0.001  91.2 ± 0.3 % ▲\n"
                                                                          "a|b_c                        5\n"
                                                                          "▲: better\n"));
    }
    void csvQuotes()
    {
        QCOMPARE(sample().render(TextTable::Format::Csv), QStringLiteral("# Scores\nname,value\n\"Adam, lr=0.001\",91.2 ± 0.3 % ▲\n"
                                                                         "a|b_c,5\n# ▲: better\n"));
    }
    void markdownEscapesPipes()
    {
        QCOMPARE(sample().render(TextTable::Format::Markdown), QStringLiteral("**Scores**\n\n| name | value |\n|---|---:|\n"
                                                                              "| Adam, lr=0.001 | 91.2 ± 0.3 % ▲ |\n"
                                                                              "| a\\|b_c | 5 |\n\n▲: better\n"));
    }
    void latexEscapes()
    {
        QCOMPARE(sample().render(TextTable::Format::Latex),
                 QStringLiteral("% Scores\n\\begin{tabular}{lr}\n\\toprule\nname & value \\\\\n\\midrule\n"
                                "Adam, lr=0.001 & 91.2 $\\pm$ 0.3 \\% $\\blacktriangle$ \\\\\n"
                                "a|b\\_c & 5 \\\\\n\\bottomrule\n\\end{tabular}\n% ▲: better\n"));
    }
    void formatNames()
    {
        QCOMPARE(TextTable::formatFromName("MD"), TextTable::Format::Markdown);
        QCOMPARE(TextTable::formatFromName("latex"), TextTable::Format::Latex);
        QVERIFY(!TextTable::formatFromName("html"));
    }
};

QTEST_APPLESS_MAIN(TestTextTable)
#include "tst_texttable.moc"
