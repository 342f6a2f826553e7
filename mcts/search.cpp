#include "mcts/search.h"

#include "mcts/player_scores.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <stdexcept>
#include <string>

namespace poppy::mcts {

namespace {
using Clock = std::chrono::steady_clock;
double secondsSince(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }
}  // namespace

SearchDriver::SearchDriver(Evaluator& evaluator, const nn::Encoder& encoder, int maxBatch, EvalCache* cache)
    : evaluator_(&evaluator), encoder_(encoder), maxBatch_(maxBatch), cache_(cache) {
  if (maxBatch < 1) throw std::invalid_argument("SearchDriver: maxBatch must be positive");
  planes_.resize(size_t(maxBatch) * size_t(encoder.inputSize()));
  logits_.resize(size_t(maxBatch) * size_t(encoder.policySize()));
  valueSize_ = valueSize(encoder.variant().numPlayers);
  if (cache && cache->valueSize() != valueSize_)
    throw std::invalid_argument("SearchDriver: the eval cache holds " + std::to_string(cache->valueSize()) +
                                " value floats a position, " + encoder.variant().name + " needs " +
                                std::to_string(valueSize_));
  wdl_.resize(size_t(maxBatch) * size_t(valueSize_));
  priors_.resize(game::kMaxMoves);
  leaves_.reserve(size_t(maxBatch));
}

void SearchDriver::setEvaluator(Evaluator& evaluator) {
  evaluator_ = &evaluator;
  if (cache_) cache_->clear();
}

uint64_t SearchDriver::cacheKey(const game::Position& pos) const {
  // The network sees the repetition count (capped at 3 by the encoder), so it is part of the key.
  return pos.hash() ^ (uint64_t(std::min(pos.repetitionsSoFar(), 3)) * 0x9E3779B97F4A7C15ull);
}

float SearchDriver::leafMaterial(const Tree& tree, game::Position& pos) {
  if (!(tree.params().materialWeight > 0) || valueSize_ != 3) return 0;
  if (!captures_) captures_ = std::make_unique<CaptureSearch>(pos.variantPtr());
  return captures_->balance(pos);
}

void SearchDriver::search(const std::vector<Tree*>& trees, int playouts) {
  while (round(trees, playouts)) {
  }
}

bool SearchDriver::round(const std::vector<Tree*>& trees, int playouts) {
  targets_.assign(trees.size(), playouts);
  return round(trees, targets_);
}

bool SearchDriver::round(const std::vector<Tree*>& trees, const std::vector<int>& playouts) {
  const Clock::time_point start = Clock::now();
  const bool anyLeft = gatherRound(trees, playouts);
  if (anyLeft) {
    evaluateGathered();
    finishGathered();
  }
  stats_.totalSeconds += secondsSince(start);
  return anyLeft;
}

bool SearchDriver::gatherRound(const std::vector<Tree*>& trees, int playouts) {
  targets_.assign(trees.size(), playouts);
  return gatherRound(trees, targets_);
}

bool SearchDriver::gatherRound(const std::vector<Tree*>& trees, const std::vector<int>& playouts) {
  if (playouts.size() != trees.size())
    throw std::invalid_argument("SearchDriver::round: " + std::to_string(playouts.size()) + " visit targets for " +
                                std::to_string(trees.size()) + " trees");
  const size_t n = trees.size();
  leaves_.clear();
  indices_.clear();
  collided_.clear();
  bool anyLeft = false;
  for (size_t k = 0; k < n; ++k) {
    const size_t t = (nextTree_ + k) % n;
    Tree& tree = *trees[t];
    if (tree.rootIsTerminal() || tree.rootIsProven() || tree.rootVisits() >= playouts[t]) continue;
    anyLeft = true;
    if (!gather(tree, playouts[t])) {
      nextTree_ = (t + 1) % n;  // the batch is full: the next round starts after this tree
      break;
    }
  }
  return anyLeft;
}

void SearchDriver::evaluateGathered() {
  if (leaves_.empty()) return;
  const int rows = deferLeafWork_ ? finishLeafWork() : int(leaves_.size());
  if (rows == 0) return;
  const Clock::time_point start = Clock::now();
  evaluator_->evaluate(planes_.data(), rows, logits_.data(), wdl_.data());
  stats_.evalSeconds += secondsSince(start);
  stats_.evaluations += int64_t(rows);
  ++stats_.batches;
}

int SearchDriver::finishLeafWork() {
  int rows = 0;
  cachedAnswers_.clear();
  for (Leaf& leaf : leaves_) {  // with deferral on, gather gave every leaf its position
    game::Position& pos = positions_[size_t(leaf.position)];
    if (leaf.mateSearch) {
      MateSearch mate(leaf.tree->params().plyCap);
      leaf.mateMove = mate.quick(pos, leaf.tree->params().leafMatePlies, leaf.matePlies);
      if (!leaf.mateMove.isNone()) continue;  // proven: no network call
      // No mate: now the cache may answer (gather could not: the mate search came first).
      if (cache_) {
        const size_t at = cachedAnswers_.size();
        cachedAnswers_.resize(at + kMaxValueSize + size_t(leaf.numMoves));
        if (cache_->lookup(leaf.key, leaf.numMoves, cachedAnswers_.data() + at + kMaxValueSize,
                           cachedAnswers_.data() + at)) {
          leaf.cachedAt = int(at);
          continue;
        }
        cachedAnswers_.resize(at);
      }
    }
    leaf.row = rows++;
    leaf.material = leafMaterial(*leaf.tree, pos);
    encoder_.encode(pos, planes_.data() + size_t(leaf.row) * size_t(encoder_.inputSize()));
  }
  return rows;
}

void SearchDriver::finishGathered() {
  const size_t policySize = size_t(encoder_.policySize());
  for (size_t i = 0; i < leaves_.size(); ++i) {
    const Leaf& leaf = leaves_[i];
    if (!leaf.mateMove.isNone()) {
      leaf.tree->proveLeafByMate(leaf.node, leaf.mateMove, leaf.matePlies);
      ++stats_.terminals;
      continue;
    }
    if (leaf.cachedAt >= 0) {
      const float* answer = cachedAnswers_.data() + leaf.cachedAt;
      std::copy(answer + kMaxValueSize, answer + kMaxValueSize + leaf.numMoves, priors_.begin());
      expandLeaf(*leaf.tree, leaf.node, leaf.mover, leaf.out, answer);
      ++stats_.cacheHits;
      continue;
    }
    const size_t row = leaf.row >= 0 ? size_t(leaf.row) : i;
    finishLeaf(leaf, logits_.data() + row * policySize, wdl_.data() + size_t(valueSize_) * row);
  }
  for (const auto& [tree, node] : collided_) tree->releaseVirtualLoss(node);
  leaves_.clear();
  collided_.clear();
}

bool SearchDriver::gather(Tree& tree, int playouts) {
  int pendingHere = 0;  // this tree's leaves already in the batch count toward its playouts
  const int attempts = std::max(1, tree.params().leavesPerTree);
  for (int a = 0; a < attempts && tree.rootVisits() + pendingHere < playouts && !tree.rootIsProven(); ++a) {
    if (int(leaves_.size()) >= maxBatch_) return false;
    int node = -1;
    switch (tree.descend(node, !deferLeafWork_)) {
      case Tree::Descent::kResolved:
        ++stats_.terminals;
        break;
      case Tree::Descent::kCollision:
        // Keep its virtual loss until the round ends so the next descent looks elsewhere.
        collided_.emplace_back(&tree, node);
        ++stats_.collisions;
        break;
      case Tree::Descent::kLeaf: {
        const game::Position& pos = tree.pos_;
        const Node& leaf = tree.nodes_[size_t(node)];
        // The key even where the cache is not read: the network's answer is stored under it.
        const uint64_t key = cache_ ? cacheKey(pos) : 0;
        // A deferred mate search has not run yet: a cached answer must not skip it.
        if (cache_ && !(deferLeafWork_ && tree.wantsLeafMateSearch(node))) {
          float values[kMaxValueSize];
          if (cache_->lookup(key, leaf.numChildren, priors_.data(), values)) {
            expandLeaf(tree, node, pos.sideToMove(), outPlayers(pos), values);
            ++stats_.cacheHits;
            break;
          }
        }
        const size_t slot = leaves_.size();
        const int first = int(indices_.size());
        const Node* child = tree.nodes_.data() + leaf.firstChild;
        for (int i = 0; i < leaf.numChildren; ++i) indices_.push_back(encoder_.moveIndex(pos, child[i].move));
        Leaf entry{&tree, node, first, key};
        entry.numMoves = leaf.numChildren;
        if (valueSize_ != 3) {
          entry.mover = pos.sideToMove();
          entry.out = outPlayers(pos);
        }
        if (deferLeafWork_) {
          // A copy, so that the mate search and the encoding can run after the lock is let go.
          if (positions_.size() <= slot) positions_.push_back(pos);
          else positions_[slot] = pos;
          entry.position = int(slot);
          entry.mateSearch = tree.wantsLeafMateSearch(node);
        } else {
          entry.material = leafMaterial(tree, tree.pos_);
          encoder_.encode(pos, planes_.data() + slot * size_t(encoder_.inputSize()));
        }
        leaves_.push_back(entry);
        ++pendingHere;
        break;
      }
    }
    tree.rewind();
  }
  return int(leaves_.size()) < maxBatch_;
}

// Priors are the softmax of the logits / policyTemperature over the legal moves only.
void SearchDriver::finishLeaf(const Leaf& leaf, const float* logits, const float* wdl) {
  const int count = leaf.tree->nodes_[size_t(leaf.node)].numChildren;
  const int* index = indices_.data() + leaf.firstIndex;
  const float inverseTemperature = 1.0f / leaf.tree->params().policyTemperature;
  float top = -INFINITY;
  for (int i = 0; i < count; ++i) top = std::max(top, logits[index[i]]);
  float sum = 0.0f;
  for (int i = 0; i < count; ++i)
    sum += (priors_[size_t(i)] = std::exp((logits[index[i]] - top) * inverseTemperature));
  if (!(sum > 0.0f) || !std::isfinite(sum)) {  // a broken network answer: fall back to uniform
    std::fill(priors_.begin(), priors_.begin() + count, 1.0f);
    sum = float(count);
  }
  for (int i = 0; i < count; ++i) priors_[size_t(i)] /= sum;
  const SearchParams& params = leaf.tree->params();
  float blended[3];
  if (params.materialWeight > 0 && valueSize_ == 3) {
    // (1 - w) x the network's answer + w x a sure win or loss whose expected score is the
    // material's: the result is still a distribution, and its W - L moves by w toward tanh.
    const float w = params.materialWeight;
    const float win = 0.5f * (1.0f + std::tanh(leaf.material / params.materialScale));
    blended[0] = (1 - w) * wdl[0] + w * win;
    blended[1] = (1 - w) * wdl[1];
    blended[2] = (1 - w) * wdl[2] + w * (1 - win);
    wdl = blended;
  }
  if (cache_) cache_->store(leaf.key, count, priors_.data(), wdl);
  expandLeaf(*leaf.tree, leaf.node, leaf.mover, leaf.out, wdl);
}

// priors_ holds the leaf's priors; values the evaluator's answer (mcts/player_scores.h).
void SearchDriver::expandLeaf(Tree& tree, int node, game::Color mover, unsigned out, const float* values) {
  if (valueSize_ == 3) {
    tree.expand(node, priors_.data(), values[0] - values[2], values[1]);
    return;
  }
  float scores[game::kMaxPlayers], draw;
  scoresFromValues(encoder_.variant().numPlayers, mover, out, values, scores, draw);
  tree.expandScores(node, priors_.data(), scores, draw);
}

}  // namespace poppy::mcts
