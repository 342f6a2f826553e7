// `poppy play`: the board drawn as text (pieces on the squares USI names, hands, flip), the
// terminal session scripted through streams against the rollout engine (moves, bad input, undo,
// hint, sfen, quit, resign, EOF, game end), its JSONL record, and the real binary with the
// shipped micro model fed a script on stdin.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "game/position.h"
#include "game/variant_loader.h"
#include "play/human/board_text.h"
#include "play/human/four_player_game.h"
#include "play/human/terminal_game.h"
#include "selfplay/game_record.h"
#include "support/scratch_files.h"

namespace poppy {
namespace {

namespace fs = std::filesystem;
using poppy::testing::exitCodeOf;
using poppy::testing::freshTempDir;
using poppy::testing::shellQuote;
using poppy::testing::slurp;
using poppy::testing::spit;

const std::string kTmp = "poppy_test_play_";
::testing::Environment* const kCleanup = poppy::testing::removeScratchRootAtExit(kTmp);

// docs/RULES.md: "Board 4 files x 5 ranks. Setup (SFEN): `kbgs/p3/4/3P/SGBK b - 1`."
const std::string kMicroStart = "kbgs/p3/4/3P/SGBK b - 1";

game::VariantPtr micro() { return game::loadVariant("micro"); }

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

// What the board text should show on each square, read straight from SFEN board text (ranks from
// `a`, each rank from the highest file down): sente's pieces as their letters, gote's in lower
// case behind a 'v' (the documented convention), "." for empty squares.
std::map<std::string, std::string> expectedSquares(const std::string& sfen, int files) {
  std::map<std::string, std::string> squares;
  const std::string board = sfen.substr(0, sfen.find(' '));
  int rank = 0, col = 0;
  for (size_t i = 0; i < board.size(); ++i) {
    const char c = board[i];
    auto name = [&] { return std::to_string(files - col) + char('a' + rank); };
    if (c == '/') {
      ++rank;
      col = 0;
    } else if (std::isdigit(static_cast<unsigned char>(c))) {
      for (int k = 0; k < c - '0'; ++k, ++col) squares[name()] = ".";
    } else {
      std::string token;
      if (c == '+') token = "+", ++i;
      const char letter = board[i];
      token += letter;
      if (std::islower(static_cast<unsigned char>(letter))) token = "v" + token;
      squares[name()] = token;
      ++col;
    }
  }
  return squares;
}

struct ParsedBoard {
  std::vector<int> fileOrder;      // file numbers left to right
  std::vector<char> rankOrder;     // rank letters top to bottom
  std::map<std::string, std::string> squares;  // "3a" -> "vb"
  std::map<std::string, bool> marked;          // in [brackets]
  std::string topHand, bottomHand;             // the hand lines above and below
};

// Reads the drawn board back: the line of file numbers, the rows "|cell|cell|...| r".
ParsedBoard parseBoard(const std::string& text) {
  ParsedBoard b;
  const std::regex numbers(R"(^\s+(\d+\s+)*\d+$)");
  const std::regex row(R"(^\s*\|(.*)\| ([a-z])$)");
  const auto all = lines(text);
  for (size_t li = 0; li < all.size(); ++li) {
    const std::string& l = all[li];
    std::smatch m;
    if (b.fileOrder.empty() && std::regex_match(l, numbers)) {
      std::istringstream in(l);
      for (int f; in >> f;) b.fileOrder.push_back(f);
    } else if (std::regex_match(l, m, row)) {
      const char rank = m[2].str()[0];
      b.rankOrder.push_back(rank);
      std::vector<std::string> cells;
      std::string inner = m[1].str(), cell;
      std::istringstream in(inner);
      while (std::getline(in, cell, '|')) cells.push_back(cell);
      EXPECT_EQ(cells.size(), b.fileOrder.size()) << l;
      for (size_t i = 0; i < cells.size() && i < b.fileOrder.size(); ++i) {
        std::string c = cells[i];
        const bool mark = c.find('[') != std::string::npos;
        c.erase(std::remove_if(c.begin(), c.end(), [](char ch) { return ch == ' ' || ch == '[' || ch == ']'; }),
                c.end());
        const std::string name = std::to_string(b.fileOrder[i]) + rank;
        b.squares[name] = c;
        b.marked[name] = mark;
      }
    } else if (contains(l, "in hand:")) {
      (b.rankOrder.empty() ? b.topHand : b.bottomHand) = l;
    }
  }
  return b;
}

std::string handOf(const std::string& handLine) { return handLine.substr(handLine.find("in hand:") + 8); }

// --- board text -----------------------------------------------------------------------------

TEST(BoardText, MicroStartShowsEveryPieceOnItsNamedSquare) {
  auto v = micro();
  const game::Position pos(v);
  ASSERT_EQ(pos.sfen(), kMicroStart);
  const ParsedBoard b = parseBoard(play::renderBoard(pos));
  EXPECT_EQ(b.fileOrder, (std::vector<int>{4, 3, 2, 1}));
  EXPECT_EQ(b.rankOrder, (std::vector<char>{'a', 'b', 'c', 'd', 'e'}));
  const auto expected = expectedSquares(kMicroStart, 4);
  ASSERT_EQ(expected.size(), 20u);
  EXPECT_EQ(b.squares, expected);
  // Spot checks in words, from the setup in docs/RULES.md: gote's king in 4a, sente's in 1e.
  EXPECT_EQ(b.squares.at("4a"), "vk");
  EXPECT_EQ(b.squares.at("1e"), "K");
  EXPECT_EQ(b.squares.at("1d"), "P");
  EXPECT_EQ(b.squares.at("4b"), "vp");
  // Nothing moved yet, both hands empty, gote's hand on top.
  for (const auto& [name, mark] : b.marked) EXPECT_FALSE(mark) << name;
  EXPECT_TRUE(contains(b.topHand, "gote")) << b.topHand;
  EXPECT_EQ(handOf(b.topHand), " -");
  EXPECT_EQ(handOf(b.bottomHand), " -");
}

TEST(BoardText, CapturesGoToTheHandsAndTheLastMoveIsMarked) {
  auto v = micro();
  // Sente's pawn on 3d takes gote's pawn on 3c (micro: the capturing pawn flips to +P).
  game::Position pos = game::Position::fromSfen(v, "k3/4/1p2/1P2/3K b - 1");
  pos.makeMove(pos.parseUsi("3d3c"));
  ParsedBoard b = parseBoard(play::renderBoard(pos));
  EXPECT_EQ(b.squares.at("3c"), "+P");
  EXPECT_EQ(b.squares.at("3d"), ".");
  EXPECT_TRUE(b.marked.at("3c"));
  EXPECT_TRUE(b.marked.at("3d"));
  EXPECT_FALSE(b.marked.at("4a"));
  EXPECT_EQ(handOf(b.bottomHand), " P") << b.bottomHand;  // sente's, below the board
  EXPECT_EQ(handOf(b.topHand), " -") << b.topHand;

  // Gote's pawn on 3b takes sente's gold on 3c, then gote holds a G.
  game::Position g = game::Position::fromSfen(v, "k3/1p2/1G2/4/3K w P 1");
  g.makeMove(g.parseUsi("3b3c"));
  b = parseBoard(play::renderBoard(g));
  EXPECT_EQ(b.squares.at("3c"), "v+p");
  EXPECT_EQ(handOf(b.topHand), " G") << b.topHand;
  EXPECT_EQ(handOf(b.bottomHand), " P") << b.bottomHand;
  // Counts show as xN.
  const game::Position many = game::Position::fromSfen(v, "k3/4/4/4/3K b 2PG 1");
  EXPECT_EQ(play::handText(many, 0), "G Px2");
}

TEST(BoardText, FlipShowsGotesView) {
  auto v = micro();
  const game::Position pos(v);
  play::BoardStyle style;
  style.flipped = true;
  const ParsedBoard b = parseBoard(play::renderBoard(pos, style));
  EXPECT_EQ(b.fileOrder, (std::vector<int>{1, 2, 3, 4}));
  EXPECT_EQ(b.rankOrder, (std::vector<char>{'e', 'd', 'c', 'b', 'a'}));
  EXPECT_EQ(b.squares, expectedSquares(kMicroStart, 4));  // same pieces on the same names
  EXPECT_TRUE(contains(b.topHand, "sente")) << b.topHand;
  EXPECT_TRUE(contains(b.bottomHand, "gote")) << b.bottomHand;
}

TEST(BoardText, ColourOnlyAddsEscapes) {
  auto v = micro();
  game::Position pos(v);
  game::MoveList legal;
  pos.generateLegal(legal);
  pos.makeMove(legal[0]);
  play::BoardStyle style;
  style.color = true;
  std::string coloured = play::renderBoard(pos, style);
  EXPECT_TRUE(contains(coloured, "\x1b["));
  coloured = std::regex_replace(coloured, std::regex("\x1b\\[[0-9;]*m"), "");
  EXPECT_EQ(coloured, play::renderBoard(pos));
}

TEST(PlayNotation, UsiShapes) {
  for (const char* good : {"2e2d", "2e2d+", "8h2b-", "P*3c", "+G*3c", "10a9b", "p*1a"})
    EXPECT_TRUE(play::looksLikeUsiMove(good)) << good;
  for (const char* bad : {"", "hello", "2e", "2e2", "2e2d++", "P*", "*3c", "PP*3c", "2E2D", "2e 2d", "G3c"})
    EXPECT_FALSE(play::looksLikeUsiMove(bad)) << bad;
  EXPECT_EQ(play::parseSide("Sente"), 0);
  EXPECT_EQ(play::parseSide("gote"), 1);
  EXPECT_EQ(play::parseSide("left"), -1);
  EXPECT_TRUE(std::regex_match(play::defaultSavePath(1700000000), std::regex(R"(games/play-\d{8}-\d{6}\.jsonl)")))
      << play::defaultSavePath(1700000000);
}

// --- scripted sessions ------------------------------------------------------------------------

struct Session {
  std::string output;
  selfplay::GameRecord returned;
  std::vector<selfplay::GameRecord> saved;
  std::string finalSfen;
};

play::PlaySettings rolloutSettings(const fs::path& dir, const std::string& sfen = "", game::Color human = 0) {
  play::PlaySettings s;
  s.variant = micro();
  s.startSfen = sfen;
  s.human = human;
  s.search.playouts = 24;
  s.limits.playouts = 24;
  s.savePath = (dir / "games" / "session.jsonl").string();  // games/ does not exist yet
  s.gameId = "test-game";
  s.hintMoves = 10;
  s.echoInput = true;  // the transcript then has each command on its own line
  return s;
}

Session play(const play::PlaySettings& settings, const std::string& script) {
  std::istringstream in(script);
  std::ostringstream out;
  play::TerminalGame game(settings, nullptr, in, out);
  Session s;
  s.returned = game.run();
  s.output = out.str();
  s.saved = selfplay::readGameRecords(settings.savePath);
  s.finalSfen = game.position().sfen();
  return s;
}

// Lines of the output that are SFEN positions of micro shogi (what `sfen` prints).
std::vector<std::string> sfenLines(const std::string& output) {
  std::vector<std::string> found;
  auto v = micro();
  for (const std::string& l : lines(output)) {
    if (std::count(l.begin(), l.end(), '/') != 4) continue;
    try {
      game::Position::fromSfen(v, l);
      found.push_back(l);
    } catch (const game::SfenError&) {
    }
  }
  return found;
}

std::string firstLegalMove(const game::Position& pos) {
  game::MoveList legal;
  pos.generateLegal(legal);
  return pos.moveToUsi(legal[0]);
}

TEST(TerminalGame, ScriptedSessionMovesUndoHintSfenQuit) {
  const fs::path dir = freshTempDir(kTmp, "session");
  auto v = micro();
  const game::Position start(v);
  const std::string move1 = firstLegalMove(start);
  const std::string script = "sfen\n1e1d\nhello there\n5a4a\n" + move1 + "\nsfen\nundo\nsfen\nhint\n" + move1 + "\nquit\n";
  const Session s = play(rolloutSettings(dir), script);
  SCOPED_TRACE(s.output);

  EXPECT_TRUE(contains(s.output, "No model given: Poppy plays with the rollout MCTS")) << "says so on start";
  // The illegal move: why, and some legal moves.
  EXPECT_TRUE(contains(s.output, "'1e1d' is not legal here: "));
  EXPECT_TRUE(contains(s.output, "Legal moves here include: " + move1));
  // The malformed one: not USI, with an example that is a legal move here.
  EXPECT_TRUE(contains(s.output, "'hello there' is not a command or a move in USI notation. A move names two "
                                 "squares, like " + move1));

  EXPECT_TRUE(contains(s.output, "'5a4a' names a square off the 4x5 board (files 1-4, ranks a-e)."));

  // sfen before, after the move pair, after undo.
  const auto sfens = sfenLines(s.output);
  ASSERT_EQ(sfens.size(), 3u);
  EXPECT_EQ(sfens[0], kMicroStart);
  EXPECT_NE(sfens[1], kMicroStart);
  EXPECT_EQ(game::Position::fromSfen(v, sfens[1]).sideToMove(), 0) << "the engine replied, the person is to move";
  EXPECT_EQ(sfens[2], kMicroStart) << "undo takes back the person's move and the reply";
  EXPECT_TRUE(contains(s.output, "Took back " + move1 + " "));

  // hint on the start position: ranked moves, legal, shares in order and summing to about 100%.
  const std::regex hintRow(R"(^\s+\d+\. (\S+)\s+([0-9.]+)%\s+([0-9.]+)%\s+(.*)$)");
  std::vector<std::pair<std::string, double>> hints;
  for (const std::string& l : lines(s.output)) {
    std::smatch m;
    if (std::regex_match(l, m, hintRow)) {
      hints.emplace_back(m[1].str(), std::stod(m[2].str()));
      const double win = std::stod(m[3].str());
      EXPECT_GE(win, 0.0);
      EXPECT_LE(win, 100.0);
      EXPECT_EQ(m[4].str().rfind(m[1].str(), 0), 0u) << "the line starts with the move";
    }
  }
  game::MoveList legal;
  start.generateLegal(legal);
  ASSERT_EQ(hints.size(), size_t(legal.size())) << "all 9 moves fit in hintMoves = 10";
  double sum = 0;
  for (size_t i = 0; i < hints.size(); ++i) {
    EXPECT_NO_THROW(start.parseUsi(hints[i].first)) << hints[i].first;
    if (i > 0) {
      EXPECT_LE(hints[i].second, hints[i - 1].second);
    }
    sum += hints[i].second;
  }
  EXPECT_NEAR(sum, 100.0, 0.1 * hints.size());

  // The record: the moves now on the board (the pair after the undo), unfinished.
  ASSERT_EQ(s.saved.size(), 1u);
  const selfplay::GameRecord& r = s.saved[0];
  EXPECT_EQ(r, s.returned);
  EXPECT_EQ(r.id, "test-game");
  EXPECT_EQ(r.variant, "micro");
  EXPECT_EQ(r.start, kMicroStart);
  ASSERT_EQ(r.moves.size(), 2u);
  EXPECT_EQ(r.moves[0], move1);
  EXPECT_EQ(r.plies, 2);
  EXPECT_EQ(r.result, "draw");
  EXPECT_EQ(r.reason, "unfinished");
  EXPECT_EQ(r.model, "rollout");
  game::Position replay(v);
  for (const std::string& m : r.moves) replay.makeMove(replay.parseUsi(m));
  EXPECT_EQ(replay.sfen(), s.finalSfen);
  EXPECT_TRUE(contains(s.output, "Game saved to "));
}

TEST(TerminalGame, EndOfInputMidGameSavesTheGame) {
  const fs::path dir = freshTempDir(kTmp, "eof");
  auto v = micro();
  const std::string move1 = firstLegalMove(game::Position(v));
  // Help, moves, flip, an empty line, then a move and a half-typed line cut off by EOF.
  const Session s = play(rolloutSettings(dir), "help\nmoves\nflip\n\n" + move1 + "\n2e");
  SCOPED_TRACE(s.output);
  EXPECT_TRUE(contains(s.output, "Commands:"));
  EXPECT_TRUE(contains(s.output, "9 legal moves:"));
  EXPECT_TRUE(contains(s.output, "'2e' is not a command or a move in USI notation"));
  EXPECT_TRUE(contains(s.output, "(end of input)"));
  ASSERT_EQ(s.saved.size(), 1u);
  EXPECT_EQ(s.saved[0].reason, "unfinished");
  ASSERT_EQ(s.saved[0].moves.size(), 2u);
  EXPECT_EQ(s.saved[0].moves[0], move1);

  // EOF at once: nothing played, still a record.
  const fs::path dir2 = freshTempDir(kTmp, "eof-at-once");
  const Session empty = play(rolloutSettings(dir2), "");
  ASSERT_EQ(empty.saved.size(), 1u);
  EXPECT_TRUE(empty.saved[0].moves.empty());
  EXPECT_EQ(empty.saved[0].reason, "unfinished");
}

TEST(TerminalGame, CheckmateEndsAndRecordsTheGame) {
  const fs::path dir = freshTempDir(kTmp, "mate");
  auto v = micro();
  // Sente to move with a mate in one (dropping the gold on 4b, covered by the gold on 3c; other
  // drops stalemate, which also wins, but this test wants the checkmate).
  const std::string sfen = "k3/4/1G2/4/3K b G 1";
  game::Position pos = game::Position::fromSfen(v, sfen);
  game::MoveList legal;
  pos.generateLegal(legal);
  std::string mate;
  for (const game::Move& m : legal) {
    pos.makeMove(m);
    const bool mated = pos.inCheck() && pos.outcome(200).winner == 0;
    pos.unmakeMove();
    if (mated) mate = pos.moveToUsi(m);
  }
  ASSERT_FALSE(mate.empty());
  const Session s = play(rolloutSettings(dir, sfen), "undo\n" + mate + "\n");
  SCOPED_TRACE(s.output);
  EXPECT_TRUE(contains(s.output, "Nothing to take back"));
  EXPECT_TRUE(contains(s.output, "Checkmate. sente (you) wins"));
  ASSERT_EQ(s.saved.size(), 1u);
  EXPECT_EQ(s.saved[0].result, "sente");
  EXPECT_EQ(s.saved[0].reason, "checkmate");
  EXPECT_EQ(s.saved[0].moves, std::vector<std::string>{mate});
  EXPECT_EQ(s.saved[0].start, sfen);
}

TEST(TerminalGame, ResignAsGoteAfterTheEngineOpens) {
  const fs::path dir = freshTempDir(kTmp, "resign");
  const Session s = play(rolloutSettings(dir, "", 1), "sfen\nresign\n");
  SCOPED_TRACE(s.output);
  EXPECT_TRUE(contains(s.output, "you are gote"));
  EXPECT_TRUE(contains(s.output, "Poppy (sente) is thinking... plays "));
  // Gote's view: file 1 on the left.
  EXPECT_EQ(parseBoard(s.output).fileOrder, (std::vector<int>{1, 2, 3, 4}));
  EXPECT_TRUE(contains(s.output, "You resign. sente (Poppy) wins."));
  ASSERT_EQ(s.saved.size(), 1u);
  EXPECT_EQ(s.saved[0].result, "sente");
  EXPECT_EQ(s.saved[0].reason, "resign");
  EXPECT_EQ(s.saved[0].moves.size(), 1u);
  const auto sfens = sfenLines(s.output);
  ASSERT_EQ(sfens.size(), 1u);
  EXPECT_EQ(sfens[0], s.finalSfen);
}

// Input lines that each arrive a given time after the previous one, on a clock the test owns:
// the person's thinking time is exactly the delay before each line (the engine's search takes
// no time on this clock).
class TimedLines : public std::streambuf {
 public:
  TimedLines(std::vector<std::pair<int64_t, std::string>> lines, int64_t& now) : lines_(std::move(lines)), now_(now) {}

 protected:
  int_type underflow() override {
    if (gptr() < egptr()) return traits_type::to_int_type(*gptr());
    if (next_ >= lines_.size()) return traits_type::eof();
    now_ += lines_[next_].first;
    current_ = lines_[next_++].second + "\n";
    setg(current_.data(), current_.data(), current_.data() + current_.size());
    return traits_type::to_int_type(*gptr());
  }

 private:
  std::vector<std::pair<int64_t, std::string>> lines_;
  int64_t& now_;
  size_t next_ = 0;
  std::string current_;
};

// 10 s main time + 5 s byoyomi. Sente (the person) takes 12 s for the first move: 10 s of main
// time and 2 of the byoyomi, in time. The engine replies at once. Then 6 s pass before the next
// line: more than the 5 s byoyomi, so the flag has fallen and sente loses on time, whatever the
// line says.
TEST(TerminalGame, TheFlagFallsOnTheClock) {
  const fs::path dir = freshTempDir(kTmp, "clock");
  play::PlaySettings settings = rolloutSettings(dir);
  settings.clock = common::parseClock("10s/5s");
  int64_t now = 0;
  settings.nowMs = [&now] { return now; };
  TimedLines lines({{12000, "3e3d"}, {1000, "undo"}, {5001, "moves"}}, now);
  std::istream in(&lines);
  std::ostringstream out;
  play::TerminalGame game(settings, nullptr, in, out);
  const selfplay::GameRecord r = game.run();
  const std::string output = out.str();
  SCOPED_TRACE(output);
  EXPECT_TRUE(contains(output, "On a clock: 0:10 + 5s byoyomi each; no take-backs."));
  EXPECT_TRUE(contains(output, "Clock: sente 0:10 \u00b7 gote 0:10 (0:10 + 5s byoyomi)"));
  // After the first move sente's main time is spent: its clock shows the byoyomi.
  EXPECT_TRUE(contains(output, "Clock: sente byoyomi 0:05.0 \u00b7 gote 0:10"));
  EXPECT_TRUE(contains(output, "No take-backs in a game on a clock."));
  EXPECT_TRUE(contains(output, "sente (you) ran out of time. gote (Poppy) wins."));
  EXPECT_EQ(r.result, "gote");
  EXPECT_EQ(r.reason, "timeout");
  ASSERT_EQ(r.moves.size(), 2u);  // sente's move and the engine's reply
  EXPECT_EQ(r.moves[0], "3e3d");
  const auto saved = selfplay::readGameRecords(settings.savePath);
  ASSERT_EQ(saved.size(), 1u);
  EXPECT_EQ(saved[0].reason, "timeout");
}

TEST(TerminalGame, PlyCapEndsTheGame) {
  const fs::path dir = freshTempDir(kTmp, "plycap");
  auto settings = rolloutSettings(dir);
  settings.plyCap = 2;
  auto v = micro();
  const std::string move1 = firstLegalMove(game::Position(v));
  const Session s = play(settings, move1 + "\n");
  SCOPED_TRACE(s.output);
  EXPECT_TRUE(contains(s.output, "Ply cap: 2 plies played. The game is drawn."));
  ASSERT_EQ(s.saved.size(), 1u);
  EXPECT_EQ(s.saved[0].reason, "ply_cap");
  EXPECT_EQ(s.saved[0].result, "draw");
  EXPECT_EQ(s.saved[0].plies, 2);
}

TEST(TerminalGame, CheckIsAnnounced) {
  // Gote's gold on 1d attacks sente's king on 1e (gote moves down the board).
  const std::string sfen = "k3/4/4/3g/3K b - 1";
  ASSERT_TRUE(game::Position::fromSfen(micro(), sfen).inCheck());
  const Session s = play(rolloutSettings(freshTempDir(kTmp, "check"), sfen), "quit\n");
  EXPECT_TRUE(contains(s.output, "Check! sente (you) is in check.")) << s.output;
  const Session calm = play(rolloutSettings(freshTempDir(kTmp, "no-check")), "quit\n");
  EXPECT_FALSE(contains(calm.output, "Check!")) << calm.output;
}

// --- four players (yonin) -------------------------------------------------------------------

struct FourSession {
  std::string output;
  std::vector<selfplay::GameRecord> saved;
};

FourSession playFour(const fs::path& dir, game::Color seat, const std::string& input, const std::string& sfen = "") {
  play::PlaySettings s;
  s.variant = game::loadVariant("yonin");
  s.human = seat;
  s.startSfen = sfen;
  s.search.playouts = 8;
  s.search.solver = false;
  s.search.leafMatePlies = s.search.rootMatePlies = 0;
  s.plyCap = 300;
  s.savePath = (dir / "games.jsonl").string();
  s.echoInput = true;
  std::istringstream in(input);
  std::ostringstream out;
  play::FourPlayerGame game(std::move(s), nullptr, in, out);
  game.run();
  return {out.str(), selfplay::readGameRecords((dir / "games.jsonl").string())};
}

// West's seat: the board is drawn with west's side (file 9) at the bottom, rank letters along
// the top and file numbers down the side; south (the engine) opens; undo before the person has
// moved takes nothing back; a move, then quit: the record says who played and that it was left.
TEST(FourPlayerGame, TheBoardTurnsToThePersonsSeatAndTheGameIsSaved) {
  const fs::path dir = freshTempDir(kTmp, "yonin");
  const FourSession s = playFour(dir, 1, "undo\n9g8h\nundo\n9c8b\nquit\n");
  SCOPED_TRACE(s.output);
  EXPECT_TRUE(contains(s.output, "you are west"));
  EXPECT_TRUE(contains(s.output, "south (Poppy) plays "));
  EXPECT_TRUE(contains(s.output, "     a     b     c     d     e     f     g     h     i"));
  // West's back line, the bottom row (file 9): silver, gold, king, gold, silver on ranks c-g.
  EXPECT_TRUE(contains(s.output, "|  .  |  .  |  wS |  wG |  wK |  wG |  wS |  .  |  .  | 9"));
  // North sits on west's left: its back line is the left-hand column (rank a).
  EXPECT_TRUE(contains(s.output, "|  nK |  nR |  nP |"));
  EXPECT_TRUE(contains(s.output, "Nothing to take back: you have not moved yet."));
  EXPECT_TRUE(contains(s.output, "Took back"));
  ASSERT_EQ(s.saved.size(), 1u);
  const selfplay::GameRecord& r = s.saved[0];
  EXPECT_EQ(r.result, "draw");
  EXPECT_EQ(r.reason, "unfinished");
  EXPECT_NE(r.id.find("-human-west"), std::string::npos) << r.id;
  EXPECT_EQ(r.model, "uniform");
  // South's opening move, west's 9c8b (after the undo), then the other engines until west's turn.
  ASSERT_GE(r.moves.size(), 2u);
  EXPECT_EQ(r.moves[1], "9c8b");
}

// South mates west with 8c8b: the second mate for south, which controls north already, so
// south (the person) wins.
TEST(FourPlayerGame, APersonsSecondMateWins) {
  const fs::path dir = freshTempDir(kTmp, "yonin_mate");
  // West's king on 9a; south's gold 8c and silver 7c; north is out (its king turned on 2a).
  const FourSession s = playFour(dir, 0, "8c8b\n", "wK6nX1/9/1sGsS6/9/9/9/9/8eK/1sK7 s - 1 swse");
  SCOPED_TRACE(s.output);
  EXPECT_TRUE(contains(s.output, "south (you) wins: it has mated a second army."));
  ASSERT_EQ(s.saved.size(), 1u);
  EXPECT_EQ(s.saved[0].result, "south");
  EXPECT_EQ(s.saved[0].reason, "second_checkmate");
}

TEST(TerminalGame, BadStartSfenIsRefused) {
  play::PlaySettings s = rolloutSettings(freshTempDir(kTmp, "badsfen"), "kbgs/p3/4/3P b - 1");
  std::istringstream in;
  std::ostringstream out;
  EXPECT_THROW(play::TerminalGame(s, nullptr, in, out), game::SfenError);
}

#ifdef POPPY_BINARY  // the poppy command is built with LibTorch only (tests/CMakeLists.txt)
// --- the binary -------------------------------------------------------------------------------

struct BinaryRun {
  int code;
  std::string out, err;
};

BinaryRun runPoppy(const fs::path& dir, const std::string& args, const std::string& input) {
  spit(dir / "stdin.txt", input);
  const std::string cmd = "timeout 120 " + shellQuote(POPPY_BINARY) + " play " + args + " < " +
                          shellQuote((dir / "stdin.txt").string()) + " > " + shellQuote((dir / "out.txt").string()) +
                          " 2> " + shellQuote((dir / "err.txt").string());
  BinaryRun r;
  r.code = exitCodeOf(std::system(cmd.c_str()));
  r.out = slurp(dir / "out.txt");
  r.err = slurp(dir / "err.txt");
  return r;
}

TEST(PlayBinary, TrainedModelPlaysAScriptFromStdin) {
  const fs::path dir = freshTempDir(kTmp, "binary");
  const std::string model = std::string(POPPY_SOURCE_DIR) + "/models/micro/micro-1h.model";
  const fs::path save = dir / "game.jsonl";
  auto v = micro();
  const std::string move1 = firstLegalMove(game::Position(v));
  const BinaryRun r = runPoppy(dir, "--model " + shellQuote(model) + " --playouts 32 --save " + shellQuote(save.string()),
                         "hint\n" + move1 + "\nsfen\nbogus\nquit\n");
  SCOPED_TRACE(r.out + "\nstderr:\n" + r.err);
  ASSERT_EQ(r.code, 0);
  EXPECT_TRUE(contains(r.out, "Poppy plays with the model " + model));
  EXPECT_TRUE(contains(r.out, "Hint (model, "));
  EXPECT_TRUE(contains(r.out, "Poppy (gote) is thinking... plays "));
  EXPECT_TRUE(contains(r.out, "'bogus' is not a command"));
  EXPECT_FALSE(contains(r.out, "\x1b[")) << "no colour when stdout is a file";
  const auto records = selfplay::readGameRecords(save.string());
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0].model, model);
  EXPECT_EQ(records[0].reason, "unfinished");
  ASSERT_EQ(records[0].moves.size(), 2u);
  EXPECT_EQ(records[0].moves[0], move1);
  EXPECT_TRUE(std::regex_match(records[0].id, std::regex(R"(play-\d{8}-\d{6}-human-sente)"))) << records[0].id;
  const auto sfens = sfenLines(r.out);
  ASSERT_EQ(sfens.size(), 1u);
  game::Position replay(v);
  for (const std::string& m : records[0].moves) replay.makeMove(replay.parseUsi(m));
  EXPECT_EQ(replay.sfen(), sfens[0]);
}

TEST(PlayBinary, BadOptionsAreClearErrors) {
  const fs::path dir = freshTempDir(kTmp, "binary-errors");
  BinaryRun r = runPoppy(dir, "--side left --save " + shellQuote((dir / "g.jsonl").string()), "quit\n");
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_TRUE(contains(r.err, "poppy: error: --side 'left'")) << r.err;
  r = runPoppy(dir, "--sfen 'kbgs/p3 b - 1' --save " + shellQuote((dir / "g.jsonl").string()), "quit\n");
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_TRUE(contains(r.err, "poppy: error: invalid SFEN")) << r.err;
  r = runPoppy(dir, "--model " + shellQuote((dir / "absent.model").string()), "quit\n");
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_TRUE(contains(r.err, "absent.model")) << r.err;
  r = runPoppy(dir, "--clock 5q --save " + shellQuote((dir / "g.jsonl").string()), "quit\n");
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_TRUE(contains(r.err, "clock \"5q\": unknown unit")) << r.err;
  EXPECT_FALSE(fs::exists(dir / "g.jsonl")) << "nothing is saved when the game never started";
}

// Issue 39 (6): a --save path that cannot be written is refused before the game starts; it once
// failed when the game ended, losing the record of the game just played.
TEST(PlayBinary, UnwritableSavePathIsRefusedBeforeTheGame) {
  const fs::path dir = freshTempDir(kTmp, "binary-save");
  spit(dir / "a-file", "x\n");
  fs::create_directories(dir / "a-folder");
  const std::vector<std::pair<fs::path, std::string>> bad = {
      {dir / "a-folder", "not a regular file"},
      {dir / "a-file" / "game.jsonl", "is not a folder"},
  };
  for (const auto& [path, why] : bad) {
    SCOPED_TRACE(path.string());
    const BinaryRun r = runPoppy(dir, "--playouts 8 --save " + shellQuote(path.string()), "quit\n");
    EXPECT_EQ(r.code, 2) << r.err;
    EXPECT_TRUE(contains(r.err, path.string())) << r.err;
    EXPECT_TRUE(contains(r.err, why)) << r.err;
    EXPECT_FALSE(contains(r.out, "Poppy plays")) << "the game started:\n" << r.out;
  }
  // A folder that does not exist yet is made, and the game is saved there.
  const fs::path fresh = dir / "new" / "folder" / "g.jsonl";
  const BinaryRun ok = runPoppy(dir, "--playouts 8 --save " + shellQuote(fresh.string()), "quit\n");
  EXPECT_EQ(ok.code, 0) << ok.err;
  EXPECT_EQ(selfplay::readGameRecords(fresh.string()).size(), 1u);
}

#endif  // POPPY_BINARY

}  // namespace
}  // namespace poppy
