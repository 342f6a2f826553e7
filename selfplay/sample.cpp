#include "selfplay/sample.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace poppy::selfplay {

std::vector<uint8_t> quantizePlanes(const float* planes, size_t count) {
  std::vector<uint8_t> q(count);
  for (size_t i = 0; i < count; ++i) {
    const float v = planes[i];
    const double scaled = double(v) * kPlaneScale;
    const double k = std::nearbyint(scaled);
    if (!(k >= 0.0 && k <= 255.0) || std::fabs(scaled - k) > 1e-3) {
      throw std::invalid_argument("quantizePlanes: plane value " + std::to_string(v) +
                                  " at element " + std::to_string(i) +
                                  " is not a multiple of 1/24 in [0, 255/24]");
    }
    q[i] = uint8_t(k);
  }
  return q;
}

void dequantizePlanes(const uint8_t* q, size_t count, float* out) {
  // Correctly rounded division of two exact values: k / 24.0f is the float nearest to k/24,
  // which is also what the encoder's count / 8.0f or count / 3.0f gives for the same real.
  for (size_t i = 0; i < count; ++i) out[i] = float(q[i]) / float(kPlaneScale);
}

std::vector<std::pair<uint32_t, float>> sparsePolicy(const int* indices, const float* weights,
                                                     size_t n, int policySize) {
  std::vector<std::pair<uint32_t, float>> policy;
  policy.reserve(n);
  double sum = 0.0;
  for (size_t i = 0; i < n; ++i) {
    if (indices[i] < 0 || indices[i] >= policySize) {
      throw std::invalid_argument("sparsePolicy: index " + std::to_string(indices[i]) +
                                  " outside the policy (size " + std::to_string(policySize) +
                                  ")");
    }
    if (!std::isfinite(weights[i]) || weights[i] < 0.0f) {
      throw std::invalid_argument("sparsePolicy: bad weight " + std::to_string(weights[i]) +
                                  " at index " + std::to_string(indices[i]));
    }
    sum += weights[i];
    if (weights[i] > 0.0f) policy.emplace_back(uint32_t(indices[i]), weights[i]);
  }
  if (!(sum > 0.0)) throw std::invalid_argument("sparsePolicy: all weights are zero");
  std::vector<int> seen(indices, indices + n);
  std::sort(seen.begin(), seen.end());
  if (std::adjacent_find(seen.begin(), seen.end()) != seen.end()) {
    throw std::invalid_argument("sparsePolicy: repeated policy index");
  }
  for (auto& entry : policy) entry.second = float(entry.second / sum);
  return policy;
}

void writeDensePlanes(const Sample& s, float* out) {
  dequantizePlanes(s.planes.data(), s.planes.size(), out);
}

void writeDensePolicy(const Sample& s, int policySize, float* out) {
  std::fill(out, out + policySize, 0.0f);
  for (const auto& [index, p] : s.policy) {
    if (index < uint32_t(policySize)) out[index] += p;
  }
}

void writeWdlTarget(int8_t result, float* out) {
  out[0] = result > 0 ? 1.0f : 0.0f;
  out[1] = result == 0 ? 1.0f : 0.0f;
  out[2] = result < 0 ? 1.0f : 0.0f;
}

void writeValueTarget(int8_t result, int valueSize, float* out) {
  if (valueSize == 3) {
    writeWdlTarget(result, out);
    return;
  }
  std::fill(out, out + valueSize, 0.0f);
  out[result < 0 ? valueSize - 1 : result] = 1.0f;
}

void writeDenseRow(const Sample& s, int inputSize, int policySize, int valueSize, int row, float* planes,
                   float* policy, float* value) {
  if (s.planes.size() != size_t(inputSize))
    throw std::invalid_argument("writeDenseRow: the sample has " + std::to_string(s.planes.size()) +
                                " plane values, the batch rows " + std::to_string(inputSize));
  writeDensePlanes(s, planes + size_t(row) * size_t(inputSize));
  writeDensePolicy(s, policySize, policy + size_t(row) * size_t(policySize));
  writeValueTarget(s.result, valueSize, value + size_t(row) * size_t(valueSize));
}

void mixRootValue(float* wdl, float rootValue, float weight) {
  const float v = std::clamp(rootValue, -1.0f, 1.0f);
  const float keep = 1.0f - weight;
  wdl[0] = keep * wdl[0] + weight * 0.5f * (1.0f + v);
  wdl[1] = keep * wdl[1];
  wdl[2] = keep * wdl[2] + weight * 0.5f * (1.0f - v);
}

}  // namespace poppy::selfplay
