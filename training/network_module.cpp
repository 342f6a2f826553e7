// The entry point of libpoppy_network.so: nn/network_backend.h's interface implemented with the
// LibTorch code of nn/ and training/. The `poppy` command loads this module only when a command
// needs a network.
#include <torch/torch.h>

#include "nn/compute_threads.h"
#include "nn/encoder.h"
#include "nn/load_evaluator.h"
#include "nn/network_backend.h"
#include "training/network_bench.h"
#include "training/train_loop.h"

namespace poppy::training {
namespace {

class TorchBackend final : public nn::NetworkBackend {
 public:
  std::unique_ptr<mcts::Evaluator> loadEvaluator(const std::string& path, const game::Variant* expected,
                                                 const std::string& device, nn::Inference inference,
                                                 nn::ModelInfo* info) const override {
    return nn::loadEvaluator(path, expected, device, inference, info);
  }
  void setThreads(int threads) const override { nn::setComputeThreads(threads); }
  void train(const TrainRunConfig& config, const TrainOptions& options) const override {
    runTraining(config, options);
  }
  void benchNetwork(const nn::NetworkBenchOptions& options) const override { training::benchNetwork(options); }
  void benchSelfplay(const nn::NetworkBenchOptions& options) const override { training::benchSelfplay(options); }
  void benchTraining(const nn::NetworkBenchOptions& options) const override { training::benchTraining(options); }
};

}  // namespace
}  // namespace poppy::training

extern "C" __attribute__((visibility("default"))) const poppy::nn::NetworkBackend* poppy_network_backend() {
  static const poppy::training::TorchBackend backend;
  return &backend;
}
