// How big a game is: uniformly random games from the start, with the legal moves met and how the
// games ended. `poppy variants --random-games N` prints it, and a training config takes its
// numbers from it: the Dirichlet noise's alpha (about 10 / the legal moves per position, as
// AlphaZero scaled it for chess, shogi and Go) and the ply cap (above most games' length).
#pragma once
#include <cstdint>

#include "game/variant.h"

namespace poppy::game {

struct RandomGameStats {
  int games = 0;
  int64_t positions = 0;    // positions with a move to choose (the last one of each game excluded)
  int64_t legalMoves = 0;   // the legal moves of those positions, summed
  int maxLegalMoves = 0;
  int64_t plies = 0;        // over all games
  int decisive = 0;         // ended by the rules with a winner
  int drawn = 0;            // ended by the rules without one (repetition, stalemate, ...)
  int capped = 0;           // reached the ply cap
  double legalMovesPerPosition() const { return positions ? double(legalMoves) / double(positions) : 0.0; }
  double pliesPerGame() const { return games ? double(plies) / games : 0.0; }
};

// Plays `games` games of uniformly random legal moves from the variant's start, each to its end
// by the rules or to plyCap plies. Deterministic for a seed.
RandomGameStats playRandomGames(const VariantPtr& variant, int games, int plyCap, uint64_t seed);

}  // namespace poppy::game
