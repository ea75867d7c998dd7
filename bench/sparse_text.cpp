// Sparse data end to end (issue 28): a generated corpus written as a LIBSVM file, the file's load
// measured in memory, then the experiment's algorithms trained on what was loaded.
//
//   sparse_text EXPERIMENT.json [--rows N] [--features D] [--words W] [--keep DIR] [--no-train]
//   sparse_text --load FILE --features D          (the child that measures one load)
//
// EXPERIMENT.json is a learning-curve file whose dataset is the sparse_text source
// (resources/experiments/sparse-text-rcv1-shape.json); --rows/--features/--words replace its
// samples/features/words_per_row (the done-when: --rows 50000 --features 1000000
// --words 100, ≈ 5 M non-zeros). The program
//  1. generates the set as the engine does (DataSource, the experiment's seed) and writes its
//     training and test rows as LIBSVM text (LibsvmWriter: full precision);
//  2. loads the training file in a child process of its own (this program with --load), which
//     prints the peak resident memory the load added (VmHWM after − VmRSS before, from
//     /proc/self/status) against the non-zeros' own size (12 bytes each: a double and a 32-bit
//     column index) — the goal is ≤ 2×;
//  3. loads both files through the libsvm source (kept sparse) and trains every algorithm of the
//     experiment on them, one run each on the experiment's threads and first seed: training time
//     on the host's clock and its CPU time, test accuracy, the run's peak memory fact.
// For LIBLINEAR against Debian's liblinear-train on the same file, run bench/libs_fashion on the
// same experiment (it writes the same files and alternates the two). Results: bench/README.md,
// "Sparse data".

#include <support/BenchArguments.h>
#include <support/BenchMain.h>
#include <support/BenchRunner.h>

#include <data/DataError.h>
#include <data/DataSource.h>
#include <engine/ExperimentSpec.h>
#include <data/LibsvmLoader.h>
#include <data/LibsvmWriter.h>
#include <trainbench/Seeds.h>
#include <trainbench/SparseMatrix.h>

#include <QCoreApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QTemporaryDir>

#include <cstdio>
#include <memory>

namespace {

// A field of /proc/self/status in bytes ("VmHWM:   123456 kB").
double statusBytes(const char* field)
{
    QFile f("/proc/self/status");
    if (!f.open(QIODevice::ReadOnly))
        return -1;
    for (const QByteArray& line : f.readAll().split('\n'))
        if (line.startsWith(field))
            return line.mid(int(qstrlen(field))).trimmed().split(' ').value(0).toDouble() * 1024.0;
    return -1;
}

int measureLoad(const QString& file, Eigen::Index features)
{
    const double before = statusBytes("VmRSS:");
    QElapsedTimer clock;
    clock.start();
    tb::data::LibsvmLoader::Options o;
    o.features = features;
    o.storage = tb::data::LibsvmLoader::Storage::Sparse;
    const tb::data::Dataset d = tb::data::LibsvmLoader::load(file, o);
    const double seconds = double(clock.nsecsElapsed()) * 1e-9;
    const double peak = statusBytes("VmHWM:");
    const double own = double(tb::sparseBytes(std::uint64_t(d.rows()), std::uint64_t(d.xSparse.nonZeros())));
    std::printf("load %lld×%lld, %lld non-zeros (%.1f MB of text) in %.2f s: peak added %.1f MB, the non-zeros' own "
                "size %.1f MB → %.2f×\n",
                (long long)d.rows(), (long long)d.inputs(), (long long)d.xSparse.nonZeros(),
                double(QFileInfo(file).size()) / 1e6, seconds, (peak - before) / 1e6, own / 1e6, (peak - before) / own);
    return 0;
}

} // namespace

int main(int argc, char** argv)
{
    tb::bench::BenchArguments args("sparse_text", "A generated sparse corpus as a LIBSVM file: its load's memory and "
                                                  "the experiment's algorithms trained on it");
    args.addPositional("EXPERIMENT.json", "a learning-curve file on the sparse_text source");
    args.add("rows", "N", "replaces the dataset's samples (0: the file's)", "0");
    args.add("features", "D", "replaces the dataset's features (0: the file's); with --load: the width", "0");
    args.add("words", "W", "replaces the dataset's words_per_row (0: the file's)", "0");
    args.add("keep", "DIR", "write the files to DIR and keep them", "");
    args.add("load", "FILE", "(internal) measure the load of FILE in this process", "");
    args.addSwitch("no-train", "stop after the load");
    return tb::bench::benchMain(argc, argv, args, {}, [&]() -> int {
        if (!args.text("load").isEmpty())
            return measureLoad(args.text("load"), Eigen::Index(args.integer("features", 0, tb::SparseMaxIndex)));
        if (args.positional().size() != 1)
            throw tb::bench::BenchArguments::Error("give one EXPERIMENT.json");
        QString error;
        auto spec = tb::ExperimentSpec::fromFile(args.positional().first(), &error);
        if (!spec)
            throw std::runtime_error(error.toStdString());
        if (spec->dataset.value("source").toString() != u"sparse_text")
            throw std::runtime_error("the experiment's dataset must be the sparse_text source");
        for (const auto& [option, key] : {std::pair{"rows", "samples"}, {"features", "features"}, {"words", "words_per_row"}})
            if (const double v = args.real(option, 0); v > 0)
                spec->dataset.insert(key, v);
        QElapsedTimer clock;
        clock.start();
        const tb::data::DatasetPair generated =
            tb::data::DataSource::load(spec->dataset, spec->baseDir, tb::data::DataOverrides{std::nullopt, spec->seed});
        std::printf("%s: %s\ngenerated in %.1f s: train %lld×%lld (%lld non-zeros), test %lld rows\n",
                    qPrintable(spec->name), qPrintable(tb::data::DataSource::describe(spec->dataset)),
                    double(clock.nsecsElapsed()) * 1e-9, (long long)generated.train.rows(),
                    (long long)generated.train.inputs(), (long long)generated.train.xSparse.nonZeros(),
                    (long long)generated.test.rows());
        std::unique_ptr<QTemporaryDir> tmp;
        QString dir = args.text("keep");
        if (dir.isEmpty()) {
            tmp = std::make_unique<QTemporaryDir>();
            dir = tmp->path();
        }
        QDir().mkpath(dir);
        const QString train = dir + "/train.libsvm", test = dir + "/test.libsvm";
        clock.restart();
        tb::data::LibsvmWriter::write(generated.train, train);
        tb::data::LibsvmWriter::write(generated.test, test);
        std::printf("written to %s in %.1f s\n", qPrintable(dir), double(clock.nsecsElapsed()) * 1e-9);
        const Eigen::Index width = generated.train.inputs();
        std::fflush(stdout);

        QProcess child;
        child.setProcessChannelMode(QProcess::ForwardedChannels);
        child.start(QCoreApplication::applicationFilePath(), {"--load", train, "--features", QString::number(width)});
        if (!child.waitForFinished(-1) || child.exitCode() != 0)
            throw std::runtime_error("the load's child process failed");
        if (args.isSet("no-train"))
            return 0;

        // The files, through the libsvm source as an experiment file would read them.
        const QJsonObject files{{"source", "libsvm"}, {"file", train}, {"test_file", test}, {"task", "classification"},
                                {"features", double(width)}, {"storage", "sparse"}};
        clock.restart();
        auto data = std::make_shared<const tb::data::DatasetPair>(tb::data::DataSource::load(files, QString()));
        std::printf("read back through the libsvm source in %.1f s: %s\n\n", double(clock.nsecsElapsed()) * 1e-9,
                    qPrintable(data->train.description));
        tb::bench::BenchRunner runner;
        int failed = 0;
        for (const tb::AlgorithmRun& alg : spec->algorithms) {
            tb::RunJob job =
                tb::bench::BenchRunner::job(alg.id, alg.params, data, tb::deriveSeed(spec->seed, 0), spec->effectiveThreads());
            job.measureMemory = true;
            const tb::bench::BenchRun r = runner.run(job);
            const QString label = alg.label.isEmpty() ? alg.id : alg.label;
            if (!r.finished()) {
                std::printf("%-44s %s: %s\n", qPrintable(label), qPrintable(tb::runStatusName(r.result.status)),
                            qPrintable(r.result.error));
                ++failed;
                continue;
            }
            std::printf("%-44s train %.2f %%  test %.2f %%  training %.2f s (CPU %.2f s)  peak memory %.0f MB%s\n",
                        qPrintable(label), 100 * r.result.last.trainAccuracy, 100 * r.result.last.testAccuracy,
                        r.result.trainSeconds, r.trainCpuSeconds, r.fact("peak_memory_bytes") / 1e6,
                        r.result.info.contains("densified") ? "  (densified)" : "");
        }
        return failed ? 1 : 0;
    });
}
