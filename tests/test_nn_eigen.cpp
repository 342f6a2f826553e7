// The Eigen forward (nn/eigen_*.h) against LibTorch, which is the reference: the same policy
// logits and win/draw/loss within 1e-4 on random positions of every variant, for random networks
// whose batch norms have non-trivial statistics (so folding them is really tested) and for the
// shipped micro model, with every instruction set this CPU runs and batch sizes that take each
// path of the forward (1: matrix-vector; 2..16: the panels; more: Eigen's matrix product).
// Also: the `inference` setting (auto/torch/eigen, parsing, the fallback and the error for a
// network the Eigen forward cannot run), and the split of calls under auto.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "game/variant_loader.h"
#include "nn/eigen_evaluator.h"
#include "nn/eigen_from_torch.h"
#include "nn/encoder.h"
#include "nn/inference.h"
#include "nn/load_evaluator.h"
#include "nn/model_file.h"
#include "nn/split_evaluator.h"
#include "nn/torch_evaluator.h"
#include "support/random_positions.h"

using namespace poppy;

namespace {

const std::string kShippedModel = std::string(POPPY_SOURCE_DIR) + "/models/micro/micro-v3.model";
constexpr float kTolerance = 1e-4f;


// A random network in eval mode whose every batch norm has random running statistics, scale and
// shift (LibTorch's defaults, mean 0 and variance 1, would make folding almost a no-op).
nn::PolicyValueNet randomNet(const nn::NetworkShape& shape, uint64_t seed) {
  torch::manual_seed(seed);
  nn::PolicyValueNet net(shape);
  torch::NoGradGuard noGrad;
  for (const auto& m : net->modules(/*include_self=*/false))
    if (auto* bn = m->as<torch::nn::BatchNorm2dImpl>()) {
      bn->running_mean.uniform_(-0.5, 0.5);
      bn->running_var.uniform_(0.3, 2.0);
      bn->weight.uniform_(0.5, 1.5);
      bn->bias.uniform_(-0.5, 0.5);
    }
  net->eval();
  return net;
}

// A variant with its encoder.
struct Game {
  game::VariantPtr variant;
  nn::Encoder encoder;
  explicit Game(const std::string& name) : variant(game::loadVariant(name)), encoder(variant) {}
  // Encoded random positions, count x inputSize.
  std::vector<float> positions(int count, uint32_t seed) const {
    const auto sfens = poppy::testing::randomPositions(variant, count, 60, seed);
    std::vector<float> out(size_t(count) * size_t(encoder.inputSize()));
    for (int i = 0; i < count; ++i)
      encoder.encode(game::Position::fromSfen(variant, sfens[size_t(i)]), out.data() + size_t(i) * encoder.inputSize());
    return out;
  }
};

struct Outputs {
  std::vector<float> logits, wdl;
};

// valueSize: the value head's outputs (3; 5 for yonin's four players).
Outputs run(mcts::Evaluator& ev, const std::vector<float>& planes, int batch, int policySize, int valueSize) {
  Outputs o{std::vector<float>(size_t(batch) * policySize, NAN), std::vector<float>(size_t(batch) * valueSize, NAN)};
  ev.evaluate(planes.data(), batch, o.logits.data(), o.wdl.data());
  return o;
}

// Every value of `got` within kTolerance of LibTorch's `want`; the first difference is named.
void expectSame(const Outputs& want, const Outputs& got, const std::string& what) {
  for (const auto& [w, g, name] : {std::tuple{&want.logits, &got.logits, "policy logit"},
                                   std::tuple{&want.wdl, &got.wdl, "wdl probability"}}) {
    ASSERT_EQ(w->size(), g->size());
    for (size_t i = 0; i < w->size(); ++i)
      ASSERT_NEAR((*g)[i], (*w)[i], kTolerance) << what << ": " << name << " " << i;
  }
}

// LibTorch's outputs differ from position to position: a comparison of constant outputs would
// prove little.
void expectVaried(const Outputs& o, int batch, int policySize) {
  float spread = 0;
  for (int i = 1; i < batch; ++i)
    for (int k = 0; k < policySize; ++k)
      spread = std::max(spread, std::fabs(o.logits[size_t(i) * policySize + k] - o.logits[size_t(k)]));
  if (batch > 1) {
    EXPECT_GT(spread, 1e-2f) << "every position gets the same logits";
  }
}

// Batch sizes taking every path of the forward, largest first then smaller, so the evaluator's
// scratch memory is reused at other sizes too.
const std::vector<int> kBatches = {17, 1, 3, 4, 6, 40};

// Every Eigen kernel this CPU runs gives LibTorch's outputs for `net` on `planes` (at least
// the largest of kBatches positions), at every batch size of kBatches.
void expectEigenMatchesTorch(nn::PolicyValueNet net, const std::vector<float>& planes, int policySize,
                             const std::string& label) {
  nn::TorchEvaluator reference(net, torch::kCPU);
  const int values = net->shape().valueOutputs;
  for (const std::string& kernel : nn::eigenKernelsSupported()) {
    nn::EigenEvaluator eigen(nn::eigenNetworkOf(*net), kernel);
    for (int batch : kBatches) {
      const Outputs want = run(reference, planes, batch, policySize, values);
      expectVaried(want, batch, policySize);
      expectSame(want, run(eigen, planes, batch, policySize, values),
                 label + ", kernel " + kernel + ", batch " + std::to_string(batch));
    }
  }
}

void compareOnVariant(const std::string& variant, int blocks, int channels, int valueHidden, uint64_t seed) {
  SCOPED_TRACE(variant + ", " + std::to_string(blocks) + " blocks x " + std::to_string(channels) + " channels");
  const Game g(variant);
  const nn::Encoder& encoder = g.encoder;
  nn::PolicyValueNet net = randomNet(nn::networkShapeFor(encoder, blocks, channels, valueHidden), seed);
  const int most = *std::max_element(kBatches.begin(), kBatches.end());
  expectEigenMatchesTorch(net, g.positions(most, uint32_t(seed)), encoder.policySize(), variant);
}

// A seed, from `first` on, whose random network's policy logits differ from position to position
// by well over expectVaried's bar (a random policy head with two ReLU planes is often dead), so
// that which seed a variant gets depends on nothing but its name, and no CPU's rounding can
// tip it under the bar.
uint64_t liveSeed(const std::string& variant, int blocks, int channels, int valueHidden, uint64_t first) {
  const Game g(variant);
  const int batch = *std::max_element(kBatches.begin(), kBatches.end());
  const int policySize = g.encoder.policySize();
  for (uint64_t seed = first; seed < first + 50; ++seed) {
    nn::PolicyValueNet net = randomNet(nn::networkShapeFor(g.encoder, blocks, channels, valueHidden), seed);
    nn::TorchEvaluator reference(net, torch::kCPU);
    const Outputs o = run(reference, g.positions(batch, uint32_t(seed)), batch, policySize, net->shape().valueOutputs);
    float spread = 0;
    for (int i = 1; i < batch; ++i)
      for (int k = 0; k < policySize; ++k)
        spread = std::max(spread, std::fabs(o.logits[size_t(i) * policySize + k] - o.logits[size_t(k)]));
    if (spread > 0.1f) return seed;
  }
  ADD_FAILURE() << variant << ": no live random network in 50 seeds from " << first;
  return first;
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// The forward against LibTorch

TEST(EigenForward, MatchesLibTorchOnEveryVariant) {
  torch::set_num_threads(1);
  const auto variants = game::knownVariants();
  ASSERT_GE(variants.size(), 7u);
  // Each variant's seed comes from its name (FNV-1a, then the first live network: liveSeed), so
  // that a variant added later shifts no other's: a random network with a dead policy head (the
  // same logits everywhere) would prove nothing. Yonin's value head has five outputs (four
  // players and the draw).
  for (const std::string& v : variants) {
    uint64_t seed = 1469598103934665603ull;
    for (const char c : v) seed = (seed ^ uint8_t(c)) * 1099511628211ull;
    compareOnVariant(v, 2, 16, 16, liveSeed(v, 2, 16, 16, seed % 100000));
  }
}

TEST(EigenForward, MatchesLibTorchForOtherSizes) {
  torch::set_num_threads(1);
  compareOnVariant("micro", 0, 8, 8, 21);    // no residual block: input convolution to the heads
  compareOnVariant("micro", 4, 32, 32, 22);  // the default network
  compareOnVariant("minishogi", 1, 5, 3, 23);  // widths that fill no vector register
}

// A network with auxiliary heads (training's only, nn/network.h) runs in Eigen as the network
// without them: their weights are set aside, and the policy and value are LibTorch's. The heads
// are registered after the others, so a seed's live network stays live with them.
TEST(EigenForward, AuxiliaryHeadsAreLeftOut) {
  torch::set_num_threads(1);
  for (const std::string variant : {"micro", "chu"}) {  // a dense policy head, a spatial one
    SCOPED_TRACE(variant);
    const Game g(variant);
    const uint64_t seed = liveSeed(variant, 1, 8, 8, 40);
    nn::NetworkShape shape = nn::networkShapeFor(g.encoder, 1, 8, 8, /*auxiliaryHeads=*/true);
    nn::PolicyValueNet net = randomNet(shape, seed);
    ASSERT_GT(net->named_parameters().size(), randomNet(nn::networkShapeFor(g.encoder, 1, 8, 8), seed)->named_parameters().size());
    const int most = *std::max_element(kBatches.begin(), kBatches.end());
    expectEigenMatchesTorch(net, g.positions(most, uint32_t(seed)), g.encoder.policySize(), variant + " with auxiliary heads");
  }
}

TEST(EigenForward, MatchesLibTorchOnTheShippedModel) {
  torch::set_num_threads(1);
  nn::ModelInfo info;
  nn::PolicyValueNet net = nn::loadModel(kShippedModel, &info, nullptr, nn::Encoder::kVersion);
  const Game g(info.variant);
  expectEigenMatchesTorch(net, g.positions(40, 5), g.encoder.policySize(), "micro-v3");
}

TEST(EigenForward, KernelsAreChosenByTheCpu) {
  const auto built = nn::eigenKernelsBuilt(), supported = nn::eigenKernelsSupported();
  ASSERT_FALSE(supported.empty());
  EXPECT_EQ(supported.front(), "baseline");  // runs on every machine
  EXPECT_EQ(nn::bestEigenKernel(), supported.back());
  for (const auto& k : supported) EXPECT_NE(std::find(built.begin(), built.end(), k), built.end()) << k;
  const nn::Encoder encoder(game::loadVariant("micro"));
  nn::PolicyValueNet net = randomNet(nn::networkShapeFor(encoder, 1, 8, 8), 3);
  EXPECT_EQ(nn::EigenEvaluator(nn::eigenNetworkOf(*net)).kernel(), nn::bestEigenKernel());
  EXPECT_THROW(nn::EigenEvaluator(nn::eigenNetworkOf(*net), "sse9"), std::invalid_argument);
}

// auto's crossover: in positions, from the network's arithmetic per position (and the kernel).
TEST(EigenForward, AutoCrossoverShrinksAsTheNetworkGrows) {
  const nn::Encoder micro(game::loadVariant("micro")), shogi(game::loadVariant("shogi"));
  for (const std::string& k : nn::eigenKernelsBuilt()) {
    const int small = nn::autoEigenMaxBatch(k, nn::networkShapeFor(micro, 4, 32, 32));
    const int large = nn::autoEigenMaxBatch(k, nn::networkShapeFor(shogi, 6, 96, 32));
    const int huge = nn::autoEigenMaxBatch(k, nn::networkShapeFor(shogi, 10, 256, 32));
    EXPECT_GE(small, 2) << k << ": the default micro network takes Eigen for pairs at least";
    EXPECT_LE(large, small) << k;
    EXPECT_EQ(huge, 0) << k << ": 1.9 GFLOP per position is beyond every budget";
  }
  EXPECT_THROW(nn::autoEigenMaxBatch("sse9", nn::networkShapeFor(micro, 4, 32, 32)), std::invalid_argument);
}

// ---------------------------------------------------------------------------------------------
// Folding, checked by hand on one channel (independently of the LibTorch comparisons above)

TEST(EigenFolding, BatchNormBecomesAScaleAndABias) {
  nn::ConvBnWeights w;
  w.in = 2;
  w.out = 1;
  w.kernel = 1;
  w.weight = {2.0f, -1.0f};  // [out][in][1][1]
  w.gamma = {3.0f};
  w.beta = {0.5f};
  w.mean = {0.25f};
  w.var = {4.0f - 1e-5f};  // sqrt(var + eps) = 2: scale 1.5
  const nn::FoldedConv f = nn::foldConvBn(w, "test");
  ASSERT_EQ(f.weight.size(), 2u);
  EXPECT_NEAR(f.weight[0], 3.0f, 1e-6);
  EXPECT_NEAR(f.weight[1], -1.5f, 1e-6);
  EXPECT_NEAR(f.bias[0], 0.5f - 0.25f * 1.5f, 1e-6);
}

TEST(EigenFolding, ThreeByThreeWeightsAreReorderedTapMajor) {
  // LibTorch: weight[o][c][ky][kx]. The forward: column (ky*3 + kx)*in + c.
  nn::ConvBnWeights w;
  w.in = 2;
  w.out = 2;
  w.kernel = 3;
  for (int i = 0; i < 36; ++i) w.weight.push_back(float(i));
  w.gamma = {1.0f, 1.0f};
  w.var = {1.0f - 1e-5f, 1.0f - 1e-5f};  // scale 1 up to rounding
  w.beta = w.mean = {0.0f, 0.0f};
  const nn::FoldedConv f = nn::foldConvBn(w, "test");
  for (int o = 0; o < 2; ++o)
    for (int c = 0; c < 2; ++c)
      for (int t = 0; t < 9; ++t)
        EXPECT_NEAR(f.weight[size_t((t * 2 + c) * 2 + o)], float((o * 2 + c) * 9 + t), 1e-4) << o << c << t;
}

TEST(EigenFolding, InconsistentWeightsAreRefused) {
  const nn::Encoder encoder(game::loadVariant("micro"));
  nn::PolicyValueNet net = randomNet(nn::networkShapeFor(encoder, 1, 8, 8), 4);
  nn::TorchLayoutWeights w = nn::torchLayoutWeights(*net);
  w.tower.pop_back();
  EXPECT_THROW(nn::foldNetwork(w), nn::UnsupportedNetwork);
  w = nn::torchLayoutWeights(*net);
  w.policyFc.weight.pop_back();
  EXPECT_THROW(nn::foldNetwork(w), nn::UnsupportedNetwork);
  w = nn::torchLayoutWeights(*net);
  w.input.kernel = 5;
  EXPECT_THROW(nn::foldNetwork(w), nn::UnsupportedNetwork);
}

// ---------------------------------------------------------------------------------------------
// The inference setting

TEST(Inference, ParsesItsFourValuesAndNamesABadOne) {
  EXPECT_EQ(nn::parseInference("auto"), nn::Inference::kAuto);
  EXPECT_EQ(nn::parseInference("torch"), nn::Inference::kTorch);
  EXPECT_EQ(nn::parseInference("eigen"), nn::Inference::kEigen);
  EXPECT_EQ(nn::parseInference("int8"), nn::Inference::kInt8);
  for (const std::string bad : {"fast", "", "Eigen", "auto "}) {
    try {
      nn::parseInference(bad);
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("'" + bad + "'"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("auto, torch, eigen or int8"), std::string::npos) << e.what();
    }
  }
  for (auto i : {nn::Inference::kAuto, nn::Inference::kTorch, nn::Inference::kEigen, nn::Inference::kInt8})
    EXPECT_EQ(nn::parseInference(nn::inferenceName(i)), i);
}

TEST(Inference, EachSettingRunsTheNetworkItNames) {
  torch::set_num_threads(1);
  const Game g("micro");
  const nn::Encoder& encoder = g.encoder;
  nn::PolicyValueNet net = randomNet(nn::networkShapeFor(encoder, 1, 8, 8), 5);
  EXPECT_NE(dynamic_cast<nn::TorchEvaluator*>(nn::makeEvaluator(net, "cpu", nn::Inference::kTorch, "net").get()),
            nullptr);
  EXPECT_NE(dynamic_cast<nn::EigenEvaluator*>(nn::makeEvaluator(net, "cpu", nn::Inference::kEigen, "net").get()),
            nullptr);
  // int8: the fast int8 kernel where the CPU has one, else the float forward (with a note).
  const auto int8Eval = nn::makeEvaluator(net, "cpu", nn::Inference::kInt8, "net");
  auto* int8 = dynamic_cast<nn::EigenEvaluator*>(int8Eval.get());
  ASSERT_NE(int8, nullptr);
  EXPECT_EQ(int8->kernel(), nn::fastInt8Kernel().empty() ? nn::bestEigenKernel() : nn::fastInt8Kernel());
  EXPECT_THROW(nn::makeEvaluator(net, "cuda", nn::Inference::kInt8, "net"), std::runtime_error);
  const auto autoEval = nn::makeEvaluator(net, "cpu", nn::Inference::kAuto, "net");
  auto* split = dynamic_cast<nn::SplitEvaluator*>(autoEval.get());
  ASSERT_NE(split, nullptr);
  auto* eigen = dynamic_cast<nn::EigenEvaluator*>(&split->small());
  ASSERT_NE(eigen, nullptr);
  // auto's small calls: the int8 forward where the CPU has it (it wins at equal time), else float.
  EXPECT_EQ(eigen->kernel(), nn::autoEigenKernel());
  EXPECT_EQ(nn::autoEigenKernel(), nn::fastInt8Kernel().empty() ? nn::bestEigenKernel() : nn::fastInt8Kernel());
  EXPECT_NE(dynamic_cast<nn::TorchEvaluator*>(&split->large()), nullptr);
  EXPECT_EQ(split->maxSmallBatch(), nn::autoEigenMaxBatch(eigen->kernel(), net->shape()));

  // A network too large for Eigen to win a single position (570 MFLOP): auto is LibTorch alone.
  nn::PolicyValueNet huge = randomNet(nn::networkShapeFor(encoder, 12, 256, 8), 10);
  EXPECT_EQ(nn::autoEigenMaxBatch(nn::bestEigenKernel(), huge->shape()), 0);
  EXPECT_NE(dynamic_cast<nn::TorchEvaluator*>(nn::makeEvaluator(huge, "cpu", nn::Inference::kAuto, "huge").get()),
            nullptr);

  // Through a model file too: eigen gives LibTorch's numbers; so does auto for large calls, and
  // for small ones its Eigen kernel's (int8 ones agree with float only within a tolerance:
  // tests/test_nn_int8.cpp).
  nn::ModelInfo info;
  const auto torchModel = nn::loadEvaluator(kShippedModel, nullptr, "cpu", nn::Inference::kTorch, &info);
  EXPECT_EQ(info.variant, "micro");
  nn::PolicyValueNet shipped = nn::loadModel(kShippedModel, nullptr, nullptr, nn::Encoder::kVersion);
  const int large = nn::autoEigenMaxBatch(nn::autoEigenKernel(), shipped->shape()) + 1;  // auto's first LibTorch call
  const std::vector<float> planes = g.positions(std::max(40, large), 9);
  const auto eigenModel = nn::loadEvaluator(kShippedModel, g.variant.get(), "cpu", nn::Inference::kEigen);
  const auto autoModel = nn::loadEvaluator(kShippedModel, g.variant.get(), "cpu", nn::Inference::kAuto);
  nn::EigenEvaluator autoKernel(nn::eigenNetworkOf(*shipped), nn::autoEigenKernel());
  for (int batch : {1, 40})
    expectSame(run(*torchModel, planes, batch, encoder.policySize(), 3),
               run(*eigenModel, planes, batch, encoder.policySize(), 3), "eigen, batch " + std::to_string(batch));
  expectSame(run(autoKernel, planes, 1, encoder.policySize(), 3), run(*autoModel, planes, 1, encoder.policySize(), 3),
             "auto, batch 1");
  expectSame(run(*torchModel, planes, large, encoder.policySize(), 3),
             run(*autoModel, planes, large, encoder.policySize(), 3), "auto, batch " + std::to_string(large));
}

namespace {

// Answers with its own id in every logit, and remembers the batch sizes it was given.
class Tagged : public mcts::Evaluator {
 public:
  Tagged(float id, std::vector<int>* calls) : id_(id), calls_(calls) {}
  void evaluate(const float*, int batch, float* logits, float* wdl) override {
    calls_->push_back(batch);
    std::fill(logits, logits + batch, id_);
    std::fill(wdl, wdl + 3 * batch, id_);
  }

 private:
  float id_;
  std::vector<int>* calls_;
};

}  // namespace

TEST(Inference, AutoSendsSmallCallsToOneEvaluatorAndLargeOnesToTheOther) {
  std::vector<int> small, large;
  nn::SplitEvaluator split(std::make_unique<Tagged>(1.0f, &small), std::make_unique<Tagged>(2.0f, &large), 8);
  std::vector<float> planes(1), logits(20), wdl(60);
  for (int batch : {1, 8, 9, 20, 3}) split.evaluate(planes.data(), batch, logits.data(), wdl.data());
  EXPECT_EQ(small, (std::vector<int>{1, 8, 3}));
  EXPECT_EQ(large, (std::vector<int>{9, 20}));
}

// A network with a part the Eigen forward does not know: auto falls back to LibTorch with one
// line on stderr saying why; eigen asked for explicitly is an error naming the model and the part.
TEST(Inference, AnUnknownArchitectureFallsBackUnderAutoAndFailsUnderEigen) {
  torch::set_num_threads(1);
  const nn::Encoder encoder(game::loadVariant("micro"));
  nn::PolicyValueNet net = randomNet(nn::networkShapeFor(encoder, 1, 8, 8), 6);
  net->register_parameter("gate_scale", torch::ones({1}));  // a weight the forward would ignore
  try {
    nn::torchLayoutWeights(*net);
    ADD_FAILURE() << "a network with an unknown weight was taken";
  } catch (const nn::UnsupportedNetwork& e) {
    EXPECT_NE(std::string(e.what()).find("gate_scale"), std::string::npos) << e.what();
  }
  try {
    nn::makeEvaluator(net, "cpu", nn::Inference::kEigen, "model odd.model");
    ADD_FAILURE() << "inference eigen accepted a network it cannot run";
  } catch (const std::runtime_error& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("odd.model"), std::string::npos) << msg;
    EXPECT_NE(msg.find("eigen"), std::string::npos) << msg;
    EXPECT_NE(msg.find("gate_scale"), std::string::npos) << msg;
  }
  ::testing::internal::CaptureStderr();
  const auto ev = nn::makeEvaluator(net, "cpu", nn::Inference::kAuto, "model odd.model");
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(dynamic_cast<nn::TorchEvaluator*>(ev.get()), nullptr) << "auto should fall back to LibTorch alone";
  EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
  EXPECT_NE(err.find("odd.model"), std::string::npos) << err;
  EXPECT_NE(err.find("gate_scale"), std::string::npos) << err;
  EXPECT_NE(err.find("LibTorch"), std::string::npos) << err;

  // Other parts the forward does not run: a convolution with a bias, a missing module.
  nn::PolicyValueNet biased = randomNet(nn::networkShapeFor(encoder, 1, 8, 8), 7);
  biased->replace_module("policy_conv", torch::nn::Conv2d(torch::nn::Conv2dOptions(8, 2, 1).bias(true)));
  EXPECT_THROW(nn::torchLayoutWeights(*biased), nn::UnsupportedNetwork);
  nn::PolicyValueNet strided = randomNet(nn::networkShapeFor(encoder, 1, 8, 8), 8);
  strided->replace_module("input_conv", torch::nn::Conv2d(torch::nn::Conv2dOptions(encoder.planes(), 8, 3).padding(1).stride(2).bias(false)));
  EXPECT_THROW(nn::torchLayoutWeights(*strided), nn::UnsupportedNetwork);
}
