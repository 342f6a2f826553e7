// `poppy match`: two players (Poppy's model, rollout and random players, or any USI engine) play
// a match with alternating colours, optional openings and books, per-move limits; progress on
// stderr, the score with Elo on stdout, every game in a JSONL file and a summary JSON.
#include <memory>

#include "apps/commands.h"
#include "program/match_runner.h"

namespace poppy::apps {
namespace {

void addSideOptions(CLI::App* cmd, program::SideArgs& s, const std::string& w) {
  cmd->add_option("--" + w, s.player,
                  "Player " + std::string(w == "a" ? "A" : "B") +
                      ": model:PATH[:PLAYOUTS], shipped[:PLAYOUTS], uniform[:PLAYOUTS], rollout[:SIMULATIONS], random, "
                      "usi:COMMAND or xboard:COMMAND")
      ->required();
  cmd->add_option("--engine-option-" + w, s.engineOptions,
                  "Engine option NAME=VALUE for a usi: or xboard: player (repeatable; UCI_Variant is set automatically)");
  cmd->add_option("--nodes-" + w, s.nodes, "Nodes per move: playouts, rollout simulations or USI 'go nodes'")
      ->check(CLI::Range(int64_t(1), int64_t(10000000)));
  cmd->add_option("--movetime-" + w, s.movetimeMs, "Milliseconds per move (USI 'go movetime'; Poppy players stop their search)")
      ->check(CLI::Range(int64_t(1), int64_t(86400000)));
  cmd->add_option("--depth-" + w, s.depth, "Plies per move of an xboard: engine (`sd DEPTH`)")
      ->check(CLI::Range(1, 100));
  cmd->add_option("--book-" + w, s.book, "Opening book (JSON, poppy openings book) played while in book");
  cmd->add_option("--notation-" + w, s.notation,
                  "Notation of a usi: engine: auto (Fairy-Stockfish's when it says it is Fairy-Stockfish), poppy or fairy")
      ->check(CLI::IsMember({"auto", "poppy", "fairy"}))
      ->capture_default_str();
}

}  // namespace

void addMatchCommand(CLI::App& app) {
  auto o = std::make_shared<program::MatchRunArgs>();
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
  cmd->add_option("--playouts", o->players.playouts, "Playouts per move of model players without their own")
      ->check(CLI::Range(1, 1000000))
      ->capture_default_str();
  cmd->add_option("--ply-cap", o->plyCap, "Plies after which a game is drawn")->check(CLI::Range(1, 100000))->capture_default_str();
  cmd->add_option("--opening-plies", o->openingPlies, "First plies model players sample by visit count (variety), counted from the end of the opening")
      ->check(CLI::Range(0, 1000))
      ->capture_default_str();
  cmd->add_option("--grace", o->players.graceMs, "A usi: move may take its movetime plus this many ms before it loses on time")
      ->check(CLI::Range(int64_t(0), int64_t(3600000)))
      ->capture_default_str();
  cmd->add_option("--move-timeout", o->players.moveTimeoutMs, "Most ms a usi: move may take when it has no movetime")
      ->check(CLI::Range(int64_t(1), int64_t(86400000)))
      ->capture_default_str();
  cmd->add_option("--records", o->records, "Append every game here (JSONL; default match-A-vs-B.jsonl; none: no file)");
  cmd->add_flag("--resume", o->resume,
                "Continue a stopped match: the games in --records are kept and not played again (same players, variant and --games)");
  cmd->add_option("--summary", o->summary, "Summary JSON, rewritten as the match runs (default match-A-vs-B.summary.json; none: no file)");
  program::addPlayerSettingOptions(cmd, o->players);
  cmd->add_option("--threads", o->threads, "LibTorch threads")->check(CLI::Range(1, 256))->capture_default_str();
  cmd->add_option("--sprt", o->sprt,
                  "ELO0 ELO1 [ALPHA BETA]: stop when the SPRT on colour-swapped pairs accepts Elo ELO0 or ELO1 "
                  "(alpha, beta default 0.05); --games is then the most games (default 20000)")
      ->expected(2, 4);
  cmd->add_option("--sprt-min-pairs", o->sprtMinPairs,
                  "With --sprt: colour-swapped pairs to finish before the test may decide (one lopsided pair alone "
                  "would)")
      ->check(CLI::Range(1, 1000000))
      ->capture_default_str();
  cmd->add_option("--tc", o->clock,
                  "Both sides' clock, usi: players only: MAIN+INC (Fischer, e.g. 10s+0.1s) or MAIN/BYOYOMI (e.g. 1m/1s); "
                  "a move answered more than --grace ms after its time ran out loses on time");
  cmd->add_option("--resign", o->resign,
                  "MOVES:CP: a player whose own score was CP centipawns or worse for MOVES moves in a row loses "
                  "(adjudication; usi: and xboard: engines' and model players' scores)");
  cmd->add_flag("--resign-two-sided", o->resignTwoSided,
                "With --resign: only when the opponent's last MOVES moves also scored CP or better (both agree)");
  cmd->add_option("--draw", o->draw,
                  "FROM:MOVES:CP: from move FROM on, a game where both players scored within CP of zero for MOVES moves "
                  "each in a row is drawn (adjudication)");
  cmd->add_option("--seed", o->seed, "Random seed")->capture_default_str();
  cmd->callback([o, games] { program::runMatchCommand(*o, games->count() > 0); });
}

}  // namespace poppy::apps
