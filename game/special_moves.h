// Move generation for the XBetza powers outside the fast tables (betza.h SpecialMove): moves
// restricted to moving or capturing, lame and jumping leaps, hoppers, and two-leg moves.
// Only faces with such moves (Variant::specialFaces) come here, so other pieces pay nothing.
#pragma once
#include "game/types.h"
#include "game/variant.h"

namespace poppy::game {

// One destination of a special move. mid < 0: a plain board move from -> to. mid >= 0: a
// two-leg move through mid (Move::twoLeg), capturing there when mid is occupied. burn != 0: a
// move to `to` that also captures the neighbours of `to` in this mask (Move::burn).
// No default member values: lists of thousands of them are made for every piece with special
// moves, and must not be filled with zeros first (aggregate initialisation zeroes `burn`).
struct SpecialTarget {
  int16_t to;
  int16_t mid;
  uint8_t burn;
};

// The most targets one piece can have. XBetza moves yield at most one target per square of a
// 16x16 board along each line. Burning (powers.h) is the most: a fire demon reaches at most 48
// squares by area moves and 90 more by its slides, each with at most 1 + 8 + 28 choices of
// burned neighbours, 5,106 in all.
constexpr int kMaxSpecialTargets = 6144;

// Lists the special moves of `face` of colour c standing on `from`, on `board`: its XBetza
// moves first, then the moves of its powers (powers.h). XBetza targets may repeat (different
// notations can reach the same square); the caller removes duplicates among the first
// *xbetzaCount. The power targets that follow are distinct, and none of them is a plain move
// to a square the XBetza or table moves reach. Returns the number written to out.
int specialTargets(const Variant& v, const Piece* board, int face, Color c, Square from, SpecialTarget* out,
                   int* xbetzaCount = nullptr);

// Does a special move of `face` of colour c on `from` capture on `target` (at the end of its
// move or on the way)? The target counts as an enemy piece even when empty, as attack tests
// for a king's destination need.
bool specialAttacks(const Variant& v, const Piece* board, int face, Color c, Square from, Square target);

}  // namespace poppy::game
