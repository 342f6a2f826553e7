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
//
// Royal-capture variants (chu) add two rules, since there a quiet move can win the game: a side
// whose last royal piece is attacked may not stand pat, it must move out of the attack (any move
// that leaves the royal unattacked; none: the royal is lost, -1); and the side to move at the
// position searched may also make a quiet move that attacks the other side's last royal piece
// (a lion jumping next to the king), which wins outright when no reply saves the king. HaChu, at
// one ply, won its chu games against Poppy this way (docs/experiments/chu.md).
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
  // Quiet moves that attack the other side's last royal, tried at the position searched: at most
  // this many (each costs a search of the replies that save the royal).
  static constexpr int kMaxRoyalThreats = 16;

  explicit CaptureSearch(const game::VariantPtr& variant);

  // The side to move's material minus the other side's after the captures that pay, as a share
  // of one side's material at the start (the larger side's); a side that has lost its last royal
  // piece scores -1. Two players only. pos is left as it was given.
  float balance(game::Position& pos);
  // The same without captures: the material on the board and in hand as it stands.
  float staticBalance(const game::Position& pos) const;
  // Positions searched by the last balance().
  int nodes() const { return nodes_; }
  // Just after a move: did it take the last royal piece of the side now to move (royal-capture
  // variants, where that ends the game)? Two players.
  static bool tookLastRoyal(const game::Position& pos) {
    return pos.variant().royalCapture && pos.royalCount(pos.sideToMove()) == 0;
  }

 private:
  struct Capture {
    game::Move move;
    double victim, attacker;  // values: what is taken, what takes
  };
  // The captures among moves, in the order they are searched; the other moves, in the
  // generator's order, into *quiet when it is given (the escapes and royal threats search them).
  std::vector<Capture> orderedCaptures(const game::Position& pos, const game::MoveList& moves,
                                       std::vector<game::Move>* quiet = nullptr) const;
  float search(game::Position& pos, float alpha, float beta, int plies);
  // The side to move's last royal is attacked: the best of the moves that leave it unattacked, or
  // -1 when none does. standPat is returned when the positions run out before any such move.
  float escape(game::Position& pos, float alpha, float beta, int plies, float standPat);
  // Quiet moves of the side to move that attack the other side's last royal, each searched; the
  // best score, or alpha when none beats it. Royal-capture variants, at the position searched.
  float royalThreats(game::Position& pos, const std::vector<game::Move>& quiet, float alpha, float beta, int plies);
  // The value of what m takes from the side not to move (0: not a capture).
  double capturedValue(const game::Position& pos, game::Move m) const;

  std::vector<double> values_;
  double startMaterial_ = 1;
  int nodes_ = 0;
};

}  // namespace poppy::mcts
