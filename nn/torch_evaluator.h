// The network behind the search's Evaluator interface, on any LibTorch device.
#pragma once
#include <memory>
#include <string>

#include "mcts/evaluator.h"
#include "nn/network.h"
#include "nn/precision.h"

namespace poppy::nn {

// "cpu", "cuda" or "cuda:N"; throws std::runtime_error with a clear message when CUDA is asked
// for but this LibTorch build or machine has none.
torch::Device parseDevice(const std::string& name);

// Runs f; a GPU out-of-memory error inside it becomes a std::runtime_error naming `what` (the
// batch that did not fit) and `hint` (the setting to lower), instead of LibTorch's dump.
template <typename F>
auto reportingOutOfMemory(const std::string& what, const std::string& hint, F&& f) -> decltype(f());

class TorchEvaluator : public mcts::Evaluator {
 public:
  // bf16: the evaluator runs its own bfloat16 copy of `net` (the caller's module is untouched).
  TorchEvaluator(PolicyValueNet net, torch::Device device, Precision precision = Precision::kFloat32);
  void evaluate(const float* planes, int batch, float* policyLogits, float* wdl) override;
  // LibTorch runs inference (no gradients, eval mode) on one module from several threads.
  bool threadSafe() const override { return true; }
  std::string description() const override {
    return "LibTorch on " + device_.str() + (precision_ == Precision::kBfloat16 ? " (bf16)" : "");
  }
  PolicyValueNet& net() { return net_; }
  const torch::Device& device() const { return device_; }
  Precision precision() const { return precision_; }

 private:
  PolicyValueNet net_;
  torch::Device device_;
  Precision precision_;
};

template <typename F>
auto reportingOutOfMemory(const std::string& what, const std::string& hint, F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const c10::Error& e) {
    // c10::OutOfMemoryError where LibTorch has it (1.13 and later); its text in any case.
    const std::string text = e.what_without_backtrace();
    if (text.find("out of memory") == std::string::npos) throw;
    throw std::runtime_error("out of GPU memory " + what + " (" + hint + "); LibTorch said: " +
                             text.substr(0, text.find('\n')));
  }
}

}  // namespace poppy::nn
