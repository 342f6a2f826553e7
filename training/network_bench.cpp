#include "training/network_bench.h"

#include <torch/torch.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "common/progress_line.h"
#include "nn/autocast.h"
#include "nn/compute_threads.h"
#include "game/variant_loader.h"
#include "nn/eigen_evaluator.h"
#include "nn/eigen_from_torch.h"
#include "nn/encoder.h"
#include "nn/inference.h"
#include "nn/load_evaluator.h"
#include "nn/model_file.h"
#include "nn/torch_evaluator.h"
#include "selfplay/selfplay_pool.h"
#include "selfplay/selfplay_runner.h"
#include "training/train_config.h"
#include "training/trainer.h"

namespace poppy::training {
namespace {

using Clock = std::chrono::steady_clock;
double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }


std::string gpuName();

struct Setup {
  TrainRunConfig config;
  torch::Device device = torch::kCPU;
  nn::Precision precision = nn::Precision::kFloat32;
  game::VariantPtr variant;
  std::unique_ptr<nn::Encoder> encoder;
  nn::NetworkShape shape;
};

Setup setup(const nn::NetworkBenchOptions& a) {
  Setup s;
  s.config = loadTrainConfig(a.config);
  s.device = nn::parseDevice(s.config.device);
  s.precision = a.precision.empty() ? s.config.precision : nn::parsePrecision(a.precision);
  nn::setComputeThreads(s.config.selfplayThreads);
  torch::manual_seed(s.config.seed);
  s.variant = game::loadVariant(s.config.variant);
  s.encoder = std::make_unique<nn::Encoder>(s.variant);
  s.shape = nn::networkShapeFor(*s.encoder, s.config.blocks, s.config.channels, s.config.valueHidden,
                                s.config.auxiliaryHeads);
  std::printf("network: %s, %d blocks x %d channels%s, %d input planes, policy %d, device %s, %s, %d threads%s\n",
              s.variant->name.c_str(), s.shape.blocks, s.shape.channels,
              s.shape.auxiliaryHeads ? " with auxiliary heads (trained)" : "", s.shape.planes, s.shape.policySize,
              s.config.device.c_str(), nn::precisionName(s.precision), torch::get_num_threads(),
              nn::blasThreads() > 0 ? (" (OpenBLAS " + std::to_string(nn::blasThreads()) + ")").c_str() : "");
  if (s.device.is_cuda()) std::printf("GPU: %s\n", gpuName().c_str());
  if (const std::string warning = nn::bfloat16Warning(s.precision, s.device.is_cpu()); !warning.empty())
    std::printf("warning: %s\n", warning.c_str());
  return s;
}

// Median seconds per call of f over repeated timed runs filling about `seconds`. On a GPU each
// call is waited for: LibTorch returns before the GPU has finished.
template <typename F>
double timePerCall(F&& f, double seconds, const torch::Device& device = torch::kCPU) {
  auto call = [&] {
    f();
    if (device.is_cuda()) torch::cuda::synchronize();
  };
  call();  // warm up
  std::vector<double> runs;
  const auto start = Clock::now();
  while (since(start) < seconds || runs.size() < 5) {
    const auto t = Clock::now();
    call();
    runs.push_back(since(t));
  }
  std::sort(runs.begin(), runs.end());
  return runs[runs.size() / 2];
}

// Fastest seconds per call of f over repeated timed runs filling about `seconds` (at least 5
// runs, after a warm-up): a machine's peak, which a shared machine's other work only ever lowers.
template <typename F>
double bestTimePerCall(F&& f, double seconds, const torch::Device& device) {
  auto call = [&] {
    f();
    if (device.is_cuda()) torch::cuda::synchronize();
  };
  call();  // warm up: page faults, the thread pool, packing buffers
  double best = INFINITY;
  const auto start = Clock::now();
  for (int runs = 0; since(start) < seconds || runs < 5; ++runs) {
    const auto t = Clock::now();
    call();
    best = std::min(best, since(t));
  }
  return best;
}

struct MatmulRate {
  double gflops = 0;
  int n = 0;  // the square product's size that gave it
};

// The machine's matrix-product rate, the yardstick of the model's: the best of several runs of
// square float32 products of 256, 512 and 1024 on the CPU (with the threads the network runs
// on; one size alone mismeasured it: 32 GFLOP/s where the network itself reached 95), an 8192
// one on a GPU in the benchmark's precision (random data: zeros run faster than real numbers on
// some GPUs).
MatmulRate matmulGflops(double seconds, const torch::Device& device, nn::Precision precision) {
  const std::vector<int> sizes = device.is_cuda() ? std::vector<int>{8192} : std::vector<int>{256, 512, 1024};
  auto opts = torch::TensorOptions().device(device).dtype(
      precision == nn::Precision::kBfloat16 ? torch::kBFloat16 : torch::kFloat32);
  MatmulRate best;
  for (int n : sizes) {
    auto a = torch::randn({n, n}, opts), b = torch::randn({n, n}, opts);
    const double t = bestTimePerCall([&] { torch::mm(a, b); }, seconds / double(sizes.size()), device);
    const double gflops = 2.0 * n * n * n / t / 1e9;
    if (gflops > best.gflops) best = {gflops, n};
  }
  return best;
}

std::string gpuName() {
  // LibTorch's C++ API has no device properties without the CUDA headers; nvidia-smi has them.
  std::string name;
  if (FILE* p = popen("nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null", "r")) {
    char line[256];
    if (std::fgets(line, sizeof line, p)) name = line;
    pclose(p);
  }
  while (!name.empty() && (name.back() == '\n' || name.back() == '\r')) name.pop_back();
  return name.empty() ? "(nvidia-smi did not answer)" : name;
}

// Evaluations per second of the evaluator at one batch size.
double evalRate(mcts::Evaluator& ev, const Setup& s, int batch, double seconds) {
  std::vector<float> planes(size_t(batch) * s.encoder->inputSize(), 0.5f);
  std::vector<float> logits(size_t(batch) * s.encoder->policySize()), wdl(size_t(batch) * s.encoder->valueSize());
  const double t = timePerCall([&] { ev.evaluate(planes.data(), batch, logits.data(), wdl.data()); }, seconds);
  return batch / t;
}

}  // namespace

void benchNetwork(const nn::NetworkBenchOptions& a) {
  Setup s = setup(a);
  nn::PolicyValueNet net = a.model.empty() ? nn::PolicyValueNet(s.shape)
                                           : nn::loadModel(a.model, nullptr, s.variant.get(), nn::Encoder::kVersion);
  if (!a.model.empty())
    std::printf("weights: %s (%d blocks x %d channels)\n", a.model.c_str(), net->shape().blocks, net->shape().channels);
  // The Eigen forward runs on the CPU only: on a GPU LibTorch alone is timed.
  const bool gpu = s.device.is_cuda();
  if (gpu && a.inference == "eigen")
    throw std::runtime_error("bench nn: --inference eigen runs on the CPU; this config's device is " + s.config.device);
  const bool withTorch = a.inference != "eigen", withEigen = a.inference != "torch" && !gpu;
  std::unique_ptr<nn::TorchEvaluator> torchEval;
  if (withTorch) torchEval = std::make_unique<nn::TorchEvaluator>(net, s.device, s.precision);
  std::unique_ptr<nn::EigenEvaluator> eigenEval;
  if (withEigen) {
    eigenEval = std::make_unique<nn::EigenEvaluator>(nn::eigenNetworkOf(*net), a.eigenKernel);
    std::string supported;
    for (const std::string& k : nn::eigenKernelsSupported()) supported += (supported.empty() ? "" : ", ") + k;
    for (const std::string& k : nn::int8KernelsSupported()) supported += ", " + k;
    std::printf("eigen: kernel %s (this CPU runs %s), one thread, on the CPU whatever the device\n",
                eigenEval->kernel().c_str(), supported.c_str());
  }
  const std::string eigenName = eigenEval ? "eigen-" + eigenEval->kernel() : "";
  const double flops = net->flopsPerPosition();
  const MatmulRate machine = matmulGflops(a.seconds, s.device, s.precision);
  const double mm = machine.gflops;
  std::ofstream csv(a.csv, std::ios::app);
  if (gpu)
    std::printf("model: %.2f MFLOP per position; GPU: %.1f TFLOP/s in a %s 8192x8192 matrix product (LibTorch)\n",
                flops / 1e6, mm / 1e3, nn::precisionName(s.precision));
  else
    std::printf("model: %.2f MFLOP per position; machine: %.1f GFLOP/s, the best %dx%d matrix product of sizes "
                "256-1024 (LibTorch, %d threads)\n",
                flops / 1e6, mm, machine.n, machine.n, torch::get_num_threads());
  if (withTorch && withEigen)
    std::printf("%6s %12s %9s %12s %9s %8s\n", "batch", "torch/s", "GFLOP/s", "eigen/s", "GFLOP/s", "eigen/x");
  else
    std::printf("%6s %12s %10s %8s\n", "batch", "evals/s", "GFLOP/s", "of mm");
  // One worker's share of the games, each with its leaves: one network call of self-play.
  const int selfplayBatch =
      std::max(1, s.config.parallelGames / std::max(1, s.config.selfplayWorkers)) * s.config.selfplaySearch.values.leavesPerTree;
  double atSelfplay = 0;
  std::vector<int> sizes;
  const int maxBatch = a.maxBatch > 0 ? a.maxBatch : gpu ? 8192 : 256;
  for (int b = 1; b <= maxBatch; b *= 2) sizes.push_back(b);
  if (std::find(sizes.begin(), sizes.end(), selfplayBatch) == sizes.end()) sizes.push_back(selfplayBatch);
  std::sort(sizes.begin(), sizes.end());
  std::vector<std::pair<int, double>> ratios;  // batch, eigen / torch
  for (int b : sizes) {
    // Both at each batch size in turn, so a busy moment of the machine hits both alike.
    const double torchRate =
        torchEval ? nn::reportingOutOfMemory("at batch " + std::to_string(b), "lower --max-batch",
                                             [&] { return evalRate(*torchEval, s, b, a.seconds); })
                  : 0;
    const double eigenRate = eigenEval ? evalRate(*eigenEval, s, b, a.seconds) : 0;
    if (torchEval) csv << "nn," << s.variant->name << ',' << b << ',' << torchRate << ',' << torchRate * flops / 1e9 << ','
                       << mm << ",torch-" << s.config.device << '-' << nn::precisionName(s.precision) << '\n';
    if (eigenEval) csv << "nn," << s.variant->name << ',' << b << ',' << eigenRate << ',' << eigenRate * flops / 1e9 << ','
                       << mm << ',' << eigenName << '\n';
    if (withTorch && withEigen) {
      ratios.emplace_back(b, eigenRate / torchRate);
      std::printf("%6d %12.0f %9.2f %12.0f %9.2f %7.2fx\n", b, torchRate, torchRate * flops / 1e9, eigenRate,
                  eigenRate * flops / 1e9, eigenRate / torchRate);
    } else {
      const double rate = torchEval ? torchRate : eigenRate;
      const double gf = rate * flops / 1e9;
      if (b == selfplayBatch) atSelfplay = gf;
      std::printf("%6d %12.0f %10.2f %7.0f%%\n", b, rate, gf, 100 * gf / mm);
    }
    std::fflush(stdout);
  }
  if (ratios.empty()) {
    std::printf("self-play batch %d: model %.1f GFLOP/s = %.0f%% of the %.1f GFLOP/s matrix product\n", selfplayBatch,
                atSelfplay, 100 * atSelfplay / mm, mm);
    return;
  }
  // The largest batch up to which Eigen was at least as fast at every size: where `auto` may
  // switch to LibTorch (nn/inference.h).
  auto ratioAt = [&](int batch) {
    for (const auto& [b, r] : ratios)
      if (b == batch) return r;
    return 0.0;
  };
  int faster = 0;
  for (const auto& [b, r] : ratios) {
    if (r < 1) break;
    faster = b;
  }
  std::printf("eigen/torch evaluations/s: %.2fx at batch 1, %.2fx at 8, %.2fx at %d; eigen faster up to batch %d "
              "(auto: eigen up to batch %d)\n",
              ratioAt(1), ratioAt(8), ratios.back().second, ratios.back().first, faster,
              nn::autoEigenMaxBatch(eigenEval->kernel(), net->shape()));
}

namespace {

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

struct SelfplayFigures {
  double gamesPerHour = 0, pliesPerGame = 0, evalsPerSec = 0, standalone = 0, replayRate = 0;
};

// One self-play run of a.games games with the config's workers (or a.workers); `tactics`
// switches the MCTS-solver and mate searches. The standalone figures replay each worker's
// sequence of batch sizes on as many threads at once, so both sides use the same cores.
SelfplayFigures selfplayOnce(const nn::NetworkBenchOptions& a, const Setup& s, nn::PolicyValueNet net, bool tactics) {
  const int workers = a.workers > 0 ? a.workers : s.config.selfplayWorkers;
  const nn::Inference inference =
      a.selfplayInference.empty() ? s.config.inference : nn::parseInference(a.selfplayInference);
  // Each worker's own copy of the network, run as self-play runs it, and the batch sizes it asked for.
  std::vector<std::unique_ptr<mcts::Evaluator>> nets;
  std::vector<RecordingEvaluator*> recorders;
  auto copyOf = [&] {
    nn::PolicyValueNet copy(net->shape());
    nn::moduleFromBytes(*copy, nn::moduleToBytes(*net));
    return nn::makeEvaluator(copy, s.config.device, inference, "the benchmark network", s.precision);
  };
  selfplay::SelfPlaySettings settings = selfplaySettingsFor(s.config);
  settings.search.solver = tactics && settings.search.solver;
  settings.parallelGames = std::min(s.config.parallelGames, a.games);
  selfplay::SelfPlayPool pool(
      s.variant, *s.encoder,
      [&]() -> std::unique_ptr<mcts::Evaluator> {
        nets.push_back(copyOf());
        auto rec = std::make_unique<RecordingEvaluator>(*nets.back());
        recorders.push_back(rec.get());
        return rec;
      },
      settings, workers);  // the cache as in `poppy train`
  int64_t plies = 0;
  const auto start = Clock::now();
  common::ProgressLine progressLine;
  pool.play(
      a.games, [&](std::vector<selfplay::Sample>&&, selfplay::GameRecord&& r) { plies += r.plies; },
      [&](const selfplay::SelfPlayProgress& p) {
        progressLine.update(std::to_string(p.gamesFinished) + "/" + std::to_string(p.gamesWanted) + " games",
                            p.gamesFinished == p.gamesWanted);
      });
  const double seconds = since(start);
  progressLine.finish();
  SelfplayFigures f;
  const auto st = pool.searchStats();
  f.evalsPerSec = st.evaluations / seconds;
  const int avgBatch = int(std::max<int64_t>(1, st.evaluations / std::max<int64_t>(1, st.batches)));
  // The same networks alone on the same sequences of batch sizes, all workers' threads at once
  // (inputs are not recomputed), and one network at a fixed batch of the average size.
  std::vector<std::thread> replay;
  std::vector<int64_t> replayed(size_t(workers), 0);
  const auto replayStart = Clock::now();
  for (int k = 0; k < workers; ++k)
    replay.emplace_back([&, k] {
      const std::vector<int>& sizes = recorders[size_t(k)]->sizes;
      const int maxBatch = sizes.empty() ? 1 : *std::max_element(sizes.begin(), sizes.end());
      std::vector<float> planes(size_t(maxBatch) * s.encoder->inputSize(), 0.5f);
      std::vector<float> logits(size_t(maxBatch) * s.encoder->policySize()), wdl(size_t(maxBatch) * s.encoder->valueSize());
      for (int b : sizes) {
        nets[size_t(k)]->evaluate(planes.data(), b, logits.data(), wdl.data());
        replayed[size_t(k)] += b;
      }
    });
  for (std::thread& t : replay) t.join();
  int64_t total = 0;
  for (int64_t r : replayed) total += r;
  f.replayRate = total / std::max(since(replayStart), 1e-9);
  f.standalone = evalRate(*nets[0], s, avgBatch, a.seconds);
  f.gamesPerHour = a.games * 3600 / seconds;
  f.pliesPerGame = double(plies) / a.games;
  std::printf("%s, %d worker%s, inference %s: %d games at %d playouts in %.1f s: %.0f games/hour, %.1f plies/game, "
              "%.2f ms/ply\n",
              tactics ? "exact tactics on" : "exact tactics off", workers, workers > 1 ? "s" : "",
              nn::inferenceName(inference), a.games,
              settings.search.playouts, seconds, f.gamesPerHour, f.pliesPerGame, 1e3 * seconds / std::max<int64_t>(1, plies));
  std::printf("network evaluations: %lld in %lld batches (average batch %d), %.0f evals/s in self-play; "
              "network time %.0f%% of the workers' time; cache hits %lld, game ends and proofs %lld\n",
              (long long)st.evaluations, (long long)st.batches, avgBatch, f.evalsPerSec,
              100 * st.evalSeconds / std::max(seconds * workers, 1e-9), (long long)st.cacheHits, (long long)st.terminals);
  std::printf("standalone network: %.0f evals/s at the average batch %d on one thread; %.0f evals/s on the same "
              "batch sizes as self-play, %d thread%s at once\n",
              f.standalone, avgBatch, f.replayRate, workers, workers > 1 ? "s" : "");
  std::ofstream(a.csv, std::ios::app) << "selfplay," << s.variant->name << ',' << f.gamesPerHour << ','
                                      << f.evalsPerSec << ',' << f.standalone << ',' << f.replayRate << ','
                                      << (tactics ? "tactics" : "plain") << ',' << workers << ','
                                      << nn::inferenceName(inference) << '\n';
  return f;
}

}  // namespace

void benchSelfplay(const nn::NetworkBenchOptions& a) {
  Setup s = setup(a);
  nn::PolicyValueNet net = nullptr;
  if (a.model.empty()) {
    net = nn::PolicyValueNet(s.shape);
  } else {
    net = nn::loadModel(a.model, nullptr, s.variant.get(), nn::Encoder::kVersion);
    std::printf("weights: %s\n", a.model.c_str());
  }
  if (a.tactics != "both") {
    const SelfplayFigures f = selfplayOnce(a, s, net, a.tactics == "on");
    std::printf("self-play network rate = %.0f%% of standalone on the same batches (%.0f%% of the fixed average "
                "batch); %.0f games/hour\n",
                100 * f.evalsPerSec / f.replayRate, 100 * f.evalsPerSec / f.standalone, f.gamesPerHour);
    return;
  }
  const SelfplayFigures off = selfplayOnce(a, s, net, false);
  const SelfplayFigures on = selfplayOnce(a, s, net, true);
  std::printf("exact tactics: %.0f games/hour with, %.0f without: %.0f%% of the games/hour without (%.1f vs %.1f "
              "plies/game)\n",
              on.gamesPerHour, off.gamesPerHour, 100 * on.gamesPerHour / off.gamesPerHour, on.pliesPerGame,
              off.pliesPerGame);
}


void benchTraining(const nn::NetworkBenchOptions& a) {
  Setup s = setup(a);
  nn::setComputeThreads(s.config.trainThreads);
  std::printf("training with %d threads\n", s.config.trainThreads);
  const int batch = a.batch > 0 ? a.batch : s.config.batchSize;
  const torch::Device device = s.device;
  // Random but valid targets: one-hot policies and results.
  std::mt19937 rng(1);
  std::vector<float> planes(size_t(batch) * s.encoder->inputSize()), policy(size_t(batch) * s.encoder->policySize(), 0),
      wdl(size_t(batch) * s.encoder->valueSize(), 0);
  for (auto& x : planes) x = float(rng() % 2);
  const int values = s.encoder->valueSize();
  for (int i = 0; i < batch; ++i) {
    policy[size_t(i) * s.encoder->policySize() + rng() % s.encoder->policySize()] = 1;
    wdl[size_t(i) * values + rng() % values] = 1;
  }
  // With network.auxiliary_heads: a one-hot reply for every row and 1 to 60 plies left, so that
  // the step costs what a run's does.
  std::vector<float> reply, hasReply(static_cast<size_t>(batch), 1.0f), pliesLeft(static_cast<size_t>(batch));
  if (s.shape.auxiliaryHeads) {
    reply.assign(size_t(batch) * s.encoder->policySize(), 0.0f);
    for (int i = 0; i < batch; ++i) {
      reply[size_t(i) * s.encoder->policySize() + rng() % s.encoder->policySize()] = 1;
      pliesLeft[size_t(i)] = float(1 + rng() % 60);
    }
  }
  const AuxiliaryBatch aux{reply.data(), hasReply.data(), pliesLeft.data()};
  // The trainer's step in one memory layout (training/memory_layout.h): seconds per step.
  auto trainerStep = [&](MemoryLayout layout) {
    Trainer trainer(nn::PolicyValueNet(s.shape), OptimizerConfig{}, device, s.precision, layout);
    const double seconds = timePerCall(
        [&] { trainer.step(planes.data(), policy.data(), wdl.data(), batch, s.shape.auxiliaryHeads ? &aux : nullptr); },
                                       3 * a.seconds, device);
    const char* name = trainer.channelsLast() ? "channels_last" : "nchw";
    std::printf("batch %d, %s, %s: trainer %.0f samples/s (%.1f ms/step)\n", batch, nn::precisionName(s.precision), name,
                batch / seconds, 1e3 * seconds);
    return std::make_pair(seconds, std::string(name));
  };
  if (a.layout == "both") {
    const double nchw = trainerStep(MemoryLayout::kNchw).first;
    const double channelsLast = trainerStep(MemoryLayout::kChannelsLast).first;
    const bool autoPicks = trainsChannelsLast(MemoryLayout::kAuto, device.is_cpu(), s.shape.policyPlanes > 0);
    std::ofstream(a.csv, std::ios::app) << "train-layouts," << s.variant->name << ',' << batch << ',' << batch / nchw << ','
                                        << batch / channelsLast << ',' << s.config.device << '-'
                                        << nn::precisionName(s.precision) << '\n';
    std::printf("channels_last = %.2fx nchw's samples/s (auto picks %s here)\n", nchw / channelsLast,
                autoPicks ? "channels_last" : "nchw");
    return;
  }
  const auto [stepTime, layoutName] =
      trainerStep(a.layout.empty() ? s.config.memoryLayout : parseMemoryLayout(a.layout));

  // The bare loop: forward and backward of the same losses on tensors already in place (NCHW).
  nn::PolicyValueNet net(s.shape);
  net->to(device);
  net->train();
  auto x = torch::from_blob(planes.data(), {batch, s.shape.planes, s.shape.height, s.shape.width}).to(device);
  auto pt = torch::from_blob(policy.data(), {batch, s.shape.policySize}).to(device);
  auto vt = torch::from_blob(wdl.data(), {batch, values}).to(device);
  const double bareTime = timePerCall(
      [&] {
        net->zero_grad();
        torch::Tensor loss;
        {
          nn::Autocast autocast(s.precision == nn::Precision::kBfloat16, device.type());
          auto [logits, value] = net->forward(x);
          loss = -(pt * torch::log_softmax(logits.to(torch::kFloat32), 1)).sum(1).mean() -
                 (vt * torch::log_softmax(value.to(torch::kFloat32), 1)).sum(1).mean();
        }
        loss.backward();
      },
      3 * a.seconds, device);
  std::printf("batch %d, %s: bare forward+backward (nchw%s) %.0f samples/s (%.1f ms)\n", batch,
              nn::precisionName(s.precision), s.shape.auxiliaryHeads ? ", policy and value heads only" : "",
              batch / bareTime, 1e3 * bareTime);
  std::ofstream(a.csv, std::ios::app) << "train," << s.variant->name << ',' << batch << ',' << batch / stepTime << ','
                                      << batch / bareTime << ',' << s.config.device << '-'
                                      << nn::precisionName(s.precision) << ',' << layoutName << '\n';
  std::printf("trainer rate = %.0f%% of the bare forward+backward loop\n", 100 * bareTime / stepTime);
}



}  // namespace poppy::training
