// DataSourceSchema: the sources and keys declared once (issue 10). Checked by behaviour: every
// declared default is what DataSource uses when the key is absent, every choice is accepted by
// its string and does what it says, and validation follows the declared types and ranges.

#include "DataError.h"
#include "DataSource.h"
#include "DataSourceSchema.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

using namespace tb::data;

namespace {

const QString fixtures = QStringLiteral(TB_FIXTURES_DIR "/data");

/// The smallest valid spec of each source these tests can load without large files.
QJsonObject minimal(const QString& source)
{
    if (source == u"bpls-toy")
        return {{"source", source}, {"function", "linear"}};
    if (source == u"csv")
        return {{"source", source}, {"file", fixtures + "/regression.csv"}, {"target", "y1"}, {"task", "regression"},
                {"test_fraction", 0.25}};
    if (source == u"libsvm")
        return {{"source", source}, {"file", fixtures + "/small.libsvm"}, {"task", "classification"}, {"test_fraction", 0.3}};
    return {{"source", source}};
}

bool loadable(const QString& source)
{
    return source != u"idx" && source != u"fashion-mnist"; // need large or many files
}

bool same(const DatasetPair& a, const DatasetPair& b)
{
    return a.train.x == b.train.x && a.train.y == b.train.y && a.test.x == b.test.x && a.test.y == b.test.y;
}

} // namespace

class TestDataSourceSchema : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void everySourceIsDeclaredOnce()
    {
        QStringList ids = DataSourceSchema::ids();
        QCOMPARE(ids, DataSource::sources());
        ids.removeDuplicates();
        QCOMPARE(ids.size(), DataSourceSchema::sources().size());
        for (const DataSourceInfo& s : DataSourceSchema::sources()) {
            QStringList keys;
            for (const DataParam& p : s.params) {
                QVERIFY2(!keys.contains(p.key), qPrintable(s.id + "." + p.key));
                keys << p.key;
                QVERIFY2(!p.label.isEmpty() && !p.help.isEmpty(), qPrintable(s.id + "." + p.key));
                if (!p.defaultValue.isUndefined())
                    QVERIFY2(p.check(p.defaultValue).isEmpty(), qPrintable(s.id + "." + p.key + ": " + p.check(p.defaultValue)));
                if (p.kind == DataParam::Kind::Choice)
                    QCOMPARE(p.choiceLabels.size(), p.choices.size());
            }
            QVERIFY(keys.contains("seed") && keys.contains("standardise"));
            QCOMPARE(DataSource::hasNoiseLevel(minimal(s.id)), !s.noiseKey.isEmpty());
        }
        QCOMPARE(DataSourceSchema::toJson().toArray().size(), DataSourceSchema::sources().size());
    }

    void everyKeyIsDocumented()
    {
        QFile doc(QStringLiteral(TB_SOURCE_DIR "/docs/experiments.md"));
        QVERIFY(doc.open(QIODevice::ReadOnly));
        const QString text = QString::fromUtf8(doc.readAll());
        for (const DataSourceInfo& s : DataSourceSchema::sources()) {
            QVERIFY2(text.contains(QStringLiteral("`%1`").arg(s.id)), qPrintable(s.id));
            for (const DataParam& p : s.params)
                QVERIFY2(text.contains(QStringLiteral("`%1`").arg(p.key)), qPrintable(s.id + "." + p.key));
            for (const DataParam& p : s.params)
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
        for (const DataSourceInfo& s : DataSourceSchema::sources()) {
            if (!loadable(s.id))
                continue;
            const QJsonObject base = minimal(s.id);
            QVERIFY2(DataSource::validate(base).isEmpty(), qPrintable(DataSource::validate(base)));
            const DatasetPair plain = DataSource::load(base, fixtures);
            // The random-features settings need random features: compared with them on.
            QJsonObject featureBase = base;
            featureBase.insert("random_features", "gaussian_cos");
            const DatasetPair featurePlain = DataSource::load(featureBase, fixtures);
            for (const DataParam& p : s.params) {
                if (p.defaultValue.isUndefined() || base.contains(p.key))
                    continue;
                const bool rf = p.key.startsWith(QLatin1String("rf_"));
                QJsonObject explicitSpec = rf ? featureBase : base;
                explicitSpec.insert(p.key, p.defaultValue);
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
        const DataParam* delimiter = DataSourceSchema::source("csv")->param("delimiter");
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
        for (const QString& fn : DataSourceSchema::source("bpls-toy")->param("function")->choices) {
            const DatasetPair p = DataSource::load({{"source", "bpls-toy"}, {"function", fn}}, {});
            QCOMPARE(p.train.y(0, 1), fn == u"linear" ? 1.0 : 1.0 / (1.0 + std::exp(1.0))); // ỹ2 at x = 1
        }
        for (const QString& task : DataSourceSchema::source("libsvm")->param("task")->choices) {
            const DatasetPair p = DataSource::load(
                {{"source", "libsvm"}, {"file", fixtures + "/small.libsvm"}, {"task", task}, {"test_fraction", 0.3}}, {});
            QCOMPARE(p.train.isClassification(), task == u"classification");
        }
    }

    void validationFollowsTheDeclaredRanges()
    {
        for (const DataSourceInfo& s : DataSourceSchema::sources())
            for (const DataParam& p : s.params) {
                if (p.kind != DataParam::Kind::Int && p.kind != DataParam::Kind::Real)
                    continue;
                QJsonObject spec = minimal(s.id);
                if (!loadable(s.id))
                    continue;
                spec.insert(p.key, p.minimum - 1);
                const QString problem = DataSource::validate(spec);
                QVERIFY2(problem.startsWith(QStringLiteral("dataset.%1: expected ").arg(p.key)), qPrintable(s.id + ": " + problem));
                QVERIFY2(problem.contains(p.rangeText()), qPrintable(problem));
            }
    }
};

QTEST_APPLESS_MAIN(TestDataSourceSchema)
#include "tst_datasourceschema.moc"
