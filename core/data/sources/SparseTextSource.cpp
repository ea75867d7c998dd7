// A generated text corpus's shape (RCV1's by default): sparse bag-of-words rows with planted
// topics (SparseTextGenerator), for the sparse path's benchmarks and tests.

#include <data/DataError.h>
#include <data/DataKeys.h>
#include <data/DataSourceRegistry.h>
#include <data/SparseTextGenerator.h>

#include <QLocale>

namespace tb::data {
namespace {

SparseTextGenerator::Spec specOf(const QVariantMap& spec, std::uint64_t seed)
{
    SparseTextGenerator::Spec s;
    s.rows = Eigen::Index(spec.value(QStringLiteral("samples")).toLongLong());
    s.features = Eigen::Index(spec.value(QStringLiteral("features")).toLongLong());
    s.wordsPerRow = spec.value(QStringLiteral("words_per_row")).toDouble();
    s.classes = spec.value(QStringLiteral("classes")).toInt();
    s.labelNoise = spec.value(QStringLiteral("label_noise")).toDouble();
    s.topicShare = spec.value(QStringLiteral("topic_share")).toDouble();
    s.seed = seed;
    return s;
}

class SparseTextSource : public DataSourceProvider {
public:
    DataSourceInfo info() const override
    {
        DataSourceInfo i;
        i.id = QStringLiteral("sparse_text");
        i.label = QStringLiteral("Sparse text (generated)");
        i.description = QStringLiteral("Bag-of-words rows of a text corpus's shape (RCV1's by default): Zipf word "
                                       "frequencies, unit-norm log-tf·idf values, topics with favourite words as "
                                       "classes. Sparse.");
        i.task = Task::Classification;
        i.noiseKey = QStringLiteral("label_noise");
        i.testFraction = 0.2;
        i.order = 40;
        i.params.add(DataKeys::integer(QStringLiteral("samples"), QStringLiteral("Documents"), 2, 1e9, 20242,
                                       QStringLiteral("Rows generated in total (train + test); RCV1: 20,242.")));
        i.params.add(DataKeys::integer(QStringLiteral("features"), QStringLiteral("Vocabulary"), 1, 2147483647, 47236,
                                       QStringLiteral("Columns (words); RCV1: 47,236.")));
        i.params.add(DataKeys::real(QStringLiteral("words_per_row"), QStringLiteral("Words per document"), 0, 1e6, true,
                                    74.0,
                                    QStringLiteral("Mean words drawn per row (log-normal lengths, Zipf-distributed "
                                                   "words, repeats merged); RCV1 has ≈ 74 non-zeros a row.")));
        i.params.add(DataKeys::integer(QStringLiteral("classes"), QStringLiteral("Topics"), 2, 1000, 2,
                                       QStringLiteral("Classes (planted topics); the paper's RCV1 has 4.")));
        i.params.add(DataKeys::real(QStringLiteral("topic_share"), QStringLiteral("Topic share"), 0, 1, false, 0.2,
                                    QStringLiteral("Share of a document's words drawn from its topic's own favourite "
                                                   "words (0: topics indistinguishable, the task is chance).")));
        i.params.add(DataKeys::real(QStringLiteral("label_noise"), QStringLiteral("Label noise"), 0, 1, false, 0.03,
                                    QStringLiteral("Probability that a document's label is redrawn uniformly (a noise "
                                                   "sweep varies it).")));
        i.params = DataKeys::finished(i.params);
        return i;
    }

    DataMemoryNeed memoryNeed(const QVariantMap& spec) const override
    {
        const SparseTextGenerator::Spec s = specOf(spec, 1);
        return {double(SparseTextGenerator::memoryNeed(s)) * 2, // the set, then its train/test copies
                QStringLiteral("generating %1 documents × %2 words, ≈ %3 non-zeros")
                    .arg(s.rows)
                    .arg(s.features)
                    .arg(double(s.rows) * s.wordsPerRow, 0, 'f', 0),
                QStringLiteral("samples")};
    }

    DataTables load(const DataRequest& r) const override
    {
        SparseTextGenerator::Spec s = specOf(r.spec, r.seed);
        if (r.noise)
            s.labelNoise = *r.noise;
        DataTables t;
        try {
            t.train = SparseTextGenerator::generate(s);
        } catch (const std::invalid_argument& e) {
            throw DataError::inSpec(QStringLiteral("dataset"), {}, QStringLiteral("dataset: %1").arg(QString::fromUtf8(e.what())));
        }
        return t;
    }

    QString describe(const QVariantMap& spec) const override
    {
        return QStringLiteral("Sparse text, %1 documents × %2 words, %3 words a document, %4 topics (share %6), label "
                              "noise %5")
            .arg(spec.value(QStringLiteral("samples")).toLongLong())
            .arg(spec.value(QStringLiteral("features")).toLongLong())
            .arg(QLocale::c().toString(spec.value(QStringLiteral("words_per_row")).toDouble(), 'g', 4))
            .arg(spec.value(QStringLiteral("classes")).toInt())
            .arg(QLocale::c().toString(spec.value(QStringLiteral("label_noise")).toDouble(), 'g', 4))
            .arg(QLocale::c().toString(spec.value(QStringLiteral("topic_share")).toDouble(), 'g', 4));
    }
};

} // namespace
} // namespace tb::data

TB_REGISTER_DATA_SOURCE(tb::data::SparseTextSource)
