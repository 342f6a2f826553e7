// The LibTorch half of Poppy behind one narrow interface, in a module (libpoppy_network.so)
// that the `poppy` command loads with dlopen the first time it needs a network. Commands that
// need none (perft, variants, rollout play, reports, ...) never load LibTorch, so they start in
// milliseconds instead of paying LibTorch's ~0.6 s start-up (issue 16, item 11).
//
// The module is built beside the executable; POPPY_NETWORK_MODULE names another file. Code
// linked with the trainer (tests of nn/ and training/) calls nn/ and training/ directly.
#pragma once
#include <memory>
#include <string>

#include "game/variant.h"
#include "mcts/evaluator.h"
#include "nn/inference.h"
#include "nn/model_header.h"

namespace poppy::training {
struct TrainRunConfig;
struct TrainOptions;
}  // namespace poppy::training

namespace poppy::nn {

// `poppy bench nn`, `bench selfplay`, `bench train`.
struct NetworkBenchOptions {
  std::string config = "configs/train/micro.yaml";
  std::string csv = "bench_nn.csv";
  double seconds = 1.0;  // per measurement
  int games = 96;        // bench selfplay: one iteration of the default config
  int batch = 0;         // bench train (0: the config's batch size)
  std::string model;     // bench nn, selfplay: trained weights (default: random ones)
  std::string inference = "both";  // bench nn: torch, eigen, or both (compared)
  std::string eigenKernel;         // bench nn: the Eigen forward's instruction set ("": the best this CPU runs)
  std::string tactics = "on";  // bench selfplay: exact tactics on, off, or both (compared)
  int workers = 0;       // bench selfplay: self-play workers (0: the config's)
  std::string selfplayInference;  // bench selfplay: auto, torch, eigen or int8 ("": the config's `inference`)
  std::string precision;          // fp32 or bf16 ("": the config's `precision`)
  int maxBatch = 0;               // bench nn: the largest batch timed (0: 256 on the CPU, 8192 on a GPU)
  std::string layout;  // bench train: auto, nchw, channels_last or both ("": the config's training.memory_layout)
};

class NetworkBackend {
 public:
  virtual ~NetworkBackend() = default;
  // A model file ready to search with on `device` ("cpu", "cuda", "cuda:N"), run by LibTorch,
  // Eigen or both as `inference` says (nn/load_evaluator.h). Refuses a model of another variant
  // or rules (expected == nullptr accepts any) or encoder version with a ModelError naming the
  // file; a device this LibTorch cannot use, or inference eigen for a network or device it cannot
  // run, with std::runtime_error. info, when given, receives the file's header.
  virtual std::unique_ptr<mcts::Evaluator> loadEvaluator(const std::string& path, const game::Variant* expected,
                                                         const std::string& device, Inference inference,
                                                         ModelInfo* info) const = 0;
  // LibTorch's threads for network evaluations in this process.
  virtual void setThreads(int threads) const = 0;
  // `poppy train` (training/train_loop.h).
  virtual void train(const training::TrainRunConfig& config, const training::TrainOptions& options) const = 0;
  virtual void benchNetwork(const NetworkBenchOptions& options) const = 0;
  virtual void benchSelfplay(const NetworkBenchOptions& options) const = 0;
  virtual void benchTraining(const NetworkBenchOptions& options) const = 0;
};

// The module's backend, loaded on the first call (later calls return the same one). Throws
// std::runtime_error naming the module file and why it did not load.
const NetworkBackend& networkBackend();

// The module file networkBackend() loads: $POPPY_NETWORK_MODULE, else libpoppy_network.so in the
// directory of the running executable.
std::string networkModulePath();

// Whether the module has been loaded in this process (for tests and `poppy` itself).
bool networkBackendLoaded();

// LibTorch threads for network evaluations: applied now if the module is loaded, else when it
// loads. Commands set it from --threads without loading LibTorch for nothing.
void setNetworkThreads(int threads);

// LibTorch threads under the play-time search (usi, serve, bench search; play's --threads
// default): one per search thread, the search threads being what scales. Left at LibTorch's
// default, each search thread's evaluations ran on a pool of every core: with two search threads
// on the 16-core H200 machine, `bench search --inference torch` fell from 1,457 to 19 playouts/s.
inline constexpr int kPlayTimeNetworkThreads = 1;

// Loads a model through the backend: networkBackend().loadEvaluator(...).
std::unique_ptr<mcts::Evaluator> loadModelEvaluator(const std::string& path, const game::Variant* expected,
                                                    const std::string& device, Inference inference,
                                                    ModelInfo* info = nullptr);

// Checks the spelling of a device name ("cpu", "cuda", "cuda:N") without loading LibTorch;
// whether the device exists is checked when a model is loaded on it. Throws std::runtime_error.
void checkDeviceName(const std::string& device);

// The name of the function the module exports: extern "C" const NetworkBackend* poppy_network_backend().
inline constexpr const char* kNetworkBackendSymbol = "poppy_network_backend";

}  // namespace poppy::nn
