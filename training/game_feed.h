// Self-play games played beside the training loop: the learner's side of `poppy train
// --distributed` (distributed/mpi_game_feed.h is the MPI one), or asynchronous self-play on this
// machine (training/local_game_feed.h). The learner (training/train_loop.cpp) then plays no games
// in its own loop: it starts the feed with its best model, saves every game the feed delivers
// into the run directory as its own self-play would (chunk, then record), trains while the
// ratio of samples trained to samples received allows, gates, and publishes each new best.
// This header knows nothing of MPI, so the training loop builds without it.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "selfplay/game_record.h"

namespace poppy::training {

// One finished game as an actor sent it: its replay chunk's bytes (selfplay/replay_file.h, not
// yet checked) and its record; `source` names the sender in messages ("rank 3").
struct FedGame {
  std::vector<uint8_t> chunk;
  selfplay::GameRecord record;
  std::string source;
};

struct FeedStatus {
  int actors = 0;        // actors that have said hello
  int actorsActive = 0;  // of those, the ones not known to have stopped or died
  int64_t bytesReceived = 0;
};

class GameFeed {
 public:
  using GameSink = std::function<void(FedGame&&)>;
  virtual ~GameFeed() = default;

  // Starts the feed: each finished game reaches `sink`, on the feed's own thread, one at a time;
  // actors play with the model file `modelPath` (generation `generation`) until publish() says
  // otherwise, and with the run configuration whose text is `configText`.
  virtual void start(const std::string& configText, const std::string& modelPath, int generation,
                     const GameSink& sink) = 0;
  // A new best model: actors switch to it at their next game.
  virtual void publish(const std::string& modelPath, int generation) = 0;
  virtual FeedStatus status() const = 0;
  // The run is over (failure: "", or why it failed): tells the actors, waits up to
  // `timeoutSeconds` for each to answer, and stops the feed (no game reaches the sink after it
  // returns). Later calls do nothing.
  virtual void finish(double timeoutSeconds, const std::string& failure = "") = 0;
  // Why no more games will come ("" while they can): the run stops with it rather than wait.
  virtual std::string failure() const { return ""; }
  // Who plays the games, for the run's messages and metrics: actors on other ranks (MPI) or a
  // thread of this process.
  virtual bool distributed() const { return true; }
};

}  // namespace poppy::training
