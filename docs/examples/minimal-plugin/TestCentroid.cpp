// A unit test of the trainer with the SDK's RunContext test double: no workbench needed.
#include "CentroidTrainer.h"

#include <trainbench/testing/TestRunContext.h>

#include <cstdio>

int main()
{
    // Two well separated blobs of 50 points around (−2, 0) and (2, 0).
    Eigen::MatrixXd x = Eigen::MatrixXd::Random(100, 2) * 0.5;
    Eigen::MatrixXd y = Eigen::MatrixXd::Zero(100, 2);
    for (Eigen::Index i = 0; i < 100; ++i) {
        x(i, 0) += i < 50 ? -2.0 : 2.0;
        y(i, i < 50 ? 0 : 1) = 1.0;
    }
    CentroidTrainer trainer(0.1);
    tb::testing::TestRunContext ctx(/*seed=*/1);
    trainer.fit(tb::DatasetView(x, y, tb::Task::Classification), ctx);
    Eigen::Index correct = 0;
    const Eigen::MatrixXd scores = trainer.predict(x);
    for (Eigen::Index i = 0; i < 100; ++i) {
        Eigen::Index best;
        scores.row(i).maxCoeff(&best);
        correct += y(i, best) == 1.0;
    }
    if (ctx.checkpoints.size() != 1 || correct != 100) {
        std::printf("FAIL: %zu checkpoints, %lld of 100 correct\n", ctx.checkpoints.size(), (long long)correct);
        return 1;
    }
    std::printf("PASS: 1 checkpoint, 100 of 100 correct\n");
    return 0;
}
