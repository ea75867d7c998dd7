#include "LibsvmPlugin.h"

#include "LibsvmConfig.h"
#include "LibsvmTrainer.h"

#include <algorithm>
#include <stdexcept>

namespace tb::libsvm {

QList<AlgorithmInfo> LibsvmPlugin::algorithms() const
{
    const QString citation =
        QStringLiteral("Chang & Lin, LIBSVM: A Library for Support Vector Machines, ACM TIST 2(3), "
                       "2011");
    AlgorithmInfo svc;
    svc.id = LibsvmConfig::classifyId;
    svc.name = QStringLiteral("LIBSVM C-SVC");
    svc.description = QStringLiteral("Debian's LIBSVM 3.24 itself: the exact kernel SVM (linear, polynomial, "
                                     "RBF or sigmoid kernel) solved by "
                                     "SMO, one-vs-one multi-class, like svm-train -s 0. Single-threaded.");
    svc.citation = citation;
    svc.schema = LibsvmConfig::schema(false);
    // One checkpoint per solve: one, or one per rung of the tolerance ladder.
    const auto solves = [](const QVariantMap& p) {
        return std::max(1.0, double(p.value(QStringLiteral("tolerance_ladder")).toList().size()));
    };
    svc.progress.compute = solves;
    svc.regression = false;
    svc.classification = true;

    AlgorithmInfo svr;
    svr.id = LibsvmConfig::regressId;
    svr.name = QStringLiteral("LIBSVM ε-SVR");
    svr.description =
        QStringLiteral("Debian's LIBSVM 3.24 itself: ε-insensitive support vector regression with a linear, "
                       "polynomial, RBF or "
                       "sigmoid kernel, like svm-train -s 3; one model per output. Single-threaded.");
    svr.citation = citation;
    svr.schema = LibsvmConfig::schema(true);
    svr.progress.compute = solves;
    svr.regression = true;
    svr.classification = false;
    return {svc, svr};
}

std::unique_ptr<Trainer> LibsvmPlugin::create(const QString& algorithmId, const QVariantMap& params) const
{
    if (algorithmId != LibsvmConfig::classifyId && algorithmId != LibsvmConfig::regressId)
        throw std::invalid_argument("libsvm: unknown algorithm \"" + algorithmId.toStdString() +
                                    "\" (known: " + LibsvmConfig::classifyId.toStdString() + ", " +
                                    LibsvmConfig::regressId.toStdString() + ")");
    const bool regression = algorithmId == LibsvmConfig::regressId;
    return std::make_unique<LibsvmTrainer>(LibsvmConfig::fromParams(regression, params));
}

QStringList LibsvmPlugin::sparseInputAlgorithms() const
{
    // Both hand the library its own sparse rows, built from compressed rows as they are.
    return {LibsvmConfig::classifyId, LibsvmConfig::regressId};
}

} // namespace tb::libsvm
