#include <DataSource.h>
#include <DataSourceRegistry.h>
#include <PluginRegistry.h>

#include <QTemporaryDir>
#include <QtTest>

using tb::PluginSpec;

class TestPluginRegistry : public QObject {
    Q_OBJECT
private:
    tb::PluginRegistry m_reg;

    const PluginSpec* byFile(const QString& part) const
    {
        for (const auto& s : m_reg.plugins())
            if (QFileInfo(s->filePath).fileName().contains(part))
                return s.get();
        return nullptr;
    }

private Q_SLOTS:
    void initTestCase() { m_reg.scan({TB_TEST_PLUGIN_DIR, TB_PLUGIN_BUILD_DIR, "/nonexistent/folder"}); }

    void brokenPluginsAreListedWithReasons()
    {
        const PluginSpec* wrong = byFile("wrongiid");
        QVERIFY(wrong);
        QCOMPARE(wrong->state, PluginSpec::State::Invalid);
        QVERIFY2(wrong->error.contains("org.example.OtherInterface/1"), qPrintable(wrong->error));

        const PluginSpec* old = byFile("oldapi");
        QVERIFY(old);
        QCOMPARE(old->state, PluginSpec::State::Invalid);
        QVERIFY2(old->error.contains("API 0") && old->error.contains(QString("API %1").arg(tb::ApiVersion)), qPrintable(old->error));

        const PluginSpec* notPlugin = byFile("notaplugin");
        QVERIFY(notPlugin);
        QCOMPARE(notPlugin->state, PluginSpec::State::Invalid);
        QVERIFY2(notPlugin->error.contains("not a Qt plugin"), qPrintable(notPlugin->error));
    }

    void oddEntriesInThePluginFolderAreListed()
    {
        // A dangling symbolic link and a folder named like a library used to be skipped without
        // a word: a user whose plugin did not appear could not tell why.
        QTemporaryDir dir;
        QVERIFY(QFile::link(dir.filePath("gone.so"), dir.filePath("dangling.so")));
        QVERIFY(QDir(dir.path()).mkdir("folder.so"));
        tb::PluginRegistry reg;
        reg.scan({dir.path()});
        QCOMPARE(reg.plugins().size(), 2);
        for (const auto& spec : reg.plugins()) {
            QCOMPARE(spec->state, PluginSpec::State::Invalid);
            if (spec->filePath.endsWith("dangling.so"))
                QVERIFY2(spec->error.contains("symbolic link") && spec->error.contains("gone.so") &&
                             spec->error.contains("does not exist"),
                         qPrintable(spec->error));
            else
                QCOMPARE(spec->error, QStringLiteral("a folder, not a library"));
        }
    }

    void everythingElseStillLoads()
    {
        const PluginSpec* t = byFile("tb_test_trainers");
        QVERIFY(t);
        QVERIFY2(t->isLoaded(), qPrintable(t->error));
        QCOMPARE(t->id, QStringLiteral("testtrainers"));
        QVERIFY(m_reg.algorithm("test.sleepy"));
        const auto* lin = m_reg.algorithm("linear.ridge");
        QVERIFY(lin);
        QCOMPARE(lin->plugin->version, QStringLiteral("1.0.0"));
    }

    void metadataReadBeforeLoading()
    {
        const PluginSpec* old = byFile("oldapi");
        QVERIFY(old);
        // Metadata is known even though the plugin was never instantiated.
        QCOMPARE(old->id, QStringLiteral("oldapi"));
        QCOMPARE(old->version, QStringLiteral("0.1.0"));
        QVERIFY(!old->factory);
    }

    void createValidatesParameters()
    {
        QVariantMap norm;
        auto t = m_reg.create("linear.ridge", {{"ridge", 0.5}}, &norm);
        QVERIFY(t);
        QCOMPARE(norm.value("ridge").toDouble(), 0.5);
        QCOMPARE(norm.value("bias").toBool(), true); // filled from the schema default
        try {
            m_reg.create("linear.ridge", {{"ridge", -1}});
            QFAIL("no exception for a negative ridge");
        } catch (const std::invalid_argument& e) {
            QVERIFY2(QString(e.what()).contains("ridge") && QString(e.what()).contains("-1"), e.what());
        }
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, m_reg.create("no.such", {}));
    }

    void dataSourcePluginAddsItsSources()
    {
        // A plugin that declares the data-source interface adds its sources to the registry that
        // experiment files and the data-set form read; one whose id is taken is refused by name.
        const PluginSpec* rings = byFile("ringssource");
        QVERIFY(rings);
        QVERIFY2(rings->isLoaded(), qPrintable(rings->error));
        QCOMPARE(rings->apiVersion, tb::ApiVersion);
        QCOMPARE(rings->dataSources, QStringList{"test_rings"});
        QVERIFY2(rings->error.contains("\"moons\"") && rings->error.contains("built in"), qPrintable(rings->error));
        const tb::data::DataSourceEntry* e = tb::data::DataSourceRegistry::find("test_rings");
        QVERIFY(e);
        QVERIFY2(e->origin.contains("ringssource"), qPrintable(e->origin));
        QCOMPARE(tb::data::DataSourceRegistry::find("moons")->origin, QStringLiteral("built in"));
        // Loaded through the host: split, schema defaults and the host's checks apply.
        const tb::data::DatasetPair p =
            tb::data::DataSource::load({{"source", "test_rings"}, {"samples", 100}, {"test_fraction", 0.2}}, {});
        QCOMPARE(p.train.rows(), Eigen::Index(80));
        QCOMPARE(p.test.rows(), Eigen::Index(20));
        QCOMPARE(p.train.outputs(), Eigen::Index(2));
        QVERIFY_THROWS_EXCEPTION(std::exception,
                                 tb::data::DataSource::load({{"source", "test_rings"}, {"samples", 2}}, {}));
    }

    void duplicatePluginIsShadowed()
    {
        // The same folder scanned twice: the second copy of each plugin is shadowed, not loaded twice.
        tb::PluginRegistry reg;
        reg.scan({TB_PLUGIN_BUILD_DIR, TB_PLUGIN_BUILD_DIR});
        int loaded = 0, shadowed = 0;
        for (const auto& s : reg.plugins()) {
            if (s->id != "linear")
                continue;
            loaded += s->isLoaded();
            shadowed += s->state == PluginSpec::State::Shadowed;
        }
        QCOMPARE(loaded, 1);
        QCOMPARE(shadowed, 1);
    }

    void schemaValidationMessages()
    {
        const auto* e = m_reg.algorithm("test.sleepy");
        QVERIFY(e);
        const auto& schema = e->info.schema;
        QVERIFY(schema.validate(schema.defaults()).isEmpty());
        QCOMPARE(schema.validate({{"epochs", 0}}), QStringLiteral("parameter \"epochs\": expected an integer 1 to 100000, got 0"));
        QVERIFY(schema.validate({{"epochs", 2.5}}).contains("expected an integer"));
        QVERIFY(schema.validate({{"epochs", "ten"}}).contains("\"ten\""));
        QVERIFY(schema.validate({{"epoch", 3}}).contains("unknown parameter \"epoch\""));
    }
};

QTEST_GUILESS_MAIN(TestPluginRegistry)
#include "tst_pluginregistry.moc"
