// `poppy bench nn`, `bench selfplay`, `bench train`: speed of the network, of self-play around
// it, and of training, each beside its bare LibTorch baseline measured in the same run. Each
// prints its key ratio as its last line and appends its figures to a CSV file.
#include <torch/torch.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <memory>
#include <random>

#include "apps/commands.h"
#include "game/variant_loader.h"
#include "nn/encoder.h"
#include "nn/torch_evaluator.h"
#include "selfplay/selfplay_runner.h"
#include "training/train_config.h"
#include "training/trainer.h"

namespace poppy::apps {
namespace {

using Clock = std::chrono::steady_clock;
double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

struct NetBenchArgs {
  std::string config = "configs/train/micro.yaml";
  std::string csv = "bench_nn.csv";
  double seconds = 1.0;  // per measurement
  int games = 96;        // bench selfplay: one iteration of the default config
  int batch = 0;         // bench train (0: the config's batch size)
};

struct Setup {
  training::TrainRunConfig config;
  game::VariantPtr variant;
  std::unique_ptr<nn::Encoder> encoder;
  nn::NetworkShape shape;
};

Setup setup(const NetBenchArgs& a) {
  Setup s;
  s.config = training::loadTrainConfig(a.config);
  torch::set_num_threads(s.config.selfplayThreads);
  torch::manual_seed(s.config.seed);
  s.variant = game::loadVariant(s.config.variant);
  s.encoder = std::make_unique<nn::Encoder>(s.variant);
  s.shape.planes = s.encoder->planes();
  s.shape.height = s.encoder->height();
  s.shape.width = s.encoder->width();
  s.shape.policySize = s.encoder->policySize();
  s.shape.blocks = s.config.blocks;
  s.shape.channels = s.config.channels;
  s.shape.valueHidden = s.config.valueHidden;
  std::printf("network: %s, %d blocks x %d channels, %d input planes, policy %d, device %s, %d threads\n",
              s.variant->name.c_str(), s.shape.blocks, s.shape.channels, s.shape.planes, s.shape.policySize,
              s.config.device.c_str(), torch::get_num_threads());
  return s;
}

// Median seconds per call of f over repeated timed runs filling about `seconds`.
template <typename F>
double timePerCall(F&& f, double seconds) {
  f();  // warm up
  std::vector<double> runs;
  const auto start = Clock::now();
  while (since(start) < seconds || runs.size() < 5) {
    const auto t = Clock::now();
    f();
    runs.push_back(since(t));
  }
  std::sort(runs.begin(), runs.end());
  return runs[runs.size() / 2];
}

double matmulGflops(double seconds) {
  const int n = 512;
  auto a = torch::randn({n, n}), b = torch::randn({n, n});
  const double t = timePerCall([&] { torch::mm(a, b); }, seconds);
  return 2.0 * n * n * n / t / 1e9;
}

// Evaluations per second of the evaluator at one batch size.
double evalRate(nn::TorchEvaluator& ev, const Setup& s, int batch, double seconds) {
  std::vector<float> planes(size_t(batch) * s.encoder->inputSize(), 0.5f);
  std::vector<float> logits(size_t(batch) * s.encoder->policySize()), wdl(size_t(batch) * 3);
  const double t = timePerCall([&] { ev.evaluate(planes.data(), batch, logits.data(), wdl.data()); }, seconds);
  return batch / t;
}

void benchNn(const NetBenchArgs& a) {
  Setup s = setup(a);
  nn::PolicyValueNet net(s.shape);
  nn::TorchEvaluator ev(net, nn::parseDevice(s.config.device));
  const double flops = net->flopsPerPosition();
  const double mm = matmulGflops(a.seconds);
  std::ofstream csv(a.csv, std::ios::app);
  std::printf("model: %.2f MFLOP per position; machine: %.1f GFLOP/s in a 512x512 matrix product\n", flops / 1e6, mm);
  std::printf("%6s %12s %10s %8s\n", "batch", "evals/s", "GFLOP/s", "of mm");
  const int selfplayBatch = s.config.parallelGames * s.config.selfplaySearch.leavesPerTree;
  double atSelfplay = 0;
  std::vector<int> sizes = {1, 2, 4, 8, 16, 32, 64, 128, 256};
  if (std::find(sizes.begin(), sizes.end(), selfplayBatch) == sizes.end()) sizes.push_back(selfplayBatch);
  std::sort(sizes.begin(), sizes.end());
  for (int b : sizes) {
    const double rate = evalRate(ev, s, b, a.seconds);
    const double gf = rate * flops / 1e9;
    if (b == selfplayBatch) atSelfplay = gf;
    std::printf("%6d %12.0f %10.2f %7.0f%%\n", b, rate, gf, 100 * gf / mm);
    csv << "nn," << s.variant->name << ',' << b << ',' << rate << ',' << gf << ',' << mm << '\n';
    std::fflush(stdout);
  }
  std::printf("self-play batch %d: model %.1f GFLOP/s = %.0f%% of the %.1f GFLOP/s matrix product\n", selfplayBatch,
              atSelfplay, 100 * atSelfplay / mm, mm);
}

// Passes calls through and remembers each batch size, so the standalone network can later be
// timed on exactly the batches self-play produced.
class RecordingEvaluator : public mcts::Evaluator {
 public:
  explicit RecordingEvaluator(mcts::Evaluator& inner) : inner_(inner) {}
  void evaluate(const float* planes, int batch, float* logits, float* wdl) override {
    sizes.push_back(batch);
    inner_.evaluate(planes, batch, logits, wdl);
  }
  std::vector<int> sizes;

 private:
  mcts::Evaluator& inner_;
};

void benchSelfplay(const NetBenchArgs& a) {
  Setup s = setup(a);
  nn::PolicyValueNet net(s.shape);
  nn::TorchEvaluator torchEval(net, nn::parseDevice(s.config.device));
  RecordingEvaluator ev(torchEval);
  selfplay::SelfPlaySettings settings;
  settings.search.playouts = s.config.selfplaySearch.playouts;
  settings.search.cpuct = float(s.config.selfplaySearch.cpuct);
  settings.search.fpuReduction = float(s.config.selfplaySearch.fpuReduction);
  settings.search.leavesPerTree = s.config.selfplaySearch.leavesPerTree;
  settings.search.plyCap = s.config.plyCap;
  settings.parallelGames = std::min(s.config.parallelGames, a.games);
  settings.temperatureMoves = s.config.temperatureMoves;
  settings.seed = s.config.seed;
  mcts::EvalCache cache(18);  // as in `poppy train`
  selfplay::SelfPlayRunner runner(s.variant, *s.encoder, ev, settings, &cache);
  int64_t plies = 0;
  const auto start = Clock::now();
  runner.play(
      a.games, [&](std::vector<selfplay::Sample>&&, selfplay::GameRecord&& r) { plies += r.plies; },
      [&](const selfplay::SelfPlayProgress& p) {
        std::fprintf(stderr, "\r%d/%d games   ", p.gamesFinished, p.gamesWanted);
      });
  const double seconds = since(start);
  std::fprintf(stderr, "\n");
  const auto& st = runner.searchStats();
  const double evalsPerSec = st.evaluations / seconds;
  const int avgBatch = int(std::max<int64_t>(1, st.evaluations / std::max<int64_t>(1, st.batches)));
  const double standalone = evalRate(torchEval, s, avgBatch, a.seconds);
  // The same network alone on the same sequence of batch sizes (inputs are not recomputed).
  const int maxBatch = *std::max_element(ev.sizes.begin(), ev.sizes.end());
  std::vector<float> planes(size_t(maxBatch) * s.encoder->inputSize(), 0.5f);
  std::vector<float> logits(size_t(maxBatch) * s.encoder->policySize()), wdl(size_t(maxBatch) * 3);
  const auto replayStart = Clock::now();
  int64_t replayed = 0;
  for (int b : ev.sizes) {
    torchEval.evaluate(planes.data(), b, logits.data(), wdl.data());
    replayed += b;
  }
  const double replayRate = replayed / since(replayStart);
  std::printf("%d games at %d playouts in %.1f s: %.0f games/hour, %.1f plies/game\n", a.games,
              settings.search.playouts, seconds, a.games * 3600 / seconds, double(plies) / a.games);
  std::printf("network evaluations: %lld in %lld batches (average batch %d), %.0f evals/s in self-play; "
              "%.0f%% of the time inside the network; cache hits %lld, game ends %lld\n",
              (long long)st.evaluations, (long long)st.batches, avgBatch, evalsPerSec,
              100 * st.evalSeconds / std::max(seconds, 1e-9), (long long)st.cacheHits, (long long)st.terminals);
  std::printf("standalone network: %.0f evals/s at the average batch %d; %.0f evals/s on the same %zu batch sizes "
              "as self-play\n", standalone, avgBatch, replayRate, ev.sizes.size());
  std::ofstream(a.csv, std::ios::app) << "selfplay," << s.variant->name << ',' << a.games * 3600 / seconds << ','
                                      << evalsPerSec << ',' << standalone << ',' << replayRate << '\n';
  std::printf("self-play network rate = %.0f%% of standalone on the same batches (%.0f%% of the fixed average batch); "
              "%.0f games/hour\n",
              100 * evalsPerSec / replayRate, 100 * evalsPerSec / standalone, a.games * 3600 / seconds);
}

void benchTrain(const NetBenchArgs& a) {
  Setup s = setup(a);
  torch::set_num_threads(s.config.trainThreads);
  std::printf("training with %d threads\n", s.config.trainThreads);
  const int batch = a.batch > 0 ? a.batch : s.config.batchSize;
  const torch::Device device = nn::parseDevice(s.config.device);
  // Random but valid targets: one-hot policies and results.
  std::mt19937 rng(1);
  std::vector<float> planes(size_t(batch) * s.encoder->inputSize()), policy(size_t(batch) * s.encoder->policySize(), 0),
      wdl(size_t(batch) * 3, 0);
  for (auto& x : planes) x = float(rng() % 2);
  for (int i = 0; i < batch; ++i) {
    policy[size_t(i) * s.encoder->policySize() + rng() % s.encoder->policySize()] = 1;
    wdl[size_t(i) * 3 + rng() % 3] = 1;
  }
  training::OptimizerConfig oc;
  training::Trainer trainer(nn::PolicyValueNet(s.shape), oc, device);
  const double stepTime = timePerCall([&] { trainer.step(planes.data(), policy.data(), wdl.data(), batch); }, 3 * a.seconds);

  // The bare loop: forward and backward of the same losses on tensors already in place.
  nn::PolicyValueNet net(s.shape);
  net->to(device);
  net->train();
  auto x = torch::from_blob(planes.data(), {batch, s.shape.planes, s.shape.height, s.shape.width}).to(device);
  auto pt = torch::from_blob(policy.data(), {batch, s.shape.policySize}).to(device);
  auto vt = torch::from_blob(wdl.data(), {batch, 3}).to(device);
  const double bareTime = timePerCall(
      [&] {
        net->zero_grad();
        auto [logits, value] = net->forward(x);
        auto loss = -(pt * torch::log_softmax(logits, 1)).sum(1).mean() - (vt * torch::log_softmax(value, 1)).sum(1).mean();
        loss.backward();
      },
      3 * a.seconds);
  std::printf("batch %d: trainer %.0f samples/s (%.1f ms/step); bare forward+backward %.0f samples/s (%.1f ms)\n", batch,
              batch / stepTime, 1e3 * stepTime, batch / bareTime, 1e3 * bareTime);
  std::ofstream(a.csv, std::ios::app) << "train," << s.variant->name << ',' << batch << ',' << batch / stepTime << ','
                                      << batch / bareTime << '\n';
  std::printf("trainer rate = %.0f%% of the bare forward+backward loop\n", 100 * bareTime / stepTime);
}

void addOptions(CLI::App* cmd, NetBenchArgs& a) {
  cmd->add_option("--config", a.config, "Run configuration giving the network and search settings")->capture_default_str();
  cmd->add_option("--csv", a.csv, "Append the figures to this CSV file")->capture_default_str();
  cmd->add_option("--seconds", a.seconds, "Seconds per measurement")->check(CLI::Range(0.05, 600.0))->capture_default_str();
}

}  // namespace

void addNetworkBenches(CLI::App* bench) {
  auto a = std::make_shared<NetBenchArgs>();
  CLI::App* nn = bench->add_subcommand("nn", "Network evaluations/s for batch sizes 1..256 and the model's GFLOP/s beside "
                                             "the machine's matrix-product GFLOP/s");
  addOptions(nn, *a);
  nn->callback([a] { benchNn(*a); });
  CLI::App* sp = bench->add_subcommand("selfplay", "Self-play games/hour and network rate inside self-play vs standalone");
  addOptions(sp, *a);
  sp->add_option("--games", a->games, "Games to play")->check(CLI::Range(1, 100000))->capture_default_str();
  sp->callback([a] { benchSelfplay(*a); });
  CLI::App* tr = bench->add_subcommand("train", "Training samples/s vs a bare forward+backward loop");
  addOptions(tr, *a);
  tr->add_option("--batch", a->batch, "Batch size (default: the config's)")->check(CLI::Range(0, 65536));
  tr->callback([a] { benchTrain(*a); });
}

}  // namespace poppy::apps
