#include "nn/eigen_evaluator.h"

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <stdexcept>

#include "nn/int8_weights.h"

namespace poppy::nn {
namespace {

struct Kernel {
  const char* name;
  eigen_kernels::ForwardFunction forward;
  bool (*supported)();
  // autoEigenMaxBatch: Eigen takes calls of at most callMflop (batch x MFLOP per position), and
  // single positions of networks of at most singleMflop.
  double callMflop, singleMflop;
};

// The int8 forwards: a float forward whose residual tower runs with int8 weights (nn/int8_weights.h).
struct Int8Kernel {
  const char* name;
  eigen_kernels::ForwardFunction forward;
  eigen_kernels::Int8ConvolveFunction convolve;
  bool (*supported)();
  bool fast;  // false: the reference, for tests and CPUs without the instructions, not for play
  const char* floatKernel;  // the float forward it runs, whose auto budgets it keeps (unmeasured for int8)
};

// The float AVX-512 kernel's instructions (the int8 one needs VNNI besides).
bool avx512Supported() {
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
         __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("fma");
}

// The budgets: `poppy bench nn --inference both --eigen-kernel K` on this 2-core AMD EPYC (Zen 5,
// AVX-512; LibTorch 1.13 on one thread, using AVX-512 itself) with the default network (4 blocks
// x 32 channels) on all seven variants (3.4 MFLOP per position on micro to 18.7 on shogi), and
// micro with 6 x 64 (18.4 MFLOP) and 8 x 128 (96) and shogi with 6 x 96 (172). The largest batch
// at which Eigen was still at least as fast, times MFLOP per position, was at least:
//   baseline: 8.7 (minishogi: batch 2, 0.92x at 4); batch 1 won up to 18.4, even at 96, lost at 172
//   avx2:     54 (micro: batch 16; gorogoro 0.97x at 16 in one run); batch 1 won up to 172 (1.5x)
//   avx512:   275 (kyoto: batch 64, 0.95x at 128); batch 1 won up to 172 (2.5x)
// The budgets stay under those with a margin. On a CPU without AVX-512 LibTorch is slower too:
// on a 2-core AMD EPYC with AVX2 only (2026-11-27, quiet, same command), avx2's Eigen was at
// least as fast up to batch 128 on micro (431 MFLOP a call), 32-64 on minishogi (138-276), 32
// on shogi (598), 16 on shogi 6 x 96 (2,755), but only to batch 2-4 on chu (68-135: its 144
// squares), hence avx2's budget of 130 there (from 50, measured against LibTorch's AVX-512).
//
// Widest last. The CPU checks also make sure the operating system saves the wide registers
// (GCC's __builtin_cpu_supports reads XGETBV as well as CPUID).
const std::vector<Kernel>& kernels() {
  static const std::vector<Kernel> all = {
      {"baseline", &eigen_kernels::forwardBaseline, [] { return true; }, 8, 50},
#ifdef POPPY_EIGEN_X86_KERNELS
      {"avx2", &eigen_kernels::forwardAvx2,
       [] { return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"); }, 130, 200},
      {"avx512", &eigen_kernels::forwardAvx512, [] { return avx512Supported(); }, 200, 200},
#endif
  };
  return all;
}

// Fastest last.
const std::vector<Int8Kernel>& int8Kernels() {
  static const std::vector<Int8Kernel> all = {
      {"baseline-int8", &eigen_kernels::forwardBaseline, &eigen_kernels::convolveInt8Reference, [] { return true; },
       false, "baseline"},
#ifdef POPPY_EIGEN_X86_KERNELS
      {"avx512-int8", &eigen_kernels::forwardAvx512, &eigen_kernels::convolveInt8Vnni,
       [] { return avx512Supported() && __builtin_cpu_supports("avx512vnni"); }, true, "avx512"},
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

std::vector<std::string> int8KernelsSupported() {
  std::vector<std::string> out;
  for (const Int8Kernel& k : int8Kernels())
    if (k.supported()) out.push_back(k.name);
  return out;
}

std::string fastInt8Kernel() {
  std::string best;
  for (const Int8Kernel& k : int8Kernels())
    if (k.fast && k.supported()) best = k.name;
  return best;
}

std::string autoEigenKernel() {
  const std::string int8 = fastInt8Kernel();
  return int8.empty() ? bestEigenKernel() : int8;
}

int autoEigenMaxBatch(const std::string& kernel, const NetworkShape& shape) {
  std::string name = kernel;
  for (const Int8Kernel& k : int8Kernels())
    if (kernel == k.name) name = k.floatKernel;
  const double mflop = flopsPerPosition(shape) / 1e6;
  for (const Kernel& k : kernels())
    if (name == k.name) return std::max(int(k.callMflop / mflop), mflop <= k.singleMflop ? 1 : 0);
  throw std::invalid_argument("no Eigen kernel '" + kernel + "' in this build");
}

EigenEvaluator::EigenEvaluator(EigenNetwork network, const std::string& kernel) : net_(std::move(network)) {
  kernelName_ = kernel.empty() ? bestEigenKernel() : kernel;
  eigen_kernels::Int8ConvolveFunction int8Convolve = nullptr;
  bool supported = false;
  for (const Kernel& k : kernels())
    if (kernelName_ == k.name) {
      forward_ = k.forward;
      supported = k.supported();
    }
  for (const Int8Kernel& k : int8Kernels())
    if (kernelName_ == k.name) {
      forward_ = k.forward;
      int8Convolve = k.convolve;
      supported = k.supported();
    }
  if (!forward_) throw std::invalid_argument("no Eigen kernel '" + kernelName_ + "' in this build");
  if (!supported) throw std::invalid_argument("this CPU cannot run the Eigen kernel '" + kernelName_ + "'");

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
  int8Tower_.reserve(net_.tower.size());
  for (const FoldedConv& c : net_.tower) {
    tower_.push_back(view(c));
    // The tower's inputs follow a relu (never negative), as the int8 kernels' unsigned bytes need.
    if (int8Convolve && int8Convertible(c)) {  // int8Tower_ reserved: the views point into it
      const Int8Conv& q = int8Tower_.emplace_back(quantizeConv(c));
      tower_.back().int8Weight = reinterpret_cast<const signed char*>(q.weight.data());
      tower_.back().int8Scale = q.scale.data();
    }
  }
  plan_.int8Convolve = int8Convolve;
  plan_.planes = s.planes;
  plan_.squares = s.height * s.width;
  plan_.channels = s.channels;
  plan_.policySize = s.policySize;
  plan_.valueHidden = s.valueHidden;
  plan_.valueOutputs = s.valueOutputs;
  plan_.blocks = s.blocks;
  plan_.neighbours = neighbours_.data();
  plan_.input = view(net_.input);
  plan_.tower = tower_.data();
  plan_.policyPlanes = s.policyPlanes;
  plan_.policyConv = view(net_.policyConv);
  if (s.policyPlanes > 0) plan_.policyOut = view(net_.policyOut);
  plan_.valueConv = view(net_.valueConv);
  if (s.policyPlanes == 0) plan_.policyFc = view(net_.policyFc);
  plan_.valueFc1 = view(net_.valueFc1);
  plan_.valueFc2 = view(net_.valueFc2);
}

void EigenEvaluator::reserve(Scratch& scratch, int batch) const {
  if (batch <= scratch.capacity) return;
  // Grown to at least twice the old size, so a search whose batches creep up reallocates a few
  // times only; after that no call allocates.
  const int capacity = std::max(batch, 2 * scratch.capacity);
  scratch.capacity = capacity;
  const size_t columns = size_t(capacity) * size_t(plan_.squares);
  const size_t sizes[] = {size_t(plan_.planes) * columns,
                          size_t(plan_.channels) * columns,
                          size_t(plan_.channels) * columns,
                          size_t(plan_.channels) * columns,
                          9 * size_t(std::max(plan_.planes, plan_.channels)) * columns,
                          size_t(std::max(plan_.planes, plan_.channels)),
                          size_t(plan_.policyPlanes > 0 ? plan_.channels : 2) * columns,
                          size_t(plan_.policyPlanes) * columns,
                          columns,
                          size_t(plan_.valueHidden) * size_t(capacity),
                          size_t(plan_.valueOutputs) * size_t(capacity),
                          int8Tower_.empty() ? 0 : (size_t(plan_.channels) * columns + 3) / 4,  // bytes
                          int8Tower_.empty() ? 0 : size_t(capacity)};
  size_t total = kAlignFloats;
  for (size_t n : sizes) total += roundUp(n);
  scratch.memory.assign(total, 0.0f);
  float* p = scratch.memory.data();
  p += (kAlignFloats - (reinterpret_cast<uintptr_t>(p) / sizeof(float)) % kAlignFloats) % kAlignFloats;
  eigen_kernels::ForwardScratch& b = scratch.buffers;
  float* quantized = nullptr;
  float** slots[] = {&b.planes, &b.x,      &b.t,     &b.u,      &b.col, &b.zeros,    &b.policy,
                     &b.policyOut, &b.value, &b.hidden, &b.wdl, &quantized, &b.positionScale};
  static_assert(std::size(slots) == std::size(sizes));
  for (size_t i = 0; i < std::size(slots); ++i) {
    *slots[i] = p;
    p += roundUp(sizes[i]);
  }
  b.quantized = reinterpret_cast<unsigned char*>(quantized);
}

void EigenEvaluator::evaluate(const float* planes, int batch, float* policyLogits, float* wdl) {
  if (batch <= 0) return;
  std::unique_ptr<Scratch> scratch;
  {
    std::lock_guard lock(poolMutex_);
    if (!pool_.empty()) {
      scratch = std::move(pool_.back());
      pool_.pop_back();
    }
  }
  if (!scratch) scratch = std::make_unique<Scratch>();
  reserve(*scratch, batch);
  forward_(plan_, planes, batch, policyLogits, wdl, scratch->buffers);
  std::lock_guard lock(poolMutex_);
  pool_.push_back(std::move(scratch));
}

}  // namespace poppy::nn
