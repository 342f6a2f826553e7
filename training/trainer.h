// One optimisation step at a time on the policy/value network: cross-entropy of the policy
// against the search's visit distribution, cross-entropy of the win/draw/loss head against the
// game result, and with auxiliary heads (nn/network.h) the reply policy's cross-entropy and the
// plies left's Huber loss; SGD with momentum and weight decay, a step-wise learning-rate schedule.
#pragma once
#include <torch/torch.h>

#include <memory>
#include <utility>
#include <vector>

#include "nn/network.h"
#include "nn/precision.h"
#include "training/memory_layout.h"

namespace poppy::training {

struct OptimizerConfig {
  double learningRate = 0.02;
  // (step, rate) pairs: from that step on, that rate. Sorted by step.
  std::vector<std::pair<int64_t, double>> schedule;
  double momentum = 0.9;
  double weightDecay = 1e-4;
  double valueLossWeight = 1.0;
  double replyPolicyWeight = 0.15;  // auxiliary heads only
  double pliesLeftWeight = 0.1;
};

// Each loss is a mean over the batch; an auxiliary loss counts its rows without a target as 0.
struct Losses {
  double policy = 0, value = 0, total = 0;
  double replyPolicy = 0, pliesLeft = 0;  // 0 without auxiliary heads
};

// The auxiliary heads' targets of a batch, row by row (selfplay/replay_window.h fills them).
struct AuxiliaryBatch {
  const float* replyPolicy;  // batch x policySize
  const float* hasReply;     // batch: 1 where the row has a reply policy
  const float* pliesLeft;    // batch: plies left, 0 where not recorded
};

class Trainer {
 public:
  // bf16: the forward pass autocasts to bfloat16 on the GPU; weights, gradients, the optimizer
  // and the losses stay float32. Throws std::runtime_error for bf16 on the CPU.
  // layout: training/memory_layout.h (auto: channels last on the CPU for a dense policy head).
  Trainer(nn::PolicyValueNet net, OptimizerConfig config, torch::Device device,
          nn::Precision precision = nn::Precision::kFloat32, MemoryLayout layout = MemoryLayout::kAuto);

  // planes: batch x inputSize; policy: batch x policySize (rows sum to 1); wdl: batch x 3;
  // aux: the auxiliary targets, for a network with auxiliary heads (else ignored; without them
  // those heads do not learn). Out of GPU memory: std::runtime_error naming the batch size.
  Losses step(const float* planes, const float* policy, const float* wdl, int batch,
              const AuxiliaryBatch* aux = nullptr);
  // The same losses without learning: the network as it searches (batch norm's running
  // statistics), no gradient. For games it has not trained on, what it will know of new games.
  Losses evaluate(const float* planes, const float* policy, const float* wdl, int batch);

  // The schedule's rate at `step`, no higher than the cap when one is set.
  double learningRateAt(int64_t step) const;
  // A ceiling on the learning rate (0: none): the run's final anneal (training.anneal_fraction).
  void capLearningRate(double cap) { rateCap_ = cap; }
  int64_t steps() const { return steps_; }
  void setSteps(int64_t s) { steps_ = s; }
  nn::PolicyValueNet& net() { return net_; }
  torch::optim::SGD& optimizer() { return *optimizer_; }
  const torch::Device& device() const { return device_; }
  nn::Precision precision() const { return precision_; }
  bool channelsLast() const { return channelsLast_; }
  // Moves the network to the device in the trainer's memory layout: after the constructor, and
  // again after weights were loaded into it (a checkpoint's tensors come in their saved layout).
  void placeNetwork();

 private:
  nn::PolicyValueNet net_;
  OptimizerConfig config_;
  torch::Device device_;
  nn::Precision precision_;
  bool channelsLast_;
  std::unique_ptr<torch::optim::SGD> optimizer_;
  int64_t steps_ = 0;
  double rateCap_ = 0;
};

}  // namespace poppy::training
