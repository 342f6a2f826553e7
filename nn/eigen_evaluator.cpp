#include "nn/eigen_evaluator.h"

#include <algorithm>
#include <cstdint>
#include <stdexcept>

namespace poppy::nn {
namespace {

struct Kernel {
  const char* name;
  eigen_kernels::ForwardFunction forward;
  bool (*supported)();
  int autoMaxBatch;  // autoEigenMaxBatch
};

// autoMaxBatch: `poppy bench nn --inference both --eigen-kernel K` on all seven variants with the
// default network (4 blocks x 32 channels), this 2-core AMD EPYC (AVX-512), LibTorch on one
// thread. Eigen/LibTorch evaluations/s over the variants:
//   baseline: 1.3-2.2x at batch 2, 0.85-1.1x at 4         -> 2
//   avx2:     1.0-1.7x at batch 8, 0.83-1.9x at 16        -> 8
//   avx512:   1.05-1.26x at batch 32, 1.03-1.13x at 64    -> 32 (64 leaves too thin a margin)
// LibTorch used AVX-512 in every run; on a CPU without it LibTorch is slower too, so these err
// on LibTorch's side.

// Widest last. The CPU checks also make sure the operating system saves the wide registers
// (GCC's __builtin_cpu_supports reads XGETBV as well as CPUID).
const std::vector<Kernel>& kernels() {
  static const std::vector<Kernel> all = {
      {"baseline", &eigen_kernels::forwardBaseline, [] { return true; }, 2},
#ifdef POPPY_EIGEN_X86_KERNELS
      {"avx2", &eigen_kernels::forwardAvx2,
       [] { return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"); }, 8},
      {"avx512", &eigen_kernels::forwardAvx512,
       [] {
         return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
                __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512bw") &&
                __builtin_cpu_supports("fma");
       },
       32},
#endif
  };
  return all;
}

eigen_kernels::ConvView view(const FoldedConv& c) { return {c.in, c.out, c.kernel, c.weight.data(), c.bias.data()}; }
eigen_kernels::LinearView view(const FoldedLinear& l) {
  return {l.in, l.out, l.weight.data(), l.bias.data(), l.panels.data()};
}

// Scratch buffers start on 64-byte boundaries (a cache line, an AVX-512 register).
constexpr size_t kAlignFloats = 16;
size_t roundUp(size_t n) { return (n + kAlignFloats - 1) / kAlignFloats * kAlignFloats; }

}  // namespace

std::vector<std::string> eigenKernelsBuilt() {
  std::vector<std::string> out;
  for (const Kernel& k : kernels()) out.push_back(k.name);
  return out;
}

std::vector<std::string> eigenKernelsSupported() {
  std::vector<std::string> out;
  for (const Kernel& k : kernels())
    if (k.supported()) out.push_back(k.name);
  return out;
}

std::string bestEigenKernel() { return eigenKernelsSupported().back(); }

int autoEigenMaxBatch(const std::string& kernel) {
  for (const Kernel& k : kernels())
    if (kernel == k.name) return k.autoMaxBatch;
  throw std::invalid_argument("no Eigen kernel '" + kernel + "' in this build");
}

EigenEvaluator::EigenEvaluator(EigenNetwork network, const std::string& kernel) : net_(std::move(network)) {
  kernelName_ = kernel.empty() ? bestEigenKernel() : kernel;
  for (const Kernel& k : kernels())
    if (kernelName_ == k.name) {
      if (!k.supported()) throw std::invalid_argument("this CPU cannot run the Eigen kernel '" + kernelName_ + "'");
      forward_ = k.forward;
    }
  if (!forward_) throw std::invalid_argument("no Eigen kernel '" + kernelName_ + "' in this build");

  const NetworkShape& s = net_.shape;
  // The square under each tap of a 3x3 kernel centred on each square (LibTorch's padding 1:
  // off the board reads zero). Squares are row-major, as in the NCHW planes.
  neighbours_.assign(size_t(s.height) * s.width * 9, -1);
  for (int r = 0; r < s.height; ++r)
    for (int f = 0; f < s.width; ++f)
      for (int dy = 0; dy < 3; ++dy)
        for (int dx = 0; dx < 3; ++dx) {
          const int rr = r + dy - 1, ff = f + dx - 1;
          if (rr >= 0 && rr < s.height && ff >= 0 && ff < s.width)
            neighbours_[size_t(r * s.width + f) * 9 + size_t(dy * 3 + dx)] = rr * s.width + ff;
        }
  for (const FoldedConv& c : net_.tower) tower_.push_back(view(c));
  plan_.planes = s.planes;
  plan_.squares = s.height * s.width;
  plan_.channels = s.channels;
  plan_.policySize = s.policySize;
  plan_.valueHidden = s.valueHidden;
  plan_.blocks = s.blocks;
  plan_.neighbours = neighbours_.data();
  plan_.input = view(net_.input);
  plan_.tower = tower_.data();
  plan_.policyConv = view(net_.policyConv);
  plan_.valueConv = view(net_.valueConv);
  plan_.policyFc = view(net_.policyFc);
  plan_.valueFc1 = view(net_.valueFc1);
  plan_.valueFc2 = view(net_.valueFc2);
}

void EigenEvaluator::reserve(int batch) {
  if (batch <= capacity_) return;
  // Grown to at least twice the old size, so a search whose batches creep up reallocates a few
  // times only; after that no call allocates.
  capacity_ = std::max(batch, 2 * capacity_);
  const size_t columns = size_t(capacity_) * size_t(plan_.squares);
  const size_t sizes[] = {size_t(plan_.planes) * columns,
                          size_t(plan_.channels) * columns,
                          size_t(plan_.channels) * columns,
                          9 * size_t(std::max(plan_.planes, plan_.channels)) * columns,
                          2 * columns,
                          columns,
                          size_t(plan_.valueHidden) * size_t(capacity_),
                          3 * size_t(capacity_)};
  size_t total = kAlignFloats;
  for (size_t n : sizes) total += roundUp(n);
  scratch_.assign(total, 0.0f);
  float* p = scratch_.data();
  p += (kAlignFloats - (reinterpret_cast<uintptr_t>(p) / sizeof(float)) % kAlignFloats) % kAlignFloats;
  float** slots[] = {&buffers_.planes, &buffers_.x,      &buffers_.t,      &buffers_.col,
                     &buffers_.policy, &buffers_.value, &buffers_.hidden, &buffers_.wdl};
  for (size_t i = 0; i < 8; ++i) {
    *slots[i] = p;
    p += roundUp(sizes[i]);
  }
}

void EigenEvaluator::evaluate(const float* planes, int batch, float* policyLogits, float* wdl) {
  if (batch <= 0) return;
  reserve(batch);
  forward_(plan_, planes, batch, policyLogits, wdl, buffers_);
}

}  // namespace poppy::nn
