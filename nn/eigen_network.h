// The policy/value network (nn/network.h) as plain float arrays for the Eigen forward pass
// (nn/eigen_evaluator.h): batch norm folded into the convolutions and every matrix laid out the
// way that forward reads it. No LibTorch and no Eigen here: the weights come in as LibTorch lays
// them out (nn/eigen_from_torch.h copies them from a loaded module), and folding and reordering
// are plain loops, so both are testable and readable without either library.
#pragma once
#include <stdexcept>
#include <string>
#include <vector>

#include "nn/eigen_kernels.h"
#include "nn/network_shape.h"

namespace poppy::nn {

// A network the Eigen forward cannot run (an architecture it does not know, an inconsistent
// set of weights). The message says what does not fit.
class UnsupportedNetwork : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// ---------------------------------------------------------------------------------------------
// Input: the weights as LibTorch stores them.

// A convolution without bias followed by batch norm in eval mode.
struct ConvBnWeights {
  int in = 0, out = 0, kernel = 0;  // kernel: 1 or 3 (padding kernel / 2, stride 1)
  std::vector<float> weight;         // [out][in][kernel][kernel]
  std::vector<float> gamma, beta;    // batch norm weight and bias, [out]
  std::vector<float> mean, var;      // running statistics, [out]
  double eps = 1e-5;                 // LibTorch's default
};

struct LinearWeights {
  int in = 0, out = 0;
  std::vector<float> weight;  // [out][in]
  std::vector<float> bias;    // [out]
};

// Every weight of a PolicyValueNet (nn/network.h), in LibTorch's layouts.
struct TorchLayoutWeights {
  NetworkShape shape;
  ConvBnWeights input;
  std::vector<ConvBnWeights> tower;  // two per residual block: conv1+bn1, conv2+bn2
  ConvBnWeights policyConv, valueConv;
  ConvBnWeights policyOut;  // spatial policy head only (shape.policyPlanes > 0)
  LinearWeights policyFc, valueFc1, valueFc2;  // policyFc: dense policy head only
};

// ---------------------------------------------------------------------------------------------
// Output: folded weights in the forward's layouts.
//
// The forward keeps activations as column-major [channels x (batch * squares)] matrices: one
// column per square of each position, its channels contiguous. A 3x3 convolution is then one
// matrix product of the weights [out x 9*in] with the im2col matrix [9*in x columns], whose
// column holds the 9 neighbour squares' channel vectors one after the other (zeros off the
// board), so each is one contiguous copy. (nn/eigen_forward.cpp computes most 3x3 convolutions
// directly, reading the same weight columns tap after tap, without building that matrix.)

struct FoldedConv {
  int in = 0, out = 0, kernel = 0;
  // Column-major [out x kernel*kernel*in]; column (ky*kernel + kx)*in + c holds LibTorch's
  // weight[o][c][ky][kx] times the batch norm's scale gamma/sqrt(var+eps) of channel o.
  std::vector<float> weight;
  std::vector<float> bias;  // [out]: beta - mean * scale
};

struct FoldedLinear {
  int in = 0, out = 0;
  std::vector<float> weight;  // column-major [out x in]
  std::vector<float> bias;    // [out]
  // The same weights in row panels for calls of a few positions, read once from start to end:
  // panel p holds rows eigen_kernels::kPanelRows*p.. as [in x kPanelRows] (a row's weights kPanelRows apart),
  // the last one padded with zero rows.
  std::vector<float> panels;
};

struct EigenNetwork {
  NetworkShape shape;
  FoldedConv input;
  std::vector<FoldedConv> tower;  // two per residual block
  FoldedConv policyConv, valueConv;
  FoldedConv policyOut;  // spatial policy head: one output plane per kind of move
  // The heads' first layers read the 1x1 convolution's output in the forward's layout (per
  // position, square-major: input index s*channels + c) instead of LibTorch's channel-major
  // flatten (c*squares + s); their columns are permuted to match, so no copy is needed.
  FoldedLinear policyFc, valueFc1, valueFc2;
};

// Folds batch norm into the convolutions and reorders every matrix. Throws UnsupportedNetwork
// when a size does not fit the shape (naming the layer), or for a kernel other than 1 or 3.
EigenNetwork foldNetwork(const TorchLayoutWeights& weights);

// One convolution + batch norm folded (exposed for tests).
FoldedConv foldConvBn(const ConvBnWeights& w, const std::string& name);

}  // namespace poppy::nn
