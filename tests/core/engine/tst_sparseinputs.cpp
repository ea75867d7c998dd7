// Sparse inputs through the engine (issue 28): a SparseTrainer gets them as they are and is
// evaluated with predictSparse(); any other trainer gets a dense copy when it fits — the same
// numbers — and is refused before it starts when it does not; a plugin that says its algorithm
// takes sparse inputs but returns a plain Trainer fails the run with a message, not a crash.

#include <data/DataError.h>
#include <data/DataSource.h>
#include <engine/MemoryCheck.h>
#include <engine/PluginRegistry.h>
#include <engine/Runner.h>

#include <QtTest>

using namespace tb;

namespace {

// A generated corpus, sparse (the sparse_text source keeps its rows compressed), split 80/20.
std::shared_ptr<const data::DatasetPair> corpus(int samples = 600, int features = 3000, bool standardise = false)
{
    return std::make_shared<const data::DatasetPair>(data::DataSource::load(
        QJsonObject{{"source", "sparse_text"}, {"samples", samples}, {"features", features}, {"words_per_row", 30},
                    {"standardise", standardise}},
        QString(), data::DataOverrides{{}, 5}));
}

RunJob job(const QString& id, std::shared_ptr<const data::DatasetPair> data)
{
    RunJob j;
    j.algorithmId = id;
    j.label = id;
    j.seed = 1;
    j.data = std::move(data);
    j.datasetDescription = "sparse_text";
    j.threads = 1;
    return j;
}

} // namespace

class TestSparseInputs : public QObject {
    Q_OBJECT
private:
    PluginRegistry m_reg;

private Q_SLOTS:
    void initTestCase()
    {
        m_reg.scan({TB_TEST_PLUGIN_DIR});
        QVERIFY(m_reg.algorithm("test.centroid"));
        QVERIFY(m_reg.algorithm("test.centroid")->sparseInput);
        QVERIFY(!m_reg.algorithm("test.dense_only")->sparseInput);
        // A plugin built before SparseInputFactory existed declares nothing: dense only.
        QVERIFY(m_reg.algorithm("test.mean"));
        QVERIFY(!m_reg.algorithm("test.mean")->sparseInput);
    }

    void sparseTrainerGetsSparseRowsAndDenseCopyGivesTheSameNumbers()
    {
        const auto data = corpus();
        QVERIFY(data->train.isSparse());
        QVERIFY(data->test.isSparse());
        StopSource stop;
        const RunResult sparse = Runner(m_reg, nullptr).execute(job("test.centroid", data), stop);
        QCOMPARE(sparse.status, RunStatus::Finished);
        QCOMPARE(sparse.info.value("saw_sparse").toBool(), true);
        QVERIFY(!sparse.info.contains("densified"));
        // The same model made from a dense copy (the host densified for a dense-only trainer):
        // the same accuracies. The products differ only in summation order (≤ a few ulps), and
        // an accuracy moves only if a class-score tie flips, which these data do not have.
        const RunResult dense = Runner(m_reg, nullptr).execute(job("test.dense_only", data), stop);
        QCOMPARE(dense.status, RunStatus::Finished);
        const QJsonObject densified = dense.info.value("densified").toObject();
        QCOMPARE(densified.value("non_zeros").toDouble(), double(data->train.xSparse.nonZeros()));
        const double bytes = double(data->train.rows() + data->test.rows()) * double(data->train.inputs()) * 8;
        QCOMPARE(densified.value("bytes").toDouble(), bytes);
        QVERIFY2(dense.info.value("log").toVariant().toStringList().join('\n').contains("sparse inputs made dense"),
                 qPrintable(QJsonDocument(dense.info).toJson()));
        QCOMPARE(sparse.last.trainAccuracy, dense.last.trainAccuracy);
        QCOMPARE(sparse.last.testAccuracy, dense.last.testAccuracy);
        QVERIFY(std::isfinite(sparse.last.testAccuracy));
    }

    void denseCopyThatDoesNotFitIsRefusedBeforeTheRun()
    {
        const auto data = corpus();
        // The dense copy is 600 × 3000 doubles, 13.7 MiB; allow 4 MiB.
        qputenv("TRAINBENCH_MEMORY_LIMIT", "4M");
        StopSource stop;
        const RunResult r = Runner(m_reg, nullptr).execute(job("test.dense_only", data), stop);
        const RunResult fine = Runner(m_reg, nullptr).execute(job("test.centroid", data), stop);
        const QString before = MemoryCheck::refusal(
            m_reg, QList<MemoryCheck::Demand>{{"Dense", "test.dense_only", {}, CostPrediction::shapeOf(data->train), 2}});
        qunsetenv("TRAINBENCH_MEMORY_LIMIT");
        QCOMPARE(r.status, RunStatus::Failed);
        QVERIFY2(r.error.startsWith("test.dense_only: test.dense_only takes dense inputs only, and making the sparse "),
                 qPrintable(r.error));
        QVERIFY2(r.error.contains("dense needs 13.7 MiB"), qPrintable(r.error));
        QVERIFY2(r.error.contains("Not started: these algorithms take the data as it is: ") &&
                     r.error.contains("test.centroid"),
                 qPrintable(r.error));
        QVERIFY(!r.error.contains("test.dense_only,")); // only those that take it
        QVERIFY(r.points.isEmpty());
        // A trainer that takes the data as it is needs no copy: it runs under the same cap.
        QCOMPARE(fine.status, RunStatus::Finished);
        // The experiment's check before its first run: the training rows' copy, twice at once.
        QVERIFY2(before.startsWith("Dense: test.dense_only takes dense inputs only") && before.contains(", 2 runs at once"),
                 qPrintable(before));
    }

    void pluginThatDeclaresSparseButIsNotASparseTrainerFailsTheRun()
    {
        StopSource stop;
        const RunResult r = Runner(m_reg, nullptr).execute(job("test.sparse_liar", corpus(100, 500)), stop);
        QCOMPARE(r.status, RunStatus::Failed);
        QCOMPARE(r.error, QString("plugin \"sparsetrainers\" says test.sparse_liar takes sparse inputs, but its trainer "
                                  "is not a tb::SparseTrainer (SparseTrainer.h)"));
    }

    void standardisingSparseInputsScalesWithoutCentring()
    {
        const auto raw = corpus(400, 2000, false);
        const auto scaled = corpus(400, 2000, true);
        QVERIFY(scaled->train.isSparse());
        // The zeros stay zeros: the same pattern of non-zeros, each column divided by its std.
        QCOMPARE(scaled->train.xSparse.nonZeros(), raw->train.xSparse.nonZeros());
        const Eigen::MatrixXd x = Eigen::MatrixXd(scaled->train.xSparse);
        const Eigen::MatrixXd r = Eigen::MatrixXd(raw->train.xSparse);
        int checked = 0;
        for (Eigen::Index j = 0; j < x.cols(); ++j) {
            const double mean = r.col(j).mean();
            const double sd = std::sqrt((r.col(j).array() - mean).square().mean());
            if (sd < 1e-9)
                continue;
            // Population std of the scaled column is 1 (to rounding: 1e-12 relative).
            const double m = x.col(j).mean();
            QVERIFY(std::abs(std::sqrt((x.col(j).array() - m).square().mean()) - 1.0) < 1e-9);
            ++checked;
        }
        QVERIFY(checked > 100);
        QVERIFY2(scaled->train.description.contains("not centred"), qPrintable(scaled->train.description));
    }

    void dataSetOptionsThatWouldDensifyAreRefused()
    {
        auto problem = [](const QJsonObject& spec) {
            try {
                data::DataSource::load(spec, QString(), {});
            } catch (const data::DataError& e) {
                return e.text();
            }
            return QString("loaded");
        };
        const QString rf = problem({{"source", "sparse_text"}, {"samples", 100}, {"features", 500},
                                    {"random_features", "gaussian_cos"}});
        QVERIFY2(rf.contains("dataset.random_features: generated train set (sparse_text) has sparse inputs") &&
                     rf.contains("the data set's random features take dense inputs"),
                 qPrintable(rf));
        const QString mm = problem({{"source", "libsvm"}, {"file", TB_FIXTURES_DIR "/data/small_regression.libsvm"},
                                    {"task", "regression"}, {"storage", "sparse"}, {"min_max_scale", true}, {"test_fraction", 0.5}});
        QVERIFY2(mm.contains("dataset.min_max_scale:") && mm.contains("would make them dense"), qPrintable(mm));
        // The same file made dense takes the option.
        QCOMPARE(problem({{"source", "libsvm"}, {"file", TB_FIXTURES_DIR "/data/small_regression.libsvm"},
                          {"task", "regression"}, {"storage", "dense"}, {"min_max_scale", true}, {"test_fraction", 0.5}}),
                 QString("loaded"));
    }
};

QTEST_GUILESS_MAIN(TestSparseInputs)
#include "tst_sparseinputs.moc"
