// The architecture of a policy/value network, as model files record it. No LibTorch: model
// headers are read by commands that never load a network.
#pragma once

namespace poppy::nn {

struct NetworkShape {
  int planes = 0, height = 0, width = 0, policySize = 0;  // from the Encoder
  int blocks = 4;                                          // residual blocks
  int channels = 32;                                       // channels in the tower
  int valueHidden = 32;                                    // width of the value head's hidden layer
  int policyPlanes = 0;  // the Encoder's spatial policy planes; 0: a dense policy head
  // The value head's outputs, a softmax: (win, draw, loss) for two players; for more, each
  // player's win (the mover first, then clockwise) and the draw (mcts/player_scores.h).
  int valueOutputs = 3;
  // Auxiliary heads, trained and never searched with (nn/network.h): the opponent's reply
  // policy and the plies left to the game's end. Model files lacking the field have none.
  bool auxiliaryHeads = false;  // last: aggregate order
};

// Floating-point operations of one forward pass for one position (a multiply-add counts two): for
// GFLOP/s figures, and the size of a network where `inference: auto` chooses (nn/eigen_evaluator.h).
inline double flopsPerPosition(const NetworkShape& s) {
  const double area = s.height * s.width;
  const double c = s.channels;
  double macs = area * s.planes * c * 9;    // input convolution
  macs += s.blocks * 2 * area * c * c * 9;  // tower
  macs += area * c;                         // value head's 1x1 convolution
  if (s.policyPlanes > 0)
    macs += area * c * c + area * c * s.policyPlanes;  // spatial policy: two 1x1 convolutions
  else
    macs += area * c * 2 + 2 * area * s.policySize;  // dense policy: 1x1 to two planes, full connection
  macs += area * s.valueHidden + s.valueHidden * s.valueOutputs;
  // The auxiliary heads are left out: a search never runs them.
  return 2 * macs;
}

}  // namespace poppy::nn
