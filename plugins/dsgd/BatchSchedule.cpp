#include "BatchSchedule.h"

#include <training/Sampling.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

namespace tb::dsgd {

Eigen::Index BatchSchedule::rowsFor(Eigen::Index rows, double epochs)
{
    const double want = epochs * double(rows);
    Eigen::Index v = want >= 9e18 ? Eigen::Index(9e18) : Eigen::Index(std::floor(want));
    // floor() of a product rounded up could pass epochs·n: the reported epoch must not.
    while (v > 1 && double(v) / double(rows) > epochs)
        --v;
    return std::max<Eigen::Index>(v, 1);
}

Eigen::Index BatchSchedule::stepsFor(Eigen::Index rows, Eigen::Index batch, double epochs)
{
    if (rows < 1 || batch < 1 || !(epochs > 0))
        throw std::invalid_argument("batch schedule: need rows ≥ 1, batch ≥ 1 and epochs > 0");
    const Eigen::Index b = std::min(batch, rows);
    const Eigen::Index v = rowsFor(rows, epochs);
    const Eigen::Index perEpoch = (rows + b - 1) / b;
    const Eigen::Index rest = v % rows;
    return (v / rows) * perEpoch + (rest + b - 1) / b;
}

BatchSchedule::BatchSchedule(Eigen::Index rows, Eigen::Index batch, double epochs, std::uint64_t seed)
    : m_rows(rows), m_batch(std::min(batch, rows)), m_totalRows(0), m_totalSteps(stepsFor(rows, batch, epochs)),
      m_gen(seed)
{
    m_totalRows = rowsFor(rows, epochs);
    m_order.resize(std::size_t(rows));
    std::iota(m_order.begin(), m_order.end(), Eigen::Index(0));
}

bool BatchSchedule::next(std::vector<Eigen::Index>& out)
{
    if (m_visited >= m_totalRows)
        return false;
    if (m_posInEpoch == 0)
        train::shuffle(m_order, m_gen);
    const Eigen::Index m = std::min({m_batch, m_rows - m_posInEpoch, m_totalRows - m_visited});
    out.assign(m_order.begin() + m_posInEpoch, m_order.begin() + m_posInEpoch + m);
    m_posInEpoch += m;
    m_visited += m;
    m_epochEnded = m_posInEpoch == m_rows;
    if (m_epochEnded)
        m_posInEpoch = 0;
    ++m_step;
    return true;
}

bool BatchSchedule::checkpointDue(Eigen::Index every)
{
    if (m_step >= m_totalSteps)
        return true;
    if (every > 0)
        return m_step % every == 0;
    // Epoch ends only for runs of at most kEpochCheckpoints epochs: a run of thousands of short
    // epochs would otherwise spend its time in the host's checkpoint evaluations.
    bool due = m_epochEnded && m_totalSteps > 1 && m_totalRows <= kEpochCheckpoints * m_rows;
    if (double(m_step) >= m_nextAuto) {
        due = true;
        m_nextAuto = m_step < 10 ? double(m_step + 1) : std::ceil(double(m_step) * 1.2);
    }
    return due;
}

} // namespace tb::dsgd
