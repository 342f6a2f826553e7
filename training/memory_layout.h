// How the trainer lays out the convolutions' weights and inputs in memory: the
// `training.memory_layout` setting and `poppy bench train --layout`. No LibTorch: configs parse it.
//
// LibTorch 1.13 runs CPU convolutions through oneDNN, whose kernels want channels innermost
// (NHWC, "channels last"); a tensor in PyTorch's default NCHW order is reordered on every call.
// Measured with `poppy bench train` on a 2-core AMD EPYC (AVX2): channels last trains micro
// 1.1-1.3x faster, whale 1.5x, yari 1.1x, yonin the same; chu (a spatial policy head, 12x12)
// 0.8-1.0x, mitsugumi 0.6-0.7x. So auto picks channels last on the CPU for a dense policy head
// only (docs/commands/bench.md, "Training's memory layout").
#pragma once
#include <stdexcept>
#include <string>

namespace poppy::training {

enum class MemoryLayout {
  kAuto,          // channels last on the CPU for a dense policy head, NCHW otherwise
  kNchw,          // PyTorch's default order
  kChannelsLast,  // NHWC
};

// "auto", "nchw" or "channels_last"; anything else throws std::invalid_argument naming the text.
inline MemoryLayout parseMemoryLayout(const std::string& text) {
  if (text == "auto") return MemoryLayout::kAuto;
  if (text == "nchw") return MemoryLayout::kNchw;
  if (text == "channels_last") return MemoryLayout::kChannelsLast;
  throw std::invalid_argument("unknown memory layout '" + text + "' (use auto, nchw or channels_last)");
}

inline const char* memoryLayoutName(MemoryLayout m) {
  switch (m) {
    case MemoryLayout::kNchw: return "nchw";
    case MemoryLayout::kChannelsLast: return "channels_last";
    default: return "auto";
  }
}

// What auto means for a network: spatialPolicy is NetworkShape::policyPlanes > 0.
inline bool trainsChannelsLast(MemoryLayout m, bool onCpu, bool spatialPolicy) {
  if (m == MemoryLayout::kAuto) return onCpu && !spatialPolicy;
  return m == MemoryLayout::kChannelsLast;
}

}  // namespace poppy::training
