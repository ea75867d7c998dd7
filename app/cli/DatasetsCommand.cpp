#include "DatasetsCommand.h"
#include "CliStreams.h"

#include "DownloadBar.h"

#include <data/DatasetCache.h>
#include <data/DatasetCatalog.h>
#include <data/DatasetFetcher.h>
#include <data/MemoryBudget.h>

#include <QCommandLineParser>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QTextStream>

#include <cstdio>
#include <unistd.h>

namespace tb::cli {
namespace {

QString size(qint64 n, bool exact)
{
    if (n < 0)
        return QStringLiteral("?");
    return (exact ? QString() : QStringLiteral("≈ ")) + data::MemoryBudget::formatBytes(std::uint64_t(n));
}

bool exactSize(const data::DatasetEntry& e)
{
    for (const data::DatasetFileInfo& f : e.files)
        if (f.size < 0)
            return false;
    return true;
}

QString stateText(const data::DatasetEntry& e)
{
    switch (data::DatasetCache::state(e)) {
    case data::DatasetCache::State::Verified:
        return QStringLiteral("cached, verified");
    case data::DatasetCache::State::Unverified:
        return QStringLiteral("in the cache, not verified");
    case data::DatasetCache::State::Missing:
        break;
    }
    qint64 partial = 0;
    for (const data::DatasetFileInfo& f : e.files)
        if (QFileInfo(data::DatasetCache::partialPath(e, f)).isFile())
            partial += QFileInfo(data::DatasetCache::partialPath(e, f)).size();
    return partial > 0 ? QStringLiteral("partly downloaded (%1)").arg(size(partial, true)) : QStringLiteral("not fetched");
}

/// The entries @p names names, or nullopt after saying which name is unknown.
std::optional<QList<const data::DatasetEntry*>> entriesOf(const QStringList& names)
{
    QList<const data::DatasetEntry*> out;
    for (const QString& n : names) {
        const data::DatasetEntry* e = data::DatasetCatalog::find(n);
        if (!e) {
            err() << "trainbench-cli datasets: no data set \"" << n << "\"; known: "
                  << data::DatasetCatalog::ids().join(QStringLiteral(", ")) << Qt::endl;
            return std::nullopt;
        }
        out << e;
    }
    return out;
}

/// --sha256 HEX (a single-file set) or FILE=HEX, repeatable.
QHash<QString, QString> userChecksums(const QCommandLineParser& p)
{
    QHash<QString, QString> out;
    for (const QString& v : p.values(QStringLiteral("sha256"))) {
        const qsizetype eq = v.indexOf(QLatin1Char('='));
        out.insert(eq < 0 ? QString() : v.left(eq), eq < 0 ? v : v.mid(eq + 1));
    }
    return out;
}

int list(const QCommandLineParser& p)
{
    for (const QString& problem : data::DatasetCatalog::problems())
        err() << "warning: " << problem << "\n";
    if (p.isSet(QStringLiteral("json"))) {
        QJsonArray a;
        for (const data::DatasetEntry& e : data::DatasetCatalog::entries()) {
            QJsonObject o = data::DatasetCatalog::toJson(e);
            o.insert(QStringLiteral("origin"), e.origin);
            o.insert(QStringLiteral("cached"), stateText(e));
            o.insert(QStringLiteral("path"), data::DatasetCache::folder(e));
            a.append(o);
        }
        out() << QJsonDocument(QJsonObject{{"cache", data::DatasetCache::root()}, {"datasets", a}}).toJson();
        return Ok;
    }
    out() << "Data-set cache: " << data::DatasetCache::root() << "\n\n";
    out() << QStringLiteral("%1 %2 %3 %4 %5\n")
                 .arg(QStringLiteral("name"), -20)
                 .arg(QStringLiteral("task"), -15)
                 .arg(QStringLiteral("size"), -12)
                 .arg(QStringLiteral("checksum"), -13)
                 .arg(QStringLiteral("state"));
    for (const data::DatasetEntry& e : data::DatasetCatalog::entries()) {
        out() << QStringLiteral("%1 %2 %3 %4 %5")
                     .arg(e.id, -20)
                     .arg(e.task, -15)
                     .arg(size(e.totalSize(), exactSize(e)), -12)
                     .arg(e.verifiable() ? e.files.first().algorithm : QStringLiteral("unverifiable"), -13)
                     .arg(stateText(e));
        if (e.origin != u"built in")
            out() << "  (from " << e.origin << ")";
        out() << "\n    " << e.title << " — " << e.papers << "\n";
    }
    out() << "\nFetch one with `trainbench-cli datasets fetch NAME`; docs/experiments.md lists where each checksum "
             "is published.\n";
    out().flush();
    return Ok;
}

int fetch(const QList<const data::DatasetEntry*>& entries, const QCommandLineParser& p, std::atomic<bool>* stop)
{
    data::DatasetFetcher::Options o;
    o.mirror = p.value(QStringLiteral("mirror"));
    o.userChecksums = userChecksums(p);
    o.cancel = stop;
    if (p.isSet(QStringLiteral("timeout"))) {
        bool ok = false;
        o.timeoutSeconds = p.value(QStringLiteral("timeout")).toDouble(&ok);
        if (!ok || !(o.timeoutSeconds > 0) || o.timeoutSeconds > 86400) {
            err() << "trainbench-cli datasets: --timeout: expected seconds in (0, 86400], got \""
                  << p.value(QStringLiteral("timeout")) << "\"" << Qt::endl;
            return Usage;
        }
    }
    DownloadBar bar(!p.isSet(QStringLiteral("quiet")) && isatty(STDERR_FILENO));
    if (!p.isSet(QStringLiteral("quiet")))
        o.progress = [&](const data::FetchProgress& fp) { bar.progress(fp); };
    o.message = [&](const QString& line) { bar.message(line); };
    int code = Ok;
    for (const data::DatasetEntry* e : entries) {
        if (data::DatasetCache::state(*e) != data::DatasetCache::State::Verified)
            bar.message(QStringLiteral("Fetching %1 (%2, %3) into %4")
                            .arg(e->id, e->title, size(e->totalSize(), exactSize(*e)), data::DatasetCache::folder(*e)));
        QString error;
        const bool ok = data::DatasetFetcher::fetch(*e, o, &error);
        bar.finish();
        if (!ok) {
            err() << "trainbench-cli datasets fetch: " << e->id << ": " << error << Qt::endl;
            if (stop && stop->load())
                return Stopped;
            code = error.contains(QStringLiteral("checksum mismatch")) || error.contains(QStringLiteral("is expected")) ||
                           error.contains(QStringLiteral("but the file is published with"))
                       ? Invalid
                       : (error.contains(QStringLiteral("no published checksum")) ? Usage : Failed);
            continue;
        }
        out() << e->id << ": " << data::DatasetCache::folder(*e) << " (verified: "
              << (e->verifiable() ? QStringLiteral("%1 published in %2").arg(e->files.first().algorithm, e->checksumSource)
                                  : QStringLiteral("the SHA-256 you gave"))
              << ")\n";
        out().flush();
    }
    return code;
}

int verify(const QList<const data::DatasetEntry*>& entries, const QCommandLineParser& p)
{
    const QHash<QString, QString> sums = userChecksums(p);
    int code = Ok;
    for (const data::DatasetEntry* e : entries) {
        for (const data::DatasetFileInfo& f : e->files) {
            const QString user = sums.value(f.name, e->files.size() == 1 ? sums.value(QString()) : QString());
            if (!QFileInfo(data::DatasetCache::path(*e, f)).isFile()) {
                err() << "trainbench-cli datasets verify: " << data::DatasetCache::missingHint(*e, f) << Qt::endl;
                code = std::max<int>(code, Failed);
                continue;
            }
            QString error;
            // An unverifiable set keeps the checksum the user gave when it was fetched.
            const data::DatasetCache::FileState s = data::DatasetCache::fileState(*e, f);
            const QString given = !user.isEmpty() ? user
                                  : s.userChecksum ? s.checksum.section(QLatin1Char(':'), 1)
                                                   : QString();
            if (!data::DatasetCache::verify(*e, f, given, &error)) {
                err() << "trainbench-cli datasets verify: " << e->id << ": " << error << Qt::endl;
                code = error.contains(QStringLiteral("no published checksum")) ? std::max<int>(code, Usage) : Invalid;
                continue;
            }
            out() << e->id << "/" << f.name << ": ok (" << data::DatasetCache::fileState(*e, f).checksum << ")\n";
        }
    }
    out().flush();
    return code;
}

int remove(const QList<const data::DatasetEntry*>& entries, const QCommandLineParser& p)
{
    if (!p.isSet(QStringLiteral("yes"))) {
        QStringList what;
        for (const data::DatasetEntry* e : entries)
            what << QStringLiteral("%1 (%2)").arg(data::DatasetCache::folder(*e), size(data::DatasetCache::bytesOnDisk(*e), true));
        if (!isatty(STDIN_FILENO)) {
            err() << "trainbench-cli datasets remove: this would delete " << what.join(QStringLiteral(", "))
                  << "; confirm with --yes" << Qt::endl;
            return Usage;
        }
        err() << "Delete " << what.join(QStringLiteral(", ")) << "? [y/N] " << Qt::flush;
        char answer[16] = {};
        if (!std::fgets(answer, sizeof answer, stdin) || (answer[0] != 'y' && answer[0] != 'Y')) {
            err() << "Nothing removed." << Qt::endl;
            return Usage;
        }
    }
    int code = Ok;
    for (const data::DatasetEntry* e : entries) {
        QString error;
        if (!data::DatasetCache::remove(*e, &error)) {
            err() << "trainbench-cli datasets remove: " << error << Qt::endl;
            code = Failed;
            continue;
        }
        out() << "removed " << data::DatasetCache::folder(*e) << "\n";
    }
    out().flush();
    return code;
}

} // namespace

int datasetsCommand(const QStringList& args, std::atomic<bool>* stop)
{
    QCommandLineParser p;
    p.setApplicationDescription(
        "The data-set catalogue: the public sets of the papers, fetched once into a cache.\n"
        "  datasets [list] [--json]              every set: size, checksum, cached or not\n"
        "  datasets fetch NAME…                  download, verify, keep (resumes an interrupted transfer)\n"
        "  datasets verify NAME…                 check the cached files against their checksums\n"
        "  datasets path NAME [FILE]             the folder (or file) of a set in the cache\n"
        "  datasets remove NAME… [--yes]         delete a set from the cache");
    p.addHelpOption();
    p.addPositionalArgument(QStringLiteral("command"), QStringLiteral("list, fetch, verify, path or remove"));
    p.addOption({QStringLiteral("json"), QStringLiteral("list: print JSON.")});
    p.addOption({QStringLiteral("mirror"),
                 QStringLiteral("fetch: take every file from URL/NAME/FILE instead of its published addresses "
                                "(default $TRAINBENCH_DATASETS_MIRROR)."),
                 QStringLiteral("url")});
    p.addOption({QStringLiteral("sha256"),
                 QStringLiteral("fetch, verify: the SHA-256 of a set without a published checksum (FILE=HEX for a set "
                                "of several files), checked and recorded."),
                 QStringLiteral("hex")});
    p.addOption({QStringLiteral("timeout"), QStringLiteral("fetch: seconds without data before a transfer counts as "
                                                           "stalled (default 30)."),
                 QStringLiteral("seconds")});
    p.addOption({QStringLiteral("quiet"), QStringLiteral("fetch: no progress.")});
    p.addOption({QStringLiteral("yes"), QStringLiteral("remove: do not ask.")});
    p.process(args);
    QStringList pos = p.positionalArguments();
    const QString command = pos.isEmpty() ? QStringLiteral("list") : pos.takeFirst();
    if (command == u"list") {
        if (!pos.isEmpty()) {
            err() << "usage: trainbench-cli datasets list [--json]" << Qt::endl;
            return Usage;
        }
        return list(p);
    }
    if (command != u"fetch" && command != u"verify" && command != u"path" && command != u"remove") {
        err() << "trainbench-cli datasets: unknown command \"" << command
              << "\"; expected list, fetch, verify, path or remove" << Qt::endl;
        return Usage;
    }
    if (pos.isEmpty() || (command == u"path" && pos.size() > 2)) {
        err() << "usage: trainbench-cli datasets " << command << (command == u"path" ? " NAME [FILE]" : " NAME…") << Qt::endl;
        return Usage;
    }
    for (const QString& problem : data::DatasetCatalog::problems())
        err() << "warning: " << problem << "\n";
    const auto entries = entriesOf(command == u"path" ? pos.mid(0, 1) : pos);
    if (!entries)
        return Usage;
    if (command == u"fetch")
        return fetch(*entries, p, stop);
    if (command == u"verify")
        return verify(*entries, p);
    if (command == u"remove")
        return remove(*entries, p);
    const data::DatasetEntry& e = *entries->first();
    if (pos.size() == 2) {
        const data::DatasetFileInfo* f = e.file(pos[1]);
        if (!f) {
            QStringList names;
            for (const data::DatasetFileInfo& fi : e.files)
                names << fi.name;
            err() << "trainbench-cli datasets path: " << e.id << " has no file \"" << pos[1] << "\"; its files: "
                  << names.join(QStringLiteral(", ")) << Qt::endl;
            return Usage;
        }
        out() << data::DatasetCache::path(e, *f) << "\n";
    } else {
        out() << data::DatasetCache::folder(e) << "\n";
    }
    out().flush();
    return Ok;
}

} // namespace tb::cli
