#include "MlpWorkspace.h"

#include "Mlp.h"

namespace tb::num {

template <class Scalar>
BasicMlpWorkspace<Scalar>::BasicMlpWorkspace(const BasicMlp<Scalar>& net, Eigen::Index maxRows)
{
    reserve(net, maxRows);
}

template <class Scalar>
bool BasicMlpWorkspace<Scalar>::fits(const BasicMlp<Scalar>& net, Eigen::Index batchRows) const
{
    return widths == net.sizes() && batchRows <= capacity();
}

template <class Scalar>
void BasicMlpWorkspace<Scalar>::reserve(const BasicMlp<Scalar>& net, Eigen::Index maxRows)
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

template struct BasicMlpWorkspace<double>;
template struct BasicMlpWorkspace<float>;

} // namespace tb::num
