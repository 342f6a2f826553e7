// Miburi shogi's rule (seed 002: "First player to check three times wins"), behind
// Variant::checksToWin: every move that leaves the opponent in check counts for its mover, and
// the move that brings a side's count to checksToWin wins the game. The counts are part of the
// position: in its hash (so repetitions and the search's tables tell them apart) and in its SFEN
// (a fifth field, "1+0": checks given by sente and by gote; game/sfen.cpp).
#include "game/position.h"

namespace poppy::game {

// A Zobrist-style key for "colour c has given n checks", 0 for none, so that a position without
// checks hashes as in any other variant.
uint64_t checkCountKey(Color c, int n) {
  if (n == 0) return 0;
  uint64_t x = 0x9E3779B97F4A7C15ull * uint64_t(1 + c * (kMaxChecksToWin + 1) + n);  // splitmix64
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

void Position::countCheck(Color mover) {
  State& st = states_.back();
  st.hash ^= checkCountKey(mover, st.checks[mover]);
  ++st.checks[mover];
  st.hash ^= checkCountKey(mover, st.checks[mover]);
}

bool Position::wonByChecks() const { return variant_->checksToWin && checkCountOutcome().over(); }

Outcome Position::checkCountOutcome() const {
  const int need = variant_->checksToWin;
  for (Color c = 0; c < 2; ++c)
    if (checksGiven(c) >= need) return Outcome{EndReason::kChecks, c};
  return Outcome{};
}

}  // namespace poppy::game
