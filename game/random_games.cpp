#include "game/random_games.h"

#include <algorithm>
#include <random>

#include "game/position.h"

namespace poppy::game {

RandomGameStats playRandomGames(const VariantPtr& variant, int games, int plyCap, uint64_t seed) {
  RandomGameStats s;
  std::mt19937_64 rng(seed);
  MoveList legal;
  for (int g = 0; g < games; ++g) {
    Position pos(variant);
    for (;;) {
      const Outcome o = pos.outcome(plyCap);
      if (o.over()) {
        if (o.reason == EndReason::kPlyCap) ++s.capped;
        else if (o.draw()) ++s.drawn;
        else ++s.decisive;
        break;
      }
      legal.clear();
      pos.generateLegal(legal);
      ++s.positions;
      s.legalMoves += legal.size();
      s.maxLegalMoves = std::max(s.maxLegalMoves, int(legal.size()));
      pos.makeMove(legal[std::uniform_int_distribution<int>(0, legal.size() - 1)(rng)]);
      ++s.plies;
    }
    ++s.games;
  }
  return s;
}

}  // namespace poppy::game
