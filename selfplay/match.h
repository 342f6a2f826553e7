// Games between two players with alternating colours, many at once: network players share one
// batched search per round (as in self-play), rollout players search the games where it is their
// turn at once (a thread each, up to the hardware's threads), random players move directly, and
// external players (MovePlayer: a USI engine, ...) are asked in parallel threads, one player
// object per game slot. Used by the gate of `poppy train`, `poppy gate`, `poppy match` and the
// learning benchmarks.
//
// Time limits (PlayerSpec::moveSeconds): the games in which a network player is to move are
// searched together, so they share one deadline per round: every one of those moves gets
// moveSeconds of wall time, and the CPU (or GPU) is shared by the games of that round. A
// rollout player's moves get moveSeconds each, on a thread of their own (with more games at once
// than hardware threads, some wait for a thread before their time starts). External players keep
// their own clocks (play/engines/usi_client.h).
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "common/game_clock.h"
#include "mcts/evaluator.h"
#include "mcts/search_params.h"
#include "nn/encoder.h"
#include "selfplay/adjudication.h"
#include "selfplay/game_record.h"

namespace poppy::mcts {
class RolloutPlayer;
}

namespace poppy::selfplay {

// A timed match's clocks (MatchSettings::clock) as the player to move sees them when asked.
struct ClockReading {
  int64_t senteMs = 0, goteMs = 0;  // main time left
  int64_t byoyomiMs = 0, incrementMs = 0;
  int64_t moverLeftMs(int side) const { return (side == 0 ? senteMs : goteMs) + byoyomiMs; }
};

// What an external player sees of a game.
struct GameSoFar {
  const game::Position& pos;              // the position to move in, history included
  const std::string& startSfen;           // where the game started
  const std::vector<std::string>& moves;  // every USI move since startSfen
  const ClockReading* clock = nullptr;    // a timed match only
};

// The reason of a game lost on time in a timed match.
inline constexpr const char* kLostOnTime = "time";

// The failure of a game that stopped on a rule the two programs disagree about (an XBoard engine
// refusing a move Poppy's rules allow, or playing one they forbid): the game is recorded as a
// draw with this reason, never scored as a win for either side.
inline constexpr const char* kRuleDisagreement = "rule_disagreement";

// An external player's answer: a move in USI, or a forfeit.
struct MoveChoice {
  std::string usi;         // checked by playMatch: a move that does not parse or is illegal loses
  std::string engineText;  // the move as the player wrote it, when that is not Poppy's notation
  // Non-empty: the player loses the game ("resign", "illegal_move", "timeout", "crash"), or
  // kRuleDisagreement: the game is drawn.
  std::string failure;
  std::string detail;  // what happened, for the game record
  // The player's score of the position it moved in, centipawns from its own view (a USI
  // engine's last `score cp` / `score mate` before bestmove), for adjudication; none if it gave none.
  std::optional<int> scoreCp;
};

// A player that picks its own moves. playMatch makes one per game slot (games played at once)
// and may call the players of different slots from different threads at the same time, never
// one player from two threads.
class MovePlayer {
 public:
  virtual ~MovePlayer() = default;
  // A game starts in this slot (the player may restart a process that failed before).
  virtual void newGame(const game::Position& /*start*/) {}
  virtual MoveChoice choose(const GameSoFar& game) = 0;
  // The game ended; result from this player's view: 1 win, 0 draw, -1 loss.
  virtual void gameOver(int /*result*/) {}
};

// Makes the player of one slot (0, 1, ...). May throw: playMatch then throws the same error.
using MovePlayerFactory = std::function<std::unique_ptr<MovePlayer>(int slot)>;

// A book move for pos, or Move::none() when pos is out of the book.
using BookLookup = std::function<game::Move(const game::Position& pos, std::mt19937& rng)>;

struct PlayerSpec {
  enum class Kind { kNetwork, kRollout, kRandom, kExternal };
  Kind kind = Kind::kRandom;
  std::string name;                      // for records and reports
  mcts::Evaluator* evaluator = nullptr;  // kNetwork
  mcts::SearchParams search;             // kNetwork (rootNoise is turned off); playouts = nodes per move
  int simulations = 1000;                // kRollout
  double moveSeconds = 0;                // kNetwork, kRollout: also stop each move after this wall time (0: no limit)
  MovePlayerFactory external;            // kExternal
  BookLookup book;                       // optional: played instead of searching while in the book
};

// A game's first position: an SFEN and moves from it (legal: the caller checks them).
struct MatchOpening {
  std::string sfen;
  std::vector<std::string> moves;
};

struct MatchSettings {
  int games = 100;
  int parallelGames = 32;
  // Network players sample their first moves by visits (variety): this many plies from the
  // start, or from the end of the opening when openings are given.
  int openingTemperaturePlies = 2;
  int plyCap = 200;
  uint64_t seed = 1;
  // Game i starts from openings[(i / 2) % size()], so each opening is played with both colour
  // assignments; empty: every game starts from the variant's start position.
  std::vector<MatchOpening> openings;
  std::string idPrefix = "match-";  // record ids are idPrefix + game number
  // A resumed match: the games numbered here were played before (their results are in
  // `resumed`); the match plays the others, and its result includes them.
  std::set<int> alreadyPlayed;
  // A clock for both sides of every game (byoyomi and/or Fischer increment), external players
  // only (they are told the times with each move, as USI's btime/wtime/byoyomi/binc/winc): a
  // move is charged from when the player is asked to when it answers, and a player whose answer
  // comes more than flagGraceMs after its time ran out loses on time (kLostOnTime). Book moves
  // take no time. Not enabled: no clock (the players' own per-move limits).
  common::ClockSettings clock;
  int64_t flagGraceMs = 100;
  // Games ended early on the players' agreed scores (selfplay/adjudication.h): network players
  // score their root value, USI engines their last `score`; the others give none. Not enabled: none.
  AdjudicationRules adjudication;
};

// The reason of a game ended by MatchSettings::adjudication (result: the winner, or a draw).
inline constexpr const char* kAdjudication = "adjudication";

struct MatchResult {
  int winsA = 0, draws = 0, lossesA = 0;
  int winsAAsSente = 0, drawsAAsSente = 0, lossesAAsSente = 0;  // the part of those where A was sente
  int games() const { return winsA + draws + lossesA; }
  double score() const;        // A's score, draws counted as half
  double elo() const;          // A's Elo difference implied by the score
  // The Wilson 95% interval of the score (meaningful also at 0 or 100%; (0, 1) without games).
  std::pair<double, double> scoreInterval95() const;
  // 95% interval of the Elo difference, from the Wilson interval of the score; eloMargin95 is
  // its half-width.
  std::pair<double, double> eloInterval95() const;
  double eloMargin95() const;
  std::vector<GameRecord> records;  // in the order games finished
  std::vector<bool> aWasSente;      // per record
};

// Called after every finished game (its record is soFar.records.back()).
using MatchProgress = std::function<void(const MatchResult& soFar, int gamesWanted)>;

// Game i has A as sente when i is even. Throws std::invalid_argument for a network player
// without an evaluator, an external player without a factory, a clock with a player that is
// not external, and whatever a factory throws.
// `resumed`: the results of settings.alreadyPlayed's games, which the result starts from.
MatchResult playMatch(const game::VariantPtr& variant, const nn::Encoder& encoder, const PlayerSpec& a,
                      const PlayerSpec& b, const MatchSettings& settings, const MatchProgress& progress = nullptr,
                      MatchResult resumed = {});

// The game number of a match record's id (idPrefix + up to 8 digits), or -1 when the id is not
// one of that match's.
int gameNumberOf(const std::string& id, const std::string& idPrefix);

// A rollout player's searches, one per game slot (so the slots' searches can run at once), each
// seeded from the match's seed, the player (0 = A, 1 = B) and the slot.
std::vector<std::unique_ptr<mcts::RolloutPlayer>> rolloutPlayersPerSlot(int simulations, const MatchSettings& settings,
                                                                        int player, int slots);

// The results of a match's earlier games, from their records (ids idPrefix + game number, A
// sente in the even ones). Throws std::invalid_argument naming a record that does not fit.
MatchResult resultOfRecords(const std::vector<GameRecord>& records, const std::string& idPrefix, std::set<int>& numbers);

// Elo difference for a score in (0, 1), clamped away from 0 and 1.
double eloFromScore(double score);

}  // namespace poppy::selfplay
