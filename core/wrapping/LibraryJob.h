#pragma once
/// @file LibraryJob.h
/// What one training call of a wrapped library owns — the problem's rows and targets, the models
/// it trains (one per output) and its clocks — shared by LIBLINEAR's and LIBSVM's trainers.

#include "DetachedCall.h"
#include "LibraryClock.h"
#include "LibraryFacts.h"
#include "LibraryLabels.h"
#include "SeededRand.h"
#include "SparseRows.h"

#include <trainbench/DatasetView.h>

#include <Eigen/Core>
#include <optional>
#include <string>
#include <vector>

namespace tb::wrap {

/// Everything a library call touches, owned by the call's thread as much as by fit() (held in a
/// std::shared_ptr by both): after a Stop, fit() lets go and the call frees it when it ends
/// (DetachedCall). A trainer derives its job from this and adds the library's problem and
/// parameter structs, which point into @ref rows and @ref y.
///
/// @p Node is the library's {index, value} node (feature_node, svm_node); @p Model what the trainer
/// keeps of each trained model (an owning pointer).
///
/// Not thread-safe: fit() fills it, then only the call's thread touches it until the call returns.
template <class Node, class Model> struct LibraryJob {
    SparseRows<Node> rows; ///< the training inputs as the library reads them
    std::vector<double> y; ///< what the problem's labels point to: the class indices, or one output's targets
    Eigen::MatrixXd targets; ///< regression: every output, copied into @ref y one column at a time
    bool randomised = false; ///< the call draws from rand(): it holds SeededRand, seeded with @ref seed
    unsigned seed = 1;
    std::vector<Model> models;                ///< one per output trained so far
    Clock::time_point started = Clock::now(); ///< the conversion's start (the job's creation)
    double conversionSeconds = 0; ///< the rows, the targets and the parameters' check (conversionDone())
    double librarySeconds = 0;    ///< wall time of the library calls
    double libraryCpuSeconds = 0; ///< the library thread's CPU time for them

    /// The conversion of @p data: the labels (classLabels(): the class indices; the library groups
    /// the classes itself) or, with @p regression, every target column; the inputs as rows with
    /// @p bias (SparseRows: sparse inputs as they are, dense ones through the same node rule, so
    /// the same data gives the same rows, hence the same model, either way). Throws as
    /// classLabels() and SparseRows' constructors do, starting with @p who.
    void convert(const DatasetView& data, bool regression, double bias, const std::string& who)
    {
        if (regression) {
            targets = data.y;
            y.assign(std::size_t(data.rows()), 0.0);
        } else {
            y = classLabels(data, who);
        }
        if (data.isSparse())
            rows = SparseRows<Node>(*data.xSparse, bias, who); // checks entries and columns, naming them
        else
            rows = SparseRows<Node>(data.x, bias, who); // checks x is finite, naming the entry
    }

    /// Ends the conversion's clock: call it after the library has checked the parameters.
    void conversionDone() { conversionSeconds = secondsSince(started); }

    /// Models to train: one per target column for regression, else one.
    int outputs() const { return targets.size() > 0 ? int(targets.cols()) : 1; }

    /// The call itself, on the library's thread: holding glibc's rand() seeded with @ref seed when
    /// @ref randomised (the stream is the process's, shared with the other wrappers, so the run's
    /// seed alone decides the draws), for each output in turn — unwinding first if the call was
    /// abandoned, then with that output's targets in @ref y — appends @p trainOne()'s model
    /// (@p trainOne throws when the library returns none). Times the calls.
    template <class TrainOne> void trainEach(TrainOne&& trainOne)
    {
        std::optional<SeededRand> seeded;
        if (randomised)
            seeded.emplace(seed);
        const auto start = Clock::now();
        const double cpuStart = threadCpuSeconds();
        for (int o = 0; o < outputs(); ++o) {
            DetachedCall::throwIfAbandoned();
            if (targets.size() > 0)
                for (Eigen::Index i = 0; i < targets.rows(); ++i)
                    y[std::size_t(i)] = targets(i, o);
            models.push_back(trainOne());
        }
        librarySeconds = secondsSince(start);
        libraryCpuSeconds = threadCpuSeconds() - cpuStart;
    }

    /// The figures of this solve at @p tolerance, once the call has returned.
    LibraryFacts facts(double tolerance) const
    {
        LibraryFacts f;
        f.tolerance = tolerance;
        f.nonzeros = rows.nonzeros();
        f.problemBytes = rows.bytes();
        f.conversionSeconds = conversionSeconds;
        f.librarySeconds = librarySeconds;
        f.libraryCpuSeconds = libraryCpuSeconds;
        return f;
    }
};

} // namespace tb::wrap
