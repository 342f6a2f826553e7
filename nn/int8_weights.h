// A 3x3 convolution's folded weights (nn/eigen_network.h: FoldedConv) as signed 8-bit integers
// for the int8 forward (nn/int8_convolution.h): one scale per output channel, symmetric (the
// largest weight of a channel, in magnitude, becomes +-127), laid out the way AVX-512 VNNI's
// vpdpbusd reads them. No LibTorch and no Eigen here.
#pragma once
#include <cstdint>
#include <vector>

#include "nn/eigen_network.h"

namespace poppy::nn {

using eigen_kernels::kInt8Group;
using eigen_kernels::kInt8Rows;

struct Int8Conv {
  int in = 0, out = 0;
  // [out / 16][9 taps][in / 4][16 rows][4 channels]: for output rows 16b..16b+15, tap k and input
  // channels 4g..4g+3 one 64-byte block, row after row, each row's 4 channels together.
  std::vector<int8_t> weight;
  std::vector<float> scale;  // [out]: weight = int8 * scale
  std::vector<float> bias;   // [out]: the folded bias, kept in float
};

// Whether the int8 forward can run this convolution: a 3x3 kernel whose input channels fill
// whole groups of 4 and output channels whole blocks of 16 (the residual tower of every network
// Poppy trains; the input convolution, with one plane per kind of feature, and the heads stay
// float).
bool int8Convertible(const FoldedConv& c);

// Rounds each weight to the nearest multiple of its output channel's scale (ties to even).
// Requires int8Convertible(c).
Int8Conv quantizeConv(const FoldedConv& c);

// The weight of output row o, tap k (row-major, 0..8) and input channel i in q's layout (for the
// reference kernel and the tests).
inline int8_t int8Weight(const Int8Conv& q, int o, int k, int i) {
  const int groups = q.in / kInt8Group;
  const size_t block = (size_t(o / kInt8Rows) * 9 + size_t(k)) * size_t(groups) + size_t(i / kInt8Group);
  return q.weight[block * kInt8Rows * kInt8Group + size_t(o % kInt8Rows) * kInt8Group + size_t(i % kInt8Group)];
}

}  // namespace poppy::nn
