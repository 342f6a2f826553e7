// The USI protocol (what shogi GUIs speak) around play::Analyzer, for every variant Poppy knows:
// `poppy usi` is a thin wrapper that feeds it stdin and stdout. Kept free of LibTorch: a model is
// loaded through the EvaluatorFactory the command supplies, so tests can script whole sessions
// in-process with the rollout search or a scripted evaluator.
//
// The search runs on a worker thread, so `stop`, `quit`, `isready` and `ponderhit` are answered
// while it thinks. Threads sets the search threads sharing one tree (play::Analyzer::setThreads;
// with a model only: the rollout search has one thread).
#pragma once
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "game/position.h"
#include "mcts/centipawns.h"
#include "mcts/evaluator.h"
#include "mcts/play_time_search.h"
#include "play/analyzer.h"
#include "play/openings/opening_book.h"
#include "play/engines/time_manager.h"

namespace poppy::play {

struct UsiOptions {
  std::string variant = "micro";  // UCI_Variant: a name from configs/variants or a YAML path
  std::string modelFile;          // ModelFile: a path; "shipped": the variant's shipped model; empty or "none": rollout MCTS
  int64_t playouts = 800;         // Playouts: for a `go` without limits
  int threads = 1;                // Threads: search threads (see above)
  int multiPv = 1;                // MultiPV
  std::string book;               // Book: an opening book (play::OpeningBook), empty = none
  double resignThreshold = 0;     // ResignThreshold: resign below this win rate; 0 = never
  int64_t moveOverheadMs = 30;    // MoveOverhead: GUI and network latency kept in hand per move
  // EvalCoef: `score cp` = EvalCoef x ln(p / (1 - p)) for a win rate p, the scale of the shogi
  // engines (dlshogi's eval_coef 756: +756 cp at p = 0.73), so GUIs' graphs read as theirs do.
  int64_t evalCoef = mcts::kShogiEvalCoef;  // mcts/centipawns.h
  bool showWdl = false;           // UCI_ShowWDL: `wdl W D L` (per mille) after each score
  std::string device = "cpu";     // Device: where the network runs: cpu, cuda or cuda:N
  std::string inference = "auto"; // Inference: auto, torch, eigen or int8 (nn/inference.h)
  // The search settings of mcts/search_options.h marked kUsi, each its own option (BatchSize =
  // leaves_per_tree, CPuct, PolicyTemperature, Tactics, ...), from the play-time defaults.
  mcts::SearchParams search = mcts::playTimeSearchParams();
  // USI_Hash: MiB for the cache of network answers (play::Analyzer::setCacheBytes), shared out
  // among the search threads. The tree itself grows with the playouts, as in every MCTS engine.
  int64_t hashMiB = 32;  // 2^15 positions for one thread, as before the option existed

  static constexpr int64_t kMaxHashMiB = 65536;
};

// A model to load for the engine: its file and the Device and Inference options.
struct ModelRequest {
  std::string path;
  std::string device;
  std::string inference;
};

class UsiEngine {
 public:
  // Loads a model for a variant (refusing a model of other rules) on the device and with the
  // inference asked; throws (any std::exception) with a message naming the file.
  using EvaluatorFactory =
      std::function<std::unique_ptr<mcts::Evaluator>(const ModelRequest& model, const game::Variant& variant)>;

  // factory may be empty: then a ModelFile is refused and the rollout search plays.
  UsiEngine(std::ostream& out, UsiOptions options = {}, EvaluatorFactory factory = nullptr);
  ~UsiEngine();  // stops and joins a running search
  UsiEngine(const UsiEngine&) = delete;
  UsiEngine& operator=(const UsiEngine&) = delete;

  // Reads commands until `quit` or the end of the input. At the end of the input a finite search
  // is finished (its bestmove written), an infinite one stopped.
  void run(std::istream& in);
  // Handles one command line; returns false after `quit`. Safe to call from several threads
  // (a test sends `stop` from another thread while the search runs).
  bool handle(const std::string& line);
  // Blocks until the running search (if any) has written its bestmove.
  void waitForSearch();
  bool searching() const { return searching_; }

  // The current position's SFEN (tests check that a bad `position` keeps the previous one).
  std::string positionSfen() const;
  const UsiOptions& options() const { return options_; }

 private:
  struct Setup;  // the loaded variant, evaluator, analyzer and book
  struct SearchJob {
    game::Position position;
    GoLimits go;
    std::chrono::steady_clock::time_point received;
    UsiOptions options;  // a copy: setoption may change options_ while the search runs
  };

  void send(const std::string& line);
  void cmdUsi();
  void cmdIsReady();
  void cmdSetOption(const std::string& line);
  void cmdPosition(const std::vector<std::string>& words);
  void cmdGo(const std::vector<std::string>& words);
  void cmdPonderHit();
  void cmdDisplay();
  // Applies changed options (variant, model, book) while no search runs; reports errors.
  void prepare();
  void warmUp();  // a few playouts with a freshly loaded network
  void stopSearch();  // sets the stop flag and joins the worker
  void joinWorker();
  void search(SearchJob job);  // the worker thread's body
  void startMateSearch(int64_t ms);  // `go mate`: 0 ms = until stop
  void mateSearch(game::Position pos, int64_t ms, std::chrono::steady_clock::time_point received);
  void sendInfo(const Analysis& a, int64_t elapsedMs, const UsiOptions& options);

  std::ostream& out_;
  std::mutex outMutex_;
  mutable std::recursive_mutex commandMutex_;
  UsiOptions options_;
  EvaluatorFactory factory_;

  // What prepare() last applied, to reload only what changed.
  std::unique_ptr<Setup> setup_;
  std::string loadedVariant_, loadedModel_, loadedDevice_, loadedInference_, loadedBook_;

  std::optional<game::Position> position_;  // nullopt: `go` before any `position` uses startpos
  std::mt19937 bookRng_{20240601};

  std::thread worker_;
  std::atomic<bool> stop_{false};
  // searching_ changes under stateMutex_ and stateChanged_ is notified, so waitForSearch and the
  // ponderhit timer can wait for the end of a search.
  std::atomic<bool> searching_{false};
  std::atomic<bool> untilStopped_{false};  // the running search is `go infinite` or `go ponder`
  std::mutex stateMutex_;
  std::condition_variable stateChanged_;
  // Pondering: the limits of `go ponder`, applied from `ponderhit` on by a timer that stops the
  // search when the budget is spent.
  GoLimits ponderLimits_;
  game::Color searchSide_ = 0;
  std::thread ponderTimer_;
};

}  // namespace poppy::play
