// nn/network_growth: a network grown into a larger shape computes what the smaller one computed
// (evaluation and training mode, dense and spatial policy heads), its new parts still learn (the
// zeros receive gradients), and shapes that cannot grow are refused in words.
//
// The expectation is not produced by the code under test: the smaller network's own forward pass
// is the reference, on random inputs. Tolerance 1e-4: the two forward passes add the same terms,
// but LibTorch may order the sums differently for other channel counts.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <string>

#include "game/variant_loader.h"
#include "nn/encoder.h"
#include "nn/network.h"
#include "nn/network_growth.h"

using namespace poppy;

namespace {

nn::NetworkShape shapeFor(const std::string& variantName, int blocks, int channels, int valueHidden) {
  const nn::Encoder encoder(game::loadVariant(variantName));
  return nn::networkShapeFor(encoder, blocks, channels, valueHidden);
}

// A network whose batch norms are not at their initial values (scale 1, shift 0, statistics
// 0 and 1), as a trained network's are not: growth must carry all four over.
nn::PolicyValueNet trainedLooking(const nn::NetworkShape& shape, uint64_t seed) {
  torch::manual_seed(seed);
  nn::PolicyValueNet net(shape);
  torch::NoGradGuard noGrad;
  for (const auto& m : net->named_modules()) {
    auto* bn = m.value()->as<torch::nn::BatchNorm2d>();
    if (!bn) continue;
    bn->weight.uniform_(0.5, 1.5);
    bn->bias.uniform_(-0.3, 0.3);
    bn->running_mean.uniform_(-0.5, 0.5);
    bn->running_var.uniform_(0.5, 2.0);
  }
  return net;
}

// Board-like inputs: mostly zeros and ones, as the encoder's planes are.
torch::Tensor inputs(const nn::NetworkShape& s, int batch) {
  return (torch::rand({batch, s.planes, s.height, s.width}) > 0.7).to(torch::kFloat32);
}

void expectSameOutputs(nn::PolicyValueNet& small, nn::PolicyValueNet& big, const torch::Tensor& x) {
  torch::NoGradGuard noGrad;
  const auto [ps, vs] = small->forward(x);
  const auto [pb, vb] = big->forward(x);
  ASSERT_EQ(ps.sizes(), pb.sizes());
  ASSERT_EQ(vs.sizes(), vb.sizes());
  EXPECT_LT((ps - pb).abs().max().item<float>(), 1e-4f) << "policy logits differ";
  EXPECT_LT((vs - vb).abs().max().item<float>(), 1e-4f) << "value logits differ";
}

void expectGrowthPreserves(const nn::NetworkShape& from, const nn::NetworkShape& to) {
  nn::PolicyValueNet small = trainedLooking(from, 7);
  torch::manual_seed(8);
  nn::PolicyValueNet big(to);
  ASSERT_EQ(nn::growthRefusal(from, to), "");
  nn::growNetwork(small, big);
  const torch::Tensor x = inputs(from, 16);
  small->eval();
  big->eval();
  {
    SCOPED_TRACE("evaluation mode (running statistics)");
    expectSameOutputs(small, big, x);
  }
  small->train();
  big->train();
  {
    SCOPED_TRACE("training mode (batch statistics)");
    expectSameOutputs(small, big, x);
  }
}

}  // namespace

TEST(NetworkGrowth, DeeperNetworkComputesTheSame) {
  expectGrowthPreserves(shapeFor("micro", 2, 16, 8), shapeFor("micro", 4, 16, 8));
}

TEST(NetworkGrowth, WiderNetworkComputesTheSame) {
  expectGrowthPreserves(shapeFor("micro", 2, 16, 8), shapeFor("micro", 2, 32, 24));
}

TEST(NetworkGrowth, DeeperAndWiderComputesTheSame) {
  expectGrowthPreserves(shapeFor("micro", 2, 16, 8), shapeFor("micro", 3, 48, 16));
}

TEST(NetworkGrowth, SpatialPolicyHeadComputesTheSame) {
  const nn::NetworkShape from = shapeFor("chu", 1, 16, 8);
  ASSERT_GT(from.policyPlanes, 0) << "chu is expected to use the spatial policy head";
  expectGrowthPreserves(from, shapeFor("chu", 2, 32, 8));
}

// A network grows into one with auxiliary heads (a run from a model trained without them: the
// heads start untrained) and computes the same policy and value; the other way the heads go.
TEST(NetworkGrowth, AuxiliaryHeadsComeAndGo) {
  nn::NetworkShape plain = shapeFor("micro", 2, 16, 8), with = plain;
  with.auxiliaryHeads = true;
  expectGrowthPreserves(plain, with);
  expectGrowthPreserves(with, plain);
  nn::NetworkShape wider = shapeFor("micro", 3, 24, 8);
  wider.auxiliaryHeads = true;
  expectGrowthPreserves(plain, wider);
}

TEST(NetworkGrowth, NetworkOfTheSameShapeIsCopied) {
  expectGrowthPreserves(shapeFor("micro", 2, 16, 8), shapeFor("micro", 2, 16, 8));
}

// The zeros that keep the function must not stay zeros for good: one backward pass reaches the
// new block's zero scale, and the zero weights by which old units read new channels (layers
// inside the tower and both heads) and new value-head units, so training uses the new capacity.
TEST(NetworkGrowth, NewPartsReceiveGradients) {
  const nn::NetworkShape from = shapeFor("micro", 1, 16, 8), to = shapeFor("micro", 2, 32, 16);
  nn::PolicyValueNet small = trainedLooking(from, 3);
  torch::manual_seed(4);
  nn::PolicyValueNet big(to);
  nn::growNetwork(small, big);
  big->train();
  const auto [p, v] = big->forward(inputs(to, 32));
  (p.logsumexp(1).mean() + v.logsumexp(1).mean() + p.select(1, 0).mean() + v.select(1, 0).mean()).backward();
  auto gradientOf = [&](const std::string& name) {
    for (const auto& q : big->named_parameters())
      if (q.key() == name) return q.value().grad();
    ADD_FAILURE() << "no parameter " << name;
    return torch::Tensor();
  };
  auto fromNewInputs = [](const torch::Tensor& g, int64_t oldOut, int64_t oldIn) {
    return g.narrow(0, 0, oldOut).narrow(1, oldIn, g.size(1) - oldIn).abs().sum().item<float>();
  };
  EXPECT_GT(gradientOf("tower.1.bn2.weight").abs().sum().item<float>(), 0.f) << "the new block's zero scale";
  EXPECT_GT(fromNewInputs(gradientOf("tower.0.conv1.weight"), 16, 16), 0.f) << "the tower's old channels";
  EXPECT_GT(fromNewInputs(gradientOf("tower.0.conv2.weight"), 16, 16), 0.f) << "a block's inner channels";
  EXPECT_GT(fromNewInputs(gradientOf("policy_conv.weight"), 2, 16), 0.f) << "the policy head";
  EXPECT_GT(fromNewInputs(gradientOf("value_conv.weight"), 1, 16), 0.f) << "the value head";
  EXPECT_GT(fromNewInputs(gradientOf("value_fc2.weight"), 3, 8), 0.f) << "the value head's new units";
}

TEST(NetworkGrowth, ShapesThatCannotGrowAreRefusedInWords) {
  const nn::NetworkShape micro = shapeFor("micro", 2, 16, 8);
  const std::string narrower = nn::growthRefusal(micro, shapeFor("micro", 2, 8, 8));
  EXPECT_NE(narrower.find("smaller"), std::string::npos) << narrower;
  EXPECT_NE(nn::growthRefusal(micro, shapeFor("micro", 1, 16, 8)).find("smaller"), std::string::npos);
  EXPECT_NE(nn::growthRefusal(micro, shapeFor("micro", 2, 16, 4)).find("smaller"), std::string::npos);
  const std::string otherGame = nn::growthRefusal(micro, shapeFor("minishogi", 4, 32, 8));
  EXPECT_FALSE(otherGame.empty());
  EXPECT_NE(otherGame.find("input"), std::string::npos) << otherGame;

  nn::PolicyValueNet small(micro);
  nn::PolicyValueNet mini(shapeFor("minishogi", 4, 32, 8));
  try {
    nn::growNetwork(small, mini);
    ADD_FAILURE() << "growing micro's network into minishogi's was not refused";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("cannot grow"), std::string::npos) << e.what();
  }
}
