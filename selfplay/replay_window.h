// The training window: the newest `capacity` samples from the replay chunks in one directory.
// Chunks are named chunk-NNNNNNNNN.rpl (nine-digit zero-padded sequence numbers, see
// chunkFileName); a higher number is newer. Anything else in the directory (.tmp files left by a
// crash, other files) is ignored. A chunk that fails to read (corrupt, truncated, other variant or
// encoder) is skipped with a warning on stderr naming it, and never used.
#pragma once
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "selfplay/replay_file.h"
#include "selfplay/sample.h"

namespace poppy::selfplay {

// "chunk-000000123.rpl" for 123.
std::string chunkFileName(uint64_t sequence);
// The sequence number of a chunk file name (a bare name, no directory), or nullopt for any other
// name (including "chunk-000000123.rpl.tmp").
std::optional<uint64_t> parseChunkFileName(const std::string& name);
// One more than the highest chunk sequence number in `dir` (0 when there is none, or no dir):
// where a writer continues after a restart.
uint64_t nextChunkSequence(const std::string& dir);

// The auxiliary targets of a batch (nn/network.h), one row per sample as sampleBatch's buffers.
struct AuxiliaryTargets {
  float* replyPolicy;  // batch x policySize: the visit distribution of the game's next position,
                       // the opponent's reply; all zero when the sample has none (replyFollows)
  float* hasReply;     // batch: 1 where replyPolicy holds a reply, else 0
  float* pliesLeft;    // batch: plies from the position to the game's end (0: not recorded)
};

class ReplayWindow {
 public:
  // Loads the newest chunks of `dir` until `capacity` samples (fewer if the directory holds
  // fewer). A missing directory is an empty window.
  ReplayWindow(std::string dir, ChunkInfo expected, size_t capacity);

  // Loads chunks that appeared since the last look and drops the oldest samples beyond
  // capacity. Returns the number of samples added.
  size_t refresh();

  // Fills dense buffers with `batch` samples drawn uniformly, with replacement, from the window:
  //   planes    batch x inputSize floats (exact encoder values)
  //   policy    batch x policySize floats (the visit distribution, zero elsewhere)
  //   wdlTarget batch x 3 floats (one-hot result: 0 win, 1 draw, 2 loss)
  //   rootValues (optional) batch floats, the search value at the root
  //   aux (optional) the auxiliary targets of the same samples
  // Deterministic for a given window content and rng state (the same samples with or without
  // aux). Throws std::logic_error when empty.
  void sampleBatch(int batch, std::mt19937& rng, float* planes, float* policy, float* wdlTarget,
                   float* rootValues = nullptr, const AuxiliaryTargets* aux = nullptr) const;

  size_t size() const { return size_; }
  size_t capacity() const { return capacity_; }
  const ChunkInfo& info() const { return expected_; }
  // Sequence numbers of the chunks contributing samples, oldest first.
  std::vector<uint64_t> chunkSequences() const;
  // Paths of the chunks skipped as unreadable so far.
  const std::vector<std::string>& skipped() const { return skippedPaths_; }
  // The i-th sample of the window, 0 = oldest kept.
  const Sample& at(size_t i) const;

 private:
  struct Chunk {
    std::vector<Sample> samples;  // only those still in the window (oldest ones trimmed away)
  };
  size_t load();
  // The chunk holding the window's i-th sample, and the sample's place in it.
  std::pair<const Chunk*, size_t> locate(size_t i) const;
  // Sample s as row `row` of sampleBatch's dense buffers.
  void writeRow(const Sample& s, int row, float* planes, float* policy, float* wdlTarget, float* rootValues) const;
  void trim();
  void reindex();

  std::string dir_;
  ChunkInfo expected_;
  size_t capacity_;
  std::map<uint64_t, Chunk> chunks_;  // by sequence number, oldest first
  std::set<uint64_t> seen_;           // loaded, dropped or skipped: never read again
  std::vector<std::string> skippedPaths_;
  std::vector<size_t> ends_;  // cumulative kept counts, aligned with chunks_
  std::vector<const Chunk*> order_;
  size_t size_ = 0;
};

}  // namespace poppy::selfplay
