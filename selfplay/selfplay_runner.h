// Plays many self-play games at once: their search trees share one network batch per round
// (mcts::SearchDriver). Each finished game yields its training samples (encoded position, visit
// distribution, result, root value) and its record, handed to a callback so the caller can
// save them at once: a finished game is never lost.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "mcts/search.h"
#include "nn/encoder.h"
#include "selfplay/game_record.h"
#include "selfplay/ply_cap_adjudication.h"
#include "selfplay/replay_file.h"
#include "selfplay/sample.h"

namespace poppy::selfplay {

struct SelfPlaySettings {
  mcts::SearchParams search;   // rootNoise is forced on
  int parallelGames = 32;
  int temperatureMoves = 8;    // the first plies are sampled by visit count, later ones greedy
  // Playout cap randomisation (KataGo): each move is a full search (search.playouts, root
  // noise, recorded as a training sample) with this probability, otherwise a fast search of
  // fastPlayouts without noise whose position is not trained on. 1 searches every move fully.
  double fullSearchFraction = 1.0;
  int fastPlayouts = 32;
  // Games at the ply cap: the side ahead in material by this share of the start's material is
  // credited with the win in the samples (selfplay/ply_cap_adjudication.h); 0 = off.
  double plyCapAdjudication = 0;
  std::string modelId;         // written into the game records
  uint64_t seed = 1;
};

struct SelfPlayProgress {
  int gamesFinished = 0;
  int gamesWanted = 0;
  int64_t positions = 0;       // moves played (= samples)
  double seconds = 0;
  const mcts::SearchDriver::Stats* search = nullptr;
};

using GameCallback = std::function<void(std::vector<Sample>&& samples, GameRecord&& record)>;
using ProgressCallback = std::function<void(const SelfPlayProgress&)>;

class SelfPlayRunner {
 public:
  SelfPlayRunner(game::VariantPtr variant, const nn::Encoder& encoder, mcts::Evaluator& evaluator,
                 SelfPlaySettings settings, mcts::EvalCache* cache = nullptr);

  // Plays `games` games to the end. onGame is called once per finished game; progress after
  // every move round (callers throttle printing). stop() returning true ends early, dropping
  // unfinished games. startMore() returning false (asked each time a game ends) starts no new
  // game in its place: play returns once the games under way have finished (distributed
  // actors drain this way before switching to a new model).
  void play(int games, const GameCallback& onGame, const ProgressCallback& progress = nullptr,
            const std::function<bool()>& stop = nullptr, const std::function<bool()>& startMore = nullptr);

  const mcts::SearchDriver::Stats& searchStats() const { return driver_.stats(); }

  // Called on play()'s thread before every round: where asynchronous self-play takes a new
  // model without waiting for the games under way to end (selfplay/selfplay_pool.h).
  void setBeforeRound(std::function<void()> hook) { beforeRound_ = std::move(hook); }
  // From the next round on, every game searches with `evaluator` (the eval cache emptied; the
  // trees keep what they know), and games started from then on are recorded as played by
  // `modelId`. Only between rounds: from the beforeRound hook or outside play().
  void switchModel(mcts::Evaluator& evaluator, const std::string& modelId);

 private:
  game::VariantPtr variant_;
  const nn::Encoder& encoder_;
  SelfPlaySettings settings_;
  mcts::SearchDriver driver_;
  PlyCapAdjudicator adjudicator_;
  uint64_t gamesStarted_ = 0;
  std::function<void()> beforeRound_;
};

// "checkmate", "repetition", "perpetual_check", "ply_cap", "royals_captured", "bare_king",
// "bare_kings" or "stalemate" for a finished game.
std::string reasonName(game::EndReason reason);

// Fills a finished game's result, reason and ply count from its outcome.
void finishRecord(GameRecord& record, const game::Outcome& outcome, int players);
// A record's result for `winner` (-1: "draw"): sente/gote, or for four players south, west,
// north, east.
std::string winnerName(int players, game::Color winner);

// Saves one finished self-play game into a directory laid out as a run directory: the samples
// as replay/chunk-<sequence>.rpl, then the record (its id set to the chunk's name) appended to
// games.jsonl. The record is written last: once it is there, the game counts.
void saveFinishedGame(const std::string& dir, uint64_t sequence, const ChunkInfo& info,
                      const std::vector<Sample>& samples, GameRecord& record);

}  // namespace poppy::selfplay
