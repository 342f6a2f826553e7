// Game end: no legal move loses; repetition draws (or, under perpetual check, the checking
// side loses); the ply cap draws or counts impasse points (shogi).
#include <vector>

#include "game/position.h"

namespace poppy::game {

int Position::repetitionsSoFar() const {
  const uint64_t h = hash();
  int n = 0;
  // The hash includes the side to move, so only every other earlier state can match where two
  // players alternate (four players' turns jump: every state is looked at).
  const int step = variant_->numPlayers == 2 ? 2 : 1;
  for (int i = int(states_.size()) - 1 - step; i >= 0; i -= step)
    if (states_[i].hash == h) ++n;
  return n;
}

Outcome Position::outcome(int plyCap) const {
  const Variant& v = *variant_;
  const int players = v.numPlayers;
  if (players > 2) return fourPlayerOutcome(plyCap);
  if (v.checksToWin) {
    const Outcome won = checkCountOutcome();
    if (won.over()) return won;
  }
  if (v.royalCapture) {
    const Outcome end = royalCaptureOutcome();
    if (end.over()) return end;
  } else if (!hasLegalMove()) {
    if (v.stalemateDraws && !inCheck()) return Outcome{EndReason::kStalemate, -1};
    return Outcome{EndReason::kNoLegalMove, opponent(side_)};
  }

  const int last = int(states_.size()) - 1;
  const uint64_t h = hash();
  int seen = 1, first = last;
  for (int i = last - 1; i >= 0 && seen < v.repetitionCount; --i)
    if (states_[i].hash == h) {
      ++seen;
      first = i;
    }
  if (seen >= v.repetitionCount) {
    // Who moved into state j: the side to move one ply before it.
    auto moverOf = [&](int j) { return ((side_ - (last - j) - 1) % players + players) % players; };
    if (v.perpetualCheckLoses) {
      // Chu (perpetual_attack.cpp): an attack on a piece counts as a check here.
      std::vector<bool> attacks;
      if (v.perpetualAttackLoses) attacksSince(first, attacks);
      bool allChecks[kMaxPlayers], moved[kMaxPlayers] = {};
      for (int c = 0; c < players; ++c) allChecks[c] = true;
      for (int j = first + 1; j <= last; ++j) {
        const Color c = moverOf(j);
        moved[c] = true;
        const bool attacked = v.perpetualAttackLoses && !states_[j].inCheck && attacks[size_t(j)];
        allChecks[c] = allChecks[c] && (states_[j].inCheck || attacked);
      }
      int checkers = 0;
      Color checker = -1;
      for (int c = 0; c < players; ++c)
        if (moved[c] && allChecks[c]) {
          ++checkers;
          checker = c;
        }
      if (checkers == 1) {
        // Called perpetual check only when every move of the loser's stretch was a check.
        bool onlyChecks = true;
        for (int j = first + 1; j <= last; ++j) onlyChecks = onlyChecks && (moverOf(j) != checker || states_[j].inCheck);
        return Outcome{onlyChecks ? EndReason::kPerpetualCheck : EndReason::kPerpetualAttack, opponent(checker)};
      }
    }
    if (v.repetitionResult == RepetitionResult::kLossForRepeater)
      return Outcome{EndReason::kRepetition, side_};  // the mover of the last move loses
    return Outcome{EndReason::kRepetition, -1};
  }

  if (plyCap > 0 && gamePly() >= plyCap) {
    if (v.plyCapRule == PlyCapRule::kImpassePoints && players == 2) {
      int points[2] = {0, 0};
      for (Square s = 0; s < v.numSquares(); ++s)
        if (board_[s]) points[colorOf(board_[s])] += v.impassePoints[faceOf(board_[s])];
      for (Color c = 0; c < 2; ++c)
        for (size_t k = 0; k < v.handKinds.size(); ++k)
          points[c] += hand_[c][k] * v.impassePoints[v.handKinds[k].setupFace];
      const bool short0 = points[0] < v.impasseThreshold, short1 = points[1] < v.impasseThreshold;
      if (short0 != short1) return Outcome{EndReason::kPlyCap, short0 ? 1 : 0};
    }
    return Outcome{EndReason::kPlyCap, -1};
  }
  return Outcome{};
}

}  // namespace poppy::game
