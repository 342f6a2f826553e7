// LibTorch's SGD step (momentum, dampening, weight decay, Nesterov) done with multi-tensor
// kernels. torch::optim::SGD::step updates each parameter with its own handful of kernels: for
// Poppy's ~40 weight tensors that is ~200 launches a step, on a GPU as long as the forward pass
// itself. The arithmetic here is the same, on the momentum buffers kept in the optimizer's own
// state, so checkpoints keep LibTorch's format and either step can follow the other.
#pragma once
#include <torch/torch.h>

namespace poppy::training {

// One step of `optimizer` over the parameters that have gradients.
void multiTensorSgdStep(torch::optim::SGD& optimizer);

}  // namespace poppy::training
