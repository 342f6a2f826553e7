// Mixed precision and the GPU: what runs everywhere (bf16 on the CPU: inference near float32's,
// training that learns; a config's precision read and checked) and, on a CUDA build with a GPU, the `device: cuda` cases: the GPU evaluator against the CPU,
// bf16 training, models written on the GPU loading on the CPU, and out-of-memory reports. On a
// machine without a GPU those cases are skipped and say so (scripts/setup-cuda.sh test runs them).
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "game/position.h"
#include "game/variant_loader.h"
#include "nn/encoder.h"
#include "nn/load_evaluator.h"
#include "nn/model_file.h"
#include "nn/network.h"
#include "nn/torch_evaluator.h"
#include "support/micro_net.h"
#include "support/scratch_files.h"
#include "training/checkpoint.h"
#include "training/train_config.h"
#include "training/trainer.h"

using namespace poppy;
namespace fs = std::filesystem;

namespace {

const std::string kScratch = "poppy_test_nn_cuda_";
[[maybe_unused]] ::testing::Environment* const kScratchCleanup = poppy::testing::removeScratchRootAtExit(kScratch);

#define SKIP_WITHOUT_GPU()                                                                                    \
  if (!torch::cuda::is_available())                                                                          \
  GTEST_SKIP() << "no GPU visible to this LibTorch: this case runs on a CUDA build with a GPU "               \
                  "(scripts/setup-cuda.sh test)"

// The GPU cases' setting: 2 blocks x 16 channels, value head 16 wide.
struct Micro : poppy::testing::MicroNet {
  explicit Micro(int blocks = 2, int channels = 16) : MicroNet(blocks, channels, 16) {}
};

// BN statistics from 32 positions.
nn::PolicyValueNet trainedLookingNet(const Micro& m, uint64_t seed) { return poppy::testing::trainedLookingNet(m, seed, 32); }

struct Outputs {
  std::vector<float> logits, wdl;
};

Outputs evaluate(mcts::Evaluator& ev, const Micro& m, const std::vector<float>& planes, int batch) {
  Outputs o{std::vector<float>(size_t(batch) * m.encoder.policySize(), NAN), std::vector<float>(size_t(batch) * 3, NAN)};
  ev.evaluate(planes.data(), batch, o.logits.data(), o.wdl.data());
  return o;
}

// ||got - want|| / ||want||; NaN anywhere gives infinity.
double relativeError(const std::vector<float>& got, const std::vector<float>& want) {
  double diff = 0, norm = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    if (!std::isfinite(got[i])) return INFINITY;
    diff += (double(got[i]) - want[i]) * (double(got[i]) - want[i]);
    norm += double(want[i]) * want[i];
  }
  return std::sqrt(diff / norm);
}

// Training autocast to bf16 on `device` learns a fixed batch: 60 steps take the loss below 0.7x
// the first step's, and the weights stay float32.
void expectBf16TrainingLearns(const Micro& m, const torch::Device& device, int batch) {
  torch::manual_seed(5);
  training::Trainer trainer(nn::PolicyValueNet(m.shape), training::OptimizerConfig{}, device, nn::Precision::kBfloat16);
  const auto planes = m.batch(batch, 9);
  std::vector<float> policy, wdl;
  m.targets(batch, 9, policy, wdl);
  const training::Losses first = trainer.step(planes.data(), policy.data(), wdl.data(), batch);
  training::Losses last = first;
  for (int i = 0; i < 60; ++i) last = trainer.step(planes.data(), policy.data(), wdl.data(), batch);
  ASSERT_TRUE(std::isfinite(last.total));
  EXPECT_LT(last.total, 0.7 * first.total) << "first " << first.total << ", after 60 steps " << last.total;
  for (const auto& p : trainer.net()->parameters()) EXPECT_EQ(p.scalar_type(), torch::kFloat32);
}

TEST(Precision, NamesParseAndUnknownOnesAreRefused) {
  EXPECT_EQ(nn::parsePrecision("fp32"), nn::Precision::kFloat32);
  EXPECT_EQ(nn::parsePrecision("bf16"), nn::Precision::kBfloat16);
  for (const std::string bad : {"fp16", "BF16", "", "float32"}) {
    try {
      nn::parsePrecision(bad);
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("'" + bad + "'"), std::string::npos) << e.what();
    }
  }
}

// bf16 on the CPU (oneDNN's bfloat16 kernels: AMX or AVX-512 BF16 where the CPU has them,
// emulated elsewhere): the LibTorch evaluator's copy computes float32's function within
// bfloat16's 8-bit mantissa, and training autocast to bfloat16 learns a fixed batch with float32
// weights, as on a GPU (Cuda.Bf16TrainingLowersTheLossAndKeepsFloat32Weights).
TEST(Precision, Bf16RunsOnTheCpu) {
  const Micro m;
  nn::PolicyValueNet net = trainedLookingNet(m, 3);
  const int batch = 64;
  const auto planes = m.batch(batch, 77);
  nn::TorchEvaluator fp32(net, torch::kCPU);
  const Outputs want = evaluate(fp32, m, planes, batch);
  nn::TorchEvaluator bf16(net, torch::kCPU, nn::Precision::kBfloat16);
  const Outputs got = evaluate(bf16, m, planes, batch);
  EXPECT_LT(relativeError(got.logits, want.logits), 5e-2);
  EXPECT_LT(relativeError(got.wdl, want.wdl), 5e-2);
  EXPECT_GT(relativeError(got.logits, want.logits), 0) << "bf16 gave float32's exact numbers: was it used?";
  for (const auto& p : net->parameters()) EXPECT_EQ(p.scalar_type(), torch::kFloat32) << "the caller's net was converted";

  expectBf16TrainingLearns(m, torch::kCPU, 128);
}

// The CPU check behind the bf16 warning (nn/cpu_bfloat16.cpp: CPUID and XCR0) against the Linux
// kernel's own reading of the same features, /proc/cpuinfo's flags avx512_bf16 and amx_bf16 (the
// kernel lists a feature only where the CPU has it and the kernel saves its registers).
TEST(Precision, NativeBfloat16AgreesWithTheKernelsCpuFlags) {
#if defined(__x86_64__) && defined(__linux__)
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line, flags;
  while (std::getline(cpuinfo, line))
    if (line.rfind("flags", 0) == 0) {
      flags = line.substr(line.find(':') + 1) + " ";
      break;
    }
  ASSERT_FALSE(flags.empty()) << "/proc/cpuinfo has no flags line";
  const bool listed = flags.find(" avx512_bf16 ") != std::string::npos || flags.find(" amx_bf16 ") != std::string::npos;
  EXPECT_EQ(nn::cpuHasNativeBfloat16(), listed) << "/proc/cpuinfo flags:" << flags;
#else
  GTEST_SKIP() << "the reference is Linux's /proc/cpuinfo on x86-64";
#endif
}

// precision bf16 with device cpu is warned about exactly where the CPU would emulate bfloat16,
// and the warning says what to do; fp32, or bf16 on a GPU, has nothing to say.
TEST(Precision, Bf16IsWarnedAboutWhereTheCpuEmulatesIt) {
  EXPECT_EQ(nn::bfloat16Warning(nn::Precision::kFloat32, true), "");
  EXPECT_EQ(nn::bfloat16Warning(nn::Precision::kBfloat16, false), "");
  const std::string warning = nn::bfloat16Warning(nn::Precision::kBfloat16, true);
  EXPECT_EQ(warning.empty(), nn::cpuHasNativeBfloat16()) << warning;
  if (!warning.empty()) {
    EXPECT_NE(warning.find("set precision: fp32"), std::string::npos) << warning;
  }
}

TEST(Precision, RunConfigReadsThePrecision) {
  const fs::path dir = poppy::testing::freshTempDir(kScratch, "config");
  const fs::path path = dir / "run.yaml";
  std::ofstream(path) << "variant: micro\ndevice: cpu\nprecision: bf16\n";
  EXPECT_EQ(training::loadTrainConfig(path.string()).precision, nn::Precision::kBfloat16);
  std::ofstream(path) << "variant: micro\ndevice: cpu\nprecision: fp16\n";
  try {
    training::loadTrainConfig(path.string());
    FAIL() << "precision fp16 accepted";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("fp16"), std::string::npos) << e.what();
  }
  std::ofstream(path) << "variant: micro\ndevice: cpu\n";
  EXPECT_EQ(training::loadTrainConfig(path.string()).precision, nn::Precision::kFloat32) << "fp32 is the default";
}

// The GPU evaluator computes the CPU's function: float32 within TF32 rounding (LibTorch lets
// cuDNN convolutions use TF32 by default), bf16 within bfloat16's 8-bit mantissa.
TEST(Cuda, GpuEvaluatorAgreesWithTheCpu) {
  SKIP_WITHOUT_GPU();
  const Micro m;
  nn::PolicyValueNet net = trainedLookingNet(m, 3);
  const int batch = 200;
  const auto planes = m.batch(batch, 77);
  nn::TorchEvaluator cpu(net, torch::kCPU);
  const Outputs want = evaluate(cpu, m, planes, batch);
  nn::TorchEvaluator bf16(net, torch::Device("cuda"), nn::Precision::kBfloat16);
  const Outputs got16 = evaluate(bf16, m, planes, batch);
  EXPECT_LT(relativeError(got16.logits, want.logits), 5e-2);
  EXPECT_LT(relativeError(got16.wdl, want.wdl), 5e-2);
  EXPECT_GT(relativeError(got16.logits, want.logits), 0) << "bf16 gave float32's exact numbers: was it used?";
  // The bf16 evaluator runs a copy: the caller's network is still float32 on the CPU. (A float32
  // evaluator runs the caller's module itself, moved to its device.)
  for (const auto& p : net->parameters()) {
    EXPECT_EQ(p.scalar_type(), torch::kFloat32);
    EXPECT_TRUE(p.device().is_cpu());
  }
  nn::TorchEvaluator fp32(net, torch::Device("cuda"));
  const Outputs got32 = evaluate(fp32, m, planes, batch);
  EXPECT_LT(relativeError(got32.logits, want.logits), 5e-3);
  EXPECT_LT(relativeError(got32.wdl, want.wdl), 5e-3);
  // Several threads at once on one GPU evaluator (self-play workers share none, gate games may).
  std::vector<std::thread> threads;
  std::vector<double> errors(4, INFINITY);
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] { errors[size_t(t)] = relativeError(evaluate(fp32, m, planes, batch).logits, want.logits); });
  for (auto& t : threads) t.join();
  for (double e : errors) EXPECT_LT(e, 5e-3);
}

// Training in bf16 (autocast) learns: the loss on a fixed batch falls, and the weights stay float32.
TEST(Cuda, Bf16TrainingLowersTheLossAndKeepsFloat32Weights) {
  SKIP_WITHOUT_GPU();
  expectBf16TrainingLearns(Micro(), torch::Device("cuda"), 256);
}

// A model and a checkpoint written by a GPU run (bf16 too) load on the CPU and give the GPU's
// outputs; the checkpoint loads back onto the GPU as well.
TEST(Cuda, ModelsAndCheckpointsWrittenOnTheGpuLoadOnTheCpu) {
  SKIP_WITHOUT_GPU();
  const Micro m;
  const fs::path dir = poppy::testing::freshTempDir(kScratch, "gpu_files");
  torch::manual_seed(6);
  training::Trainer trainer(nn::PolicyValueNet(m.shape), training::OptimizerConfig{}, torch::Device("cuda"),
                            nn::Precision::kBfloat16);
  const int batch = 64;
  const auto planes = m.batch(batch, 10);
  std::vector<float> policy, wdl;
  m.targets(batch, 10, policy, wdl);
  for (int i = 0; i < 5; ++i) trainer.step(planes.data(), policy.data(), wdl.data(), batch);
  nn::ModelInfo info;
  info.variant = m.variant->name;
  info.encoderVersion = nn::Encoder::kVersion;
  info.shape = m.shape;
  info.id = "gen-0001";
  info.step = trainer.steps();
  const std::string model = (dir / "gpu.model").string(), ckpt = (dir / "gpu.ckpt").string();
  nn::saveModel(model, trainer.net(), info);
  training::saveCheckpoint(ckpt, trainer, info);
  EXPECT_TRUE(trainer.net()->parameters()[0].device().is_cuda()) << "saving moved the trainer's network";

  nn::TorchEvaluator onGpu(trainer.net(), torch::Device("cuda"));
  const Outputs want = evaluate(onGpu, m, planes, batch);
  auto onCpu = nn::loadEvaluator(model, m.variant.get(), "cpu", nn::Inference::kTorch);
  EXPECT_LT(relativeError(evaluate(*onCpu, m, planes, batch).logits, want.logits), 5e-3);

  training::Trainer cpuTrainer(nn::PolicyValueNet(m.shape), training::OptimizerConfig{}, torch::kCPU);
  EXPECT_EQ(training::loadCheckpoint(ckpt, cpuTrainer, m.variant.get(), nn::Encoder::kVersion).step, 5);
  nn::TorchEvaluator fromCheckpoint(cpuTrainer.net(), torch::kCPU);
  EXPECT_LT(relativeError(evaluate(fromCheckpoint, m, planes, batch).logits, want.logits), 5e-3);
  // A step on the CPU from the GPU's optimizer state runs.
  EXPECT_TRUE(std::isfinite(cpuTrainer.step(planes.data(), policy.data(), wdl.data(), batch).total));

  training::Trainer gpuAgain(nn::PolicyValueNet(m.shape), training::OptimizerConfig{}, torch::Device("cuda"),
                             nn::Precision::kBfloat16);
  training::loadCheckpoint(ckpt, gpuAgain, m.variant.get(), nn::Encoder::kVersion);
  EXPECT_TRUE(std::isfinite(gpuAgain.step(planes.data(), policy.data(), wdl.data(), batch).total));
}

// A batch too large for the GPU is an error naming the batch and the setting to lower, and the
// GPU is usable afterwards. The wide network (4,096 channels on micro's 20 squares) needs ~86 GB
// per activation at this batch: more than any current GPU holds for a forward pass.
TEST(Cuda, OutOfMemoryNamesTheBatchAndTheSettingToLower) {
  SKIP_WITHOUT_GPU();
  const Micro wide(1, 4096);
  const int batch = 262144;
  std::vector<float> planes(size_t(batch) * wide.encoder.inputSize(), 1.0f);
  {
    nn::TorchEvaluator ev(nn::PolicyValueNet(wide.shape), torch::Device("cuda"));
    std::vector<float> logits(size_t(batch) * wide.encoder.policySize()), wdl(size_t(batch) * 3);
    try {
      ev.evaluate(planes.data(), batch, logits.data(), wdl.data());
      ADD_FAILURE() << "a batch of " << batch << " positions of a 4096-channel network fitted on this GPU";
    } catch (const std::runtime_error& e) {
      const std::string msg = e.what();
      EXPECT_NE(msg.find("out of GPU memory"), std::string::npos) << msg;
      EXPECT_NE(msg.find(std::to_string(batch)), std::string::npos) << msg;
      EXPECT_NE(msg.find("parallel_games"), std::string::npos) << msg;
    }
  }
  {
    training::Trainer trainer(nn::PolicyValueNet(wide.shape), training::OptimizerConfig{}, torch::Device("cuda"));
    std::vector<float> policy, wdl;
    wide.targets(batch, 1, policy, wdl);
    try {
      trainer.step(planes.data(), policy.data(), wdl.data(), batch);
      ADD_FAILURE() << "a training batch of " << batch << " fitted on this GPU";
    } catch (const std::runtime_error& e) {
      const std::string msg = e.what();
      EXPECT_NE(msg.find(std::to_string(batch)), std::string::npos) << msg;
      EXPECT_NE(msg.find("batch_size"), std::string::npos) << msg;
    }
  }
  // The GPU still works.
  const Micro m;
  nn::TorchEvaluator ev(nn::PolicyValueNet(m.shape), torch::Device("cuda"));
  const auto small = m.batch(8, 1);
  for (float w : evaluate(ev, m, small, 8).wdl) EXPECT_TRUE(std::isfinite(w));
}

}  // namespace
