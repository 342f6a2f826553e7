#include "play/engines/usi_engine.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <istream>
#include <optional>
#include <ostream>
#include <sstream>

#include "game/variant_loader.h"
#include "mcts/centipawns.h"
#include "mcts/mate_search.h"
#include "mcts/play_time_search.h"
#include "mcts/search_options.h"
#include "nn/device_name.h"
#include "nn/inference.h"
#include "play/engines/usi_notation.h"
#include "play/human/board_text.h"
#include "play/shipped_models.h"
#include "selfplay/selfplay_runner.h"

namespace poppy::play {

namespace {

using Clock = std::chrono::steady_clock;

int64_t msSince(Clock::time_point t) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - t).count();
}

std::vector<std::string> splitWords(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> words;
  for (std::string w; in >> w;) words.push_back(w);
  return words;
}

std::string lower(std::string s) {
  for (char& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string join(const std::vector<std::string>& words, size_t from, size_t to) {
  std::string s;
  for (size_t i = from; i < to && i < words.size(); ++i) s += (s.empty() ? "" : " ") + words[i];
  return s;
}

// A whole decimal integer in [lo, hi], or nullopt.
std::optional<int64_t> parseInteger(const std::string& text, int64_t lo, int64_t hi) {
  try {
    size_t used = 0;
    const long long v = std::stoll(text, &used);
    if (used != text.size() || v < lo || v > hi) return std::nullopt;
    return v;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

// The words `go` knows: a limit's value that is one of them was left out (`go nodes movetime 100`).
bool isGoKeyword(const std::string& w) {
  for (const char* k : {"infinite", "ponder", "mate", "btime", "wtime", "binc", "winc", "byoyomi", "movetime", "nodes",
                        "searchmoves"})
    if (w == k) return true;
  return false;
}

// `go searchmoves`: the legal ones among `texts`, once each. An illegal or malformed move is
// named in an error and left out; when none is left the search takes every move, and says so.
std::vector<game::Move> allowedSearchMoves(const game::Position& pos, const std::vector<std::string>& texts,
                                           const std::function<void(const std::string&)>& send) {
  std::vector<game::Move> moves;
  for (const std::string& text : texts) {
    try {
      const game::Move m = pos.parseUsi(text);
      if (std::find(moves.begin(), moves.end(), m) == moves.end()) moves.push_back(m);
    } catch (const std::exception& e) {
      send("info string error: go searchmoves: '" + text + "' is not a legal move here (left out): " + e.what());
    }
  }
  if (moves.empty() && !texts.empty()) send("info string error: go searchmoves: no legal move given; searching every move");
  return moves;
}

// " wdl W D L": the chances per mille, summing to 1000 (UCI_ShowWDL).
std::string wdlText(const std::array<float, 3>& wdl) {
  const long win = std::lround(1000.0 * std::clamp(wdl[0], 0.0f, 1.0f));
  const long loss = std::min(1000 - win, std::lround(1000.0 * std::clamp(wdl[2], 0.0f, 1.0f)));
  return " wdl " + std::to_string(win) + " " + std::to_string(1000 - win - loss) + " " + std::to_string(loss);
}

// Plies the search looks ahead before calling a line a draw. Counted from the searched position,
// not from the game's start: the GUI, not the engine, decides when a long game is over.
constexpr int kSearchHorizonPlies = 200;

constexpr int64_t kMaxHashMiB = UsiOptions::kMaxHashMiB;

using nn::isDeviceName;

}  // namespace

struct UsiEngine::Setup {
  game::VariantPtr variant;
  std::unique_ptr<mcts::Evaluator> evaluator;  // null: rollout MCTS
  // Why ModelFile did not load (empty when it did, or none was named): `go` is then refused
  // rather than played by another engine than the GUI asked for.
  std::string modelError;
  std::unique_ptr<Analyzer> analyzer;
  std::optional<OpeningBook> book;
};

UsiEngine::UsiEngine(std::ostream& out, UsiOptions options, EvaluatorFactory factory)
    : out_(out), options_(std::move(options)), factory_(std::move(factory)) {}

UsiEngine::~UsiEngine() { stopSearch(); }

void UsiEngine::send(const std::string& line) {
  std::lock_guard<std::mutex> lock(outMutex_);
  out_ << line << '\n';
  out_.flush();
}

void UsiEngine::run(std::istream& in) {
  // std::cin is tied to std::cout: every read would flush the output from this thread, outside
  // outMutex_, while the worker writes to it (seen as duplicated bestmove lines). Untie it.
  in.tie(nullptr);
  for (std::string line; std::getline(in, line);)
    if (!handle(line)) return;
  // The input ended (the GUI closed the pipe, or a scripted session ran out): finish a finite
  // search so its bestmove is written, stop one that would never end.
  if (untilStopped_) handle("stop");
  waitForSearch();
  joinWorker();
}

bool UsiEngine::handle(const std::string& rawLine) {
  std::lock_guard<std::recursive_mutex> lock(commandMutex_);
  const std::vector<std::string> words = splitWords(rawLine);  // also drops a Windows '\r'
  if (words.empty()) return true;
  const std::string& cmd = words[0];
  try {
    if (cmd == "usi") {
      cmdUsi();
    } else if (cmd == "isready") {
      cmdIsReady();
    } else if (cmd == "setoption") {
      cmdSetOption(rawLine);
    } else if (cmd == "usinewgame") {
      if (!searching_) position_.reset();
    } else if (cmd == "position") {
      cmdPosition(words);
    } else if (cmd == "go") {
      cmdGo(words);
    } else if (cmd == "stop") {
      // Waits for the bestmove (the search checks its flag every few milliseconds), so that
      // the commands that follow (position, setoption, go) find the engine idle.
      stopSearch();
    } else if (cmd == "ponderhit") {
      cmdPonderHit();
    } else if (cmd == "gameover") {
      stopSearch();  // a ponder search may still run; its bestmove no longer matters to the GUI
    } else if (cmd == "d") {
      cmdDisplay();
    } else if (cmd == "quit") {
      stopSearch();
      return false;
    } else {
      send("info string unknown command " + rawLine.substr(rawLine.find_first_not_of(" \t")));
    }
  } catch (const std::exception& e) {
    // Nothing a GUI sends may bring the engine down.
    send(std::string("info string error: ") + cmd + ": " + e.what());
  }
  return true;
}

void UsiEngine::waitForSearch() {
  std::unique_lock<std::mutex> lock(stateMutex_);
  stateChanged_.wait(lock, [&] { return !searching_; });
}

std::string UsiEngine::positionSfen() const {
  std::lock_guard<std::recursive_mutex> lock(commandMutex_);
  if (position_) return position_->sfen();
  return setup_ ? setup_->variant->startSfen : game::loadVariant(options_.variant)->startSfen;
}

// `d`, as Stockfish's: the current position drawn as `poppy play` draws it, then its SFEN. Not
// part of USI (a GUI never sends it); for a person at the prompt, or a script replaying a record
// with `position ... moves ...` to look at where it ended.
void UsiEngine::cmdDisplay() {
  const game::VariantPtr variant = setup_ ? setup_->variant : game::loadVariant(options_.variant);
  const game::Position pos = position_ ? *position_ : game::Position(variant);
  std::string board = play::renderBoard(pos);
  if (!board.empty() && board.back() == '\n') board.pop_back();
  send(board);
  send("sfen " + pos.sfen());
}

void UsiEngine::cmdUsi() {
  send("id name Poppy");
  send("id author the Poppy authors");
  auto text = [](const std::string& s) { return s.empty() ? std::string("<empty>") : s; };
  std::string variants;
  bool listed = false;
  for (const std::string& name : game::knownVariants()) {
    if (game::loadVariant(name)->numPlayers != 2) continue;  // USI has no four-player form
    variants += " var " + name;
    listed = listed || name == options_.variant;
  }
  if (!listed) variants += " var " + options_.variant;  // a variant file given by path
  std::ostringstream resign;
  resign << options_.resignThreshold;
  send("option name ModelFile type string default " + text(options_.modelFile));
  send("option name UCI_Variant type combo default " + options_.variant + variants);
  send("option name Playouts type spin default " + std::to_string(options_.playouts) + " min 1 max " +
       std::to_string(Analyzer::kMaxPlayouts));
  send("option name Threads type spin default " + std::to_string(options_.threads) + " min 1 max 1024");
  send("option name MultiPV type spin default " + std::to_string(options_.multiPv) + " min 1 max 500");
  send("option name Book type string default " + text(options_.book));
  send("option name ResignThreshold type string default " + resign.str());
  send("option name MoveOverhead type spin default " + std::to_string(options_.moveOverheadMs) + " min 0 max 10000");
  send("option name EvalCoef type spin default " + std::to_string(options_.evalCoef) + " min 1 max 10000");
  send(std::string("option name UCI_ShowWDL type check default ") + (options_.showWdl ? "true" : "false"));
  send("option name USI_Ponder type check default false");
  send("option name USI_Hash type spin default " + std::to_string(options_.hashMiB) + " min 1 max " +
       std::to_string(kMaxHashMiB));
  send("option name Device type string default " + options_.device);
  send("option name Inference type combo default " + options_.inference + " var auto var torch var eigen var int8");
  for (const mcts::SearchOption& o : mcts::searchOptions()) {
    if (!(o.where & mcts::SearchOption::kUsi)) continue;
    // USI has no type for fractions: those are strings, as lc0's are.
    switch (o.kind) {
      case mcts::SearchOption::Kind::kBoolean:
        send(std::string("option name ") + o.usiName + " type check default " + o.text(options_.search));
        break;
      case mcts::SearchOption::Kind::kInteger:
        send(std::string("option name ") + o.usiName + " type spin default " + o.text(options_.search) + " min " +
             std::to_string(int64_t(o.min)) + " max " + std::to_string(int64_t(o.max)));
        break;
      case mcts::SearchOption::Kind::kReal:
        send(std::string("option name ") + o.usiName + " type string default " + o.text(options_.search));
        break;
    }
  }
  send("usiok");
}

void UsiEngine::cmdIsReady() {
  // The model is loaded here (GUIs allow isready plenty of time), not at `go`. While a search
  // runs the answer must still come at once; the changes then wait for the next idle moment.
  if (!searching_) {
    joinWorker();
    prepare();
  }
  send("readyok");
}

void UsiEngine::cmdSetOption(const std::string& line) {
  // setoption name <name, may have spaces> [value <value, may have spaces>]
  const std::vector<std::string> words = splitWords(line);
  const auto nameAt = std::find(words.begin(), words.end(), "name");
  if (nameAt == words.end() || nameAt + 1 == words.end()) {
    send("info string error: setoption: expected 'setoption name NAME [value VALUE]'");
    return;
  }
  const auto valueAt = std::find(nameAt, words.end(), "value");
  const std::string name = join(words, size_t(nameAt - words.begin()) + 1, size_t(valueAt - words.begin()));
  std::string value = valueAt == words.end() ? "" : join(words, size_t(valueAt - words.begin()) + 1, words.size());
  if (value == "<empty>") value.clear();
  const std::string key = lower(name);
  auto refuse = [&](const std::string& why) {
    send("info string error: setoption " + name + ": '" + value + "' " + why + " (option unchanged)");
  };
  auto integer = [&](int64_t lo, int64_t hi, int64_t& target) {
    if (const auto v = parseInteger(value, lo, hi)) {
      target = *v;
    } else {
      refuse("is not a whole number in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
    }
  };
  if (key == "modelfile") {
    options_.modelFile = value;
  } else if (key == "uci_variant" || key == "usi_variant") {
    // Checked now (a YAML read, cheap) so that a bad name is reported against this command.
    // Fairy-Stockfish's names (kyotoshogi, torishogi) are taken too, so that a GUI set up for
    // Fairy-Stockfish switches variants the same way.
    game::VariantPtr variant;
    try {
      variant = game::loadVariant(poppyVariantName(value));
    } catch (const std::exception& e) {
      refuse(std::string("is not a variant: ") + e.what());
    }
    if (variant && variant->numPlayers != 2)
      refuse("has " + std::to_string(variant->numPlayers) + " players, and USI has no form for more than two");
    else if (variant)
      options_.variant = poppyVariantName(value);
  } else if (key == "playouts") {
    integer(1, Analyzer::kMaxPlayouts, options_.playouts);
  } else if (key == "threads") {
    int64_t t = options_.threads;
    integer(1, 1024, t);
    options_.threads = int(t);
  } else if (key == "multipv") {
    int64_t m = options_.multiPv;
    integer(1, 500, m);
    options_.multiPv = int(m);
  } else if (key == "book") {
    options_.book = value;
  } else if (key == "resignthreshold") {
    try {
      size_t used = 0;
      const double r = std::stod(value, &used);
      if (used != value.size() || !(r >= 0 && r < 1)) throw std::invalid_argument("range");
      options_.resignThreshold = r;
    } catch (const std::exception&) {
      refuse("is not a win rate in [0, 1) (0 = never resign)");
    }
  } else if (key == "moveoverhead") {
    integer(0, 10000, options_.moveOverheadMs);
  } else if (key == "evalcoef") {
    integer(1, 10000, options_.evalCoef);
  } else if (key == "uci_showwdl") {
    if (lower(value) == "true" || lower(value) == "false")
      options_.showWdl = lower(value) == "true";
    else
      refuse("is not true or false");
  } else if (key == "usi_hash" || key == "hash") {
    integer(1, kMaxHashMiB, options_.hashMiB);
  } else if (key == "device") {
    // The spelling is checked here; whether the device exists, when the model loads at isready.
    if (isDeviceName(value))
      options_.device = value;
    else
      refuse("is not a device (cpu, cuda or cuda:N)");
  } else if (key == "inference") {
    try {
      options_.inference = nn::inferenceName(nn::parseInference(lower(value)));
    } catch (const std::exception&) {
      refuse("is not auto, torch, eigen or int8");
    }
  } else if (const mcts::SearchOption* o = mcts::searchOptionByUsiName(name)) {
    double v = 0;
    bool parsed = false;
    if (o->kind == mcts::SearchOption::Kind::kBoolean) {
      parsed = lower(value) == "true" || lower(value) == "false";
      v = lower(value) == "true";
    } else {
      char* end = nullptr;
      v = std::strtod(value.c_str(), &end);
      parsed = !value.empty() && *end == 0;
    }
    const auto why = parsed ? o->whyNot(v) : std::optional<std::string>("must be " + o->values());
    if (why) refuse("is refused: " + *why);
    else o->set(options_.search, v);
  } else if (key == "usi_ponder" || key == "ponder") {
    // A standard option GUIs send to every engine; pondering needs no setting here.
  } else {
    send("info string unknown option " + name + " (ignored)");
  }
}

// A network's first evaluations in a process are slow (LibTorch sets up its thread pool and
// kernels): tens of milliseconds on an idle machine, seconds on a busy one, which the first `go`
// used to pay from its clock (issue 16, item 10). A few playouts here, at model load, which GUIs
// trigger with `isready` before the game, pay it instead.
void UsiEngine::warmUp() {
  SearchLimits limits;
  limits.playouts = 16;
  setup_->analyzer->analyze(game::Position(setup_->variant), limits);
}

void UsiEngine::prepare() {
  const bool variantChanged = !setup_ || options_.variant != loadedVariant_;
  if (variantChanged) {
    auto fresh = std::make_unique<Setup>();
    try {
      fresh->variant = game::loadVariant(options_.variant);
    } catch (const std::exception& e) {
      send(std::string("info string error: variant: ") + e.what());
      if (setup_) {
        options_.variant = loadedVariant_;
        return prepare();
      }
      send("info string playing micro instead");
      options_.variant = "micro";
      fresh->variant = game::loadVariant("micro");
    }
    setup_ = std::move(fresh);
    loadedVariant_ = options_.variant;
    position_.reset();  // a position of another variant means nothing now
  }
  if (variantChanged || options_.modelFile != loadedModel_ || options_.device != loadedDevice_ ||
      options_.inference != loadedInference_) {
    setup_->analyzer.reset();
    setup_->evaluator.reset();
    setup_->modelError.clear();
    loadedModel_ = options_.modelFile;
    loadedDevice_ = options_.device;
    loadedInference_ = options_.inference;
    const bool shipped = options_.modelFile == kShippedModel;
    const std::string path = shipped ? shippedModel(setup_->variant->name)
                             : options_.modelFile == kNoModel ? std::string()
                                                              : options_.modelFile;
    if (shipped && path.empty())
      send("info string " + setup_->variant->name + " has no shipped model: the search plays without a network");
    if (!path.empty()) {
      try {
        if (!factory_) throw std::runtime_error("this program cannot load models");
        setup_->evaluator = factory_(ModelRequest{path, options_.device, options_.inference}, *setup_->variant);
        const std::string runs = setup_->evaluator->description();
        send("info string model " + path + " loaded on " + options_.device + " (inference " + options_.inference +
             (runs.empty() ? "" : ": " + runs) + ")" +
             (shipped ? " (" + setup_->variant->name + "'s shipped model; ModelFile none: no network)" : ""));
      } catch (const std::exception& e) {
        if (shipped) {
          // Not the GUI's choice: say why, and play on without a network.
          send("info string error: " + setup_->variant->name + "'s shipped model " + path + ": " + e.what() +
               " (the search plays without a network)");
          setup_->evaluator.reset();
        } else {
          setup_->modelError = std::string("ModelFile ") + options_.modelFile + ": " + e.what();
          send("info string error: " + setup_->modelError);
          send(std::string("info string go is refused until ModelFile names a model that loads ") +
               "(or 'shipped', or 'none' for the search without a network)");
        }
      }
    }
    setup_->analyzer = std::make_unique<Analyzer>(setup_->variant, setup_->evaluator.get(),
                                                     mcts::playTimeSearchParams());
    setup_->analyzer->setTreeReuse(true);  // the next move's search starts from this one's subtree
    if (setup_->evaluator) warmUp();
  }
  if (variantChanged || options_.book != loadedBook_) {
    setup_->book.reset();
    loadedBook_ = options_.book;
    if (!options_.book.empty()) {
      try {
        setup_->book = OpeningBook::load(options_.book, setup_->variant);
        send("info string book " + options_.book + " loaded (" + std::to_string(setup_->book->size()) +
             " positions)");
      } catch (const std::exception& e) {
        send(std::string("info string error: Book: ") + e.what() + " (playing without a book)");
      }
    }
  }
}

void UsiEngine::cmdPosition(const std::vector<std::string>& words) {
  // A UCI_Variant set just before must apply to this position, even if that means ending a
  // search the GUI did not stop.
  if (searching_ && options_.variant != loadedVariant_) stopSearch();
  if (!searching_) {
    joinWorker();
    prepare();
  }
  auto fail = [&](const std::string& why) {
    send("info string error: position: " + why + " (keeping the previous position)");
  };
  if (words.size() < 2) return fail("expected 'position startpos|sfen SFEN [moves M1 M2 ...]'");
  const game::VariantPtr& variant = setup_->variant;
  size_t i = 2;
  std::optional<game::Position> pos;
  if (words[1] == "startpos") {
    pos.emplace(variant);
  } else if (words[1] == "sfen") {
    while (i < words.size() && words[i] != "moves") ++i;
    const std::string sfen = join(words, 2, i);
    if (sfen.empty()) return fail("'sfen' needs an SFEN");
    try {
      pos = game::Position::fromSfen(variant, sfen);
    } catch (const std::exception& e) {
      return fail("bad SFEN '" + sfen + "' for " + variant->name + ": " + e.what());
    }
  } else {
    return fail("expected 'startpos' or 'sfen', got '" + words[1] + "'");
  }
  if (i < words.size()) {
    if (words[i] != "moves") return fail("expected 'moves' after the position, got '" + words[i] + "'");
    for (size_t k = i + 1; k < words.size(); ++k) {
      try {
        pos->makeMove(pos->parseUsi(words[k]));
      } catch (const std::exception& e) {
        return fail("move " + std::to_string(k - i) + " '" + words[k] + "': " + e.what());
      }
    }
  }
  position_ = std::move(pos);
}

void UsiEngine::cmdGo(const std::vector<std::string>& words) {
  GoLimits go;
  for (size_t i = 1; i < words.size(); ++i) {
    const std::string& w = words[i];
    if (w == "infinite") {
      go.infinite = true;
    } else if (w == "ponder") {
      go.ponder = true;
    } else if (w == "mate") {
      // Tsume mode: `go mate MS` or `go mate infinite`; answered by a `checkmate` line.
      const std::string text = i + 1 < words.size() ? words[i + 1] : "infinite";
      int64_t ms = 0;  // 0: until stop
      if (text != "infinite") {
        const auto v = parseInteger(text, 1, int64_t(1) << 40);
        if (!v) {
          send("info string error: go mate: expected milliseconds or 'infinite', got '" + text +
               "' (searching until stop)");
        } else {
          ms = *v;
        }
      }
      startMateSearch(ms);
      return;
    } else if (w == "searchmoves") {
      // The moves run to the end of the command or to the next keyword; they are checked
      // against the position when the search starts.
      while (i + 1 < words.size() && !isGoKeyword(words[i + 1])) go.searchMoves.push_back(words[++i]);
      if (go.searchMoves.empty()) send("info string error: go: 'searchmoves' needs moves (ignored)");
    } else if (w == "btime" || w == "wtime" || w == "binc" || w == "winc" || w == "byoyomi" || w == "movetime" ||
               w == "nodes") {
      const std::string text = i + 1 < words.size() ? words[i + 1] : "";
      const auto v = parseInteger(text, -Analyzer::kMaxPlayouts * 1000, int64_t(1) << 50);
      // A value that is not a keyword is this limit's, good or bad: it is consumed, so one bad
      // number gives one error, not a second "unknown word".
      const bool valueGiven = !text.empty() && !isGoKeyword(text);
      if (!v) {
        send("info string error: go: '" + w + "' needs a whole number, got '" + text + "' (ignored)");
        if (valueGiven) ++i;
        continue;
      }
      ++i;
      if (w == "nodes" && *v < 1) {  // 0 or less would otherwise fall back to the default playouts unannounced
        send("info string error: go: 'nodes' must be at least 1, got '" + text + "' (ignored)");
        continue;
      }
      int64_t* target = w == "btime" ? &go.btime : w == "wtime" ? &go.wtime : w == "binc" ? &go.binc
                        : w == "winc" ? &go.winc : w == "byoyomi" ? &go.byoyomi : w == "movetime" ? &go.movetime
                                                                                                     : &go.nodes;
      *target = *v;
    } else {
      send("info string error: go: unknown word '" + w + "' (ignored)");
    }
  }
  const Clock::time_point received = Clock::now();  // the clock runs from here
  stopSearch();  // a `go` during a search ends that search first (its bestmove is written)
  prepare();
  SearchJob job{position_ ? *position_ : game::Position(setup_->variant), go, received, options_};
  ponderLimits_ = go;
  searchSide_ = job.position.sideToMove();
  stop_ = false;
  untilStopped_ = go.infinite || go.ponder;
  {
    std::lock_guard<std::mutex> lock(stateMutex_);
    searching_ = true;
  }
  worker_ = std::thread([this, job = std::move(job)]() mutable { search(std::move(job)); });
}

void UsiEngine::startMateSearch(int64_t ms) {
  const Clock::time_point received = Clock::now();
  stopSearch();
  prepare();
  game::Position pos = position_ ? *position_ : game::Position(setup_->variant);
  stop_ = false;
  untilStopped_ = false;
  {
    std::lock_guard<std::mutex> lock(stateMutex_);
    searching_ = true;
  }
  worker_ = std::thread([this, pos = std::move(pos), ms, received]() mutable { mateSearch(std::move(pos), ms, received); });
}

// The checks-only mate search of mcts/mate_search.h, deepened 1, 3, 5, ... plies until a mate,
// the time limit or `stop`. Replies (USI): `checkmate M1 M2 ...` (the whole line, the defence
// longest), `checkmate nomate` when every depth up to kMaxMatePlies was searched in full, else
// `checkmate timeout`.
void UsiEngine::mateSearch(game::Position pos, int64_t ms, Clock::time_point received) {
  constexpr int kMaxMatePlies = 63;
  std::string reply;
  try {
    mcts::MateSearch search(pos.gamePly() + kSearchHorizonPlies);
    search.setStopTest([&] { return stop_.load() || (ms > 0 && msSince(received) >= ms); });
    const mcts::MateResult r = search.find(pos, kMaxMatePlies);
    send("info string mate search: " + std::to_string(r.nodes) + " nodes in " + std::to_string(msSince(received)) +
         " ms" + (r.found ? ", mate in " + std::to_string(r.plies) + " plies" : ""));
    if (r.found) {
      reply = "checkmate";
      game::Position line = pos;
      for (const game::Move& m : r.line) {
        reply += " " + line.moveToUsi(m);
        line.makeMove(m);
      }
    } else {
      reply = r.budgetExhausted ? "checkmate timeout" : "checkmate nomate";
    }
  } catch (const std::exception& e) {
    send(std::string("info string error: mate search: ") + e.what());
    reply = "checkmate nomate";
  }
  send(reply);
  std::lock_guard<std::mutex> lock(stateMutex_);
  searching_ = false;
  stateChanged_.notify_all();
}

void UsiEngine::cmdPonderHit() {
  // The opponent played the expected move: the ponder search goes on as a normal timed search,
  // its clock starting now.
  if (!searching_ || !ponderLimits_.ponder || ponderTimer_.joinable()) return;
  GoLimits go = ponderLimits_;
  go.ponder = false;
  TimeSettings settings;
  settings.overheadMs = options_.moveOverheadMs;
  const MoveBudget budget = moveBudget(go, searchSide_, settings);
  if (budget.infinite) return;  // `go ponder infinite`: still until stop
  untilStopped_ = false;
  if (!budget.timed) {
    stop_ = true;  // no clock: the time spent pondering was the search
    return;
  }
  const auto deadline = Clock::now() + std::chrono::microseconds(int64_t(budget.seconds * 1e6));
  ponderTimer_ = std::thread([this, deadline] {
    std::unique_lock<std::mutex> lock(stateMutex_);
    if (!stateChanged_.wait_until(lock, deadline, [&] { return !searching_; })) stop_ = true;
  });
}

void UsiEngine::stopSearch() {
  stop_ = true;
  joinWorker();
}

void UsiEngine::joinWorker() {
  if (worker_.joinable()) worker_.join();
  if (ponderTimer_.joinable()) ponderTimer_.join();  // ends with the search (searching_ false)
  untilStopped_ = false;
}

void UsiEngine::sendInfo(const Analysis& a, int64_t elapsedMs, const UsiOptions& options) {
  const int multiPv = options.multiPv;
  size_t seldepth = 1;
  for (const MoveInfo& m : a.moves) seldepth = std::max(seldepth, m.pv.size());
  const int64_t nps = a.playouts * 1000 / std::max<int64_t>(1, elapsedMs);
  const size_t lines = std::min(a.moves.size(), size_t(std::max(1, multiPv)));
  for (size_t k = 0; k < lines; ++k) {
    const MoveInfo& m = a.moves[k];
    std::string line = "info depth " + std::to_string(std::max<size_t>(1, m.pv.size())) + " seldepth " +
                       std::to_string(seldepth) + " nodes " + std::to_string(a.playouts) + " nps " +
                       std::to_string(nps) + " time " + std::to_string(elapsedMs) + " score " +
                       (m.mate != 0 ? "mate " + std::to_string(m.mate)
                                    : "cp " + std::to_string(mcts::centipawnsOfWinRate(m.winRate, options.evalCoef))) +
                       (options.showWdl ? wdlText(m.wdl) : "") + " multipv " + std::to_string(k + 1) + " pv";
    for (const std::string& move : m.pv) line += " " + move;
    send(line);
  }
}

void UsiEngine::search(SearchJob job) {
  Setup& setup = *setup_;  // not replaced while a search runs (prepare() waits for idle)
  const game::Position& pos = job.position;
  const bool untilStopped = job.go.infinite || job.go.ponder;
  auto finish = [&](const std::string& bestmove) {
    // In infinite and ponder mode the GUI expects the bestmove only after `stop` (or ponderhit).
    while (untilStopped && !stop_) std::this_thread::sleep_for(std::chrono::milliseconds(2));
    send("bestmove " + bestmove);
    std::lock_guard<std::mutex> lock(stateMutex_);
    searching_ = false;
    stateChanged_.notify_all();
  };
  if (!setup.modelError.empty()) {
    // No silent stand-in: the GUI asked for this model's play.
    send("info string error: no search without the model: " + setup.modelError + "; resigning");
    finish("resign");
    return;
  }
  try {
    game::MoveList legal;
    pos.generateLegal(legal);
    if (legal.size() == 0) {
      send("info string no legal move: the game is lost");
      return finish("resign");
    }
    std::vector<game::Move> searchMoves =
        allowedSearchMoves(pos, job.go.searchMoves, [this](const std::string& line) { send(line); });
    if (!searchMoves.empty()) {  // the search, the forced-move shortcut and the answer keep to them
      legal.clear();
      for (game::Move m : searchMoves) legal.push(m);
    }
    const game::Outcome over = pos.outcome(0);
    if (over.over()) {
      // Already ended (by repetition, say, or chu's royal capture); the GUI asks anyway. A side
      // that has lost says so by resigning; otherwise it answers with a legal move.
      send("info string the game is already over: " + selfplay::reasonName(over.reason) +
           (over.draw() ? ", a draw" : over.winner == pos.sideToMove() ? ", won by the side to move" : ", lost by the side to move"));
      if (!over.draw() && over.winner != pos.sideToMove()) return finish("resign");
      return finish(pos.moveToUsi(legal[0]));
    }
    if (setup.book && !untilStopped && searchMoves.empty()) {
      const game::Move m = setup.book->choose(pos, &bookRng_);
      if (!m.isNone()) {
        send("info string book " + pos.moveToUsi(m));
        return finish(pos.moveToUsi(m));
      }
    }
    TimeSettings settings;
    settings.overheadMs = job.options.moveOverheadMs;
    const MoveBudget budget = moveBudget(job.go, pos.sideToMove(), settings);
    SearchLimits limits;
    limits.infinite = budget.infinite;
    limits.playouts = budget.playouts;
    if (budget.timed) {
      // The clock has run since `go` arrived: what is left of the budget, never zero (= no limit).
      limits.seconds = std::max(0.0005, budget.seconds - double(msSince(job.received)) / 1000.0);
    } else if (budget.playouts == 0) {
      limits.playouts = job.options.playouts;
    }
    if (legal.size() == 1 && !untilStopped) limits.playouts = 1;  // a forced move: keep the clock
    limits.rootMoves = searchMoves;
    mcts::SearchParams params = setup.analyzer->params();
    params.plyCap = pos.gamePly() + kSearchHorizonPlies;
    for (const mcts::SearchOption& o : mcts::searchOptions())
      if (o.where & mcts::SearchOption::kUsi) o.set(params, o.get(job.options.search));
    setup.analyzer->setParams(params);
    setup.analyzer->setThreads(job.options.threads);
    setup.analyzer->setCacheBytes(size_t(job.options.hashMiB) << 20);
    auto progress = [&](const Analysis& a) { sendInfo(a, msSince(job.received), job.options); };
    Analysis a = setup.analyzer->analyze(pos, limits, &stop_, progress, 1.0);
    if (a.moves.empty()) {
      // Stopped (or out of time) before the first playout: one more playout, which takes a
      // millisecond, rather than resigning a live game.
      SearchLimits one;
      one.playouts = 1;
      one.rootMoves = searchMoves;
      a = setup.analyzer->analyze(pos, one);
    }
    sendInfo(a, msSince(job.received), job.options);
    if (a.moves.empty()) return finish(pos.moveToUsi(legal[0]));
    const MoveInfo& best = a.moves.front();
    if (job.options.resignThreshold > 0 && best.winRate < job.options.resignThreshold) {
      std::ostringstream why;
      why << "info string resigning: win rate " << best.winRate << " is below " << job.options.resignThreshold;
      send(why.str());
      return finish("resign");
    }
    std::string answer = best.usi;
    if (best.pv.size() >= 2) answer += " ponder " + best.pv[1];
    finish(answer);
  } catch (const std::exception& e) {
    send(std::string("info string error: search: ") + e.what());
    finish("resign");
  }
}

}  // namespace poppy::play
