// `poppy openings history RUN_DIR`: how the run's preference for each first move (and the replies
// to its favourite first moves, and the moves of one chosen position) changed across its
// checkpoints (models/gen-NNNN.model), beside what its self-play games played, generation by
// generation. Each checkpoint searches the positions with play::Analyzer; the visit shares and
// priors go to stacked-area charts, a divergence chart, a table, a JSON file and CSV files.
#include <chrono>
#include <cstdio>
#include <filesystem>

#include "apps/commands.h"
#include "program/inference_option.h"
#include "common/atomic_file.h"
#include "game/position.h"
#include "game/variant_loader.h"
#include "nn/model_header.h"
#include "nn/network_backend.h"
#include "common/generation_name.h"
#include "play/analyzer.h"
#include "play/game_files/game_file.h"
#include "report/opening_history.h"
#include "report/svg_chart.h"

namespace poppy::apps {
namespace {
namespace fs = std::filesystem;

struct HistoryArgs {
  std::string runDir, out, device = "cpu";
  nn::Inference inference = nn::Inference::kAuto;
  int playouts = 400, every = 1, follow = 3, threads = 1;
  double minShare = 0.03;
  std::string position;  // moves from the start, space separated
};

std::vector<std::string> splitMoves(const std::string& text) {
  std::vector<std::string> moves;
  std::string move;
  for (char c : text + " ") {
    if (c == ' ' || c == '\t' || c == ',') {
      if (!move.empty()) moves.push_back(move);
      move.clear();
    } else {
      move += c;
    }
  }
  return moves;
}

// What self-play played: the first moves of RUN/games.jsonl, per generation of the model that
// played (the records' model field, "gen-0003"); games of other models are left out.
std::vector<report::PlayedOpenings> playedOpenings(const std::string& runDir, const std::string& variant) {
  const fs::path games = fs::path(runDir) / "games.jsonl";
  if (!fs::exists(games)) return {};
  std::map<int, report::PlayedOpenings> byGeneration;
  for (const selfplay::GameRecord& r : play::readGameFile(games.string(), variant)) {
    const int generation = common::generationNumber(r.model);
    if (generation < 0 || r.moves.empty()) continue;
    report::PlayedOpenings& p = byGeneration[generation];
    p.generation = generation;
    ++p.games;
    ++p.first[r.moves.front()].visits;
  }
  std::vector<report::PlayedOpenings> out;
  for (auto& [generation, p] : byGeneration) {
    for (auto& [move, stat] : p.first) stat.share = double(stat.visits) / double(p.games);
    out.push_back(std::move(p));
  }
  return out;
}

struct Checkpoint {
  int generation;
  fs::path path;
};

// The run's checkpoints, every k-th of them (the last always kept: where the run ended up).
std::vector<Checkpoint> findCheckpoints(const HistoryArgs& o) {
  const fs::path models = fs::path(o.runDir) / "models";
  if (!fs::is_directory(o.runDir)) throw std::runtime_error("run directory " + o.runDir + " does not exist");
  if (!fs::is_directory(models))
    throw std::runtime_error(o.runDir + " is not a run directory of poppy train (it has no models/ folder)");
  std::vector<Checkpoint> all;
  for (const auto& entry : fs::directory_iterator(models)) {
    const int gen = report::checkpointGeneration(entry.path().filename().string());
    if (gen >= 0 && entry.is_regular_file()) all.push_back({gen, entry.path()});
  }
  if (all.empty()) throw std::runtime_error(models.string() + " has no checkpoints (gen-NNNN.model)");
  std::sort(all.begin(), all.end(), [](const Checkpoint& a, const Checkpoint& b) { return a.generation < b.generation; });
  std::vector<Checkpoint> chosen;
  for (size_t i = 0; i < all.size(); ++i)
    if (i % size_t(o.every) == 0 || i + 1 == all.size()) chosen.push_back(all[i]);
  return chosen;
}

report::PositionStats statsOf(const play::Analysis& a) {
  report::PositionStats out;
  for (const play::MoveInfo& m : a.moves) out[m.usi] = {m.visits, m.share, double(m.prior)};
  return out;
}

class CheckpointSearcher {
 public:
  CheckpointSearcher(const HistoryArgs& o, const Checkpoint& c, const std::string& variantName)
      : variant_(game::loadVariant(variantName)), playouts_(o.playouts) {
    evaluator_ = nn::loadModelEvaluator(c.path.string(), variant_.get(), o.device, o.inference, &info_);
    mcts::SearchParams params;
    params.playouts = o.playouts;
    analyzer_ = std::make_unique<play::Analyzer>(variant_, evaluator_.get(), params, /*seed=*/1);
  }
  const nn::ModelInfo& info() const { return info_; }
  report::PositionStats search(const std::vector<std::string>& moves) {
    game::Position pos(variant_);
    for (const std::string& usi : moves) pos.makeMove(pos.parseUsi(usi));
    play::SearchLimits limits;
    limits.playouts = playouts_;
    return statsOf(analyzer_->analyze(pos, limits));
  }

 private:
  game::VariantPtr variant_;
  int playouts_;
  nn::ModelInfo info_;
  std::unique_ptr<mcts::Evaluator> evaluator_;
  std::unique_ptr<play::Analyzer> analyzer_;
};

// The first moves whose replies are searched: the last checkpoint's favourites.
std::vector<std::string> favourites(const report::PositionStats& first, int count) {
  std::vector<std::pair<std::string, report::MoveStat>> sorted(first.begin(), first.end());
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const auto& a, const auto& b) { return a.second.visits > b.second.visits; });
  std::vector<std::string> out;
  for (size_t i = 0; i < sorted.size() && int(i) < count; ++i) out.push_back(sorted[i].first);
  return out;
}

std::string stem(const std::string& svgPath) {
  const fs::path p(svgPath);
  return p.extension() == ".svg" ? (p.parent_path() / p.stem()).string() : svgPath;
}

void runHistory(const HistoryArgs& o) {
  nn::setNetworkThreads(o.threads);
  const std::vector<Checkpoint> checkpoints = findCheckpoints(o);
  // A damaged checkpoint is reported and skipped, never used; all of them damaged is an error.
  std::vector<std::string> problems;
  auto load = [&](const Checkpoint& c, const std::string& variant) -> std::unique_ptr<CheckpointSearcher> {
    try {
      return std::make_unique<CheckpointSearcher>(o, c, variant.empty() ? nn::readModelInfo(c.path.string()).variant
                                                                        : variant);
    } catch (const nn::ModelError& e) {
      problems.push_back(e.what());
      std::fprintf(stderr, "warning: skipping a checkpoint: %s\n", e.what());
      return nullptr;
    }
  };
  report::OpeningHistory h;
  h.runDir = o.runDir;
  h.playouts = o.playouts;
  // Which replies to follow is decided by where the run ended up: its newest loadable checkpoint,
  // which also names the variant.
  for (auto c = checkpoints.rbegin(); c != checkpoints.rend() && h.variant.empty(); ++c) {
    if (auto last = load(*c, "")) {
      h.variant = last->info().variant;
      h.followed = favourites(last->search({}), o.follow);
    }
  }
  if (h.variant.empty())
    throw std::runtime_error("no checkpoint of " + o.runDir + " could be loaded (" + problems.front() + ")");
  h.startSfen = game::Position(game::loadVariant(h.variant)).sfen();
  h.position = splitMoves(o.position);
  if (!h.position.empty()) {
    // A bad line fails here, naming the move, before any checkpoint is searched.
    game::Position pos(game::loadVariant(h.variant));
    for (const std::string& usi : h.position) {
      try {
        pos.makeMove(pos.parseUsi(usi));
      } catch (const std::exception& e) {
        throw std::invalid_argument("--position \"" + o.position + "\": " + e.what());
      }
    }
    if (pos.outcome(0).over()) throw std::invalid_argument("--position \"" + o.position + "\": the game is over there");
  }
  h.played = playedOpenings(o.runDir, h.variant);
  const std::string out = o.out.empty() ? (fs::path(o.runDir) / "report" / "openings-history.svg").string() : o.out;
  if (!fs::path(out).parent_path().empty()) fs::create_directories(fs::path(out).parent_path());

  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  for (size_t i = 0; i < checkpoints.size(); ++i) {
    const Checkpoint& c = checkpoints[i];
    const auto searcher = load(c, h.variant);
    if (!searcher) continue;
    report::CheckpointOpenings row;
    row.generation = c.generation;
    row.model = c.path.filename().string();
    row.step = searcher->info().step;
    row.first = searcher->search({});
    for (const std::string& move : h.followed) row.second[move] = searcher->search({move});
    if (!h.position.empty()) row.chosen = searcher->search(h.position);
    h.checkpoints.push_back(row);

    const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
    const double left = seconds / double(i + 1) * double(checkpoints.size() - i - 1);
    const std::vector<std::string> top = favourites(row.first, 1);
    const double share = top.empty() ? 0 : row.first.at(top[0]).share;
    std::fprintf(stderr, "openings history: %zu/%zu %s (step %lld): top %s %.0f%%, %.1fs so far, ~%.0fs left\n", i + 1,
                 checkpoints.size(), row.model.c_str(), (long long)row.step, top.empty() ? "-" : top[0].c_str(),
                 100 * share, seconds, left);
  }

  const std::string base = stem(out);
  const std::string table = report::historyTable(h);
  std::vector<std::pair<std::string, std::string>> files = {
      {base + ".svg", report::renderSvg(report::firstMoveChart(h, o.minShare))},
      {base + "-second.svg", report::renderSvg(report::secondMoveChart(h, o.minShare))},
      {base + "-divergence.svg", report::renderSvg(report::divergenceChart(h))},
      {base + "-divergence.csv", report::toCsv(report::divergenceChart(h))},
      {base + "-table.txt", table},
      {base + ".json", report::historyJson(h)},
      {base + ".csv", report::historyCsv(h)},
  };
  if (!h.position.empty()) files.push_back({base + "-position.svg", report::renderSvg(report::positionChart(h, o.minShare))});
  if (!h.played.empty()) {
    files.push_back({base + "-played.svg", report::renderSvg(report::playedChart(h, o.minShare))});
    files.push_back({base + "-played.csv", report::toCsv(report::playedChart(h, o.minShare))});
  }
  for (const auto& [path, contents] : files) common::writeFileAtomically(path, contents);
  std::fwrite(table.data(), 1, table.size(), stdout);
  std::printf("%zu checkpoints searched (%zu skipped) with %d playouts; %zu generations of self-play games; wrote:\n",
              h.checkpoints.size(), checkpoints.size() - h.checkpoints.size(), o.playouts, h.played.size());
  for (const auto& [path, contents] : files) std::printf("  %s\n", path.c_str());
}

}  // namespace

void addOpeningsHistoryCommand(CLI::App* openings) {
  auto o = std::make_shared<HistoryArgs>();
  CLI::App* cmd = openings->add_subcommand(
      "history", "How each checkpoint of a run prefers the first moves (and the replies to the favourite ones)");
  cmd->add_option("run_dir", o->runDir, "Run directory of poppy train")->required();
  cmd->add_option("--playouts", o->playouts, "Playouts per searched position")->check(CLI::Range(1, 1000000));
  cmd->add_option("--every", o->every, "Use every K-th checkpoint (the last is always used)")->check(CLI::Range(1, 100000));
  cmd->add_option("--follow", o->follow, "Search the replies to this many favourite first moves")->check(CLI::Range(0, 100));
  cmd->add_option("--position", o->position,
                  "Also follow this position (USI moves from the start, as \"3e3d 1a1b\") across the checkpoints");
  cmd->add_option("--min-share", o->minShare, "Draw a move that reaches this visit share at some checkpoint")
      ->check(CLI::Range(0.0, 1.0));
  cmd->add_option("--out", o->out,
                  "Chart of the first moves (default RUN_DIR/report/openings-history.svg); the replies go to "
                  "NAME-second.svg, the numbers to NAME.json and NAME.csv");
  cmd->add_option("--device", o->device, "cpu or cuda");
  program::addInferenceOption(cmd, o->inference);
  cmd->add_option("--threads", o->threads, "LibTorch threads")->check(CLI::Range(1, 256));
  cmd->callback([o] { runHistory(*o); });
}

}  // namespace poppy::apps
