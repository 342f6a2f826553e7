// The policy/value network: a residual tower with a policy head (logits over the encoder's
// policy indices) and a win/draw/loss value head. With shape.auxiliaryHeads, two more heads that
// only training uses (their targets teach the tower more per sample; the search never asks for
// them): the opponent's reply policy, from the policy head's features (KataGo's auxiliary
// policy target), and the plies left to the game's end, from the value head's hidden layer (lc0's
// moves-left head).
#pragma once
#include <torch/torch.h>

#include "nn/network_shape.h"

namespace poppy::nn {

class ResidualBlockImpl : public torch::nn::Module {
 public:
  explicit ResidualBlockImpl(int channels);
  torch::Tensor forward(torch::Tensor x);

 private:
  torch::nn::Conv2d conv1_{nullptr}, conv2_{nullptr};
  torch::nn::BatchNorm2d bn1_{nullptr}, bn2_{nullptr};
};
TORCH_MODULE(ResidualBlock);

// Every head's output for a batch (training).
struct NetworkOutputs {
  torch::Tensor policy, value;
  torch::Tensor replyPolicy;  // [batch, policySize] logits; undefined without auxiliary heads
  torch::Tensor pliesLeft;    // [batch] plies left / kPliesLeftScale; undefined without them
};

class PolicyValueNetImpl : public torch::nn::Module {
 public:
  explicit PolicyValueNetImpl(const NetworkShape& shape);
  // x: [batch, planes, height, width]. Returns policy logits [batch, policySize] and value
  // logits [batch, 3] (win, draw, loss for the side to move).
  std::pair<torch::Tensor, torch::Tensor> forward(torch::Tensor x);
  // All heads, the auxiliary ones too when the shape has them.
  NetworkOutputs forwardAll(torch::Tensor x);
  // The plies-left head predicts plies left divided by this: targets of a few units.
  static constexpr float kPliesLeftScale = 16.0f;
  const NetworkShape& shape() const { return shape_; }
  // Multiply-adds of one forward pass for one position (for GFLOP/s figures).
  double flopsPerPosition() const;

 private:
  // forward and forwardAll: the policy and value, and the auxiliary heads when asked.
  NetworkOutputs heads(torch::Tensor x, bool auxiliary);

  NetworkShape shape_;
  torch::nn::Conv2d inputConv_{nullptr};
  torch::nn::BatchNorm2d inputBn_{nullptr};
  torch::nn::Sequential tower_{nullptr};
  torch::nn::Conv2d policyConv_{nullptr};
  torch::nn::BatchNorm2d policyBn_{nullptr};
  torch::nn::Linear policyFc_{nullptr};          // dense policy head
  torch::nn::Conv2d policyOut_{nullptr};         // spatial policy head (shape.policyPlanes > 0)
  torch::nn::BatchNorm2d policyOutBn_{nullptr};
  torch::nn::Conv2d valueConv_{nullptr};
  torch::nn::BatchNorm2d valueBn_{nullptr};
  torch::nn::Linear valueFc1_{nullptr}, valueFc2_{nullptr};
  torch::nn::Linear replyPolicyFc_{nullptr};         // auxiliary, dense policy
  torch::nn::Conv2d replyPolicyOut_{nullptr};        // auxiliary, spatial policy
  torch::nn::BatchNorm2d replyPolicyOutBn_{nullptr};
  torch::nn::Linear pliesLeftFc_{nullptr};           // auxiliary
};
TORCH_MODULE(PolicyValueNet);

}  // namespace poppy::nn
