// The left-right reflection of a training sample: the encoder's planes with each rank read from
// the other edge, and the dense policy's indices moved to the reflected squares. Where the rules
// are the same in a mirror (every piece moves as its own reflection), the reflected position has
// the reflected best moves and the same value, so a sample and its reflection teach the same
// thing on two positions: the trainer reflects half of each batch (`training.mirror`), as KataGo
// and AlphaGo trained on Go's eight symmetries. No LibTorch here.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "nn/encoder.h"

namespace poppy::nn {

class BoardMirror {
 public:
  // The reflection of `encoder`'s samples, or nullopt with the reason in `whyNot` where a mirror
  // would change the game: a face that does not move as its own reflection (tori's left and right
  // quails are each other's), XBetza or other special powers (not read for symmetry), more than two
  // players, or the spatial policy layout (chu and the larger boards).
  static std::optional<BoardMirror> forEncoder(const Encoder& encoder, std::string* whyNot = nullptr);

  // In place, one sample: `planes` is encoder.inputSize() floats, `policy` encoder.policySize().
  void reflectPlanes(float* planes) const;
  void reflectPolicy(float* policy) const;
  // The index of the reflected move (a permutation of the policy indices that is its own inverse).
  int reflectedIndex(int index) const { return reflectedIndex_[size_t(index)]; }

 private:
  BoardMirror(const Encoder& encoder);

  int planes_ = 0, files_ = 0, ranks_ = 0;
  std::vector<int> reflectedIndex_;
};

}  // namespace poppy::nn
