#include "DatasetCatalog.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QRegularExpression>
#include <QUrl>

#include <algorithm>
#include <cmath>
#include <optional>

namespace tb::data {
namespace {

// The built-in catalogue: one entry per data set of the four papers for which a stable public
// address exists. Every checksum below is copied from the place its entry's
// "checksum_source" names; none is computed here or invented. Entries whose publisher and
// the usual fetchers publish no checksum say so ("unverifiable") and are fetched only with a
// checksum the user gives (docs/experiments.md, "The data-set catalogue").
const char kBuiltIn[] = R"json([
{
  "id": "mnist",
  "title": "MNIST handwritten digits",
  "description": "28×28 grey-level images of handwritten digits 0–9, pixels scaled to [0, 1].",
  "task": "classification",
  "papers": "BPLS (Tomic 2024) Table I; Least Squares Revisited (Agarwal et al. 2014) Table 1 and Fig. 1",
  "homepage": "http://yann.lecun.com/exdb/mnist/",
  "licence": "Creative Commons Attribution-Share Alike 3.0 (copyright Yann LeCun and Corinna Cortes, a derivative of NIST's data)",
  "licence_url": "http://yann.lecun.com/exdb/mnist/",
  "checksum_source": "torchvision, torchvision/datasets/mnist.py: MNIST.resources (an MD5 per file; addresses from MNIST.mirrors)",
  "split": "published",
  "split_note": "the published 60000 training and 10000 test images, as both papers use them",
  "rows": 70000, "features": 784, "classes": 10,
  "files": [
    {"name": "train-images-idx3-ubyte.gz", "md5": "f68b3c2dcbeaaa9fbdd348bbdeb94873", "size": 9912422,
     "urls": ["https://ossci-datasets.s3.amazonaws.com/mnist/train-images-idx3-ubyte.gz",
              "http://yann.lecun.com/exdb/mnist/train-images-idx3-ubyte.gz"]},
    {"name": "train-labels-idx1-ubyte.gz", "md5": "d53e105ee54ea40749a09fcbcd1e9432", "size": 28881,
     "urls": ["https://ossci-datasets.s3.amazonaws.com/mnist/train-labels-idx1-ubyte.gz",
              "http://yann.lecun.com/exdb/mnist/train-labels-idx1-ubyte.gz"]},
    {"name": "t10k-images-idx3-ubyte.gz", "md5": "9fb629c4189551a2d022fa330f9573f3", "size": 1648877,
     "urls": ["https://ossci-datasets.s3.amazonaws.com/mnist/t10k-images-idx3-ubyte.gz",
              "http://yann.lecun.com/exdb/mnist/t10k-images-idx3-ubyte.gz"]},
    {"name": "t10k-labels-idx1-ubyte.gz", "md5": "ec29112dd5afa0611ce80d1b7f02629c", "size": 4542,
     "urls": ["https://ossci-datasets.s3.amazonaws.com/mnist/t10k-labels-idx1-ubyte.gz",
              "http://yann.lecun.com/exdb/mnist/t10k-labels-idx1-ubyte.gz"]}
  ],
  "load": {"format": "idx", "train_images": "train-images-idx3-ubyte.gz", "train_labels": "train-labels-idx1-ubyte.gz",
           "test_images": "t10k-images-idx3-ubyte.gz", "test_labels": "t10k-labels-idx1-ubyte.gz"}
},
{
  "id": "cifar10",
  "title": "CIFAR-10 tiny images",
  "description": "32×32 colour images in 10 classes, 3072 inputs per image (red, green, blue planes) scaled to [0, 1].",
  "task": "classification",
  "papers": "Least Squares Revisited (Agarwal et al. 2014) Section 3.2 and Fig. 3; Doubly Stochastic Gradients (Dai et al. 2014)",
  "homepage": "https://www.cs.toronto.edu/~kriz/cifar.html",
  "licence": "no licence stated; the page asks that Krizhevsky's 2009 technical report be cited",
  "licence_url": "https://www.cs.toronto.edu/~kriz/cifar.html",
  "checksum_source": "TensorFlow Datasets, tensorflow_datasets/url_checksums/cifar10.txt (address, size and SHA-256 of the binary version)",
  "split": "published",
  "split_note": "the published 50000 training images (data_batch_1 … 5) and 10000 test images (test_batch)",
  "rows": 60000, "features": 3072, "classes": 10,
  "files": [
    {"name": "cifar-10-binary.tar.gz", "size": 170052171,
     "sha256": "c4a38c50a1bc5f3a1c5537f2155ab9d68f9f25eb1ed8d9ddda3db29a59bca1dd",
     "urls": ["https://www.cs.toronto.edu/~kriz/cifar-10-binary.tar.gz"]}
  ],
  "load": {"format": "cifar10", "file": "cifar-10-binary.tar.gz", "folder": "cifar-10-batches-bin"}
},
{
  "id": "covtype",
  "title": "Forest cover type",
  "description": "Cartographic variables of 30×30 m cells of Roosevelt National Forest (10 numbers, 4 wilderness and 40 soil indicators); the target is one of 7 cover types.",
  "task": "classification",
  "papers": "Doubly Stochastic Gradients (Dai et al. 2014), \"Forest\" (15 % error)",
  "homepage": "https://archive.ics.uci.edu/dataset/31/covertype",
  "licence": "Creative Commons Attribution 4.0 International (UCI Machine Learning Repository)",
  "licence_url": "https://archive.ics.uci.edu/dataset/31/covertype",
  "checksum_source": "scikit-learn, sklearn/datasets/_covtype.py: ARCHIVE = RemoteFileMetadata(…, checksum=SHA-256) (the address is scikit-learn's copy of UCI's covtype.data.gz)",
  "split": "random",
  "test_fraction": 0.2,
  "split_note": "no published split; the paper's sizes are not in the text we have, so a seeded 20 % is held out",
  "rows": 581012, "features": 54, "classes": 7,
  "files": [
    {"name": "covtype.data.gz", "approx_size": 11240000,
     "sha256": "614360d0257557dd1792834a85a1cdebfadc3c4f30b011d56afee7ffb5b15771",
     "urls": ["https://ndownloader.figshare.com/files/5976039",
              "https://archive.ics.uci.edu/ml/machine-learning-databases/covtype/covtype.data.gz"]}
  ],
  "load": {"format": "csv", "file": "covtype.data.gz", "header": false, "target": -1}
},
{
  "id": "adult",
  "title": "Adult census income",
  "description": "1994 US census records (6 numbers, 8 categories one-hot encoded); the target is whether income exceeds 50K a year.",
  "task": "classification",
  "papers": "Doubly Stochastic Gradients (Dai et al. 2014), Adult (15.3 % error)",
  "homepage": "https://archive.ics.uci.edu/dataset/2/adult",
  "licence": "Creative Commons Attribution 4.0 International (UCI Machine Learning Repository)",
  "licence_url": "https://archive.ics.uci.edu/dataset/2/adult",
  "checksum_source": "TensorFlow Datasets, tensorflow_datasets/url_checksums/adult.txt (address, size and SHA-256 of adult.data and adult.test)",
  "split": "published",
  "split_note": "the published adult.data (32561 rows) and adult.test (16281 rows)",
  "rows": 48842, "features": 105, "classes": 2,
  "files": [
    {"name": "adult.data", "size": 3974305,
     "sha256": "5b00264637dbfec36bdeaab5676b0b309ff9eb788d63554ca0a249491c86603d",
     "urls": ["https://archive.ics.uci.edu/ml/machine-learning-databases/adult/adult.data"]},
    {"name": "adult.test", "size": 2003153,
     "sha256": "a2a9044bc167a35b2361efbabec64e89d69ce82d9790d2980119aac5fd7e9c05",
     "urls": ["https://archive.ics.uci.edu/ml/machine-learning-databases/adult/adult.test"]}
  ],
  "load": {"format": "csv", "file": "adult.data", "test_file": "adult.test", "test_skip_rows": 1, "header": false,
           "columns": ["age", "workclass", "fnlwgt", "education", "education-num", "marital-status", "occupation",
                       "relationship", "race", "sex", "capital-gain", "capital-loss", "hours-per-week",
                       "native-country", "income"],
           "target": "income", "categorical": "auto", "missing_values": ["?"], "missing": "fill_mean",
           "label_suffix": "."}
},
{
  "id": "california_housing",
  "title": "California housing",
  "description": "1990 census block groups of California (8 numbers: location, age, rooms, bedrooms, population, households, income); the target is the median house value.",
  "task": "regression",
  "papers": "Block Layer Decomposition (Palagi & Seccia 2019), \"California\" (Tables 1–8)",
  "homepage": "https://www.dcc.fc.up.pt/~ltorgo/Regression/cal_housing.html",
  "licence": "no licence stated; from StatLib's archive (Pace & Barry 1997), redistributed by Torgo and scikit-learn",
  "licence_url": "http://lib.stat.cmu.edu/datasets/",
  "checksum_source": "scikit-learn, sklearn/datasets/_california_housing.py: ARCHIVE = RemoteFileMetadata(…, checksum=SHA-256) (scikit-learn's copy of Torgo's cal_housing.tgz)",
  "split": "random",
  "test_fraction": 0.2,
  "split_note": "the paper holds out 20 % at random (16512 training, 4128 test rows)",
  "rows": 20640, "features": 8,
  "files": [
    {"name": "cal_housing.tgz", "approx_size": 441000,
     "sha256": "aaa5c9a6afe2225cc2aed2723682ae403280c4a3695a2ddda4ffb5d8215ea681",
     "urls": ["https://ndownloader.figshare.com/files/5976036",
              "https://www.dcc.fc.up.pt/~ltorgo/Regression/cal_housing.tgz"]}
  ],
  "load": {"format": "csv", "file": "cal_housing.tgz", "members": ["CaliforniaHousing/cal_housing.data"], "header": false,
           "columns": ["longitude", "latitude", "housingMedianAge", "totalRooms", "totalBedrooms", "population",
                       "households", "medianIncome", "medianHouseValue"],
           "target": "medianHouseValue"}
},
{
  "id": "ailerons",
  "title": "Ailerons (F16 aircraft control)",
  "description": "40 numbers describing an F16 aircraft's state; the target is the control action on its ailerons.",
  "task": "regression",
  "papers": "Block Layer Decomposition (Palagi & Seccia 2019), \"Ailerons\" (Tables 1–8)",
  "homepage": "https://www.dcc.fc.up.pt/~ltorgo/Regression/DataSets.html",
  "licence": "no licence stated; Luís Torgo's regression data sets page (data from Rui Camacho)",
  "licence_url": "https://www.dcc.fc.up.pt/~ltorgo/Regression/DataSets.html",
  "checksum_source": "UCIData.jl (github.com/JackDunnNZ/UCIData.jl), src/data/regression/ailerons.jl at commit c7da8fa (2018-09-26): DataDep(\"ailerons\", …, SHA-256); later versions point at OpenML's CSV instead",
  "split": "random",
  "test_fraction": 0.2,
  "split_note": "the paper pools the published ailerons.data (7154) and ailerons.test (6596) rows and holds out 20 % at random (11000 training, 2750 test rows)",
  "rows": 13750, "features": 40,
  "files": [
    {"name": "ailerons.tgz", "approx_size": 950000,
     "sha256": "2eb15628e03b0686cb84d199570f5caa9a01755136d87d0002f805dde8464c71",
     "urls": ["https://www.dcc.fc.up.pt/~ltorgo/Regression/ailerons.tgz",
              "http://www.dcc.fc.up.pt/~ltorgo/Regression/ailerons.tgz"]}
  ],
  "load": {"format": "csv", "file": "ailerons.tgz", "members": ["Ailerons/ailerons.data", "Ailerons/ailerons.test"],
           "header": false, "target": -1}
},
{
  "id": "ccpp",
  "title": "Combined cycle power plant",
  "description": "Hourly ambient temperature, exhaust vacuum, ambient pressure and relative humidity of a power plant (2006–2011); the target is its electrical output.",
  "task": "regression",
  "papers": "Block Layer Decomposition (Palagi & Seccia 2019), \"CCPP\" (Tables 1–8)",
  "homepage": "https://archive.ics.uci.edu/dataset/294/combined+cycle+power+plant",
  "licence": "Creative Commons Attribution 4.0 International (UCI Machine Learning Repository)",
  "licence_url": "https://archive.ics.uci.edu/dataset/294/combined+cycle+power+plant",
  "unverifiable": "neither UCI nor scikit-learn, torchvision or TensorFlow Datasets publishes a checksum of CCPP.zip",
  "split": "random",
  "test_fraction": 0.2,
  "split_note": "the paper holds out 20 % at random (7654 training, 1913 test rows)",
  "rows": 9568, "features": 4,
  "files": [
    {"name": "CCPP.zip", "approx_size": 3670000,
     "urls": ["https://archive.ics.uci.edu/ml/machine-learning-databases/00294/CCPP.zip"]}
  ],
  "load": {"format": "xlsx", "file": "CCPP.zip", "members": ["CCPP/Folds5x2_pp.xlsx"], "target": "PE"}
},
{
  "id": "bank_marketing",
  "title": "Bank marketing",
  "description": "A Portuguese bank's telephone campaigns (7 numbers, 9 categories one-hot encoded); the target is whether the client subscribed a term deposit.",
  "task": "classification",
  "papers": "Block Layer Decomposition (Palagi & Seccia 2019), \"Bank Marketing\" (Tables 1–8; the paper fits its 0/1 target by least squares)",
  "homepage": "https://archive.ics.uci.edu/dataset/222/bank+marketing",
  "licence": "Creative Commons Attribution 4.0 International (UCI Machine Learning Repository)",
  "licence_url": "https://archive.ics.uci.edu/dataset/222/bank+marketing",
  "unverifiable": "neither UCI nor scikit-learn, torchvision or TensorFlow Datasets publishes a checksum of bank.zip",
  "split": "random",
  "test_fraction": 0.2,
  "split_note": "the paper holds out 20 % of bank-full.csv at random (36168 training, 9042 test rows)",
  "rows": 45211, "features": 51, "classes": 2,
  "files": [
    {"name": "bank.zip", "approx_size": 580000,
     "urls": ["https://archive.ics.uci.edu/ml/machine-learning-databases/00222/bank.zip"]}
  ],
  "load": {"format": "csv", "file": "bank.zip", "members": ["bank-full.csv"], "delimiter": ";", "target": "y",
           "categorical": "auto"}
},
{
  "id": "bike_sharing",
  "title": "Bike sharing (hourly)",
  "description": "Hourly rentals of Washington's Capital Bikeshare 2011–2012 with weather and calendar (7 numbers; season, month, hour, weekday and weather one-hot encoded); the target is the count of rentals.",
  "task": "regression",
  "papers": "Block Layer Decomposition (Palagi & Seccia 2019), \"Bikes Sharing\" (Tables 1–8)",
  "homepage": "https://archive.ics.uci.edu/dataset/275/bike+sharing+dataset",
  "licence": "Creative Commons Attribution 4.0 International (UCI Machine Learning Repository)",
  "licence_url": "https://archive.ics.uci.edu/dataset/275/bike+sharing+dataset",
  "unverifiable": "neither UCI nor scikit-learn, torchvision or TensorFlow Datasets publishes a checksum of Bike-Sharing-Dataset.zip",
  "split": "random",
  "test_fraction": 0.2,
  "split_note": "the paper holds out 20 % of hour.csv at random (13903 training, 3476 test rows); its 59 columns are these 58 inputs and a bias",
  "rows": 17379, "features": 58,
  "files": [
    {"name": "Bike-Sharing-Dataset.zip", "approx_size": 280000,
     "urls": ["https://archive.ics.uci.edu/ml/machine-learning-databases/00275/Bike-Sharing-Dataset.zip"]}
  ],
  "load": {"format": "csv", "file": "Bike-Sharing-Dataset.zip", "members": ["hour.csv"], "target": "cnt",
           "ignore": ["instant", "dteday", "casual", "registered"],
           "categorical": ["season", "mnth", "hr", "weekday", "weathersit"]}
},
{
  "id": "beijing_pm25",
  "title": "Beijing PM2.5",
  "description": "Hourly weather at the US embassy in Beijing 2010–2014 (year, dew point, temperature, pressure, wind, snow and rain hours; month, hour and wind direction one-hot encoded); the target is the PM2.5 concentration.",
  "task": "regression",
  "papers": "Block Layer Decomposition (Palagi & Seccia 2019), \"Bejing PM 2.5\" (Tables 1–8)",
  "homepage": "https://archive.ics.uci.edu/dataset/381/beijing+pm2+5+data",
  "licence": "Creative Commons Attribution 4.0 International (UCI Machine Learning Repository)",
  "licence_url": "https://archive.ics.uci.edu/dataset/381/beijing+pm2+5+data",
  "unverifiable": "neither UCI nor scikit-learn, torchvision or TensorFlow Datasets publishes a checksum of PRSA_data_2010.1.1-2014.12.31.csv",
  "split": "random",
  "test_fraction": 0.2,
  "split_note": "the paper drops the 2067 rows without a PM2.5 value and holds out 20 % of the rest at random (33406 training, 8351 test rows)",
  "rows": 43824, "features": 47,
  "files": [
    {"name": "PRSA_data_2010.1.1-2014.12.31.csv", "approx_size": 2010000,
     "urls": ["https://archive.ics.uci.edu/ml/machine-learning-databases/00381/PRSA_data_2010.1.1-2014.12.31.csv"]}
  ],
  "load": {"format": "csv", "file": "PRSA_data_2010.1.1-2014.12.31.csv", "target": "pm2.5", "ignore": ["No", "day"],
           "categorical": ["month", "hour", "cbwd"], "missing": "drop"}
}
])json";

const QRegularExpression& idPattern()
{
    static const QRegularExpression re(QStringLiteral("^[a-z0-9_-]+$"));
    return re;
}

const QRegularExpression& hexPattern()
{
    static const QRegularExpression re(QStringLiteral("^[0-9a-f]+$"));
    return re;
}

const QStringList& knownFormats()
{
    static const QStringList f{QStringLiteral("idx"), QStringLiteral("cifar10"), QStringLiteral("csv"),
                               QStringLiteral("xlsx")};
    return f;
}

/// The entry of @p o, or a problem ("entry \"x\": key: …").
std::optional<DatasetEntry> parseEntry(const QJsonObject& o, const QString& origin, int index, QString* problem)
{
    DatasetEntry e;
    e.id = o.value(QStringLiteral("id")).toString();
    const QString where = e.id.isEmpty() ? QStringLiteral("entry %1").arg(index + 1)
                                         : QStringLiteral("entry \"%1\"").arg(e.id);
    auto fail = [&](const QString& key, const QString& message) {
        *problem = QStringLiteral("%1: %2: %3: %4").arg(origin, where, key, message);
        return std::nullopt;
    };
    auto text = [&](const char* key) { return o.value(QLatin1String(key)).toString().trimmed(); };
    if (!idPattern().match(e.id).hasMatch())
        return fail(QStringLiteral("id"), QStringLiteral("expected a name of a–z, 0–9, _ and -, got \"%1\"").arg(e.id));
    // Every entry is a data source of its name: a catalogue file cannot take the name of one of
    // the other built-in sources (core/data/sources/).
    static const QStringList reserved{"bpls_toy", "bpls-toy", "moons",  "circles",       "spirals", "xor", "gaussian_blobs",
                                      "friedman1", "mv",    "fashion_mnist", "fashion-mnist", "idx",     "csv", "libsvm"};
    if (origin != u"built in" && reserved.contains(e.id))
        return fail(QStringLiteral("id"), QStringLiteral("\"%1\" is the name of a built-in data source").arg(e.id));
    e.title = text("title");
    e.description = text("description");
    e.task = text("task");
    e.papers = text("papers");
    e.homepage = text("homepage");
    e.licence = text("licence");
    e.licenceUrl = text("licence_url");
    e.checksumSource = text("checksum_source");
    e.unverifiable = text("unverifiable");
    e.split = text("split");
    e.splitNote = text("split_note");
    e.load = o.value(QStringLiteral("load")).toObject();
    e.origin = origin;
    e.rows = qint64(o.value(QStringLiteral("rows")).toDouble(0));
    e.features = o.value(QStringLiteral("features")).toInt(0);
    e.classes = o.value(QStringLiteral("classes")).toInt(0);
    for (const auto& [key, value] : {std::pair{"title", e.title}, std::pair{"licence", e.licence}})
        if (value.isEmpty())
            return fail(QLatin1String(key), QStringLiteral("missing"));
    if (e.task != u"classification" && e.task != u"regression")
        return fail(QStringLiteral("task"), QStringLiteral("expected \"classification\" or \"regression\", got \"%1\"").arg(e.task));
    if (e.split != u"published" && e.split != u"random")
        return fail(QStringLiteral("split"), QStringLiteral("expected \"published\" or \"random\", got \"%1\"").arg(e.split));
    if (o.contains(QStringLiteral("test_fraction"))) {
        e.testFraction = o.value(QStringLiteral("test_fraction")).toDouble(-1);
        if (!(e.testFraction > 0 && e.testFraction < 1))
            return fail(QStringLiteral("test_fraction"), QStringLiteral("expected a number in (0, 1)"));
    }
    for (const auto& [key, url] : {std::pair{"homepage", e.homepage}, std::pair{"licence_url", e.licenceUrl}}) {
        const QUrl u(url, QUrl::StrictMode);
        if (!url.isEmpty() && (!u.isValid() || (u.scheme() != u"http" && u.scheme() != u"https") || u.host().isEmpty()))
            return fail(QLatin1String(key), QStringLiteral("not an http(s) address: \"%1\"").arg(url));
    }
    const QJsonArray files = o.value(QStringLiteral("files")).toArray();
    if (files.isEmpty())
        return fail(QStringLiteral("files"), QStringLiteral("missing or empty"));
    int withChecksum = 0;
    for (const QJsonValue& fv : files) {
        const QJsonObject f = fv.toObject();
        DatasetFileInfo fi;
        fi.name = f.value(QStringLiteral("name")).toString();
        if (fi.name.isEmpty() || fi.name.contains(QLatin1Char('/')) || fi.name.startsWith(QLatin1Char('.')))
            return fail(QStringLiteral("files.name"),
                        QStringLiteral("expected a file name without '/' that does not start with '.', got \"%1\"").arg(fi.name));
        if (e.file(fi.name))
            return fail(QStringLiteral("files.name"), QStringLiteral("\"%1\" given twice").arg(fi.name));
        for (const QJsonValue& u : f.value(QStringLiteral("urls")).toArray())
            fi.urls << u.toString();
        if (fi.urls.isEmpty())
            return fail(QStringLiteral("files.urls"), QStringLiteral("%1: no address").arg(fi.name));
        for (const QString& url : fi.urls) {
            const QUrl u(url, QUrl::StrictMode);
            if (!u.isValid() || (u.scheme() != u"http" && u.scheme() != u"https") || u.host().isEmpty() ||
                u.path().isEmpty() || u.path() == u"/")
                return fail(QStringLiteral("files.urls"),
                            QStringLiteral("%1: not an http(s) address of a file: \"%2\"").arg(fi.name, url));
        }
        for (const char* algorithm : {"sha256", "md5"})
            if (f.contains(QLatin1String(algorithm))) {
                if (!fi.algorithm.isEmpty())
                    return fail(QStringLiteral("files"), QStringLiteral("%1: give one checksum, not both").arg(fi.name));
                fi.algorithm = QLatin1String(algorithm);
                fi.checksum = f.value(QLatin1String(algorithm)).toString();
                const int length = fi.algorithm == u"sha256" ? 64 : 32;
                if (fi.checksum.size() != length || !hexPattern().match(fi.checksum).hasMatch())
                    return fail(QStringLiteral("files.") + fi.algorithm,
                                QStringLiteral("%1: expected %2 lower-case hex digits, got \"%3\"")
                                    .arg(fi.name)
                                    .arg(length)
                                    .arg(fi.checksum));
            }
        withChecksum += fi.checksum.isEmpty() ? 0 : 1;
        for (const char* key : {"size", "approx_size"})
            if (f.contains(QLatin1String(key))) {
                const double v = f.value(QLatin1String(key)).toDouble(-1);
                if (!(v > 0) || v != std::floor(v) || v > 1e15)
                    return fail(QStringLiteral("files.") + QLatin1String(key),
                                QStringLiteral("%1: expected a positive number of bytes").arg(fi.name));
                (qstrcmp(key, "size") == 0 ? fi.size : fi.approxSize) = qint64(v);
            }
        e.files << fi;
    }
    if (withChecksum != 0 && withChecksum != e.files.size())
        return fail(QStringLiteral("files"), QStringLiteral("either every file has a checksum or none has"));
    if (withChecksum > 0 && e.checksumSource.isEmpty())
        return fail(QStringLiteral("checksum_source"),
                    QStringLiteral("missing: say where the checksums are published (repository, file, field)"));
    if (withChecksum == 0 && e.unverifiable.isEmpty())
        return fail(QStringLiteral("unverifiable"),
                    QStringLiteral("missing: an entry without checksums must say why there are none"));
    if (withChecksum > 0 && !e.unverifiable.isEmpty())
        return fail(QStringLiteral("unverifiable"), QStringLiteral("given for an entry whose files have checksums"));

    const QString format = e.load.value(QStringLiteral("format")).toString();
    if (!knownFormats().contains(format))
        return fail(QStringLiteral("load.format"),
                    QStringLiteral("expected one of %1, got \"%2\"").arg(knownFormats().join(QStringLiteral(", ")), format));
    for (const char* key : {"file", "test_file", "train_images", "train_labels", "test_images", "test_labels"}) {
        const QJsonValue v = e.load.value(QLatin1String(key));
        if (!v.isUndefined() && !e.file(v.toString()))
            return fail(QStringLiteral("load.") + QLatin1String(key),
                        QStringLiteral("\"%1\" is not one of the entry's files").arg(v.toString()));
    }
    if (format == u"idx") {
        for (const char* key : {"train_images", "train_labels", "test_images", "test_labels"})
            if (!e.load.contains(QLatin1String(key)))
                return fail(QStringLiteral("load.") + QLatin1String(key), QStringLiteral("missing"));
    } else if (!e.load.contains(QStringLiteral("file"))) {
        return fail(QStringLiteral("load.file"), QStringLiteral("missing"));
    }
    if (e.split == u"published" && format != u"idx" && format != u"cifar10" && !e.load.contains(QStringLiteral("test_file")))
        return fail(QStringLiteral("split"), QStringLiteral("\"published\" needs load.test_file"));
    if ((format == u"csv" || format == u"xlsx") && !e.load.contains(QStringLiteral("target")))
        return fail(QStringLiteral("load.target"), QStringLiteral("missing"));
    return e;
}

struct Catalog {
    QList<DatasetEntry> entries;
    QStringList problems;
};

const Catalog& catalog()
{
    static const Catalog c = [] {
        Catalog out;
        QStringList builtInProblems;
        out.entries = DatasetCatalog::parse(DatasetCatalog::builtInJson(), QStringLiteral("built in"), &builtInProblems);
        // The built-in table is checked by tst_datasetcatalog; a broken one is a programming error.
        for (const QString& p : builtInProblems)
            qFatal("DatasetCatalog: %s", qPrintable(p));
        const QString extra = qEnvironmentVariable("TRAINBENCH_DATASETS_CATALOG");
        if (extra.isEmpty())
            return out;
        QFile f(extra);
        if (!f.open(QIODevice::ReadOnly)) {
            out.problems << QStringLiteral("%1 ($TRAINBENCH_DATASETS_CATALOG): cannot read: %2").arg(extra, f.errorString());
            return out;
        }
        for (DatasetEntry& e : DatasetCatalog::parse(f.readAll(), extra, &out.problems)) {
            auto it = std::find_if(out.entries.begin(), out.entries.end(), [&](const DatasetEntry& b) { return b.id == e.id; });
            if (it != out.entries.end()) {
                e.origin = QStringLiteral("%1 (replaces the built-in entry)").arg(extra);
                *it = e;
            } else {
                out.entries << e;
            }
        }
        return out;
    }();
    return c;
}

} // namespace

qint64 DatasetEntry::totalSize() const
{
    qint64 total = 0;
    for (const DatasetFileInfo& f : files) {
        if (f.expectedSize() < 0)
            return -1;
        total += f.expectedSize();
    }
    return total;
}

const DatasetFileInfo* DatasetEntry::file(const QString& name) const
{
    for (const DatasetFileInfo& f : files)
        if (f.name == name)
            return &f;
    return nullptr;
}

QByteArray DatasetCatalog::builtInJson()
{
    return QByteArray(kBuiltIn);
}

QList<DatasetEntry> DatasetCatalog::parse(const QByteArray& json, const QString& origin, QStringList* problems)
{
    QList<DatasetEntry> out;
    QJsonParseError error{};
    const QJsonDocument doc = QJsonDocument::fromJson(json, &error);
    if (error.error != QJsonParseError::NoError || !doc.isArray()) {
        if (problems)
            *problems << QStringLiteral("%1: not a JSON array of data sets%2")
                             .arg(origin, error.error != QJsonParseError::NoError
                                              ? QStringLiteral(" (%1 at byte %2)").arg(error.errorString()).arg(error.offset)
                                              : QString());
        return out;
    }
    const QJsonArray a = doc.array();
    for (int i = 0; i < a.size(); ++i) {
        QString problem;
        auto e = parseEntry(a.at(i).toObject(), origin, i, &problem);
        if (e && std::any_of(out.begin(), out.end(), [&](const DatasetEntry& o) { return o.id == e->id; })) {
            problem = QStringLiteral("%1: entry \"%2\": id: given twice").arg(origin, e->id);
            e.reset();
        }
        if (e)
            out << *e;
        else if (problems)
            *problems << problem;
    }
    return out;
}

QJsonObject DatasetCatalog::toJson(const DatasetEntry& e)
{
    QJsonArray files;
    for (const DatasetFileInfo& f : e.files) {
        QJsonObject o{{"name", f.name}, {"urls", QJsonArray::fromStringList(f.urls)}};
        if (!f.algorithm.isEmpty())
            o.insert(f.algorithm, f.checksum);
        if (f.size >= 0)
            o.insert(QStringLiteral("size"), double(f.size));
        if (f.approxSize >= 0)
            o.insert(QStringLiteral("approx_size"), double(f.approxSize));
        files.append(o);
    }
    QJsonObject o{{"id", e.id},           {"title", e.title},     {"description", e.description},
                  {"task", e.task},       {"papers", e.papers},   {"homepage", e.homepage},
                  {"licence", e.licence}, {"licence_url", e.licenceUrl}, {"split", e.split},
                  {"split_note", e.splitNote}, {"rows", double(e.rows)}, {"features", e.features},
                  {"files", files},       {"load", e.load}};
    if (e.classes > 0)
        o.insert(QStringLiteral("classes"), e.classes);
    if (e.split == u"random")
        o.insert(QStringLiteral("test_fraction"), e.testFraction);
    if (!e.checksumSource.isEmpty())
        o.insert(QStringLiteral("checksum_source"), e.checksumSource);
    if (!e.unverifiable.isEmpty())
        o.insert(QStringLiteral("unverifiable"), e.unverifiable);
    return o;
}

const QList<DatasetEntry>& DatasetCatalog::entries()
{
    return catalog().entries;
}

const DatasetEntry* DatasetCatalog::find(const QString& id)
{
    for (const DatasetEntry& e : entries())
        if (e.id == id)
            return &e;
    return nullptr;
}

QStringList DatasetCatalog::ids()
{
    QStringList out;
    for (const DatasetEntry& e : entries())
        out << e.id;
    return out;
}

QStringList DatasetCatalog::problems()
{
    return catalog().problems;
}

} // namespace tb::data
