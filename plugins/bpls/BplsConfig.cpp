#include "BplsConfig.h"

#include <trainbench/toolkit/Ridge.h>

#include <stdexcept>

namespace tb::bpls {
namespace {

const QStringList kHiddenActivations{"identity", "sigmoid", "tanh", "softplus", "elu"};
const QStringList kRules{"per_neuron", "joint", "joint_delta"};
const QStringList kEncodings{"smoothed_log", "clipped_log", "one_hot"};
const QStringList kBlends{"miss_ratio", "replace", "search"};
const QStringList kPrecisions{"double", "mixed"};

num::Activation activation(const QVariantMap& p, const QString& key)
{
    const auto a = num::activationFromName(p.value(key).toString().toStdString());
    if (!a)
        throw std::invalid_argument("bpls: parameter \"" + key.toStdString() + "\": unknown activation \"" +
                                    p.value(key).toString().toStdString() + "\"");
    return *a;
}

// Gives @p key of @p s its default search space (docs/parameters.md, "Default search spaces").
void searched(ParamSchema& s, const char* key, const SearchSpace& space)
{
    if (!s.setSearch(QString::fromLatin1(key), space))
        throw std::logic_error(std::string("bpls: no parameter \"") + key + "\" to search");
}

} // namespace

ParamSchema BplsConfig::schema(bool classify)
{
    ParamSchema s;
    NetworkDefaults net;
    net.hidden = classify ? QList<int>{50} : QList<int>{3};
    net.hiddenHelp = classify ? QStringLiteral("Widths of the hidden layers (the paper's MNIST net: 50).")
                              : QStringLiteral("Widths of the hidden layers (the paper's toy net: 3).");
    net.activations = kHiddenActivations;
    net.activationHelp = QStringLiteral("Activation of every hidden layer; must be invertible (BPLS inverts it).");
    net.offerInit = false;  // the paper's U[a, b] only
    net.biasHelp = QStringLiteral("Append a constant-1 column to the inputs (the paper's toy: M = 2).");
    net.hiddenBiasHelp = QStringLiteral("Append a constant-1 column to every hidden layer's values.");
    addNetworkParams(s, net);
    if (classify)
        s.add(ParamSpec::choice("output_activation", QStringLiteral("Output activation"),
                                {"softmax", "sigmoid", "identity"}, QStringLiteral("softmax"),
                                QStringLiteral("Activation of the output layer (paper: softmax).")));
    else
        s.add(ParamSpec::choice("output_activation", QStringLiteral("Output activation"), kHiddenActivations,
                                QStringLiteral("identity"),
                                QStringLiteral("Activation of the output layer; targets are passed through its "
                                               "inverse, clipped by clip_epsilon.")));
    s.add(toolkit::ridgeParam(QStringLiteral("every layer's least-squares solve, its bias included: λ = 2n·r on "
                                             "its Gram diagonal for n training rows (paper: 0). Ignored when "
                                             "relative_ridge > 0.")));
    s.add(toolkit::gramRidgeParam(QStringLiteral("Ignored when relative_ridge > 0.")));
    s.addFormatChange(toolkit::ridgeWasGram());
    s.add(ParamSpec::real("relative_ridge", QStringLiteral("Relative ridge"), classify ? 1e-8 : 0.0, 0.0, 1.0,
                          classify ? QStringLiteral("Ridge λ = relative_ridge·trace(G)/dim per layer; 1e-8 keeps "
                                                    "image Gram matrices (constant pixels) on the Cholesky path with "
                                                    "a negligible bias; 0 = paper.")
                                   : QStringLiteral("Ridge λ = relative_ridge·trace(G)/dim per layer; 0 = off (paper)."),
                          true));
    const QMap<QString, QString> oldRules{{"per-neuron", "per_neuron"}, {"joint-delta", "joint_delta"}};
    s.add(ParamSpec::choice("target_rule", QStringLiteral("Hidden target rule"), kRules, QStringLiteral("per_neuron"),
                            QStringLiteral("per_neuron: paper eq. (5) with the least-squares combination over "
                                           "outputs; joint: minimum-norm N = (B - 1b)W⁺; joint_delta: N + R·W⁺."))
              .withChoiceAliases(oldRules));
    s.add(ParamSpec::real("clip_epsilon", QStringLiteral("Clipping ε"), classify ? 0.05 : 1e-3, 1e-12, 0.25,
                          classify ? QStringLiteral("Desired hidden values are clipped into the activation's range "
                                                    "shrunk by ε (sigmoid: [ε, 1-ε]) before inversion; also the "
                                                    "target smoothing. 0.05 was best on a validation split of "
                                                    "Fashion-MNIST (1e-3: 1.5 points lower).")
                                   : QStringLiteral("Desired hidden values are clipped into the activation's range "
                                                    "shrunk by ε (sigmoid: [ε, 1-ε]) before inversion; also the "
                                                    "clipping of targets for a bounded output activation."),
                          true)
              .withAlias(QStringLiteral("epsilon")));
    if (classify) {
        const QMap<QString, QString> oldEncodings{
            {"smoothed-log", "smoothed_log"}, {"clipped-log", "clipped_log"}, {"one-hot", "one_hot"}};
        s.add(ParamSpec::choice("target_encoding", QStringLiteral("Target encoding"), kEncodings,
                                QStringLiteral("smoothed_log"),
                                QStringLiteral("Softmax output targets: log of one-hot smoothed to 1-ε / ε/(k-1), "
                                               "log of one-hot clipped to [ε, 1], or the 0/1 values."))
                  .withChoiceAliases(oldEncodings));
        s.add(ParamSpec::boolean("resolve", QStringLiteral("Re-solve from desired values"), true,
                                 QStringLiteral("Algorithm 2 lines 8-9: solve each hidden-to-next layer again with "
                                                "the desired hidden values as coefficients.")));
        s.add(ParamSpec::integer("tau_max", QStringLiteral("τmax"), 20, 0, 1000,
                                 QStringLiteral("Most refinement iterations on the misclassified rows (one epoch each).")));
        s.add(ParamSpec::boolean("stop_when_no_gain", QStringLiteral("Stop when misses stop falling"), true,
                                 QStringLiteral("End refinement at the first iteration that does not reduce the "
                                                "training misses (paper); the best weights are kept either way.")));
        s.add(ParamSpec::choice("blend", QStringLiteral("Blend"), kBlends, QStringLiteral("miss_ratio"),
                                QStringLiteral("miss_ratio: W = (1-r)W + r·W_miss with r = misses/n (paper); "
                                               "replace: r = 1; search: best r on the training set from "
                                               "{0.05, 0.1, 0.2, 0.3, 0.5, 0.75, 1}."))
                  .withChoiceAliases({{"miss-ratio", "miss_ratio"}}));
    } else {
        s.add(ParamSpec::boolean("resolve", QStringLiteral("Re-solve from desired values"), false,
                                 QStringLiteral("Solve each hidden-to-next layer again with the desired hidden "
                                                "values as coefficients (Algorithm 2's lines 8-9; off in Algorithm 1).")));
    }
    s.add(ParamSpec::boolean("standardise", QStringLiteral("Standardise inputs"), classify,
                             classify ? QStringLiteral("Z-score every input column inside the trainer (folded into the "
                                                       "first layer's weights, so predictions take raw inputs); on "
                                                       "Fashion-MNIST worth about 1 point of validation accuracy.")
                                      : QStringLiteral("Z-score every input column inside the trainer (folded into the "
                                                       "first layer's weights, so predictions take raw inputs).")));
    s.add(ParamSpec::choice("precision", QStringLiteral("Precision"), kPrecisions,
                            classify ? QStringLiteral("mixed") : QStringLiteral("double"),
                            QStringLiteral("First-layer Gram and products in double, or float on row blocks "
                                           "accumulated in double (about 2x faster; solves stay double)."))
              .withAlias(QStringLiteral("gram_precision")));
    // BPLS has no step size: its regulariser and its clipping are what change the solution.
    searched(s, "relative_ridge", SearchSpace::logUniform(1e-10, 1e-2));
    searched(s, "clip_epsilon", SearchSpace::logUniform(1e-4, 0.1));
    return s;
}

BplsConfig BplsConfig::fromParams(const QVariantMap& p, bool classify)
{
    BplsConfig c;
    c.classify = classify;
    const NetworkSpec net = networkFromParams(p);  // throws for init_low > init_high
    c.hidden.clear();
    for (long long h : net.hidden)
        c.hidden.push_back(Eigen::Index(h));
    c.hiddenActivation = activation(p, "activation");
    c.outputActivation = activation(p, "output_activation");
    c.initLow = net.initLow;
    c.initHigh = net.initHigh;
    c.bias = net.bias;
    c.hiddenBias = net.hiddenBias;
    c.ridge = p.value("ridge").toDouble();
    c.gramRidge = p.value("gram_ridge").toDouble();
    c.relativeRidge = p.value("relative_ridge").toDouble();
    c.targetRule = TargetRule(kRules.indexOf(p.value("target_rule").toString()));
    c.epsilon = p.value("clip_epsilon").toDouble();
    c.resolve = p.value("resolve").toBool();
    if (classify) {
        c.encoding = TargetEncoding(kEncodings.indexOf(p.value("target_encoding").toString()));
        c.tauMax = p.value("tau_max").toInt();
        c.stopWhenNoGain = p.value("stop_when_no_gain").toBool();
        c.blend = Blend(kBlends.indexOf(p.value("blend").toString()));
    }
    c.standardise = p.value("standardise").toBool();
    c.gramPrecision = GramPrecision(kPrecisions.indexOf(p.value("precision").toString()));
    c.check();
    return c;
}

void BplsConfig::check() const
{
    toolkit::requireOneRidge(ridge, gramRidge, "bpls");
    if (int(targetRule) < 0 || int(encoding) < 0 || int(blend) < 0 || int(gramPrecision) < 0)
        throw std::invalid_argument("bpls: parameters \"target_rule\", \"target_encoding\", \"blend\" and "
                                    "\"precision\" must be among their choices: the parameters were not normalised "
                                    "by the schema");
}

} // namespace tb::bpls
