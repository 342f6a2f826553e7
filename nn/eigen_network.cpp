#include "nn/eigen_network.h"

#include <cmath>

namespace poppy::nn {
namespace {

void checkSize(const std::vector<float>& v, size_t want, const std::string& name, const char* what) {
  if (v.size() != want)
    throw UnsupportedNetwork(name + "." + what + " has " + std::to_string(v.size()) + " values, expected " +
                             std::to_string(want));
}

void checkConv(const ConvBnWeights& w, int in, int out, int kernel, const std::string& name) {
  if (w.in != in || w.out != out || w.kernel != kernel)
    throw UnsupportedNetwork(name + " is a " + std::to_string(w.kernel) + "x" + std::to_string(w.kernel) +
                             " convolution " + std::to_string(w.in) + " -> " + std::to_string(w.out) +
                             " channels, expected " + std::to_string(kernel) + "x" + std::to_string(kernel) + " " +
                             std::to_string(in) + " -> " + std::to_string(out));
}

// A linear layer reading a head convolution's output: LibTorch flattens it channel-major (input
// c*squares + s); the forward holds it square-major (s*channels + c).
FoldedLinear foldHeadLinear(const LinearWeights& w, int channels, int squares) {
  FoldedLinear f;
  f.in = w.in;
  f.out = w.out;
  f.weight.resize(size_t(w.in) * w.out);
  for (int o = 0; o < w.out; ++o)
    for (int c = 0; c < channels; ++c)
      for (int s = 0; s < squares; ++s)
        f.weight[size_t(s * channels + c) * w.out + o] = w.weight[size_t(o) * w.in + c * squares + s];
  f.bias = w.bias;
  return f;
}

// Any other linear layer: only transposed into column-major.
FoldedLinear foldLinear(const LinearWeights& w) {
  FoldedLinear f;
  f.in = w.in;
  f.out = w.out;
  f.weight.resize(size_t(w.in) * w.out);
  for (int o = 0; o < w.out; ++o)
    for (int i = 0; i < w.in; ++i) f.weight[size_t(i) * w.out + o] = w.weight[size_t(o) * w.in + i];
  f.bias = w.bias;
  return f;
}

void checkLinear(const LinearWeights& w, int in, int out, const std::string& name) {
  if (w.in != in || w.out != out)
    throw UnsupportedNetwork(name + " maps " + std::to_string(w.in) + " -> " + std::to_string(w.out) +
                             " values, expected " + std::to_string(in) + " -> " + std::to_string(out));
  checkSize(w.weight, size_t(in) * out, name, "weight");
  checkSize(w.bias, size_t(out), name, "bias");
}

// FoldedLinear::panels from the column-major weights.
void addPanels(FoldedLinear& f) {
  using eigen_kernels::kPanelRows;
  const int panels = (f.out + kPanelRows - 1) / kPanelRows;
  f.panels.assign(size_t(panels) * kPanelRows * f.in, 0.0f);
  for (int o = 0; o < f.out; ++o)
    for (int i = 0; i < f.in; ++i)
      f.panels[(size_t(o / kPanelRows) * f.in + i) * kPanelRows + o % kPanelRows] = f.weight[size_t(i) * f.out + o];
}

}  // namespace

FoldedConv foldConvBn(const ConvBnWeights& w, const std::string& name) {
  if (w.kernel != 1 && w.kernel != 3)
    throw UnsupportedNetwork(name + " has a " + std::to_string(w.kernel) + "x" + std::to_string(w.kernel) +
                             " kernel; the Eigen forward runs 1x1 and 3x3 convolutions");
  if (w.in < 1 || w.out < 1) throw UnsupportedNetwork(name + " has no channels");
  const int taps = w.kernel * w.kernel;
  checkSize(w.weight, size_t(w.out) * w.in * taps, name, "weight");
  for (const auto* v : {&w.gamma, &w.beta, &w.mean, &w.var}) checkSize(*v, size_t(w.out), name, "batch norm");
  FoldedConv f;
  f.in = w.in;
  f.out = w.out;
  f.kernel = w.kernel;
  f.weight.resize(w.weight.size());
  f.bias.resize(size_t(w.out));
  for (int o = 0; o < w.out; ++o) {
    // Eval-mode batch norm is y = (x - mean) * gamma / sqrt(var + eps) + beta: a scale on the
    // convolution's weights and a bias. Computed in double, as the scale may be large.
    const double scale = double(w.gamma[size_t(o)]) / std::sqrt(double(w.var[size_t(o)]) + w.eps);
    f.bias[size_t(o)] = float(double(w.beta[size_t(o)]) - double(w.mean[size_t(o)]) * scale);
    for (int c = 0; c < w.in; ++c)
      for (int t = 0; t < taps; ++t) {
        const float x = w.weight[(size_t(o) * w.in + c) * taps + t];
        f.weight[(size_t(t) * w.in + c) * w.out + o] = float(x * scale);
      }
  }
  return f;
}

EigenNetwork foldNetwork(const TorchLayoutWeights& w) {
  const NetworkShape& s = w.shape;
  if (s.planes < 1 || s.height < 1 || s.width < 1 || s.policySize < 1 || s.channels < 1 || s.valueHidden < 1 ||
      s.blocks < 0)
    throw UnsupportedNetwork("implausible network shape");
  const int squares = s.height * s.width;
  EigenNetwork n;
  n.shape = s;
  checkConv(w.input, s.planes, s.channels, 3, "input_conv");
  n.input = foldConvBn(w.input, "input_conv");
  if (w.tower.size() != size_t(2 * s.blocks))
    throw UnsupportedNetwork("the tower has " + std::to_string(w.tower.size()) + " convolutions, expected " +
                             std::to_string(2 * s.blocks) + " (two per block)");
  for (size_t i = 0; i < w.tower.size(); ++i) {
    const std::string name = "tower." + std::to_string(i / 2) + ".conv" + std::to_string(i % 2 + 1);
    checkConv(w.tower[i], s.channels, s.channels, 3, name);
    n.tower.push_back(foldConvBn(w.tower[i], name));
  }
  const bool spatial = s.policyPlanes > 0;
  if (spatial && s.policySize != s.policyPlanes * squares)
    throw UnsupportedNetwork("policy size " + std::to_string(s.policySize) + " is not " +
                             std::to_string(s.policyPlanes) + " planes of " + std::to_string(squares) + " squares");
  checkConv(w.policyConv, s.channels, spatial ? s.channels : 2, 1, "policy_conv");
  n.policyConv = foldConvBn(w.policyConv, "policy_conv");
  if (spatial) {
    checkConv(w.policyOut, s.channels, s.policyPlanes, 1, "policy_out");
    n.policyOut = foldConvBn(w.policyOut, "policy_out");
  }
  checkConv(w.valueConv, s.channels, 1, 1, "value_conv");
  n.valueConv = foldConvBn(w.valueConv, "value_conv");
  if (!spatial) {
    checkLinear(w.policyFc, 2 * squares, s.policySize, "policy_fc");
    n.policyFc = foldHeadLinear(w.policyFc, 2, squares);
  }
  checkLinear(w.valueFc1, squares, s.valueHidden, "value_fc1");
  n.valueFc1 = foldHeadLinear(w.valueFc1, 1, squares);
  checkLinear(w.valueFc2, s.valueHidden, s.valueOutputs, "value_fc2");
  n.valueFc2 = foldLinear(w.valueFc2);
  for (FoldedLinear* f : {&n.policyFc, &n.valueFc1, &n.valueFc2})
    if (!f->weight.empty()) addPanels(*f);
  return n;
}

}  // namespace poppy::nn
