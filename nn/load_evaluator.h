// The one way a network becomes an mcts::Evaluator for searching: LibTorch, the Eigen forward,
// or both split by call size, as the `inference` setting says (nn/inference.h).
#pragma once
#include <memory>
#include <string>

#include "mcts/evaluator.h"
#include "nn/inference.h"
#include "nn/model_file.h"
#include "nn/network.h"
#include "nn/precision.h"

namespace poppy::nn {

// `net` on `device` ("cpu", "cuda", "cuda:N"). inference:
//   torch: a TorchEvaluator;
//   eigen: an EigenEvaluator; throws std::runtime_error naming `what` (the model) when the Eigen
//          forward cannot run this network, or when the device is not the CPU;
//   auto:  on the CPU, a SplitEvaluator: Eigen for calls of up to autoEigenMaxBatch positions
//          (nn/eigen_evaluator.h), LibTorch above; LibTorch alone for a network too large for
//          Eigen to win even one position. A network the Eigen forward cannot run gets LibTorch
//          alone, with one line on stderr saying why; on a GPU, LibTorch alone.
// precision bf16 (LibTorch on a GPU only) runs a bfloat16 copy of the network.
// Throws std::runtime_error for a device this LibTorch cannot use (parseDevice), or bf16 on the CPU.
std::unique_ptr<mcts::Evaluator> makeEvaluator(PolicyValueNet net, const std::string& device, Inference inference,
                                               const std::string& what, Precision precision = Precision::kFloat32);

// A model file ready to search with: loadModel (refusing a model of another variant or rules,
// expected == nullptr accepts any, or encoder version, with a ModelError naming the file), then
// makeEvaluator. info, when given, receives the file's header.
std::unique_ptr<mcts::Evaluator> loadEvaluator(const std::string& path, const game::Variant* expected,
                                               const std::string& device, Inference inference,
                                               ModelInfo* info = nullptr, Precision precision = Precision::kFloat32);

}  // namespace poppy::nn
