#include <data/DataSource.h>
#include <data/DataSourceRegistry.h>
#include <engine/PluginRegistry.h>
#include <engine/PluginTrust.h>
#include <engine/Runner.h>

#include <QJsonArray>
#include <QTemporaryDir>
#include <QtTest>

#include <grp.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

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

    static QString linearPlugin() { return QStringLiteral(TB_PLUGIN_BUILD_DIR "/trainbench-linear.so"); }

    /// A group this process may give a folder that is not the user's private group (root: any,
    /// here nogroup's 65534; others: a supplementary group); −1 when there is none.
    static gid_t foreignGroup()
    {
        if (geteuid() == 0)
            return 65534;
        gid_t groups[256];
        const int n = getgroups(256, groups);
        for (int i = 0; i < n; ++i)
            if (groups[i] != getegid())
                return groups[i];
        return gid_t(-1);
    }

    /// Whether this process's group is its user's private group (Debian's user private groups).
    static bool inPrivateGroup()
    {
        const passwd* pw = getpwuid(geteuid());
        const group* gr = getgrgid(getegid());
        return pw && gr && pw->pw_gid == getegid() && qstrcmp(gr->gr_name, pw->pw_name) == 0 &&
               (!gr->gr_mem[0] || (qstrcmp(gr->gr_mem[0], pw->pw_name) == 0 && !gr->gr_mem[1]));
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

        // A former id that points at no algorithm of the plugin: the metadata is wrong.
        const PluginSpec* rename = byFile("badrename");
        QVERIFY(rename);
        QCOMPARE(rename->state, PluginSpec::State::Failed);
        QVERIFY2(rename->error.contains("renamed_algorithms") && rename->error.contains("\"badrename.old\"") &&
                     rename->error.contains("\"badrename.missing\" is not an algorithm of this plugin"),
                 qPrintable(rename->error));
        QVERIFY(!m_reg.algorithm("badrename.one"));
        QVERIFY(!m_reg.algorithm("badrename.old"));
    }

    void formerIdsFindTheCurrentAlgorithm()
    {
        // testtrainers.json renames "test.drowsy" to "test.sleepy".
        const auto* e = m_reg.algorithm("test.drowsy");
        QVERIFY(e);
        QCOMPARE(e->info.id, QStringLiteral("test.sleepy"));
        QCOMPARE(m_reg.currentId("test.drowsy"), QStringLiteral("test.sleepy"));
        QCOMPARE(m_reg.currentId("test.nothing"), QStringLiteral("test.nothing"));
        QVERIFY2(m_reg.renamedNote("test.drowsy").contains("\"test.drowsy\" is now \"test.sleepy\" (testtrainers 0.0.1)"),
                 qPrintable(m_reg.renamedNote("test.drowsy")));
        QVERIFY(m_reg.renamedNote("test.sleepy").isEmpty());
        QVERIFY(m_reg.renamedNote("test.nothing").isEmpty());
        QVERIFY(m_reg.create("test.drowsy", {}));
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
        QCOMPARE(lin->plugin->version, QStringLiteral("2.0.0"));
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
        QCOMPARE(rings->apiVersion, tb::DataSourceApiVersion);
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

    // Issue 32: plugins are code. A folder (or file) that other users can write to is refused
    // before anything in it is read, unless the user trusts it explicitly; a plugin that replaces
    // another of its id says so.
    void foldersOthersCanWriteToAreRefused_data()
    {
        QTest::addColumn<int>("mode");
        QTest::addColumn<QString>("who");
        QTest::newRow("world-writable") << 0777 << "every user";
        QTest::newRow("group-writable") << 0775 << "its group (";
        QTest::newRow("sticky world-writable") << 01777 << "every user"; // others may still add files
    }
    void foldersOthersCanWriteToAreRefused()
    {
        QFETCH(int, mode);
        QFETCH(QString, who);
        QTemporaryDir dir; // 0700 under /tmp (sticky): safe until chmod
        const QString folder = dir.filePath("plugins");
        QVERIFY(QDir().mkpath(folder));
        QVERIFY(QFile::copy(linearPlugin(), folder + "/trainbench-linear-copy.so"));
        QCOMPARE(::chmod(QFile::encodeName(folder).constData(), mode_t(mode)), 0);
        if (who.startsWith("its group")) {
            // A group of others: the user's private group alone would be accepted (below).
            const gid_t other = foreignGroup();
            if (other == gid_t(-1))
                QSKIP("this user is in no group but its own");
            QCOMPARE(::chown(QFile::encodeName(folder).constData(), uid_t(-1), other), 0);
        }

        qunsetenv("TRAINBENCH_TRUST_PLUGIN_DIRS");
        tb::PluginRegistry reg;
        reg.scan({folder, TB_PLUGIN_BUILD_DIR});
        QCOMPARE(reg.folders().size(), 2);
        QCOMPARE(reg.folders()[0].state, tb::PluginFolder::State::Refused);
        QVERIFY2(reg.folders()[0].problem.contains(who) && reg.folders()[0].problem.contains(folder),
                 qPrintable(reg.folders()[0].problem));
        QCOMPARE(reg.folders()[1].state, tb::PluginFolder::State::Used);
        const PluginSpec* copy = nullptr;
        for (const auto& s : reg.plugins())
            if (s->filePath.endsWith("trainbench-linear-copy.so"))
                copy = s.get();
        QVERIFY(copy);
        QCOMPARE(copy->state, PluginSpec::State::Refused);
        QVERIFY(copy->id.isEmpty()); // not even its metadata was read
        QVERIFY2(copy->error.contains("TRAINBENCH_TRUST_PLUGIN_DIRS=" + folder), qPrintable(copy->error));
        // The built-in plugin is the one loaded, and the refusal is the first thing said.
        QVERIFY(reg.algorithm("linear.ridge"));
        QVERIFY(!reg.algorithm("linear.ridge")->plugin->filePath.startsWith(folder));
        QVERIFY(reg.algorithm("linear.ridge")->plugin->replaces.isEmpty());
        QVERIFY(!reg.notices().isEmpty());
        QVERIFY2(reg.notices().first().startsWith("plugin folder " + folder + " refused"), qPrintable(reg.notices().join('\n')));

        // Trusted explicitly: loaded, said so, and the copy replaces the built-in plugin.
        qputenv("TRAINBENCH_TRUST_PLUGIN_DIRS", QFile::encodeName("/nonexistent:" + folder));
        tb::PluginRegistry trusting;
        trusting.scan({folder, TB_PLUGIN_BUILD_DIR});
        qunsetenv("TRAINBENCH_TRUST_PLUGIN_DIRS");
        QCOMPARE(trusting.folders()[0].state, tb::PluginFolder::State::Trusted);
        const auto* linear = trusting.algorithm("linear.ridge");
        QVERIFY(linear);
        QVERIFY(linear->plugin->filePath.endsWith("trainbench-linear-copy.so"));
        QCOMPARE(linear->plugin->replaces, QStringList{QString(TB_PLUGIN_BUILD_DIR "/trainbench-linear.so")});
        const QString notices = trusting.notices().join('\n');
        QVERIFY2(notices.contains("loaded although") && notices.contains("TRAINBENCH_TRUST_PLUGIN_DIRS"), qPrintable(notices));
        QVERIFY2(notices.contains(QStringLiteral("plugin \"linear\" %1 from %2 replaces %3")
                                      .arg(linear->plugin->version, linear->plugin->filePath,
                                           TB_PLUGIN_BUILD_DIR "/trainbench-linear.so")),
                 qPrintable(notices));
    }

    void theUsersPrivateGroupMayWrite()
    {
        // umask 002 with user private groups (Debian's default) makes every folder group-writable
        // by a group of one: that is no one else, so such a folder is not refused.
        if (!inPrivateGroup())
            QSKIP("this process's group is not its user's private group");
        QTemporaryDir dir;
        const QString folder = dir.filePath("plugins");
        QVERIFY(QDir().mkpath(folder));
        QVERIFY(QFile::copy(linearPlugin(), folder + "/trainbench-linear-copy.so"));
        QCOMPARE(::chmod(QFile::encodeName(folder).constData(), 0775), 0);
        QCOMPARE(::chmod(QFile::encodeName(folder + "/trainbench-linear-copy.so").constData(), 0775), 0);
        QCOMPARE(tb::PluginTrust::folderProblem(folder), QString());
        QCOMPARE(tb::PluginTrust::fileProblem(folder + "/trainbench-linear-copy.so"), QString());
    }

    void aTrustedFolderLoadsItsUnsafeFilesAndSaysSo()
    {
        // The remedy a refused file names works: its folder in TRAINBENCH_TRUST_PLUGIN_DIRS.
        QTemporaryDir dir;
        const QString file = dir.filePath("trainbench-linear-copy.so");
        QVERIFY(QFile::copy(linearPlugin(), file));
        QCOMPARE(::chmod(QFile::encodeName(file).constData(), 0666), 0);
        qputenv("TRAINBENCH_TRUST_PLUGIN_DIRS", QFile::encodeName(dir.path()));
        tb::PluginRegistry reg;
        reg.scan({dir.path()});
        qunsetenv("TRAINBENCH_TRUST_PLUGIN_DIRS");
        QCOMPARE(reg.plugins().size(), 1);
        QCOMPARE(reg.plugins().first()->state, PluginSpec::State::Loaded);
        QCOMPARE(reg.folders().value(0).state, tb::PluginFolder::State::Trusted);
        QCOMPARE(reg.notices().size(), 1);
        QVERIFY2(reg.notices().first().startsWith("plugin folder " + dir.path() + " loaded although the plugin file " +
                                                  file + " is writable by every user (mode 0666), because "
                                                         "TRAINBENCH_TRUST_PLUGIN_DIRS names it"),
                 qPrintable(reg.notices().join('\n')));
    }

    void aPluginFileOthersCanWriteIsRefusedAlone()
    {
        QTemporaryDir dir;
        QVERIFY(QFile::copy(linearPlugin(), dir.filePath("trainbench-linear-copy.so")));
        QCOMPARE(::chmod(QFile::encodeName(dir.filePath("trainbench-linear-copy.so")).constData(), 0666), 0);
        tb::PluginRegistry reg;
        reg.scan({dir.path()});
        QCOMPARE(reg.folders().value(0).state, tb::PluginFolder::State::Used);
        QCOMPARE(reg.plugins().size(), 1);
        QCOMPARE(reg.plugins().first()->state, PluginSpec::State::Refused);
        QVERIFY2(reg.plugins().first()->error.contains("plugin file") &&
                     reg.plugins().first()->error.contains("writable by every user (mode 0666)"),
                 qPrintable(reg.plugins().first()->error));
        QVERIFY2(reg.notices().value(0).startsWith("plugin file " + dir.filePath("trainbench-linear-copy.so")),
                 qPrintable(reg.notices().join('\n')));
    }

    void aFolderAboveThatOthersCanWriteToIsRefused()
    {
        // Whoever may write to a folder above can rename the plugin folder and put another in its
        // place; a sticky folder above (like /tmp) keeps others from renaming what is not theirs.
        QTemporaryDir dir;
        const QString folder = dir.filePath("open/plugins");
        QVERIFY(QDir().mkpath(folder));
        QVERIFY(QFile::copy(linearPlugin(), folder + "/trainbench-linear-copy.so"));
        QCOMPARE(::chmod(QFile::encodeName(dir.filePath("open")).constData(), 0777), 0);
        QVERIFY2(tb::PluginTrust::folderProblem(folder).contains(dir.filePath("open") + " above"),
                 qPrintable(tb::PluginTrust::folderProblem(folder)));
        QCOMPARE(::chmod(QFile::encodeName(dir.filePath("open")).constData(), 01777), 0);
        QCOMPARE(tb::PluginTrust::folderProblem(folder), QString());
        tb::PluginRegistry reg;
        reg.scan({folder});
        QVERIFY(reg.algorithm("linear.ridge"));
        QVERIFY(reg.notices().isEmpty());
    }

    void replacementIsAnnounced()
    {
        // A copy first on the search path (as TRAINBENCH_PLUGIN_PATH puts it) replaces the built-in
        // plugin: the replacing plugin knows what it replaced, and the notice says so.
        QTemporaryDir dir;
        QVERIFY(QFile::copy(linearPlugin(), dir.filePath("trainbench-linear-copy.so")));
        tb::PluginRegistry reg;
        reg.scan({dir.path(), TB_PLUGIN_BUILD_DIR});
        const auto* linear = reg.algorithm("linear.ridge");
        QVERIFY(linear);
        QCOMPARE(linear->plugin->filePath, dir.filePath("trainbench-linear-copy.so"));
        QCOMPARE(linear->plugin->replaces, QStringList{QString(TB_PLUGIN_BUILD_DIR "/trainbench-linear.so")});
        QCOMPARE(reg.notices().size(), 1);
        QCOMPARE(reg.notices().first(), tb::PluginRegistry::replacementNotice(*linear->plugin));
        QVERIFY(reg.notices().first().contains("replaces " TB_PLUGIN_BUILD_DIR "/trainbench-linear.so"));
        // A run records it among its facts, from its first moment.
        tb::RunJob job;
        job.algorithmId = "linear.ridge";
        const tb::RunRecord rec = tb::Runner(reg, nullptr).record(job);
        const QJsonObject fact = rec.info.value("plugin_replaces").toObject();
        QCOMPARE(fact.value("file").toString(), dir.filePath("trainbench-linear-copy.so"));
        QCOMPARE(fact.value("replaces").toArray().first().toString(), QString(TB_PLUGIN_BUILD_DIR "/trainbench-linear.so"));
        QVERIFY(tb::reservedFactKeys().contains("plugin_replaces")); // no trainer can overwrite it
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
