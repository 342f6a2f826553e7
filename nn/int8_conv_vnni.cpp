// The int8 convolution of nn/eigen_kernels.h with AVX-512 VNNI: the arithmetic of
// nn/int8_conv_reference.cpp (the same bytes, the same integer sums, the same float scaling: the
// same outputs to the last bit), 64 multiplications per instruction where the float forward's AVX-512
// fused multiply-add does 16. Compiled with -mavx512f -mavx512bw -mavx512vnni -ffp-contract=off
// (CMakeLists.txt) and called only on CPUs that have them (nn/eigen_evaluator.cpp), so nothing
// here may be an inline function or template another file could share: the linker could keep
// this copy for every caller. Hence no standard-library header beyond types and intrinsics.
#include <immintrin.h>

#include <cstddef>
#include <cstdint>

#include "nn/eigen_kernels.h"

namespace poppy::nn::eigen_kernels {
namespace {

constexpr int kLanes = 16;                       // 32-bit lanes of a register
constexpr int kBlockBytes = kInt8Rows * kInt8Group;  // one register of weights

// As the reference's: each position's largest value becomes 255, the rest x * (255 / largest)
// rounded to nearest (the default rounding of vcvtps2dq), ties to even.
void quantizePositions(const float* in, int channels, int squares, int batch, unsigned char* bytes, float* scale) {
  const std::size_t size = std::size_t(channels) * std::size_t(squares);
  for (int b = 0; b < batch; ++b) {
    const float* x = in + std::size_t(b) * size;
    __m512 top = _mm512_setzero_ps();
    for (std::size_t i = 0; i < size; i += kLanes) {
      const __mmask16 mask = size - i >= kLanes ? __mmask16(0xffff) : __mmask16((1u << (size - i)) - 1);
      top = _mm512_max_ps(top, _mm512_maskz_loadu_ps(mask, x + i));
    }
    const float largest = _mm512_reduce_max_ps(top);
    const __m512 inverse = _mm512_set1_ps(largest > 0 ? 255.0f / largest : 0.0f);
    scale[b] = largest / 255.0f;
    unsigned char* q = bytes + std::size_t(b) * size;
    for (std::size_t i = 0; i < size; i += kLanes) {
      const __mmask16 mask = size - i >= kLanes ? __mmask16(0xffff) : __mmask16((1u << (size - i)) - 1);
      const __m512i levels = _mm512_cvtps_epi32(_mm512_mul_ps(_mm512_maskz_loadu_ps(mask, x + i), inverse));
      _mm512_mask_cvtusepi32_storeu_epi8(q + i, mask, levels);  // unsigned saturation: at most 255
    }
  }
}

// Output rows block0*16 .. (block0+Packets)*16 of `Squares` columns from n0 on: accumulators
// [Squares x Packets] stay in registers while the weights are read once per tile, tap after tap
// and group after group; each group of 4 input bytes of a square is broadcast to a register
// (as nn/eigen_forward.cpp's directTile with floats).
template <int Packets, int Squares>
void tile(const ConvView& c, const ForwardPlan& p, const ForwardScratch& m, int n0, int block0, float* out) {
  const int groups = c.in / kInt8Group;
  const std::size_t tapBytes = std::size_t(groups) * kBlockBytes, rowBlockBytes = 9 * tapBytes;
  const unsigned char* zeros = reinterpret_cast<const unsigned char*>(m.zeros);
  __m512i acc[Squares][Packets];
  const unsigned char* taps[Squares][9];
  for (int s = 0; s < Squares; ++s) {
    const int n = n0 + s, square = n % p.squares;
    const unsigned char* position = m.quantized + std::size_t(n - square) * c.in;
    for (int k = 0; k < 9; ++k) {
      const int from = p.neighbours[9 * square + k];
      taps[s][k] = from < 0 ? zeros : position + std::size_t(from) * c.in;
    }
    for (int q = 0; q < Packets; ++q) acc[s][q] = _mm512_setzero_si512();
  }
  const signed char* weights = c.int8Weight + std::size_t(block0) * rowBlockBytes;
  for (int k = 0; k < 9; ++k) {
    const signed char* w = weights + std::size_t(k) * tapBytes;
    for (int g = 0; g < groups; ++g, w += kBlockBytes) {
      __m512i wq[Packets];
      for (int q = 0; q < Packets; ++q) wq[q] = _mm512_loadu_si512(w + std::size_t(q) * rowBlockBytes);
      for (int s = 0; s < Squares; ++s) {
        int32_t four;
        __builtin_memcpy(&four, taps[s][k] + g * kInt8Group, sizeof four);
        const __m512i x = _mm512_set1_epi32(four);
        for (int q = 0; q < Packets; ++q) acc[s][q] = _mm512_dpbusd_epi32(acc[s][q], x, wq[q]);
      }
    }
  }
  for (int s = 0; s < Squares; ++s) {
    const int n = n0 + s;
    const __m512 positionScale = _mm512_set1_ps(m.positionScale[n / p.squares]);
    for (int q = 0; q < Packets; ++q) {
      const int row = (block0 + q) * kInt8Rows;
      const __m512 scale = _mm512_mul_ps(positionScale, _mm512_loadu_ps(c.int8Scale + row));
      // A multiplication and an addition, as the reference (compiled with -ffp-contract=off, not fused).
      const __m512 value =
          _mm512_add_ps(_mm512_mul_ps(_mm512_cvtepi32_ps(acc[s][q]), scale), _mm512_loadu_ps(c.bias + row));
      _mm512_storeu_ps(out + std::size_t(n) * c.out + row, value);
    }
  }
}

// Every column, `Squares` at a time (the last few one by one), for the row blocks block0 ..
// block0 + Packets - 1: the row blocks' weights (2 x 9 taps x 32 channels x 16 rows, 9 KB for the
// default network) stay in the L1 cache for every column.
template <int Packets>
void rows(const ConvView& c, const ForwardPlan& p, const ForwardScratch& m, int columns, int block0, float* out) {
  // Registers: Squares x Packets accumulators, Packets weights and one broadcast of 32.
  constexpr int kSquares = Packets == 2 ? 12 : 16;
  int n = 0;
  for (; n + kSquares <= columns; n += kSquares) tile<Packets, kSquares>(c, p, m, n, block0, out);
  for (; n + 4 <= columns; n += 4) tile<Packets, 4>(c, p, m, n, block0, out);
  for (; n < columns; ++n) tile<Packets, 1>(c, p, m, n, block0, out);
}

}  // namespace

void convolveInt8Vnni(const ConvView& c, const float* in, const ForwardPlan& p, int batch, const ForwardScratch& m,
                      float* out) {
  quantizePositions(in, c.in, p.squares, batch, m.quantized, m.positionScale);
  const int columns = batch * p.squares, blocks = c.out / kInt8Rows;
  int b = 0;
  for (; b + 2 <= blocks; b += 2) rows<2>(c, p, m, columns, b, out);
  if (b < blocks) rows<1>(c, p, m, columns, b, out);
}

}  // namespace poppy::nn::eigen_kernels
