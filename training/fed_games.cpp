#include "training/fed_games.h"

#include <filesystem>

#include "common/generation_name.h"
#include "selfplay/game_record.h"
#include "selfplay/replay_file.h"
#include "selfplay/replay_window.h"

namespace poppy::training {

void FedGameIntake::begin(uint64_t nextChunk, int generation) {
  std::lock_guard<std::mutex> lock(mutex_);
  nextChunk_ = nextChunk;
  generation_ = generation;
}

void FedGameIntake::published(int generation) {
  std::lock_guard<std::mutex> lock(mutex_);
  generation_ = generation;
}

void FedGameIntake::take(FedGame&& g) {
  std::vector<selfplay::Sample> samples;
  std::string problem;
  try {
    samples = selfplay::decodeReplayChunk("game from " + g.source, g.chunk.data(), g.chunk.size(), info_);
    if (g.record.samples != int(samples.size()))
      problem = "game from " + g.source + ": its record counts " + std::to_string(g.record.samples) +
                " samples, its chunk holds " + std::to_string(samples.size());
  } catch (const selfplay::ReplayError& e) {
    problem = e.what();
  }
  std::lock_guard<std::mutex> lock(mutex_);
  if (!problem.empty()) {
    ++counts_.refused;
    log_.say("warning: " + problem + "; not saved");
    return;
  }
  if (failure_) return;  // the learner stops at its next look at the counts
  try {
    const std::string chunk = selfplay::chunkFileName(nextChunk_);
    selfplay::writeReplayChunkBytes((std::filesystem::path(runDir_) / "replay" / chunk).string(), g.chunk);
    ++nextChunk_;
    g.record.id = chunk.substr(0, chunk.find('.'));
    selfplay::appendGameRecords((std::filesystem::path(runDir_) / "games.jsonl").string(), {g.record});
  } catch (...) {
    failure_ = std::current_exception();
    return;
  }
  ++counts_.games;
  counts_.samples += int64_t(samples.size());
  counts_.plies += g.record.plies;
  counts_.decisive += g.record.result != "draw";
  counts_.stale += g.record.model != common::generationName(generation_);
}

FedCounts FedGameIntake::counts() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (failure_) std::rethrow_exception(failure_);
  return counts_;
}

}  // namespace poppy::training
