#include <engine/ExperimentSpec.h>
#include <engine/PluginRegistry.h>

#include <QtTest>

using tb::ExperimentSpec;

namespace {
QString parseError(const QByteArray& json)
{
    QString err;
    const auto s = ExperimentSpec::fromJson(json, "exp.json", &err);
    return s ? QString() : err;
}
} // namespace

class TestExperimentSpec : public QObject {
    Q_OBJECT
private:
    tb::PluginRegistry m_reg;

private Q_SLOTS:
    void initTestCase() { m_reg.scan({TB_TEST_PLUGIN_DIR, TB_PLUGIN_BUILD_DIR}); }

    void parsesLearningCurve()
    {
        QString err;
        const auto s = ExperimentSpec::fromJson(R"({"name": "x", "kind": "learning-curve",
            "dataset": {"source": "moons"}, "repeats": 3, "seed": 7, "threads": 2,
            "algorithms": [{"id": "linear.ridge", "label": "Ridge", "params": {"ridge": 0.1}}]})",
                                                "exp.json", &err);
        QVERIFY2(s, qPrintable(err));
        QCOMPARE(s->repeats, 3);
        QCOMPARE(s->seed, std::uint64_t(7));
        QCOMPARE(s->algorithms.size(), 1);
        QCOMPARE(s->algorithms[0].params.value("ridge").toDouble(), 0.1);
        QVERIFY(s->validate(m_reg).isEmpty());
    }

    void syntaxErrorNamesLineAndColumn()
    {
        const QString e = parseError("{\n  \"name\": \"x\",\n  \"kind\" \"learning-curve\"\n}");
        QVERIFY2(e.startsWith("exp.json:3:"), qPrintable(e));
    }

    void wrongValuesNameTheirKey_data()
    {
        QTest::addColumn<QByteArray>("json");
        QTest::addColumn<QString>("expected");
        const QByteArray base = R"("dataset": {"source": "moons"}, "algorithms": [{"id": "linear.ridge"}])";
        QTest::newRow("kind") << QByteArray("{\"kind\": \"curve\", " + base + "}") << "exp.json: kind: expected one of \"learning-curve\", \"noise-sweep\", \"param-sweep\", \"tuned-comparison\", got \"curve\"";
        QTest::newRow("unknown key") << QByteArray("{\"kind\": \"learning-curve\", \"repeat\": 3, " + base + "}") << "exp.json: repeat: unknown key";
        QTest::newRow("repeats") << QByteArray("{\"kind\": \"learning-curve\", \"repeats\": 0, " + base + "}") << "exp.json: repeats: expected an integer 1 to 1000, got 0";
        QTest::newRow("threads type") << QByteArray("{\"kind\": \"learning-curve\", \"threads\": \"two\", " + base + "}") << "exp.json: threads: expected an integer 0 to 1024, got \"two\"";
        QTest::newRow("no algorithms") << QByteArray(R"({"kind": "learning-curve", "dataset": {"source": "moons"}, "algorithms": []})") << "exp.json: algorithms: expected a non-empty array";
        QTest::newRow("algorithm key") << QByteArray(R"({"kind": "learning-curve", "dataset": {"source": "moons"}, "algorithms": [{"id": "a", "parms": {}}]})") << "exp.json: algorithms[0].parms: unknown key";
        QTest::newRow("sweep missing") << QByteArray("{\"kind\": \"noise-sweep\", " + base + "}") << "exp.json: sweep: a noise-sweep needs";
        QTest::newRow("sigma negative") << QByteArray("{\"kind\": \"noise-sweep\", \"sweep\": {\"sigma\": [0, -1]}, " + base + "}") << "exp.json: sweep.sigma[1]: expected σ ≥ 0, got -1";
        QTest::newRow("repeats in a noise sweep") << QByteArray("{\"kind\": \"noise-sweep\", \"repeats\": 3, \"sweep\": {\"sigma\": [0]}, " + base + "}") << "exp.json: repeats: unknown key for kind \"noise-sweep\"";
        QTest::newRow("negative seed") << QByteArray("{\"kind\": \"learning-curve\", \"seed\": -3, " + base + "}") << "exp.json: seed: expected a non-negative integer";
    }
    void wrongValuesNameTheirKey()
    {
        QFETCH(QByteArray, json);
        QFETCH(QString, expected);
        const QString e = parseError(json);
        QVERIFY2(e.startsWith(expected), qPrintable(e));
    }

    void validateChecksAlgorithmsAgainstRegistry()
    {
        QString err;
        auto s = ExperimentSpec::fromJson(R"({"kind": "learning-curve", "dataset": {"source": "moons"},
            "algorithms": [{"id": "linear.ridge", "params": {"ridge": -2}}, {"id": "nope"}]})",
                                          "exp.json", &err);
        QVERIFY(s);
        const QStringList problems = s->validate(m_reg);
        QCOMPARE(problems.size(), 2);
        QVERIFY2(problems[0].contains("algorithms[0].params: parameter \"ridge\": expected a number 0 to 100000000, got -2"), qPrintable(problems[0]));
        QVERIFY2(problems[1].contains("algorithms[1].id: unknown algorithm \"nope\""), qPrintable(problems[1]));
    }

    void validateAsksThePluginAboutCombinationsTheSchemaCannotExpress()
    {
        // An order within a list (a tolerance ladder must decrease) and one key replacing another
        // pass the schema; the plugin's create() refuses them. validate() must report them, so a bad
        // file is refused before anything runs (CLI exit 3), not stored as a failed run.
        QString err;
        auto s = ExperimentSpec::fromJson(R"({"kind": "learning-curve", "dataset": {"source": "moons"},
            "algorithms": [{"id": "liblinear.classify", "params": {"tolerance_ladder": [0.01, 0.1]}},
                           {"id": "liblinear.classify", "params": {"tolerance_ladder": [0.1, 0.01], "tolerance": 0.5}},
                           {"id": "liblinear.classify", "params": {"tolerance_ladder": [0.1, 0.01]}}]})",
                                          "exp.json", &err);
        QVERIFY2(s, qPrintable(err));
        const QStringList problems = s->validate(m_reg);
        QCOMPARE(problems.size(), 2);
        QVERIFY2(problems[0].contains("algorithms[0].params: parameter \"tolerance_ladder\": [0.01, 0.1] is not strictly decreasing"),
                 qPrintable(problems[0]));
        QVERIFY2(problems[1].contains("algorithms[1].params: parameter \"tolerance_ladder\": it replaces \"tolerance\""),
                 qPrintable(problems[1]));
    }

    void noiseSweepNeedsANoisyGenerator()
    {
        QString err;
        auto s = ExperimentSpec::fromJson(R"({"kind": "noise-sweep", "dataset": {"source": "fashion_mnist"},
            "sweep": {"sigma": [0, 0.1], "monte_carlo": 5}, "algorithms": [{"id": "linear.ridge"}]})",
                                          "exp.json", &err);
        QVERIFY(s);
        const QStringList problems = s->validate(m_reg);
        QVERIFY(!problems.isEmpty());
        QVERIFY2(problems.join("\n").contains("dataset.source"), qPrintable(problems.join("\n")));
    }

    // A file written before the data-source ids had one spelling ("bpls-toy") loads as the
    // same source under its id, and says so; nothing else of the file changes.
    void formerDataSourceIdIsUpgradedWithANote()
    {
        QString err;
        auto s = ExperimentSpec::fromJson(R"({"kind": "noise-sweep", "dataset": {"source": "bpls-toy", "function": "linear"},
            "sweep": {"sigma": [0, 0.1], "monte_carlo": 2}, "algorithms": [{"id": "linear.ridge"}]})",
                                          "old.json", &err);
        QVERIFY2(s, qPrintable(err));
        s->sourcePath = QStringLiteral("old.json"); // as fromFile() sets it: the note names the file
        const QStringList notes = s->upgradeParams(m_reg);
        QCOMPARE(notes.size(), 1);
        QCOMPARE(notes[0], QStringLiteral("old.json: dataset.source \"bpls-toy\" is deprecated: it is now \"bpls_toy\""));
        QCOMPARE(s->dataset.value("source").toString(), QStringLiteral("bpls_toy"));
        QCOMPARE(s->dataset.value("function").toString(), QStringLiteral("linear"));
        QVERIFY2(s->validate(m_reg).isEmpty(), qPrintable(s->validate(m_reg).join("\n")));
        QVERIFY(s->upgradeParams(m_reg).isEmpty()); // once upgraded, nothing more to say
    }

    void roundTripsThroughJson()
    {
        QString err;
        auto s = ExperimentSpec::fromJson(R"({"name": "n", "description": "why", "kind": "noise-sweep", "dataset": {"source": "bpls_toy", "function": "linear"},
            "sweep": {"sigma": [0, 0.5], "monte_carlo": 7}, "seed": "18446744073709551615", "threads": 2,
            "algorithms": [{"id": "linear.ridge", "params": {"ridge": 1}}]})",
                                          "exp.json", &err);
        QVERIFY2(s, qPrintable(err));
        QCOMPARE(s->seed, std::numeric_limits<std::uint64_t>::max());
        auto again = ExperimentSpec::fromObject(s->toJson(), "again", &err);
        QVERIFY2(again, qPrintable(err));
        QCOMPARE(again->seed, s->seed);
        QCOMPARE(again->toJson().value("sweep"), s->toJson().value("sweep"));  // the kind's section, as it wrote it
        QCOMPARE(again->toJson().value("sweep").toObject().value("monte_carlo").toInt(), 7);
        QCOMPARE(again->threads, 2);
        QCOMPARE(again->description, QStringLiteral("why")); // the GUI saves what it opened
        QVERIFY(!ExperimentSpec::fromJson(R"({"description": 3, "kind": "learning-curve", "dataset": {}, "algorithms": [{"id": "x"}]})", "d.json", &err));
        QCOMPARE(err, QStringLiteral("d.json: description: expected a string, got 3"));
    }

    void shippedExperimentsAreValid()
    {
        const QDir dir(QStringLiteral(TB_SOURCE_DIR "/resources/experiments"));
        const auto files = dir.entryList({"*.json"}, QDir::Files);
        QVERIFY(!files.isEmpty());
        for (const auto& f : files) {
            QString err;
            auto s = ExperimentSpec::fromFile(dir.filePath(f), &err);
            QVERIFY2(s, qPrintable(err));
            // Only check algorithms whose plugin is built; the rest is a structural check.
            QStringList problems;
            for (const auto& p : s->validate(m_reg))
                if (!p.contains("unknown algorithm"))
                    problems << p;
            QVERIFY2(problems.isEmpty(), qPrintable(f + ": " + problems.join("; ")));
        }
    }

    void datasetTypoGivesOneMessage()
    {
        // A mistyped dataset key once also printed "does not do regression" for every algorithm.
        QString err;
        auto s = ExperimentSpec::fromJson(R"({"kind": "learning-curve", "dataset": {"source": "moons", "sampels": 50},
            "algorithms": [{"id": "linear.ridge"}, {"id": "test.sleepy"}]})", "t.json", &err);
        QVERIFY2(s, qPrintable(err));
        const QStringList problems = s->validate(m_reg);
        QCOMPARE(problems.size(), 1);
        QVERIFY2(problems.first().contains("dataset.sampels: unknown key") && problems.first().contains("did you mean \"samples\""),
                 qPrintable(problems.first()));
    }

    void keysWrittenTwiceAreWarnedAbout()
    {
        QString err;
        auto s = ExperimentSpec::fromJson(R"({"kind": "learning-curve", "seed": 1,
  "dataset": {"source": "moons", "noise": 0.1, "noise": 0.3},
  "algorithms": [{"id": "test.sleepy", "params": {"epochs": 2, "epochs": 9}}], "seed": 2})", "t.json", &err);
        QVERIFY2(s, qPrintable(err));
        QCOMPARE(s->warnings.size(), 3);
        QCOMPARE(s->warnings[0], QStringLiteral("t.json:2:48: key \"noise\" appears twice in dataset; the last value is used"));
        QCOMPARE(s->warnings[1], QStringLiteral("t.json:3:64: key \"epochs\" appears twice in algorithms[0].params; the last value is used"));
        QVERIFY(s->warnings[2].contains("\"seed\" appears twice in the top-level object"));
        QCOMPARE(s->seed, std::uint64_t(2)); // what the warning says
        QCOMPARE(s->dataset.value("noise").toDouble(), 0.3);
        // Same names in different objects, and escapes that spell another name, are no duplicates.
        auto t = ExperimentSpec::fromJson(R"({"kind": "learning-curve", "dataset": {"source": "moons", "seed": 1}, "seed": 1,
            "algorithms": [{"id": "test.sleepy", "label": "a"}, {"id": "test.sleepy", "label": "b\u0022"}]})", "u.json", &err);
        QVERIFY2(t, qPrintable(err));
        QVERIFY2(t->warnings.isEmpty(), qPrintable(t->warnings.join('\n')));
    }

    // Issue 49, item 5: a file with five mistakes names all five at once, one line each, so that
    // it is fixed in one round and not in five.
    void everyProblemOfAFileIsListedAtOnce()
    {
        const QString err = parseError(R"({"kind": "learning-curve", "seed": "abc", "thrads": 2,
            "dataset": 5, "algorithms": [{"id": "gradient.adam", "parms": {}}, 7, {"label": "no id"}]})");
        const QStringList lines = err.split(QLatin1Char('\n'));
        QVERIFY2(lines.size() >= 6, qPrintable(err));
        for (const char* key : {"seed", "thrads", "dataset", "algorithms[0].parms", "algorithms[1]", "algorithms[2].id"})
            QVERIFY2(std::any_of(lines.begin(), lines.end(),
                                 [&](const QString& l) { return l.startsWith("exp.json: ") && l.contains(QLatin1String(key)); }),
                     qPrintable(QStringLiteral("%1 not named in:\n%2").arg(QLatin1String(key), err)));
        // One mistake: one line, as before.
        QCOMPARE(parseError(R"({"kind": "learning-curve", "dataset": {"source": "moons"}, "algorithms": [7]})").count('\n'), 0);
        // An unknown kind is named, and the rest of the structure still checked.
        const QString noKind = parseError(R"({"kind": "learning-curv", "dataset": 1, "algorithms": []})");
        QVERIFY2(noKind.contains("kind: expected one of") && noKind.contains("dataset: expected an object") &&
                     noKind.contains("algorithms: expected a non-empty array"),
                 qPrintable(noKind));
    }
};

QTEST_GUILESS_MAIN(TestExperimentSpec)
#include "tst_experimentspec.moc"
