#pragma once
/// @file ReproductionReport.h
/// The Markdown report of one claims file: where and how it was measured, then claim by claim
/// the paper's words and figure, the measurement with its interval, n, the verdict and the
/// readings it rests on.

#include "ClaimOutcome.h"
#include "ClaimsFile.h"

#include <QDateTime>
#include <QList>
#include <QPair>
#include <QString>
#include <QStringList>

namespace tb::repro {

/// Where, when and how the report was produced.
struct ReportHeader {
    QString command;    ///< the exact command line
    QString claimsFile; ///< the claims file as the command named it (empty: ClaimsFile::path)
    QDateTime date;     ///< UTC
    QString cpu;        ///< e.g. "Intel(R) Xeon(R) Processor"
    int cores = 0;      ///< the cores the process may use
    /// Ranks of the MPI job that trained the runs (`reproduce --mpi` under mpirun -np N, N ≥ 2:
    /// rank 0 and N − 1 workers); 0 when they trained in this process.
    int mpiRanks = 0;
    QString appVersion;
    QString gitHash;
    bool quick = false;     ///< --quick: the declared quick subset and variants
    QString store;          ///< the run database
    double wallSeconds = 0; ///< of the whole command so far
};

/// One claim's section.
struct ClaimReport {
    Claim claim;
    ClaimOutcome outcome;
    /// Empty when the claim was evaluated; else why not ("not in the --quick subset", "not run:
    /// data absent: …"), and the verdict is inconclusive.
    QString notRun;
    QString experimentName;
    QString experimentFile;   ///< as the claims file names it, or "inline"
    qint64 experimentId = -1; ///< in the store
    bool reused = false;      ///< read back from the store (--resume, --no-train), nothing trained
    /// Read back part-trained (--no-train): "experiment 8 is partly trained (2 of 15 runs
    /// finished)"; empty otherwise.
    QString partial;
    int trainedRuns = 0;      ///< runs this command trained for the experiment
    /// When and by which builds the experiment's stored runs were trained ("30 run(s) trained
    /// 2026-11-27 04:21 – 04:27 UTC by git 7369148a1b2c"); empty: not said.
    QString provenance;
    int seeds = 0;            ///< asked for
    QStringList charts;       ///< file names relative to the report
};

/// Pure functions; thread-safe.
class ReproductionReport {
public:
    /// The report as Markdown. Each evaluated claim has a line "**Verdict: holds**" (or "does not
    /// hold", "inconclusive"), so scripts and tests can read verdicts back.
    static QString markdown(const ClaimsFile& file, const ReportHeader& header,
                            const QList<ClaimReport>& claims);

    /// The paper's figure as the report shows it: "82.57 %", "1000×"; a count rule's figure out
    /// of the claim's n, and, when the verdict scaled it to fewer pairs (a quick variant's seeds,
    /// failed runs), the count it used: "10 of 10 → 3 of 3 at n = 3", "at most 3 of 10 → at most
    /// 0 of 3 at n = 3".
    static QString figureText(const ClaimReport& claim);

    /// The verdicts of a report written by markdown(): claim id → "holds" / "does not hold" /
    /// "inconclusive", in report order. What the workbench and tests read back.
    static QList<QPair<QString, QString>> verdicts(const QString& markdown);
};

} // namespace tb::repro
