#include "nn/load_evaluator.h"

#include <atomic>
#include <cstdio>

#include "nn/eigen_evaluator.h"
#include "nn/eigen_from_torch.h"
#include "nn/encoder.h"
#include "nn/split_evaluator.h"
#include "nn/torch_evaluator.h"

namespace poppy::nn {

std::unique_ptr<mcts::Evaluator> makeEvaluator(PolicyValueNet net, const std::string& device, Inference inference,
                                               const std::string& what, Precision precision) {
  const torch::Device d = parseDevice(device);
  if (inference == Inference::kTorch) return std::make_unique<TorchEvaluator>(net, d, precision);
  const bool eigenOnly = inference == Inference::kEigen || inference == Inference::kInt8;
  if (eigenOnly && !d.is_cpu())
    throw std::runtime_error(what + ": inference " + inferenceName(inference) + " runs on the CPU, not on device '" +
                             device + "' (use inference torch or auto with a GPU)");
  // auto on a GPU: the GPU's throughput is the point of asking for it.
  if (!d.is_cpu()) return std::make_unique<TorchEvaluator>(net, d, precision);
  // auto with a network too large for Eigen to win even single positions.
  const int maxEigenBatch = autoEigenMaxBatch(bestEigenKernel(), net->shape());
  if (inference == Inference::kAuto && maxEigenBatch == 0) return std::make_unique<TorchEvaluator>(net, d);
  std::string kernel;  // "": the best float one
  if (inference == Inference::kAuto) kernel = autoEigenKernel();
  if (inference == Inference::kInt8) {
    kernel = fastInt8Kernel();
    // Once a process: a training run loads a model for self-play every iteration, and on a CPU
    // without VNNI the same line twice an iteration would bury the progress lines.
    static std::atomic<bool> said{false};
    if (kernel.empty() && !said.exchange(true))
      std::fprintf(stderr, "poppy: %s: this CPU has no int8 kernel (AVX-512 VNNI); inference int8 runs the float32 "
                   "Eigen forward (said once)\n", what.c_str());
  }
  std::unique_ptr<EigenEvaluator> eigen;
  try {
    eigen = std::make_unique<EigenEvaluator>(eigenNetworkOf(*net), kernel);
  } catch (const UnsupportedNetwork& e) {
    if (eigenOnly)
      throw std::runtime_error(what + ": inference " + inferenceName(inference) + " cannot run this network: " +
                               e.what() + " (use inference torch or auto)");
    std::fprintf(stderr, "poppy: %s: the Eigen forward cannot run this network (%s); using LibTorch for every call\n",
                 what.c_str(), e.what());
    return std::make_unique<TorchEvaluator>(net, d);
  }
  if (eigenOnly) return eigen;
  return std::make_unique<SplitEvaluator>(std::move(eigen), std::make_unique<TorchEvaluator>(net, d), maxEigenBatch);
}

std::unique_ptr<mcts::Evaluator> loadEvaluator(const std::string& path, const game::Variant* expected,
                                               const std::string& device, Inference inference, ModelInfo* info,
                                               Precision precision) {
  return makeEvaluator(loadModel(path, info, expected, Encoder::kVersion), device, inference, "model " + path,
                       precision);
}

}  // namespace poppy::nn
