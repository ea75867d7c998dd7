// Sparse "label index:value …" rows (LIBSVM / SVMlight format), kept sparse or made dense.

#include <data/DataError.h>
#include <data/DataKeys.h>
#include <data/DataSourceRegistry.h>
#include <data/LibsvmLoader.h>

#include <QFileInfo>

namespace tb::data {
namespace {

class LibsvmSource : public DataSourceProvider {
public:
    DataSourceInfo info() const override
    {
        const QString filter = QStringLiteral("LIBSVM files (*.libsvm *.svm *.txt *.t *.scale);;All files (*)");
        const QStringList tasks{QStringLiteral("classification"), QStringLiteral("regression")};
        DataSourceInfo i;
        i.id = QStringLiteral("libsvm");
        i.label = QStringLiteral("LIBSVM file");
        i.description = QStringLiteral("Sparse \"label index:value …\" rows (LIBSVM / SVMlight format), kept sparse "
                                      "(text corpora) or made dense.");
        i.testSet = DataSourceInfo::TestSet::OwnOrSplit;
        i.testKey = QStringLiteral("test_file");
        i.validationKey = QStringLiteral("validation_file");
        i.order = 80;
        i.params.add(DataKeys::path(QStringLiteral("file"), QStringLiteral("File"), true, filter,
                                    QStringLiteral("The data file.")));
        i.params.add(DataKeys::choice(QStringLiteral("task"), QStringLiteral("Task"), tasks, tasks, QVariant(),
                                      QStringLiteral("Classification: labels are class names; regression: the target."))
                         .requiredKey());
        i.params.add(DataKeys::integer(QStringLiteral("features"), QStringLiteral("Features"), 1, 1e9, QVariant(),
                                       QStringLiteral("Input width; absent: the largest index of the training file."))
                         .absentMeans(QStringLiteral("from the file")));
        i.params.add(DataKeys::choice(QStringLiteral("storage"), QStringLiteral("Storage"),
                                      {QStringLiteral("auto"), QStringLiteral("dense"), QStringLiteral("sparse")},
                                      {QStringLiteral("auto"), QStringLiteral("dense"), QStringLiteral("sparse")},
                                      QStringLiteral("auto"),
                                      QStringLiteral("How the inputs are kept. auto: sparse when the dense matrix would "
                                                     "take over 64 MiB and 4× the sparse one (a text corpus), else dense. "
                                                     "Sparse inputs go as they are to the algorithms that take them "
                                                     "(liblinear, libsvm, ridge, lsq) and are made dense for the others "
                                                     "when that fits in memory; standardise scales them without "
                                                     "centring.")));
        i.params.add(DataKeys::path(QStringLiteral("test_file"), QStringLiteral("Test file"), false, filter,
                                    QStringLiteral("A separate test set.")));
        i.params.add(DataKeys::path(QStringLiteral("validation_file"), QStringLiteral("Validation file"), false, filter,
                                    QStringLiteral("A separate validation set, instead of validation_fraction.")));
        i.params = DataKeys::finished(i.params);
        return i;
    }

    DataTables load(const DataRequest& r) const override
    {
        LibsvmLoader::Options o;
        o.task = r.spec.value(QStringLiteral("task")).toString() == u"regression" ? Task::Regression
                                                                                  : Task::Classification;
        o.features = r.spec.contains(QStringLiteral("features"))
                         ? Eigen::Index(r.spec.value(QStringLiteral("features")).toLongLong())
                         : 0;
        const QString storage = r.spec.value(QStringLiteral("storage")).toString();
        o.storage = storage == u"dense"    ? LibsvmLoader::Storage::Dense
                    : storage == u"sparse" ? LibsvmLoader::Storage::Sparse
                                           : LibsvmLoader::Storage::Auto;
        DataTables t;
        t.trainOrigin = r.path(QStringLiteral("file"));
        Dataset train = LibsvmLoader::load(t.trainOrigin, o);
        // Another file (test or validation), read with the training file's width and classes.
        const bool widthFromTrain = o.features == 0;
        LibsvmLoader::Options oo = o;
        oo.classNames = train.classNames;
        oo.features = train.inputs();
        // The other files are stored as the training file is, whatever their own size.
        oo.storage = train.isSparse() ? LibsvmLoader::Storage::Sparse : LibsvmLoader::Storage::Dense;
        auto other = [&](const QString& key, QString& origin) {
            origin = r.path(key);
            try {
                return LibsvmLoader::load(origin, oo);
            } catch (const DataError& e) {
                if (!widthFromTrain || e.key() != u"index")
                    throw;
                throw DataError(e.file(), e.line(), e.byteOffset(), e.key(), e.value(),
                                e.message() + QStringLiteral(" (the training file %1 has %2 features; set "
                                                             "dataset.features to widen both)")
                                                  .arg(t.trainOrigin)
                                                  .arg(oo.features));
            }
        };
        if (r.spec.contains(QStringLiteral("test_file")))
            t.test = other(QStringLiteral("test_file"), t.testOrigin);
        if (r.spec.contains(QStringLiteral("validation_file")))
            t.validation = other(QStringLiteral("validation_file"), t.validationOrigin);
        t.train = std::move(train);
        return t;
    }

    QString describe(const QVariantMap& spec) const override
    {
        return QStringLiteral("LIBSVM %1 (%2)")
            .arg(QFileInfo(spec.value(QStringLiteral("file")).toString()).fileName(),
                 spec.value(QStringLiteral("task")).toString());
    }
};

} // namespace
} // namespace tb::data

TB_REGISTER_DATA_SOURCE(tb::data::LibsvmSource)
