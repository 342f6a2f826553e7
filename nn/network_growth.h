// Growing a trained network into a larger one that computes the same function, so that a run can
// step up its network and keep what the smaller one learned (issue 47, part 3d; KataGo's runs
// stepped their nets up in size). Function-preserving by zeros, in the manner of Net2Net and of
// zero-initialised residual branches (Goyal et al. 2017):
// - new residual blocks start as identities: their second batch norm's scale and shift are 0, so
//   the block adds nothing to its input (the input is a ReLU's output, so ReLU(x + 0) = x);
// - new channels (in the tower, inside blocks, in a spatial policy head) and new value-head units
//   are computed as a fresh network's are, but every old unit reads them with weight 0, so they
//   change nothing downstream.
// Zeros on the reading side, not on the new units themselves: a new channel held at 0 before a
// ReLU would get no gradient ever (ReLU's slope at 0 is 0). This way the first backward pass
// reaches the zero weights (old unit x live new unit), and the new capacity is used as the run
// trains. Outputs agree with the smaller network's in evaluation and in training mode.
#pragma once
#include <string>

#include "nn/network.h"
#include "nn/network_shape.h"

namespace poppy::nn {

// Empty when a network of shape `from` can grow into `to`: the same inputs, board, policy and
// value outputs, and no fewer residual blocks, tower channels or value-head units. Otherwise what
// stands in the way, in words.
std::string growthRefusal(const NetworkShape& from, const NetworkShape& to);

// Overwrites `into` (of a shape `from` can grow into; both on the CPU) with `from`'s weights and
// batch-norm statistics, grown as above. Throws std::invalid_argument with growthRefusal's words
// when the shapes do not allow it.
void growNetwork(PolicyValueNet& from, PolicyValueNet& into);

}  // namespace poppy::nn
