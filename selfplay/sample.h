// One training sample from self-play, in the compact form that replay files store, and the
// helpers that turn it into the dense float buffers the trainer consumes. No LibTorch here.
//
// Planes are stored as uint8 = round(value * 24): every encoder plane value is a multiple of 1/24
// (0/1 piece planes, hand count / 8, repetitions / 3, side, ones), so the round trip is exact:
// k / 24.0f is the same float the encoder wrote.
#pragma once
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace poppy::selfplay {

// Stored plane byte = plane value * kPlaneScale.
inline constexpr int kPlaneScale = 24;

struct Sample {
  std::vector<uint8_t> planes;  // planes x height x width, value * 24 (see quantizePlanes)
  // Sparse visit distribution over policy indices: each index at most once, probabilities >= 0,
  // summing to 1.
  std::vector<std::pair<uint32_t, float>> policy;
  // Game result from the side to move's view: +1 win, 0 draw, -1 loss. More than two players:
  // the winner's place clockwise from the side to move (0 = itself), or -1 for a draw.
  int8_t result = 0;
  float rootValue = 0.0f;  // search value at the root, side to move's view
  // Where the sample stands in its game, for the auxiliary targets (nn/network.h): the plies
  // played from this position to the game's end (1 for the last move; 0: not recorded, a chunk
  // older than format version 4), and whether the chunk's next sample is this game's next
  // position, the one the opponent moves from (false when that position was not searched fully,
  // and for a game's last sample).
  uint16_t pliesLeft = 0;
  bool replyFollows = false;

  bool operator==(const Sample& o) const {
    return planes == o.planes && policy == o.policy && result == o.result &&
           rootValue == o.rootValue && pliesLeft == o.pliesLeft && replyFollows == o.replyFollows;
  }
  bool operator!=(const Sample& o) const { return !(*this == o); }
};

// Quantizes `count` encoder floats. Throws std::invalid_argument (naming the offending element)
// for a value that is not k/24 with k in 0..255 (NaN, negative, too large, or off the grid by
// more than 1e-3/24): such a value would be silently changed by storing it.
std::vector<uint8_t> quantizePlanes(const float* planes, size_t count);
// The inverse: out[i] = q[i] / 24.0f, bit-identical to what the encoder produced.
void dequantizePlanes(const uint8_t* q, size_t count, float* out);

// A normalized sparse policy from raw visit counts (or any non-negative weights) at `n` policy
// indices: zero weights are dropped, the rest divided by their sum. Throws std::invalid_argument
// for an index outside [0, policySize), a repeated index, a negative or non-finite
// weight, or all weights zero.
std::vector<std::pair<uint32_t, float>> sparsePolicy(const int* indices, const float* weights,
                                                     size_t n, int policySize);

// Dense training targets, written into caller-owned buffers.
//   planes: sample.planes.size() floats.
void writeDensePlanes(const Sample& s, float* out);
//   policy: policySize floats, zero except the sample's indices (indices >= policySize ignored).
void writeDensePolicy(const Sample& s, int policySize, float* out);
//   wdl: 3 floats, one-hot of the result: index 0 win, 1 draw, 2 loss.
void writeWdlTarget(int8_t result, float* out);
//   value: valueSize floats (nn::Encoder::valueSize): the WDL above for 3; for more players
//   one-hot of the winner's place, or of the draw (the last) for result -1.
void writeValueTarget(int8_t result, int valueSize, float* out);
// All three at row `row` of a batch laid out row after row: planes (inputSize floats a row),
// policy (policySize a row) and value (valueSize a row). Throws std::invalid_argument when the
// sample's planes are not inputSize floats (a sample from another encoder).
void writeDenseRow(const Sample& s, int inputSize, int policySize, int valueSize, int row, float* planes,
                   float* policy, float* value);
// Mixes the search's root value v (win - loss, in [-1, 1]) into a WDL target:
// wdl = (1 - weight) * wdl + weight * ((1 + v) / 2, 0, (1 - v) / 2). The root value carries no
// draw share, so its part is split between win and loss with the same expectation v.
void mixRootValue(float* wdl, float rootValue, float weight);

}  // namespace poppy::selfplay
