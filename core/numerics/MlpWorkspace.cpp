#include "MlpWorkspace.h"

#include "Mlp.h"

namespace tb::num {

MlpWorkspace::MlpWorkspace(const Mlp& net, Eigen::Index maxRows)
{
    reserve(net, maxRows);
}

bool MlpWorkspace::fits(const Mlp& net, Eigen::Index batchRows) const
{
    return widths == net.sizes() && batchRows <= capacity();
}

void MlpWorkspace::reserve(const Mlp& net, Eigen::Index maxRows)
{
    if (fits(net, maxRows))
        return;
    const Eigen::Index cap = std::max(maxRows, widths == net.sizes() ? capacity() : Eigen::Index(0));
    widths = net.sizes();
    const int layers = net.layerCount();
    values.resize(std::size_t(layers));
    deltas.resize(std::size_t(layers));
    for (int l = 0; l < layers; ++l) {
        values[std::size_t(l)].resize(cap, net.width(l + 1));
        deltas[std::size_t(l)].resize(cap, net.width(l + 1));
    }
    outputPre.resize(cap, net.outputs());
    rows = 0;
}

} // namespace tb::num
