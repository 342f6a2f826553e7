// Games of more than two players (yonin shogi) between two players: A in one seat and B in
// every other, A's seat going round game by game (game i: seat i % players, so south, west,
// north, east in turn). The gate of a four-player `poppy train` run uses it: the candidate
// against three copies of the best. Network players search the games of a round in one batch
// per player, as in playMatch; each move is a fresh search (the seats around a table are two
// players' networks, and a tree is searched by one). Rollout players (the yardstick without a
// network) search the games where it is their turn at once, a thread each; random players move
// directly. No engine plays these games, so there are no external players.
#pragma once
#include <utility>
#include <vector>

#include "selfplay/match.h"

namespace poppy::selfplay {

struct SeatMatchResult {
  int players = 4;
  int winsA = 0;       // games A won
  int winsOthers = 0;  // games one of B's seats won
  int draws = 0;
  double drawPointsA = 0;  // A's part of the drawn games: 1 / the players still in, 0 if A was out
  int games() const { return winsA + winsOthers + draws; }
  // A's points per game (a win 1, a draw its part): a player as strong as B scores 1 / players.
  double share() const;
  // A's win rate (wins / games) and its Wilson 95% interval.
  double winRate() const;
  std::pair<double, double> winRateInterval95() const;
  std::vector<GameRecord> records;  // in the order games finished
  std::vector<int> seatOfA;         // per record
};

// Called after every finished game.
using SeatMatchProgress = std::function<void(const SeatMatchResult& soFar, int gamesWanted)>;

// Network, rollout and random players (std::invalid_argument for an external player, a network
// player without a model, or a two-player variant).
// settings: games, parallelGames, openingTemperaturePlies (both players sample their first
// moves by visits, for variety), plyCap, seed, idPrefix; openings and resuming are not used.
SeatMatchResult playSeatMatch(const game::VariantPtr& variant, const nn::Encoder& encoder, const PlayerSpec& a,
                              const PlayerSpec& b, const MatchSettings& settings,
                              const SeatMatchProgress& progress = nullptr);

}  // namespace poppy::selfplay
