// The forward pass of nn/eigen_kernels.h. Compiled several times (CMakeLists.txt), once per
// instruction set, with POPPY_EIGEN_FORWARD_NAME naming this copy's function and `Eigen` defined
// to a namespace of this copy's own: Eigen's templates are instantiated here with that set's
// vector width, and distinct names keep the linker from merging the copies' inline functions.
// Everything else in this file has internal linkage for the same reason.
#ifndef POPPY_EIGEN_FORWARD_NAME
#error "compile with -DPOPPY_EIGEN_FORWARD_NAME=forwardBaseline (or another name of nn/eigen_kernels.h)"
#endif
#ifndef EIGEN_DONT_PARALLELIZE
#error "the Eigen forward runs on the caller's thread only: compile with -DEIGEN_DONT_PARALLELIZE"
#endif

#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstring>

#include "nn/eigen_kernels.h"

namespace poppy::nn::eigen_kernels {
namespace {

using MatrixMap = Eigen::Map<Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic>>;
using ConstMatrixMap = Eigen::Map<const Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic>>;
using ConstVectorMap = Eigen::Map<const Eigen::Matrix<float, Eigen::Dynamic, 1>>;

// planes (NCHW, one position after another) -> [planes x columns], one column per square.
void toColumns(const float* planes, int count, int squares, int batch, float* out) {
  for (int b = 0; b < batch; ++b)
    for (int p = 0; p < count; ++p) {
      const float* src = planes + (std::size_t(b) * count + p) * squares;
      float* dst = out + std::size_t(b) * squares * count + p;
      for (int s = 0; s < squares; ++s) dst[std::size_t(s) * count] = src[s];
    }
}

// [channels x columns] -> im2col [9*channels x columns]: column n holds the channel vectors of
// the 9 squares around n's square (row-major taps), zeros off the board. Each is one copy.
void im2col(const float* x, int channels, const ForwardPlan& p, int batch, float* col) {
  const std::size_t bytes = sizeof(float) * std::size_t(channels);
  for (int b = 0; b < batch; ++b) {
    const float* position = x + std::size_t(b) * p.squares * channels;
    float* out = col + std::size_t(b) * p.squares * 9 * channels;
    for (int s = 0; s < p.squares; ++s) {
      const int* around = p.neighbours + 9 * s;
      for (int k = 0; k < 9; ++k, out += channels) {
        if (around[k] < 0) std::memset(out, 0, bytes);
        else std::memcpy(out, position + std::size_t(around[k]) * channels, bytes);
      }
    }
  }
}

using Packet = Eigen::internal::packet_traits<float>::type;
constexpr int kLanes = Eigen::internal::packet_traits<float>::size;
// Vector registers: 32 with AVX-512, 16 with AVX2 and SSE2 on x86-64.
constexpr int kRegisters = kLanes >= 16 ? 32 : 16;

// A 3x3 convolution computed directly from the input columns, for `Squares` columns from n0
// on and the output rows r0 .. r0 + Packets * kLanes: accumulators [Packets x Squares] stay in
// registers while the weights are read once per tile, tap after tap and channel after channel,
// each input value broadcast to a register. A square off the board reads `zeros`. The matrix
// product of `convolve` below does the same arithmetic after copying the 9 neighbours of every
// column into im2col and then into Eigen's packed layout: two copies that took a third as long
// as the product itself (perf, micro self-play), and none here.
template <int Packets, int Squares>
void directTile(const ConvView& c, const float* in, const ForwardPlan& p, int n0, int r0, const float* zeros,
                float* out) {
  Packet acc[Squares][Packets];
  const float* taps[Squares][9];
  for (int s = 0; s < Squares; ++s) {
    const int n = n0 + s, square = n % p.squares;
    const float* position = in + std::size_t(n - square) * c.in;
    for (int k = 0; k < 9; ++k) {
      const int from = p.neighbours[9 * square + k];
      taps[s][k] = from < 0 ? zeros : position + std::size_t(from) * c.in;
    }
    for (int q = 0; q < Packets; ++q) acc[s][q] = Eigen::internal::ploadu<Packet>(c.bias + r0 + q * kLanes);
  }
  for (int k = 0; k < 9; ++k) {
    const float* w = c.weight + std::size_t(k) * c.in * c.out + r0;
    for (int i = 0; i < c.in; ++i, w += c.out) {
      Packet wq[Packets];
      for (int q = 0; q < Packets; ++q) wq[q] = Eigen::internal::ploadu<Packet>(w + q * kLanes);
      for (int s = 0; s < Squares; ++s) {
        const Packet x = Eigen::internal::pset1<Packet>(taps[s][k][i]);
        for (int q = 0; q < Packets; ++q) acc[s][q] = Eigen::internal::pmadd(wq[q], x, acc[s][q]);
      }
    }
  }
  for (int s = 0; s < Squares; ++s)
    for (int q = 0; q < Packets; ++q)
      Eigen::internal::pstoreu(out + std::size_t(n0 + s) * c.out + r0 + q * kLanes, acc[s][q]);
}

// Every column of the call, `Squares` at a time (the last few one by one), in row blocks of
// Packets * kLanes. The row block is the outer loop: its weights (16 rows x 9 taps x 32
// channels, 18 KB for the default network with AVX2) stay in the L1 cache for every column.
template <int Packets>
void directConvolve(const ConvView& c, const float* in, const ForwardPlan& p, int columns, const float* zeros,
                    float* out) {
  constexpr int kSquares = std::min(8, (kRegisters - Packets - 1) / Packets);
  constexpr int kRows = Packets * kLanes;
  for (int r0 = 0; r0 < c.out; r0 += kRows) {
    int n = 0;
    for (; n + kSquares <= columns; n += kSquares) directTile<Packets, kSquares>(c, in, p, n, r0, zeros, out);
    for (; n < columns; ++n) directTile<Packets, 1>(c, in, p, n, r0, zeros, out);
  }
}

// out = conv(in) + bias, [c.out x columns]. Convolutions with int8 weights go to the plan's int8
// kernel (nn/eigen_kernels.h: Int8ConvolveFunction) when it has one. 3x3 kernels whose output rows fill whole vector
// registers are computed directly (above); the rest, 1x1 kernels among them, as one matrix
// product over im2col columns (`col`: its scratch, 3x3 only).
MatrixMap convolve(const ConvView& c, const float* in, const ForwardPlan& p, int batch, const ForwardScratch& m,
                   float* out) {
  const int columns = batch * p.squares;
  MatrixMap o(out, c.out, columns);
  if (c.int8Weight && p.int8Convolve) {
    p.int8Convolve(c, in, p, batch, m, out);
    return o;
  }
  if (c.kernel == 3 && c.out % (2 * kLanes) == 0) {
    directConvolve<2>(c, in, p, columns, m.zeros, out);
    return o;
  }
  if (c.kernel == 3 && c.out % kLanes == 0) {
    directConvolve<1>(c, in, p, columns, m.zeros, out);
    return o;
  }
  const float* src = in;
  if (c.kernel == 3) {
    im2col(in, c.in, p, batch, m.col);
    src = m.col;
  }
  const int depth = c.kernel * c.kernel * c.in;
  // One matrix product for every square of every position of the call: batch 1 has as many
  // columns as squares, so even single positions make a proper product, not a matrix-vector one.
  o.noalias() = ConstMatrixMap(c.weight, c.out, depth) * ConstMatrixMap(src, depth, columns);
  o.colwise() += ConstVectorMap(c.bias, c.out);
  return o;
}

ConstVectorMap biasOf(const LinearView& l) { return ConstVectorMap(l.bias, l.out); }

// o = w * x for `Columns` columns of x from c0 on, w read from its row panels
// (nn/eigen_network.h: FoldedLinear::panels). Eigen's matrix product copies ("packs") all of w
// into its own layout on every call; with a few columns that copy costs more than the
// arithmetic when w is large (shogi's policy layer: 14,256 x 162 floats, 9 MB; a quarter of a
// call's time at batch 8 went to that copy). The panels are that layout made once: each is read
// from start to end into accumulators [kPanelRows x Columns] that stay in registers.
template <int Columns>
void panelProduct(const LinearView& l, const float* x, int c0, MatrixMap& o) {
  using Accumulator = Eigen::Matrix<float, kPanelRows, Columns>;
  using PanelRow = Eigen::Map<const Eigen::Matrix<float, kPanelRows, 1>>;
  using Inputs = Eigen::Map<const Eigen::Matrix<float, 1, Columns>, 0, Eigen::InnerStride<>>;
  const float* inputs = x + std::size_t(c0) * l.in;
  for (int r0 = 0; r0 < l.out; r0 += kPanelRows) {
    const float* panel = l.panels + std::size_t(r0) * l.in;
    Accumulator sum = Accumulator::Zero();
    for (int k = 0; k < l.in; ++k)
      sum.noalias() += PanelRow(panel + std::size_t(k) * kPanelRows) * Inputs(inputs + k, Eigen::InnerStride<>(l.in));
    if (r0 + kPanelRows <= l.out) o.block<kPanelRows, Columns>(r0, c0) = sum;
    else o.block(r0, c0, l.out - r0, Columns) = sum.topRows(l.out - r0);  // the last panel's padding
  }
}

// From 2 to this many positions the panels beat Eigen's product (`poppy bench nn` on shogi: 1.6x
// at batch 2 down to 1.1x at 16, AVX2 and AVX-512 alike; on micro, whose layers are small, they
// are even; above 16 Eigen's product wins).
constexpr int kPanelMaxColumns = 16;

// o = w * x, [l.out x batch].
void product(const LinearView& l, const float* x, int batch, MatrixMap& o) {
  // One column is a matrix-vector product, for which Eigen reads w once without packing it.
  if (batch == 1 || batch > kPanelMaxColumns) {
    o.noalias() = ConstMatrixMap(l.weight, l.out, l.in) * ConstMatrixMap(x, l.in, batch);
    return;
  }
  int c = 0;
  for (; c + 4 <= batch; c += 4) panelProduct<4>(l, x, c, o);
  switch (batch - c) {
    case 3: panelProduct<3>(l, x, c, o); break;
    case 2: panelProduct<2>(l, x, c, o); break;
    case 1: panelProduct<1>(l, x, c, o); break;
    default: break;
  }
}

// out = relu(w * in + bias) or, without relu, w * in + bias: [l.out x batch].
void linear(const LinearView& l, const float* in, int batch, float* out, bool relu) {
  MatrixMap o(out, l.out, batch);
  product(l, in, batch, o);
  if (relu) o = (o.colwise() + biasOf(l)).cwiseMax(0.0f);
  else o.colwise() += biasOf(l);
}

}  // namespace

void POPPY_EIGEN_FORWARD_NAME(const ForwardPlan& p, const float* planes, int batch, float* policyLogits, float* wdl,
                              const ForwardScratch& m) {
  if (batch <= 0) return;
  toColumns(planes, p.planes, p.squares, batch, m.planes);

  MatrixMap x = convolve(p.input, m.planes, p, batch, m, m.x);
  x = x.cwiseMax(0.0f);
  for (int b = 0; b < p.blocks; ++b) {
    const ConvView& c1 = p.tower[2 * b];
    const ConvView& c2 = p.tower[2 * b + 1];
    MatrixMap t = convolve(c1, m.x, p, batch, m, m.t);
    t = t.cwiseMax(0.0f);
    MatrixMap u = convolve(c2, m.t, p, batch, m, m.u);
    x = (u + x).cwiseMax(0.0f);
  }

  // Policy: 1x1 convolution to 2 planes, relu, then the full connection. The planes' buffer,
  // column-major [2 x columns], is per position the square-major vector the folded policy_fc
  // reads (nn/eigen_network.h), so it is used in place as [2*squares x batch].
  MatrixMap policy = convolve(p.policyConv, m.x, p, batch, m, m.policy);
  policy = policy.cwiseMax(0.0f);
  if (p.policyPlanes > 0) {
    // Spatial head: one more 1x1 convolution to a plane per kind of move, [planes x columns];
    // logit plane * squares + square of each position is its (plane, column) entry.
    convolve(p.policyOut, m.policy, p, batch, m, m.policyOut);
    for (int b = 0; b < batch; ++b)
      for (int s = 0; s < p.squares; ++s) {
        const float* column = m.policyOut + (std::size_t(b) * p.squares + s) * p.policyPlanes;
        float* logits = policyLogits + std::size_t(b) * p.policySize + s;
        for (int k = 0; k < p.policyPlanes; ++k) logits[std::size_t(k) * p.squares] = column[k];
      }
  } else {
    linear(p.policyFc, m.policy, batch, policyLogits, false);
  }

  // Value: 1x1 convolution to 1 plane, relu, hidden layer with relu, valueOutputs logits
  // (3: win, draw, loss), softmax.
  MatrixMap value = convolve(p.valueConv, m.x, p, batch, m, m.value);
  value = value.cwiseMax(0.0f);
  linear(p.valueFc1, m.value, batch, m.hidden, true);
  linear(p.valueFc2, m.hidden, batch, m.wdl, false);
  const int outputs = p.valueOutputs;
  for (int b = 0; b < batch; ++b) {
    const float* z = m.wdl + outputs * b;
    float top = z[0];
    for (int k = 1; k < outputs; ++k) top = std::fmax(top, z[k]);
    float e[8], sum = 0;
    for (int k = 0; k < outputs; ++k) sum += e[k] = std::exp(z[k] - top);
    for (int k = 0; k < outputs; ++k) wdl[outputs * b + k] = e[k] / sum;
  }
}

}  // namespace poppy::nn::eigen_kernels
