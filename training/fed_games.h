// Games from a feed (`--distributed`'s learner, training/game_feed.h), taken in on the feed's
// thread: each chunk is checked before anything is written, then saved as this machine's
// self-play saves a game (the chunk, then the record in games.jsonl that names it), and counted.
// The run's thread reads the counts (FedGameIntake::counts) and folds them into its state;
// games.jsonl stays the truth, so a kill between the two is mended on resume.
#pragma once
#include <cstdint>
#include <exception>
#include <mutex>
#include <string>

#include "selfplay/chunk_info.h"
#include "training/game_feed.h"
#include "training/run_log.h"

namespace poppy::training {

struct FedCounts {
  int64_t games = 0, samples = 0, plies = 0, decisive = 0;
  int64_t stale = 0;    // played by an older model than the one last published
  int64_t refused = 0;  // whose chunk did not decode or did not match its record
  FedCounts minus(const FedCounts& o) const {
    return {games - o.games, samples - o.samples, plies - o.plies, decisive - o.decisive, stale - o.stale,
            refused - o.refused};
  }
};

class FedGameIntake {
 public:
  // runDir: where replay/ and games.jsonl are; info: what this run's chunks hold.
  FedGameIntake(std::string runDir, selfplay::ChunkInfo info, const RunLog& log)
      : runDir_(std::move(runDir)), info_(info), log_(log) {}

  // Before the feed starts: the first chunk number to use, and the best model's generation.
  void begin(uint64_t nextChunk, int generation);
  // On the feed's thread: checks, saves and counts one game.
  void take(FedGame&& game);
  // The generation games are now expected from (games of an older one count, as "stale").
  void published(int generation);
  // The counts so far; rethrows a failure to save a game (a full disk: the run must stop, not
  // drop games).
  FedCounts counts();

 private:
  std::string runDir_;
  selfplay::ChunkInfo info_;
  const RunLog& log_;
  std::mutex mutex_;  // guards everything below
  FedCounts counts_;
  std::exception_ptr failure_;
  uint64_t nextChunk_ = 0;
  int generation_ = 0;
};

}  // namespace poppy::training
