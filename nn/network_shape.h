// The architecture of a policy/value network, as model files record it. No LibTorch: model
// headers are read by commands that never load a network.
#pragma once

namespace poppy::nn {

struct NetworkShape {
  int planes = 0, height = 0, width = 0, policySize = 0;  // from the Encoder
  int blocks = 4;                                          // residual blocks
  int channels = 32;                                       // channels in the tower
  int valueHidden = 32;                                    // width of the value head's hidden layer
};

}  // namespace poppy::nn
