// A small micro-shogi network setting for the LibTorch tests (test_nn, test_nn_cuda): the variant,
// its encoder, a network shape, encoded random positions and one-hot training targets.
#pragma once
#include <torch/torch.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "game/position.h"
#include "game/variant_loader.h"
#include "nn/encoder.h"
#include "nn/model_header.h"
#include "nn/network.h"
#include "random_positions.h"

namespace poppy::testing {

struct MicroNet {
  game::VariantPtr variant = game::loadVariant("micro");
  nn::Encoder encoder{variant};
  nn::NetworkShape shape;
  explicit MicroNet(int blocks = 1, int channels = 8, int valueHidden = 8)
      : shape(nn::networkShapeFor(encoder, blocks, channels, valueHidden)) {}
  nn::ModelInfo info(const std::string& id = "gen-0003", int64_t step = 1234) const {
    nn::ModelInfo i;
    i.variant = variant->name;
    i.encoderVersion = nn::Encoder::kVersion;
    i.shape = shape;
    i.step = step;
    i.id = id;
    return i;
  }
  // Encoded random micro positions, batch x inputSize.
  std::vector<float> batch(int count, uint32_t seed) const {
    const auto sfens = randomPositions(variant, count, 40, seed);
    std::vector<float> out(size_t(count) * size_t(encoder.inputSize()));
    for (int i = 0; i < count; ++i)
      encoder.encode(game::Position::fromSfen(variant, sfens[size_t(i)]), out.data() + size_t(i) * encoder.inputSize());
    return out;
  }
  torch::Tensor input(const std::vector<float>& planes, int count) const {
    return torch::from_blob(const_cast<float*>(planes.data()), {count, shape.planes, shape.height, shape.width},
                            torch::kFloat32)
        .clone();
  }
  // One-hot policy targets and results, for training steps.
  void targets(int count, uint32_t seed, std::vector<float>& policy, std::vector<float>& wdl) const {
    std::mt19937 rng(seed);
    policy.assign(size_t(count) * encoder.policySize(), 0);
    wdl.assign(size_t(count) * 3, 0);
    for (int i = 0; i < count; ++i) {
      policy[size_t(i) * encoder.policySize() + rng() % encoder.policySize()] = 1;
      wdl[size_t(i) * 3 + rng() % 3] = 1;
    }
  }
};

// A network whose batch-norm statistics are no longer the defaults (a few training-mode passes
// over `positions` random positions), so a round trip must carry the buffers as well as the
// parameters.
inline nn::PolicyValueNet trainedLookingNet(const MicroNet& m, uint64_t seed, int positions = 16) {
  torch::manual_seed(seed);
  nn::PolicyValueNet net(m.shape);
  net->train();
  torch::NoGradGuard guard;
  const auto planes = m.batch(positions, uint32_t(seed));
  for (int i = 0; i < 3; ++i) net->forward(m.input(planes, positions));
  net->eval();
  return net;
}

}  // namespace poppy::testing
