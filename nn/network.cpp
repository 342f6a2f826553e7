#include "nn/network.h"

namespace poppy::nn {
namespace {
torch::nn::Conv2d conv(int in, int out, int kernel) {
  return torch::nn::Conv2d(torch::nn::Conv2dOptions(in, out, kernel).padding(kernel / 2).bias(false));
}
}  // namespace

ResidualBlockImpl::ResidualBlockImpl(int channels) {
  conv1_ = register_module("conv1", conv(channels, channels, 3));
  bn1_ = register_module("bn1", torch::nn::BatchNorm2d(channels));
  conv2_ = register_module("conv2", conv(channels, channels, 3));
  bn2_ = register_module("bn2", torch::nn::BatchNorm2d(channels));
}

torch::Tensor ResidualBlockImpl::forward(torch::Tensor x) {
  auto y = torch::relu(bn1_(conv1_(x)));
  y = bn2_(conv2_(y));
  return torch::relu(x + y);
}

PolicyValueNetImpl::PolicyValueNetImpl(const NetworkShape& s) : shape_(s) {
  const int area = s.height * s.width;
  inputConv_ = register_module("input_conv", conv(s.planes, s.channels, 3));
  inputBn_ = register_module("input_bn", torch::nn::BatchNorm2d(s.channels));
  tower_ = register_module("tower", torch::nn::Sequential());
  for (int i = 0; i < s.blocks; ++i) tower_->push_back(ResidualBlock(s.channels));
  if (s.policyPlanes > 0) {
    // Spatial policy (large boards, nn/encoder.h): a 1x1 layer, then one 1x1 output plane per
    // kind of move, read at the move's square (AlphaZero's chess head, with 1x1 kernels).
    policyConv_ = register_module("policy_conv", conv(s.channels, s.channels, 1));
    policyBn_ = register_module("policy_bn", torch::nn::BatchNorm2d(s.channels));
    policyOut_ = register_module("policy_out", conv(s.channels, s.policyPlanes, 1));
    policyOutBn_ = register_module("policy_out_bn", torch::nn::BatchNorm2d(s.policyPlanes));
  } else {
    // Policy: two 1x1 planes, then a full connection to every policy index (AlphaZero's Go head).
    policyConv_ = register_module("policy_conv", conv(s.channels, 2, 1));
    policyBn_ = register_module("policy_bn", torch::nn::BatchNorm2d(2));
    policyFc_ = register_module("policy_fc", torch::nn::Linear(2 * area, s.policySize));
  }
  valueConv_ = register_module("value_conv", conv(s.channels, 1, 1));
  valueBn_ = register_module("value_bn", torch::nn::BatchNorm2d(1));
  valueFc1_ = register_module("value_fc1", torch::nn::Linear(area, s.valueHidden));
  valueFc2_ = register_module("value_fc2", torch::nn::Linear(s.valueHidden, s.valueOutputs));
  if (s.auxiliaryHeads) {
    // The reply policy reads the policy head's features as the policy does.
    if (s.policyPlanes > 0) {
      replyPolicyOut_ = register_module("reply_policy_out", conv(s.channels, s.policyPlanes, 1));
      replyPolicyOutBn_ = register_module("reply_policy_out_bn", torch::nn::BatchNorm2d(s.policyPlanes));
    } else {
      replyPolicyFc_ = register_module("reply_policy_fc", torch::nn::Linear(2 * area, s.policySize));
    }
    pliesLeftFc_ = register_module("plies_left_fc", torch::nn::Linear(s.valueHidden, 1));
  }
}

std::pair<torch::Tensor, torch::Tensor> PolicyValueNetImpl::forward(torch::Tensor x) {
  NetworkOutputs out = heads(std::move(x), false);
  return {out.policy, out.value};
}

NetworkOutputs PolicyValueNetImpl::forwardAll(torch::Tensor x) { return heads(std::move(x), shape_.auxiliaryHeads); }

NetworkOutputs PolicyValueNetImpl::heads(torch::Tensor x, bool auxiliary) {
  x = torch::relu(inputBn_(inputConv_(x)));
  if (shape_.blocks > 0) x = tower_->forward(x);  // an empty Sequential refuses forward()
  const auto features = torch::relu(policyBn_(policyConv_(x)));
  NetworkOutputs out;
  // Spatial: [batch, planes, h, w] flattened is index plane * squares + square, the encoder's.
  if (shape_.policyPlanes > 0) {
    out.policy = policyOutBn_(policyOut_(features)).flatten(1);
    if (auxiliary) out.replyPolicy = replyPolicyOutBn_(replyPolicyOut_(features)).flatten(1);
  } else {
    const auto flat = features.flatten(1);
    out.policy = policyFc_(flat);
    if (auxiliary) out.replyPolicy = replyPolicyFc_(flat);
  }
  const auto hidden = torch::relu(valueFc1_(torch::relu(valueBn_(valueConv_(x))).flatten(1)));
  out.value = valueFc2_(hidden);
  if (auxiliary) out.pliesLeft = pliesLeftFc_(hidden).squeeze(1);
  return out;
}

double PolicyValueNetImpl::flopsPerPosition() const { return nn::flopsPerPosition(shape_); }

}  // namespace poppy::nn
