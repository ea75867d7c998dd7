// DataSourceRegistry: every source and its keys declared once, in the source's own file (issues 10
// and 24). Checked by behaviour: every declared default is what DataSource uses when the key is
// absent, every choice is accepted by its string and does what it says, validation follows the
// declared types, ranges and conditions, and a source offered twice is refused.

#include <data/DataError.h>
#include <data/DataSource.h>
#include <data/DataKeys.h>
#include <data/DataSourceRegistry.h>
#include <data/DatasetCatalog.h>

#include <QFile>
#include <QJsonArray>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>
#include <ExpectDataError.h>

using tb::testsupport::expectError;

using namespace tb::data;
using tb::DataSourceInfo;

namespace {

const QString fixtures = QStringLiteral(TB_FIXTURES_DIR "/data");

/// The smallest valid spec of each source these tests can load without large files.
QJsonObject minimal(const QString& source)
{
    if (source == u"bpls_toy")
        return {{"source", source}, {"function", "linear"}};
    if (source == u"csv")
        return {{"source", source}, {"file", fixtures + "/regression.csv"}, {"target", "y1"}, {"task", "regression"},
                {"test_fraction", 0.25}};
    if (source == u"libsvm")
        return {{"source", source}, {"file", fixtures + "/small.libsvm"}, {"task", "classification"}, {"test_fraction", 0.3}};
    if (source == u"sparse_text") // small: the test loads it once per key
        return {{"source", source}, {"samples", 300}, {"features", 2000}};
    return {{"source", source}};
}

bool loadable(const QString& source)
{
    // idx and fashion_mnist need large or many files; the catalogue's sets their fetched files
    // (tst_catalogsources loads them).
    return source != u"idx" && source != u"fashion_mnist" && !DatasetCatalog::find(source);
}

bool same(const DatasetPair& a, const DatasetPair& b)
{
    auto sameInputs = [](const Dataset& u, const Dataset& v) {
        return u.x == v.x && u.isSparse() == v.isSparse() &&
               (!u.isSparse() || Eigen::MatrixXd(u.xSparse) == Eigen::MatrixXd(v.xSparse));
    };
    return sameInputs(a.train, b.train) && a.train.y == b.train.y && sameInputs(a.test, b.test) && a.test.y == b.test.y;
}

} // namespace

class TestDataSourceRegistry : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void everySourceIsDeclaredOnce()
    {
        QStringList ids = DataSourceRegistry::ids();
        QCOMPARE(ids, DataSource::sources());
        // Listed in their declared order (a later source may slot in anywhere).
        qsizetype at = -1;
        for (const char* id : {"bpls_toy", "moons", "circles", "spirals", "xor", "friedman1", "mv", "fashion_mnist", "idx",
                               "csv", "libsvm"}) {
            QVERIFY2(ids.indexOf(id) > at, id);
            at = ids.indexOf(id);
        }
        ids.removeDuplicates();
        QCOMPARE(ids.size(), DataSourceRegistry::all().size());
        for (const DataSourceEntry* e : DataSourceRegistry::all()) {
            const DataSourceInfo& s = e->info;
            QCOMPARE(e->origin, QStringLiteral("built in"));
            QStringList keys;
            for (const tb::ParamSpec& p : e->schema.specs()) {
                QVERIFY2(!keys.contains(p.key), qPrintable(s.id + "." + p.key));
                keys << p.key;
                QVERIFY2(!p.label.isEmpty() && !p.help.isEmpty(), qPrintable(s.id + "." + p.key));
                QString problem;
                if (p.defaultValue.isValid())
                    QVERIFY2(tb::ParamSchema::convert(p, p.defaultValue, &problem), qPrintable(problem));
                if (p.type == tb::ParamType::Choice)
                    QCOMPARE(p.choiceLabels.size(), p.choices.size());
            }
            QVERIFY(keys.contains("seed") && keys.contains("standardise"));
            QCOMPARE(DataSource::hasNoiseLevel(minimal(s.id)), !s.noiseKey.isEmpty());
        }
        QCOMPARE(DataSourceRegistry::toJson().toArray().size(), DataSourceRegistry::all().size());
    }

    void everyKeyIsDocumented()
    {
        QFile doc(QStringLiteral(TB_SOURCE_DIR "/docs/experiments.md"));
        QVERIFY(doc.open(QIODevice::ReadOnly));
        const QString text = QString::fromUtf8(doc.readAll());
        for (const DataSourceEntry* e : DataSourceRegistry::all()) {
            const DataSourceInfo& s = e->info;
            QVERIFY2(text.contains(QStringLiteral("`%1`").arg(s.id)), qPrintable(s.id));
            for (const tb::ParamSpec& p : e->schema.specs())
                QVERIFY2(text.contains(QStringLiteral("`%1`").arg(p.key)), qPrintable(s.id + "." + p.key));
            for (const tb::ParamSpec& p : e->schema.specs())
                for (const QString& c : p.choices)
                    QVERIFY2(text.contains(QStringLiteral("\"%1\"").arg(c == u"\t" ? QStringLiteral("\\t") : c)),
                             qPrintable(s.id + "." + p.key + " = " + c));
        }
    }

    void declaredDefaultsAreTheDefaultsUsed()
    {
        // Writing a key with its declared default changes nothing: the schema's default is the one
        // DataSource applies when the key is absent (no second copy of it anywhere).
        int checked = 0;
        for (const DataSourceEntry* e : DataSourceRegistry::all()) {
            const DataSourceInfo& s = e->info;
            if (!loadable(s.id))
                continue;
            const QJsonObject base = minimal(s.id);
            QVERIFY2(DataSource::validate(base).isEmpty(), qPrintable(DataSource::validate(base)));
            const DatasetPair plain = DataSource::load(base, fixtures);
            // The random-features settings need random features: compared with them on (dense
            // inputs only: sparse ones refuse them, and the rf_ keys are skipped).
            QJsonObject featureBase = base;
            featureBase.insert("random_features", "gaussian_cos");
            const bool sparse = plain.train.isSparse();
            if (sparse)
                QVERIFY(expectError([&] { DataSource::load(featureBase, fixtures); })
                            .text()
                            .contains("the data set's random features take dense inputs"));
            const DatasetPair featurePlain = sparse ? DatasetPair() : DataSource::load(featureBase, fixtures);
            QVariantMap applies = *DataSource::normalised(base, nullptr);
            applies.insert(DataKeys::context(s).values);
            for (const tb::ParamSpec& p : e->schema.specs()) {
                if (!p.defaultValue.isValid() || base.contains(p.key))
                    continue;
                if (!p.key.startsWith(QLatin1String("rf_")) && !tb::ParamSchema::isActive(p, applies))
                    continue; // e.g. standardise_targets of a classification file
                const bool rf = p.key.startsWith(QLatin1String("rf_"));
                if (rf && sparse)
                    continue;
                QJsonObject explicitSpec = rf ? featureBase : base;
                explicitSpec.insert(p.key, QJsonValue::fromVariant(p.defaultValue));
                if (p.key == u"test_fraction" && explicitSpec.contains("test_file"))
                    continue;
                const QString problem = DataSource::validate(explicitSpec);
                QVERIFY2(problem.isEmpty(), qPrintable(s.id + ": " + problem));
                QVERIFY2(same(rf ? featurePlain : plain, DataSource::load(explicitSpec, fixtures)),
                         qPrintable(s.id + "." + p.key));
                ++checked;
            }
        }
        QVERIFY(checked >= 15);
    }

    void everyChoiceIsAcceptedByItsString()
    {
        QTemporaryDir dir;
        const QStringList rows{"1", "2", "3", "4", "5", "6"};
        const tb::ParamSpec* delimiter = DataSourceRegistry::find("csv")->schema.find("delimiter");
        QVERIFY(delimiter);
        for (const QString& d : delimiter->choices) {
            const QString sep = d == u"whitespace" ? QStringLiteral("   ") : d;
            QFile f(dir.filePath("d.txt"));
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(QStringLiteral("a%1b%1y\n").arg(sep).toUtf8());
            for (const QString& r : rows)
                f.write(QStringLiteral("%1%2%1%2%1\n").arg(r, sep).toUtf8());
            f.close();
            const QJsonObject spec{{"source", "csv"}, {"file", f.fileName()}, {"target", "y"}, {"task", "regression"},
                                   {"delimiter", d}, {"test_fraction", 0.5}};
            const DatasetPair p = DataSource::load(spec, {});
            QCOMPARE(p.train.inputs(), Eigen::Index(2));
            QCOMPARE(p.train.rows() + p.test.rows(), Eigen::Index(6));
        }
        for (const QString& fn : DataSourceRegistry::find("bpls_toy")->schema.find("function")->choices) {
            const DatasetPair p = DataSource::load({{"source", "bpls_toy"}, {"function", fn}}, {});
            QCOMPARE(p.train.y(0, 1), fn == u"linear" ? 1.0 : 1.0 / (1.0 + std::exp(1.0))); // ỹ2 at x = 1
        }
        for (const QString& task : DataSourceRegistry::find("libsvm")->schema.find("task")->choices) {
            const DatasetPair p = DataSource::load(
                {{"source", "libsvm"}, {"file", fixtures + "/small.libsvm"}, {"task", task}, {"test_fraction", 0.3}}, {});
            QCOMPARE(p.train.isClassification(), task == u"classification");
        }
    }

    void validationFollowsTheDeclaredRanges()
    {
        for (const DataSourceEntry* e : DataSourceRegistry::all())
            for (const tb::ParamSpec& p : e->schema.specs()) {
                if (p.type != tb::ParamType::Int && p.type != tb::ParamType::Real)
                    continue;
                QJsonObject spec = minimal(e->info.id);
                if (!loadable(e->info.id))
                    continue;
                if (!p.activeWhen.isEmpty())
                    spec.insert("random_features", "gaussian_cos"); // the rf_* keys' condition
                spec.insert(p.key, p.minimum - 1);
                const QString problem = DataSource::validate(spec);
                QVERIFY2(problem.startsWith(QStringLiteral("dataset.%1: expected ").arg(p.key)),
                         qPrintable(e->info.id + ": " + problem));
                QVERIFY2(problem.contains(tb::ParamSchema::rangeText(p)), qPrintable(problem));
            }
    }

    void conditionsDecideWhereAKeyApplies()
    {
        // A random-features setting without random features, a test fraction beside a test file,
        // a regression-only option on a classification file: each named, with the condition.
        const QString withoutFeatures = DataSource::validate({{"source", "moons"}, {"rf_count", 10}});
        QVERIFY2(withoutFeatures.startsWith("dataset.rf_count: only used when random_features is not \"none\""),
                 qPrintable(withoutFeatures));
        const QString both = DataSource::validate({{"source", "libsvm"}, {"file", "a"}, {"task", "regression"},
                                                   {"test_file", "b"}, {"test_fraction", 0.3}});
        QVERIFY2(both.startsWith("dataset.test_fraction: only used when test_file is not given"), qPrintable(both));
        const QString neither = DataSource::validate({{"source", "libsvm"}, {"file", "a"}, {"task", "regression"}});
        QVERIFY2(neither.startsWith("dataset.test_fraction: missing; give test_fraction or test_file"), qPrintable(neither));
        const QString regressionOnly = DataSource::validate(
            {{"source", "csv"}, {"file", "a"}, {"target", "y"}, {"task", "classification"}, {"test_fraction", 0.3},
             {"standardise_targets", true}});
        QVERIFY2(regressionOnly.startsWith("dataset.standardise_targets: only used when task is \"regression\""),
                 qPrintable(regressionOnly));
        // A fixed-task source does not offer the other task's keys at all.
        QVERIFY(!DataSourceRegistry::find("moons")->schema.find("standardise_targets"));
        QVERIFY(!DataSourceRegistry::find("friedman1")->schema.find("keep_classes"));
        // The normalised spec holds the defaults of the keys that apply, and only those.
        const auto n = DataSource::normalised({{"source", "moons"}}, nullptr);
        QVERIFY(n);
        QCOMPARE(n->value("samples").toLongLong(), 400);
        QCOMPARE(n->value("test_fraction").toDouble(), 0.3);
        QVERIFY(!n->contains("rf_count"));
        const auto f = DataSource::normalised({{"source", "moons"}, {"random_features", "gaussian_cos"}}, nullptr);
        QVERIFY(f && f->value("rf_count").toLongLong() == 1000);
    }

    void aSourceOfferedTwiceIsRefused()
    {
        // A plugin's source under a built-in id, or with a key the host declares, is refused with
        // a reason; the built-in stays.
        class Copy : public tb::DataSourceProvider {
        public:
            explicit Copy(QString id, QString key = {}) : m_id(std::move(id)), m_key(std::move(key)) {}
            tb::DataSourceInfo info() const override
            {
                tb::DataSourceInfo i;
                i.id = m_id;
                i.label = m_id;
                i.task = tb::Task::Regression;
                if (!m_key.isEmpty())
                    i.params.add(tb::ParamSpec::boolean(m_key, m_key, false, "x"));
                return i;
            }
            tb::DataTables load(const tb::DataRequest&) const override { return {}; }
            QString describe(const QVariantMap&) const override { return m_id; }

        private:
            QString m_id, m_key;
        };
        const QString taken = DataSourceRegistry::addFromPlugin(std::make_shared<Copy>("moons"), "/x/libcopy.so");
        QVERIFY2(taken.contains("\"moons\" is already offered by built in"), qPrintable(taken));
        const QString common = DataSourceRegistry::addFromPlugin(std::make_shared<Copy>("mine", "seed"), "/x/libcopy.so");
        QVERIFY2(common.contains("key \"seed\" is one the host declares"), qPrintable(common));
        const QString badId = DataSourceRegistry::addFromPlugin(std::make_shared<Copy>("Not An Id"), "/x/libcopy.so");
        QVERIFY2(badId.contains("is not of the form"), qPrintable(badId));
        // A former id is taken as much as an id: a plugin cannot take over "bpls-toy", which old
        // files and stored runs still mean as bpls_toy.
        const QString former = DataSourceRegistry::addFromPlugin(std::make_shared<Copy>("bpls-toy"), "/x/libcopy.so");
        QVERIFY2(former.contains("\"bpls-toy\" is already offered by built in"), qPrintable(former));
        QCOMPARE(DataSourceRegistry::find("moons")->origin, QStringLiteral("built in"));
        QVERIFY(!DataSourceRegistry::find("mine"));
    }

    // One spelling of data-source ids (words joined by "_", as keys and the catalogue's sets); the
    // former spellings still find their source, so old files and stored runs load.
    void formerIdsFindTheirSource()
    {
        for (const DataSourceEntry* e : DataSourceRegistry::all()) {
            if (e->origin != u"built in")
                continue;
            QVERIFY2(!e->info.id.contains(QLatin1Char('-')), qPrintable(e->info.id + ": built-in ids join words with _"));
            for (const QString& former : e->info.formerIds)
                QCOMPARE(DataSourceRegistry::find(former), e);
        }
        QCOMPARE(DataSourceRegistry::find("bpls-toy")->info.id, QStringLiteral("bpls_toy"));
        QCOMPARE(DataSourceRegistry::find("fashion-mnist")->info.id, QStringLiteral("fashion_mnist"));
        const DatasetPair old = DataSource::load({{"source", "bpls-toy"}, {"function", "linear"}}, {});
        const DatasetPair now = DataSource::load({{"source", "bpls_toy"}, {"function", "linear"}}, {});
        QCOMPARE(old.train.x, now.train.x);
        QCOMPARE(old.train.y, now.train.y);
    }
};

QTEST_APPLESS_MAIN(TestDataSourceRegistry)
#include "tst_datasourceregistry.moc"
