// A material-only search of the captures from a position ("quiescence", as alpha-beta engines
// end their searches): the side to move may stand pat on the material as it is, or capture, and
// so may the reply, until no capture pays. What it returns is the material lead the side to move
// can keep once the exchanges on the board are played out.
//
// Why: a network trained for an hour on chu shogi cannot see that a piece hangs, and HaChu, an
// alpha-beta engine searching one ply and then its captures, takes every piece that does (issue
// 41). The search's `material_weight` (mcts/search_params.h) blends this balance into the value of
// every new leaf. Material is game/material.h's (each face worth its mobility); a capture of the
// last royal piece (royal-capture variants) is worth a whole army.
#pragma once
#include <cstdint>
#include <vector>

#include "game/position.h"

namespace poppy::mcts {

class CaptureSearch {
 public:
  // Captures searched from the position: at most this many plies deep and this many positions in
  // all, so that a leaf costs at most a few network evaluations' time on a board of chu's size.
  static constexpr int kMaxPlies = 6;
  static constexpr int kMaxNodes = 200;

  explicit CaptureSearch(const game::VariantPtr& variant);

  // The side to move's material minus the other side's after the captures that pay, as a share
  // of one side's material at the start (the larger side's); a side that has lost its last royal
  // piece scores -1. Two players only. pos is left as it was given.
  float balance(game::Position& pos);
  // The same without captures: the material on the board and in hand as it stands.
  float staticBalance(const game::Position& pos) const;
  // Positions searched by the last balance().
  int nodes() const { return nodes_; }

 private:
  float search(game::Position& pos, float alpha, float beta, int plies);
  // The value of what m takes from the side not to move (0: not a capture).
  double capturedValue(const game::Position& pos, game::Move m) const;

  std::vector<double> values_;
  double startMaterial_ = 1;
  int nodes_ = 0;
};

}  // namespace poppy::mcts
