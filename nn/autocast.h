// Mixed precision for a scope: while an Autocast lives, LibTorch runs this thread's matrix
// products and convolutions on the given device type in bfloat16 (its autocast lists keep losses
// and reductions in float32). On a GPU that is the tensor cores; on the CPU oneDNN's bfloat16
// kernels (AMX on Xeons since Sapphire Rapids, AVX-512 BF16 on Zen 4; emulated, and slower, on
// CPUs without either: `poppy bench train --precision bf16` says which). LibTorch 1.13 and 2.x
// spell the switches differently; this header hides that.
#pragma once
#include <ATen/autocast_mode.h>
#include <c10/core/DeviceType.h>
#include <torch/version.h>

namespace poppy::nn {

class Autocast {
 public:
  Autocast(bool enabled, c10::DeviceType device) : enabled_(enabled), cpu_(device == c10::DeviceType::CPU) {
    if (!enabled_) return;
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 4)
    const c10::DeviceType type = cpu_ ? at::kCPU : at::kCUDA;
    previousDtype_ = at::autocast::get_autocast_dtype(type);
    at::autocast::set_autocast_enabled(type, true);
    at::autocast::set_autocast_dtype(type, at::kBFloat16);
#else
    if (cpu_) {
      previousDtype_ = at::autocast::get_autocast_cpu_dtype();
      at::autocast::set_cpu_enabled(true);
      at::autocast::set_autocast_cpu_dtype(at::kBFloat16);
    } else {
      previousDtype_ = at::autocast::get_autocast_gpu_dtype();
      at::autocast::set_enabled(true);
      at::autocast::set_autocast_gpu_dtype(at::kBFloat16);
    }
#endif
    at::autocast::increment_nesting();
  }
  ~Autocast() {
    if (!enabled_) return;
    // As torch.autocast's exit: the cache of weights cast to bfloat16 goes with the outermost scope.
    if (at::autocast::decrement_nesting() == 0) at::autocast::clear_cache();
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 4)
    const c10::DeviceType type = cpu_ ? at::kCPU : at::kCUDA;
    at::autocast::set_autocast_enabled(type, false);
    at::autocast::set_autocast_dtype(type, previousDtype_);
#else
    if (cpu_) {
      at::autocast::set_cpu_enabled(false);
      at::autocast::set_autocast_cpu_dtype(previousDtype_);
    } else {
      at::autocast::set_enabled(false);
      at::autocast::set_autocast_gpu_dtype(previousDtype_);
    }
#endif
  }
  Autocast(const Autocast&) = delete;
  Autocast& operator=(const Autocast&) = delete;

 private:
  bool enabled_;
  bool cpu_;
  at::ScalarType previousDtype_ = at::kBFloat16;
};

}  // namespace poppy::nn
