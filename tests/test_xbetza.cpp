// XBetza: the parser's compiled form of every supported construct, the moves each new kind of
// piece has on a 12x12 board (counts derived by hand in the comments, never from the engine),
// make/unmake of two-leg moves with two captures, and their USI text. The pieces are in
// tests/data/xbetza_pieces.yaml.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "game/betza.h"
#include "game/position.h"
#include "game/variant_loader.h"
#include "support/sanitized.h"
#include "support/position_helpers.h"

using namespace poppy::game;
using namespace poppy::testing;
using ::testing::HasSubstr;

namespace {

// ---------------------------------------------------------------------------------------------
// 1. The parser.
// ---------------------------------------------------------------------------------------------

int countIf(const std::vector<SpecialMove>& v, bool (*pred)(const SpecialMove&)) {
  return int(std::count_if(v.begin(), v.end(), pred));
}

TEST(XBetzaParse, PlainNotationIsUnchanged) {
  // No XBetza power: everything stays on the fast path, exactly as parseBetza gives it.
  for (const std::string text : {"K", "WfF", "fR", "ffN", "KbRfBbF2", "BsbRfWfD"}) {
    const PieceMoves m = parseXBetza(text);
    EXPECT_TRUE(m.special.empty()) << text;
    EXPECT_EQ(m.plain, parseBetza(text)) << text;
  }
  // m and c together are the default and stay plain.
  EXPECT_EQ(parseXBetza("mcR").plain, parseBetza("R"));
  EXPECT_TRUE(parseXBetza("mcR").special.empty());
}

TEST(XBetzaParse, Modality) {
  // mR: the four rook directions, move only, unlimited range; nothing plain.
  const PieceMoves m = parseXBetza("mR");
  EXPECT_TRUE(m.plain.empty());
  ASSERT_EQ(m.special.size(), 4u);
  for (const SpecialMove& s : m.special) {
    EXPECT_FALSE(s.twoLegs);
    EXPECT_EQ(s.first.mode, LegMode::kMove);
    EXPECT_EQ(s.first.range, 0);
    EXPECT_EQ(std::abs(s.first.dx) + std::abs(s.first.dy), 1);
  }
  // cfF: the two forward diagonal steps, capture only.
  const PieceMoves c = parseXBetza("cfF");
  ASSERT_EQ(c.special.size(), 2u);
  for (const SpecialMove& s : c.special) {
    EXPECT_EQ(s.first.mode, LegMode::kCapture);
    EXPECT_EQ(s.first.dy, 1);
    EXPECT_EQ(std::abs(s.first.dx), 1);
    EXPECT_EQ(s.first.range, 1);
  }
  // mRcB: 4 move-only slides and 4 capture-only slides.
  const PieceMoves mc = parseXBetza("mRcB");
  ASSERT_EQ(mc.special.size(), 8u);
  EXPECT_EQ(countIf(mc.special, [](const SpecialMove& s) { return s.first.mode == LegMode::kMove; }), 4);
  // Mixed with plain parts: "WcF" is plain W and special cF.
  const PieceMoves wf = parseXBetza("WcF");
  EXPECT_EQ(wf.plain.size(), 4u);
  EXPECT_EQ(wf.special.size(), 4u);
}

TEST(XBetzaParse, PathModifiers) {
  const PieceMoves n = parseXBetza("nN");  // xiangqi horse: 8 lame knight leaps
  ASSERT_EQ(n.special.size(), 8u);
  for (const SpecialMove& s : n.special) EXPECT_EQ(s.first.path, LegPath::kLame);
  EXPECT_EQ(parseXBetza("nA").special.size(), 4u);  // xiangqi elephant
  const PieceMoves jd = parseXBetza("jD");  // must jump: 4 orthogonal two-square leaps
  ASSERT_EQ(jd.special.size(), 4u);
  for (const SpecialMove& s : jd.special) EXPECT_EQ(s.first.path, LegPath::kMustJump);
  const PieceMoves jr = parseXBetza("jR");  // j on a slide skips the first square
  ASSERT_EQ(jr.special.size(), 4u);
  for (const SpecialMove& s : jr.special) EXPECT_EQ(s.first.path, LegPath::kSkipFirst);
  const PieceMoves pr = parseXBetza("pR");
  ASSERT_EQ(pr.special.size(), 4u);
  for (const SpecialMove& s : pr.special) EXPECT_EQ(s.first.path, LegPath::kHop);
  const PieceMoves gq = parseXBetza("gQ");
  ASSERT_EQ(gq.special.size(), 8u);
  for (const SpecialMove& s : gq.special) EXPECT_EQ(s.first.path, LegPath::kGrasshop);
  // Modality and path together: a cannon that moves as a rook and captures by hopping.
  const PieceMoves cannon = parseXBetza("mRcpR");
  ASSERT_EQ(cannon.special.size(), 8u);
  EXPECT_EQ(countIf(cannon.special, [](const SpecialMove& s) {
              return s.first.mode == LegMode::kCapture && s.first.path == LegPath::kHop;
            }), 4);
}

TEST(XBetzaParse, JumpingSlider) {
  // B(paf)2cB (mitsugumi's bishop general): the bishop's four lines on the fast path, and the
  // same four lines as captures beyond up to two jumped pieces.
  const PieceMoves bg = parseXBetza("B(paf)2cB");
  EXPECT_EQ(bg.plain, parseBetza("B"));
  ASSERT_EQ(bg.special.size(), 4u);
  for (const SpecialMove& s : bg.special) {
    EXPECT_EQ(s.first.path, LegPath::kJumpCapture);
    EXPECT_EQ(s.first.mode, LegMode::kCapture);
    EXPECT_EQ(s.first.jumps, 2);
    EXPECT_EQ(s.first.range, 0);
    EXPECT_EQ(std::abs(s.first.dx), 1);
    EXPECT_EQ(std::abs(s.first.dy), 1);
  }
  // Q(paf)2cQ (the great general): eight lines.
  EXPECT_EQ(parseXBetza("Q(paf)2cQ").special.size(), 8u);
}

TEST(XBetzaParse, TwoLegs) {
  // caK: 8 first steps that must capture, each followed by any of 8 steps: 64 moves.
  const PieceMoves ca = parseXBetza("caK");
  EXPECT_TRUE(ca.plain.empty());
  ASSERT_EQ(ca.special.size(), 64u);
  for (const SpecialMove& s : ca.special) {
    EXPECT_TRUE(s.twoLegs);
    EXPECT_EQ(s.first.mode, LegMode::kCapture);
    EXPECT_EQ(s.second.mode, LegMode::kMoveOrCapture);
  }
  // mcabK: 8 first steps, each straight back (the second leg is relative to the first).
  const PieceMoves back = parseXBetza("mcabK");
  ASSERT_EQ(back.special.size(), 8u);
  for (const SpecialMove& s : back.special) {
    EXPECT_EQ(s.first.mode, LegMode::kMoveOrCapture);
    EXPECT_EQ(s.second.dx, -s.first.dx);
    EXPECT_EQ(s.second.dy, -s.first.dy);
  }
  // The lion: K N A D leaps (8 + 8 + 4 + 4 = 24 vectors) plus 64 + 8 two-leg moves. caK
  // backwards and mcabK through an enemy are the same igui; they stay two entries here (their
  // first legs differ in modality) and move generation lists the move once.
  const PieceMoves lion = parseXBetza("KNADcaKmcabK");
  EXPECT_EQ(lion.plain.size(), 24u);
  EXPECT_EQ(lion.special.size(), 72u);
  // Horned falcon's sting: capture straight ahead, then on (f) or back (b): 2 moves.
  const PieceMoves falcon = parseXBetza("fcavW");
  ASSERT_EQ(falcon.special.size(), 2u);
  for (const SpecialMove& s : falcon.special) {
    EXPECT_EQ(s.first.dx, 0);
    EXPECT_EQ(s.first.dy, 1);
    EXPECT_EQ(s.second.dx, 0);
    EXPECT_EQ(std::abs(s.second.dy), 1);
  }
  // Soaring eagle's sting: both forward diagonals, on or back: 4 moves.
  EXPECT_EQ(parseXBetza("fcavF").special.size(), 4u);
  // A first leg without modality is move-only (XBetza's default): fafW = step ahead, then
  // step on; afW does that in each of the 4 directions.
  EXPECT_EQ(parseXBetza("afW").special.size(), 4u);
  const PieceMoves afw = parseXBetza("fafW");
  ASSERT_EQ(afw.special.size(), 1u);
  EXPECT_EQ(afw.special[0].first.mode, LegMode::kMove);
  EXPECT_EQ(afw.special[0].second.dy, 1);
  // Relative turns: caflK = capture, then turn 45 degrees left: 8 moves; casW: 4 x 2 = 8.
  EXPECT_EQ(parseXBetza("caflK").special.size(), 8u);
  EXPECT_EQ(parseXBetza("casW").special.size(), 8u);
}

TEST(XBetzaParse, PlainParserRefusesXBetza) {
  for (const std::string text : {"mR", "caK", "nN", "pR"}) EXPECT_THROW(parseBetza(text), BetzaError) << text;
}

TEST(XBetzaParse, UnsupportedPartsAreNamed) {
  // Each bad string and the part its message must name.
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"iW", "iW"},          // initial moves: no supported piece needs them
      {"KcaN", "caN"},       // two legs on a leaper
      {"KcaR", "caR"},       // two legs on a slider
      {"cacaK", "cacaK"},    // three legs
      {"(ca)2K", "(ca)2K"},  // groups in parentheses other than (paf)N
      {"(paf)2R", "(paf)2R"},    // (paf)N needs a capture-only slide after it
      {"(paf)2cW", "(paf)2cW"},  // ... of unlimited range
      {"yR", "'y'"},         // not a known modifier
      {"nW", "nW"},          // n needs a leap with a square in between
      {"jN", "jN"},          // j needs D, A or a slide
      {"pW", "pW"},          // hoppers need a slide
      {"npR", "npR"},        // two path modifiers on one leg
      {"ca", "ca"},          // no atom
  };
  for (const auto& [text, part] : bad) {
    try {
      parseXBetza(text);
      ADD_FAILURE() << text << " was accepted";
    } catch (const BetzaError& e) {
      EXPECT_THAT(std::string(e.what()), HasSubstr(part)) << text;
    }
  }
}

// ---------------------------------------------------------------------------------------------
// 2. Moves on the board.
// ---------------------------------------------------------------------------------------------

VariantPtr pieces() { return loadVariantFile(std::string(POPPY_SOURCE_DIR) + "/tests/data/xbetza_pieces.yaml"); }

// An SFEN of the 12x12 test board with the given pieces ("6f" -> "L") plus the two kings on 1i
// and 9k, placed off every line and knight leap from 6f and from the corners 12a and 12l.
std::string sfenWith(const Variant& v, std::map<std::string, std::string> pieces, char side = 'b') {
  pieces.emplace("1i", "K");
  pieces.emplace("9k", "k");
  return poppy::testing::boardSfen(v, pieces) + " " + side + " - 1";
}

// The legal moves of the piece on `from`, as USI text.
std::vector<std::string> movesFrom(const Position& pos, const std::string& from) {
  MoveList list;
  pos.generateLegal(list);
  std::vector<std::string> out;
  const Square f = sq(pos.variant(), from);
  for (const Move& m : list)
    if (!m.isDrop() && m.from == f) out.push_back(pos.moveToUsi(m));
  std::sort(out.begin(), out.end());
  return out;
}

size_t countFrom(const VariantPtr& v, std::map<std::string, std::string> board, const std::string& from,
                 char side = 'b') {
  const Position pos = Position::fromSfen(v, sfenWith(*v, std::move(board), side));
  const auto moves = movesFrom(pos, from);
  // Every move is listed once.
  EXPECT_EQ(std::set<std::string>(moves.begin(), moves.end()).size(), moves.size()) << from;
  return moves.size();
}

// 6f is column 6, rank 5 of 12x12 (0-based): 6 squares to sente's left, 5 to the right, 5 ahead
// (towards rank a), 6 behind. Diagonals: ahead-left 5, ahead-right 5, behind-left 6,
// behind-right 5.

TEST(XBetzaMoves, Lion) {
  auto v = pieces();
  // Empty board, centre: K N A D reach every square within two (24), none of them blocked;
  // caK needs a piece to capture (0); mcabK steps to any of 8 empty neighbours and back, and
  // every such pass leaves the same position, so it is one move: 24 + 1 = 25.
  EXPECT_EQ(countFrom(v, {{"6f", "L"}}, "6f"), 25u);
  // Corner 12a: K 3, N 2, A 1, D 2 = 8 leaps, and the pass: 9.
  EXPECT_EQ(countFrom(v, {{"12a", "L"}}, "12a"), 9u);
  // An enemy pawn ahead on 6e: still 24 single moves (one a capture); caK captures 6e and
  // steps to one of its 8 neighbours (7 empty squares and 6f itself, igui): 8; the pass: 1.
  // 24 + 8 + 1 = 33.
  EXPECT_EQ(countFrom(v, {{"6f", "L"}, {"6e", "p"}}, "6f"), 33u);
  // A friendly pawn on 6e instead: 23 single moves, no capture, the pass: 24.
  EXPECT_EQ(countFrom(v, {{"6f", "L"}, {"6e", "P"}}, "6f"), 24u);
  const Position pos = Position::fromSfen(v, sfenWith(*v, {{"6f", "L"}, {"6e", "p"}, {"6d", "p"}}));
  EXPECT_TRUE(hasLegal(pos, "6f6e6d")) << "double capture";
  EXPECT_TRUE(hasLegal(pos, "6f6e6f")) << "igui";
  EXPECT_TRUE(hasLegal(pos, "6f7f6f")) << "pass through an empty neighbour";
  EXPECT_TRUE(hasLegal(pos, "6f6d")) << "the leap over 6e";
  EXPECT_FALSE(hasLegal(pos, "6f7f7e")) << "through an empty square the move is written plain";
  EXPECT_TRUE(hasLegal(pos, "6f7e"));
}

TEST(XBetzaMoves, HornedFalcon) {
  auto v = pieces();
  // BsbRfWfDfcavW, sente on 6f, empty board: bishop 5 + 5 + 6 + 5 = 21, sideways rook 6 + 5
  // = 11, backward rook 6, fW 1, fD 1: 40. The sting needs a piece ahead: 0.
  EXPECT_EQ(countFrom(v, {{"6f", "H"}}, "6f"), 40u);
  // Gote on 6f: its forward is sente's backward. Bishop 21, sideways 11, backward (towards
  // rank a) 5, fW 1, fD 1: 39.
  EXPECT_EQ(countFrom(v, {{"6f", "h"}}, "6f", 'w'), 39u);
  // Corner 12l (sente's far left): bishop ahead-right 11, sideways right 11, nothing behind,
  // fW 1, fD 1: 24.
  EXPECT_EQ(countFrom(v, {{"12l", "H"}}, "12l"), 24u);
  // Enemy on 6e: fW captures it (1), fD leaps to 6d (1), the sting adds capture-then-6d and
  // capture-and-return (2): 21 + 11 + 6 + 1 + 1 + 2 = 42.
  EXPECT_EQ(countFrom(v, {{"6f", "H"}, {"6e", "p"}}, "6f"), 42u);
  // Enemies on 6e and 6d: fW 1, fD captures 6d (1), sting: double capture and igui (2): 42.
  EXPECT_EQ(countFrom(v, {{"6f", "H"}, {"6e", "p"}, {"6d", "p"}}, "6f"), 42u);
  // Own piece on 6d: fD cannot land (0), sting continues only back (igui): 21+11+6+1+0+1 = 40.
  EXPECT_EQ(countFrom(v, {{"6f", "H"}, {"6e", "p"}, {"6d", "P"}}, "6f"), 40u);
}

TEST(XBetzaMoves, SoaringEagle) {
  auto v = pieces();
  // RbBfFfAfcavF, sente on 6f, empty board: rook 6 + 5 + 5 + 6 = 22, backward bishop 6 + 5
  // = 11, forward diagonal step 2 and leap 2: 37.
  EXPECT_EQ(countFrom(v, {{"6f", "E"}}, "6f"), 37u);
  // Enemy ahead-right on 5e: fF captures it, fA leaps to 4d; the sting: capture then 4d, and
  // capture and return: 37 + 2 = 39.
  EXPECT_EQ(countFrom(v, {{"6f", "E"}, {"5e", "p"}}, "6f"), 39u);
}

TEST(XBetzaMoves, ModalityRestricted) {
  auto v = pieces();
  // mRcB, empty centre: rook moves 6 + 5 + 5 + 6 = 22, no capture: 22.
  EXPECT_EQ(countFrom(v, {{"6f", "M"}}, "6f"), 22u);
  // Corner 12a: right 11, down 11: 22.
  EXPECT_EQ(countFrom(v, {{"12a", "M"}}, "12a"), 22u);
  // Enemy on 6d (two ahead) stops the move-only rook at 6e (ahead 1 instead of 5, no capture);
  // enemy on 5e (ahead-right diagonal) is captured by cB: 1 + 5 + 6 + 6 = 18 moves, + 1.
  EXPECT_EQ(countFrom(v, {{"6f", "M"}, {"6d", "p"}, {"5e", "p"}}, "6f"), 19u);
}

TEST(XBetzaMoves, LameAndJumpingLeapers) {
  auto v = pieces();
  // nN: 8 knight leaps in the centre, 2 from the corner.
  EXPECT_EQ(countFrom(v, {{"6f", "N"}}, "6f"), 8u);
  EXPECT_EQ(countFrom(v, {{"12a", "N"}}, "12a"), 2u);
  // A piece on 6e blocks the two leaps that go two ranks ahead (to 7d and 5d): 6.
  EXPECT_EQ(countFrom(v, {{"6f", "N"}, {"6e", "P"}}, "6f"), 6u);
  EXPECT_EQ(countFrom(v, {{"6f", "N"}, {"6e", "p"}}, "6f"), 6u);
  // jD: must jump over a piece: none on an empty board.
  EXPECT_EQ(countFrom(v, {{"6f", "X"}}, "6f"), 0u);
  // Any piece on 6e lets it jump to 6d: 1.
  EXPECT_EQ(countFrom(v, {{"6f", "X"}, {"6e", "P"}}, "6f"), 1u);
  // jB skips the first square of each diagonal: (5-1) + (5-1) + (6-1) + (5-1) = 17; from the
  // corner 12a the one diagonal of 11 squares gives 10.
  EXPECT_EQ(countFrom(v, {{"6f", "J"}}, "6f"), 17u);
  EXPECT_EQ(countFrom(v, {{"12a", "J"}}, "12a"), 10u);
  // An own piece on the skipped square 5e does not block: still 17.
  EXPECT_EQ(countFrom(v, {{"6f", "J"}, {"5e", "P"}}, "6f"), 17u);
}

TEST(XBetzaMoves, Hoppers) {
  auto v = pieces();
  // pR and gQ need a screen: nothing on an empty board.
  EXPECT_EQ(countFrom(v, {{"6f", "C"}}, "6f"), 0u);
  EXPECT_EQ(countFrom(v, {{"6f", "G"}}, "6f"), 0u);
  // Screen on 6d: pR goes on to 6c, 6b, 6a: 3.
  EXPECT_EQ(countFrom(v, {{"6f", "C"}, {"6d", "P"}}, "6f"), 3u);
  // Screen on 6d and an enemy on 6b: 6c and the capture on 6b: 2.
  EXPECT_EQ(countFrom(v, {{"6f", "C"}, {"6d", "P"}, {"6b", "p"}}, "6f"), 2u);
  // gQ lands right behind the screen only: 6c. An own piece there: nothing.
  EXPECT_EQ(countFrom(v, {{"6f", "G"}, {"6d", "P"}}, "6f"), 1u);
  EXPECT_EQ(countFrom(v, {{"6f", "G"}, {"6d", "P"}, {"6c", "P"}}, "6f"), 0u);
  // Corner 12a, screens on 12c (down the file) and 10c (down the diagonal): 12d and 9d: 2.
  EXPECT_EQ(countFrom(v, {{"12a", "G"}, {"12c", "p"}, {"10c", "p"}}, "12a"), 2u);
}

TEST(XBetzaMoves, JumpingGeneral) {
  auto v = pieces();
  // U is B(paf)2cB. From 6f the diagonal ahead-right is 5e 4d 3c 2b 1a. An own pawn on 5e
  // blocks the bishop's slide there, but the general jumps it and takes the enemy on 4d, then
  // jumps that one too and takes 2b (the third piece met: no further). The other three
  // diagonals are empty: 5 + 6 + 5 = 16 slides. 16 + 2 = 18.
  EXPECT_EQ(countFrom(v, {{"6f", "U"}, {"5e", "P"}, {"4d", "p"}, {"2b", "p"}}, "6f"), 18u);
  // Enemies on 5e, 4d, 3c, 2b: the slide takes 5e; the jumps take 4d and 3c; 2b would be a
  // third jump: 16 + 3 = 19.
  EXPECT_EQ(countFrom(v, {{"6f", "U"}, {"5e", "p"}, {"4d", "p"}, {"3c", "p"}, {"2b", "p"}}, "6f"), 19u);
  // Never onto an empty square beyond a jumped piece: pawn on 5e, nothing else on that line:
  // 16 slides only.
  EXPECT_EQ(countFrom(v, {{"6f", "U"}, {"5e", "P"}}, "6f"), 16u);
  // It gives check over two pieces, not over three: gote U on 5e, the sente king on 1i, the
  // diagonal 5e-4f-3g-2h-1i.
  EXPECT_TRUE(Position::fromSfen(v, sfenWith(*v, {{"5e", "u"}, {"3g", "P"}, {"2h", "p"}})).inCheck());
  EXPECT_FALSE(Position::fromSfen(v, sfenWith(*v, {{"5e", "u"}, {"4f", "P"}, {"3g", "P"}, {"2h", "p"}})).inCheck());
}

TEST(XBetzaMoves, SpecialCapturesGiveCheck) {
  auto v = pieces();
  // The sente king stands on 1i (sfenWith). A gote mRcB on 4f captures along the diagonal
  // 4f-3g-2h-1i: check. On 1a it only moves along the file, never captures there: no check.
  EXPECT_TRUE(Position::fromSfen(v, sfenWith(*v, {{"4f", "m"}})).inCheck());
  EXPECT_FALSE(Position::fromSfen(v, sfenWith(*v, {{"1a", "m"}})).inCheck());
  // The hopper attacks over a screen: gote pR on 1a, screen on 1c: check.
  EXPECT_TRUE(Position::fromSfen(v, sfenWith(*v, {{"1a", "c"}, {"1c", "P"}})).inCheck());
  EXPECT_FALSE(Position::fromSfen(v, sfenWith(*v, {{"1a", "c"}})).inCheck());
  // In check from the capture-only bishop on 4f, the king may not step to 2h (still on the
  // diagonal) but may step to 1h (three files and two ranks from 4f: on no line of it).
  const Position pos = Position::fromSfen(v, sfenWith(*v, {{"4f", "m"}}));
  EXPECT_FALSE(hasLegal(pos, "1i2h"));
  EXPECT_TRUE(hasLegal(pos, "1i1h"));
}

// ---------------------------------------------------------------------------------------------
// 3. make/unmake and USI.
// ---------------------------------------------------------------------------------------------

// Makes `usi`, checks the board afterwards and the hash, then unmakes and checks everything
// is back.
void roundTrip(Position& pos, const std::string& usi, const std::map<std::string, std::string>& after) {
  const std::string before = pos.sfen();
  const uint64_t hash = pos.hash();
  const Move m = pos.parseUsi(usi);
  EXPECT_EQ(pos.moveToUsi(m), usi);
  pos.makeMove(m);
  for (const auto& [square, token] : after) EXPECT_EQ(tokenAt(pos, square), token) << usi << " " << square;
  EXPECT_EQ(pos.hash(), pos.computeHash()) << usi;
  EXPECT_EQ(pos.sideToMove(), 1);
  pos.unmakeMove();
  EXPECT_EQ(pos.sfen(), before) << usi;
  EXPECT_EQ(pos.hash(), hash) << usi;
  EXPECT_EQ(pos.hash(), pos.computeHash()) << usi;
}

TEST(XBetzaMakeMove, TwoCapturesIguiAndPass) {
  auto v = pieces();
  Position pos = Position::fromSfen(v, sfenWith(*v, {{"6f", "L"}, {"6e", "p"}, {"6d", "n"}}));
  // Double capture: both gote pieces leave the board, the lion ends on 6d.
  roundTrip(pos, "6f6e6d", {{"6f", ""}, {"6e", ""}, {"6d", "L"}});
  // Igui: 6e is emptied, the lion stays on 6f; 6d untouched.
  roundTrip(pos, "6f6e6f", {{"6f", "L"}, {"6e", ""}, {"6d", "n"}});
  // Pass: nothing changes on the board, only the side to move.
  roundTrip(pos, "6f7f6f", {{"6f", "L"}, {"7f", ""}, {"6e", "p"}, {"6d", "n"}});
  // The horned falcon's sting, both forms.
  Position falcon = Position::fromSfen(v, sfenWith(*v, {{"6f", "H"}, {"6e", "p"}, {"6d", "p"}}));
  roundTrip(falcon, "6f6e6d", {{"6f", ""}, {"6e", ""}, {"6d", "H"}});
  roundTrip(falcon, "6f6e6f", {{"6f", "H"}, {"6e", ""}, {"6d", "p"}});
  // After the double capture the pass position differs from the igui one: hashes differ.
  Position a = pos, b = pos;
  a.makeMove(a.parseUsi("6f6e6f"));
  b.makeMove(b.parseUsi("6f7f6f"));
  EXPECT_NE(a.hash(), b.hash());
}

TEST(XBetzaUsi, ParseErrorsAndPlainFallback) {
  auto v = pieces();
  const Position pos = Position::fromSfen(v, sfenWith(*v, {{"6f", "L"}, {"6e", "p"}}));
  const Move m = pos.parseUsi("6f6e6d");
  EXPECT_TRUE(m.isTwoLeg());
  EXPECT_EQ(m.mid(), sq(*v, "6e"));
  EXPECT_EQ(m.to, sq(*v, "6d"));
  // Written through an empty middle square, a move that is an ordinary leap is that leap.
  const Move plain = pos.parseUsi("6f7e7d");
  EXPECT_FALSE(plain.isTwoLeg());
  EXPECT_EQ(pos.moveToUsi(plain), "6f7d");
  auto error = [&](const std::string& text) {
    try {
      pos.parseUsi(text);
    } catch (const MoveError& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_THAT(error("6f6d6c"), HasSubstr("must be next to"));  // 6d is two squares from 6f
  EXPECT_THAT(error("6f6e6c"), HasSubstr("must be next to"));  // 6c is two squares from 6e
  EXPECT_THAT(error("6f6e6"), HasSubstr("bad target square"));
  EXPECT_THAT(error("6f6e6d6c"), HasSubstr("unexpected text"));
  EXPECT_THAT(error("6f5f6f+"), HasSubstr("does not flip"));
  // A pawn has no two-leg move: the message names the middle square.
  const Position pawn = Position::fromSfen(v, sfenWith(*v, {{"6f", "P"}, {"6e", "p"}}));
  try {
    pawn.parseUsi("6f6e6f");
    ADD_FAILURE() << "accepted";
  } catch (const MoveError& e) {
    EXPECT_THAT(std::string(e.what()), HasSubstr("through 6e"));
  }
}

// Random games with every test piece on the board for both sides: each legal move is listed
// once, its USI text parses back to the same move, make/unmake restores SFEN and hash, and the
// incremental hash matches a recomputation. (Properties, not counts: nothing here is expected
// from the engine's own output.)
TEST(XBetzaMakeMove, RandomGamesRoundTrip) {
  auto v = pieces();
  const std::string start = sfenWith(*v, {{"6f", "L"}, {"7g", "H"}, {"4g", "E"}, {"8h", "M"}, {"4h", "N"},
                                          {"3h", "X"}, {"9h", "C"}, {"10h", "G"}, {"2h", "J"}, {"6g", "P"},
                                          {"7e", "l"}, {"6d", "h"}, {"8d", "e"}, {"5c", "m"}, {"9c", "n"},
                                          {"10c", "x"}, {"4c", "c"}, {"3c", "g"}, {"11c", "j"}, {"7f", "p"}});
  std::mt19937 rng(12345);
  int twoLegListed = 0;
  for (int game = 0; game < poppy::testing::underSanitizers(8); ++game) {
    Position pos = Position::fromSfen(v, start);
    for (int ply = 0; ply < 40; ++ply) {
      MoveList list;
      pos.generateLegal(list);
      if (list.size() == 0) break;
      std::set<std::string> seen;
      for (const Move& m : list) {
        const std::string usi = pos.moveToUsi(m);
        EXPECT_TRUE(seen.insert(usi).second) << "listed twice: " << usi << " in " << pos.sfen();
        EXPECT_TRUE(pos.parseUsi(usi) == m) << usi << " in " << pos.sfen();
        twoLegListed += m.isTwoLeg();
      }
      const std::string before = pos.sfen();
      const uint64_t hash = pos.hash();
      const Move m = list[int(rng() % uint32_t(list.size()))];
      pos.makeMove(m);
      ASSERT_EQ(pos.hash(), pos.computeHash()) << pos.moveToUsi(m);
      pos.unmakeMove();
      ASSERT_EQ(pos.sfen(), before);
      ASSERT_EQ(pos.hash(), hash);
      pos.makeMove(m);
    }
  }
  EXPECT_GT(twoLegListed, 0) << "the games must reach two-leg moves to test them";
}

// Random notation: every string either parses or throws BetzaError, never anything else.
TEST(XBetzaParse, RandomStringsParseOrThrowBetzaError) {
  const std::string alphabet = "fblrsvmcnjpgaiyWFDNAHCZGKRBQ0123()";
  std::mt19937 rng(2026);
  for (int i = 0; i < 20000; ++i) {
    std::string text;
    const int len = 1 + int(rng() % 8);
    for (int k = 0; k < len; ++k) text += alphabet[rng() % alphabet.size()];
    try {
      const PieceMoves m = parseXBetza(text);
      for (const SpecialMove& s : m.special) {
        EXPECT_TRUE(s.first.dx || s.first.dy) << text;
        EXPECT_TRUE(!s.twoLegs || s.second.dx || s.second.dy) << text;
      }
    } catch (const BetzaError&) {
    } catch (const std::exception& e) {
      ADD_FAILURE() << text << ": " << e.what();
    }
  }
}

}  // namespace
