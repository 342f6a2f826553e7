// Mixed precision for a scope: while an Autocast lives, LibTorch runs this thread's CUDA matrix
// products and convolutions in bfloat16 (its autocast lists keep losses and reductions in
// float32). LibTorch 1.13 and 2.x spell the switch differently; this header hides that.
#pragma once
#include <ATen/autocast_mode.h>
#include <torch/version.h>

namespace poppy::nn {

class Autocast {
 public:
  explicit Autocast(bool enabled) : enabled_(enabled) {
    if (!enabled_) return;
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 4)
    previousDtype_ = at::autocast::get_autocast_dtype(at::kCUDA);
    at::autocast::set_autocast_enabled(at::kCUDA, true);
    at::autocast::set_autocast_dtype(at::kCUDA, at::kBFloat16);
#else
    previousDtype_ = at::autocast::get_autocast_gpu_dtype();
    at::autocast::set_enabled(true);
    at::autocast::set_autocast_gpu_dtype(at::kBFloat16);
#endif
    at::autocast::increment_nesting();
  }
  ~Autocast() {
    if (!enabled_) return;
    // As torch.autocast's exit: the cache of weights cast to bfloat16 goes with the outermost scope.
    if (at::autocast::decrement_nesting() == 0) at::autocast::clear_cache();
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 4)
    at::autocast::set_autocast_enabled(at::kCUDA, false);
    at::autocast::set_autocast_dtype(at::kCUDA, previousDtype_);
#else
    at::autocast::set_enabled(false);
    at::autocast::set_autocast_gpu_dtype(previousDtype_);
#endif
  }
  Autocast(const Autocast&) = delete;
  Autocast& operator=(const Autocast&) = delete;

 private:
  bool enabled_;
  at::ScalarType previousDtype_ = at::kBFloat16;
};

}  // namespace poppy::nn
