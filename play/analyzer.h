// Searching one position for a person or a program (the USI engine, `poppy play` hints, the
// web page, the opening tree): the batched PUCT search when a network is given, the rollout
// MCTS when not, so every command works out of the box. Stops on a playout count, a time
// budget or a stop flag, whichever comes first, and reports the ranked root moves with their
// visit shares, priors, win/draw/loss and principal variations.
#pragma once
#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "game/position.h"
#include "mcts/evaluator.h"
#include "mcts/eval_cache.h"
#include "mcts/search_params.h"
#include "mcts/tree.h"
#include "nn/encoder.h"

namespace poppy::play {

struct SearchLimits {
  int64_t playouts = 0;   // stop at this many root visits; 0: params.playouts unless seconds/infinite
  double seconds = 0;     // stop after this much wall time (0: no time limit)
  bool infinite = false;  // search until *stop (playouts and seconds ignored)
  // Search only these root moves (USI's `go searchmoves`), each legal in the position; empty:
  // every legal move. A restricted search starts a fresh tree and is not kept for reuse.
  std::vector<game::Move> rootMoves;
};

struct MoveInfo {
  game::Move move;
  std::string usi;
  int visits = 0;
  double share = 0;    // visits / all root-child visits
  float prior = 0;     // network prior; 1/N for the rollout search
  std::array<float, 3> wdl{0, 1, 0};  // win, draw, loss for the side to move at the root
  // The expected score: wdl[0] + wdl[1] / 2 (among four players, a draw's share is 1/N of the N
  // still in; wdl[2] is then the chance somebody else wins).
  float winRate = 0.5f;
  std::vector<std::string> pv;        // USI, starting with this move
  // Proven by the solver, in plies from the root: +N this move mates in N, -N the side to move
  // is mated in N plies after it; 0 not proven (always 0 for the rollout search).
  int mate = 0;
};

struct Analysis {
  std::vector<MoveInfo> moves;  // most visited first (ties: higher prior first)
  int64_t playouts = 0;         // root visits
  double seconds = 0;
  std::array<float, 3> wdl{0, 1, 0};  // root side to move's view
  float winRate = 0.5f;
  bool network = false;   // true: PUCT with the network; false: rollout MCTS
  bool terminal = false;  // the game is already over at the root: no moves
  int mate = 0;           // the root's proof: +N the side to move mates in N plies, -N is mated
  // Centipawn-like score for GUIs (Lc0's mapping of the expected score), clamped to +-10000.
  int centipawns() const;
};

class Analyzer {
 public:
  // evaluator may be null: then the rollout MCTS searches (one playout = one random game).
  // params.playouts is the default playout count; the evaluator must outlive the analyzer.
  Analyzer(game::VariantPtr variant, mcts::Evaluator* evaluator, const mcts::SearchParams& params,
           uint64_t seed = 1);

  bool usesNetwork() const { return evaluator_ != nullptr; }
  const mcts::SearchParams& params() const { return params_; }
  void setParams(const mcts::SearchParams& params) { params_ = params; }
  const game::VariantPtr& variant() const { return variant_; }

  // Search threads for one position (the USI Threads option): with a network, `threads`
  // threads share the tree, each gathering its own batch of leaves under the tree's lock and
  // evaluating it outside the lock, so the network calls overlap (both cores work at play
  // time). One thread (the default) searches exactly as before and is deterministic for a
  // seed; more are not. The rollout search (no network) always uses one thread.
  void setThreads(int threads) { threads_ = std::max(1, threads); }
  int threads() const { return threads_; }

  // Tree reuse (usi, play, serve turn it on): a search of a position that continues the game of
  // the last one searched, at most kMaxReusedMoves moves on (the opponent's reply, or a move of
  // each side; 0: the same position again), starts from the subtree of the moves played, with
  // its visits, as `poppy match` does. Only with a network and the same search settings (the
  // ply cap and playout count aside). Off by default: a search then depends only on its
  // position and seed.
  void setTreeReuse(bool on) { treeReuse_ = on; }
  static constexpr int kMaxReusedMoves = 2;

  // Network answers are cached by position (mcts::EvalCache, 2^kCacheBits positions per search
  // thread): a transposition inside the tree skips the network. The cache outlives a search
  // only with tree reuse on, and only while the policy temperature (which its priors carry) is
  // the same; otherwise each search starts with it empty, so it depends only on its position
  // and seed as before.
  static constexpr int kCacheBits = 15;
  static constexpr int kCacheMaxMoves = 128;  // positions with more legal moves are not cached
  // The memory all search threads' caches may take together (the USI_Hash option): each thread's
  // cache gets the largest power of two of slots that fits its share, at least 2^8 slots. 0: the
  // default, 2^kCacheBits slots per thread (about 17 MiB each).
  void setCacheBytes(size_t bytes);
  // Slots per thread's cache for the current cache budget and thread count (a power of two).
  size_t cacheSlotsPerThread() const { return size_t(1) << cacheBitsPerThread(); }
  // Leaves answered by the cache and by the network since the caches were last emptied.
  int64_t cacheHits() const;
  int64_t cacheMisses() const;

  using Progress = std::function<void(const Analysis&)>;
  // Searches pos (history included, so repetitions count). progress, when given, is called
  // about every progressSeconds with the analysis so far. Thread-safe only per instance.
  Analysis analyze(const game::Position& pos, const SearchLimits& limits, const std::atomic<bool>* stop = nullptr,
                   const Progress& progress = nullptr, double progressSeconds = 1.0);

  // Most playouts one search may make before it waits for its stop flag (memory bound).
  static constexpr int64_t kMaxPlayouts = 4000000;

 private:
  game::VariantPtr variant_;
  mcts::Evaluator* evaluator_;
  nn::Encoder encoder_;
  // The tree this search starts from: the kept one advanced, or a fresh one.
  mcts::Tree& treeFor(const game::Position& pos, const mcts::SearchParams& params, uint64_t seed,
                      const std::vector<game::Move>& rootMoves);

  mcts::SearchParams params_;
  uint64_t seed_;
  int threads_ = 1;
  bool treeReuse_ = false;
  // The last network search's tree, the position it searched and the settings it was made with.
  std::unique_ptr<mcts::Tree> kept_;
  std::optional<game::Position> keptRoot_;
  mcts::SearchParams keptParams_;
  bool keptRestricted_ = false;  // searched with rootMoves: not reused
  // One cache per search thread (mcts::EvalCache is not thread-safe), holding answers made under
  // cacheParams_ (mcts::sameCacheAnswers).
  std::vector<std::unique_ptr<mcts::EvalCache>> caches_;
  mcts::SearchParams cacheParams_;
  size_t cacheBytes_ = 0;  // setCacheBytes; 0: kCacheBits per thread
  int cacheBitsPerThread() const;
  // The caches for this search: threads of them, emptied unless they may carry over.
  void prepareCaches(const mcts::SearchParams& params);
};

}  // namespace poppy::play
