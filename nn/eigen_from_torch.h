// From a LibTorch PolicyValueNet to the Eigen forward's network (nn/eigen_network.h). Model
// files hold LibTorch archives, so the weights are read here, in LibTorch code, once per load;
// everything after that runs without LibTorch.
#pragma once
#include "nn/eigen_network.h"
#include "nn/network.h"

namespace poppy::nn {

// Every weight of `net`, in LibTorch's layouts. Checks that the module is exactly the
// architecture the Eigen forward runs (the modules, their options such as kernel size, padding
// and bias, and every parameter and buffer), so a network grown a part the forward does not
// know is refused rather than silently run without it. Throws UnsupportedNetwork saying what
// does not fit.
TorchLayoutWeights torchLayoutWeights(PolicyValueNetImpl& net);

// torchLayoutWeights folded (foldNetwork).
EigenNetwork eigenNetworkOf(PolicyValueNetImpl& net);

}  // namespace poppy::nn
