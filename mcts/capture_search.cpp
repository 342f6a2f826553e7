#include "mcts/capture_search.h"

#include <algorithm>

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

namespace {

// Is colour c's only royal piece attacked? (False when c has none or more than one: losing one of
// two royals does not end the game.)
bool lastRoyalAttacked(const Position& pos, game::Color c) {
  return pos.royalCount(c) == 1 && pos.royalAttacked(c);
}

}  // namespace

std::vector<CaptureSearch::Capture> CaptureSearch::orderedCaptures(const Position& pos, const game::MoveList& moves,
                                                                   std::vector<Move>* quiet) const {
  std::vector<Capture> captures;
  for (const Move& m : moves) {
    const double victim = capturedValue(pos, m);
    if (victim > 0)
      captures.push_back({m, victim, values_[size_t(game::faceOf(pos.at(m.from)))]});
    else if (quiet)
      quiet->push_back(m);
  }
  // The most valuable victim first, taken by the least valuable attacker (MVV-LVA): the order in
  // which the cut-offs come soonest.
  std::sort(captures.begin(), captures.end(), [](const Capture& a, const Capture& b) {
    return a.victim != b.victim ? a.victim > b.victim : a.attacker < b.attacker;
  });
  return captures;
}

float CaptureSearch::search(Position& pos, float alpha, float beta, int plies) {
  ++nodes_;
  const float standPat = staticBalance(pos);
  const bool royalCapture = pos.variant().royalCapture;
  const game::Color us = pos.sideToMove();
  if (royalCapture && plies > 0 && pos.inCheck() && pos.royalCount(us) == 1)
    return escape(pos, alpha, beta, plies, standPat);
  if (standPat >= beta || plies == 0 || nodes_ >= kMaxNodes) return standPat;
  alpha = std::max(alpha, standPat);

  game::MoveList moves;
  pos.generateLegal(moves);
  // At the position searched, royal-capture variants try the quiet royal threats too.
  const bool threats = royalCapture && plies == kMaxPlies;
  std::vector<Move> quiet;
  for (const Capture& c : orderedCaptures(pos, moves, threats ? &quiet : nullptr)) {
    pos.makeMove(c.move);
    const float score = tookLastRoyal(pos) ? 1.0f : -search(pos, -beta, -alpha, plies - 1);
    pos.unmakeMove();
    if (score >= beta) return score;
    alpha = std::max(alpha, score);
    if (nodes_ >= kMaxNodes) return alpha;
  }
  if (threats) alpha = royalThreats(pos, quiet, alpha, beta, plies);
  return alpha;
}

float CaptureSearch::escape(Position& pos, float alpha, float beta, int plies, float standPat) {
  const game::Color us = pos.sideToMove();
  game::MoveList moves;
  pos.generateLegal(moves);
  // Captures first (taking the attacker is often the way out, taking the other royal always),
  // then the quiet moves in the generator's order.
  std::vector<Move> ordered, quiet;
  for (const Capture& c : orderedCaptures(pos, moves, &quiet)) ordered.push_back(c.move);
  ordered.insert(ordered.end(), quiet.begin(), quiet.end());
  float best = -1.0f;  // no move saves the royal: it is taken, and the game with it
  for (const Move& m : ordered) {
    pos.makeMove(m);
    float score;
    if (tookLastRoyal(pos)) {
      score = 1.0f;
    } else if (lastRoyalAttacked(pos, us)) {
      pos.unmakeMove();
      continue;
    } else if (nodes_ >= kMaxNodes) {
      // A way out, but no positions left to search it: the material as it stands.
      pos.unmakeMove();
      return std::max(best, standPat);
    } else {
      score = -search(pos, -beta, -std::max(alpha, best), plies - 1);
    }
    pos.unmakeMove();
    best = std::max(best, score);
    if (best >= beta) return best;
  }
  return best;
}

float CaptureSearch::royalThreats(Position& pos, const std::vector<Move>& quiet, float alpha, float beta,
                                  int plies) {
  if (pos.royalCount(1 - pos.sideToMove()) != 1) return alpha;
  int tried = 0;
  for (const Move& m : quiet) {
    pos.makeMove(m);
    // inCheck: the side now to move has a royal attacked; it has one, so the last.
    const bool threat = pos.inCheck();
    const float score = threat ? -search(pos, -beta, -alpha, plies - 1) : alpha;
    tried += threat;
    pos.unmakeMove();
    if (score >= beta) return score;
    alpha = std::max(alpha, score);
    if (tried == kMaxRoyalThreats || nodes_ >= kMaxNodes) break;
  }
  return alpha;
}

}  // namespace poppy::mcts
