// Tori shogi rule cases on hand-built positions. No independent tori engine is available to
// cross-check against, so every expectation here is derived by hand from the rule text of
// seed 002 ("Tori Shogi (Bird Shogi)"; docs/RULES.md, "Sources"), docs/RULES.md and the comment
// at the top of configs/variants/tori.yaml -- never copied from the engine's output.
//
// Conventions (docs/RULES.md): squares are USI, file 1..7 from sente's right, rank a is gote's back
// rank; sente moves up the board (towards rank a), gote's pieces move as sente's rotated 180
// degrees. "Left"/"right" are from the piece owner's view: for sente, left = higher file numbers.
// Letters: K phoenix, F falcon (+F eagle), C crane, P pheasant, L left quail, R right quail,
// S swallow (+S goose).
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "game/position.h"
#include "game/variant_loader.h"
#include "support/position_helpers.h"

using namespace poppy::game;
using namespace poppy::testing;

namespace {

// Legal drops of one hand letter ("S", "+F"), as USI strings.
std::vector<std::string> dropsOf(const Position& pos, const std::string& token) {
  std::vector<std::string> out;
  for (const auto& m : legalUsi(pos))
    if (m.compare(0, token.size() + 1, token + "*") == 0) out.push_back(m);
  return out;
}

VariantPtr tori() { return loadVariant("tori"); }

// A lone piece on 4d (the centre). Gote's phoenix on 6a and sente's on 2g lie on no line
// from 4d (its rank, file and diagonals run through 1a, 7a, 1g and 7g, not 6a or 2g), and no
// piece below reaches them from 4d, so they never get in the way.
std::string centreSente(const std::string& token) { return "1k5/7/7/3" + token + "3/7/7/5K1 b - 1"; }
std::string centreGote(const std::string& token) { return "1k5/7/7/3" + token + "3/7/7/5K1 w - 1"; }

}  // namespace

// ---------------------------------------------------------------------------------------------
// 1. Piece moves from the centre, sente (seed 002, "Their moves are as follows").
// ---------------------------------------------------------------------------------------------

// Seed 002: "Phoenix as shogi K." (one square in any of the eight directions).
TEST(ToriMoves, PhoenixSente) {
  auto v = tori();
  Position pos = Position::fromSfen(v, "1k5/7/7/3K3/7/7/7 b - 1");
  EXPECT_EQ(boardMovesFrom(pos, "4d"), movesFromTo("4d", {"3c", "4c", "5c", "3d", "5d", "3e", "4e", "5e"}));
}

// Seed 002: "Crane as K, but not sideways."
TEST(ToriMoves, CraneSente) {
  auto v = tori();
  Position pos = Position::fromSfen(v, centreSente("C"));
  EXPECT_EQ(boardMovesFrom(pos, "4d"), movesFromTo("4d", {"3c", "4c", "5c", "3e", "4e", "5e"}));
}

// Seed 002: "Falcon as K, but not straight back." (4d is outside the zone: no promotion.)
TEST(ToriMoves, FalconSente) {
  auto v = tori();
  Position pos = Position::fromSfen(v, centreSente("F"));
  EXPECT_EQ(boardMovesFrom(pos, "4d"), movesFromTo("4d", {"3c", "4c", "5c", "3d", "5d", "3e", "5e"}));
}

// Seed 002: "Pheasant one square diagonally backwards or two squares straight ahead, leaping
// intervening square."
TEST(ToriMoves, PheasantSente) {
  auto v = tori();
  Position pos = Position::fromSfen(v, centreSente("P"));
  EXPECT_EQ(boardMovesFrom(pos, "4d"), movesFromTo("4d", {"4b", "3e", "5e"}));
}

// Seed 002: pheasant "two squares straight ahead" -- from rank b that is off the board, so only
// the diagonal steps back remain.
TEST(ToriMoves, PheasantNearFarEdgeOnlyStepsBack) {
  auto v = tori();
  Position pos = Position::fromSfen(v, "k6/3P3/7/7/7/7/6K b - 1");
  EXPECT_EQ(boardMovesFrom(pos, "4b"), movesFromTo("4b", {"3c", "5c"}));
}

// Seed 002: "Quail any number of squares straight ahead or diagonally backwards to the left, or
// one square diagonally backwards to the right (right quail)". For sente, back-left from 4d is
// 5e, 6f, 7g; back-right is 3e.
TEST(ToriMoves, RightQuailSente) {
  auto v = tori();
  Position pos = Position::fromSfen(v, centreSente("R"));
  EXPECT_EQ(boardMovesFrom(pos, "4d"), movesFromTo("4d", {"4c", "4b", "4a", "5e", "6f", "7g", "3e"}));
}

// Seed 002: "backward movements reversed (left quail)": any number diagonally backwards to the
// right (3e, 2f, 1g), one square diagonally backwards to the left (5e).
TEST(ToriMoves, LeftQuailSente) {
  auto v = tori();
  Position pos = Position::fromSfen(v, centreSente("L"));
  EXPECT_EQ(boardMovesFrom(pos, "4d"), movesFromTo("4d", {"4c", "4b", "4a", "3e", "2f", "1g", "5e"}));
}

// Seed 002: "Swallow one square straight ahead, as shogi P."
TEST(ToriMoves, SwallowSente) {
  auto v = tori();
  Position pos = Position::fromSfen(v, centreSente("S"));
  EXPECT_EQ(boardMovesFrom(pos, "4d"), movesFromTo("4d", {"4c"}));
}

// Seed 002: Eagle "can move (1) over any distance diagonally forward or straight back, or (2) one
// square sideways or straight ahead, or (3) one or two squares diagonally backwards (no leap)".
TEST(ToriMoves, EagleSente) {
  auto v = tori();
  Position pos = Position::fromSfen(v, centreSente("+F"));
  EXPECT_EQ(boardMovesFrom(pos, "4d"), movesFromTo("4d", {
                                                   "3c", "2b", "1a", "5c", "6b", "7a",  // (1) diag fwd
                                                   "4e", "4f", "4g",                    // (1) back
                                                   "3d", "5d", "4c",                    // (2)
                                                   "3e", "2f", "5e", "6f",              // (3)
                                               }));
}

// Seed 002: "A swallow promotes to Goose: two squares diagonally forward or two squares straight
// back, leaping the intervening square."
TEST(ToriMoves, GooseSente) {
  auto v = tori();
  Position pos = Position::fromSfen(v, centreSente("+S"));
  EXPECT_EQ(boardMovesFrom(pos, "4d"), movesFromTo("4d", {"2b", "6b", "4f"}));
}

// ---------------------------------------------------------------------------------------------
// 2. The same pieces for gote: sente's moves rotated 180 degrees (forward = towards rank g;
//    gote's left = lower file numbers). Square 4d maps to itself; file f -> 8-f, rank a<->g,
//    b<->f, c<->e.
// ---------------------------------------------------------------------------------------------

// Seed 002: "Phoenix as shogi K."
TEST(ToriMovesGote, Phoenix) {
  auto v = tori();
  Position pos = Position::fromSfen(v, "7/7/7/3k3/7/7/5K1 w - 1");
  EXPECT_EQ(boardMovesFrom(pos, "4d"), movesFromTo("4d", {"3c", "4c", "5c", "3d", "5d", "3e", "4e", "5e"}));
}

// Seed 002: "Crane as K, but not sideways."
TEST(ToriMovesGote, Crane) {
  auto v = tori();
  Position pos = Position::fromSfen(v, centreGote("c"));
  EXPECT_EQ(boardMovesFrom(pos, "4d"), movesFromTo("4d", {"3c", "4c", "5c", "3e", "4e", "5e"}));
}

// Seed 002: "Falcon as K, but not straight back." Gote's straight back is 4c.
TEST(ToriMovesGote, Falcon) {
  auto v = tori();
  Position pos = Position::fromSfen(v, centreGote("f"));
  EXPECT_EQ(boardMovesFrom(pos, "4d"), movesFromTo("4d", {"3e", "4e", "5e", "3d", "5d", "3c", "5c"}));
}

// Seed 002: pheasant "one square diagonally backwards or two squares straight ahead". Gote's
// ahead is towards rank g (4f); its diagonal back squares are 3c and 5c.
TEST(ToriMovesGote, Pheasant) {
  auto v = tori();
  Position pos = Position::fromSfen(v, centreGote("p"));
  EXPECT_EQ(boardMovesFrom(pos, "4d"), movesFromTo("4d", {"4f", "3c", "5c"}));
}

// Seed 002, right quail rotated: ahead 4e..4g; back-left (towards rank a and lower files) any
// distance 3c, 2b, 1a; back-right one square 5c.
TEST(ToriMovesGote, RightQuail) {
  auto v = tori();
  Position pos = Position::fromSfen(v, centreGote("r"));
  EXPECT_EQ(boardMovesFrom(pos, "4d"), movesFromTo("4d", {"4e", "4f", "4g", "3c", "2b", "1a", "5c"}));
}

// Seed 002, left quail rotated: ahead 4e..4g; back-right any distance 5c, 6b, 7a; back-left 3c.
TEST(ToriMovesGote, LeftQuail) {
  auto v = tori();
  Position pos = Position::fromSfen(v, centreGote("l"));
  EXPECT_EQ(boardMovesFrom(pos, "4d"), movesFromTo("4d", {"4e", "4f", "4g", "5c", "6b", "7a", "3c"}));
}

// Seed 002: "Swallow one square straight ahead" -- for gote, 4e.
TEST(ToriMovesGote, Swallow) {
  auto v = tori();
  Position pos = Position::fromSfen(v, centreGote("s"));
  EXPECT_EQ(boardMovesFrom(pos, "4d"), movesFromTo("4d", {"4e"}));
}

// Seed 002, eagle rotated: diagonally forward (towards rank g) any distance, straight back
// (towards rank a) any distance, one sideways or straight ahead, one or two diagonally back.
TEST(ToriMovesGote, Eagle) {
  auto v = tori();
  Position pos = Position::fromSfen(v, centreGote("+f"));
  EXPECT_EQ(boardMovesFrom(pos, "4d"), movesFromTo("4d", {
                                                   "5e", "6f", "7g", "3e", "2f", "1g",  // diag fwd
                                                   "4c", "4b", "4a",                    // back
                                                   "3d", "5d", "4e",                    // one step
                                                   "5c", "6b", "3c", "2b",              // diag back
                                               }));
}

// Seed 002, goose rotated: two diagonally forward (6f, 2f) or two straight back (4b).
TEST(ToriMovesGote, Goose) {
  auto v = tori();
  Position pos = Position::fromSfen(v, centreGote("+s"));
  EXPECT_EQ(boardMovesFrom(pos, "4d"), movesFromTo("4d", {"6f", "2f", "4b"}));
}

// ---------------------------------------------------------------------------------------------
// 3. Leaps and blocking.
// ---------------------------------------------------------------------------------------------

// Seed 002: pheasant "two squares straight ahead, leaping intervening square" -- an own piece
// on 4c does not stop 4d-4b.
TEST(ToriLeaps, PheasantLeapsOverOwnPiece) {
  auto v = tori();
  Position pos = Position::fromSfen(v, "1k5/7/3C3/3P3/7/7/5K1 b - 1");
  EXPECT_EQ(boardMovesFrom(pos, "4d"), movesFromTo("4d", {"4b", "3e", "5e"}));
}

// Seed 002, "Capture is by displacement": the pheasant leaps an enemy swallow on 4c and takes the
// enemy crane on 4b.
TEST(ToriLeaps, PheasantLeapsAndCaptures) {
  auto v = tori();
  Position pos = Position::fromSfen(v, "1k5/3c3/3s3/3P3/7/7/5K1 b - 1");
  EXPECT_EQ(boardMovesFrom(pos, "4d"), movesFromTo("4d", {"4b", "3e", "5e"}));
  pos.makeMove(pos.parseUsi("4d4b"));
  EXPECT_EQ(tokenAt(pos, "4b"), "P");
  EXPECT_EQ(tokenAt(pos, "4c"), "s");  // the leapt piece stays
  EXPECT_EQ(field(pos.sfen(), 2), "C");
}

// Seed 002: the pheasant may not land on its own piece.
TEST(ToriLeaps, PheasantCannotLandOnOwnPiece) {
  auto v = tori();
  Position pos = Position::fromSfen(v, "1k5/3C3/3s3/3P3/7/7/5K1 b - 1");
  EXPECT_EQ(boardMovesFrom(pos, "4d"), movesFromTo("4d", {"3e", "5e"}));
}

// Seed 002: gote's pheasant leaps too (over a sente swallow on 4e to 4f).
TEST(ToriLeaps, GotePheasantLeaps) {
  auto v = tori();
  Position pos = Position::fromSfen(v, "1k5/7/7/3p3/3S3/7/5K1 w - 1");
  EXPECT_EQ(boardMovesFrom(pos, "4d"), movesFromTo("4d", {"4f", "3c", "5c"}));
}

// Seed 002: goose "leaping the intervening square" -- pieces on 3c, 5c and 4e (own and enemy)
// do not stop 2b, 6b, 4f.
TEST(ToriLeaps, GooseLeapsOverOccupiedSquares) {
  auto v = tori();
  Position pos = Position::fromSfen(v, "1k5/7/2s1C2/3+S3/3C3/7/5K1 b - 1");
  EXPECT_EQ(boardMovesFrom(pos, "4d"), movesFromTo("4d", {"2b", "6b", "4f"}));
}

// Seed 002: the goose captures an enemy on its landing square but not its own piece.
TEST(ToriLeaps, GooseLandingSquares) {
  auto v = tori();
  Position pos = Position::fromSfen(v, "1k5/1p3C1/7/3+S3/7/7/5K1 b - 1");
  EXPECT_EQ(boardMovesFrom(pos, "4d"), movesFromTo("4d", {"6b", "4f"}));
  pos.makeMove(pos.parseUsi("4d6b"));
  EXPECT_EQ(tokenAt(pos, "6b"), "+S");
  EXPECT_EQ(field(pos.sfen(), 2), "P");
}

// Seed 002: the quail moves "any number of squares" -- a slide stops before an own piece and on
// an enemy piece. Right quail on 4d: enemy swallow on 4b, own crane on 6f.
TEST(ToriBlocking, RightQuailSlidesAreBlocked) {
  auto v = tori();
  Position pos = Position::fromSfen(v, "1k5/3s3/7/3R3/7/1C5/5K1 b - 1");
  EXPECT_EQ(boardMovesFrom(pos, "4d"), movesFromTo("4d", {"4c", "4b", "5e", "3e"}));
}

// Same for the left quail: own crane on 4c stops the forward slide completely; an enemy pheasant
// on 2f is taken and ends the back-right slide (1g unreachable).
TEST(ToriBlocking, LeftQuailSlidesAreBlocked) {
  auto v = tori();
  Position pos = Position::fromSfen(v, "1k5/7/3C3/3L3/7/5p1/5K1 b - 1");
  EXPECT_EQ(boardMovesFrom(pos, "4d"), movesFromTo("4d", {"3e", "2f", "5e"}));
}

// Seed 002, eagle: the diagonal-forward and straight-back slides are blocked by pieces, and the
// "one or two squares diagonally backwards (no leap)" step cannot pass an occupied first square.
// Own cranes on 2b, 4f, 3e; enemy swallow on 5c, enemy crane on 5e.
TEST(ToriBlocking, EagleSlidesAndTwoStepAreBlocked) {
  auto v = tori();
  Position pos = Position::fromSfen(v, "1k5/5C1/2s4/3+F3/2c1C2/3C3/5K1 b - 1");
  EXPECT_EQ(boardMovesFrom(pos, "4d"), movesFromTo("4d", {"3c", "5c", "4c", "3d", "5d", "4e", "5e"}));
}

// Seed 002, eagle "one or two squares diagonally backwards": with the first square empty the
// second is reachable if empty or enemy, not if it holds an own piece.
TEST(ToriBlocking, EagleTwoStepDiagonalBackEndpoints) {
  auto v = tori();
  // Own crane on 6f, enemy pheasant on 2f (it does not attack sente's phoenix on 2g).
  Position pos = Position::fromSfen(v, "1k5/7/7/3+F3/7/1C3p1/5K1 b - 1");
  const auto moves = boardMovesFrom(pos, "4d");
  EXPECT_TRUE(moves.count("4d5e"));
  EXPECT_FALSE(moves.count("4d6f"));
  EXPECT_TRUE(moves.count("4d3e"));
  EXPECT_TRUE(moves.count("4d2f"));
  // Never further than two squares diagonally back (7g is three away).
  EXPECT_FALSE(moves.count("4d7g"));
}

// ---------------------------------------------------------------------------------------------
// 4. Compulsory promotion of falcon and swallow (seed 002: "Falcon and swallow promote if they
//    move wholly or partly within the opponent's first two ranks. Promotion is compulsory.").
//    Sente's zone is ranks a and b, gote's ranks f and g. Phoenixes on 7d and 1d stay clear.
// ---------------------------------------------------------------------------------------------

// Into the zone (rank c -> rank b) promotes; moves staying outside (rank c/d) do not.
TEST(ToriPromotion, FalconIntoZoneMustPromote) {
  auto v = tori();
  Position pos = Position::fromSfen(v, "7/7/3F3/k5K/7/7/7 b - 1");
  EXPECT_EQ(boardMovesFrom(pos, "4c"),
            movesFromTo("4c", {"3b+", "4b+", "5b+", "3c", "5c", "3d", "5d"}));
  const auto into = movesBetween(pos, "4c", "4b");
  ASSERT_EQ(into.size(), 1u);
  EXPECT_TRUE(into[0].isFlip());
  pos.makeMove(pos.parseUsi("4c4b+"));
  EXPECT_EQ(tokenAt(pos, "4b"), "+F");
}

// Within the zone (rank b -> rank a or b) and out of it (rank b -> rank c): "wholly or partly
// within" -- every move of a falcon on rank b promotes.
TEST(ToriPromotion, FalconWithinAndOutOfZoneMustPromote) {
  auto v = tori();
  Position pos = Position::fromSfen(v, "7/3F3/7/k5K/7/7/7 b - 1");
  EXPECT_EQ(boardMovesFrom(pos, "4b"),
            movesFromTo("4b", {"3a+", "4a+", "5a+", "3b+", "5b+", "3c+", "5c+"}));
  pos.makeMove(pos.parseUsi("4b3c+"));
  EXPECT_EQ(tokenAt(pos, "3c"), "+F");
}

// A capture into the zone promotes too.
TEST(ToriPromotion, FalconCapturingIntoZoneMustPromote) {
  auto v = tori();
  Position pos = Position::fromSfen(v, "7/3s3/3F3/k5K/7/7/7 b - 1");
  EXPECT_TRUE(hasLegal(pos, "4c4b+"));
  EXPECT_FALSE(hasLegal(pos, "4c4b"));
}

// Swallow into the zone (4c-4b) and within it (2b-2a): only the '+' form.
TEST(ToriPromotion, SwallowIntoAndWithinZoneMustPromote) {
  auto v = tori();
  Position pos = Position::fromSfen(v, "7/5S1/3S3/k5K/7/7/7 b - 1");
  EXPECT_EQ(boardMovesFrom(pos, "4c"), movesFromTo("4c", {"4b+"}));
  EXPECT_EQ(boardMovesFrom(pos, "2b"), movesFromTo("2b", {"2a+"}));
  pos.makeMove(pos.parseUsi("2b2a+"));
  EXPECT_EQ(tokenAt(pos, "2a"), "+S");
}

// Gote's zone is ranks f and g: into (4e-4f), within (2f-2g) for the swallow.
TEST(ToriPromotion, GoteSwallowMustPromote) {
  auto v = tori();
  Position pos = Position::fromSfen(v, "7/7/7/k5K/3s3/5s1/7 w - 1");
  EXPECT_EQ(boardMovesFrom(pos, "4e"), movesFromTo("4e", {"4f+"}));
  EXPECT_EQ(boardMovesFrom(pos, "2f"), movesFromTo("2f", {"2g+"}));
}

// Gote's falcon: from rank e into rank f promotes, sideways/back staying outside does not.
TEST(ToriPromotion, GoteFalconIntoZoneMustPromote) {
  auto v = tori();
  Position pos = Position::fromSfen(v, "7/7/7/k5K/3f3/7/7 w - 1");
  EXPECT_EQ(boardMovesFrom(pos, "4e"),
            movesFromTo("4e", {"3f+", "4f+", "5f+", "3e", "5e", "3d", "5d"}));
}

// Gote's falcon on rank f: within (to rank g or sideways) and out of the zone (diagonally back to
// rank e) all promote.
TEST(ToriPromotion, GoteFalconWithinAndOutOfZoneMustPromote) {
  auto v = tori();
  Position pos = Position::fromSfen(v, "7/7/7/k5K/7/3f3/7 w - 1");
  EXPECT_EQ(boardMovesFrom(pos, "4f"),
            movesFromTo("4f", {"3g+", "4g+", "5g+", "3f+", "5f+", "3e+", "5e+"}));
  pos.makeMove(pos.parseUsi("4f5e+"));
  EXPECT_EQ(tokenAt(pos, "5e"), "+f");
}

// Seed 002: only "Falcon and swallow promote" -- crane, pheasant and quail entering the zone have
// no '+' form.
TEST(ToriPromotion, OtherPiecesNeverPromote) {
  auto v = tori();
  Position pos = Position::fromSfen(v, "k6/7/1L1C3/5P1/7/7/6K b - 1");
  EXPECT_TRUE(hasLegal(pos, "4c4b"));
  EXPECT_TRUE(hasLegal(pos, "2d2b"));
  EXPECT_TRUE(hasLegal(pos, "6c6a"));
  for (const auto& m : legalUsi(pos)) EXPECT_NE(m.back(), '+') << m;
}

// Eagle and goose are already promoted: moving in the zone neither promotes again nor turns back.
TEST(ToriPromotion, PromotedPiecesDoNotFlipAgain) {
  auto v = tori();
  Position pos = Position::fromSfen(v, "7/3+F3/5+S1/k5K/7/7/7 b - 1");
  const auto m = movesBetween(pos, "4b", "4a");
  ASSERT_EQ(m.size(), 1u);
  EXPECT_FALSE(m[0].isFlip());
  for (const auto& u : legalUsi(pos)) {
    EXPECT_NE(u.back(), '+') << u;
    EXPECT_NE(u.back(), '-') << u;
  }
  EXPECT_TRUE(hasLegal(pos, "2c2e"));  // goose: two straight back, still no suffix
}

// ---------------------------------------------------------------------------------------------
// 5. Drops (seed 002: "Tori Shogi is played with drops according to normal shogi rules. A
//    swallow cannot be dropped (1) to give checkmate, nor (2) on the end rank, nor (3) on a file
//    on which a player has two unpromoted swallows.").
// ---------------------------------------------------------------------------------------------

// Rule (2): not on the end rank. 49 squares - 2 phoenixes = 47 empty, minus the 6 empty squares
// of rank a = 41 swallow drops; rank b is fine.
TEST(ToriDrop, SwallowNotOnLastRank) {
  auto v = tori();
  Position pos = Position::fromSfen(v, "1k5/7/7/7/7/7/5K1 b S 1");
  for (const char* s : {"7a", "5a", "4a", "3a", "2a", "1a"}) {
    EXPECT_FALSE(hasLegal(pos, std::string("S*") + s)) << s;
    EXPECT_THROW(pos.parseUsi(std::string("S*") + s), MoveError) << s;
  }
  for (const char* s : {"7b", "6b", "5b", "4b", "3b", "2b", "1b"})
    EXPECT_TRUE(hasLegal(pos, std::string("S*") + s)) << s;
  EXPECT_EQ(dropsOf(pos, "S").size(), 41u);
}

// Rule (2) for gote: its end rank is rank g (2g holds sente's phoenix, 6 squares empty).
TEST(ToriDrop, GoteSwallowNotOnLastRank) {
  auto v = tori();
  Position pos = Position::fromSfen(v, "1k5/7/7/7/7/7/5K1 w s 1");
  for (const char* s : {"7g", "6g", "5g", "4g", "3g", "1g"})
    EXPECT_FALSE(hasLegal(pos, std::string("S*") + s)) << s;
  EXPECT_TRUE(hasLegal(pos, "S*4f"));
  EXPECT_EQ(dropsOf(pos, "S").size(), 41u);
}

// Rule (1): no swallow drop giving checkmate. Gote's phoenix on 4a between its swallows on 3a
// and 5a (which cannot take on 4b); sente's crane on 4c guards 3b, 4b and 5b. S*4b would mate.
TEST(ToriDrop, SwallowDropMateRefused) {
  auto v = tori();
  Position pos = Position::fromSfen(v, "2sks2/7/3C3/7/7/7/3K3 b S 1");
  EXPECT_FALSE(hasLegal(pos, "S*4b"));
  EXPECT_THROW(pos.parseUsi("S*4b"), MoveError);
  EXPECT_TRUE(hasLegal(pos, "S*4d"));  // other swallow drops stay legal
  EXPECT_TRUE(hasLegal(pos, "S*3b"));
}

// Rule (1) forbids only checkmate: the same protected swallow check is legal when the phoenix can
// flee (5a is empty and unguarded here).
TEST(ToriDrop, SwallowDropCheckWithoutMateAllowed) {
  auto v = tori();
  Position pos = Position::fromSfen(v, "3ks2/7/3C3/7/7/7/3K3 b S 1");
  ASSERT_TRUE(hasLegal(pos, "S*4b"));
  pos.makeMove(pos.parseUsi("S*4b"));
  EXPECT_TRUE(pos.inCheck());
  EXPECT_EQ(pos.outcome().reason, EndReason::kNone);
  EXPECT_TRUE(hasLegal(pos, "4a5a"));
  EXPECT_FALSE(hasLegal(pos, "4a4b"));  // the swallow is guarded by the crane
}

// Rule (1) names the swallow only: a crane dropped to give the same mate is legal and wins.
TEST(ToriDrop, CraneDropMateAllowed) {
  auto v = tori();
  Position pos = Position::fromSfen(v, "2sks2/7/3C3/7/7/7/3K3 b C 1");
  ASSERT_TRUE(hasLegal(pos, "C*4b"));
  pos.makeMove(pos.parseUsi("C*4b"));
  EXPECT_TRUE(pos.inCheck());
  const Outcome o = pos.outcome();
  EXPECT_EQ(o.reason, EndReason::kNoLegalMove);
  EXPECT_EQ(o.winner, 0);
}

// Rule (1) forbids a drop "to give checkmate"; a swallow drop that gives no check is allowed even
// when it leaves the opponent without a legal move (stalemate, which loses per docs/RULES.md).
// Gote's phoenix 1a: 1b and 2b are guarded by sente's crane on 1c; S*2b (guarded by the crane)
// covers the last flight square 2a without attacking 1a.
TEST(ToriDrop, SwallowDropStalemateIsNotCheckmate) {
  auto v = tori();
  Position pos = Position::fromSfen(v, "6k/7/6C/7/7/7/K6 b S 1");
  ASSERT_TRUE(hasLegal(pos, "S*2b"));
  pos.makeMove(pos.parseUsi("S*2b"));
  EXPECT_FALSE(pos.inCheck());
  EXPECT_FALSE(pos.hasLegalMove());
  const Outcome o = pos.outcome();
  EXPECT_EQ(o.reason, EndReason::kNoLegalMove);
  EXPECT_EQ(o.winner, 0);
}

// Rule (3): a file with two of one's unpromoted swallows takes no third one (file 4 here:
// 4a..4d and 4g are empty, all refused); other files are fine.
TEST(ToriDrop, NoSwallowDropOnFileWithTwoOwnSwallows) {
  auto v = tori();
  Position pos = Position::fromSfen(v, "1k5/7/7/7/3S3/3S3/5K1 b S 1");
  for (const char* s : {"4b", "4c", "4d", "4g"}) {
    EXPECT_FALSE(hasLegal(pos, std::string("S*") + s)) << s;
    EXPECT_THROW(pos.parseUsi(std::string("S*") + s), MoveError) << s;
  }
  EXPECT_TRUE(hasLegal(pos, "S*3d"));
  EXPECT_TRUE(hasLegal(pos, "S*5d"));
}

// Rule (3): one swallow on the file is fine (a second one may join it).
TEST(ToriDrop, SwallowDropOnFileWithOneOwnSwallowAllowed) {
  auto v = tori();
  Position pos = Position::fromSfen(v, "1k5/7/7/7/3S3/7/5K1 b S 1");
  EXPECT_TRUE(hasLegal(pos, "S*4c"));
  EXPECT_TRUE(hasLegal(pos, "S*4f"));
}

// Rule (3) counts "unpromoted swallows": a goose plus one swallow on the file does not block.
TEST(ToriDrop, GooseDoesNotCountForSwallowFileLimit) {
  auto v = tori();
  Position pos = Position::fromSfen(v, "1k5/7/7/7/3S3/3+S3/5K1 b S 1");
  EXPECT_TRUE(hasLegal(pos, "S*4c"));
}

// Rule (3): "a player has two" -- the dropping player's own swallows; the opponent's two
// swallows on file 4 do not stop sente, but they do stop gote.
TEST(ToriDrop, OpponentSwallowsDoNotCountForFileLimit) {
  auto v = tori();
  Position sente = Position::fromSfen(v, "1k5/7/3s3/3s3/7/7/5K1 b S 1");
  EXPECT_TRUE(hasLegal(sente, "S*4f"));
  Position gote = Position::fromSfen(v, "1k5/7/3s3/3s3/7/7/5K1 w s 1");
  EXPECT_FALSE(hasLegal(gote, "S*4b"));
  EXPECT_FALSE(hasLegal(gote, "S*4f"));
  EXPECT_TRUE(hasLegal(gote, "S*3f"));
}

// "Drops according to normal shogi rules": any other piece may go on any empty square,
// the far ranks included (47 empty squares each); a drop is the unpromoted face.
TEST(ToriDrop, OtherPiecesDropAnywhereEmptyUnpromoted) {
  auto v = tori();
  Position pos = Position::fromSfen(v, "1k5/7/7/7/7/7/5K1 b FCPLR 1");
  for (const char* t : {"F", "C", "P", "L", "R"}) {
    EXPECT_EQ(dropsOf(pos, t).size(), 47u) << t;
    EXPECT_TRUE(hasLegal(pos, std::string(t) + "*4a")) << t;
    EXPECT_TRUE(hasLegal(pos, std::string(t) + "*1a")) << t;
    EXPECT_FALSE(hasLegal(pos, std::string(t) + "*6a")) << t;  // occupied
  }
  for (const auto& m : legalUsi(pos)) EXPECT_NE(m[0], '+') << m;
  EXPECT_THROW(pos.parseUsi("+F*4d"), MoveError);
}

// A falcon dropped inside the zone is a falcon; its next move there must promote.
TEST(ToriDrop, FalconDroppedInZoneIsUnpromotedAndPromotesOnMoving) {
  auto v = tori();
  Position pos = Position::fromSfen(v, "k6/7/7/7/7/7/6K b F 1");
  pos.makeMove(pos.parseUsi("F*4b"));
  EXPECT_EQ(tokenAt(pos, "4b"), "F");
  play(pos, {"7a7b"});
  EXPECT_TRUE(hasLegal(pos, "4b4a+"));
  EXPECT_FALSE(hasLegal(pos, "4b4a"));
}

// Swallow drops are the swallow face, never the goose.
TEST(ToriDrop, SwallowDropsAreUnpromoted) {
  auto v = tori();
  Position pos = Position::fromSfen(v, "1k5/7/7/7/7/7/5K1 b S 1");
  for (const auto& m : legalUsi(pos)) EXPECT_NE(m[0], '+') << m;
  EXPECT_THROW(pos.parseUsi("+S*4d"), MoveError);
}

// ---------------------------------------------------------------------------------------------
// 6. Captures go to hand unpromoted ("drops according to normal shogi rules").
// ---------------------------------------------------------------------------------------------

// A captured eagle goes to hand as a falcon and is dropped as a falcon.
TEST(ToriCapture, CapturedEagleIsFalconInHand) {
  auto v = tori();
  Position pos = Position::fromSfen(v, "1k5/7/3+f3/3C3/7/7/5K1 b - 1");
  pos.makeMove(pos.parseUsi("4d4c"));
  EXPECT_EQ(tokenAt(pos, "4c"), "C");
  EXPECT_EQ(field(pos.sfen(), 2), "F");
  play(pos, {"6a7a"});
  EXPECT_TRUE(hasLegal(pos, "F*4e"));
  EXPECT_FALSE(hasLegal(pos, "+F*4e"));
  EXPECT_THROW(pos.parseUsi("+F*4e"), MoveError);
}

// A captured goose goes to hand as a swallow.
TEST(ToriCapture, CapturedGooseIsSwallowInHand) {
  auto v = tori();
  Position pos = Position::fromSfen(v, "1k5/7/3+s3/3C3/7/7/5K1 b - 1");
  pos.makeMove(pos.parseUsi("4d4c"));
  EXPECT_EQ(field(pos.sfen(), 2), "S");
}

// Gote capturing sente's eagle gets a falcon (lower case in the SFEN hand).
TEST(ToriCapture, GoteCapturedEagleIsFalconInHand) {
  auto v = tori();
  Position pos = Position::fromSfen(v, "1k5/7/7/3c3/3+F3/7/5K1 w - 1");
  pos.makeMove(pos.parseUsi("4d4e"));
  EXPECT_EQ(tokenAt(pos, "4e"), "c");
  EXPECT_EQ(field(pos.sfen(), 2), "f");
}

// ---------------------------------------------------------------------------------------------
// 7. Repetition. Seed 002: "Where the same position is repeated three times (same pieces in
//    hand, same turn to play) the player starting the sequence must vary." tori.yaml reads this
//    as: the player whose move completes the threefold repetition loses.
// ---------------------------------------------------------------------------------------------

// Sente starts the cycle; gote's 8th move makes the start position occur a third time -> gote
// loses. Before that (second occurrence) the game goes on.
TEST(ToriRepetition, ThirdOccurrenceLosesForTheMoverGote) {
  auto v = tori();
  Position pos = Position::fromSfen(v, "1k5/7/7/7/7/7/5K1 b - 1");
  const std::vector<std::string> cycle = {"2g2f", "6a6b", "2f2g", "6b6a"};
  play(pos, cycle);
  EXPECT_EQ(pos.repetitionsSoFar(), 1);
  EXPECT_EQ(pos.outcome().reason, EndReason::kNone) << "second occurrence";
  play(pos, {"2g2f", "6a6b", "2f2g"});
  EXPECT_EQ(pos.outcome().reason, EndReason::kNone);
  play(pos, {"6b6a"});
  EXPECT_EQ(pos.repetitionsSoFar(), 2);
  const Outcome o = pos.outcome();
  EXPECT_EQ(o.reason, EndReason::kRepetition);
  EXPECT_EQ(o.winner, 0);
}

// The same with gote starting: sente's move completes the third occurrence -> sente loses.
TEST(ToriRepetition, ThirdOccurrenceLosesForTheMoverSente) {
  auto v = tori();
  Position pos = Position::fromSfen(v, "1k5/7/7/7/7/7/5K1 w - 1");
  const std::vector<std::string> cycle = {"6a6b", "2g2f", "6b6a", "2f2g"};
  play(pos, cycle);
  EXPECT_EQ(pos.outcome().reason, EndReason::kNone);
  play(pos, cycle);
  const Outcome o = pos.outcome();
  EXPECT_EQ(o.reason, EndReason::kRepetition);
  EXPECT_EQ(o.winner, 1);
}

// docs/RULES.md ("Perpetual check is forbidden") with tori.yaml's perpetual_check: loses.
// Sente's eagle checks on every one of its moves (3d-3c along the diagonal to 1a, 3c-3d to 1b);
// gote's phoenix completes the third occurrence, but the perpetual checker loses.
TEST(ToriRepetition, PerpetualCheckLosesForTheChecker) {
  auto v = tori();
  Position pos = Position::fromSfen(v, "6k/7/7/4+F2/7/7/K6 b - 1");
  const std::vector<std::string> cycle = {"3d3c", "1a1b", "3c3d", "1b1a"};
  play(pos, {"3d3c"});
  ASSERT_TRUE(pos.inCheck());
  play(pos, {"1a1b", "3c3d"});
  ASSERT_TRUE(pos.inCheck());
  play(pos, {"1b1a"});
  play(pos, cycle);
  const Outcome o = pos.outcome();
  EXPECT_EQ(o.reason, EndReason::kPerpetualCheck);
  EXPECT_EQ(o.winner, 1);
}
