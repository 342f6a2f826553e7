// The Eigen forward pass behind nn/eigen_evaluator.h, as plain functions over raw pointers.
// nn/eigen_forward.cpp is compiled once per instruction set (CMakeLists.txt: baseline x86-64
// SSE2 and, on x86-64, AVX2+FMA and AVX-512), each copy under its own name and with Eigen in its
// own namespace, and EigenEvaluator picks the best one the CPU runs. So the binary runs on any
// x86-64 machine and still uses wide vectors where they exist. Nothing here names an Eigen or
// standard-library type: a type shared by copies compiled for different instruction sets could
// have its inline code taken from the wrong copy by the linker.
#pragma once

namespace poppy::nn::eigen_kernels {

struct ConvView {
  int in, out, kernel;  // kernel 1 or 3
  const float* weight;  // column-major [out x kernel*kernel*in] (nn/eigen_network.h: FoldedConv)
  const float* bias;    // [out]
  // The int8 forward's copy (nn/int8_weights.h: Int8Conv, its layout), or null: this
  // convolution runs in float. Set only for convolutions whose input is never negative (the
  // residual tower's, after a relu): their activations are quantised to unsigned bytes.
  const signed char* int8Weight = nullptr;
  const float* int8Scale = nullptr;  // [out]
};

// Rows per panel of a linear layer's weights (LinearView::panels).
constexpr int kPanelRows = 16;

struct LinearView {
  int in, out;
  const float* weight;  // column-major [out x in]
  const float* bias;    // [out]
  const float* panels;  // the same in row panels of 16 (nn/eigen_network.h: FoldedLinear::panels)
};

// The int8 weights' layout (nn/int8_weights.h): output rows per block and input channels per
// group. AVX-512 VNNI's vpdpbusd multiplies 4 consecutive bytes of its two operands and adds
// them to one of 16 32-bit lanes.
constexpr int kInt8Rows = 16;
constexpr int kInt8Group = 4;

struct ForwardPlan;
struct ForwardScratch;

// out = conv(in) + bias for a convolution with int8 weights (ConvView::int8Weight): each
// position's input is quantised to bytes with a scale of its own (its largest value becomes 255),
// so a position's answer never depends on the others in the call; the products are summed in
// 32-bit integers and scaled back to float. `in` and `out` as the float convolution's.
using Int8ConvolveFunction = void (*)(const ConvView& c, const float* in, const ForwardPlan& plan, int batch,
                                      const ForwardScratch& scratch, float* out);
// Plain C++, any CPU: the definition of the arithmetic (nn/int8_conv_reference.cpp).
void convolveInt8Reference(const ConvView&, const float*, const ForwardPlan&, int, const ForwardScratch&, float*);
#ifdef POPPY_EIGEN_X86_KERNELS
// AVX-512 VNNI (nn/int8_conv_vnni.cpp): the same bytes and the same integer sums as the reference.
void convolveInt8Vnni(const ConvView&, const float*, const ForwardPlan&, int, const ForwardScratch&, float*);
#endif

struct ForwardPlan {
  int planes, squares, channels, policySize, valueHidden, blocks;
  int valueOutputs;       // NetworkShape::valueOutputs
  int policyPlanes;       // > 0: spatial policy head (policyConv to channels, then policyOut); 0: dense
  const int* neighbours;  // [squares x 9]: the square under each 3x3 tap (row-major taps), -1 off the board
  ConvView input;
  const ConvView* tower;  // 2 * blocks
  ConvView policyConv, valueConv;
  ConvView policyOut;     // spatial head only
  LinearView policyFc, valueFc1, valueFc2;  // policyFc: dense head only
  // Runs the convolutions that have int8 weights; null: every convolution in float.
  Int8ConvolveFunction int8Convolve = nullptr;
};

// Scratch memory for one call of `batch` positions (columns = batch * squares); the caller owns
// it (nn/eigen_evaluator.cpp sizes it) so a call allocates nothing.
struct ForwardScratch {
  float* planes;  // [planes x columns]
  float* x;       // [channels x columns]
  float* t;       // [channels x columns]
  float* u;       // [channels x columns]
  float* col;     // [9 * max(planes, channels) x columns]
  float* zeros;   // [max(planes, channels)], all zero: what a 3x3 kernel reads off the board
  float* policy;  // [2 x columns], spatial head: [channels x columns]
  float* policyOut;  // spatial head: [policyPlanes x columns]
  float* value;   // [1 x columns]
  float* hidden;  // [valueHidden x batch]
  float* wdl;     // [valueOutputs x batch]
  // The int8 forward only: a convolution's input as bytes, [columns x in] (column after column,
  // as the floats), and each position's scale (byte * scale = value).
  unsigned char* quantized;
  float* positionScale;  // [batch]
};

// planes: batch x (planes x squares) floats, LibTorch's NCHW. Writes batch x policySize logits
// and batch x 3 win/draw/loss probabilities, exactly what mcts::Evaluator::evaluate promises.
using ForwardFunction = void (*)(const ForwardPlan& plan, const float* planes, int batch, float* policyLogits,
                                 float* wdl, const ForwardScratch& scratch);

void forwardBaseline(const ForwardPlan&, const float*, int, float*, float*, const ForwardScratch&);
#ifdef POPPY_EIGEN_X86_KERNELS
void forwardAvx2(const ForwardPlan&, const float*, int, float*, float*, const ForwardScratch&);
void forwardAvx512(const ForwardPlan&, const float*, int, float*, float*, const ForwardScratch&);
#endif

}  // namespace poppy::nn::eigen_kernels
