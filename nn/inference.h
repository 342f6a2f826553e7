// Which code runs a network on the CPU: the `inference` setting (`--inference` on the commands
// that load models, `inference:` in run configs). No LibTorch: the commands parse it before the
// network module loads.
#pragma once
#include <stdexcept>
#include <string>

namespace poppy::nn {

enum class Inference {
  kAuto,   // Eigen for small calls (int8 where the CPU has AVX-512 VNNI: nn/eigen_evaluator.h,
           // autoEigenKernel), LibTorch for large ones (autoEigenMaxBatch); always LibTorch on a GPU
  kTorch,  // LibTorch for every call
  kEigen,  // the Eigen forward (nn/eigen_evaluator.h) for every call; CPU only
  kInt8,   // the Eigen forward with the residual tower in int8 (nn/int8_weights.h) for every call,
           // where the CPU has AVX-512 VNNI; elsewhere kEigen, with a note. CPU only
};

// "auto", "torch", "eigen" or "int8"; anything else throws std::invalid_argument naming the text.
inline Inference parseInference(const std::string& text) {
  if (text == "auto") return Inference::kAuto;
  if (text == "torch") return Inference::kTorch;
  if (text == "eigen") return Inference::kEigen;
  if (text == "int8") return Inference::kInt8;
  throw std::invalid_argument("unknown inference '" + text + "' (use auto, torch, eigen or int8)");
}

inline const char* inferenceName(Inference i) {
  switch (i) {
    case Inference::kTorch: return "torch";
    case Inference::kEigen: return "eigen";
    case Inference::kInt8: return "int8";
    default: return "auto";
  }
}

}  // namespace poppy::nn
