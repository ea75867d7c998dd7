#include <engine/ExperimentSpec.h>
#include <engine/PluginRegistry.h>

#include <QJsonArray>
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
        // A file of format 1 (no "format"): linear.ridge's "ridge" is its gram_ridge now, and the
        // message says what the file wrote.
        QVERIFY2(problems[0].contains("algorithms[0].params: parameter \"gram_ridge\": expected a number 0 to 100000000, "
                                      "got -2 (parameter \"ridge\" = -2 was written in parameter format 1"),
                 qPrintable(problems[0]));
        QVERIFY2(problems[1].contains("algorithms[1].id: unknown algorithm \"nope\""), qPrintable(problems[1]));
        auto current = ExperimentSpec::fromJson(R"({"kind": "learning-curve", "format": 2, "dataset": {"source": "moons"},
            "algorithms": [{"id": "linear.ridge", "params": {"ridge": -2}}]})",
                                                "exp.json", &err);
        QVERIFY(current);
        const QStringList now = current->validate(m_reg);
        QCOMPARE(now.size(), 1);
        QVERIFY2(now[0].contains("algorithms[0].params: parameter \"ridge\": expected a number 0 to 100000000, got -2"),
                 qPrintable(now[0]));
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
            // Written in the current parameter format: what a user copies means what it says.
            QVERIFY2(s->paramsFormat == tb::kParamsFormat, qPrintable(f + ": no \"format\": 2"));
            // Only check algorithms whose plugin is built; the rest is a structural check.
            QStringList problems;
            for (const auto& p : s->validate(m_reg))
                if (!p.contains("unknown algorithm"))
                    problems << p;
            QVERIFY2(problems.isEmpty(), qPrintable(f + ": " + problems.join("; ")));
        }
    }

    // A file written before parameter formats (no "format") gave "ridge" each plugin's former
    // meaning (docs/parameters.md, "Regularisation"): read now, it is converted to the one ridge,
    // each value with a note naming the file and the entry; a file of format 2 is taken as it is.
    void formatOneRidgesAreConverted()
    {
        const char* algorithms = R"("algorithms": [
            {"id": "gradient.sgd", "params": {"weight_decay": 0.01, "epochs": 1}},
            {"id": "linear.ridge", "params": {"ridge": 3}},
            {"id": "dsgd.random_features_sgd", "params": {"nu": 1e-4}},
            {"id": "bld.lbfgs", "params": {"ridge": 0}}])";
        QString err;
        auto old = ExperimentSpec::fromJson(QByteArray(R"({"kind": "learning-curve", "dataset": {"source": "moons"}, )") +
                                                algorithms + "}",
                                            "old.json", &err);
        QVERIFY2(old, qPrintable(err));
        QCOMPARE(old->paramsFormat, 1);
        QVERIFY2(old->validate(m_reg).isEmpty(), qPrintable(old->validate(m_reg).join("\n")));
        old->sourcePath = QStringLiteral("old.json");
        const QStringList notes = old->upgradeParams(m_reg);
        QCOMPARE(old->paramsFormat, tb::kParamsFormat);
        QCOMPARE(old->algorithms[0].params.value("ridge").toDouble(), 0.005);  // λ of λ/2·‖w‖² = 2r
        QVERIFY(!old->algorithms[0].params.contains("weight_decay"));
        QCOMPARE(old->algorithms[1].params.value("gram_ridge").toDouble(), 3.0);  // the same Gram-diagonal λ
        QVERIFY(!old->algorithms[1].params.contains("ridge"));
        QCOMPARE(old->algorithms[2].params.value("ridge").toDouble(), 5e-5);  // Dai et al.'s ν = 2r
        QCOMPARE(old->algorithms[3].params.value("ridge").toDouble(), 0.0);  // none in either format
        const QString all = notes.join("\n");
        QVERIFY2(all.contains(QStringLiteral("old.json: algorithms[0] (gradient.sgd): parameter \"ridge\" = 0.01 was "
                                             "written in parameter format 1, where it meant λ of mean loss + "
                                             "(λ/2)·‖w‖² (weight decay λ·w): it is now \"ridge\" = 0.005")),
                 qPrintable(all));
        QVERIFY2(all.contains(QStringLiteral("old.json: algorithms[1] (linear.ridge): parameter \"ridge\" = 3 was written "
                                             "in parameter format 1, where it meant λ added to the Gram diagonal: it is "
                                             "now \"gram_ridge\" = 3")),
                 qPrintable(all));
        QVERIFY2(all.contains("algorithms[2] (dsgd.random_features_sgd): parameter \"ridge\" = 1e-04"), qPrintable(all));
        QVERIFY2(!all.contains("bld.lbfgs"), qPrintable(all));  // 0 is no penalty in either format: nothing to say
        QCOMPARE(old->toJson().value("format").toInt(), tb::kParamsFormat);  // saved, it is read back as it runs
        QVERIFY(old->upgradeParams(m_reg).isEmpty());

        auto current = ExperimentSpec::fromJson(
            QByteArray(R"({"kind": "learning-curve", "format": 2, "dataset": {"source": "moons"}, )") + algorithms + "}",
            "new.json", &err);
        QVERIFY2(current, qPrintable(err));
        const QStringList currentNotes = current->upgradeParams(m_reg);
        QCOMPARE(current->algorithms[0].params.value("ridge").toDouble(), 0.01);
        QCOMPARE(current->algorithms[1].params.value("ridge").toDouble(), 3.0);
        QVERIFY2(!currentNotes.join(" ").contains("parameter format"), qPrintable(currentNotes.join("\n")));

        QVERIFY(!ExperimentSpec::fromJson(R"({"kind": "learning-curve", "format": 3, "dataset": {"source": "moons"},
            "algorithms": [{"id": "linear.ridge"}]})", "future.json", &err));
        QVERIFY2(err.startsWith("future.json: format:") && err.contains("3"), qPrintable(err));
    }

    // A tuned comparison's search range and a param sweep's values of a format-1 file convert as
    // the parameters do; a sweep axis that two algorithms would convert differently is refused.
    void formatOneSearchesAndSweepsAreConverted()
    {
        QString err;
        auto tuned = ExperimentSpec::fromJson(R"({"kind": "tuned-comparison", "name": "t",
            "dataset": {"source": "moons", "validation_fraction": 0.2}, "tuning": {"trials": 2}, "final": {"seeds": 1},
            "algorithms": [{"id": "linear.ridge", "search": {"ridge": {"log_uniform": [0.001, 10]}}},
                           {"id": "gradient.sgd", "params": {"epochs": 1}, "search": {"ridge": {"log_uniform": [1e-6, 0.1]}}}]})",
                                              "tuned.json", &err);
        QVERIFY2(tuned, qPrintable(err));
        tuned->sourcePath = QStringLiteral("tuned.json");
        const QStringList notes = tuned->upgradeParams(m_reg);
        QVERIFY2(tuned->validate(m_reg).isEmpty(), qPrintable(tuned->validate(m_reg).join("\n")));
        const QJsonObject json = tuned->toJson();
        const QJsonArray algs = json.value("algorithms").toArray();
        QCOMPARE(algs[0].toObject().value("search").toObject().value("gram_ridge").toObject().value("log_uniform").toArray(),
                 QJsonArray({0.001, 10}));
        QCOMPARE(algs[1].toObject().value("search").toObject().value("ridge").toObject().value("log_uniform").toArray(),
                 QJsonArray({5e-7, 0.05}));
        QVERIFY2(notes.join("\n").contains("tuned.json: algorithms[1].search.ridge: written in parameter format 1"),
                 qPrintable(notes.join("\n")));

        auto sweep = ExperimentSpec::fromJson(R"({"kind": "param-sweep", "dataset": {"source": "moons"},
            "sweep": {"grid": {"ridge": {"from": 0.01, "to": 1, "count": 3, "scale": "log"}}},
            "algorithms": [{"id": "gradient.sgd", "params": {"epochs": 1}}, {"id": "bld.lbfgs"}]})",
                                              "sweep.json", &err);
        QVERIFY2(sweep, qPrintable(err));
        sweep->upgradeParams(m_reg);
        QVERIFY2(sweep->validate(m_reg).isEmpty(), qPrintable(sweep->validate(m_reg).join("\n")));
        const QJsonObject range = sweep->toJson().value("sweep").toObject().value("grid").toObject().value("ridge").toObject();
        QCOMPARE(range.value("from").toDouble(), 0.005);
        QCOMPARE(range.value("to").toDouble(), 0.5);

        auto mixed = ExperimentSpec::fromJson(R"({"kind": "param-sweep", "dataset": {"source": "moons"},
            "sweep": {"grid": {"ridge": [0.01, 0.1]}},
            "algorithms": [{"id": "gradient.sgd", "params": {"epochs": 1}}, {"id": "linear.ridge"}]})",
                                              "mixed.json", &err);
        QVERIFY2(mixed, qPrintable(err));
        mixed->upgradeParams(m_reg);
        const QString problems = mixed->validate(m_reg).join("\n");
        QVERIFY2(problems.contains("sweep.grid.ridge: written in parameter format 1") && problems.contains("linear.ridge"),
                 qPrintable(problems));
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
