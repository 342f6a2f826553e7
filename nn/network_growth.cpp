#include "nn/network_growth.h"

#include <map>
#include <stdexcept>

#include "nn/model_header.h"

namespace poppy::nn {
namespace {

// `big`'s leading block, of `small`'s sizes in every dimension.
torch::Tensor leadingBlock(torch::Tensor big, const torch::Tensor& small) {
  for (int64_t d = 0; d < small.dim(); ++d) big = big.narrow(d, 0, small.size(d));
  return big;
}

}  // namespace

std::string growthRefusal(const NetworkShape& from, const NetworkShape& to) {
  if (from.planes != to.planes || from.height != to.height || from.width != to.width)
    return "the input differs (" + std::to_string(from.planes) + " planes of " + std::to_string(from.height) + "x" +
           std::to_string(from.width) + " against " + std::to_string(to.planes) + " of " + std::to_string(to.height) +
           "x" + std::to_string(to.width) + ")";
  if (from.policySize != to.policySize || from.policyPlanes != to.policyPlanes)
    return "the policy head differs (" + std::to_string(from.policySize) + " moves against " +
           std::to_string(to.policySize) + ")";
  if (from.valueOutputs != to.valueOutputs)
    return "the value head differs (" + std::to_string(from.valueOutputs) + " outputs against " +
           std::to_string(to.valueOutputs) + ")";
  if (to.blocks < from.blocks || to.channels < from.channels || to.valueHidden < from.valueHidden)
    return describeNetwork(to) + " is smaller than " + describeNetwork(from) +
           " in some dimension (a network only grows: blocks, channels and value head each the same or more)";
  return "";
}

void growNetwork(PolicyValueNet& from, PolicyValueNet& into) {
  const std::string why = growthRefusal(from->shape(), into->shape());
  if (!why.empty()) throw std::invalid_argument("cannot grow the network: " + why);
  torch::NoGradGuard noGrad;
  std::map<std::string, torch::Tensor> old;
  for (const auto& p : from->named_parameters()) old[p.key()] = p.value();
  for (const auto& b : from->named_buffers()) old[b.key()] = b.value();

  // Every old tensor over the leading block of its counterpart; in a weight matrix (a
  // convolution's [out, in, kh, kw] or a linear layer's [out, in]) the old outputs' weights from
  // new inputs are 0, so nothing new reaches an old unit.
  auto copyOld = [&](const std::string& name, torch::Tensor t) {
    const auto it = old.find(name);
    if (it == old.end()) return;
    const torch::Tensor& was = it->second;
    if (t.dim() == 0) {
      t.copy_(was);
      return;
    }
    if (t.dim() >= 2 && t.size(1) > was.size(1))
      t.narrow(0, 0, was.size(0)).narrow(1, was.size(1), t.size(1) - was.size(1)).zero_();
    leadingBlock(t, was).copy_(was);
  };
  for (const auto& p : into->named_parameters()) copyOld(p.key(), p.value());
  for (const auto& b : into->named_buffers()) copyOld(b.key(), b.value());
  // A new block's second batch norm (no old counterpart): scale and shift 0, the block an identity.
  for (const auto& m : into->named_modules()) {
    auto* bn = m.value()->as<torch::nn::BatchNorm2d>();
    const std::string& name = m.key();
    const bool blockOutput = name.size() >= 4 && name.compare(name.size() - 4, 4, ".bn2") == 0;
    if (bn && blockOutput && !old.count(name + ".weight")) {
      bn->weight.zero_();
      bn->bias.zero_();
    }
  }
}

}  // namespace poppy::nn
