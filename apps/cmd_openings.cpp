// `poppy openings tree|games|book`: what the network prefers in the opening (a searched tree of
// its preferred moves, drawn as text, JSON, SVG or PNG, or exported as an opening book) and what its
// self-play games actually played. The `openings` group is shared: `openings history` lives in
// another file and registers itself on the same group, whichever comes first.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <memory>

#include "apps/commands.h"
#include "program/inference_option.h"
#include "common/atomic_file.h"
#include "common/progress_line.h"
#include "game/variant_loader.h"
#include "mcts/evaluator.h"
#include "nn/encoder.h"
#include "nn/network_backend.h"
#include "play/analyzer.h"
#include "play/game_files/game_file.h"
#include "play/openings/opening_stats.h"
#include "play/openings/opening_tree.h"
#include "play/openings/opening_tree_svg.h"
#include "report/svg_to_png.h"
#include "selfplay/game_record.h"

namespace poppy::apps {
namespace {

namespace fs = std::filesystem;

// Defaults when --playouts is not given: a network search needs far fewer playouts than the
// rollout search (whose playouts are random games) for stable visit shares.
constexpr int kNetworkPlayouts = 400;
constexpr int kRolloutPlayouts = 2000;

struct TreeArgs {
  std::string model, variant = "micro", sfen, format = "text", out, device = "cpu";
  nn::Inference inference = nn::Inference::kAuto;
  bool noModel = false;
  int depth = 3, playouts = 0, maxChildren = 5, threads = 1, plyCap = 200;
  double minShare = 0.05;
  std::vector<std::string> records;
  uint64_t seed = 1;
  // The picture (svg, png).
  play::OpeningTreeSvgOptions picture;
  std::vector<std::string> diagramLines;
  double scale = 2;
};

struct GamesArgs {
  std::string runDir, format = "text";
  int depth = 4, top = 10;
  bool byGeneration = false;
};

// Registers the options shared by `tree` and `book`.
void addTreeOptions(CLI::App* cmd, TreeArgs& a) {
  auto* model = cmd->add_option("--model", a.model, "Model file whose preferences to show");
  auto* none = cmd->add_flag("--no-model", a.noModel, "Search with the rollout MCTS instead of a network (four players: the uniform network)");
  model->excludes(none);
  cmd->add_option("--variant", a.variant, "Variant (name or YAML path)")->capture_default_str();
  cmd->add_option("--sfen", a.sfen, "Start position (default: the variant's start)");
  cmd->add_option("--depth", a.depth, "Plies of the tree")
      ->check(CLI::Range(1, play::kMaxOpeningTreeDepth))
      ->capture_default_str();
  cmd->add_option("--playouts", a.playouts,
                  "Playouts per searched position (default " + std::to_string(kNetworkPlayouts) + " with a model, " +
                      std::to_string(kRolloutPlayouts) + " rollouts without)")
      ->check(CLI::Range(1, 1000000));
  cmd->add_option("--min-share", a.minShare, "Expand moves with at least this visit share")
      ->check(CLI::Range(0.0, 1.0))
      ->capture_default_str();
  cmd->add_option("--max-children", a.maxChildren, "Expand at most this many moves per position")
      ->check(CLI::Range(1, 100))
      ->capture_default_str();
  cmd->add_option("--ply-cap", a.plyCap, "Plies after which the search scores a game as drawn")
      ->check(CLI::Range(1, 100000))
      ->capture_default_str();
  cmd->add_option("--device", a.device, "cpu or cuda")->capture_default_str();
  program::addInferenceOption(cmd, a.inference);
  cmd->add_option("--threads", a.threads, "LibTorch threads")->check(CLI::Range(1, 256))->capture_default_str();
  cmd->add_option("--seed", a.seed, "Random seed (the rollout search)")->capture_default_str();
}

// "searched N / ~M positions": rewritten in place on a terminal, a line every few seconds elsewhere.
std::string treeProgress(const play::OpeningTreeProgress& p) {
  const double rate = p.seconds > 0 ? double(p.searched) / p.seconds : 0;
  const double left = rate > 0 ? double(std::max<int64_t>(0, p.estimate - p.searched)) / rate : 0;
  char line[160];
  std::snprintf(line, sizeof line, "openings: searched %lld / ~%lld positions, %.1f/s, ~%.0f s left",
                (long long)p.searched, (long long)p.estimate, rate, left);
  return line;
}

play::OpeningTree buildTree(const TreeArgs& a, const game::VariantPtr& variant) {
  if (a.model.empty() && !a.noModel) throw std::runtime_error("give --model PATH, or --no-model for the rollout search");
  game::Position start(variant);
  if (!a.sfen.empty()) start = game::Position::fromSfen(variant, a.sfen);  // SfenError names the text
  std::unique_ptr<mcts::Evaluator> evaluator;
  if (!a.noModel) {
    nn::setNetworkThreads(a.threads);
    evaluator = nn::loadModelEvaluator(a.model, variant.get(), a.device, a.inference);
  } else if (variant->numPlayers > 2) {
    // The rollout MCTS plays two players: four search with equal priors and drawn leaves.
    const nn::Encoder encoder(variant);
    evaluator = std::make_unique<mcts::UniformEvaluator>(encoder.policySize(), encoder.valueSize());
  }
  mcts::SearchParams params;
  params.playouts = a.playouts > 0 ? a.playouts : (evaluator ? kNetworkPlayouts : kRolloutPlayouts);
  params.plyCap = a.plyCap;
  play::Analyzer analyzer(variant, evaluator.get(), params, a.seed);
  play::OpeningTreeOptions options;
  options.depth = a.depth;
  options.minShare = a.minShare;
  options.maxChildren = a.maxChildren;
  common::ProgressLine progress;
  play::OpeningTree tree =
      play::buildOpeningTree(analyzer, start, options, [&](const play::OpeningTreeProgress& p) {
        progress.update(treeProgress(p), p.searched >= p.estimate);
      });
  progress.finish();
  return tree;
}

void writeOutput(const std::string& text, const std::string& out) {
  if (out.empty()) {
    std::fwrite(text.data(), 1, text.size(), stdout);
    std::fflush(stdout);
    return;
  }
  common::writeFileAtomically(out, text);
  std::fprintf(stderr, "openings: wrote %s\n", out.c_str());
}

void runTree(const TreeArgs& a) {
  const game::VariantPtr variant = game::loadVariant(a.variant);
  // The picture colours each move by its score against the other side's: two players only.
  if ((a.format == "svg" || a.format == "png") && variant->numPlayers > 2)
    throw std::invalid_argument("--format " + a.format + " draws two-player trees; " + variant->name + " has " +
                                std::to_string(variant->numPlayers) + " players: use --format text or json");
  // Read the records first: a bad file should fail before minutes of searching.
  std::vector<std::pair<std::string, std::vector<selfplay::GameRecord>>> records;
  for (const std::string& path : a.records) {
    records.emplace_back(path, play::readGameFile(path, variant->name));
    if (records.back().second.empty())
      throw std::invalid_argument("--records " + path + ": no game record could be read from it");
    play::checkGameRecords(records.back().second, path, variant);
  }
  const bool picture = a.format == "svg" || a.format == "png";
  if (a.format == "png" && a.out.empty()) throw std::invalid_argument("--format png needs --out FILE.png");
  if (!a.out.empty()) common::requireWritableDestination(a.out);  // now, not after the search
  play::OpeningTreeSvgOptions pictureOptions = a.picture;
  for (const std::string& line : a.diagramLines) {
    std::vector<std::string> moves;
    for (size_t at = 0; at < line.size();) {
      const size_t space = line.find(' ', at);
      const std::string move = line.substr(at, space == std::string::npos ? std::string::npos : space - at);
      if (!move.empty()) moves.push_back(move);
      at = space == std::string::npos ? line.size() : space + 1;
    }
    if (moves.empty()) throw std::invalid_argument("--diagram needs a line of USI moves, as \"7g7f 3c3d\"");
    pictureOptions.diagramLines.push_back(moves);
  }
  play::OpeningTree tree = buildTree(a, variant);
  for (const auto& [path, list] : records) play::countGames(tree, list, path, variant);
  if (a.format == "json") {
    writeOutput(play::openingTreeJson(tree), a.out);
  } else if (picture) {
    const std::string svg = play::openingTreeSvg(tree, variant, pictureOptions);
    if (a.format == "svg") {
      writeOutput(svg, a.out);
    } else {
      report::writeSvgAsPng(svg, a.out, a.scale);
      std::fprintf(stderr, "openings: wrote %s\n", a.out.c_str());
    }
  } else {
    writeOutput(play::openingTreeText(tree), a.out);
  }
}

void runBook(const TreeArgs& a, const std::string& out) {
  const game::VariantPtr variant = game::loadVariant(a.variant);
  game::requireTwoPlayers(*variant, "poppy openings book");
  common::requireWritableDestination(out);  // now, not after the search
  const play::OpeningTree tree = buildTree(a, variant);
  const play::OpeningBook book = play::openingTreeToBook(tree, variant);
  book.save(out);
  std::fprintf(stderr, "openings: wrote %s (%zu positions from %lld searches)\n", out.c_str(), book.size(),
               (long long)tree.searches);
}

// The games of a run directory (games.jsonl), of a folder of KIF and CSA files, or of one file.
std::vector<selfplay::GameRecord> gamesAt(const std::string& where) {
  if (!fs::is_directory(where)) {
    if (!fs::exists(where)) throw std::runtime_error("'" + where + "': no such run directory or file");
    return play::readGameFile(where);
  }
  const fs::path games = fs::path(where) / "games.jsonl";
  if (fs::exists(games)) return play::readGameFile(games.string());
  std::vector<std::string> files;
  for (const auto& entry : fs::directory_iterator(where))
    if (entry.is_regular_file() && play::gameFormatOf(entry.path().string()) != play::GameFormat::kJsonl)
      files.push_back(entry.path().string());
  if (files.empty()) throw std::runtime_error("directory '" + where + "' has no games.jsonl and no .kif, .kifu or .csa files");
  std::sort(files.begin(), files.end());
  std::vector<selfplay::GameRecord> records;
  for (const std::string& f : files)
    for (selfplay::GameRecord& r : play::readGameFile(f)) records.push_back(std::move(r));
  return records;
}

void runGames(const GamesArgs& a) {
  const std::string path = a.runDir;
  const std::vector<selfplay::GameRecord> records = gamesAt(path);
  for (const selfplay::GameRecord& r : records)
    if (r.variant != records.front().variant)
      throw std::runtime_error("game records '" + path + "' mix variants ('" + records.front().variant + "' and '" +
                               r.variant + "' in game '" + r.id + "')");
  // Sente/gote statistics: a four-player run's records (results by seat) are refused by name.
  if (!records.empty()) game::requireTwoPlayers(*game::loadVariant(records.front().variant), "poppy openings games");
  const play::OpeningStats stats = play::openingStats(records, a.depth, a.top, a.byGeneration);
  const std::string text = a.format == "json" ? play::openingStatsJson(stats) : play::openingStatsText(stats);
  std::fwrite(text.data(), 1, text.size(), stdout);
}

}  // namespace

void addOpeningsCommands(CLI::App* openings) {
  auto tree = std::make_shared<TreeArgs>();
  CLI::App* treeCmd = openings->add_subcommand(
      "tree", "The tree of the moves the network prefers from the start, with visit shares and win rates");
  addTreeOptions(treeCmd, *tree);
  treeCmd->add_option("--records", tree->records, "Game records to count games per node: JSONL (a run's games.jsonl), .kif/.kifu or .csa files")
      ->check(CLI::ExistingFile);
  treeCmd->add_option("--format", tree->format, "text, json, svg or png (a picture; png needs --out)")
      ->check(CLI::IsMember({"text", "json", "svg", "png"}))
      ->capture_default_str();
  treeCmd->add_option("--out", tree->out, "Write to this file (default: standard output)");
  treeCmd->add_option("--fold-depth", tree->picture.foldDepth, "Picture: plies drawn (deeper positions are counted on their ancestor)")
      ->check(CLI::Range(1, play::kMaxOpeningTreeDepth))
      ->capture_default_str();
  treeCmd->add_option("--fold-share", tree->picture.foldShare, "Picture: fold moves under this share into one line (the most visited is always drawn)")
      ->check(CLI::Range(0.0, 1.0))
      ->capture_default_str();
  treeCmd->add_option("--diagrams", tree->picture.diagrams, "Picture: boards of the this-many lines the network likeliest plays")
      ->check(CLI::Range(0, 12))
      ->capture_default_str();
  treeCmd->add_option("--diagram", tree->diagramLines, "Picture: a board of this line instead (USI moves, as \"3e3d 1a1b\"; repeatable)");
  treeCmd->add_flag("--letters", tree->picture.board.letters, "Picture: letters on the pieces instead of kanji");
  treeCmd->add_option("--scale", tree->scale, "PNG: pixels per SVG unit")->check(CLI::Range(0.25, 8.0))->capture_default_str();
  treeCmd->callback([tree] { runTree(*tree); });

  auto games = std::make_shared<GamesArgs>();
  CLI::App* gamesCmd =
      openings->add_subcommand("games", "The opening lines a run's self-play played most, and how they scored");
  gamesCmd->add_option("RUN_DIR", games->runDir, "Run directory (its games.jsonl), a folder of .kif/.kifu/.csa files, or one game-records file (JSONL, KIF, CSA)")->required();
  gamesCmd->add_option("--depth", games->depth, "Plies that make a line")->check(CLI::Range(1, 1000))->capture_default_str();
  gamesCmd->add_option("--top", games->top, "Lines shown per group")->check(CLI::Range(1, 100000))->capture_default_str();
  gamesCmd->add_flag("--by-generation", games->byGeneration, "One table per generation (the records' model)");
  gamesCmd->add_option("--format", games->format, "text or json")
      ->check(CLI::IsMember({"text", "json"}))
      ->capture_default_str();
  gamesCmd->callback([games] { runGames(*games); });

  auto book = std::make_shared<TreeArgs>();
  auto bookOut = std::make_shared<std::string>();
  CLI::App* bookCmd = openings->add_subcommand(
      "book", "Export the tree as an opening book (weights = visit shares) for `poppy usi` and `poppy match`");
  addTreeOptions(bookCmd, *book);
  bookCmd->add_option("--out", *bookOut, "Book file to write (JSON)")->required();
  bookCmd->callback([book, bookOut] { runBook(*book, *bookOut); });
}

}  // namespace poppy::apps
