#include "mcts/eval_cache.h"

#include <algorithm>
#include <iterator>
#include <stdexcept>

namespace poppy::mcts {

EvalCache::EvalCache(int log2Entries, int maxMoves, int valueSize) : maxMoves_(maxMoves), valueSize_(valueSize) {
  if (log2Entries < 0 || log2Entries > 30 || maxMoves < 1)
    throw std::invalid_argument("EvalCache: log2Entries must be in 0..30 and maxMoves positive");
  if (valueSize < 1 || valueSize > int(std::size(Entry{}.values)))
    throw std::invalid_argument("EvalCache: valueSize must be in 1..5");
  const size_t n = size_t(1) << log2Entries;
  entries_.resize(n);
  priors_.reset(new float[n * size_t(maxMoves)]);
  mask_ = n - 1;
}

bool EvalCache::lookup(uint64_t key, int numMoves, float* priors, float* values) {
  const size_t slot = key & mask_;
  const Entry& e = entries_[slot];
  if (e.numMoves == 0 || e.key != key || int(e.numMoves) != numMoves) {
    ++misses_;
    return false;
  }
  ++hits_;
  const float* src = priors_.get() + slot * size_t(maxMoves_);
  std::copy(src, src + numMoves, priors);
  std::copy(e.values, e.values + valueSize_, values);
  return true;
}

void EvalCache::store(uint64_t key, int numMoves, const float* priors, const float* values) {
  if (numMoves < 1 || numMoves > maxMoves_) {
    ++skipped_;
    return;
  }
  const size_t slot = key & mask_;
  Entry& e = entries_[slot];
  e.key = key;
  e.numMoves = uint32_t(numMoves);
  std::copy(values, values + valueSize_, e.values);
  std::copy(priors, priors + numMoves, priors_.get() + slot * size_t(maxMoves_));
}

void EvalCache::clear() {
  std::fill(entries_.begin(), entries_.end(), Entry{});
  hits_ = misses_ = skipped_ = 0;
}

}  // namespace poppy::mcts
