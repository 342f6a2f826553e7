// The batched PUCT search: many games' trees, one network call per round. Each round gathers
// up to leavesPerTree leaves from every tree (virtual loss keeps one tree's leaves apart),
// sends them to the Evaluator together, then expands and backs them up. That batch, not
// threads, is what makes inference efficient (docs/DESIGN.md). Game ends are scored exactly and
// never sent to the network; positions seen before come from the EvalCache when one is given.
#pragma once
#include <cstdint>
#include <vector>

#include <memory>

#include "mcts/capture_search.h"
#include "mcts/eval_cache.h"
#include "mcts/evaluator.h"
#include "mcts/mate_search.h"
#include "mcts/search_params.h"
#include "mcts/tree.h"
#include "nn/encoder.h"

namespace poppy::mcts {

class SearchDriver {
 public:
  struct Stats {
    int64_t evaluations = 0;  // positions sent to the evaluator
    int64_t batches = 0;      // evaluator calls
    int64_t cacheHits = 0;    // leaves answered by the cache
    int64_t terminals = 0;    // descents that ended at a game end (no network)
    int64_t collisions = 0;   // descents that met a leaf already in the batch
    double evalSeconds = 0;   // inside Evaluator::evaluate
    double totalSeconds = 0;  // inside search()

    Stats& operator+=(const Stats& o) {
      evaluations += o.evaluations;
      batches += o.batches;
      cacheHits += o.cacheHits;
      terminals += o.terminals;
      collisions += o.collisions;
      evalSeconds += o.evalSeconds;
      totalSeconds += o.totalSeconds;
      return *this;
    }
  };

  // maxBatch bounds one evaluator call; the cache (optional) must outlive the driver.
  SearchDriver(Evaluator& evaluator, const nn::Encoder& encoder, int maxBatch, EvalCache* cache = nullptr);

  // Runs until every tree's root has at least `playouts` visits or is proven won or lost by the
  // solver (terminal roots are skipped).
  // The trees must play the encoder's variant; each uses its own SearchParams.
  void search(const std::vector<Tree*>& trees, int playouts);
  // One round of search(): gathers leaves from the trees still short of `playouts` visits,
  // evaluates them in one batch and backs them up. Returns false when no tree needed visits.
  // Self-play calls this directly so a game moves as soon as its own tree is done, keeping
  // batches full instead of waiting for the slowest tree.
  bool round(const std::vector<Tree*>& trees, int playouts);
  // The same with a visit target per tree (playouts[i] for trees[i]): self-play with playout
  // cap randomisation searches some moves fully and others quickly in one batch.
  bool round(const std::vector<Tree*>& trees, const std::vector<int>& playouts);

  // round() in three steps, for several threads searching one tree (play::Analyzer): each
  // thread has its own driver, and takes the tree's lock for gatherRound and finishGathered
  // only, so the network calls of the threads overlap. Virtual loss keeps the threads' leaves
  // apart as it keeps one batch's. Between gatherRound and finishGathered the tree holds this
  // driver's pending leaves. gatherRound returns false when no tree needed visits.
  bool gatherRound(const std::vector<Tree*>& trees, int playouts);
  bool gatherRound(const std::vector<Tree*>& trees, const std::vector<int>& playouts);
  // Sends the gathered leaves to the evaluator (no tree is touched: no lock needed).
  void evaluateGathered();
  // Expands and backs up the evaluated leaves and releases the collisions' virtual loss.
  void finishGathered();
  // Leaves gathered by the last gatherRound (0: it found only collisions or game ends).
  int gatheredLeaves() const { return int(leaves_.size()); }
  // Deferred leaf work, for search threads: gatherRound copies each new leaf's position and
  // leaves its mate search and encoding to evaluateGathered, which runs outside the tree's
  // lock, so that work overlaps between threads instead of queueing for the lock. Off (the
  // default), gatherRound does both itself, with no copy.
  void setDeferLeafWork(bool on) { deferLeafWork_ = on; }

  const Stats& stats() const { return stats_; }
  void resetStats() { stats_ = Stats{}; }

  // Searches on with another network (asynchronous self-play takes each new model between
  // rounds, training/local_game_feed.h): the cache's answers came from the old one, so it is
  // emptied. Trees keep the values they hold. No round may be under way.
  void setEvaluator(Evaluator& evaluator);

 private:
  struct Leaf {
    Tree* tree;
    int node;
    int firstIndex;  // into indices_: the policy index of each of the node's moves
    uint64_t key;    // cache key
    // Deferred leaf work: the leaf's position is positions_[position] (-1: not deferred); a
    // mate found outside the lock (mateMove, matePlies) replaces the network call; otherwise
    // its planes are batch row `row`.
    int position = -1;
    bool mateSearch = false;
    game::Move mateMove = game::Move::none();
    int matePlies = 0;
    int row = -1;
    // Deferred leaf work too: the leaf's move count (read under the lock at gather), and where
    // its cached answer lies in cachedAnswers_ when the cache had it (-1: it did not).
    int numMoves = 0;
    int cachedAt = -1;
    // More than two players: who moves at the leaf and who is out (bit per player), to place
    // the evaluator's answer (mcts/player_scores.h) once the tree has rewound.
    game::Color mover = 0;
    unsigned out = 0;
    // materialWeight > 0: the capture search's balance of the leaf (CaptureSearch::balance),
    // blended into the network's answer by finishLeaf.
    float material = 0;
  };

  // Gathers up to the tree's share of leaves into the batch; returns false when the batch is full.
  bool gather(Tree& tree, int playouts);
  void finishLeaf(const Leaf& leaf, const float* logits, const float* wdl);
  // Expands a leaf with priors_ and the evaluator's value answer.
  void expandLeaf(Tree& tree, int node, game::Color mover, unsigned out, const float* values);
  uint64_t cacheKey(const game::Position& pos) const;
  // The capture search's balance of pos for a leaf of `tree` (0 where its materialWeight is 0).
  float leafMaterial(const Tree& tree, game::Position& pos);

  // Runs the deferred leaf work of evaluateGathered: mate searches, then encodes the rest.
  // Returns the batch rows filled (the leaves no mate proved).
  int finishLeafWork();

  Evaluator* evaluator_;
  bool deferLeafWork_ = false;
  std::vector<game::Position> positions_;  // deferred leaves' positions, reused between rounds
  const nn::Encoder& encoder_;
  int maxBatch_;
  EvalCache* cache_;
  int valueSize_ = 3;  // floats of one value answer (mcts/player_scores.h)
  Stats stats_;
  size_t nextTree_ = 0;  // round-robin start, so a full batch does not starve later trees

  // Per-round buffers, allocated once.
  std::vector<float> planes_, logits_, wdl_, priors_;
  std::vector<int> indices_;
  // Deferred leaves the cache answered after their mate search: per leaf kMaxValueSize values
  // then its priors, from Leaf::cachedAt on.
  std::vector<float> cachedAnswers_;
  std::vector<int> targets_;  // round(trees, int): the one target, per tree
  std::vector<Leaf> leaves_;
  std::vector<std::pair<Tree*, int>> collided_;
  std::unique_ptr<CaptureSearch> captures_;  // made on the first leaf that wants material
};

}  // namespace poppy::mcts
