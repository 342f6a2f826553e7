// How well a network trained the way `poppy train` trains knows games it has not seen (prints
// figures, never fails): replays a finished run's training offline on its own replay chunks.
// For iteration k = 1..iterations: the window is the newest `window` samples of the games before
// k x games_per_iteration, the trainer takes `steps` batches from it (as training/train_loop.cpp
// does), then the network is scored (as it searches: batch norm's running statistics) on the
// games it has just trained on (iteration k - 1's) and on the next iteration's, which it has
// not seen, beside the loss of a constant guess of those games' results. One such replay per
// value loss weight asked for, each from the same random weights: docs/experiments/value-overfitting.md.
//
// Usage: bench_value_overfit RUN_DIR [key=value ...]
//   games_per_iteration=96 iterations=8 window=60000 steps=100 batch=256
//   value_loss_weights=1,0.1 learning_rate=0.02 weight_decay=0.0001 blocks=4 channels=32
//   value_hidden=32 threads=2 csv=value_overfit.csv
// The variant comes from RUN_DIR/config.yaml; the chunks are RUN_DIR/replay/chunk-N.rpl, one per
// game in the order played (what `poppy train` writes).
#include <torch/torch.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "common/atomic_file.h"
#include "game/variant_loader.h"
#include "nn/encoder.h"
#include "nn/network.h"
#include "selfplay/replay_file.h"
#include "selfplay/replay_window.h"
#include "selfplay/sample.h"
#include "training/held_out_losses.h"
#include "training/train_config.h"
#include "training/trainer.h"

using namespace poppy;
namespace fs = std::filesystem;

namespace {

using Game = std::vector<selfplay::Sample>;

// The network's losses on every sample of games [first, last), and a constant guess's.
training::HeldOutLosses score(training::Trainer& trainer, const nn::Encoder& encoder, const std::vector<Game>& games,
                              size_t first, size_t last, int batch) {
  std::vector<const selfplay::Sample*> samples;
  for (size_t g = first; g < last; ++g)
    for (const selfplay::Sample& s : games[g]) samples.push_back(&s);
  return training::scoreHeldOut(trainer, encoder, samples, batch);
}

std::vector<double> parseList(const std::string& text) {
  std::vector<double> out;
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, ',');) out.push_back(std::stod(item));
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: bench_value_overfit RUN_DIR [key=value ...] (see bench/bench_value_overfit.cpp)\n");
    return 2;
  }
  const fs::path run = argv[1];
  std::map<std::string, std::string> options = {
      {"games_per_iteration", "96"}, {"iterations", "8"},           {"window", "60000"},
      {"steps", "100"},              {"batch", "256"},              {"value_loss_weights", "1,0.1"},
      {"learning_rate", "0.02"},     {"weight_decay", "0.0001"},    {"blocks", "4"},
      {"channels", "32"},            {"value_hidden", "32"},        {"threads", "2"},
      {"csv", "value_overfit.csv"}};
  for (int i = 2; i < argc; ++i) {
    const std::string arg = argv[i];
    const size_t eq = arg.find('=');
    if (eq == std::string::npos || !options.count(arg.substr(0, eq))) {
      std::fprintf(stderr, "bench_value_overfit: '%s' is not one of the key=value options\n", arg.c_str());
      return 2;
    }
    options[arg.substr(0, eq)] = arg.substr(eq + 1);
  }
  try {
    const int perIteration = std::stoi(options["games_per_iteration"]), iterations = std::stoi(options["iterations"]);
    const int window = std::stoi(options["window"]), steps = std::stoi(options["steps"]);
    const int batch = std::stoi(options["batch"]);
    const std::vector<double> weights = parseList(options["value_loss_weights"]);
    torch::set_num_threads(std::stoi(options["threads"]));

    const training::TrainRunConfig config = training::loadTrainConfig((run / "config.yaml").string());
    const game::VariantPtr variant = game::loadVariant(config.variant);
    const nn::Encoder encoder(variant);
    std::vector<Game> games;
    const size_t wanted = size_t(perIteration) * size_t(iterations + 1);
    for (size_t g = 0; g < wanted; ++g) {
      const std::string path = (run / "replay" / selfplay::chunkFileName(g)).string();
      selfplay::ChunkInfo info = selfplay::readReplayChunkHeader(path).info;
      info.valueSize = encoder.valueSize();
      games.push_back(selfplay::readReplayChunk(path, info));
    }
    std::fprintf(stderr, "%s: %zu games of %s read, %d iterations of %d games\n", run.c_str(), games.size(),
                 variant->name.c_str(), iterations, perIteration);

    std::ostringstream csv;
    csv << "value_loss_weight,iteration,trained_policy_loss,trained_value_loss,new_policy_loss,new_value_loss,"
           "constant_value_loss\n";
    for (const double weight : weights) {
      training::OptimizerConfig o;
      o.learningRate = std::stod(options["learning_rate"]);
      o.weightDecay = std::stod(options["weight_decay"]);
      o.valueLossWeight = weight;
      torch::manual_seed(1);
      training::Trainer trainer(
          nn::PolicyValueNet(nn::networkShapeFor(encoder, std::stoi(options["blocks"]), std::stoi(options["channels"]),
                                                 std::stoi(options["value_hidden"]))),
          o, torch::kCPU);
      std::mt19937 rng(1);
      std::vector<float> planes(size_t(batch) * encoder.inputSize()), policy(size_t(batch) * encoder.policySize()),
          value(size_t(batch) * size_t(encoder.valueSize()));
      std::printf("value loss weight %g\n", weight);
      for (int k = 1; k <= iterations; ++k) {
        std::vector<const selfplay::Sample*> inWindow;
        for (size_t g = size_t(k) * size_t(perIteration); g-- > 0 && int(inWindow.size()) < window;)
          for (const selfplay::Sample& s : games[g]) inWindow.push_back(&s);
        std::uniform_int_distribution<size_t> pick(0, inWindow.size() - 1);
        for (int step = 0; step < steps; ++step) {
          for (int i = 0; i < batch; ++i)
            selfplay::writeDenseRow(*inWindow[pick(rng)], encoder.inputSize(), encoder.policySize(),
                                    encoder.valueSize(), i, planes.data(), policy.data(), value.data());
          trainer.step(planes.data(), policy.data(), value.data(), batch);
        }
        const size_t end = size_t(k) * size_t(perIteration);
        const training::HeldOutLosses trained = score(trainer, encoder, games, end - size_t(perIteration), end, batch);
        const training::HeldOutLosses fresh = score(trainer, encoder, games, end, end + size_t(perIteration), batch);
        std::printf("  iteration %2d  games trained on: policy %.3f value %.3f | new games: policy %.3f value %.3f "
                    "(a constant guess %.3f)\n",
                    k, trained.policy, trained.value, fresh.policy, fresh.value, fresh.constantGuess);
        std::fflush(stdout);
        csv << weight << ',' << k << ',' << trained.policy << ',' << trained.value << ',' << fresh.policy << ','
            << fresh.value << ',' << fresh.constantGuess << '\n';
      }
    }
    common::writeFileAtomically(options["csv"], csv.str());
    std::printf("figures: %s\n", options["csv"].c_str());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_value_overfit: %s\n", e.what());
    return 1;
  }
  return 0;
}
