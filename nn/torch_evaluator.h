// The network behind the search's Evaluator interface, on any LibTorch device.
#pragma once
#include <memory>
#include <string>

#include "mcts/evaluator.h"
#include "nn/network.h"

namespace poppy::nn {

// "cpu", "cuda" or "cuda:N"; throws std::runtime_error with a clear message when CUDA is asked
// for but this LibTorch build or machine has none.
torch::Device parseDevice(const std::string& name);

class TorchEvaluator : public mcts::Evaluator {
 public:
  TorchEvaluator(PolicyValueNet net, torch::Device device);
  void evaluate(const float* planes, int batch, float* policyLogits, float* wdl) override;
  // LibTorch runs inference (no gradients, eval mode) on one module from several threads.
  bool threadSafe() const override { return true; }
  PolicyValueNet& net() { return net_; }
  const torch::Device& device() const { return device_; }

 private:
  PolicyValueNet net_;
  torch::Device device_;
};

}  // namespace poppy::nn
