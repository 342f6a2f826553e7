// The int8 convolution of nn/eigen_kernels.h (Int8ConvolveFunction) in plain C++: slow, but on
// any CPU, and the definition nn/int8_conv_vnni.cpp must agree with (tests/test_nn_int8.cpp).
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>

#include "nn/eigen_kernels.h"

namespace poppy::nn::eigen_kernels {
namespace {

// Each position's [squares x in] floats (never negative: they follow a relu) to bytes: the
// largest becomes 255, the rest x * (255 / largest) rounded to nearest, ties to even. A position
// of zeros gets scale 0. One multiplication per value, so the vector copy gives the same bytes.
void quantizePositions(const float* in, int channels, int squares, int batch, unsigned char* bytes, float* scale) {
  const std::size_t size = std::size_t(channels) * std::size_t(squares);
  for (int b = 0; b < batch; ++b) {
    const float* x = in + std::size_t(b) * size;
    float largest = 0;
    for (std::size_t i = 0; i < size; ++i) largest = std::max(largest, x[i]);
    const float inverse = largest > 0 ? 255.0f / largest : 0.0f;
    scale[b] = largest / 255.0f;
    unsigned char* q = bytes + std::size_t(b) * size;
    for (std::size_t i = 0; i < size; ++i) q[i] = (unsigned char)std::min(255.0f, std::nearbyint(x[i] * inverse));
  }
}

}  // namespace

void convolveInt8Reference(const ConvView& c, const float* in, const ForwardPlan& p, int batch,
                           const ForwardScratch& m, float* out) {
  quantizePositions(in, c.in, p.squares, batch, m.quantized, m.positionScale);
  const int groups = c.in / kInt8Group;
  const int columns = batch * p.squares;
  for (int n = 0; n < columns; ++n) {
    const int square = n % p.squares;
    const unsigned char* position = m.quantized + std::size_t(n - square) * c.in;
    const float positionScale = m.positionScale[n / p.squares];
    for (int o = 0; o < c.out; ++o) {
      int32_t sum = 0;
      for (int k = 0; k < 9; ++k) {
        const int from = p.neighbours[9 * square + k];
        if (from < 0) continue;  // off the board: zeros
        const unsigned char* x = position + std::size_t(from) * c.in;
        const signed char* w = c.int8Weight + ((std::size_t(o / kInt8Rows) * 9 + std::size_t(k)) * groups) * kInt8Rows * kInt8Group +
                               std::size_t(o % kInt8Rows) * kInt8Group;
        for (int g = 0; g < groups; ++g, w += kInt8Rows * kInt8Group)
          for (int t = 0; t < kInt8Group; ++t) sum += int32_t(x[g * kInt8Group + t]) * int32_t(w[t]);
      }
      out[std::size_t(n) * c.out + o] = float(sum) * (positionScale * c.int8Scale[o]) + c.bias[o];
    }
  }
}

}  // namespace poppy::nn::eigen_kernels
