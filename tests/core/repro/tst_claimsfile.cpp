// Claims files: a valid one parses into claims with their readings, quick variants and experiments
// (overrides and n applied); every malformed one is refused with a message naming the file, the
// key path and the value at fault.

#include <repro/ClaimExperiment.h>
#include <repro/ClaimsFile.h>

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QTemporaryDir>
#include <QtTest>

using namespace tb::repro;

namespace {

const char* kExperiment =
    R"({"name": "moons", "kind": "learning-curve", "repeats": 1, "seed": 1, "threads": 1,
    "dataset": {"source": "moons", "samples": 200, "noise": 0.2},
    "algorithms": [{"id": "linear.ridge", "label": "Ridge"}, {"id": "bpls.classify", "label": "BPLS", "params": {"hidden": [5]}}]})";

QJsonObject validClaim()
{
    return QJsonObject{
        {"id", "ridge-accuracy"},
        {"quote", "ridge reaches 80 %"},
        {"where", "Table 1"},
        {"figure", QJsonObject{{"value", 80}, {"unit", "%"}}},
        {"experiment", "experiments/moons.json"},
        {"overrides",
         QJsonObject{{"algorithms", QJsonArray{"Ridge"}}, {"dataset", QJsonObject{{"samples", 300}}}}},
        {"statistic", QJsonObject{{"kind", "final"}, {"algorithm", "Ridge"}, {"metric", "test_accuracy"}}},
        {"n", 5},
        {"verdict", QJsonObject{{"rule", "mean_ci_contains_or_exceeds"}}},
        {"readings", QJsonArray{"toy"}},
        {"quick", QJsonObject{{"n", 2},
                              {"overrides", QJsonObject{{"dataset", QJsonObject{{"samples", 100}}}}},
                              {"note", "100 samples"}}}};
}

QJsonObject validFile()
{
    return QJsonObject{
        {"paper", "toy"},
        {"title", "A toy paper"},
        {"readings", QJsonArray{QJsonObject{{"id", "toy"}, {"text", "moons stand in for the paper's data"}}}},
        {"claims", QJsonArray{validClaim()}}};
}

} // namespace

class TestClaimsFile : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;

    QString write(const QJsonObject& file, const QString& name = QStringLiteral("claims/toy.json"))
    {
        QDir(m_dir.path()).mkpath(QStringLiteral("claims/experiments"));
        QFile e(m_dir.filePath(QStringLiteral("claims/experiments/moons.json")));
        if (!e.open(QIODevice::WriteOnly) || e.write(kExperiment) < 0)
            qFatal("cannot write the experiment");
        e.close();
        QFile f(m_dir.filePath(name));
        if (!f.open(QIODevice::WriteOnly) || f.write(QJsonDocument(file).toJson()) < 0)
            qFatal("cannot write %s", qPrintable(f.fileName()));
        return f.fileName();
    }

    // Parses a file whose only claim is validClaim() changed by @p change; returns the problems.
    QStringList problemsOf(const std::function<void(QJsonObject&)>& change, QString* path = nullptr)
    {
        QJsonObject claim = validClaim();
        change(claim);
        QJsonObject file = validFile();
        file.insert("claims", QJsonArray{claim});
        const QString p = write(file);
        if (path)
            *path = p;
        QStringList problems;
        const auto parsed = ClaimsFile::fromFile(p, &problems);
        if (parsed)
            return {};
        return problems;
    }

private Q_SLOTS:
    void validFileParses()
    {
        const QString path = write(validFile());
        QStringList problems;
        const auto file = ClaimsFile::fromFile(path, &problems);
        QVERIFY2(file, qPrintable(problems.join('\n')));
        QCOMPARE(file->paper, QStringLiteral("toy"));
        QCOMPARE(file->claims.size(), 1);
        const Claim& c = file->claims.first();
        QCOMPARE(c.figure.value, 80.0);
        QCOMPARE(c.figure.unit, QStringLiteral("%"));
        QCOMPARE(c.statistic.kind, QStringLiteral("final"));
        QCOMPARE(c.readings, QStringList{"toy"});
        QVERIFY(c.quick.included);
        QCOMPARE(c.quick.n, 2);
        QCOMPARE(c.experimentPath, QDir::cleanPath(m_dir.filePath("claims/experiments/moons.json")));
    }

    void experimentTakesOverridesAndSeeds()
    {
        QStringList problems;
        const auto file = ClaimsFile::fromFile(write(validFile()), &problems);
        QVERIFY(file);
        QString error;
        const auto full = ClaimExperiment::spec(*file, file->claims.first(), false, &error);
        QVERIFY2(full, qPrintable(error));
        QCOMPARE(full->repeats, 5);           // n
        QCOMPARE(full->algorithms.size(), 1); // the subset
        QCOMPARE(full->algorithms.first().label, QStringLiteral("Ridge"));
        QCOMPARE(full->dataset.value("samples").toInt(), 300);
        QCOMPARE(full->dataset.value("noise").toDouble(), 0.2); // merged, not replaced
        const auto quick = ClaimExperiment::spec(*file, file->claims.first(), true, &error);
        QVERIFY2(quick, qPrintable(error));
        QCOMPARE(quick->repeats, 2);
        QCOMPARE(quick->dataset.value("samples").toInt(), 100);
        QVERIFY(quick->name.endsWith("(quick)"));
        QVERIFY(!full->name.endsWith("(quick)"));
    }

    void unknownAlgorithmLabelInOverrides()
    {
        QStringList problems;
        QJsonObject claim = validClaim();
        claim.insert("overrides", QJsonObject{{"algorithms", QJsonArray{"Adam"}}});
        QJsonObject f = validFile();
        f.insert("claims", QJsonArray{claim});
        const auto file = ClaimsFile::fromFile(write(f), &problems);
        QVERIFY(file);
        QString error;
        QVERIFY(!ClaimExperiment::spec(*file, file->claims.first(), false, &error));
        QVERIFY2(error.contains("overrides.algorithms[0]") && error.contains("\"Adam\"") &&
                     error.contains("Ridge, BPLS"),
                 qPrintable(error));
    }

    void missingField()
    {
        QString path;
        const QStringList p = problemsOf([](QJsonObject& c) { c.remove("quote"); }, &path);
        QCOMPARE(p.size(), 1);
        QVERIFY2(p[0].startsWith(path + ": claims[0] (\"ridge-accuracy\").quote: missing"), qPrintable(p[0]));
        const QStringList f = problemsOf([](QJsonObject& c) {
            c.insert("figure", QJsonObject{{"unit", "%"}});
        });
        QCOMPARE(f.size(), 1);
        QVERIFY2(f[0].contains("claims[0] (\"ridge-accuracy\").figure.value: missing"), qPrintable(f[0]));
    }

    void wrongType()
    {
        const QStringList p = problemsOf([](QJsonObject& c) { c.insert("n", "five"); });
        QCOMPARE(p.size(), 1);
        QVERIFY2(p[0].contains(".n: expected a whole number, got \"five\""), qPrintable(p[0]));
    }

    void unknownStatistic()
    {
        const QStringList p = problemsOf([](QJsonObject& c) {
            c.insert("statistic", QJsonObject{{"kind", "median_of_medians"}, {"algorithm", "Ridge"}});
        });
        QVERIFY(!p.isEmpty());
        QVERIFY2(
            p[0].contains(
                "claims[0] (\"ridge-accuracy\").statistic.kind: unknown statistic \"median_of_medians\"") &&
                p[0].contains("time_to_target"),
            qPrintable(p.join('\n')));
    }

    void statisticNeedsItsKeys()
    {
        const QStringList p = problemsOf([](QJsonObject& c) {
            c.insert("statistic", QJsonObject{{"kind", "time_ratio"}, {"algorithm", "Ridge"}});
        });
        QVERIFY2(p.filter(".statistic.against: missing").size() == 1, qPrintable(p.join('\n')));
        QVERIFY2(p.filter(".statistic.target: missing").size() == 1, qPrintable(p.join('\n')));
        const QStringList m = problemsOf([](QJsonObject& c) {
            c.insert("statistic",
                     QJsonObject{{"kind", "final"}, {"algorithm", "Ridge"}, {"metric", "accuracy"}});
        });
        QCOMPARE(m.size(), 1);
        QVERIFY2(m[0].contains(".statistic.metric: unknown metric \"accuracy\"") &&
                     m[0].contains("test_error"),
                 qPrintable(m[0]));
    }

    void unknownRuleAndMismatchedRule()
    {
        const QStringList p = problemsOf([](QJsonObject& c) {
            c.insert("verdict", QJsonObject{{"rule", "looks_good"}});
        });
        QCOMPARE(p.size(), 1);
        QVERIFY2(p[0].contains(".verdict.rule: unknown verdict rule \"looks_good\""), qPrintable(p[0]));
        const QStringList w = problemsOf([](QJsonObject& c) {
            c.insert("statistic",
                     QJsonObject{{"kind", "win_tie_loss"}, {"algorithm", "Ridge"}, {"against", "BPLS"}});
        });
        QCOMPARE(w.size(), 1);
        QVERIFY2(w[0].contains(".verdict.rule: a win_tie_loss statistic is decided by \"wins_at_least\""),
                 qPrintable(w[0]));
    }

    void factStatisticsAndTheirKeys()
    {
        // Well formed: a fact, a ratio of two facts of one run, a difference against another configuration.
        QVERIFY(problemsOf([](QJsonObject& c) {
                    c.insert("statistic", QJsonObject{{"kind", "fact"},
                                                      {"algorithm", "Ridge"},
                                                      {"fact", "feature_spectrum.ratio_2_1000"}});
                }).isEmpty());
        QStringList problems;
        QJsonObject ratio = validClaim();
        ratio.insert("statistic", QJsonObject{{"kind", "fact_ratio"},
                                              {"algorithm", "Ridge"},
                                              {"fact", "layer_updates[0].updates"},
                                              {"over", "layer_updates[5].updates"}});
        QJsonObject f = validFile();
        f.insert("claims", QJsonArray{ratio});
        const auto file = ClaimsFile::fromFile(write(f), &problems);
        QVERIFY2(file, qPrintable(problems.join('\n')));
        QCOMPARE(file->claims.first().statistic.fact, QStringLiteral("layer_updates[0].updates"));
        QCOMPARE(file->claims.first().statistic.over, QStringLiteral("layer_updates[5].updates"));
        QVERIFY(problemsOf([](QJsonObject& c) {
                    c.insert("statistic", QJsonObject{{"kind", "fact_difference"},
                                                      {"algorithm", "Ridge"},
                                                      {"against", "BPLS"},
                                                      {"fact", "final.loss"}});
                }).isEmpty());

        // The fact missing: named with the file, the claim and the key.
        QString path;
        const QStringList missing = problemsOf(
            [](QJsonObject& c) {
                c.insert("statistic", QJsonObject{{"kind", "fact"}, {"algorithm", "Ridge"}});
            },
            &path);
        QCOMPARE(missing.size(), 1);
        QVERIFY2(missing[0].startsWith(path + ": claims[0] (\"ridge-accuracy\").statistic.fact: missing"),
                 qPrintable(missing[0]));
        // Not a path.
        const QStringList malformed = problemsOf([](QJsonObject& c) {
            c.insert("statistic",
                     QJsonObject{{"kind", "fact"}, {"algorithm", "Ridge"}, {"fact", "layer_updates[first]"}});
        });
        QCOMPARE(malformed.size(), 1);
        QVERIFY2(malformed[0].contains(".statistic.fact: \"layer_updates[first]\" is not a fact path"),
                 qPrintable(malformed[0]));
        // A ratio with nothing to divide by.
        const QStringList alone = problemsOf([](QJsonObject& c) {
            c.insert("statistic",
                     QJsonObject{{"kind", "fact_ratio"}, {"algorithm", "Ridge"}, {"fact", "rho"}});
        });
        QCOMPARE(alone.size(), 1);
        QVERIFY2(alone[0].contains(".statistic.over: missing: fact_ratio compares \"rho\"") &&
                     alone[0].contains("\"against\""),
                 qPrintable(alone[0]));
        // Keys that do not fit: a metric on a fact, a second configuration on a single fact, a fact
        // path on a metric statistic.
        const QStringList misfit = problemsOf([](QJsonObject& c) {
            c.insert("statistic", QJsonObject{{"kind", "fact"},
                                              {"algorithm", "Ridge"},
                                              {"fact", "rho"},
                                              {"metric", "test_accuracy"},
                                              {"against", "BPLS"}});
        });
        QCOMPARE(misfit.size(), 2);
        QVERIFY2(misfit.filter(".statistic.metric: a fact statistic reads the run's facts").size() == 1,
                 qPrintable(misfit.join('\n')));
        QVERIFY2(misfit.filter(".statistic.against: a \"fact\" statistic reads one fact").size() == 1,
                 qPrintable(misfit.join('\n')));
        const QStringList stray = problemsOf([](QJsonObject& c) {
            c.insert("statistic", QJsonObject{{"kind", "final"}, {"algorithm", "Ridge"}, {"fact", "rho"}});
        });
        QCOMPARE(stray.size(), 1);
        QVERIFY2(
            stray[0].contains(".statistic.fact: only fact, fact_ratio and fact_difference read run facts"),
            qPrintable(stray[0]));
        // A misspelt kind lists the fact kinds among the known ones.
        const QStringList typo = problemsOf([](QJsonObject& c) {
            c.insert("statistic", QJsonObject{{"kind", "facts"}, {"algorithm", "Ridge"}});
        });
        QVERIFY2(!typo.isEmpty() && typo[0].contains(".statistic.kind: unknown statistic \"facts\"") &&
                     typo[0].contains("fact_ratio"),
                 qPrintable(typo.join('\n')));
    }

    void winsAtMostTakesAFraction()
    {
        auto countClaim = [](const QJsonObject& verdict) {
            return [verdict](QJsonObject& c) {
                c.insert("statistic",
                         QJsonObject{{"kind", "win_tie_loss"}, {"algorithm", "Ridge"}, {"against", "BPLS"}});
                c.insert("figure", QJsonObject{{"value", 3}, {"unit", "wins"}});
                c.insert("verdict", verdict);
            };
        };
        QVERIFY(problemsOf(countClaim(QJsonObject{{"rule", "wins_at_most"}, {"fraction", 0.3}})).isEmpty());
        QVERIFY(problemsOf(countClaim(QJsonObject{{"rule", "wins_at_most"}, {"fraction", 0}})).isEmpty());
        const QStringList none = problemsOf(countClaim(QJsonObject{{"rule", "wins_at_most"}}));
        QCOMPARE(none.size(), 1);
        QVERIFY2(none[0].contains(".verdict.fraction: missing"), qPrintable(none[0]));
        const QStringList above =
            problemsOf(countClaim(QJsonObject{{"rule", "wins_at_most"}, {"fraction", 1.5}}));
        QCOMPARE(above.size(), 1);
        QVERIFY2(above[0].contains(".verdict.fraction: expected a share of the pairs in [0, 1], got 1.5"),
                 qPrintable(above[0]));
        // On an interval statistic it is refused like wins_at_least.
        const QStringList misfit = problemsOf([](QJsonObject& c) {
            c.insert("verdict", QJsonObject{{"rule", "wins_at_most"}, {"fraction", 0.3}});
        });
        QCOMPARE(misfit.size(), 1);
        QVERIFY2(misfit[0].contains(".verdict.rule: \"wins_at_most\" decides a win_tie_loss statistic only"),
                 qPrintable(misfit[0]));
    }

    void unknownReadingReference()
    {
        const QStringList p = problemsOf([](QJsonObject& c) {
            c.insert("readings", QJsonArray{"toy", "tuned-bandwidth"});
        });
        QCOMPARE(p.size(), 1);
        QVERIFY2(
            p[0].contains(
                "claims[0] (\"ridge-accuracy\").readings[1]: no reading \"tuned-bandwidth\" in this file "
                "(readings: toy)"),
            qPrintable(p[0]));
    }

    void fewSeedsNeedAReason()
    {
        const QStringList p = problemsOf([](QJsonObject& c) { c.insert("n", 3); });
        QCOMPARE(p.size(), 1);
        QVERIFY2(p[0].contains(".n: 3 seeds: a claim needs at least 5 seeds") && p[0].contains("n_reason"),
                 qPrintable(p[0]));
        QVERIFY(problemsOf([](QJsonObject& c) {
                    c.insert("n", 1);
                    c.insert("n_reason", "the spectrum of one feature draw");
                }).isEmpty());
    }

    void experimentFileAbsent()
    {
        const QStringList p =
            problemsOf([](QJsonObject& c) { c.insert("experiment", "experiments/nowhere.json"); });
        QCOMPARE(p.size(), 1);
        QVERIFY2(p[0].contains(".experiment: no experiment file \"experiments/nowhere.json\"") &&
                     p[0].contains(QDir::cleanPath(m_dir.filePath("claims/experiments/nowhere.json"))),
                 qPrintable(p[0]));
    }

    void unknownKeysAndDuplicates()
    {
        const QStringList p = problemsOf([](QJsonObject& c) {
            c.insert("quote_", "typo");
            c.insert("overrides", QJsonObject{{"repeats", 3}});
        });
        QCOMPARE(p.size(), 2);
        QVERIFY2(p.filter("quote_: unknown key").size() == 1, qPrintable(p.join('\n')));
        QVERIFY2(p.filter("overrides.repeats: unknown override").size() == 1, qPrintable(p.join('\n')));
        QJsonObject f = validFile();
        f.insert("claims", QJsonArray{validClaim(), validClaim()});
        QStringList problems;
        QVERIFY(!ClaimsFile::fromFile(write(f), &problems));
        QVERIFY2(problems.filter("claims[1] (\"ridge-accuracy\").id: \"ridge-accuracy\" is already the id")
                         .size() == 1,
                 qPrintable(problems.join('\n')));
    }

    void syntaxErrorNamesLine()
    {
        QDir(m_dir.path()).mkpath("claims");
        QFile f(m_dir.filePath("claims/broken.json"));
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("{\n  \"paper\": \"x\",\n  \"claims\": [,]\n}\n");
        f.close();
        QStringList problems;
        QVERIFY(!ClaimsFile::fromFile(f.fileName(), &problems));
        QCOMPARE(problems.size(), 1);
        QVERIFY2(problems[0].startsWith(QFileInfo(f).absoluteFilePath() + ":3:"), qPrintable(problems[0]));
    }

    void everyShippedClaimsFileParses()
    {
        // The papers' files in resources/claims: each must parse and each claim build its experiment.
        const QDir dir(QStringLiteral(TB_SOURCE_DIR "/resources/claims"));
        const QStringList files = dir.entryList({"*.json"}, QDir::Files);
        for (const QString& name : files) {
            QStringList problems;
            const auto file = ClaimsFile::fromFile(dir.filePath(name), &problems);
            QVERIFY2(file, qPrintable(problems.join('\n')));
            QCOMPARE(file->paper + ".json", name);
            for (const Claim& c : file->claims)
                for (bool quick : {false, true}) {
                    if (quick && !c.quick.included)
                        continue;
                    QString error;
                    QVERIFY2(ClaimExperiment::spec(*file, c, quick, &error), qPrintable(error));
                }
        }
    }
};

QTEST_GUILESS_MAIN(TestClaimsFile)
#include "tst_claimsfile.moc"
