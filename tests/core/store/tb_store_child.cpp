/// Helper process of tst_runstore_processes: a second Trainbench writing to a shared run store.
///
///   tb_store_child <db> kill <k>      create a run, append checkpoints forever, flush every k points
///                                     and print "committed N" after each flush (the test kills it)
///   tb_store_child <db> append <n>    create a run, append n checkpoints, flush, print "appended n",
///                                     then wait for "finish" on stdin, finish the run, print "done"
///
/// Both print "interrupted-on-open K" and "run ID" first. Exit codes: 0 done, 1 usage, 2 open failed,
/// 3 createRun failed, 4 flush failed, 5 unexpected stdin.

#include <store/RunStore.h>

#include <QCoreApplication>
#include <QTextStream>

#include <chrono>
#include <cstdio>
#include <thread>

namespace {

tb::MetricPoint point(int seq)
{
    tb::MetricPoint p;
    p.seq = seq;
    p.epoch = seq * 0.5;
    p.trainTime = seq * 0.01;
    p.loss = 1.0 / (1.0 + seq);
    p.testAccuracy = seq % 7 == 0 ? tb::NaN : 0.5 + seq * 1e-6;
    return p;
}

} // namespace

int main(int argc, char** argv)
{
    QCoreApplication app(argc, argv);
    const QStringList args = app.arguments();
    QTextStream out(stdout);
    QTextStream err(stderr);
    if (args.size() != 4 || (args[2] != QLatin1String("kill") && args[2] != QLatin1String("append"))) {
        err << "usage: tb_store_child <db> kill <k> | append <n>\n";
        return 1;
    }
    bool ok = false;
    const int count = args[3].toInt(&ok);
    if (!ok || count < 1) {
        err << "count must be a positive integer, got \"" << args[3] << "\"\n";
        return 1;
    }
    QString error;
    auto store = tb::RunStore::open(args[1], &error);
    if (!store) {
        err << error << '\n';
        return 2;
    }
    out << "interrupted-on-open " << store->interruptedOnOpen() << Qt::endl;

    tb::RunRecord run;
    run.algorithmId = QStringLiteral("child");
    run.dataset = QStringLiteral("child-process");
    run.seed = 0xC0FFEE0000000000ull + quint64(app.applicationPid());
    const qint64 id = store->createRun(run);
    if (id < 0) {
        err << "createRun failed: " << store->lastError() << '\n';
        return 3;
    }
    out << "run " << id << Qt::endl;

    if (args[2] == QLatin1String("kill")) {
        for (int seq = 0;; ++seq) {
            store->appendMetric(id, point(seq));
            if ((seq + 1) % count == 0) {
                if (!store->flush()) {
                    err << "flush failed: " << store->lastError() << '\n';
                    return 4;
                }
                out << "committed " << seq + 1 << Qt::endl;
            }
            // A checkpoint every 200 µs: fast enough to be mid-batch when killed, gentle on the CPU.
            std::this_thread::sleep_for(std::chrono::microseconds(200));
        }
    }

    for (int seq = 0; seq < count; ++seq) {
        store->appendMetric(id, point(seq));
        if (seq % 64 == 63) // yield now and then so the other process's batches interleave with ours
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    if (!store->flush()) {
        err << "flush failed: " << store->lastError() << '\n';
        return 4;
    }
    out << "appended " << count << Qt::endl;
    QTextStream in(stdin);
    const QString line = in.readLine().trimmed();
    if (line != QLatin1String("finish")) {
        err << "expected \"finish\" on stdin, got \"" << line << "\"\n";
        return 5;
    }
    store->finishRun(id, tb::RunStatus::Finished);
    if (!store->flush()) {
        err << "flush failed: " << store->lastError() << '\n';
        return 4;
    }
    out << "done" << Qt::endl;
    return 0;
}
