#include "nn/int8_weights.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace poppy::nn {

bool int8Convertible(const FoldedConv& c) {
  return c.kernel == 3 && c.in > 0 && c.out > 0 && c.in % kInt8Group == 0 && c.out % kInt8Rows == 0;
}

Int8Conv quantizeConv(const FoldedConv& c) {
  if (!int8Convertible(c))
    throw std::invalid_argument("quantizeConv: a " + std::to_string(c.kernel) + "x" + std::to_string(c.kernel) +
                                " convolution " + std::to_string(c.in) + " -> " + std::to_string(c.out) +
                                " has no int8 layout (3x3, input channels a multiple of 4, output of 16)");
  Int8Conv q;
  q.in = c.in;
  q.out = c.out;
  q.bias = c.bias;
  q.scale.assign(size_t(c.out), 0.0f);
  const size_t depth = size_t(9) * size_t(c.in);
  // FoldedConv::weight is column-major [out x 9*in]: row o's weight of column j at j*out + o.
  for (int o = 0; o < c.out; ++o) {
    float largest = 0;
    for (size_t j = 0; j < depth; ++j) largest = std::max(largest, std::fabs(c.weight[j * size_t(c.out) + size_t(o)]));
    q.scale[size_t(o)] = largest / 127.0f;
  }
  q.weight.assign(depth * size_t(c.out), 0);
  const int groups = c.in / kInt8Group;
  size_t at = 0;
  for (int b = 0; b < c.out / kInt8Rows; ++b)
    for (int k = 0; k < 9; ++k)
      for (int g = 0; g < groups; ++g)
        for (int r = 0; r < kInt8Rows; ++r)
          for (int t = 0; t < kInt8Group; ++t, ++at) {
            const int o = b * kInt8Rows + r, i = g * kInt8Group + t;
            const float s = q.scale[size_t(o)];
            const float w = c.weight[(size_t(k) * size_t(c.in) + size_t(i)) * size_t(c.out) + size_t(o)];
            const float level = s > 0 ? std::nearbyint(w / s) : 0.0f;
            q.weight[at] = int8_t(std::clamp(level, -127.0f, 127.0f));
          }
  return q;
}

}  // namespace poppy::nn
