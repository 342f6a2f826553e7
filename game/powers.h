// Powers that no notation covers, chosen per piece by the variant file (Face::areaSteps,
// burnCount, iguiCount; docs/RULES.md "Mitsugumi shogi"): area moves (area_moves.cpp), and
// burning and double igui (burning.cpp). special_moves.cpp is their one caller, so move
// generation and attack tests reach them through the special-move path like XBetza moves.
#pragma once
#include <bitset>

#include "game/special_moves.h"
#include "game/types.h"
#include "game/variant.h"

namespace poppy::game {

using SquareSet = std::bitset<kMaxSquares>;

// The squares an area move of up to `steps` king steps reaches from `from`: every step goes to
// a neighbour, through empty squares only; a step onto an enemy piece captures it and ends the
// move, own pieces block. The start counts as empty once left, and is never in the result (a
// way back there is a turn skip, listed by powerTargets). `enemyAt` (>= 0) is a square to read
// as holding an enemy piece, as attack tests need for an empty target.
SquareSet areaDestinations(const Variant& v, const Piece* board, Color c, Square from, int steps, Square enemyAt = -1);

// Appends the moves of the powers of `face` (of colour c, on `from`) to out, at most `room`:
// area moves to squares not in `reached` (the squares its table and XBetza moves reach, as
// plain moves); a turn skip (an area move back home, written as a two-leg pass through an
// empty neighbour); burns after every move to another square (reached or by area), one target
// per choice of burned neighbours; and igui without moving (one capture: a two-leg igui; two:
// a burn with to == from). Returns the number appended.
int powerTargets(const Variant& v, const Piece* board, int face, Color c, Square from, const SquareSet& reached,
                 SpecialTarget* out, int room);

// Do the powers of `face` (colour c, on `from`) capture on `target`? `reached` holds the
// squares its table and XBetza moves reach with an enemy piece read on target. An empty
// target counts as holding a piece that may be burned.
bool powerAttacks(const Variant& v, const Piece* board, int face, Color c, Square from, Square target,
                  const SquareSet& reached);

}  // namespace poppy::game
