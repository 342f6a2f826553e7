// Network input planes and the policy index space, derived from a Variant. Everything is from
// the side to move's view: for gote the board is rotated 180 degrees, so one network plays both
// sides. No LibTorch here: the search and the tests use it without the network.
#pragma once
#include <cstdint>
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
  // Floats of the value answer (mcts/player_scores.h): 3 for two players, players + 1 for more.
  int valueSize() const { return variant_->numPlayers == 2 ? 3 : variant_->numPlayers + 1; }
  // Spatial layout (large boards, multi-leg moves): policy planes per square; 0 when dense.
  int policyPlanes() const { return policyPlanes_; }
  // Spatial layout: how many burning pieces of the mover the burn planes tell apart (0 where
  // no face burns or captures two without moving).
  int burnSlots() const { return burnSlots_; }

  // Planes, each height x width floats, in this order:
  //   own pieces, one plane per face; opponent pieces, one plane per face;
  //   own hand, one plane per hand kind (count / 8, filled); opponent hand likewise;
  //   repetitions of this position so far (count / 3, filled); side to move (1 for gote);
  //   a plane of ones (marks the board for padded convolutions); under check counting
  //   (miburi) then the checks given by the mover and by the opponent (count / checksToWin).
  // Four players (yonin), the board turned so that the mover plays up: for the mover and then
  // each other player clockwise, its army's pieces (a plane per face), its hand (a plane per
  // kind, count / 8), and its army's controller (four planes, one filled: the controller's
  // place clockwise from the mover); then repetitions and ones as above.
  void encode(const game::Position& pos, float* out) const;

  // Policy index of a legal move, and back. Two layouts, chosen from the variant:
  // - Dense (boards up to 9x9 without multi-leg moves, every variant before chu): board moves
  //   (from, to, flip) on the rotated board, index (from * squares + to) * 2 + flip; drops after
  //   those, 2*squares^2 + face * squares + to. Its head is a full connection (nn/network.h).
  // - Spatial (AlphaZero's chess layout, for larger boards or multi-leg moves): index
  //   plane * squares + square, where the square is the move's start (a drop's target) and the
  //   plane its kind: a displacement some piece of the variant can make, with or without a flip;
  //   a two-leg move's pair of steps; a drop of one face. A burn (or a double igui) is read at
  //   its destination instead: its plane is (which burner, flip, burned neighbours), the
  //   burner being the k-th of the mover's burning pieces in board order (square 0 first, on
  //   the rotated board). That keeps the burn planes at slots x 36 (mitsugumi: 216) where a
  //   plane per (step, neighbours) needed 4,068. A 1x1 convolution gives the planes, so the head
  //   grows with the board's area, not its square.
  // Every legal move has exactly one index, as long as the mover has no more burning pieces
  // than burnSlots(): the variant's start holds that many that can burn (both sides', since
  // captured pieces change sides), so play from the start never has more. In a position set up
  // with more, the extra burners' burns share the last slot's indices.
  int moveIndex(const game::Position& pos, game::Move m) const;
  // The move an index stands for in `pos` (not checked for legality).
  game::Move indexToMove(const game::Position& pos, int index) const;

 private:
  // Two players: a square of the board on the mover's board (turned 180 degrees for gote), and
  // back. The spatial layout (two players only) uses it both ways.
  int orient(const game::Position& pos, game::Square s) const {
    return pos.sideToMove() == 0 ? s : variant_->numSquares() - 1 - s;
  }
  // Any number of players: a square on the board turned so that the mover plays up (yonin's
  // west and east: a quarter turn), and back.
  int toView(const game::Position& pos, game::Square s) const;
  game::Square fromView(const game::Position& pos, int viewSquare) const;
  // Four players: planes per player (its army's faces, its hand kinds, its army's controller).
  int playerPlanes() const { return int(variant_->faces.size() + variant_->handKinds.size()) + variant_->numPlayers; }

  void buildSpatialPlanes();
  void countBurnSlots();
  // The slot of the mover's burner on `from` (its rank among the mover's burners in the
  // rotated board's order), and the square of the burner in a slot (-1 when there is none).
  int burnerSlot(const game::Position& pos, game::Square from) const;
  int burnerSquare(const game::Position& pos, int slot) const;
  int spatialIndex(const game::Position& pos, game::Move m) const;
  game::Move spatialMove(const game::Position& pos, int index) const;

  game::VariantPtr variant_;
  int planes_ = 0;
  int policySize_ = 0;
  int policyPlanes_ = 0;
  int burnSlots_ = 0;
  std::vector<bool> burns_;  // [face]: a burn or double igui is one of its moves

  // Spatial layout. A plane's move: displacement (dc, dr) in columns and ranks of the rotated
  // board, for two-leg moves the first step to the middle square and the second from there.
  struct PlaneKind {
    enum Type : uint8_t { kStep, kTwoLeg, kDrop, kBurn } type = kStep;
    bool flip = false;
    int dc = 0, dr = 0, dc2 = 0, dr2 = 0, face = -1;
    int mask = 0;  // kBurn: the burned neighbours, directions of the mover's view
    int slot = 0;  // kBurn: which of the mover's burners
  };
  std::vector<PlaneKind> planeKinds_;
  std::vector<int> stepPlane_;    // [flip][dr][dc] -> plane or -1 (offsets by the board size)
  std::vector<int> twoLegPlane_;  // [flip][dr1][dc1][dr2][dc2], each step in -1..1 -> plane or -1
  std::vector<int> dropPlane_;    // [face] -> plane or -1
  std::vector<int> burnPlane_;    // [burnKey] -> plane or -1; empty where nothing burns
  int stepSlot(bool flip, int dc, int dr) const {
    const int w = 2 * variant_->files - 1, h = 2 * variant_->ranks - 1;
    return (int(flip) * h + dr + variant_->ranks - 1) * w + dc + variant_->files - 1;
  }
  static int burnKey(int slot, bool flip, int mask) { return (slot * 2 + int(flip)) * 256 + mask; }
  // A Move::kBurn mask (board directions, game/neighbours.h) in the mover's view and back: for
  // gote the board turns 180 degrees, direction d becoming d + 4.
  static int orientMask(const game::Position& pos, int mask) {
    return pos.sideToMove() == 0 ? mask : ((mask << 4) | (mask >> 4)) & 0xff;
  }
  static int twoLegSlot(bool flip, int dc1, int dr1, int dc2, int dr2) {
    return (((int(flip) * 3 + dr1 + 1) * 3 + dc1 + 1) * 3 + dr2 + 1) * 3 + dc2 + 1;
  }
};

// The shape of a network for this encoder's inputs and policy, with the given tower and value head
// (and auxiliary heads, nn/network.h).
inline NetworkShape networkShapeFor(const Encoder& encoder, int blocks, int channels, int valueHidden,
                                    bool auxiliaryHeads = false) {
  NetworkShape s;
  s.valueOutputs = encoder.valueSize();
  s.planes = encoder.planes();
  s.height = encoder.height();
  s.width = encoder.width();
  s.policySize = encoder.policySize();
  s.policyPlanes = encoder.policyPlanes();
  s.blocks = blocks;
  s.channels = channels;
  s.valueHidden = valueHidden;
  s.auxiliaryHeads = auxiliaryHeads;
  return s;
}

}  // namespace poppy::nn
