// The number format LibTorch runs the network in: `precision:` in run configs, `--precision` on
// the benches. No LibTorch: configs parse it before the network module loads.
#pragma once
#include <stdexcept>
#include <string>

namespace poppy::nn {

enum class Precision {
  kFloat32,   // everything in float32
  kBfloat16,  // bfloat16 matrix products in LibTorch: its inference runs a bfloat16 copy of the
              // network, training autocasts the forward pass (float32 weights, optimizer and
              // losses). No loss scaling is needed: bfloat16 has float32's exponent range. On the
              // CPU through oneDNN (fast with AMX or AVX-512 BF16); Poppy's Eigen and int8
              // forwards (inference eigen, int8, auto's small batches) stay as they are.
};

// "fp32" or "bf16"; anything else throws std::invalid_argument naming the text.
inline Precision parsePrecision(const std::string& text) {
  if (text == "fp32") return Precision::kFloat32;
  if (text == "bf16") return Precision::kBfloat16;
  throw std::invalid_argument("unknown precision '" + text + "' (use fp32 or bf16)");
}

// Whether this CPU multiplies bfloat16 in hardware: AVX-512 BF16 or AMX-BF16 (nn/cpu_bfloat16.cpp,
// by CPUID). Without either, oneDNN emulates bfloat16 and a bf16 run is many times slower than
// fp32 (docs/commands/train.md, "bf16 training on the CPU", has the figure).
bool cpuHasNativeBfloat16();

// The warning for precision bf16 on a CPU device of such a CPU, or "" where there is nothing to
// say (fp32, a GPU, or a CPU with native bfloat16).
std::string bfloat16Warning(Precision precision, bool deviceIsCpu);

inline const char* precisionName(Precision p) { return p == Precision::kBfloat16 ? "bf16" : "fp32"; }

}  // namespace poppy::nn
