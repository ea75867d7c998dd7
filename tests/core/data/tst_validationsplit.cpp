// The validation split of every data source (issue 25): a seeded share of the training rows
// (validation_fraction) or a file of its own (validation_file), taken before anything is fitted on
// the training rows, checked like the test set, and refused with the key or file named when it
// cannot be what it says.

#include <data/DataError.h>
#include <data/DataSource.h>

#include <ExpectDataError.h>

#include <QJsonObject>
#include <QtTest>

#include <algorithm>
#include <vector>

using namespace tb::data;
using tb::testsupport::expectError;

namespace {
const QString fixtures = QStringLiteral(TB_FIXTURES_DIR "/data");

/// Every row of @p x as a vector, for set comparisons.
std::vector<std::vector<double>> rows(const Eigen::MatrixXd& x)
{
    std::vector<std::vector<double>> out;
    for (Eigen::Index i = 0; i < x.rows(); ++i) {
        std::vector<double> r(std::size_t(x.cols()));
        for (Eigen::Index j = 0; j < x.cols(); ++j)
            r[std::size_t(j)] = x(i, j);
        out.push_back(r);
    }
    std::sort(out.begin(), out.end());
    return out;
}
} // namespace

class TestValidationSplit : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void aSeededShareOfTheTrainingRows()
    {
        // The same training rows as without the split, now divided: disjoint, in the same total,
        // drawn with the seed (same seed, same rows; another seed, other rows); the test set as
        // it was.
        const QJsonObject plainSpec{{"source", "moons"}, {"samples", 400}, {"seed", 7}};
        QJsonObject spec = plainSpec;
        spec.insert("validation_fraction", 0.25);
        const DatasetPair plain = DataSource::load(plainSpec, {});
        const DatasetPair p = DataSource::load(spec, {});
        QVERIFY(!plain.hasValidation());
        QVERIFY(p.hasValidation());
        QCOMPARE(p.test.x, plain.test.x);
        QCOMPARE(p.validation.rows(), Eigen::Index(70)); // round(0.25 × 280)
        QCOMPARE(p.train.rows() + p.validation.rows(), plain.train.rows());
        auto all = rows(p.train.x);
        const auto val = rows(p.validation.x);
        all.insert(all.end(), val.begin(), val.end());
        std::sort(all.begin(), all.end());
        QVERIFY(all == rows(plain.train.x));
        QCOMPARE(DataSource::load(spec, {}).validation.x, p.validation.x);
        QJsonObject other = spec;
        other.insert("seed", 8);
        QVERIFY(DataSource::load(other, {}).validation.x != p.validation.x);
        QVERIFY2(DataSource::describe(spec).contains("25% of train for validation"), qPrintable(DataSource::describe(spec)));
    }

    void fittedWithoutTheValidationRows()
    {
        // Standardisation is fitted on the remaining training rows only: their mean is 0, the
        // validation rows' is not (they did not take part).
        const DatasetPair p = DataSource::load(
            {{"source", "friedman1"}, {"samples", 500}, {"standardise", true}, {"validation_fraction", 0.3}}, {});
        QVERIFY(p.train.x.colwise().mean().cwiseAbs().maxCoeff() < 1e-12);
        QVERIFY(p.validation.x.colwise().mean().cwiseAbs().maxCoeff() > 1e-6);
        // Random features map the validation rows too.
        const DatasetPair f = DataSource::load({{"source", "moons"},
                                                {"validation_fraction", 0.2},
                                                {"random_features", "gaussian_cos"},
                                                {"rf_count", 16}},
                                               {});
        QCOMPARE(f.validation.inputs(), Eigen::Index(16));
        QCOMPARE(f.validation.outputs(), f.train.outputs());
    }

    void aValidationFileOfItsOwn()
    {
        const QJsonObject spec{{"source", "csv"},
                               {"file", fixtures + "/iris_small.csv"},
                               {"target", "species"},
                               {"task", "classification"},
                               {"test_file", fixtures + "/iris_small_test.csv"},
                               {"validation_file", fixtures + "/iris_small_test.csv"}};
        const DatasetPair p = DataSource::load(spec, {});
        QVERIFY(p.hasValidation());
        // Read like the test file (columns matched by name, the training set's classes).
        QCOMPARE(p.validation.x, p.test.x);
        QCOMPARE(p.validation.classNames, p.train.classNames);
        QVERIFY(DataSource::describe(spec).contains("validation iris_small_test.csv"));
    }

    void refusedWithTheKeyOrFileNamed()
    {
        // A share that leaves no training rows, or holds out none.
        const DataError all = expectError([] {
            DataSource::load({{"source", "bpls_toy"}, {"function", "linear"}, {"validation_fraction", 0.95}}, {});
        });
        QCOMPARE(all.key(), QStringLiteral("dataset.validation_fraction"));
        QVERIFY2(all.message().contains("leaves none to train on"), qPrintable(all.message()));
        const DataError none = expectError(
            [] { DataSource::load({{"source", "moons"}, {"samples", 10}, {"validation_fraction", 0.01}}, {}); });
        QCOMPARE(none.key(), QStringLiteral("dataset.validation_fraction"));
        QVERIFY2(none.message().contains("holds out no row"), qPrintable(none.message()));
        // Out of range, and beside a validation file.
        QVERIFY(DataSource::validate({{"source", "moons"}, {"validation_fraction", 1}})
                    .startsWith("dataset.validation_fraction: expected a number between 0 and 1 (exclusive), got 1"));
        const QString both = DataSource::validate({{"source", "libsvm"},
                                                   {"file", "a"},
                                                   {"task", "regression"},
                                                   {"test_fraction", 0.2},
                                                   {"validation_file", "v"},
                                                   {"validation_fraction", 0.2}});
        QVERIFY2(both.startsWith("dataset.validation_fraction: only used when validation_file is not given"),
                 qPrintable(both));
        // A validation file with other columns names that file.
        const DataError columns = expectError([] {
            DataSource::load({{"source", "csv"},
                              {"file", fixtures + "/iris_small.csv"},
                              {"target", "species"},
                              {"task", "classification"},
                              {"test_fraction", 0.3},
                              {"validation_file", fixtures + "/iris_extra_feature.csv"}},
                             {});
        });
        QCOMPARE(columns.file(), fixtures + "/iris_extra_feature.csv");
        QVERIFY2(columns.message().startsWith("train and validation features differ"), qPrintable(columns.message()));
    }
};

QTEST_APPLESS_MAIN(TestValidationSplit)
#include "tst_validationsplit.moc"
