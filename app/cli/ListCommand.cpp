#include "ListCommand.h"
#include "CliStreams.h"

#include <engine/CostPrediction.h>
#include <data/DataSourceRegistry.h>
#include <engine/ExperimentSpec.h>
#include <engine/PluginRegistry.h>
#include <engine/PluginTrust.h>

#include <QCommandLineParser>
#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QTextStream>

#include <tbb/task_arena.h>

namespace tb::cli {
namespace {

// Each algorithm's predicted cost (defaults) for the reference shape, by algorithm id; only
// algorithms whose trainer states one. Computed in an arena of every core, as a run with
// "threads": 0 would use.
QHash<QString, tb::CostPrediction> referenceCosts(const tb::PluginRegistry& reg, int* threads)
{
    QHash<QString, tb::CostPrediction> costs;
    *threads = tb::ExperimentSpec::allCores();
    tbb::task_arena arena(*threads);
    arena.execute([&] {
        for (const auto& a : reg.algorithms()) {
            const tb::Task task = a.info.classification ? tb::Task::Classification : tb::Task::Regression;
            const auto cost = tb::CostPrediction::forAlgorithm(reg, a.info.id, {},
                                                               tb::CostPrediction::referenceShape(task));
            if (!cost.isEmpty())
                costs.insert(a.info.id, cost);
        }
    });
    return costs;
}

QJsonObject shapeJson(const tb::ProblemShape& s)
{
    return QJsonObject{{"rows", double(s.rows)},
                       {"inputs", double(s.inputs)},
                       {"outputs", double(s.outputs)},
                       {"task", s.task == tb::Task::Classification ? "classification" : "regression"}};
}

} // namespace

int listCommand(const QStringList& args)
{
    QCommandLineParser p;
    p.setApplicationDescription("List plugins, their algorithms and parameter schemas.");
    p.addHelpOption();
    p.addOption({"json", "Print JSON instead of text."});
    p.process(args);

    tb::PluginRegistry reg;
    reg.scan();
    int costThreads = 1;
    const QHash<QString, tb::CostPrediction> costs = referenceCosts(reg, &costThreads);
    auto referenceShapeOf = [](const tb::AlgorithmInfo& a) {
        return tb::CostPrediction::referenceShape(a.classification ? tb::Task::Classification
                                                                   : tb::Task::Regression);
    };
    // Algorithms that take sparse inputs as they are (SparseTrainer.h); the others get a dense copy.
    auto isSparse = [&](const QString& id) {
        const tb::AlgorithmEntry* e = reg.algorithm(id);
        return e && e->sparseInput;
    };
    if (p.isSet("json")) {
        QJsonArray plugins;
        for (const auto& s : reg.plugins()) {
            QJsonObject o{{"file", s->filePath}, {"id", s->id}, {"name", s->name}, {"version", s->version},
                          {"family", s->family}, {"state", s->stateName()}};
            if (!s->error.isEmpty())
                o.insert("error", s->error);
            if (!s->replaces.isEmpty())
                o.insert("replaces", QJsonArray::fromStringList(s->replaces));
            QJsonArray algs;
            for (const auto& a : s->algorithms) {
                QJsonObject alg{{"id", a.id},
                                {"name", a.name},
                                {"description", a.description},
                                {"citation", a.citation},
                                {"regression", a.regression},
                                {"classification", a.classification},
                                {"sparse_inputs", isSparse(a.id)},
                                {"params", a.schema.toJson()}};
                if (costs.contains(a.id)) {
                    alg.insert("predicted_cost", costs.value(a.id).json());
                    QJsonObject shape = shapeJson(referenceShapeOf(a));
                    shape.insert("threads", costThreads);
                    alg.insert("predicted_cost_for", shape);
                }
                algs.append(alg);
            }
            o.insert("algorithms", algs);
            if (!s->dataSources.isEmpty())
                o.insert("data_sources", QJsonArray::fromStringList(s->dataSources));
            plugins.append(o);
        }
        QJsonArray folders;
        for (const tb::PluginFolder& f : reg.folders()) {
            QJsonObject o{{"path", f.path}, {"state", f.stateName()}};
            if (!f.problem.isEmpty())
                o.insert("problem", f.problem);
            folders.append(o);
        }
        QJsonObject root{{"search_paths", QJsonArray::fromStringList(reg.searchPaths())},
                         {"folders", folders},
                         {"notices", QJsonArray::fromStringList(reg.notices())},
                         {"plugins", plugins},
                         {"data_sources", tb::data::DataSourceRegistry::toJson()}};
        out() << QJsonDocument(root).toJson(QJsonDocument::Indented);
        return Ok;
    }
    // First what the user must know, then where plugins come from: they are code.
    for (const QString& n : reg.notices())
        out() << "Notice: " << n << "\n";
    out() << "Plugins are code: they run with your rights. Plugin folders, searched in this order:\n";
    for (const tb::PluginFolder& f : reg.folders()) {
        out() << "  " << f.path;
        switch (f.state) {
        case tb::PluginFolder::State::Used: break;
        case tb::PluginFolder::State::Missing: out() << "  (does not exist)"; break;
        case tb::PluginFolder::State::Refused: out() << "  (refused: " << f.problem << ")"; break;
        case tb::PluginFolder::State::Trusted: out() << "  (trusted by " << tb::PluginTrust::trustVariable << " although " << f.problem << ")"; break;
        }
        out() << "\n";
    }
    out() << "\n";
    int loaded = 0;
    for (const auto& s : reg.plugins()) {
        if (!s->isLoaded())
            continue;
        ++loaded;
        out() << s->name << " (" << s->id << " " << s->version << ")  " << s->filePath << "\n";
        if (!s->replaces.isEmpty())
            out() << "  replaces " << s->replaces.join(", ") << "\n";
        if (!s->citation.isEmpty())
            out() << "  " << s->citation << "\n";
        for (const auto& a : s->algorithms) {
            out() << "  " << a.id << " — " << a.name << (isSparse(a.id) ? "  [sparse inputs]" : "") << "\n";
            if (!a.description.isEmpty()) // a Python trainer's is optional
                out() << "    " << a.description << "\n";
            if (const QString cost = costs.value(a.id).describe(); !cost.isEmpty())
                out() << "    predicted cost for " << tb::CostPrediction::describeShape(referenceShapeOf(a))
                      << " (Fashion-MNIST, defaults, " << costThreads << " threads): " << cost << "\n";
            for (const auto& ps : a.schema.specs())
                out() << "      " << ps.key << " (" << tb::paramTypeName(ps.type) << "): " << ps.help << "\n";
        }
        if (!s->dataSources.isEmpty())
            out() << "  data sources: " << s->dataSources.join(", ") << "\n";
        if (!s->error.isEmpty())
            out() << "  refused: " << s->error << "\n";
        out() << "\n";
    }
    int broken = 0;
    for (const auto& s : reg.plugins())
        if (!s->isLoaded()) {
            if (broken++ == 0)
                out() << "Not loaded:\n";
            out() << "  " << s->filePath << ": " << s->stateName() << ": " << s->error << "\n";
        }
    if (loaded == 0)
        out() << "No plugins found. Searched: " << reg.searchPaths().join(", ") << "\n";
    return Ok;
}

} // namespace tb::cli
