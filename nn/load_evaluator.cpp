#include "nn/load_evaluator.h"

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
  checkPrecision(precision, d);
  if (inference == Inference::kTorch) return std::make_unique<TorchEvaluator>(net, d, precision);
  if (inference == Inference::kEigen && !d.is_cpu())
    throw std::runtime_error(what + ": inference eigen runs on the CPU, not on device '" + device +
                             "' (use inference torch or auto with a GPU)");
  // auto on a GPU: the GPU's throughput is the point of asking for it.
  if (!d.is_cpu()) return std::make_unique<TorchEvaluator>(net, d, precision);
  // auto with a network too large for Eigen to win even single positions.
  const int maxEigenBatch = autoEigenMaxBatch(bestEigenKernel(), net->shape());
  if (inference == Inference::kAuto && maxEigenBatch == 0) return std::make_unique<TorchEvaluator>(net, d);
  std::unique_ptr<EigenEvaluator> eigen;
  try {
    eigen = std::make_unique<EigenEvaluator>(eigenNetworkOf(*net));
  } catch (const UnsupportedNetwork& e) {
    if (inference == Inference::kEigen)
      throw std::runtime_error(what + ": inference eigen cannot run this network: " + e.what() +
                               " (use inference torch or auto)");
    std::fprintf(stderr, "poppy: %s: the Eigen forward cannot run this network (%s); using LibTorch for every call\n",
                 what.c_str(), e.what());
    return std::make_unique<TorchEvaluator>(net, d);
  }
  if (inference == Inference::kEigen) return eigen;
  return std::make_unique<SplitEvaluator>(std::move(eigen), std::make_unique<TorchEvaluator>(net, d), maxEigenBatch);
}

std::unique_ptr<mcts::Evaluator> loadEvaluator(const std::string& path, const game::Variant* expected,
                                               const std::string& device, Inference inference, ModelInfo* info,
                                               Precision precision) {
  return makeEvaluator(loadModel(path, info, expected, Encoder::kVersion), device, inference, "model " + path,
                       precision);
}

}  // namespace poppy::nn
