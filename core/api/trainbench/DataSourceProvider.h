#pragma once
/// @file DataSourceProvider.h
/// A data source: the "source" of an experiment file's "dataset" object. It declares its keys
/// (a ParamSchema), checks the rules between them, describes a spec and loads or generates its
/// data. The host does everything common to all sources — the keys every source takes
/// (seed, test_fraction, scaling, class subsets, random features), splitting, shape and
/// finiteness checks, the memory check — so that a source is only what makes it different.
///
/// Sources built into Trainbench live in core/data/sources/, one file each, and register
/// themselves (TB_REGISTER_DATA_SOURCE in core/data/DataSourceRegistry.h). A plugin offers more
/// by implementing DataSourcePlugin on its root object, like a trainer plugin implements
/// TrainerFactory, and declaring DataSourcePlugin_iid in Q_PLUGIN_METADATA; the registry lists
/// it with the trainer plugins. See docs/contributing.md.

#include "ApiVersion.h"
#include "DataTable.h"
#include "ParamSchema.h"

#include <QDir>
#include <QFileInfo>
#include <QList>
#include <QString>
#include <QVariantMap>
#include <QtPlugin>
#include <cstdint>
#include <memory>
#include <optional>
#include <utility>

namespace tb {

/// What a data source is and which keys it takes.
struct DataSourceInfo {
    QString id;          ///< the value of "source", e.g. "moons"; [a-z0-9_-]+, words joined by "_"
    /// Ids the source was known by before ("bpls-toy" for "bpls_toy"): still accepted in experiment
    /// files and stored runs, rewritten to id with a deprecation note (ExperimentSpec::upgradeParams()).
    QStringList formerIds;
    QString label;       ///< for people, e.g. "Two moons (2-D)"
    QString description; ///< one sentence
    /// The task every spec of this source yields; nullopt when the spec decides, through the
    /// source's own key "task" (a Choice of "classification" / "regression").
    std::optional<Task> task;
    /// The key a noise sweep varies ("sigma", "noise"), empty if none. load() receives the
    /// swept value in DataRequest::noise.
    QString noiseKey;
    /// The source's own keys, in form order. The host appends the keys every source takes.
    ParamSchema params;

    /// Where the test set comes from.
    enum class TestSet {
        Split,     ///< the host holds out "test_fraction" of the rows load() returns
        Own,       ///< load() returns a test set (e.g. Fashion-MNIST's test images)
        OwnOrSplit ///< load() returns a test set when the spec gives @ref testKey, else Split
    };
    TestSet testSet = TestSet::Split;
    /// Split / OwnOrSplit: the default share of "test_fraction".
    double testFraction = 0.3;
    /// OwnOrSplit: the key that names the test set (e.g. "test_file").
    QString testKey;
    /// The key that names a validation set of the source's own (e.g. "validation_file"), if it
    /// can load one; load() then returns it in DataTables::validation. Without it (or when the
    /// spec does not give it) the host holds out "validation_fraction" of the training rows when
    /// the spec asks for a validation split.
    QString validationKey;
    /// Position in lists and forms (smaller first; ties by id).
    int order = 100;
};

/// What load() is asked for.
struct DataRequest {
    /// The source's keys, normalised by its schema (canonical types, defaults filled in), and
    /// the keys every source takes (which the host applies itself).
    QVariantMap spec;
    /// The folder relative paths resolve against (the experiment file's), or empty: the
    /// current directory.
    QString baseDir;
    /// The seed of generation and subsets: the spec's "seed", else the experiment's.
    std::uint64_t seed = 1;
    /// The noise level a noise sweep imposes (on DataSourceInfo::noiseKey), if any.
    std::optional<double> noise;

    /// The path under @p key, absolute (resolved against baseDir); empty when not given.
    QString path(const QString& key) const
    {
        const QString p = spec.value(key).toString();
        if (p.isEmpty())
            return {};
        if (QFileInfo(p).isAbsolute())
            return QDir::cleanPath(p);
        return QDir::cleanPath(QDir(baseDir.isEmpty() ? QDir::currentPath() : baseDir).filePath(p));
    }
};

/// What load() returns.
struct DataTables {
    DataTable train;                ///< the training rows (or all rows, to be split)
    std::optional<DataTable> test;  ///< the test set, when the source has one (TestSet::Own …)
    /// The validation set, when the spec names one through DataSourceInfo::validationKey.
    std::optional<DataTable> validation;
    /// What was read, for error messages about each set: a file path, or e.g.
    /// "generated train set (moons)". Empty: the host uses the source's id.
    QString trainOrigin;
    QString testOrigin;
    QString validationOrigin;
};

/// Memory a load will allocate, checked by the host before load() is called.
struct DataMemoryNeed {
    double bytes = 0;  ///< 0: unknown (not checked before)
    QString what;      ///< e.g. "generating 1000 samples × 11 columns"
    QString key;       ///< the key that sizes it, e.g. "samples"
};

/// One data source. Implementations must be reentrant: the host calls load() from several
/// threads at once (noise-sweep cells).
class DataSourceProvider {
public:
    virtual ~DataSourceProvider() = default;

    /// What the source is and which keys it takes.
    virtual DataSourceInfo info() const = 0;

    /// A rule between the source's own keys that the schema cannot express, broken by the
    /// normalised @p spec: {key, message} of the first problem; {} when there is none.
    virtual std::pair<QString, QString> conflict(const QVariantMap& spec) const
    {
        Q_UNUSED(spec);
        return {};
    }

    /// Memory load() will allocate for @p spec (normalised), checked before load().
    virtual DataMemoryNeed memoryNeed(const QVariantMap& spec) const
    {
        Q_UNUSED(spec);
        return {};
    }

    /// Loads or generates the data. Throws std::exception with a message naming the file and
    /// line (or the key) at fault; the host adds the source's id when the message lacks it.
    virtual DataTables load(const DataRequest& request) const = 0;

    /// Short human text of the source's part of @p spec (normalised), e.g. "moons, 400
    /// samples, noise 0.1"; the host appends the common keys (test share, scaling …).
    virtual QString describe(const QVariantMap& spec) const = 0;
};

/// The root interface of a plugin that offers data sources.
///
/// Thread-safety: dataSources() may be called from any thread.
class DataSourcePlugin {
public:
    virtual ~DataSourcePlugin() = default;
    /// The sources this plugin offers. Must not be empty.
    virtual QList<std::shared_ptr<const DataSourceProvider>> dataSources() const = 0;
};

} // namespace tb

/// The prefix of every data-source plugin IID; the API version follows it.
#define DataSourcePlugin_iid_prefix "org.trainbench.DataSourcePlugin/"
/// "org.trainbench.DataSourcePlugin/<TB_DATA_SOURCE_API_VERSION>".
#define DataSourcePlugin_iid DataSourcePlugin_iid_prefix TB_API_STRINGIFY(TB_DATA_SOURCE_API_VERSION)

Q_DECLARE_INTERFACE(tb::DataSourcePlugin, DataSourcePlugin_iid)
