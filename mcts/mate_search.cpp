#include "mcts/mate_search.h"

namespace poppy::mcts {

using game::Move;
using game::MoveList;
using game::Outcome;
using game::Position;

// Running out of budget makes attack() answer "no mate" and defend() "an escape", so a cut
// search can only miss mates, never claim one that is not there.
namespace {
bool takesRoyalPiece(const Position& pos, Move m) {
  const game::Variant& v = pos.variant();
  auto royal = [&](game::Square s) { return pos.at(s) && v.faces[game::faceOf(pos.at(s))].royal; };
  return (m.to != m.from && royal(m.to)) || (m.isTwoLeg() && royal(m.mid()));
}
}  // namespace

bool MateSearch::attack(Position& pos, int plies, Move* first) {
  MoveList moves;
  pos.generateLegal(moves);
  const bool royalCapture = pos.variant().royalCapture;
  for (const Move& m : moves) {
    if (outOfBudget()) return false;
    // Under royal capture (chu) taking a royal is the attack that ends the game; it need not check.
    const bool takesRoyal = royalCapture && !m.isDrop() && takesRoyalPiece(pos, m);
    pos.makeMove(m);
    ++nodes_;
    if (!pos.inCheck() && !takesRoyal) {
      pos.unmakeMove();
      continue;
    }
    const Outcome o = pos.outcome(plyCap_);
    bool mates = false;
    if (o.over())
      mates = o.winner == attacker_;
    else if (plies >= 3)
      mates = defend(pos, plies - 1);
    pos.unmakeMove();
    if (mates) {
      if (first) *first = m;
      return true;
    }
  }
  return false;
}

bool MateSearch::defend(Position& pos, int plies) {
  MoveList replies;
  pos.generateLegal(replies);
  for (const Move& m : replies) {
    if (outOfBudget()) return false;
    pos.makeMove(m);
    ++nodes_;
    const Outcome o = pos.outcome(plyCap_);
    // A reply that ends the game loses for the defender only if the attacker is the winner
    // (a repetition draw or the ply cap is an escape).
    const bool lost = o.over() ? o.winner == attacker_ : attack(pos, plies - 1, nullptr);
    pos.unmakeMove();
    if (!lost) return false;
  }
  return true;
}

Move MateSearch::quick(Position& pos, int maxPlies, int& plies) {
  attacker_ = pos.sideToMove();
  Move m = Move::none();
  for (int d = 1; d <= maxPlies; d += 2)
    if (attack(pos, d, &m)) {
      plies = d;
      return m;
    }
  return Move::none();
}

MateResult MateSearch::find(Position& pos, int maxPlies) {
  MateResult r;
  nodes_ = 0;
  stopped_ = false;
  attacker_ = pos.sideToMove();
  if (pos.outcome(plyCap_).over()) return r;
  for (int d = 1; d <= maxPlies; d += 2) {
    Move m = Move::none();
    if (attack(pos, d, &m)) {
      r.found = true;
      r.plies = d;
      const int64_t budget = maxNodes_;
      auto stopTest = std::move(stopTest_);
      maxNodes_ = 0;  // the line of a proven mate is always collected in full
      stopTest_ = nullptr;
      stopped_ = false;
      collectLine(pos, d, r.line);
      maxNodes_ = budget;
      stopTest_ = std::move(stopTest);
      break;
    }
    if (outOfBudget()) {
      r.budgetExhausted = true;
      break;
    }
  }
  r.nodes = nodes_;
  return r;
}

void MateSearch::collectLine(Position& pos, int plies, std::vector<Move>& line) {
  int made = 0;
  while (plies >= 1) {
    // The attacker: a move of the shortest mate.
    Move m = Move::none();
    int d = 1;
    while (d <= plies && !attack(pos, d, &m)) d += 2;
    if (m.isNone()) break;  // cannot happen for a proven line; stop rather than loop
    line.push_back(m);
    pos.makeMove(m);
    ++made;
    if (pos.outcome(plyCap_).over()) break;
    // The defender: the reply after which the attacker's mate is longest.
    MoveList replies;
    pos.generateLegal(replies);
    Move best = Move::none();
    int bestLength = -1;
    for (const Move& r : replies) {
      pos.makeMove(r);
      int length = 0;
      if (!pos.outcome(plyCap_).over()) {
        length = 1;
        while (length <= d - 2 && !attack(pos, length, nullptr)) length += 2;
      }
      pos.unmakeMove();
      if (length > bestLength) {
        bestLength = length;
        best = r;
      }
    }
    if (best.isNone()) break;
    line.push_back(best);
    pos.makeMove(best);
    ++made;
    if (pos.outcome(plyCap_).over()) break;
    plies = bestLength;
  }
  for (; made > 0; --made) pos.unmakeMove();
}

}  // namespace poppy::mcts
