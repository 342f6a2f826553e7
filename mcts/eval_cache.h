// A fixed-size cache of network answers keyed by position, so that a position met again (a
// transposition, the same opening in many games, a reused tree) skips the network. It stores
// what expansion needs and nothing else: the WDL and the priors of the legal moves in
// generateLegal order (the moves themselves are regenerated anyway when a node is expanded).
// Memory is bounded: a power-of-two table, one entry per slot, a new entry replaces the old.
// Not thread-safe: one search driver owns it.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace poppy::mcts {

class EvalCache {
 public:
  // 2^log2Entries slots, each with room for the priors of up to maxMoves legal moves;
  // positions with more legal moves are not cached (counted as skipped).
  // valueSize: floats of the evaluator's value answer (mcts/player_scores.h: 3 for two players).
  explicit EvalCache(int log2Entries = 16, int maxMoves = 128, int valueSize = 3);

  // The key for a position: the search mixes the repetition count into the Zobrist hash,
  // because the network sees it (nn::Encoder's repetition plane).
  // On a hit copies numMoves priors and valueSize value floats (the WDL for two players) out. A hit needs the same key and the same
  // number of legal moves (a cheap guard against the rare 64-bit key collision).
  bool lookup(uint64_t key, int numMoves, float* priors, float* values);
  void store(uint64_t key, int numMoves, const float* priors, const float* values);
  void clear();

  int64_t hits() const { return hits_; }
  int64_t misses() const { return misses_; }
  int64_t skipped() const { return skipped_; }
  size_t slots() const { return entries_.size(); }
  int maxMoves() const { return maxMoves_; }
  int valueSize() const { return valueSize_; }
  size_t memoryBytes() const { return entries_.size() * bytesPerSlot(maxMoves_); }
  // What one slot costs: its entry and room for maxMoves priors.
  static size_t bytesPerSlot(int maxMoves) { return sizeof(Entry) + size_t(maxMoves) * sizeof(float); }

 private:
  struct Entry {
    uint64_t key = 0;
    uint32_t numMoves = 0;  // 0 marks an empty slot: a cached position always has a legal move
    float values[5] = {0, 0, 0, 0, 0};  // up to four players and the draw
  };
  std::vector<Entry> entries_;
  // Slot i owns [i * maxMoves, (i + 1) * maxMoves). Left uninitialised (only an entry's own
  // priors are ever read, after its store), so a new cache costs no time for its priors (16 MB
  // at 2^15 slots): a play-time search that makes one starts at once.
  std::unique_ptr<float[]> priors_;
  uint64_t mask_;
  int maxMoves_;
  int valueSize_;
  int64_t hits_ = 0, misses_ = 0, skipped_ = 0;
};

}  // namespace poppy::mcts
