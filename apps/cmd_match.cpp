// `poppy match`: two players (Poppy's model, rollout and random players, or any USI engine) play
// a match with alternating colours, optional openings and books, per-move limits; progress on
// stderr, the score with Elo on stdout, every game in a JSONL file and a summary JSON.
#include <torch/torch.h>

#include <chrono>
#include <cstdio>
#include <ctime>
#include <memory>

#include "apps/commands.h"
#include "apps/model_players.h"
#include "game/variant_loader.h"
#include "play/match_openings.h"
#include "play/match_report.h"
#include "play/opening_book.h"
#include "play/usi_client.h"

namespace poppy::apps {
namespace {

// Searches with a time limit and no node limit still stop here (tree memory).
constexpr int kTimedNodeCap = 1000000;

struct SideArgs {
  std::string player, book;
  std::vector<std::string> engineOptions;
  int64_t nodes = 0, movetimeMs = 0;
};

struct MatchArgs {
  SideArgs a, b;
  std::string variant = "micro", device = "cpu", records, summary, openings;
  int games = 100, parallel = 32, playouts = 128, plyCap = 200, openingPlies = 2, threads = 1;
  int64_t graceMs = 1000, moveTimeoutMs = 60000;
  uint64_t seed = 1;
};

// "NAME=VALUE" -> (NAME, VALUE).
std::pair<std::string, std::string> engineOption(const std::string& text, const char* flag) {
  const size_t eq = text.find('=');
  if (eq == std::string::npos || eq == 0)
    throw std::runtime_error(std::string(flag) + " '" + text + "': expected NAME=VALUE");
  return {text.substr(0, eq), text.substr(eq + 1)};
}

// A player with its limits and book; keeps the evaluator and book alive.
struct MatchPlayer {
  LoadedPlayer loaded;
  std::shared_ptr<play::OpeningBook> book;
};

MatchPlayer makePlayer(const SideArgs& s, const char* which, const MatchArgs& o, const game::VariantPtr& variant) {
  MatchPlayer p;
  const std::string flag = std::string("--") + "engine-option-" + which;
  if (s.player.rfind("usi:", 0) == 0) {
    play::UsiProcessConfig c;
    c.command = s.player.substr(4);
    // A command quoted as a whole (usi:"prog args") may keep its quotes when it comes from a file.
    if (c.command.size() >= 2 && (c.command.front() == '"' || c.command.front() == '\'') &&
        c.command.back() == c.command.front())
      c.command = c.command.substr(1, c.command.size() - 2);
    if (c.command.find_first_not_of(' ') == std::string::npos)
      throw std::runtime_error("player '" + s.player + "': usi: needs a command, e.g. usi:fairy-stockfish");
    for (const auto& e : s.engineOptions) c.options.push_back(engineOption(e, flag.c_str()));
    c.variant = variant->name;
    c.nodes = s.nodes;
    c.movetimeMs = s.movetimeMs;
    c.graceSeconds = o.graceMs / 1000.0;
    c.moveTimeoutSeconds = o.moveTimeoutMs / 1000.0;
    p.loaded.spec.kind = selfplay::PlayerSpec::Kind::kExternal;
    p.loaded.spec.name = s.player;
    p.loaded.spec.external = play::usiPlayerFactory(c);
  } else {
    if (!s.engineOptions.empty())
      throw std::runtime_error(flag + " only applies to usi: players, not '" + s.player + "'");
    const bool timedOnly = s.movetimeMs > 0 && s.nodes == 0;
    p.loaded = loadPlayer(s.player, variant->name, o.device, timedOnly ? kTimedNodeCap : o.playouts);
    auto& spec = p.loaded.spec;
    switch (spec.kind) {
      case selfplay::PlayerSpec::Kind::kNetwork:
        if (s.nodes > 0) spec.search.playouts = int(s.nodes);
        break;
      case selfplay::PlayerSpec::Kind::kRollout:
        if (s.nodes > 0) spec.simulations = int(s.nodes);
        else if (timedOnly && s.player == "rollout") spec.simulations = kTimedNodeCap;
        break;
      default:
        if (s.nodes > 0 || s.movetimeMs > 0)
          throw std::runtime_error(std::string("--nodes-") + which + " and --movetime-" + which +
                                   " do not apply to the random player");
    }
    spec.moveSeconds = s.movetimeMs / 1000.0;
  }
  if (!s.book.empty()) {
    p.book = std::make_shared<play::OpeningBook>(play::OpeningBook::load(s.book, variant));
    auto book = p.book;
    p.loaded.spec.book = [book](const game::Position& pos, std::mt19937& rng) { return book->choose(pos, &rng); };
  }
  return p;
}

// "match-20250101T120000-": record ids stay unique when a records file collects several matches.
std::string idPrefix() {
  const std::time_t now = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "match-%Y%m%dT%H%M%S-", std::localtime(&now));
  return buf;
}

void runMatchCommand(MatchArgs o, bool gamesGiven) {
  torch::set_num_threads(o.threads);
  const auto variant = game::loadVariant(o.variant);
  const nn::Encoder encoder(variant);
  selfplay::MatchSettings ms;
  if (!o.openings.empty()) {
    ms.openings = play::loadOpenings(o.openings, variant, o.plyCap);
    if (!gamesGiven) o.games = int(2 * ms.openings.size());
  }
  const std::string stem = play::defaultMatchFileStem(o.a.player, o.b.player);
  if (o.records.empty()) o.records = stem + ".jsonl";
  if (o.summary.empty()) o.summary = stem + ".summary.json";
  if (o.records == "none") o.records.clear();
  if (o.summary == "none") o.summary.clear();

  // An unwritable records file is found now, not after the first game.
  if (!o.records.empty()) selfplay::appendGameRecords(o.records, {});
  MatchPlayer a = makePlayer(o.a, "a", o, variant);
  MatchPlayer b = makePlayer(o.b, "b", o, variant);
  ms.games = o.games;
  ms.parallelGames = o.parallel;
  ms.plyCap = o.plyCap;
  ms.openingTemperaturePlies = o.openingPlies;
  ms.seed = o.seed;
  ms.idPrefix = idPrefix();

  play::MatchInfo info;
  info.variant = variant->name;
  info.a = {o.a.player, o.a.nodes, o.a.movetimeMs, o.a.book};
  info.b = {o.b.player, o.b.nodes, o.b.movetimeMs, o.b.book};
  info.gamesWanted = o.games;
  info.parallel = o.parallel;
  info.plyCap = o.plyCap;
  info.seed = o.seed;
  info.openings = o.openings;
  info.openingsCount = int(ms.openings.size());
  info.records = o.records;

  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  auto seconds = [&] { return std::chrono::duration<double>(Clock::now() - start).count(); };
  double lastPrint = -1, lastSummary = 0;
  std::fprintf(stderr, "%s vs %s: %d games, %d at once\n", o.a.player.c_str(), o.b.player.c_str(), o.games,
               std::min(o.parallel, o.games));
  const auto r = selfplay::playMatch(variant, encoder, a.loaded.spec, b.loaded.spec, ms,
                                     [&](const selfplay::MatchResult& s, int wanted) {
    // Each game is saved as soon as it ends, so an interrupted match keeps its games.
    if (!o.records.empty()) selfplay::appendGameRecords(o.records, {s.records.back()});
    const double t = seconds();
    if (!o.summary.empty() && t - lastSummary >= 10) {
      play::writeMatchSummary(o.summary, info, s, t, false);
      lastSummary = t;
    }
    if (t - lastPrint >= 0.5 || s.games() == wanted) {
      std::fprintf(stderr, "\r%s   ", play::progressLine(s, wanted, t).c_str());
      lastPrint = t;
    }
  });
  std::fprintf(stderr, "\n");
  if (!o.summary.empty()) play::writeMatchSummary(o.summary, info, r, seconds(), true);
  std::printf("%s\n", play::resultLine(r, o.a.player, o.b.player).c_str());
  int forfeits = 0;
  for (const auto& rec : r.records) forfeits += !rec.detail.empty();
  if (forfeits > 0) std::printf("%d games ended by a forfeit (resign, illegal move, timeout or crash): see the records\n", forfeits);
  if (!o.records.empty()) std::printf("records: %s\n", o.records.c_str());
  if (!o.summary.empty()) std::printf("summary: %s\n", o.summary.c_str());
}

void addSideOptions(CLI::App* cmd, SideArgs& s, const std::string& w) {
  cmd->add_option("--" + w, s.player,
                  "Player " + std::string(w == "a" ? "A" : "B") +
                      ": model:PATH[:PLAYOUTS], rollout[:SIMULATIONS], random or usi:COMMAND")
      ->required();
  cmd->add_option("--engine-option-" + w, s.engineOptions,
                  "USI option NAME=VALUE for a usi: player (repeatable; UCI_Variant is set automatically)");
  cmd->add_option("--nodes-" + w, s.nodes, "Nodes per move: playouts, rollout simulations or USI 'go nodes'")
      ->check(CLI::Range(int64_t(1), int64_t(10000000)));
  cmd->add_option("--movetime-" + w, s.movetimeMs, "Milliseconds per move (USI 'go movetime'; Poppy players stop their search)")
      ->check(CLI::Range(int64_t(1), int64_t(86400000)));
  cmd->add_option("--book-" + w, s.book, "Opening book (JSON, poppy openings book) played while in book");
}

}  // namespace

void addMatchCommand(CLI::App& app) {
  auto o = std::make_shared<MatchArgs>();
  CLI::App* cmd = app.add_subcommand("match", "Play two players (Poppy or any USI engine) against each other; score with Elo");
  addSideOptions(cmd, o->a, "a");
  addSideOptions(cmd, o->b, "b");
  cmd->add_option("--variant", o->variant, "Variant")->capture_default_str();
  CLI::Option* games = cmd->add_option("--games", o->games, "Games (colours alternate; default 2 per opening with --openings)")
                           ->check(CLI::Range(1, 1000000))
                           ->capture_default_str();
  cmd->add_option("--openings", o->openings, "Opening positions, one per line (SFEN or 'startpos moves ...'); each is played twice, colours swapped");
  cmd->add_option("--parallel", o->parallel, "Games played at once (a usi: player runs one engine per game)")
      ->check(CLI::Range(1, 4096))
      ->capture_default_str();
  cmd->add_option("--playouts", o->playouts, "Playouts per move of model players without their own")
      ->check(CLI::Range(1, 1000000))
      ->capture_default_str();
  cmd->add_option("--ply-cap", o->plyCap, "Plies after which a game is drawn")->check(CLI::Range(1, 100000))->capture_default_str();
  cmd->add_option("--opening-plies", o->openingPlies, "First plies model players sample by visit count (variety)")
      ->check(CLI::Range(0, 1000))
      ->capture_default_str();
  cmd->add_option("--grace", o->graceMs, "A usi: move may take its movetime plus this many ms before it loses on time")
      ->check(CLI::Range(int64_t(0), int64_t(3600000)))
      ->capture_default_str();
  cmd->add_option("--move-timeout", o->moveTimeoutMs, "Most ms a usi: move may take when it has no movetime")
      ->check(CLI::Range(int64_t(1), int64_t(86400000)))
      ->capture_default_str();
  cmd->add_option("--records", o->records, "Append every game here (JSONL; default match-A-vs-B.jsonl; none: no file)");
  cmd->add_option("--summary", o->summary, "Summary JSON, rewritten as the match runs (default match-A-vs-B.summary.json; none: no file)");
  cmd->add_option("--device", o->device, "cpu or cuda")->capture_default_str();
  cmd->add_option("--threads", o->threads, "LibTorch threads")->check(CLI::Range(1, 256))->capture_default_str();
  cmd->add_option("--seed", o->seed, "Random seed")->capture_default_str();
  cmd->callback([o, games] { runMatchCommand(*o, games->count() > 0); });
}

}  // namespace poppy::apps
