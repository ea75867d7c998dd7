// Fashion-MNIST: Zalando's 28×28 clothing images, from Debian's dataset-fashion-mnist package or a
// folder of the four IDX files.

#include <data/DataSourceRegistry.h>
#include "ImageFolderLimits.h"

namespace tb::data {
namespace {

class FashionMnistSource : public DataSourceProvider {
public:
    DataSourceInfo info() const override
    {
        DataSourceInfo i;
        i.id = QStringLiteral("fashion_mnist");
        i.formerIds = {QStringLiteral("fashion-mnist")};
        i.label = QStringLiteral("Fashion-MNIST");
        i.description =
            QStringLiteral("Zalando's 28×28 clothing images, 10 classes: 60000 training and 10000 test images.");
        i.task = Task::Classification;
        i.testSet = DataSourceInfo::TestSet::Own;
        i.order = 50;
        i.params.add(DataKeys::folder(QStringLiteral("dir"), QStringLiteral("Folder"),
                                      QStringLiteral("Folder with the four Fashion-MNIST IDX files (.gz or not); absent: "
                                                     "$TRAINBENCH_FASHION_MNIST, else /usr/share/datasets/fashion-mnist."))
                         .absentMeans(QStringLiteral("found automatically")));
        idx::addLimitKeys(i.params,
                          QStringLiteral("Use a random subset of this many training images (drawn with the seed); "
                                         "absent: all."),
                          QStringLiteral("Use a random subset of this many test images; absent: all."));
        i.params = DataKeys::finished(i.params);
        return i;
    }

    DataTables load(const DataRequest& r) const override
    {
        const QString dir = r.spec.contains(QStringLiteral("dir")) ? r.path(QStringLiteral("dir")) : IdxLoader::fashionMnistDir();
        if (dir.isEmpty())
            throw DataError::inSpec(
                QStringLiteral("dataset.dir"), {},
                QStringLiteral("dataset.dir: Fashion-MNIST not found: $TRAINBENCH_FASHION_MNIST is %1 and "
                               "/usr/share/datasets/fashion-mnist does not exist; set dataset.dir")
                    .arg(qEnvironmentVariableIsEmpty("TRAINBENCH_FASHION_MNIST")
                             ? QStringLiteral("unset")
                             : QStringLiteral("\"%1\" (not a folder)").arg(qEnvironmentVariable("TRAINBENCH_FASHION_MNIST"))));
        IdxLoader::Options o;
        o.classNames = IdxLoader::fashionMnistClassNames();
        o.seed = r.seed;
        o.limit = idx::limit(r.spec, QStringLiteral("train_limit"));
        o.stream = Rng::TrainSubset;
        o.name = QStringLiteral("fashion-mnist train");
        DataTables t;
        t.trainOrigin = IdxLoader::findFile(dir, QStringLiteral("train-images-idx3-ubyte"));
        t.testOrigin = IdxLoader::findFile(dir, QStringLiteral("t10k-images-idx3-ubyte"));
        t.train = idx::load(t.trainOrigin, IdxLoader::findFile(dir, QStringLiteral("train-labels-idx1-ubyte")), o,
                            QStringLiteral("train_limit"), r.spec);
        o.limit = idx::limit(r.spec, QStringLiteral("test_limit"));
        o.stream = Rng::TestSubset;
        o.name = QStringLiteral("fashion-mnist test");
        t.test = idx::load(t.testOrigin, IdxLoader::findFile(dir, QStringLiteral("t10k-labels-idx1-ubyte")), o,
                           QStringLiteral("test_limit"), r.spec);
        return t;
    }

    QString describe(const QVariantMap& spec) const override
    {
        return QStringLiteral("Fashion-MNIST") + idx::describeLimits(spec);
    }
};

} // namespace
} // namespace tb::data

TB_REGISTER_DATA_SOURCE(tb::data::FashionMnistSource)
