#pragma once
/// @file NetworkParams.h
/// The one "network" parameter block of every plugin that trains a feed-forward net (BPLS,
/// the gradient baselines, block-layer decomposition …): one spelling of each key, one help
/// text, one parser. Keys:
///  - "hidden":      widths of the hidden layers (int list; none = a linear model);
///  - "activation":  activation of every hidden layer (choice);
///  - "init":        "uniform" = U[init_low, init_high] for every weight (the BPLS paper's
///                   [−1, 1]) or "glorot" = U[±√(6/(fan_in + fan_out))] with zero biases
///                   (only where the plugin offers a choice);
///  - "init_low", "init_high": the uniform range;
///  - "bias":        a constant-1 input to the first layer;
///  - "hidden_bias": a constant-1 input to every later layer.
/// The output layer's activation differs between plugins (BPLS inverts it, a gradient method
/// does not) and stays each plugin's own "output_activation".

#include "ParamSchema.h"

#include <QList>
#include <QStringList>
#include <stdexcept>
#include <string>
#include <vector>

namespace tb {

/// A network as its parameters describe it (plain data, no Qt types).
struct NetworkSpec {
    std::vector<long long> hidden;      ///< hidden widths, each ≥ 1
    std::string activation = "sigmoid"; ///< hidden activation name (num::activationFromName)
    bool glorot = false;                ///< Glorot uniform instead of U[initLow, initHigh]
    double initLow = -1.0;
    double initHigh = 1.0;
    bool bias = true;                   ///< first layer
    bool hiddenBias = true;             ///< every later layer
};

/// What a plugin's network block offers and starts from.
struct NetworkDefaults {
    QList<int> hidden{50};
    QString hiddenHelp = QStringLiteral("Widths of the hidden layers (none = a linear model).");
    /// The hidden activations offered (BPLS: only invertible ones), and the default.
    QStringList activations{QStringLiteral("sigmoid"), QStringLiteral("tanh"), QStringLiteral("softplus"),
                            QStringLiteral("elu"), QStringLiteral("identity")};
    QString activation = QStringLiteral("sigmoid");
    QString activationHelp = QStringLiteral("Activation of every hidden layer.");
    bool offerInit = true;               ///< offer "init" (uniform / glorot)
    QString init = QStringLiteral("uniform");
    double initLow = -1.0;
    double initHigh = 1.0;
    bool bias = true;
    bool hiddenBias = true;
    QString biasHelp = QStringLiteral("Append a constant-1 input to the first layer.");
    QString hiddenBiasHelp = QStringLiteral("Append a constant-1 input to every later layer (hidden biases).");
};

/// Adds the network block to @p schema, in the order of the file comment.
inline void addNetworkParams(ParamSchema& schema, const NetworkDefaults& d)
{
    schema.add(ParamSpec::intList(QStringLiteral("hidden"), QStringLiteral("Hidden layers"), d.hidden, 0, 16, 1, 100000,
                                  d.hiddenHelp));
    schema.add(ParamSpec::choice(QStringLiteral("activation"), QStringLiteral("Hidden activation"), d.activations,
                                 d.activation, d.activationHelp)
                   .withAlias(QStringLiteral("hidden_activation")));
    if (d.offerInit)
        schema.add(ParamSpec::choice(QStringLiteral("init"), QStringLiteral("Initial weights"),
                                     {QStringLiteral("uniform"), QStringLiteral("glorot")}, d.init,
                                     QStringLiteral("uniform = U[init_low, init_high] for every weight and bias (the "
                                                    "BPLS paper); glorot = U[±√(6/(fan_in+fan_out))], zero biases.")));
    schema.add(ParamSpec::real(QStringLiteral("init_low"), QStringLiteral("Initial weights: low"), d.initLow, -100.0,
                               100.0, QStringLiteral("Lower end a of the uniform initial weights U[a, b].")));
    schema.add(ParamSpec::real(QStringLiteral("init_high"), QStringLiteral("Initial weights: high"), d.initHigh, -100.0,
                               100.0, QStringLiteral("Upper end b of the uniform initial weights U[a, b] (≥ init_low).")));
    schema.add(ParamSpec::boolean(QStringLiteral("bias"), QStringLiteral("Input bias"), d.bias, d.biasHelp));
    schema.add(ParamSpec::boolean(QStringLiteral("hidden_bias"), QStringLiteral("Hidden bias"), d.hiddenBias,
                                  d.hiddenBiasHelp));
}

/// The network block of parameters normalised by a schema built with addNetworkParams().
/// Throws std::invalid_argument naming the keys for combinations the schema cannot express
/// (init_low > init_high with uniform initial weights).
inline NetworkSpec networkFromParams(const QVariantMap& p)
{
    NetworkSpec n;
    n.hidden.clear();
    for (const QVariant& v : p.value(QStringLiteral("hidden")).toList())
        n.hidden.push_back(v.toLongLong());
    n.activation = p.value(QStringLiteral("activation")).toString().toStdString();
    n.glorot = p.value(QStringLiteral("init")).toString() == QLatin1String("glorot");
    n.initLow = p.value(QStringLiteral("init_low")).toDouble();
    n.initHigh = p.value(QStringLiteral("init_high")).toDouble();
    n.bias = p.value(QStringLiteral("bias"), true).toBool();
    n.hiddenBias = p.value(QStringLiteral("hidden_bias"), true).toBool();
    if (!n.glorot && n.initLow > n.initHigh)
        throw std::invalid_argument(QStringLiteral("parameters \"init_low\" (%1) and \"init_high\" (%2): init_low must "
                                                   "not exceed init_high")
                                        .arg(n.initLow)
                                        .arg(n.initHigh)
                                        .toStdString());
    return n;
}

} // namespace tb
