#include "mcts/capture_search.h"

#include <algorithm>
#include <array>

#include "game/material.h"

namespace poppy::mcts {

using game::Move;
using game::Position;

CaptureSearch::CaptureSearch(const game::VariantPtr& variant)
    : values_(game::mobilityValues(*variant)), startMaterial_(game::startMaterial(variant, values_)) {}

float CaptureSearch::staticBalance(const Position& pos) const {
  const game::Color us = pos.sideToMove();
  return float((game::material(pos, us, values_) - game::material(pos, 1 - us, values_)) / startMaterial_);
}

double CaptureSearch::capturedValue(const Position& pos, Move m) const {
  if (m.isDrop()) return 0;
  const game::Variant& v = pos.variant();
  const game::Color them = 1 - pos.sideToMove();
  auto enemyValue = [&](game::Square s) -> double {
    const game::Piece p = pos.at(s);
    if (!p || game::colorOf(p) != them) return 0;
    const int face = game::faceOf(p);
    // A royal piece is worth nothing as material (it is the game), but taking it is the best
    // capture there is: order it first.
    return v.faces[size_t(face)].royal ? startMaterial_ : values_[size_t(face)];
  };
  double taken = 0;
  if (m.to != m.from) taken += enemyValue(m.to);
  if (m.isTwoLeg()) taken += enemyValue(m.mid());
  if (m.isBurn()) taken += startMaterial_ / 1000;  // burns take neighbours: a capture, searched last
  return taken;
}

float CaptureSearch::balance(Position& pos) {
  nodes_ = 0;
  return search(pos, -2.0f, 2.0f, kMaxPlies);
}

float CaptureSearch::search(Position& pos, float alpha, float beta, int plies) {
  ++nodes_;
  const float standPat = staticBalance(pos);
  if (standPat >= beta || plies == 0 || nodes_ >= kMaxNodes) return standPat;
  alpha = std::max(alpha, standPat);

  game::MoveList moves;
  pos.generateLegal(moves);
  struct Capture {
    Move move;
    double victim, attacker;
  };
  std::array<Capture, 256> captures;
  int count = 0;
  for (const Move& m : moves) {
    const double victim = capturedValue(pos, m);
    if (victim <= 0 || count == int(captures.size())) continue;
    captures[size_t(count++)] = {m, victim, values_[size_t(game::faceOf(pos.at(m.from)))]};
  }
  // The most valuable victim first, taken by the least valuable attacker (MVV-LVA): the order in
  // which the cut-offs come soonest.
  std::sort(captures.begin(), captures.begin() + count, [](const Capture& a, const Capture& b) {
    return a.victim != b.victim ? a.victim > b.victim : a.attacker < b.attacker;
  });
  const bool royalCapture = pos.variant().royalCapture;
  const game::Color us = pos.sideToMove();
  for (int i = 0; i < count; ++i) {
    pos.makeMove(captures[size_t(i)].move);
    const float score = royalCapture && pos.royalCount(1 - us) == 0 ? 1.0f : -search(pos, -beta, -alpha, plies - 1);
    pos.unmakeMove();
    if (score >= beta) return score;
    alpha = std::max(alpha, score);
    if (nodes_ >= kMaxNodes) break;
  }
  return alpha;
}

}  // namespace poppy::mcts
