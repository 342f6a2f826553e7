// Network input planes and the policy index space, derived from a Variant. Everything is from
// the side to move's view: for gote the board is rotated 180 degrees, so one network plays both
// sides. No LibTorch here: the search and the tests use it without the network.
#pragma once
#include <vector>

#include "game/position.h"
#include "nn/network_shape.h"

namespace poppy::nn {

class Encoder {
 public:
  // Bump when planes or policy indices change: models record it and refuse another version.
  static constexpr int kVersion = 1;

  explicit Encoder(game::VariantPtr variant);

  const game::Variant& variant() const { return *variant_; }
  int planes() const { return planes_; }
  int height() const { return variant_->ranks; }
  int width() const { return variant_->files; }
  int inputSize() const { return planes_ * height() * width(); }
  int policySize() const { return policySize_; }

  // Planes, each height x width floats, in this order:
  //   own pieces, one plane per face; opponent pieces, one plane per face;
  //   own hand, one plane per hand kind (count / 8, filled); opponent hand likewise;
  //   repetitions of this position so far (count / 3, filled); side to move (1 for gote);
  //   a plane of ones (marks the board for padded convolutions).
  void encode(const game::Position& pos, float* out) const;

  // Policy index of a legal move, and back. Board moves: (from, to, flip) on the rotated board,
  // index (from * squares + to) * 2 + flip. Drops: after those, (face, to): 2*squares^2 +
  // face * squares + to. Every legal move has exactly one index.
  int moveIndex(const game::Position& pos, game::Move m) const;
  // The move an index stands for in `pos` (not checked for legality).
  game::Move indexToMove(const game::Position& pos, int index) const;

 private:
  int orient(const game::Position& pos, game::Square s) const {
    return pos.sideToMove() == 0 ? s : variant_->numSquares() - 1 - s;
  }

  game::VariantPtr variant_;
  int planes_ = 0;
  int policySize_ = 0;
};

// The shape of a network for this encoder's inputs and policy, with the given tower and value head.
inline NetworkShape networkShapeFor(const Encoder& encoder, int blocks, int channels, int valueHidden) {
  NetworkShape s;
  s.planes = encoder.planes();
  s.height = encoder.height();
  s.width = encoder.width();
  s.policySize = encoder.policySize();
  s.blocks = blocks;
  s.channels = channels;
  s.valueHidden = valueHidden;
  return s;
}

}  // namespace poppy::nn
