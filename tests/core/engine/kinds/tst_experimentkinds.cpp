// The experiment kinds behind one interface (issues 24 and 44): each registered by itself, every
// example experiment file read and written back by its kind unchanged, the keys of one kind refused
// in another, a stored run narrowed to its own cell for a re-run — and the kinds stand alone: no
// source outside core/engine/kinds/ names one or includes a kind's header (the param sweep's grid
// editor in the workbench aside), and what the rest of the tree asks a kind is answered by each.

#include <engine/ExperimentKind.h>
#include <engine/ExperimentSpec.h>
#include <engine/kinds/noise_sweep/NoiseSweepSection.h>
#include <engine/kinds/param_sweep/ParamSweep.h>
#include <engine/PluginRegistry.h>

#include <QDirIterator>
#include <QFile>
#include <QRegularExpression>

#include <QDir>
#include <QJsonDocument>
#include <QtTest>

using namespace tb;

class TestExperimentKinds : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void builtInKindsAreRegistered()
    {
        const QStringList ids = ExperimentKinds::ids();
        QCOMPARE(ids.mid(0, 3), QStringList({"learning-curve", "noise-sweep", "param-sweep"}));
        for (const ExperimentKind* k : ExperimentKinds::all()) {
            QVERIFY(!k->label().isEmpty() && !k->description().isEmpty());
            QVERIFY2(!k->charts().isEmpty(), qPrintable(k->id()));
            QCOMPARE(ExperimentKinds::find(k->id()), k);
        }
        QVERIFY(!ExperimentKinds::find("no-such-kind"));
        // The file's "kind" is checked against the registry.
        QVERIFY(ExperimentSpec::schema().find("kind")->choices == ids);
    }

    void everyExampleRoundTrips()
    {
        // Read by its kind and written back: the same JSON (what the store compares to resume).
        const QDir dir(QStringLiteral(TB_SOURCE_DIR "/resources/experiments"));
        const QStringList files = dir.entryList({"*.json"}, QDir::Files);
        QVERIFY(files.size() >= 20);
        QSet<QString> seen;
        for (const QString& f : files) {
            QString error;
            const auto spec = ExperimentSpec::fromFile(dir.filePath(f), &error);
            QVERIFY2(spec, qPrintable(error));
            seen.insert(spec->kind);
            const QJsonObject once = spec->toJson();
            // Named by its path, as fromFile() names it: a suite's relative "suite" file is its neighbour.
            const auto again = ExperimentSpec::fromObject(once, dir.filePath(f), &error);
            QVERIFY2(again, qPrintable(error));
            QVERIFY2(again->toJson() == once, qPrintable(f));
            QCOMPARE(ExperimentKinds::find(spec->kind)->plannedRuns(*spec) > 0, true);
        }
        QCOMPARE(seen, QSet<QString>({"learning-curve", "noise-sweep", "param-sweep", "tuned-comparison"}));
    }

    void aKindsKeysBelongToIt()
    {
        // repeats belongs to the learning curve and the param sweep; a noise sweep repeats
        // through monte_carlo and refuses it, naming the keys it knows.
        const QByteArray base = R"("dataset": {"source": "moons"}, "algorithms": [{"id": "linear.ridge"}])";
        QString error;
        QVERIFY(ExperimentSpec::fromJson("{\"kind\": \"learning-curve\", \"repeats\": 3, " + base + "}", "a.json", &error));
        QVERIFY(!ExperimentSpec::fromJson("{\"kind\": \"noise-sweep\", \"repeats\": 3, \"sweep\": {\"sigma\": [0]}, " + base + "}",
                                          "b.json", &error));
        QVERIFY2(error.startsWith("b.json: repeats: unknown key for kind \"noise-sweep\"") && error.contains("(known: "),
                 qPrintable(error));
        // A learning curve has no sweep.
        QVERIFY(!ExperimentSpec::fromJson("{\"kind\": \"learning-curve\", \"sweep\": {}, " + base + "}", "c.json", &error));
        QVERIFY2(error.startsWith("c.json: sweep: unknown key for kind \"learning-curve\""), qPrintable(error));
    }

    // Issue 44: "grep finds no kind id or sigmas/monteCarlo/paramSweep outside the kinds' folders
    // and their tests; no file of the engine includes a kind's header". Comments may speak of the
    // kinds; code may not name them.
    void kindsStandAlone()
    {
        QStringList ids = ExperimentKinds::ids();
        QStringList kindHeaders;
        QDirIterator kindFiles(QStringLiteral(TB_SOURCE_DIR "/core/engine/kinds"), {"*.h"}, QDir::Files,
                               QDirIterator::Subdirectories);
        while (kindFiles.hasNext())
            kindHeaders << QFileInfo(kindFiles.next()).fileName();
        QVERIFY(kindHeaders.contains("ParamSweep.h") && kindHeaders.contains("NoiseSweepSection.h"));
        const QRegularExpression words(QStringLiteral("\\b(sigmas|monteCarlo|paramSweep)\\b"));
        QStringList found;
        int files = 0;
        for (const char* root : {"core", "app", "plugins", "bench"}) {
            QDirIterator it(QStringLiteral(TB_SOURCE_DIR "/") + QLatin1String(root), {"*.cpp", "*.h"}, QDir::Files,
                            QDirIterator::Subdirectories);
            while (it.hasNext()) {
                const QString path = it.next();
                if (path.contains(QLatin1String("/core/engine/kinds/")))
                    continue;
                QFile f(path);
                QVERIFY(f.open(QIODevice::ReadOnly));
                ++files;
                int n = 0;
                // The param sweep's grid is edited by the workbench's SweepEditor (the editor the
                // kind names), which reads and writes the grid with the kind's own functions.
                const bool gridEditor = path.endsWith(QLatin1String("/app/gui/setup/SweepEditor.cpp"));
                for (const QByteArray& raw : f.readAll().split('\n')) {
                    ++n;
                    const QString line = QString::fromUtf8(raw);
                    const QString code = line.section(QStringLiteral("//"), 0, 0);  // not the comments
                    const QString where = QStringLiteral("%1:%2: %3").arg(path.mid(int(strlen(TB_SOURCE_DIR)) + 1)).arg(n).arg(line.trimmed());
                    if (words.match(code).hasMatch())
                        found << where;
                    for (const QString& id : ids)
                        if (code.contains(QLatin1Char('"') + id + QLatin1Char('"')))
                            found << where;
                    if (code.trimmed().startsWith(QLatin1String("#include")) && !gridEditor)
                        for (const QString& h : kindHeaders)
                            if (code.contains(QLatin1Char('<') + h + QLatin1Char('>')) ||
                                code.contains(QLatin1Char('"') + h + QLatin1Char('"')))
                                found << where;
                }
            }
        }
        QVERIFY(files > 300);
        QVERIFY2(found.isEmpty(), qPrintable(found.join('\n')));
    }

    // What the workbench, the CLI, the store and the claims ask of a kind, answered by each.
    void eachKindAnswersForItself()
    {
        const QByteArray base = R"("dataset": {"source": "bpls_toy", "function": "linear"}, "seed": 4, "threads": 2,
            "algorithms": [{"id": "linear.ridge", "label": "LS"}, {"id": "linear.ridge", "label": "LS2", "params": {"ridge": 0.5}}])";
        QString error;
        const auto lc = ExperimentSpec::fromJson("{\"kind\": \"learning-curve\", \"repeats\": 3, " + base + "}", "l.json", &error);
        QVERIFY2(lc, qPrintable(error));
        const auto ns = ExperimentSpec::fromJson(
            "{\"kind\": \"noise-sweep\", \"sweep\": {\"sigma\": [0, 0.5, 1], \"monte_carlo\": 7}, " + base + "}", "n.json", &error);
        QVERIFY2(ns, qPrintable(error));
        const auto ps = ExperimentSpec::fromJson(
            "{\"kind\": \"param-sweep\", \"repeats\": 2, \"sweep\": {\"grid\": {\"ridge\": [0, 1]}, \"datasets\": [{\"function\": "
            "\"linear\"}, {\"function\": \"nonlinear\"}]}, " + base + "}", "p.json", &error);
        QVERIFY2(ps, qPrintable(error));
        const ExperimentKind* l = ExperimentKinds::find(lc->kind);
        const ExperimentKind* n = ExperimentKinds::find(ns->kind);
        const ExperimentKind* p = ExperimentKinds::find(ps->kind);
        QVERIFY(l && n && p);
        // The section is the kind's own, opaque to everyone else.
        QVERIFY(!lc->section);
        QCOMPARE(ns->sectionAs<NoiseSweepSection>()->sigmas, (QVector<double>{0, 0.5, 1}));
        QCOMPARE(ns->sectionAs<NoiseSweepSection>()->monteCarlo, 7);
        QVERIFY(!ns->sectionAs<ParamSweepSpec>());
        QCOMPARE(ps->sectionAs<ParamSweepSpec>()->grid.size(), 1);
        // Units and counts.
        QCOMPARE(l->plannedRuns(*lc), 6);
        QCOMPARE(n->plannedRuns(*ns), 3 * 7 * 2);
        QCOMPARE(p->plannedRuns(*ps), 2 * 2 * 2 * 2);
        QVERIFY(l->unitsAreRuns() && p->unitsAreRuns() && !n->unitsAreRuns());
        QCOMPARE(n->unit(2), QStringLiteral("cells"));
        QCOMPARE(l->unit(1), QStringLiteral("run"));
        // Configurations, in the runner's order, with their algorithm entries.
        const QList<AlgorithmCurves> lConf = l->configurations(*lc, nullptr);
        QCOMPARE(lConf.size(), 2);
        QCOMPARE(lConf[1].label, QStringLiteral("LS2"));
        QCOMPARE(lConf[1].algorithmIndex, 1);
        QVERIFY(n->configurations(*ns, nullptr).isEmpty());
        const QList<AlgorithmCurves> pConf = p->configurations(*ps, nullptr);
        QCOMPARE(pConf.size(), 2 * 2 * 2);
        QCOMPARE(pConf[3].algorithmIndex, 1);
        QCOMPARE(pConf[3].setting.value("ridge").toDouble(), 1.0);
        QCOMPARE(p->datasets(*ps).size(), 2);
        QCOMPARE(l->datasets(*lc).size(), 1);
        // Summary points: the noise sweep's axis.
        QCOMPARE(n->summaryAxis(), QStringLiteral("noise σ"));
        QVERIFY(l->summaryAxis().isEmpty() && p->summaryAxis().isEmpty());
        QVERIFY(p->comparesConfigurations() && !l->comparesConfigurations());
        // One line for captions.
        QVERIFY2(n->describe(*ns).contains("3 values") && n->describe(*ns).contains("7 Monte-Carlo"), qPrintable(n->describe(*ns)));
        QVERIFY2(l->describe(*lc).contains("3 repeat"), qPrintable(l->describe(*lc)));
        // A claim's n, in the kind's terms.
        QJsonObject file = ns->toJson();
        n->setRepetitions(file, 11);
        QCOMPARE(file.value("sweep").toObject().value("monte_carlo").toInt(), 11);
        file = lc->toJson();
        l->setRepetitions(file, 11);
        QCOMPARE(file.value("repeats").toInt(), 11);
        // The fields of a form: every key of the section's schema is a path into the file.
        for (const ExperimentKind* k : ExperimentKinds::all()) {
            const ParamSchema section = k->sectionSchema(); // a copy: specs() refers into it
            for (const ParamSpec& f : section.specs())
                QVERIFY2(k->sectionKeys().contains(f.key.section('.', 0, 0)), qPrintable(k->id() + ": " + f.key));
        }
        QVERIFY(!n->sectionSchema().specs().isEmpty());
        QCOMPARE(p->sectionEditor(), QStringLiteral("parameter-grid"));
        // A stored run's place: the param sweep's cell fact; the others place nothing.
        RunRecord cell;
        QJsonObject fact;
        fact.insert("index", 5);
        fact.insert("dataset", 1);
        fact.insert("algorithm", 0);
        fact.insert("point", 1);
        fact.insert("configuration", "LS ridge=1");
        QJsonObject setting;
        setting.insert("ridge", 1);
        fact.insert("setting", setting);
        cell.info.insert("sweep_cell", fact);
        const StoredPlace place = p->placeOf(cell);
        QVERIFY(place.placed);
        QCOMPARE(place.configuration, QStringLiteral("LS ridge=1"));
        QCOMPARE(place.order, (QList<int>{1, 0, 1, 5}));
        QVERIFY(!l->placeOf(cell).placed);
    }

    void aStoredRunIsNarrowedToItsCell()
    {
        QString error;
        auto spec = ExperimentSpec::fromJson(R"({"kind": "param-sweep", "repeats": 5, "seed": 3,
            "dataset": {"source": "moons"}, "algorithms": [{"id": "linear.ridge"}],
            "sweep": {"grid": {"ridge": [0, 1]}, "datasets": [{"samples": 100}, {"samples": 200}]}})",
                                             "s.json", &error);
        QVERIFY2(spec, qPrintable(error));
        RunRecord run;
        run.repeat = 3;
        run.info = QJsonObject{{"sweep_cell", QJsonObject{{"dataset", 1}}}};
        ExperimentKinds::find("param-sweep")->narrowToRun(*spec, run);
        QCOMPARE(spec->repeats, 1);
        QCOMPARE(spec->firstRepeat, 3);
        QCOMPARE(spec->dataset.value("samples").toInt(), 200);
        QVERIFY(spec->sectionAs<ParamSweepSpec>() && spec->sectionAs<ParamSweepSpec>()->grid.isEmpty());
    }
};

QTEST_APPLESS_MAIN(TestExperimentKinds)
#include "tst_experimentkinds.moc"
