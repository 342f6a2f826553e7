// `poppy ladder`: one Poppy player (a model, or any player `poppy match` takes) against a USI
// engine (Fairy-Stockfish by default) at several engine strengths, the rungs: fixed nodes per
// move and a movetime. Each rung is one match of selfplay::playMatch, as `poppy match` plays it
// (alternating colours, openings, forfeits); progress on stderr, a table on stdout, and in the
// output directory ladder.json, ladder.svg and the games of each rung as JSONL.
//
// Timed players: a network player's parallel games share one deadline per round and the CPU
// (selfplay/match.h), and an engine on movetime thinks on the wall clock, so every rung where
// either side has a movetime is played one game at a time; only rungs where both sides count
// nodes run games in parallel.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <memory>

#include "apps/commands.h"
#include "common/data_dirs.h"
#include "program/match_setup.h"
#include "common/atomic_file.h"
#include "common/progress_line.h"
#include "game/variant_loader.h"
#include "nn/model_header.h"
#include "nn/network_backend.h"
#include "report/ladder_report.h"
#include "play/openings/match_openings.h"
#include "report/match_report.h"

namespace poppy::apps {
namespace {

namespace fs = std::filesystem;

constexpr int64_t kDefaultMovetimeMs = 200;
constexpr const char* kDefaultRungs = "nodes:100,nodes:1000,nodes:10000,movetime";
constexpr const char* kDefaultXboardRungs = "depth:1,depth:2,depth:3";  // an XBoard engine has no node limit

struct LadderArgs {
  std::string player, model, engine = "fairy-stockfish", notation = "auto", variant, out, openings, rungs;
  std::vector<std::string> engineOptions;
  program::PlayerSettings players;
  int games = 100, parallel = 8, plyCap = 200, threads = 1;
  int64_t movetimeMs = kDefaultMovetimeMs, playouts = 0;
  uint64_t seed = 1;
};

// configs/openings/VARIANT.txt in the current directory or the data (common/data_dirs.h); empty when none.
std::string defaultOpenings(const std::string& variant) {
  std::vector<fs::path> dirs = {"configs/openings"};
  for (const fs::path& d : common::dataPaths("configs/openings")) dirs.push_back(d);
  for (const fs::path& dir : dirs) {
    const fs::path p = dir / (variant + ".txt");
    std::error_code ec;
    if (fs::is_regular_file(p, ec)) return p.string();
  }
  return "";
}

void runLadder(LadderArgs o, bool movetimeGiven) {
  nn::setNetworkThreads(o.threads);
  if (!o.model.empty()) o.player = "model:" + o.model;
  if (o.player.empty()) throw std::runtime_error("name the player: --model PATH or --player SPEC");
  // --playouts alone: the player counts playouts and has no clock.
  if (o.playouts > 0 && !movetimeGiven) o.movetimeMs = 0;
  if (o.player == "random") o.playouts = 0, o.movetimeMs = 0;  // nothing to limit
  // Without --variant, --model's own variant (as usi, play and serve take it), else micro.
  if (o.variant.empty()) o.variant = o.model.empty() ? "micro" : nn::readModelInfo(o.model).variant;
  const auto variant = game::loadVariant(o.variant);
  game::requireTwoPlayers(*variant, "poppy ladder");
  const nn::Encoder encoder(variant);
  const bool xboardEngine = o.engine.rfind("xboard:", 0) == 0;
  const auto rungs = report::parseRungs(o.rungs.empty() ? (xboardEngine ? kDefaultXboardRungs : kDefaultRungs) : o.rungs,
                                      o.movetimeMs > 0 ? o.movetimeMs : kDefaultMovetimeMs);
  if (o.openings.empty()) o.openings = defaultOpenings(variant->name);
  if (o.openings == "none") o.openings.clear();
  std::vector<selfplay::MatchOpening> openings;
  if (!o.openings.empty()) openings = play::loadOpenings(o.openings, variant, o.plyCap);

  if (o.out.empty()) o.out = "ladder-" + report::shortPlayerName(o.player);
  const fs::path out(o.out);
  if (fs::exists(out / "ladder.json"))
    throw std::runtime_error(o.out + " already holds a ladder (ladder.json): choose another --out");

  // The engine once before anything is played: a missing engine, a failed handshake or an
  // unknown variant is an error now, naming the command.
  // `--engine xboard:COMMAND` is an XBoard engine (HaChu for chu), anything else a USI command.
  program::SideArgs engineSide;
  engineSide.player = xboardEngine ? o.engine : "usi:" + o.engine;
  engineSide.engineOptions = o.engineOptions;
  engineSide.notation = o.notation;
  report::LadderInfo info;
  if (xboardEngine) {
    for (const auto& r : rungs)
      if (r.nodes > 0) throw std::runtime_error("rung '" + r.name() + "': XBoard engines have no node limit (use depth:N)");
    const play::XboardConfig engineConfig = program::xboardConfig(engineSide, "", o.players, variant->name);
    play::XboardProcess probe(engineConfig);
    info.engineName = probe.name();
    info.notation = "xboard";
    info.engineCommand = engineConfig.command;
    info.engineOptions = engineConfig.options;
  } else {
    for (const auto& r : rungs)
      if (r.depth > 0) throw std::runtime_error("rung '" + r.name() + "' is for XBoard engines (--engine xboard:COMMAND)");
    const play::UsiProcessConfig engineConfig = program::usiConfig(engineSide, "", o.players, variant->name);
    play::UsiProcess probe(engineConfig);
    info.engineName = probe.name();
    info.notation = play::notationName(play::resolveNotation(engineConfig.notation, probe.name()));
    info.engineCommand = engineConfig.command;
    info.engineOptions = engineConfig.options;
  }
  program::SideArgs playerSide;
  playerSide.player = o.player;
  playerSide.nodes = o.playouts;
  playerSide.movetimeMs = o.movetimeMs;
  program::MatchPlayer player = program::makeMatchPlayer(playerSide, "", o.players, variant);
  const bool playerTimed = o.movetimeMs > 0;
  fs::create_directories(out);

  info.variant = variant->name;
  info.player = o.player;
  info.playerPlayouts = o.playouts;
  info.playerMovetimeMs = o.movetimeMs;
  if (player.loaded.spec.kind == selfplay::PlayerSpec::Kind::kNetwork) {
    const mcts::SearchParams& search = player.loaded.spec.search;
    auto rounded = [](float x) { return std::round(double(x) * 1e4) / 1e4; };  // 1.3, not 1.2999999523
    info.playerSearch = {{"cpuct", rounded(search.cpuct)},
                         {"fpu_reduction", rounded(search.fpuReduction)},
                         {"policy_temperature", rounded(search.policyTemperature)}};
  }
  info.openings = o.openings;
  info.openingsCount = int(openings.size());
  info.gamesPerRung = o.games;
  info.parallel = o.parallel;
  info.plyCap = o.plyCap;
  info.seed = o.seed;
  info.graceMs = o.players.graceMs;
  info.rungs = rungs;

  const std::string jsonPath = (out / "ladder.json").string(), svgPath = (out / "ladder.svg").string();
  std::vector<report::LadderRungResult> done;
  auto save = [&](bool finished) {
    common::writeFileAtomically(jsonPath, report::ladderJson(info, done, finished).dump(2) + "\n");
    common::writeFileAtomically(svgPath, report::ladderSvg(info, done));
  };
  save(false);  // an unwritable directory is found now
  std::fprintf(stderr, "%s vs %s (%s notation) on %s: %zu rungs of %d games, openings: %s\n", o.player.c_str(),
               info.engineName.c_str(), info.notation.c_str(), variant->name.c_str(), rungs.size(), o.games,
               o.openings.empty() ? "the start position" : (o.openings + " (" + std::to_string(openings.size()) + ")").c_str());
  if (playerTimed)
    std::fprintf(stderr, "the player has %lld ms per move: every rung is played one game at a time\n",
                 (long long)o.movetimeMs);

  using Clock = std::chrono::steady_clock;
  for (size_t i = 0; i < rungs.size(); ++i) {
    report::LadderRungResult rung;
    rung.rung = rungs[i];
    rung.oneGameAtATime = playerTimed || rungs[i].movetimeMs > 0;
    rung.parallel = rung.oneGameAtATime ? 1 : std::max(1, std::min(o.parallel, o.games));
    rung.gamesWanted = o.games;
    rung.records = "games-" + rungs[i].fileStem() + ".jsonl";
    const std::string recordsPath = (out / rung.records).string();
    selfplay::appendGameRecords(recordsPath, {});  // unwritable: now, not after a game

    program::SideArgs engineAtRung = engineSide;
    engineAtRung.nodes = rungs[i].nodes;
    engineAtRung.movetimeMs = rungs[i].movetimeMs;
    engineAtRung.depth = rungs[i].depth;
    program::MatchPlayer engine = program::makeMatchPlayer(engineAtRung, "", o.players, variant);
    selfplay::MatchSettings ms;
    ms.games = o.games;
    ms.parallelGames = rung.parallel;
    ms.plyCap = o.plyCap;
    ms.seed = o.seed + i;
    ms.openings = openings;
    // The openings give the variety (each once per colour); the model then plays its best.
    ms.openingTemperaturePlies = 0;
    ms.idPrefix = program::recordIdPrefix("ladder-" + rungs[i].fileStem());

    const std::string label = "[" + std::to_string(i + 1) + "/" + std::to_string(rungs.size()) + " " + rungs[i].name() + "]";
    const std::string limit = rungs[i].depth > 0   ? "sd " + std::to_string(rungs[i].depth)
                              : rungs[i].nodes > 0 ? "go nodes " + std::to_string(rungs[i].nodes)
                                                   : "go movetime " + std::to_string(rungs[i].movetimeMs);
    std::fprintf(stderr, "%s engine: %s, %s\n", label.c_str(), limit.c_str(),
                 rung.oneGameAtATime ? "one game at a time (a timed side)" : (std::to_string(rung.parallel) + " games at once").c_str());
    done.push_back(rung);
    const auto start = Clock::now();
    double lastSave = 0;
    common::ProgressLine progressLine;
    auto seconds = [&] { return std::chrono::duration<double>(Clock::now() - start).count(); };
    const auto r = selfplay::playMatch(variant, encoder, player.loaded.spec, engine.loaded.spec, ms,
                                       [&](const selfplay::MatchResult& s, int wanted) {
      selfplay::appendGameRecords(recordsPath, {s.records.back()});
      const double t = seconds();
      done.back().result = s;
      done.back().seconds = t;
      if (t - lastSave >= 10) save(false), lastSave = t;
      progressLine.update(label + " " + report::progressLine(s, wanted, t, 0, rung.parallel), s.games() == wanted);
    });
    progressLine.finish();
    done.back().result = r;
    done.back().seconds = seconds();
    done.back().finished = true;
    save(i + 1 == rungs.size());
    // Forfeits as the table counts them (adjudications and rule disagreements are none).
    const int forfeits = report::forfeitCount(r);
    if (forfeits > 0)
      std::fprintf(stderr, "%s %d games ended by a forfeit (resign, illegal move, timeout or crash): see %s\n",
                   label.c_str(), forfeits, recordsPath.c_str());
    // A rung lost entirely to forfeits measures nothing: the two programs do not play the same
    // game (another variant, notation or build), and any further rung would do the same.
    if (forfeits > 0 && forfeits == r.games())
      throw std::runtime_error(label + " every game ended by a forfeit (first: " + r.records.front().detail +
                               "): the engine and Poppy disagree on the game or the protocol; the ladder stops "
                               "here (" + jsonPath + " holds what was played; see " + recordsPath + ")");
  }
  std::printf("%s vs %s (%s), %d games per rung\n%s", o.player.c_str(), info.engineName.c_str(), variant->name.c_str(),
              o.games, report::ladderTable(done).c_str());
  std::printf("Elo: the player's rating minus the engine's at that rung, from the score (95%% interval from the "
              "Wilson interval of the score)\n");
  std::printf("results: %s, %s; games: %s/games-*.jsonl\n", jsonPath.c_str(), svgPath.c_str(), o.out.c_str());
}

}  // namespace

void addLadderCommand(CLI::App& app) {
  auto o = std::make_shared<LadderArgs>();
  CLI::App* cmd = app.add_subcommand(
      "ladder", "Play a Poppy player against a USI engine (Fairy-Stockfish) at several engine strengths; score and Elo per rung");
  auto* model = cmd->add_option("--model", o->model, "The model to rate (same as --player model:PATH)");
  auto* player = cmd->add_option("--player", o->player,
                                 "The player to rate: model:PATH[:PLAYOUTS], shipped[:PLAYOUTS], uniform[:PLAYOUTS], rollout[:SIMULATIONS], random or usi:COMMAND");
  model->excludes(player);
  cmd->add_option("--engine", o->engine,
                  "The opponent's USI command (a bare name is also looked up in /usr/games), or xboard:COMMAND for an "
                  "XBoard engine (HaChu for chu: xboard:hachu, rungs depth:N)")
      ->capture_default_str();
  cmd->add_option("--rungs", o->rungs,
                  "The engine's limits, comma separated: nodes:N (go nodes), movetime:MS, movetime (= --movetime), "
                  "depth:N (an XBoard engine's sd) "
                  "[default: " + std::string(kDefaultRungs) + "; against an xboard: engine " + kDefaultXboardRungs + "]");
  cmd->add_option("--games", o->games, "Games per rung (colours alternate)")->check(CLI::Range(1, 1000000))->capture_default_str();
  CLI::Option* movetime = cmd->add_option("--movetime", o->movetimeMs, "The player's milliseconds per move (0: none)")
                              ->check(CLI::Range(int64_t(0), int64_t(86400000)))
                              ->capture_default_str();
  cmd->add_option("--playouts", o->playouts,
                  "The player's playouts (rollout: simulations) per move; alone, it replaces --movetime")
      ->check(CLI::Range(int64_t(1), int64_t(10000000)));
  cmd->add_option("--out", o->out, "Output directory (default ladder-<player>); must not hold a ladder.json yet");
  cmd->add_option("--openings", o->openings,
                  "Openings file (as poppy match); default configs/openings/VARIANT.txt when there is one; none: start position");
  cmd->add_option("--engine-option", o->engineOptions, "USI option NAME=VALUE for the engine (repeatable)");
  cmd->add_option("--notation", o->notation, "The engine's notation: auto, poppy or fairy (see poppy match)")
      ->check(CLI::IsMember({"auto", "poppy", "fairy"}))
      ->capture_default_str();
  cmd->add_option("--variant", o->variant, "Variant (default: --model's variant, else micro)");
  cmd->add_option("--parallel", o->parallel, "Games at once on rungs where neither side is timed")
      ->check(CLI::Range(1, 4096))
      ->capture_default_str();
  cmd->add_option("--ply-cap", o->plyCap, "Plies after which a game is drawn")->check(CLI::Range(1, 100000))->capture_default_str();
  cmd->add_option("--grace", o->players.graceMs, "An engine move may take its movetime plus this many ms")
      ->check(CLI::Range(int64_t(0), int64_t(3600000)))
      ->capture_default_str();
  program::addPlayerSettingOptions(cmd, o->players);
  cmd->add_option("--threads", o->threads, "LibTorch threads")->check(CLI::Range(1, 256))->capture_default_str();
  cmd->add_option("--seed", o->seed, "Random seed")->capture_default_str();
  cmd->callback([o, movetime] { runLadder(*o, movetime->count() > 0); });
}

}  // namespace poppy::apps
