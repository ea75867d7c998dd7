// Images and labels in the IDX format of MNIST (plain or gzip), four files named in the spec.

#include <data/DataSourceRegistry.h>
#include "ImageFolderLimits.h"

#include <QFileInfo>

namespace tb::data {
namespace {

class IdxSource : public DataSourceProvider {
public:
    DataSourceInfo info() const override
    {
        const QString filter = QStringLiteral("IDX files (*-ubyte *-ubyte.gz *.idx *.gz);;All files (*)");
        DataSourceInfo i;
        i.id = QStringLiteral("idx");
        i.label = QStringLiteral("IDX files (MNIST format)");
        i.description = QStringLiteral("Images and labels in the IDX format of MNIST, plain or gzip.");
        i.task = Task::Classification;
        i.testSet = DataSourceInfo::TestSet::Own;
        i.order = 60;
        i.params.add(DataKeys::path(QStringLiteral("train_images"), QStringLiteral("Train images"), true, filter,
                                    QStringLiteral("IDX image file of the training set.")));
        i.params.add(DataKeys::path(QStringLiteral("train_labels"), QStringLiteral("Train labels"), true, filter,
                                    QStringLiteral("IDX label file of the training set.")));
        i.params.add(DataKeys::path(QStringLiteral("test_images"), QStringLiteral("Test images"), true, filter,
                                    QStringLiteral("IDX image file of the test set.")));
        i.params.add(DataKeys::path(QStringLiteral("test_labels"), QStringLiteral("Test labels"), true, filter,
                                    QStringLiteral("IDX label file of the test set.")));
        idx::addLimitKeys(i.params, QStringLiteral("Use a random subset of this many training images; absent: all."),
                          QStringLiteral("Use a random subset of this many test images; absent: all."));
        i.params.add(DataKeys::integer(QStringLiteral("classes"), QStringLiteral("Classes"), 1, 256, 10,
                                       QStringLiteral("Number of classes; labels must lie in 0 … classes − 1 (labels "
                                                      "are bytes).")));
        i.params = DataKeys::finished(i.params);
        return i;
    }

    DataTables load(const DataRequest& r) const override
    {
        IdxLoader::Options o;
        o.classCount = int(r.spec.value(QStringLiteral("classes")).toLongLong());
        o.seed = r.seed;
        o.limit = idx::limit(r.spec, QStringLiteral("train_limit"));
        o.stream = Rng::TrainSubset;
        o.name = QStringLiteral("train");
        DataTables t;
        t.trainOrigin = r.path(QStringLiteral("train_images"));
        t.testOrigin = r.path(QStringLiteral("test_images"));
        t.train = idx::load(t.trainOrigin, r.path(QStringLiteral("train_labels")), o, QStringLiteral("train_limit"), r.spec);
        o.limit = idx::limit(r.spec, QStringLiteral("test_limit"));
        o.stream = Rng::TestSubset;
        o.name = QStringLiteral("test");
        t.test = idx::load(t.testOrigin, r.path(QStringLiteral("test_labels")), o, QStringLiteral("test_limit"), r.spec);
        return t;
    }

    QString describe(const QVariantMap& spec) const override
    {
        return QStringLiteral("IDX %1 / %2")
                   .arg(QFileInfo(spec.value(QStringLiteral("train_images")).toString()).fileName(),
                        QFileInfo(spec.value(QStringLiteral("test_images")).toString()).fileName()) +
               idx::describeLimits(spec);
    }
};

} // namespace
} // namespace tb::data

TB_REGISTER_DATA_SOURCE(tb::data::IdxSource)
