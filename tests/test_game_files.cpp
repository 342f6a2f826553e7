// KIF and CSA game files (play/game_files/kif_format.h, play/game_files/csa_format.h, play/game_files/game_file.h). Poppy's own
// files read back to the same records; tsshogi (ShogiHome's game record library, npm package
// 2.2.0 in tests/reference/tsshogi) reads what Poppy writes to the same moves, and Poppy reads
// what tsshogi writes; and a real game's KIF file, written by another program, is read:
// tests/data/habu-fujii-2006.kif, Habu Yoshiharu - Fujii Takeshi, 65th Meijin league (A class),
// 2006-12-15, Shift_JIS with CRLF lines as kept in the python-shogi repository
// (gunyarakun/python-shogi, data/games/habu-fujii-2006.kif).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "game/position.h"
#include "game/variant_loader.h"
#include "play/game_files/csa_format.h"
#include "play/game_files/game_file.h"
#include "play/game_files/kif_format.h"
#include "selfplay/selfplay_runner.h"
#include "support/node_script.h"

namespace poppy {
namespace {

using ::testing::HasSubstr;
using selfplay::GameRecord;

const std::string kHabuFujii = std::string(POPPY_SOURCE_DIR) + "/tests/data/habu-fujii-2006.kif";

// A random game from `start` (the variant's own when empty), up to `plies` moves or its end,
// recorded as self-play records are. Random play promotes, declines promotions, captures and
// drops, and recaptures on the square just moved to (KIF's 同).
GameRecord randomGame(const std::string& variant, unsigned seed, int plies, const std::string& start = "") {
  const game::VariantPtr v = game::loadVariant(variant);
  game::Position pos = start.empty() ? game::Position(v) : game::Position::fromSfen(v, start);
  GameRecord r;
  r.id = variant + "-" + std::to_string(seed);
  r.variant = variant;
  r.start = pos.sfen();
  r.model = seed % 2 ? "gen-0007" : "model:a.model:64 vs rollout:1000";
  std::mt19937 rng(seed);
  game::MoveList moves;
  while (int(r.moves.size()) < plies && !pos.outcome().over()) {
    pos.generateLegal(moves);
    const game::Move m = moves[int(rng() % unsigned(moves.size()))];
    r.moves.push_back(pos.moveToUsi(m));
    pos.makeMove(m);
  }
  const game::Outcome o = pos.outcome();
  r.plies = int(r.moves.size());
  if (o.over()) {
    r.result = o.winner < 0 ? "draw" : o.winner == 0 ? "sente" : "gote";
    r.reason = selfplay::reasonName(o.reason);
  } else {
    // Alternately a resignation and an unfinished game.
    r.result = seed % 2 ? (pos.sideToMove() == 0 ? "gote" : "sente") : "draw";
    r.reason = seed % 2 ? "resign" : "unfinished";
  }
  return r;
}

void expectSameGame(const GameRecord& got, const GameRecord& want) {
  EXPECT_EQ(got.id, want.id);
  EXPECT_EQ(got.variant, want.variant);
  EXPECT_EQ(got.start, want.start);
  EXPECT_EQ(got.moves, want.moves);
  EXPECT_EQ(got.result, want.result);
  EXPECT_EQ(got.reason, want.reason);
  EXPECT_EQ(got.plies, want.plies);
  EXPECT_EQ(got.model, want.model);
}

// ---------------------------------------------------------------------------------------------
// Poppy's own files

TEST(GameFiles, KifOfRandomGamesReadsBackToTheSameRecords) {
  int sameSquare = 0, drops = 0, promotions = 0;
  for (const char* variant : {"shogi", "minishogi", "judkins", "gorogoro"}) {
    for (unsigned seed = 1; seed <= 12; ++seed) {
      const GameRecord r = randomGame(variant, seed, 160);
      const std::string kif = play::gameToKif(r, game::loadVariant(variant));
      sameSquare += int(kif.find("同") != std::string::npos);
      drops += int(kif.find("打\n") != std::string::npos);
      promotions += int(kif.find("成(") != std::string::npos);
      SCOPED_TRACE(kif);
      expectSameGame(play::kifToGame(kif, r.id + ".kif"), r);
    }
  }
  // The games did exercise the notation's forms.
  EXPECT_GT(sameSquare, 30);
  EXPECT_GT(drops, 30);
  EXPECT_GT(promotions, 30);
}

TEST(GameFiles, CsaOfRandomShogiGamesReadsBackToTheSameRecords) {
  for (unsigned seed = 1; seed <= 20; ++seed) {
    const GameRecord r = randomGame("shogi", seed, 200);
    const std::string csa = play::gameToCsa(r, game::loadVariant("shogi"));
    SCOPED_TRACE(csa);
    expectSameGame(play::csaToGame(csa, r.id + ".csa"), r);
  }
}

// Starts that are not the standard one: a handicap has its 手合割 name (gote moves first); any
// other position is written as a board diagram in KIF and as P rows in CSA, hands included.
TEST(GameFiles, HandicapsAndSetUpPositionsReadBack) {
  const std::string bishopOff = "lnsgkgsnl/1r7/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1";
  const GameRecord handicap = randomGame("shogi", 3, 40, bishopOff);
  const std::string kif = play::gameToKif(handicap, game::loadVariant("shogi"));
  EXPECT_THAT(kif, HasSubstr("手合割：角落ち\n"));
  expectSameGame(play::kifToGame(kif, "h.kif"), handicap);

  // Gote to move with pieces in both hands, and promoted pieces on the board. (Neither format
  // keeps an SFEN's move number: a set-up start reads back as move 1.)
  const std::string setUp = "ln1g3+Rl/1ks1g4/1ppp4p/p3p1p2/9/2P1P3P/PP1P1P+b2/1SK6/LN1G1G1NL w BS2Pn2p 1";
  const GameRecord r = randomGame("shogi", 5, 60, setUp);
  const std::string diagram = play::gameToKif(r, game::loadVariant("shogi"));
  EXPECT_THAT(diagram, HasSubstr("後手番\n"));
  // Rank a of the SFEN, ln1g3+Rl: gote's lance, knight, an empty square, gold, three empty
  // squares, sente's dragon, gote's lance.
  EXPECT_THAT(diagram, HasSubstr("\n|v香v桂 ・v金 ・ ・ ・ 龍v香|一\n"));
  expectSameGame(play::kifToGame(diagram, "d.kif"), r);
  const std::string csa = play::gameToCsa(r, game::loadVariant("shogi"));
  EXPECT_THAT(csa, HasSubstr("\nP1-KY-KE * -KI *  *  * +RY-KY\n"));
  EXPECT_THAT(csa, HasSubstr("\nP+00KA00GI00FU00FU\n"));
  expectSameGame(play::csaToGame(csa, "d.csa"), r);

  // Minishogi's start has its lishogi name.
  const GameRecord mini = randomGame("minishogi", 2, 30);
  EXPECT_THAT(play::gameToKif(mini, game::loadVariant("minishogi")), HasSubstr("手合割：5五将棋\n"));
}

// The words that end a game, for readers without Poppy's comment line: the side to move
// resigns, is mated, wins by the other's foul; a repetition or impasse draws.
TEST(GameFiles, EndWordsGiveTheResult) {
  const std::string head = "手合割：平手\n先手：A\n後手：B\n手数----指手---------消費時間--\n   1 ７六歩(77)\n";
  struct Case {
    const char* word;
    const char* result;
    const char* reason;
  } cases[] = {{"投了", "sente", "resign"},           {"詰み", "sente", "checkmate"},
               {"千日手", "draw", "repetition"},      {"持将棋", "draw", "impasse"},
               {"切れ負け", "sente", "timeout"},      {"反則勝ち", "gote", "illegal_move"},
               {"反則負け", "sente", "illegal_move"}, {"中断", "draw", "unfinished"},
               {"入玉勝ち", "gote", "impasse"}};
  for (const Case& c : cases) {
    const GameRecord r = play::kifToGame(head + "   2 " + c.word + "\n", "end.kif");
    EXPECT_EQ(r.result, c.result) << c.word;
    EXPECT_EQ(r.reason, c.reason) << c.word;
    EXPECT_EQ(r.model, "A vs B");
    EXPECT_EQ(r.id, "end");
  }
  const std::string csa = "V2.2\nPI\n+\n+7776FU\n";
  EXPECT_EQ(play::csaToGame(csa + "%TORYO\n", "x.csa").result, "sente");
  EXPECT_EQ(play::csaToGame(csa + "%+ILLEGAL_ACTION\n", "x.csa").result, "gote");
  EXPECT_EQ(play::csaToGame(csa + "%SENNICHITE\n", "x.csa").reason, "repetition");
  // No end at all: the game was left unfinished.
  EXPECT_EQ(play::csaToGame(csa, "x.csa").reason, "unfinished");
}

// ---------------------------------------------------------------------------------------------
// Another program's files

TEST(GameFiles, ReadsARealShiftJisKifFile) {
  const std::vector<GameRecord> games = play::readGameFile(kHabuFujii);
  ASSERT_EQ(games.size(), 1u);
  const GameRecord& r = games[0];
  EXPECT_EQ(r.variant, "shogi");
  EXPECT_EQ(r.plies, 181);
  EXPECT_EQ(r.result, "sente");  // "182 投了", "まで181手で先手の勝ち"
  EXPECT_EQ(r.reason, "resign");
  EXPECT_EQ(r.model, "羽生善治 vs 藤井猛");  // 先手：羽生善治, 後手：藤井猛
  // Moves as the file writes them: 1 ７六歩(77); 50 同　歩(64) (6f, where 49 ６五歩(66) went);
  // 51 ３三角成(77); 53 ３一角打; 181 ７二飛成(71).
  EXPECT_EQ(r.moves[0], "7g7f");
  EXPECT_EQ(r.moves[49], "6d6e");
  EXPECT_EQ(r.moves[50], "7g3c+");
  EXPECT_EQ(r.moves[52], "B*3a");
  EXPECT_EQ(r.moves[180], "7a7b+");
}

// tsshogi: the first line of its output, "usi: position sfen SFEN moves ...", as Poppy's start
// and moves.
std::string usiOf(const GameRecord& r) {
  std::string text = "position sfen " + r.start + " moves";
  for (const std::string& m : r.moves) text += " " + m;
  return text;
}

const testing::NodeReference kTsshogi{"tsshogi", "tsshogi", "2.2.0"};

// tsshogi's name for the way a record ended.
std::string tsshogiEnd(const GameRecord& r) {
  if (r.reason == "resign") return "resign";
  if (r.reason == "checkmate") return "mate";
  if (r.reason == "repetition") return "repetitionDraw";
  if (r.reason == "perpetual_check") return "foulWin";  // the side to move wins
  return "interrupt";
}

TEST(GameFiles, TsshogiReadsWhatPoppyWrites) {
  for (unsigned seed = 1; seed <= 8; ++seed) {
    const GameRecord r = randomGame("shogi", seed, 150);
    const auto shogi = game::loadVariant("shogi");
    for (const char* format : {"kif", "csa"}) {
      const std::string text = std::string(format) == "kif" ? play::gameToKif(r, shogi) : play::gameToCsa(r, shogi);
      const auto lines = testing::runNodeScript(kTsshogi, "records.mjs", std::string("read ") + format, text);
      ASSERT_EQ(lines.size(), 2u) << text;
      EXPECT_EQ(lines[0], "usi: " + usiOf(r)) << format << "\n" << text;
      EXPECT_EQ(lines[1], "end: " + tsshogiEnd(r)) << format;
    }
  }
}

TEST(GameFiles, PoppyReadsWhatTsshogiWrites) {
  // The real game and random ones (promotions, drops, 同), each with tsshogi's end words.
  std::vector<GameRecord> games = play::readGameFile(kHabuFujii);
  for (unsigned seed = 1; seed <= 6; ++seed) games.push_back(randomGame("shogi", seed, 150));
  for (const GameRecord& r : games) {
    const std::string end = tsshogiEnd(r);
    for (const char* format : {"kif", "csa"}) {
      const auto lines = testing::runNodeScript(kTsshogi, "records.mjs", std::string("write ") + format, usiOf(r) + "\n" + end + "\n");
      ASSERT_FALSE(lines.empty());
      std::string text;
      for (const std::string& l : lines) text += l + "\n";
      const GameRecord back = std::string(format) == "kif" ? play::kifToGame(text, "tsshogi.kif") : play::csaToGame(text, "tsshogi.csa");
      EXPECT_EQ(back.start, r.start) << format;
      EXPECT_EQ(back.moves, r.moves) << format << "\n" << text;
      EXPECT_EQ(back.result, r.result) << format << "\n" << text;
      EXPECT_EQ(back.reason, r.reason) << format;
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Bad files

std::string kifError(const std::string& text) {
  try {
    play::kifToGame(text, "bad.kif");
  } catch (const play::GameFileError& e) {
    return e.what();
  }
  return "no error";
}

TEST(GameFiles, BadKifIsRefusedWithTheLineAndTheReason) {
  const std::string head = "手合割：平手\n手数----指手---------消費時間--\n";
  EXPECT_THAT(kifError(head + "   1 ７五歩(77)\n"), HasSubstr("bad.kif:3: move 1 '７五歩(77)'"));
  EXPECT_THAT(kifError(head + "   1 ７六金(77)\n"), HasSubstr("the piece on 7g is a pawn, not a gold"));
  EXPECT_THAT(kifError(head + "   1 ７六歩(77)\n   3 ３四歩(33)\n"), HasSubstr("bad.kif:4: move number 3 where 2 was due"));
  EXPECT_THAT(kifError(head + "   1 同　歩(77)\n"), HasSubstr("同 with no move before it"));
  EXPECT_THAT(kifError(head + "   1 ７六象(77)\n"), HasSubstr("no piece Poppy knows"));
  EXPECT_THAT(kifError(head + "   1 ７六歩77\n"), HasSubstr("is not (FR)"));
  EXPECT_THAT(kifError("手合割：詰将棋\n   1 ７六歩(77)\n"), HasSubstr("names no variant Poppy knows"));
  // Bytes that are neither UTF-8 nor Shift_JIS.
  EXPECT_THAT(kifError(std::string("\x81\x7f\xff\xfe", 4)), HasSubstr("neither UTF-8 nor Shift_JIS"));
  // Variants KIF cannot write are refused by name, with the reason.
  auto writeError = [](const std::string& variant) {
    GameRecord r;
    r.variant = variant;
    r.start = game::loadVariant(variant)->startSfen;
    try {
      play::gameToKif(r, game::loadVariant(variant));
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_THAT(writeError("chu"), HasSubstr("variant 'chu' has a board larger than 9x9"));
  EXPECT_THAT(writeError("kyoto"), HasSubstr("variant 'kyoto' turns its pawn into a rook otherwise than by promotion"));
  EXPECT_THAT(writeError("tori"), HasSubstr("variant 'tori' has the"));
}

std::string csaError(const std::string& text) {
  try {
    play::csaToGame(text, "bad.csa");
  } catch (const play::GameFileError& e) {
    return e.what();
  }
  return "no error";
}

TEST(GameFiles, BadCsaIsRefusedWithTheLineAndTheReason) {
  EXPECT_THAT(csaError("PI\n+\n-3334FU\n"), HasSubstr("bad.csa:3: move 1 '-3334FU': it is the other side's turn"));
  EXPECT_THAT(csaError("PI\n+\n+7775FU\n"), HasSubstr("bad.csa:3: move 1 '+7775FU'"));
  EXPECT_THAT(csaError("PI\n+\n+7776KI\n"), HasSubstr("cannot become a gold"));
  EXPECT_THAT(csaError("PI\n+\n+7776\n"), HasSubstr("not a move"));
  EXPECT_THAT(csaError("PI\n+\n+7776FU\n%NONSENSE\n"), HasSubstr("unknown end '%NONSENSE'"));
  EXPECT_THAT(csaError("P1-KY-KE\n"), HasSubstr("is not 9 squares"));
  EXPECT_THAT(csaError("Q\n"), HasSubstr("unknown statement 'Q'"));
  EXPECT_THAT(csaError("PI\n+\n+7776FU\n+\n"), HasSubstr("after the moves began"));
}

TEST(GameFiles, FormatsByExtension) {
  EXPECT_EQ(play::gameFormatOf("a/b.KIF"), play::GameFormat::kKif);
  EXPECT_EQ(play::gameFormatOf("b.kifu"), play::GameFormat::kKif);
  EXPECT_EQ(play::gameFormatOf("b.csa"), play::GameFormat::kCsa);
  EXPECT_EQ(play::gameFormatOf("games.jsonl"), play::GameFormat::kJsonl);
  EXPECT_THROW(play::gameFormatNamed("pgn"), std::invalid_argument);
}

}  // namespace
}  // namespace poppy
