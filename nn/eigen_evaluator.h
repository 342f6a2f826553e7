// The network on the CPU without LibTorch: the Eigen forward pass (nn/eigen_kernels.h) behind
// mcts::Evaluator. At play time the search sends a few positions per call, where LibTorch's
// per-call overhead costs more than the arithmetic; this path has almost none (docs/commands/play.md,
// "Inference"). No LibTorch and no Eigen in this header.
#pragma once
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "mcts/evaluator.h"
#include "nn/eigen_kernels.h"
#include "nn/eigen_network.h"
#include "nn/int8_weights.h"

namespace poppy::nn {

// The forward's instruction sets this build has ("baseline" is SSE2 on x86-64, whatever the
// compiler's default elsewhere; then "avx2" (with FMA) and "avx512"), and those this CPU runs.
std::vector<std::string> eigenKernelsBuilt();
std::vector<std::string> eigenKernelsSupported();
// The widest supported one: what EigenEvaluator uses unless told otherwise.
std::string bestEigenKernel();

// The int8 forwards (inference int8, nn/inference.h): a float forward whose residual tower runs
// with int8 weights and activations (nn/int8_weights.h), agreeing with float32 only within a
// tolerance (docs/commands/play.md, "Inference"). "baseline-int8" (plain C++, any CPU, slow: the
// reference) and "avx512-int8" (AVX-512 VNNI); those this CPU runs.
std::vector<std::string> int8KernelsSupported();
// The fast one this CPU runs, or "" where it has none (no VNNI: inference int8 falls back to float).
std::string fastInt8Kernel();
// What `inference: auto` runs its small calls with: the fast int8 kernel where the CPU has one
// (at equal time it won +45 Elo, -3 to +94, against the float forward: docs/experiments/
// play-time-search.md), else bestEigenKernel().
std::string autoEigenKernel();

// Under `inference: auto` (nn/inference.h) calls of at most this many positions of a network of
// this shape go to the Eigen forward with this kernel, larger ones to LibTorch (one thread); 0:
// none. Eigen wins small calls by having almost no per-call cost; LibTorch's matrix products are
// faster on large ones, so where they cross depends on the arithmetic of a call: Eigen takes
// calls of up to a budget of FLOPs per kernel, measured with `poppy bench nn --inference both`
// on networks of 3 to 172 MFLOP per position (docs/commands/play.md, "Inference"), and single positions of
// networks up to another. An int8 kernel keeps its float forward's budgets (a conservative choice:
// it is faster than the float one at every batch). Throws std::invalid_argument for an unknown kernel.
int autoEigenMaxBatch(const std::string& kernel, const NetworkShape& shape);

class EigenEvaluator : public mcts::Evaluator {
 public:
  // kernel: one of eigenKernelsSupported() or int8KernelsSupported(), or "" for bestEigenKernel(). Throws
  // std::invalid_argument for a kernel this build or CPU lacks.
  explicit EigenEvaluator(EigenNetwork network, const std::string& kernel = "");
  // The plan points into the evaluator's own network and tables: no copies.
  EigenEvaluator(const EigenEvaluator&) = delete;
  EigenEvaluator& operator=(const EigenEvaluator&) = delete;
  // Safe from several threads at once (play::Analyzer's search threads): each call takes a set
  // of scratch memory from the evaluator's pool, so calls at the same time use their own. It
  // never starts threads of its own. A set grows to the largest batch it has seen and is then
  // reused (Eigen's matrix product still takes its packing buffers from malloc per product).
  void evaluate(const float* planes, int batch, float* policyLogits, float* wdl) override;
  bool threadSafe() const override { return true; }
  std::string description() const override { return "Eigen, kernel " + kernelName_; }
  const EigenNetwork& network() const { return net_; }
  const std::string& kernel() const { return kernelName_; }

 private:
  struct Scratch {
    int capacity = 0;  // positions the memory holds
    std::vector<float> memory;
    eigen_kernels::ForwardScratch buffers{};
  };
  void reserve(Scratch& scratch, int batch) const;  // grows the scratch memory to `batch` positions

  EigenNetwork net_;
  std::string kernelName_;
  eigen_kernels::ForwardFunction forward_ = nullptr;
  std::vector<int> neighbours_;
  std::vector<Int8Conv> int8Tower_;  // int8 kernels only: the tower's weights as int8
  std::vector<eigen_kernels::ConvView> tower_;
  eigen_kernels::ForwardPlan plan_{};
  std::mutex poolMutex_;
  std::vector<std::unique_ptr<Scratch>> pool_;  // the sets no call is using: one per thread at most
};

}  // namespace poppy::nn
