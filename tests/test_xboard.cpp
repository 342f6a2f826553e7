// The XBoard (CECP) client: its notation (play/engines/xboard_notation.h), and matches against HaChu
// (Debian's `hachu`, installed by scripts/setup.sh) and against scripted engines that break the
// protocol's rules. The notation's reference squares are HaChu's, as its documentation and
// XBoard's state them: files a.. from sente's left, ranks 1.. from sente's side, so on chu's
// board USI 12l is a1, 1a is l12 and the pawn push 5i5h is h4h5.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <random>
#include <set>
#include <string>

#include "game/position.h"
#include "game/variant_loader.h"
#include "nn/encoder.h"
#include "play/engines/xboard_client.h"
#include "play/engines/xboard_engine.h"
#include "play/engines/xboard_notation.h"
#include "selfplay/match.h"
#include "support/scratch_files.h"

namespace poppy {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

constexpr const char* kHachu = "/usr/games/hachu";

// A sente lion on 6g with a gote pawn in front of it on 6f, the kings in the corners.
constexpr const char* kLionSfen = "k11/12/12/12/12/6p5/6N5/12/12/12/12/11K b - 1";

TEST(XboardNotation, SquaresAndMovesAsHachuWritesThem) {
  const auto chu = game::loadVariant("chu");
  // Squares in SFEN order: 12l is the last rank's first square (11 x 12 + 0), 1a the first
  // rank's last (0 x 12 + 11).
  EXPECT_EQ(play::xboardSquare(*chu, 11 * 12 + 0), "a1");
  EXPECT_EQ(play::xboardSquare(*chu, 0 * 12 + 11), "l12");
  const game::Position start(chu);
  EXPECT_EQ(play::xboardMove(start, start.parseUsi("5i5h")), "h4h5");

  // The lion on 6g (XBoard g6) and the pawn on 6f (g7): igui g6g7,g7g6; a capture and a second
  // step g6g7,g7g8; a pass, through any empty neighbour, @@@@.
  const game::Position lion = game::Position::fromSfen(chu, kLionSfen);
  EXPECT_EQ(play::xboardMove(lion, lion.parseUsi("6g6f6g")), "g6g7,g7g6");
  EXPECT_EQ(play::xboardMove(lion, lion.parseUsi("6g6f6e")), "g6g7,g7g8");
  EXPECT_EQ(play::xboardMove(lion, lion.parseUsi("6g7g6g")), "@@@@");
  EXPECT_EQ(play::xboardMove(lion, lion.parseUsi("6g6f")), "g6g7");

  // Read back: each text names its move; a pass names one of the passes; '=' (no promotion) is
  // accepted; what names no legal move is none.
  EXPECT_EQ(lion.moveToUsi(play::moveFromXboard(lion, "g6g7,g7g8")), "6g6f6e");
  EXPECT_EQ(lion.moveToUsi(play::moveFromXboard(lion, "g6g7=")), "6g6f");
  const game::Move pass = play::moveFromXboard(lion, "@@@@");
  ASSERT_FALSE(pass.isNone());
  EXPECT_TRUE(pass.isTwoLeg() && pass.to == pass.from);
  EXPECT_TRUE(play::moveFromXboard(lion, "g6g10").isNone());
  EXPECT_TRUE(play::moveFromXboard(start, "a1a9").isNone());
}

// Every legal move but the passes has a text of its own, so reading an engine's move back is
// never ambiguous: checked on the start and on positions along a random game.
TEST(XboardNotation, EveryMoveHasItsOwnText) {
  const auto chu = game::loadVariant("chu");
  game::Position pos(chu);
  std::mt19937 rng(5);
  for (int ply = 0; ply < 60 && !pos.outcome(0).over(); ++ply) {
    game::MoveList legal;
    pos.generateLegal(legal);
    std::set<std::string> seen;
    for (const game::Move m : legal) {
      const std::string text = play::xboardMove(pos, m);
      if (text == "@@@@") continue;
      EXPECT_TRUE(seen.insert(text).second) << text << " twice at " << pos.sfen();
      EXPECT_EQ(play::moveFromXboard(pos, text), m) << text;
    }
    pos.makeMove(legal[std::uniform_int_distribution<int>(0, legal.size() - 1)(rng)]);
  }
}

TEST(XboardClient, BadConfigurationsAreRefusedByName) {
  play::XboardConfig c;
  c.command = "hachu";
  c.variant = "shogi";
  EXPECT_THROW(play::checkXboardConfig(c), play::XboardError);
  c.variant = "chu";
  c.movetimeMs = 500;
  try {
    play::checkXboardConfig(c);
    FAIL() << "a 500 ms movetime was accepted";
  } catch (const play::XboardError& e) {
    EXPECT_THAT(e.what(), HasSubstr("whole seconds"));
  }
  c.movetimeMs = 0;
  c.command = "/nonexistent/engine";
  try {
    play::XboardProcess engine(c);
    FAIL() << "a missing engine started";
  } catch (const play::XboardError& e) {
    EXPECT_THAT(e.what(), HasSubstr("xboard:/nonexistent/engine"));
  }
}

// A timed match's clock as CECP says it: `level 0 BASE INC` once a game, at the engine's first
// move (BASE its whole main time, as M:SS), then `time` (its own main time left) and `otim` (the
// opponent's), in centiseconds, before each `go`. A scripted engine writes what it is told to a
// file and answers with a legal sente move.
TEST(XboardClient, ClockIsToldAsLevelTimeAndOtim) {
  const fs::path dir = poppy::testing::freshTempDir("poppy_test_xboard", "clock");
  const fs::path log = dir / "told.txt", engine = dir / "clocked.sh";
  std::ofstream(engine) << "#!/bin/sh\n"
                           "while read cmd arg rest; do\n"
                           "  echo \"$cmd $arg $rest\" >> '" << log.string() << "'\n"
                           "  case \"$cmd\" in\n"
                           "    protover) echo 'feature myname=\"clocked\" variants=\"chu\" ping=1 done=1' ;;\n"
                           "    ping) echo \"pong $arg\" ;;\n"
                           "    go) echo 'move h4h5' ;;\n"
                           "    quit) exit 0 ;;\n"
                           "  esac\n"
                           "done\n";
  fs::permissions(engine, fs::perms::owner_all);
  play::XboardConfig c;
  c.command = engine.string();
  play::XboardProcess process(c);
  const game::Position start(game::loadVariant("chu"));
  selfplay::ClockReading clock;
  clock.senteMs = 65000;  // 1:05 left for the engine (sente), 0:50 for its opponent, 2 s a move
  clock.goteMs = 50000;
  clock.incrementMs = 2000;
  const selfplay::MoveChoice m = process.go(start, {}, {}, &clock);
  EXPECT_TRUE(m.failure.empty()) << m.detail;
  EXPECT_EQ(m.usi, "5i5h");  // XBoard's h4h5: file h is the fifth from sente's right, rank 4 is i
  const std::string told = poppy::testing::slurp(log);
  EXPECT_THAT(told, HasSubstr("level 0 1:05 2\n"));
  EXPECT_THAT(told, HasSubstr("time 6500 \n"));
  EXPECT_THAT(told, HasSubstr("otim 5000 \n"));
  EXPECT_LT(told.find("level"), told.find("go")) << told;
  EXPECT_EQ(told.find("\nst "), std::string::npos) << "a timed engine is given no fixed time a move: " << told;
  EXPECT_THAT(told, HasSubstr("\npost"));
  fs::remove_all(dir);
}

// CECP thinking output: "ply score time nodes pv", the score in centipawns from the engine's
// view (HaChu writes such lines after `post`); anything else has no score.
TEST(XboardClient, ThinkingOutputGivesTheScore) {
  EXPECT_EQ(play::xboardScoreCp("5 -23 120 12345 h4h5 h9h8"), -23);
  EXPECT_EQ(play::xboardScoreCp("  12  +35 7 900 e4e5"), 35);
  EXPECT_EQ(play::xboardScoreCp("3 0 0 0"), 0);
  for (const char* other : {"move h4h5", "pong 3", "Illegal move: h4h6", "telluser hello", "1 -23", "1 x 2 3",
                            "feature done=1", "# 1 2 3 4", "1 99999999999999 1 1 a1a2", "1 9999999999 1 1 a1a2", ""})
    EXPECT_FALSE(play::xboardScoreCp(other).has_value()) << other;
}

struct ChuMatch {
  game::VariantPtr chu = game::loadVariant("chu");
  nn::Encoder encoder{chu};
  selfplay::PlayerSpec random, engine;
  selfplay::MatchSettings settings;

  explicit ChuMatch(const play::XboardConfig& config) {
    random.kind = selfplay::PlayerSpec::Kind::kRandom;
    random.name = "random";
    engine.kind = selfplay::PlayerSpec::Kind::kExternal;
    engine.name = "xboard:" + config.command;
    engine.external = play::xboardPlayerFactory(config);
    settings.games = 2;
    settings.parallelGames = 2;
    settings.plyCap = 40;
  }
  selfplay::MatchResult play() { return selfplay::playMatch(chu, encoder, random, engine, settings); }
};

// HaChu at depth 1 against a random player, both colours: it must answer every move with one
// of Poppy's legal moves (lion moves included), and every game replay legally from its record.
TEST(XboardClient, HachuPlaysLegalChuAgainstARandomPlayer) {
  ASSERT_TRUE(fs::exists(kHachu)) << kHachu << " is missing: scripts/setup.sh installs the hachu package";
  play::XboardConfig c;
  c.command = kHachu;
  c.depth = 1;
  ChuMatch m(c);
  const selfplay::MatchResult r = m.play();
  ASSERT_EQ(r.games(), 2);
  for (const auto& rec : r.records) {
    EXPECT_THAT(rec.reason, ::testing::AnyOf("ply_cap", "royals_captured", "bare_king", "checkmate"))
        << rec.id << ": " << rec.detail;
    game::Position pos = game::Position::fromSfen(m.chu, rec.start);
    for (const std::string& move : rec.moves) ASSERT_NO_THROW(pos.makeMove(pos.parseUsi(move))) << move;
  }
}

// Scripted engines (a few lines of shell) that break the rules two ways: one refuses every move
// it is sent, one plays a move that is not legal. Both games stop as rule disagreements: drawn,
// with the engine's words in the record, never scored as a win for either side.
TEST(XboardClient, RuleDisagreementsAreDrawnAndNamed) {
  const fs::path dir = poppy::testing::freshTempDir("poppy_test_xboard", "scripts");
  auto script = [&](const std::string& name, const std::string& onUsermove, const std::string& onGo) {
    const fs::path p = dir / name;
    std::ofstream(p) << "#!/bin/sh\n"
                        "while read cmd arg rest; do\n"
                        "  case \"$cmd\" in\n"
                        "    protover) echo 'feature myname=\"scripted\" variants=\"chu\" ping=1 done=1' ;;\n"
                        "    ping) echo \"pong $arg\" ;;\n"
                        "    usermove) " + onUsermove + " ;;\n"
                        "    go) " + onGo + " ;;\n"
                        "    quit) exit 0 ;;\n"
                        "  esac\n"
                        "done\n";
    fs::permissions(p, fs::perms::owner_all);
    return p.string();
  };
  // HaChu claims games without a move when its evaluation overflows, for either side: a claim
  // is not taken at its word (only CECP's `resign` is a resignation, below).
  for (const auto& [command, said] :
       {std::pair{script("refuses.sh", "echo \"Illegal move: $arg\"", "echo 'move h4h5'"), "refused a move"},
        std::pair{script("illegal.sh", ":", "echo 'move a1a12'"), "played 'a1a12'"},
        std::pair{script("claims.sh", ":", "echo '0-1 {resign}'"), "claimed '0-1 {resign}'"}}) {
    play::XboardConfig c;
    c.command = command;
    c.depth = 1;
    ChuMatch m(c);
    const selfplay::MatchResult r = m.play();
    ASSERT_EQ(r.games(), 2) << command;
    EXPECT_EQ(r.draws, 2) << command;
    for (const auto& rec : r.records) {
      EXPECT_EQ(rec.reason, selfplay::kRuleDisagreement) << command;
      EXPECT_EQ(rec.result, "draw");
      EXPECT_THAT(rec.detail, HasSubstr(said)) << rec.detail;
    }
  }
  // Thinking output (CECP `post`): the last score line before the move is the move's score, which
  // adjudication reads. This engine says -900 (its own view) before each move, the first of it
  // legal for either colour (h4h5 as sente, h9h8 as gote): `--resign 1:600` ends both games at
  // its first move, lost for it, whatever side it plays.
  play::XboardConfig pessimist;
  pessimist.command = script("pessimist.sh", "moved=1",
                             "echo '1 -200 1 10 h4h5'; echo '2 -900 2 40 h4h5'; "
                             "if [ -n \"$moved\" ]; then echo 'move h9h8'; else echo 'move h4h5'; fi");
  pessimist.depth = 2;
  ChuMatch adjudicated(pessimist);
  adjudicated.settings.adjudication.resignMoves = 1;
  adjudicated.settings.adjudication.resignCp = 600;
  const selfplay::MatchResult a = adjudicated.play();
  ASSERT_EQ(a.games(), 2);
  EXPECT_EQ(a.winsA, 2);  // the random player, on the engine's own score
  for (const auto& rec : a.records) {
    EXPECT_EQ(rec.reason, selfplay::kAdjudication) << rec.detail;
    EXPECT_LE(rec.plies, 2) << rec.detail;
  }

  play::XboardConfig resigner;
  resigner.command = script("resigns.sh", ":", "echo resign");
  resigner.depth = 1;
  ChuMatch m(resigner);
  const selfplay::MatchResult r = m.play();
  EXPECT_EQ(r.winsA, 2);  // the random player wins both games
  for (const auto& rec : r.records) EXPECT_EQ(rec.reason, "resign");
  fs::remove_all(dir);
}

// `poppy xboard`'s protocol in-process (the rollout search, a few playouts a move): the
// features, an answer to a user move that is one of chu's legal moves, force mode, illegal
// moves, take-backs, ping, and unknown commands.
struct XboardSession {
  std::ostringstream out;
  play::XboardEngine engine;
  size_t consumed = 0;
  XboardSession() : engine(out, game::loadVariant("chu"), nullptr, options()) {}
  static play::XboardEngineOptions options() {
    play::XboardEngineOptions o;
    o.playouts = 8;
    return o;
  }
  std::vector<std::string> send(const std::string& commands) {
    std::istringstream in(commands);
    for (std::string line; std::getline(in, line);) engine.handle(line);
    std::vector<std::string> lines;
    std::istringstream got(out.str().substr(consumed));
    consumed = out.str().size();
    for (std::string line; std::getline(got, line);) lines.push_back(line);
    return lines;
  }
};

std::string moveOf(const std::vector<std::string>& lines) {
  for (const auto& l : lines)
    if (l.rfind("move ", 0) == 0) return l.substr(5);
  return "";
}

TEST(XboardEngine, SpeaksTheProtocolAsXboardAndHachuExpect) {
  XboardSession s;
  auto out = s.send("xboard\nprotover 2");
  ASSERT_EQ(out.size(), 1u);
  EXPECT_THAT(out[0], HasSubstr("variants=\"chu\""));
  EXPECT_THAT(out[0], HasSubstr("usermove=1"));
  EXPECT_THAT(out[0], HasSubstr("done=1"));

  // After `new` the engine plays gote: sente's pawn push h4h5 (USI 5i5h) is answered at once.
  out = s.send("new\nvariant chu\nusermove h4h5");
  const std::string reply = moveOf(out);
  ASSERT_FALSE(reply.empty()) << ::testing::PrintToString(out);
  game::Position afterPush(game::loadVariant("chu"));
  afterPush.makeMove(afterPush.parseUsi("5i5h"));
  EXPECT_FALSE(play::moveFromXboard(afterPush, reply).isNone()) << reply;
  EXPECT_EQ(s.engine.position().gamePly(), 2);

  // Force mode: moves are taken, not answered; `go` then plays the side to move.
  out = s.send("force\nusermove g4g5");
  EXPECT_EQ(moveOf(out), "");
  EXPECT_EQ(s.engine.position().sideToMove(), 1);
  out = s.send("go");
  EXPECT_NE(moveOf(out), "");
  EXPECT_EQ(s.engine.position().gamePly(), 4);

  out = s.send("force\nusermove a1a9");
  EXPECT_THAT(out, ::testing::Contains("Illegal move: a1a9"));
  EXPECT_EQ(s.engine.position().gamePly(), 4);
  out = s.send("remove");
  EXPECT_EQ(s.engine.position().gamePly(), 2);
  out = s.send("undo");
  EXPECT_EQ(s.engine.position().gamePly(), 1);
  out = s.send("ping 42\nvariant shogi\nfrobnicate");
  EXPECT_THAT(out, ::testing::Contains("pong 42"));
  EXPECT_THAT(out, ::testing::Contains("Error (unknown variant): shogi"));
  EXPECT_THAT(out, ::testing::Contains("Error (unknown command): frobnicate"));
  EXPECT_FALSE(s.engine.handle("quit"));
}

// `level MPS BASE INC` (CECP): BASE in minutes or minutes:seconds, INC in seconds. The budgets
// below are the USI engine's clock rule (play/engines/time_manager.h: remaining / horizon +
// 0.8 x increment, the horizon 20 or the moves to the control plus one), worked by hand.
TEST(XboardEngine, LevelGivesTheClockItsBaseIncrementAndControl) {
  const auto fiveMinutes = play::parseXboardLevel("40 5 0");
  ASSERT_TRUE(fiveMinutes);
  EXPECT_EQ(fiveMinutes->movesPerSession, 40);
  EXPECT_EQ(fiveMinutes->baseMs, 300000);
  EXPECT_EQ(fiveMinutes->incrementMs, 0);
  const auto fischer = play::parseXboardLevel("0 2:30 1.5");
  ASSERT_TRUE(fischer);
  EXPECT_EQ(fischer->movesPerSession, 0);
  EXPECT_EQ(fischer->baseMs, 150000);
  EXPECT_EQ(fischer->incrementMs, 1500);
  for (const char* bad : {"", "40 5", "x 5 0", "40 5 0 9", "40 -5 0", "40 2:75 0", "2.5 5 0", "40 5 fast"})
    EXPECT_FALSE(play::parseXboardLevel(bad)) << "'" << bad << "'";

  // Each side has made ply / 2 moves: at ply 0 sente has 40 to go, at ply 79 gote has made 39
  // and has 1 to go; at ply 80 sente starts the next control.
  EXPECT_EQ(play::movesToTimeControl(40, 0), 40);
  EXPECT_EQ(play::movesToTimeControl(40, 79), 1);
  EXPECT_EQ(play::movesToTimeControl(40, 80), 40);
  EXPECT_EQ(play::movesToTimeControl(0, 80), 0);

  // 5 minutes, 40 to go: the horizon stays 20: 300,000 / 20 = 15,000 ms.
  EXPECT_EQ(play::xboardMoveBudgetMs(300000, 0, 40, 50), 15000);
  // 60 s left and 3 moves to go: 60,000 / 4 = 15,000 ms.
  EXPECT_EQ(play::xboardMoveBudgetMs(60000, 0, 3, 50), 15000);
  // Fischer, 150 s + 1.5 s: 150,000 / 20 + 0.8 x 1,500 = 8,700 ms.
  EXPECT_EQ(play::xboardMoveBudgetMs(150000, 1500, 0, 50), 8700);

  // The engine accepts the level and answers within its budget; a bad one is named.
  XboardSession s;
  auto out = s.send("new\nvariant chu\nlevel 40 0:02 0");
  EXPECT_THAT(out, ::testing::Not(::testing::Contains(::testing::HasSubstr("Error"))));
  out = s.send("level 40 five 0");
  EXPECT_THAT(out, ::testing::Contains(::testing::HasSubstr("Error (bad level")));
}

}  // namespace
}  // namespace poppy
