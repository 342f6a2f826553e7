// Move generation for the XBetza powers outside the fast tables (betza.h SpecialMove): moves
// restricted to moving or capturing, lame and jumping leaps, hoppers, and two-leg moves.
// Only faces with such moves (Variant::specialFaces) come here, so other pieces pay nothing.
#pragma once
#include "game/types.h"
#include "game/variant.h"

namespace poppy::game {

// One destination of a special move. mid < 0: a plain board move from -> to. mid >= 0: a
// two-leg move through mid (Move::twoLeg), capturing there when mid is occupied.
struct SpecialTarget {
  Square to;
  int mid;
};

// The most targets one piece can have: each special move yields at most one target per
// square of a 16x16 board along its line, and no face has more than a few dozen of them.
constexpr int kMaxSpecialTargets = 1024;

// Lists the special moves of `face` of colour c standing on `from`, on `board`. Targets may
// repeat (different notations can reach the same square); the caller removes duplicates.
// Returns the number written to out (at most kMaxSpecialTargets).
int specialTargets(const Variant& v, const Piece* board, int face, Color c, Square from, SpecialTarget* out);

// Does a special move of `face` of colour c on `from` capture on `target` (at the end of its
// move or on the way)? The target counts as an enemy piece even when empty, as attack tests
// for a king's destination need.
bool specialAttacks(const Variant& v, const Piece* board, int face, Color c, Square from, Square target);

}  // namespace poppy::game
