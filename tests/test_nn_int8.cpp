// The int8 forward (nn/int8_weights.h, nn/int8_conv_*.cpp, inference int8): its quantised
// weights against a hand derivation, each int8 kernel this CPU runs against the plain C++
// reference (the same bytes and sums, so the same outputs to the last bit), and the whole
// forward against float32 on the shipped models: the policy's favourite legal move and the value
// within the tolerances docs/commands/play.md ("Inference") states.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "game/variant_loader.h"
#include "nn/eigen_evaluator.h"
#include "nn/eigen_from_torch.h"
#include "nn/encoder.h"
#include "nn/int8_weights.h"
#include "nn/model_file.h"
#include "support/random_positions.h"
#include "support/scratch_files.h"

using namespace poppy;
namespace pt = poppy::testing;

namespace {

// ---------------------------------------------------------------------------------------------
// Weights

// A 3x3 convolution 4 -> 16 whose weights are all zero but those set.
nn::FoldedConv emptyConv() {
  nn::FoldedConv c;
  c.in = 4;
  c.out = 16;
  c.kernel = 3;
  c.weight.assign(size_t(9 * 4 * 16), 0.0f);
  c.bias.assign(16, 0.5f);
  return c;
}

// FoldedConv's layout: column-major [out x 9*in], column k*in + i.
void setWeight(nn::FoldedConv& c, int o, int k, int i, float w) { c.weight[size_t(k * c.in + i) * c.out + o] = w; }

TEST(Int8Weights, EachOutputChannelIsScaledByItsLargestWeight) {
  nn::FoldedConv c = emptyConv();
  // Channel 0: the largest magnitude is 1.0, so the scale is 1/127 and each level is w * 127
  // rounded to nearest, ties to even: -0.5 * 127 = -63.5 -> -64, 0.25 * 127 = 31.75 -> 32.
  setWeight(c, 0, 0, 0, 1.0f);
  setWeight(c, 0, 4, 3, -0.5f);
  setWeight(c, 0, 8, 1, 0.25f);
  // Channel 5: the largest is -2.0 (magnitude), scale 2/127; 0.01 * 127 / 2 = 0.635 -> 1.
  setWeight(c, 5, 2, 2, -2.0f);
  setWeight(c, 5, 7, 0, 0.01f);
  // Channel 15 (the last of its block): all zero, scale 0.
  const nn::Int8Conv q = nn::quantizeConv(c);
  ASSERT_EQ(q.weight.size(), size_t(9 * 4 * 16));
  EXPECT_FLOAT_EQ(q.scale[0], 1.0f / 127.0f);
  EXPECT_FLOAT_EQ(q.scale[5], 2.0f / 127.0f);
  EXPECT_EQ(q.scale[15], 0.0f);
  EXPECT_EQ(nn::int8Weight(q, 0, 0, 0), 127);
  EXPECT_EQ(nn::int8Weight(q, 0, 4, 3), -64);
  EXPECT_EQ(nn::int8Weight(q, 0, 8, 1), 32);
  EXPECT_EQ(nn::int8Weight(q, 5, 2, 2), -127);
  EXPECT_EQ(nn::int8Weight(q, 5, 7, 0), 1);
  EXPECT_EQ(q.bias, c.bias);
  int nonZero = 0;
  for (int8_t w : q.weight) nonZero += w != 0;
  EXPECT_EQ(nonZero, 5);
  // The layout itself: tap 4, channel 3 of row 0 is block (0, tap 4, group 0), row 0, byte 3.
  EXPECT_EQ(q.weight[size_t(4 * 64 + 3)], -64);
}

TEST(Int8Weights, ConvolutionsWithoutTheLayoutAreRefused) {
  nn::FoldedConv c = emptyConv();
  EXPECT_TRUE(nn::int8Convertible(c));
  c.in = 3;  // not a whole group of 4
  EXPECT_FALSE(nn::int8Convertible(c));
  EXPECT_THROW(nn::quantizeConv(c), std::invalid_argument);
  c = emptyConv();
  c.out = 8;  // not a whole block of 16
  EXPECT_FALSE(nn::int8Convertible(c));
  c = emptyConv();
  c.kernel = 1;
  EXPECT_FALSE(nn::int8Convertible(c));
}

// ---------------------------------------------------------------------------------------------
// The kernels against the reference

// The 3x3 neighbours of a height x width board, as nn/eigen_evaluator.cpp builds them.
std::vector<int> neighboursOf(int height, int width) {
  std::vector<int> n(size_t(height * width * 9), -1);
  for (int r = 0; r < height; ++r)
    for (int f = 0; f < width; ++f)
      for (int k = 0; k < 9; ++k) {
        const int rr = r + k / 3 - 1, ff = f + k % 3 - 1;
        if (rr >= 0 && rr < height && ff >= 0 && ff < width) n[size_t((r * width + f) * 9 + k)] = rr * width + ff;
      }
  return n;
}

// Every int8 convolution this CPU runs gives the reference's outputs bit for bit, on random
// inputs (never negative, a quarter exactly zero, as after a relu; one position all zero) of
// 32 -> 32 and 16 -> 48 channels on a 5x5 and a 9x9 board, for 1 to 7 positions.
TEST(Int8Forward, EveryKernelGivesTheReferenceOutputs) {
  const auto kernels = nn::int8KernelsSupported();
  ASSERT_FALSE(kernels.empty());
  EXPECT_EQ(kernels.front(), "baseline-int8");
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> unit(0.0f, 1.0f);
  for (const auto& [in, out, side] : {std::tuple{32, 32, 5}, std::tuple{16, 48, 9}}) {
    nn::FoldedConv conv;
    conv.in = in;
    conv.out = out;
    conv.kernel = 3;
    for (int i = 0; i < 9 * in * out; ++i) conv.weight.push_back(unit(rng) - 0.5f);
    for (int o = 0; o < out; ++o) conv.bias.push_back(unit(rng) - 0.5f);
    const nn::Int8Conv q = nn::quantizeConv(conv);
    const std::vector<int> neighbours = neighboursOf(side, side);
    nn::eigen_kernels::ConvView view{in, out, 3, conv.weight.data(), conv.bias.data()};
    view.int8Weight = reinterpret_cast<const signed char*>(q.weight.data());
    view.int8Scale = q.scale.data();
    nn::eigen_kernels::ForwardPlan plan{};
    plan.squares = side * side;
    plan.neighbours = neighbours.data();
    for (int batch = 1; batch <= 7; batch += 3) {
      const size_t columns = size_t(batch * plan.squares);
      std::vector<float> input(columns * in);
      for (float& x : input) x = unit(rng) < 0.25f ? 0.0f : 3 * unit(rng);
      if (batch > 1) std::fill(input.begin(), input.begin() + plan.squares * in, 0.0f);
      std::vector<unsigned char> bytes(columns * in);
      std::vector<float> scales(static_cast<size_t>(batch)), zeros(static_cast<size_t>(in), 0.0f);
      nn::eigen_kernels::ForwardScratch scratch{};
      scratch.quantized = bytes.data();
      scratch.positionScale = scales.data();
      scratch.zeros = zeros.data();
      std::vector<float> want(columns * out, NAN);
      nn::eigen_kernels::convolveInt8Reference(view, input.data(), plan, batch, scratch, want.data());
      const std::vector<unsigned char> wantBytes = bytes;
#ifdef POPPY_EIGEN_X86_KERNELS
      if (std::find(kernels.begin(), kernels.end(), "avx512-int8") != kernels.end()) {
        std::vector<float> got(columns * out, NAN);
        std::fill(bytes.begin(), bytes.end(), 0xee);
        nn::eigen_kernels::convolveInt8Vnni(view, input.data(), plan, batch, scratch, got.data());
        EXPECT_EQ(bytes, wantBytes) << in << " -> " << out << ", batch " << batch;
        for (size_t i = 0; i < want.size(); ++i)
          ASSERT_EQ(got[i], want[i]) << in << " -> " << out << ", batch " << batch << ", value " << i;
      }
#endif
      // A sanity check of the reference itself: within a level of the float convolution.
      float largest = 0;
      for (float x : input) largest = std::max(largest, x);
      for (int n = 0; n < int(columns); n += 7)
        for (int o = 0; o < out; o += 5) {
          const int square = n % plan.squares, first = n - square;
          double sum = conv.bias[size_t(o)];
          for (int k = 0; k < 9; ++k) {
            const int from = neighbours[size_t(square * 9 + k)];
            if (from < 0) continue;
            for (int i = 0; i < in; ++i)
              sum += double(conv.weight[size_t(k * in + i) * out + o]) * input[size_t(first + from) * in + i];
          }
          // Rounding each of 9*in products' two factors by at most half a level of each.
          const double bound = 9.0 * in * (0.5 * q.scale[size_t(o)] * largest + 0.5 * largest / 255 * 0.5);
          EXPECT_NEAR(want[size_t(n) * out + o], sum, bound);
        }
    }
  }
}

// ---------------------------------------------------------------------------------------------
// The whole forward against float32 on the shipped models

struct Agreement {
  int positions = 0, sameTopMove = 0;
  double largestValueGap = 0, meanValueGap = 0;
};

// Positions of random play (up to 80 plies) through the float32 Eigen forward and the int8 one:
// how often the favourite legal move is the same, and how far apart the values (win - loss) are.
Agreement compare(const std::string& model, int count) {
  nn::ModelInfo info;
  nn::PolicyValueNet net = nn::loadModel(std::string(POPPY_SOURCE_DIR) + "/models/" + model, &info, nullptr,
                                         nn::Encoder::kVersion);
  const game::VariantPtr variant = game::loadVariant(info.variant);
  const nn::Encoder encoder(variant);
  const std::string int8Kernel = nn::fastInt8Kernel().empty() ? "baseline-int8" : nn::fastInt8Kernel();
  nn::EigenEvaluator float32(nn::eigenNetworkOf(*net)), int8(nn::eigenNetworkOf(*net), int8Kernel);
  const auto sfens = poppy::testing::randomPositions(variant, count, 80, 11);
  const int policy = encoder.policySize(), values = encoder.valueSize();
  std::vector<float> planes(static_cast<size_t>(encoder.inputSize()));
  std::vector<float> logitsF(static_cast<size_t>(policy)), logitsQ(static_cast<size_t>(policy));
  std::vector<float> wdlF(static_cast<size_t>(values)), wdlQ(static_cast<size_t>(values));
  Agreement a;
  game::MoveList moves;
  for (const std::string& sfen : sfens) {
    const game::Position pos = game::Position::fromSfen(variant, sfen);
    pos.generateLegal(moves);
    if (moves.size() == 0) continue;
    encoder.encode(pos, planes.data());
    float32.evaluate(planes.data(), 1, logitsF.data(), wdlF.data());
    int8.evaluate(planes.data(), 1, logitsQ.data(), wdlQ.data());
    auto top = [&](const std::vector<float>& logits) {
      int best = 0;
      for (int i = 1; i < moves.size(); ++i)
        if (logits[size_t(encoder.moveIndex(pos, moves[i]))] > logits[size_t(encoder.moveIndex(pos, moves[best]))])
          best = i;
      return best;
    };
    ++a.positions;
    a.sameTopMove += top(logitsF) == top(logitsQ);
    const double gap = std::fabs((wdlF[0] - wdlF[2]) - (wdlQ[0] - wdlQ[2]));
    a.largestValueGap = std::max(a.largestValueGap, gap);
    a.meanValueGap += gap;
  }
  a.meanValueGap /= std::max(1, a.positions);
  std::printf("%s, %s against float32: %d positions, the same favourite move in %.1f%%, value gap mean %.4f, largest %.4f\n",
              model.c_str(), int8Kernel.c_str(), a.positions, 100.0 * a.sameTopMove / a.positions, a.meanValueGap,
              a.largestValueGap);
  return a;
}

TEST(Int8Forward, AgreesWithFloat32OnTheShippedMicroModel) {
  const Agreement a = compare("micro/micro-v5.model", 3000);
  ASSERT_GT(a.positions, 2000);  // the rest: random play reached a mate
  EXPECT_GE(a.sameTopMove, 0.95 * a.positions);
  EXPECT_LE(a.meanValueGap, 0.02);
  EXPECT_LE(a.largestValueGap, 0.2);
}

// Each position is quantised with its own scale: its answer is the same alone or among 16 others
// (up to the float heads' order of additions, which differs between batch sizes).
TEST(Int8Forward, APositionsAnswerDoesNotDependOnItsBatch) {
  nn::ModelInfo info;
  nn::PolicyValueNet net = nn::loadModel(std::string(POPPY_SOURCE_DIR) + "/models/micro/micro-v5.model", &info,
                                         nullptr, nn::Encoder::kVersion);
  const game::VariantPtr variant = game::loadVariant(info.variant);
  const nn::Encoder encoder(variant);
  for (const std::string& kernel : nn::int8KernelsSupported()) {
    nn::EigenEvaluator int8(nn::eigenNetworkOf(*net), kernel);
    const int batch = 17, policy = encoder.policySize(), in = encoder.inputSize();
    std::vector<float> planes(static_cast<size_t>(batch * in));
    const auto sfens = poppy::testing::randomPositions(variant, batch, 40, 3);
    for (int i = 0; i < batch; ++i)
      encoder.encode(game::Position::fromSfen(variant, sfens[size_t(i)]), planes.data() + size_t(i) * in);
    std::vector<float> logits(static_cast<size_t>(batch * policy)), wdl(static_cast<size_t>(batch * 3));
    int8.evaluate(planes.data(), batch, logits.data(), wdl.data());
    std::vector<float> oneLogits(static_cast<size_t>(policy)), oneWdl(3);
    for (int i = 0; i < batch; ++i) {
      int8.evaluate(planes.data() + size_t(i) * in, 1, oneLogits.data(), oneWdl.data());
      for (int k = 0; k < policy; ++k)
        ASSERT_NEAR(oneLogits[size_t(k)], logits[size_t(i * policy + k)], 1e-4) << kernel << ", position " << i;
      for (int k = 0; k < 3; ++k) ASSERT_NEAR(oneWdl[size_t(k)], wdl[size_t(i * 3 + k)], 1e-5) << kernel;
    }
  }
}

TEST(Int8Forward, AgreesWithFloat32OnTheOtherShippedModels) {
  for (const std::string model : {"chu/chu-1h.model", "whale/whale-1h.model", "yari/yari-1h.model"}) {
    const Agreement a = compare(model, 600);
    ASSERT_GT(a.positions, 300) << model;
    EXPECT_GE(a.sameTopMove, 0.95 * a.positions) << model;
    EXPECT_LE(a.meanValueGap, 0.02) << model;
    EXPECT_LE(a.largestValueGap, 0.2) << model;
  }
}

#ifdef POPPY_BINARY  // the poppy command is built with LibTorch only
const char* kPrefix = "poppy_nn_int8_test_";
::testing::Environment* const kCleanup = pt::removeScratchRootAtExit(kPrefix);

// On a CPU without VNNI, inference int8 falls back to the float forward and says so once a
// process, not once a model: a training run loads its self-play model every iteration. A match of
// two models loads two (both players' evaluators); on a CPU with VNNI the line never comes.
TEST(Int8Forward, TheFallbackToFloatIsSaidOnceAProcess) {
  const std::filesystem::path dir = pt::freshTempDir(kPrefix, "int8-fallback");
  const std::string models = std::string(POPPY_SOURCE_DIR) + "/models/micro/";
  const std::string cmd = "cd " + pt::shellQuote(dir.string()) + " && timeout -k 5 120 " +
                          pt::shellQuote(POPPY_BINARY) + " match --variant micro --a model:" +
                          pt::shellQuote(models + "micro-v8.model") + " --b model:" +
                          pt::shellQuote(models + "micro-v7.model") +
                          " --playouts 4 --games 2 --parallel 1 --inference int8 >out.txt 2>err.txt";
  ASSERT_EQ(pt::exitCodeOf(std::system(cmd.c_str())), 0) << pt::slurp(dir / "err.txt");
  const std::string err = pt::slurp(dir / "err.txt");
  int said = 0;
  for (size_t at = err.find("no int8 kernel"); at != std::string::npos; at = err.find("no int8 kernel", at + 1)) ++said;
  EXPECT_EQ(said, nn::fastInt8Kernel().empty() ? 1 : 0) << err;
}
#endif

}  // namespace
