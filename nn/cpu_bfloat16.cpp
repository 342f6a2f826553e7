// nn/precision.h's check of the CPU's bfloat16 instructions: CPUID for the instructions, XCR0 for
// the operating system's support of their registers. CPUID rather than __builtin_cpu_supports:
// Debian's Clang 14 knows no "amx-bf16" feature name.
#include <string>

#include "nn/precision.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

namespace poppy::nn {

#if defined(__x86_64__) || defined(__i386__)
namespace {

// The register state the operating system saves (XCR0): a feature it does not save cannot be
// used, whatever CPUID says (AVX-512 switched off, AMX on a kernel older than Linux 5.16).
unsigned long long savedStateMask() {
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx) || !((ecx >> 27) & 1)) return 0;  // no OSXSAVE
  unsigned lo = 0, hi = 0;
  __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
  return (static_cast<unsigned long long>(hi) << 32) | lo;
}

}  // namespace
#endif

bool cpuHasNativeBfloat16() {
#if defined(__x86_64__) || defined(__i386__)
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (!__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx)) return false;
  const unsigned maxSubleaf = eax;
  const unsigned long long saved = savedStateMask();
  constexpr unsigned long long kAvx512State = 0xe6;   // SSE, AVX, opmask, ZMM upper halves, ZMM16-31
  constexpr unsigned long long kAmxState = 0x60000;   // TILECFG, TILEDATA
  const bool amxBf16 = ((edx >> 22) & 1) && (saved & kAmxState) == kAmxState;  // leaf 7.0 EDX bit 22
  bool avx512Bf16 = false;
  if (maxSubleaf >= 1 && __get_cpuid_count(7, 1, &eax, &ebx, &ecx, &edx))
    avx512Bf16 = ((eax >> 5) & 1) && (saved & kAvx512State) == kAvx512State;  // leaf 7.1 EAX bit 5
  return amxBf16 || avx512Bf16;
#else
  return true;  // not x86: not known here, so no warning
#endif
}

std::string bfloat16Warning(Precision precision, bool deviceIsCpu) {
  if (precision != Precision::kBfloat16 || !deviceIsCpu || cpuHasNativeBfloat16()) return "";
  return "precision bf16 on a CPU without AVX-512 BF16 or AMX: LibTorch emulates bfloat16 here, many times "
         "slower than fp32 (an AMD EPYC with AVX2 took 88 s for 75 training steps, fp32 5 s); set precision: fp32 "
         "(docs/commands/train.md, \"bf16 training on the CPU\")";
}

}  // namespace poppy::nn
