// `poppy tournament`: a round robin of several players (any `poppy match` player: models, rollout,
// random, USI and XBoard engines), one `poppy match` per pair in the output folder, then a
// crosstable with one Elo scale for all (report/round_robin.h). A stopped tournament is continued
// by running it again: the pairs already finished are kept.
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "apps/commands.h"
#include "common/atomic_file.h"
#include "common/stop_signal.h"
#include "program/match_runner.h"
#include "report/match_report.h"
#include "report/round_robin.h"

namespace poppy::apps {
namespace {

namespace fs = std::filesystem;

struct TournamentArgs {
  std::vector<std::string> players;
  program::MatchRunArgs match;  // the settings every pair's match shares
  int64_t nodes = 0, movetimeMs = 0;
  std::string out;
};

bool externalPlayer(const std::string& p) { return p.rfind("usi:", 0) == 0 || p.rfind("xboard:", 0) == 0; }

// File-safe names, made unique by their place when two would be the same.
std::vector<std::string> playerNames(const std::vector<std::string>& players) {
  std::vector<std::string> names;
  std::set<std::string> taken;
  for (size_t i = 0; i < players.size(); ++i) {
    std::string n = report::shortPlayerName(players[i]);
    if (!taken.insert(n).second) n += "-" + std::to_string(i + 1);
    taken.insert(n);
    names.push_back(n);
  }
  return names;
}

// A pair's result from its match summary: A's points and the games (none when there is no
// summary yet); *finished when the match ended with `wanted` games.
report::PairResult readPair(const std::string& summaryPath, int a, int b, int wanted, bool* finished) {
  report::PairResult r{a, b, 0, 0};
  *finished = false;
  if (!fs::exists(summaryPath)) return r;
  try {
    const report::MatchSummaryTotals t = report::readMatchSummary(summaryPath);
    r.games = t.games;
    r.points = t.pointsA();
    *finished = t.finished && r.games >= wanted;
  } catch (const std::exception& e) {
    throw std::runtime_error(summaryPath + ": unreadable match summary (" + e.what() + "); remove it to play the pair again");
  }
  return r;
}

void runTournament(TournamentArgs t) {
  if (t.players.size() < 2) throw std::invalid_argument("--player: a tournament needs at least two players");
  const std::vector<std::string> names = playerNames(t.players);
  if (t.out.empty()) {
    char stamp[32];
    const std::time_t now = std::time(nullptr);
    std::strftime(stamp, sizeof stamp, "tournament-%Y%m%d-%H%M%S", std::localtime(&now));
    t.out = stamp;
  }
  fs::create_directories(t.out);
  const size_t n = t.players.size();
  const int pairsTotal = int(n * (n - 1) / 2);
  std::fprintf(stderr, "tournament: %zu players, %d pairs of %d games each, in %s\n", n, pairsTotal, t.match.games,
               t.out.c_str());
  const common::StopOnSignal stopOnSignal;
  std::vector<report::PairResult> pairs;
  nlohmann::json pairsJson = nlohmann::json::array();
  int pairNumber = 0;
  for (size_t i = 0; i < n; ++i)
    for (size_t j = i + 1; j < n; ++j) {
      ++pairNumber;
      const std::string stem = (fs::path(t.out) / (names[i] + "-vs-" + names[j])).string();
      bool finished = false;
      report::PairResult r = readPair(stem + ".summary.json", int(i), int(j), t.match.games, &finished);
      if (!finished && !common::StopOnSignal::requested()) {
        std::fprintf(stderr, "tournament: pair %d of %d: %s against %s\n", pairNumber, pairsTotal, t.players[i].c_str(),
                     t.players[j].c_str());
        program::MatchRunArgs m = t.match;
        m.a.player = t.players[i];
        m.b.player = t.players[j];
        for (program::SideArgs* side : {&m.a, &m.b}) {
          if (t.movetimeMs > 0) side->movetimeMs = t.movetimeMs;
          if (t.nodes > 0 && externalPlayer(side->player)) side->nodes = t.nodes;
        }
        m.records = stem + ".jsonl";
        m.summary = stem + ".summary.json";
        m.resume = fs::exists(m.records);  // a pair stopped part way goes on from its games
        program::runMatchCommand(m, true);
        r = readPair(stem + ".summary.json", int(i), int(j), t.match.games, &finished);
      } else if (finished) {
        std::fprintf(stderr, "tournament: pair %d of %d (%s against %s): already played\n", pairNumber, pairsTotal,
                     names[i].c_str(), names[j].c_str());
      }
      if (r.games > 0) pairs.push_back(r);
      pairsJson.push_back({{"a", t.players[i]}, {"b", t.players[j]}, {"points_a", r.points}, {"games", r.games},
                           {"finished", finished}, {"summary", stem + ".summary.json"}});
    }
  const std::vector<double> elo = report::roundRobinElo(int(n), pairs);
  const std::string table = report::crosstable(names, pairs, elo);
  nlohmann::json players = nlohmann::json::array();
  for (size_t i = 0; i < n; ++i) players.push_back({{"player", t.players[i]}, {"name", names[i]}, {"elo", elo[i]}});
  const nlohmann::json summary = {{"format", "poppy-tournament"}, {"version", 1},     {"variant", t.match.variant},
                                  {"games_per_pair", t.match.games}, {"players", players}, {"pairs", pairsJson},
                                  {"elo_anchor", t.players[0]}};
  common::writeFileAtomically((fs::path(t.out) / "tournament.json").string(), summary.dump(2) + "\n");
  std::printf("%s", table.c_str());
  std::printf("Elo: maximum likelihood over every pair's games, %s at 0; tournament.json in %s\n", names[0].c_str(),
              t.out.c_str());
  if (common::StopOnSignal::requested())
    std::printf("stopped: run the same command again to play the pairs left\n");
}

}  // namespace

void addTournamentCommand(CLI::App& app) {
  auto t = std::make_shared<TournamentArgs>();
  CLI::App* cmd = app.add_subcommand("tournament", "A round robin of several players: every pair plays a match; a crosstable with Elo");
  cmd->add_option("--player", t->players,
                  "A player, as poppy match takes it (model:PATH[:PLAYOUTS], shipped, rollout[:N], random, usi:COMMAND, "
                  "xboard:COMMAND); repeat for each, at least two. The first is Elo 0")
      ->required();
  cmd->add_option("--variant", t->match.variant, "Variant")->capture_default_str();
  cmd->add_option("--games", t->match.games, "Games each pair plays (colours alternate)")
      ->check(CLI::Range(1, 1000000))
      ->capture_default_str();
  cmd->add_option("--openings", t->match.openings, "Opening positions, one per line; each played with both colours");
  cmd->add_option("--parallel", t->match.parallel, "Games played at once in a pair's match")
      ->check(CLI::Range(1, 4096))
      ->capture_default_str();
  cmd->add_option("--playouts", t->match.players.playouts, "Playouts per move of model players without their own")
      ->check(CLI::Range(1, 1000000))
      ->capture_default_str();
  cmd->add_option("--nodes", t->nodes, "Nodes per move of the usi: engines ('go nodes')")
      ->check(CLI::Range(int64_t(1), int64_t(10000000)));
  cmd->add_option("--movetime", t->movetimeMs, "Milliseconds per move of every player")
      ->check(CLI::Range(int64_t(1), int64_t(86400000)));
  cmd->add_option("--ply-cap", t->match.plyCap, "Plies after which a game is drawn")->check(CLI::Range(1, 100000))->capture_default_str();
  cmd->add_option("--out", t->out, "Folder for the pairs' records and summaries and tournament.json (default tournament-DATE-TIME)");
  cmd->add_option("--seed", t->match.seed, "Random seed")->capture_default_str();
  program::addPlayerSettingOptions(cmd, t->match.players);
  cmd->callback([t] { runTournament(*t); });
}

}  // namespace poppy::apps
