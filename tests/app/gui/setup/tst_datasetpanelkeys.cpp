// DatasetPanel with a data source of every key type: a source added by a plugin may declare any
// type the SDK offers (text, lists of numbers …), and the panel must build an editor for each
// and write back what it was given — not leave a row without an editor.
#include "setup/DatasetPanel.h"

#include <data/DataKeys.h>
#include <data/DataSourceRegistry.h>

#include <QJsonArray>
#include <QLineEdit>
#include <QtTest>

namespace {

class EveryTypeSource final : public tb::DataSourceProvider {
public:
    tb::DataSourceInfo info() const override
    {
        tb::DataSourceInfo i;
        i.id = QStringLiteral("test_every_type");
        i.label = QStringLiteral("Every key type (test)");
        i.description = QStringLiteral("A source of the panel's test.");
        i.task = tb::Task::Regression;
        i.params.add(tb::ParamSpec::text(QStringLiteral("title"), QStringLiteral("Title"), QString(), QStringLiteral("Free text.")));
        i.params.add(tb::ParamSpec::realList(QStringLiteral("levels"), QStringLiteral("Levels"), {0.5, 1.5}, 1, 8, 0, 10,
                                             QStringLiteral("Numbers.")));
        i.params.add(tb::ParamSpec::intList(QStringLiteral("sizes"), QStringLiteral("Sizes"), {3}, 0, 4, 1, 100,
                                            QStringLiteral("Integers.")));
        return i;
    }
    tb::DataTables load(const tb::DataRequest&) const override
    {
        tb::DataTables t;
        t.train.x = Eigen::MatrixXd::Ones(10, 1);
        t.train.y = Eigen::MatrixXd::Ones(10, 1);
        return t;
    }
    QString describe(const QVariantMap&) const override { return QStringLiteral("every type"); }
};

} // namespace

TB_REGISTER_DATA_SOURCE(EveryTypeSource)

class TestDatasetPanelKeys : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void everyKeyTypeHasAnEditorAndRoundTrips()
    {
        tb::gui::DatasetPanel panel;
        const QJsonObject in{{"source", "test_every_type"},
                             {"title", "a, b"},
                             {"levels", QJsonArray{0.25, 2.0, 7.5}},
                             {"sizes", QJsonArray{4, 8}}};
        panel.setSpec(in);
        for (const char* key : {"title", "levels", "sizes"}) {
            auto* e = panel.findChild<QLineEdit*>(QLatin1String(key));
            QVERIFY2(e, key);
        }
        QCOMPARE(panel.findChild<QLineEdit*>("levels")->text(), QStringLiteral("0.25, 2, 7.5"));
        const QJsonObject out = panel.spec();
        QCOMPARE(out.value("title").toString(), QStringLiteral("a, b")); // text stays text
        QCOMPARE(out.value("levels").toArray(), (QJsonArray{0.25, 2.0, 7.5}));
        QCOMPARE(out.value("sizes").toArray(), (QJsonArray{4.0, 8.0}));
        // A typo in a list is handed on as typed, for the schema to name.
        panel.findChild<QLineEdit*>("levels")->setText("1, x");
        QCOMPARE(panel.spec().value("levels").toString(), QStringLiteral("1, x"));
    }
};

QTEST_MAIN(TestDatasetPanelKeys)
#include "tst_datasetpanelkeys.moc"
