#pragma once
/// @file SparseTrainer.h
/// Algorithms that take sparse inputs as they are (a text corpus of a million columns), without
/// a dense copy.
///
/// A plugin says which of its algorithms take sparse inputs by implementing SparseInputFactory
/// on its root object besides TrainerFactory (Q_INTERFACES(tb::TrainerFactory
/// tb::SparseInputFactory)); for those algorithms TrainerFactory::create() returns a
/// SparseTrainer. Such a trainer's fit() may get a view whose DatasetView::xSparse is set, and
/// the host evaluates it with predictSparse() on sparse rows; on dense data it is an ordinary
/// Trainer. Every other algorithm — and every plugin built before this interface existed — sees
/// dense inputs only: the host densifies sparse data for it when the dense copy fits in memory
/// (noting it in the run's log and its fact "densified") and otherwise refuses the run before
/// it starts, naming the bytes needed and the algorithms that take the data as it is.
///
/// Neither interface changes the layout of TrainerFactory, Trainer or AlgorithmInfo, so the
/// plugin API version is unchanged (docs/plugin-guide.md, "Sparse inputs").

#include "SparseMatrix.h"
#include "Trainer.h"

#include <QStringList>
#include <QtPlugin>

namespace tb {

/// A trainer that takes sparse inputs too. Same contract as Trainer.
class SparseTrainer : public Trainer {
public:
    /// Model outputs for the sparse rows @p x (n×d, d the training inputs' width): n×k, as
    /// predict() gives for the same rows made dense. Valid from the first checkpoint on.
    virtual Eigen::MatrixXd predictSparse(const SparseMatrix& x) const = 0;
};

/// Implemented, besides TrainerFactory, by the root object of a plugin some of whose algorithms
/// take sparse inputs. Thread-safety: as TrainerFactory.
class SparseInputFactory {
public:
    virtual ~SparseInputFactory() = default;
    /// Ids of this plugin's algorithms whose trainers are SparseTrainers (a subset of
    /// TrainerFactory::algorithms()).
    virtual QStringList sparseInputAlgorithms() const = 0;
};

} // namespace tb

/// The interface id of SparseInputFactory; the number is this interface's own version.
#define SparseInputFactory_iid "org.trainbench.SparseInputFactory/1"

Q_DECLARE_INTERFACE(tb::SparseInputFactory, SparseInputFactory_iid)
