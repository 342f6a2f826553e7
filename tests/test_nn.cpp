// nn/: the Encoder (planes from the side to move's view, the policy index space of every
// variant), model files (round trip, every kind of damage refused with a ModelError naming the
// file, atomic writes) and the TorchEvaluator (well-formed outputs, batching changes nothing,
// device names).
#include <gtest/gtest.h>
#include <torch/torch.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <set>
#include <vector>

#include "game/position.h"
#include "game/rules_fingerprint.h"
#include "game/variant_loader.h"
#include "nn/compute_threads.h"
#include "nn/encoder.h"
#include "nn/model_file.h"
#include "nn/network.h"
#include "nn/torch_evaluator.h"
#include "support/micro_net.h"
#include "support/random_positions.h"
#include "support/scratch_files.h"
#include "support/variants.h"

using namespace poppy;
namespace fs = std::filesystem;

namespace {

const std::string kScratch = "poppy_test_nn_";
[[maybe_unused]] ::testing::Environment* const kScratchCleanup = poppy::testing::removeScratchRootAtExit(kScratch);
fs::path freshTempDir(const std::string& name) { return poppy::testing::freshTempDir(kScratch, name); }
using poppy::testing::slurp;
using poppy::testing::spit;

// ---------------------------------------------------------------------------------------------
// Helpers




std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : s) {
    if (c == sep) {
      out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  out.push_back(cur);
  return out;
}

char swapCase(char c) {
  if (std::isupper(static_cast<unsigned char>(c))) return char(std::tolower(static_cast<unsigned char>(c)));
  if (std::islower(static_cast<unsigned char>(c))) return char(std::toupper(static_cast<unsigned char>(c)));
  return c;
}

// The colour-flipped mirror of an SFEN, built by hand: the board turned 180 degrees with every
// piece changing owner (case swapped), the two hands swapped, the other side to move (and under
// check counting, miburi, the two counts of the fifth field swapped).
std::string mirrorSfen(const std::string& sfen, int files) {
  std::istringstream in(sfen);
  std::string board, side, hand, number, checks;
  in >> board >> side >> hand >> number >> checks;
  if (!checks.empty()) {
    const size_t plus = checks.find('+');
    checks = " " + checks.substr(plus + 1) + "+" + checks.substr(0, plus);
  }
  // Board rows -> grid of tokens ("" empty, "P", "+p", ...).
  std::vector<std::vector<std::string>> grid;
  for (const std::string& row : split(board, '/')) {
    std::vector<std::string> cells;
    for (size_t i = 0; i < row.size(); ++i) {
      if (std::isdigit(static_cast<unsigned char>(row[i]))) {
        int n = 0;
        while (i < row.size() && std::isdigit(static_cast<unsigned char>(row[i]))) n = n * 10 + (row[i++] - '0');
        --i;
        for (int k = 0; k < n; ++k) cells.push_back("");
      } else if (row[i] == '+') {
        cells.push_back(std::string("+") + swapCase(row[i + 1]));
        ++i;
      } else {
        cells.push_back(std::string(1, swapCase(row[i])));
      }
    }
    EXPECT_EQ(int(cells.size()), files) << sfen;
    std::reverse(cells.begin(), cells.end());
    grid.push_back(cells);
  }
  std::reverse(grid.begin(), grid.end());
  std::string outBoard;
  for (size_t r = 0; r < grid.size(); ++r) {
    if (r) outBoard += '/';
    int empty = 0;
    for (const std::string& cell : grid[r]) {
      if (cell.empty()) {
        ++empty;
        continue;
      }
      if (empty) outBoard += std::to_string(empty);
      empty = 0;
      outBoard += cell;
    }
    if (empty) outBoard += std::to_string(empty);
  }
  std::string outHand;
  if (hand == "-") {
    outHand = "-";
  } else {
    for (char c : hand) outHand += swapCase(c);
  }
  return outBoard + " " + (side == "b" ? "w" : "b") + " " + outHand + " " + number + checks;
}

// What Encoder::encode must produce, written from the documented plane order in encoder.h.
std::vector<float> referencePlanes(const nn::Encoder& enc, const game::Position& pos) {
  const game::Variant& v = enc.variant();
  const int n = v.numSquares();
  const int faces = int(v.faces.size());
  const int kinds = int(v.handKinds.size());
  const game::Color us = pos.sideToMove();
  std::vector<float> out(size_t(enc.inputSize()), 0.0f);
  auto view = [&](game::Square s) { return us == 0 ? s : n - 1 - s; };
  for (game::Square s = 0; s < n; ++s) {
    const game::Piece p = pos.at(s);
    if (!p) continue;
    const int plane = (game::colorOf(p) == us ? 0 : faces) + game::faceOf(p);
    out[size_t(plane * n + view(s))] = 1.0f;
  }
  auto fill = [&](int plane, float value) {
    for (int s = 0; s < n; ++s) out[size_t(plane * n + s)] = value;
  };
  for (int k = 0; k < kinds; ++k) {
    fill(2 * faces + k, pos.handCount(us, k) / 8.0f);
    fill(2 * faces + kinds + k, pos.handCount(1 - us, k) / 8.0f);
  }
  fill(2 * faces + 2 * kinds, std::min(pos.repetitionsSoFar(), 3) / 3.0f);
  fill(2 * faces + 2 * kinds + 1, us == 0 ? 0.0f : 1.0f);
  fill(2 * faces + 2 * kinds + 2, 1.0f);
  if (v.checksToWin) {
    fill(2 * faces + 2 * kinds + 3, float(pos.checksGiven(us)) / float(v.checksToWin));
    fill(2 * faces + 2 * kinds + 4, float(pos.checksGiven(1 - us)) / float(v.checksToWin));
  }
  return out;
}

// The seven, chu, yari, whale, mitsugumi, the seed's later games and the test boards of mitsugumi's powers.
const char* const kVariants[] = {"micro", "minishogi", "kyoto", "judkins", "gorogoro", "tori", "shogi", "chu", "yari", "whale",
                                 "mitsugumi", "small", "quasi", "cubic", "cubic8", "cannon", "miburi", "annan", "unashogi", "hand", "tests/data/fire_demon.yaml",
                                 "tests/data/tetrarch.yaml"};

// ---------------------------------------------------------------------------------------------
// Encoder: the policy index space

class EncoderEveryVariant : public ::testing::TestWithParam<const char*> {};

TEST_P(EncoderEveryVariant, EveryLegalMoveHasItsOwnIndexAndMapsBack) {
  const game::VariantPtr v = game::loadVariant(GetParam());
  const nn::Encoder enc(v);
  ASSERT_GT(enc.policySize(), 0);
  const auto sfens = poppy::testing::randomPositions(v, 250, 80, 12345);
  ASSERT_GE(sfens.size(), 200u);
  std::vector<int> owner(size_t(enc.policySize()), -1);
  game::MoveList moves;
  int64_t checkedMoves = 0;
  int positionsWithDrops = 0, positionsWithGote = 0;
  for (size_t i = 0; i < sfens.size(); ++i) {
    const game::Position pos = game::Position::fromSfen(v, sfens[i]);
    pos.generateLegal(moves);
    std::fill(owner.begin(), owner.end(), -1);
    bool drops = false;
    for (int j = 0; j < moves.size(); ++j) {
      const game::Move m = moves[j];
      drops |= m.isDrop();
      const int index = enc.moveIndex(pos, m);
      ASSERT_GE(index, 0) << sfens[i] << " move " << pos.moveToUsi(m);
      ASSERT_LT(index, enc.policySize()) << sfens[i] << " move " << pos.moveToUsi(m);
      ASSERT_EQ(owner[size_t(index)], -1) << sfens[i] << ": moves " << pos.moveToUsi(moves[owner[size_t(index)]])
                                          << " and " << pos.moveToUsi(m) << " share policy index " << index;
      owner[size_t(index)] = j;
      const game::Move back = enc.indexToMove(pos, index);
      ASSERT_TRUE(back == m) << sfens[i] << ": index " << index << " of " << pos.moveToUsi(m)
                             << " maps back to another move";
      ASSERT_TRUE(pos.isLegal(back)) << sfens[i] << " index " << index;
      ++checkedMoves;
    }
    positionsWithDrops += drops;
    positionsWithGote += pos.sideToMove() == 1;
  }
  EXPECT_GT(checkedMoves, 1000);
  // The sample must exercise both sides (the rotated view) and, where the variant has drops, drops.
  EXPECT_GT(positionsWithGote, 50);
  if (v->dropsEnabled) {
    EXPECT_GT(positionsWithDrops, 20);
  }
}

TEST_P(EncoderEveryVariant, PlanesFollowTheDocumentedLayout) {
  const game::VariantPtr v = game::loadVariant(GetParam());
  const nn::Encoder enc(v);
  EXPECT_EQ(enc.planes(), 2 * int(v->faces.size()) + 2 * int(v->handKinds.size()) + 3 + (v->checksToWin ? 2 : 0));
  EXPECT_EQ(enc.inputSize(), enc.planes() * v->ranks * v->files);
  const auto sfens = poppy::testing::randomPositions(v, 200, 80, 777);
  std::vector<float> planes(size_t(enc.inputSize()));
  for (const std::string& sfen : sfens) {
    const game::Position pos = game::Position::fromSfen(v, sfen);
    std::fill(planes.begin(), planes.end(), -7.0f);  // encode must overwrite everything
    enc.encode(pos, planes.data());
    const std::vector<float> want = referencePlanes(enc, pos);
    for (size_t k = 0; k < want.size(); ++k)
      ASSERT_EQ(planes[k], want[k]) << sfen << ": plane " << k / size_t(v->numSquares()) << " square "
                                    << k % size_t(v->numSquares());
  }
}

INSTANTIATE_TEST_SUITE_P(Variants, EncoderEveryVariant, ::testing::ValuesIn(kVariants));

// Yonin (four players): positions from random games, stopped where the game ends, with each
// seat to move.
std::vector<game::Position> yoninPositions(int count, uint32_t seed) {
  const game::VariantPtr v = game::loadVariant("yonin");
  std::mt19937 rng(seed);
  std::vector<game::Position> out;
  game::MoveList moves;
  for (int i = 0; i < count; ++i) {
    game::Position pos(v);
    const int plies = int(rng() % 240);
    for (int p = 0; p < plies && !pos.outcome().over(); ++p) {
      pos.generateLegal(moves);
      pos.makeMove(moves[int(rng() % unsigned(moves.size()))]);
    }
    out.push_back(pos);
  }
  return out;
}

// Four players: the bijection above, with every seat to move (so every turn of the board).
TEST(Encoder, YoninEveryLegalMoveHasItsOwnIndexFromEverySeat) {
  const game::VariantPtr v = game::loadVariant("yonin");
  const nn::Encoder enc(v);
  EXPECT_EQ(enc.policyPlanes(), 0);
  EXPECT_EQ(enc.policySize(), 2 * 81 * 81 + int(v->faces.size()) * 81);
  int seats[4] = {}, drops = 0, takenOver = 0;
  int64_t checked = 0;
  for (const game::Position& pos : yoninPositions(400, 99)) {
    game::MoveList moves;
    pos.generateLegal(moves);
    std::set<int> seen;
    for (const game::Move& m : moves) {
      const int index = enc.moveIndex(pos, m);
      ASSERT_GE(index, 0);
      ASSERT_LT(index, enc.policySize());
      ASSERT_TRUE(seen.insert(index).second) << pos.sfen() << " " << pos.moveToUsi(m);
      ASSERT_TRUE(enc.indexToMove(pos, index) == m) << pos.sfen() << " " << pos.moveToUsi(m);
      drops += m.isDrop();
      ++checked;
    }
    ++seats[pos.sideToMove()];
    takenOver += pos.armiesOf(pos.sideToMove()) > 1;
  }
  for (int s = 0; s < 4; ++s) EXPECT_GT(seats[s], 40) << "seat " << s;
  EXPECT_GT(drops, 500);
  EXPECT_GT(takenOver, 10);
  EXPECT_GT(checked, 10000);
}

// The mover plays up: in the mover's view every step forward of its own pawn goes one square up
// the same file, whichever seat moves (west's pawns move towards file 1 on the board).
TEST(Encoder, YoninTurnsTheBoardSoTheMoverPlaysUp) {
  const game::VariantPtr v = game::loadVariant("yonin");
  const nn::Encoder enc(v);
  const int n = v->numSquares(), pawn = v->faceIndex('P', false);
  int seen[4] = {};
  for (const game::Position& pos : yoninPositions(300, 5)) {
    game::MoveList moves;
    pos.generateLegal(moves);
    for (const game::Move& m : moves) {
      if (m.isDrop() || m.isFlip() || pos.at(m.from) != game::makePiece(pos.sideToMove(), pawn)) continue;
      const int index = enc.moveIndex(pos, m), from = (index / 2) / n, to = (index / 2) % n;
      ASSERT_EQ(to, from - v->files) << pos.sfen() << " " << pos.moveToUsi(m);
      ++seen[pos.sideToMove()];
    }
  }
  for (int s = 0; s < 4; ++s) EXPECT_GT(seen[s], 20) << "seat " << s;
}

// The planes of encoder.h's four-player layout, written out for one position by hand: west to
// move, south's army taken over by west (south's king turned on 5i), west holding a pawn.
TEST(Encoder, YoninPlanesFollowTheDocumentedLayout) {
  const game::VariantPtr v = game::loadVariant("yonin");
  const nn::Encoder enc(v);
  const int faces = int(v->faces.size()), kinds = int(v->handKinds.size()), per = faces + kinds + 4;
  EXPECT_EQ(enc.planes(), 4 * per + 2);
  const game::Position pos =
      game::Position::fromSfen(v, "4nK4/9/9/wK8/9/7eK1/9/9/4sX3sR w wP 20 wwne");
  std::vector<float> planes(size_t(enc.inputSize()), -7.0f);
  enc.encode(pos, planes.data());
  auto at = [&](int plane, int file, char rank) {  // the view square of a board square (USI)
    // West plays up: the board turned a quarter anticlockwise, so file 9 (west's back edge)
    // is the bottom rank of the view and rank a its left-hand file.
    const int col = 9 - file, row = rank - 'a';
    return planes[size_t(plane * 81 + v->square(row, 8 - col))];
  };
  const int K = v->faceIndex('K', false), R = v->faceIndex('R', false), X = v->turnedKingFace;
  const int P = v->handKindOf('P');
  // West (the mover, place 0): its king on 9d.
  EXPECT_EQ(at(K, 9, 'd'), 1.0f);
  // North (place 1), east (place 2), south (place 3): kings and south's turned king and rook.
  EXPECT_EQ(at(per + K, 5, 'a'), 1.0f);
  EXPECT_EQ(at(2 * per + K, 2, 'f'), 1.0f);
  EXPECT_EQ(at(3 * per + X, 5, 'i'), 1.0f);
  EXPECT_EQ(at(3 * per + R, 1, 'i'), 1.0f);
  float ones = 0;
  for (int p = 0; p < 4 * per; ++p)
    if (p % per < faces)
      for (int s = 0; s < 81; ++s) ones += planes[size_t(p * 81 + s)];
  EXPECT_EQ(ones, 5.0f);  // five pieces, one mark each
  // Hands: west's pawn, 1/8 over its whole plane.
  EXPECT_EQ(at(faces + P, 1, 'a'), 1.0f / 8);
  EXPECT_EQ(at(faces + P, 9, 'i'), 1.0f / 8);
  EXPECT_EQ(at(3 * per + faces + P, 5, 'e'), 0.0f);
  // Controllers: west, north, east control themselves (place 0 of their own view: 0, 1, 2);
  // south's army is west's, place 0.
  EXPECT_EQ(at(faces + kinds + 0, 5, 'e'), 1.0f);
  EXPECT_EQ(at(per + faces + kinds + 1, 5, 'e'), 1.0f);
  EXPECT_EQ(at(2 * per + faces + kinds + 2, 5, 'e'), 1.0f);
  EXPECT_EQ(at(3 * per + faces + kinds + 0, 5, 'e'), 1.0f);
  EXPECT_EQ(at(3 * per + faces + kinds + 3, 5, 'e'), 0.0f);
  // No repetition yet; the plane of ones.
  EXPECT_EQ(at(4 * per, 5, 'e'), 0.0f);
  EXPECT_EQ(at(4 * per + 1, 3, 'c'), 1.0f);
  for (float x : planes) EXPECT_NE(x, -7.0f);
}

// The dense layout's size, from encoder.h: 2 * squares^2 + faces * squares.
TEST(Encoder, SmallBoardsKeepTheDenseLayout) {
  for (const char* name : {"micro", "minishogi", "shogi", "tori"}) {
    const game::VariantPtr v = game::loadVariant(name);
    const nn::Encoder enc(v);
    const int n = v->numSquares();
    EXPECT_EQ(enc.policyPlanes(), 0) << name;
    EXPECT_EQ(enc.policySize(), 2 * n * n + int(v->faces.size()) * n) << name;
  }
}

// Chu's spatial planes, counted from configs/variants/chu.yaml by hand. Steps without a flip:
// the free king rides every line, 11 squares each way on 12x12 (8 x 11 = 88), and the lion
// adds the 8 knight leaps: 96. Steps with a flip (promotion: the unpromoted faces): rooks,
// bishops and lances give the 88 line squares, nothing flippable leaps like a knight: 88. The
// lion's two-step moves: a first step in 8 directions and a second in 8 (back home included):
// 64; the horned falcon's and soaring eagle's are among them. 96 + 88 + 64 = 248 planes.
TEST(Encoder, ChuUsesTheSpatialLayout) {
  const game::VariantPtr v = game::loadVariant("chu");
  const nn::Encoder enc(v);
  EXPECT_EQ(enc.policyPlanes(), 248);
  EXPECT_EQ(enc.policySize(), 248 * 144);
  // The same kind of move from the same square has one index for either side: gote's view is
  // rotated, so sente's pawn 1i1h and gote's pawn 12d12e are one index.
  const game::Position sente(v);
  game::Position gote(v);
  gote.makeMove(gote.parseUsi("1i1h"));
  EXPECT_EQ(enc.moveIndex(sente, sente.parseUsi("1i1h")), enc.moveIndex(gote, gote.parseUsi("12d12e")));
  // A lion's double step and its igui are their own indices, apart from the plain moves.
  const game::Position lion = game::Position::fromSfen(v, "11k/12/12/12/12/6p5/6N5/12/12/12/12/K11 b - 1");
  const int plain = enc.moveIndex(lion, lion.parseUsi("6g6f"));
  const int igui = enc.moveIndex(lion, lion.parseUsi("6g6f6g"));
  const int onward = enc.moveIndex(lion, lion.parseUsi("6g6f6e"));
  EXPECT_NE(plain, igui);
  EXPECT_NE(igui, onward);
  EXPECT_EQ(plain % 144, igui % 144) << "both read at the lion's square";
}

// The fire demon test board's planes (tests/data/fire_demon.yaml, 7x7, no promotion), counted
// by hand. Steps: the fire demon's area moves reach all 48 squares within three king steps,
// its sideways and diagonal slides add the squares 4-6 away (6 sideways + 12 diagonal): 66;
// the vice general's, king's, gold's and pawn's steps are all among them. Two-leg moves: out to
// a neighbour and back (a turn skip or an igui), 8. Drops: fire demon, vice general, gold,
// pawn: 4. Burns, read at the destination: the start holds 4 fire demons (2 a side; a captured
// one is dropped by its captor, so one side may come to have all 4), each burning one of the 8
// neighbours or two of them (28): 4 x 36 = 144. 66 + 8 + 4 + 144 = 222 planes (a plane per
// (step, neighbours), as before, needed 66 x 36 + 28 = 2,404 for the burns alone).
TEST(Encoder, BurnsAreReadAtTheDestinationPerBurner) {
  const game::VariantPtr v = game::loadVariant("tests/data/fire_demon.yaml");
  const nn::Encoder enc(v);
  EXPECT_EQ(enc.burnSlots(), 4);
  EXPECT_EQ(enc.policyPlanes(), 222);
  // Mitsugumi's start (seed 004's setup, per side): a fire demon, two water buffaloes (which
  // promote to fire demons) and two chariot soldiers (which promote to heavenly tetrarchs,
  // which take two neighbours without moving): 5 a side, 10 slots.
  EXPECT_EQ(nn::Encoder(game::loadVariant("mitsugumi")).burnSlots(), 10);
  // Chu has no burning: no slots.
  EXPECT_EQ(nn::Encoder(game::loadVariant("chu")).burnSlots(), 0);

  // Two burners of sente: the one on the lower square of the mover's board order (rank a
  // first) is slot 0. 7d burns at 6c from 7c; 3f (slot 1) burns at 4e.
  const game::Position pos = game::Position::fromSfen(v, "3k3/7/1p5/Z6/3p3/4Z2/3K3 b - 1");
  const int n = v->numSquares();
  const int first = enc.moveIndex(pos, pos.parseUsi("7d7cx6c"));
  const int second = enc.moveIndex(pos, pos.parseUsi("3f3ex4e"));
  EXPECT_EQ(first % n, v->square(0, 2)) << "read at the destination 7c";
  EXPECT_EQ(second % n, v->square(4, 4)) << "read at the destination 3e";
  EXPECT_NE(first / n, second / n) << "two burners, two planes";
  // Gote's view is rotated: the same burn by gote's fire demon on the mirrored board, from
  // gote's side, is the same index.
  const game::Position mirrored = game::Position::fromSfen(v, "3k3/2z4/3P3/6z/5P1/7/3K3 w - 1");
  EXPECT_EQ(enc.moveIndex(mirrored, mirrored.parseUsi("5b5cx4c")), second);

  // A position set up with more burners than slots (6 sente fire demons) still gives every
  // move an index inside the policy, and the first slots' burns still map back.
  const game::Position crowded = game::Position::fromSfen(v, "3k3/7/p5p/Z1Z1Z1Z/7/1Z3Z1/3K3 b - 1");
  game::MoveList moves;
  crowded.generateLegal(moves);
  int burnsMappedBack = 0;
  for (const game::Move m : moves) {
    const int index = enc.moveIndex(crowded, m);
    ASSERT_GE(index, 0) << crowded.moveToUsi(m);
    ASSERT_LT(index, enc.policySize()) << crowded.moveToUsi(m);
    burnsMappedBack += m.isBurn() && enc.indexToMove(crowded, index) == m;
  }
  EXPECT_GT(burnsMappedBack, 0);
}

TEST(Encoder, IndexOutsideThePolicyIsNoMove) {
  const game::VariantPtr v = game::loadVariant("micro");
  const nn::Encoder enc(v);
  const game::Position pos(v);
  EXPECT_TRUE(enc.indexToMove(pos, -1).isNone());
  EXPECT_TRUE(enc.indexToMove(pos, enc.policySize()).isNone());
}

// ---------------------------------------------------------------------------------------------
// Encoder: the side to move's view

TEST(Encoder, MirroredPositionEncodesLikeTheOriginal) {
  const game::VariantPtr v = game::loadVariant("micro");
  const nn::Encoder enc(v);
  const int n = v->numSquares();
  const int sidePlane = enc.planes() - 2;
  const auto sfens = poppy::testing::randomPositions(v, 300, 60, 4242);
  std::vector<float> a(size_t(enc.inputSize())), b(size_t(enc.inputSize()));
  game::MoveList moves, mirroredMoves;
  int withHands = 0;
  for (const std::string& sfen : sfens) {
    const game::Position pos = game::Position::fromSfen(v, sfen);
    const std::string mirror = mirrorSfen(sfen, v->files);
    const game::Position mir = game::Position::fromSfen(v, mirror);
    ASSERT_NE(pos.sideToMove(), mir.sideToMove());
    ASSERT_EQ(game::Position::fromSfen(v, mirrorSfen(mir.sfen(), v->files)).sfen(), pos.sfen())
        << "the mirror of the mirror is the original";
    withHands += sfen.find(" - ") == std::string::npos;
    enc.encode(pos, a.data());
    enc.encode(mir, b.data());
    // Every plane is the same except the one that says who is to move.
    for (int p = 0; p < enc.planes(); ++p) {
      for (int s = 0; s < n; ++s) {
        const size_t k = size_t(p * n + s);
        if (p == sidePlane) {
          ASSERT_EQ(a[k], pos.sideToMove() == 0 ? 0.0f : 1.0f) << sfen;
          ASSERT_EQ(b[k], mir.sideToMove() == 0 ? 0.0f : 1.0f) << mirror;
        } else {
          ASSERT_EQ(a[k], b[k]) << sfen << " vs its mirror " << mirror << ": plane " << p << " square " << s;
        }
      }
    }
    // And the same policy index stands for the mirrored move.
    pos.generateLegal(moves);
    mir.generateLegal(mirroredMoves);
    ASSERT_EQ(moves.size(), mirroredMoves.size()) << sfen << " vs " << mirror;
    for (const game::Move m : moves) {
      const game::Move mm = m.isDrop() ? game::Move::drop(m.dropFace(), n - 1 - m.to)
                                       : game::Move::board(n - 1 - m.from, n - 1 - m.to, m.isFlip());
      ASSERT_TRUE(mir.isLegal(mm)) << mirror << ": mirror of " << pos.moveToUsi(m);
      ASSERT_EQ(enc.moveIndex(pos, m), enc.moveIndex(mir, mm)) << sfen << " move " << pos.moveToUsi(m);
    }
  }
  EXPECT_GT(withHands, 50) << "the random positions should include pieces in hand";
}

TEST(Encoder, HandPlanesHoldCountOverEight) {
  const game::VariantPtr v = game::loadVariant("micro");
  const nn::Encoder enc(v);
  const int n = v->numSquares();
  const int faces = int(v->faces.size());
  const int kinds = int(v->handKinds.size());
  const int pawn = v->handKindOf('P'), gold = v->handKindOf('G'), bishop = v->handKindOf('B'),
            silver = v->handKindOf('S');
  ASSERT_GE(pawn, 0);
  ASSERT_GE(gold, 0);
  ASSERT_GE(bishop, 0);
  ASSERT_GE(silver, 0);
  std::vector<float> planes(size_t(enc.inputSize()));
  auto planeValue = [&](int plane) {
    // A hand plane is filled: every square holds the same value.
    const float first = planes[size_t(plane * n)];
    for (int s = 1; s < n; ++s) EXPECT_EQ(planes[size_t(plane * n + s)], first) << "plane " << plane;
    return first;
  };
  for (const char* side : {"b", "w"}) {
    // Sente holds two pawns and a gold, gote a bishop.
    const std::string sfen = std::string("k3/4/4/4/3K ") + side + " 2PGb 1";
    const game::Position pos = game::Position::fromSfen(v, sfen);
    ASSERT_EQ(pos.handCount(0, pawn), 2);
    enc.encode(pos, planes.data());
    const int own = 2 * faces, opp = 2 * faces + kinds;
    const bool senteToMove = std::string(side) == "b";
    const int senteBase = senteToMove ? own : opp, goteBase = senteToMove ? opp : own;
    EXPECT_FLOAT_EQ(planeValue(senteBase + pawn), 2.0f / 8) << sfen;
    EXPECT_FLOAT_EQ(planeValue(senteBase + gold), 1.0f / 8) << sfen;
    EXPECT_FLOAT_EQ(planeValue(senteBase + bishop), 0.0f) << sfen;
    EXPECT_FLOAT_EQ(planeValue(senteBase + silver), 0.0f) << sfen;
    EXPECT_FLOAT_EQ(planeValue(goteBase + bishop), 1.0f / 8) << sfen;
    EXPECT_FLOAT_EQ(planeValue(goteBase + pawn), 0.0f) << sfen;
    EXPECT_FLOAT_EQ(planeValue(goteBase + gold), 0.0f) << sfen;
  }
  // Larger counts keep the same scale (no clamping at 1 piece, no normalisation by the total).
  const game::Position many = game::Position::fromSfen(v, "k3/4/4/4/3K b 3P 1");
  enc.encode(many, planes.data());
  EXPECT_FLOAT_EQ(planeValue(2 * faces + pawn), 3.0f / 8);
}

TEST(Encoder, RepetitionPlaneCountsEarlierOccurrences) {
  const game::VariantPtr v = game::loadVariant("micro");
  const nn::Encoder enc(v);
  const int n = v->numSquares();
  const int repPlane = enc.planes() - 3;
  game::Position pos = game::Position::fromSfen(v, "k3/4/4/4/3K b - 1");
  std::vector<float> planes(size_t(enc.inputSize()));
  enc.encode(pos, planes.data());
  EXPECT_EQ(planes[size_t(repPlane * n)], 0.0f);
  // Both kings step out and back: the start position occurs again.
  for (int round = 1; round <= 2; ++round) {
    pos.makeMove(pos.parseUsi("1e2d"));
    pos.makeMove(pos.parseUsi("4a3b"));
    pos.makeMove(pos.parseUsi("2d1e"));
    pos.makeMove(pos.parseUsi("3b4a"));
    ASSERT_EQ(pos.repetitionsSoFar(), round);
    enc.encode(pos, planes.data());
    for (int s = 0; s < n; ++s) ASSERT_FLOAT_EQ(planes[size_t(repPlane * n + s)], round / 3.0f);
  }
}

// ---------------------------------------------------------------------------------------------
// Model files

using poppy::testing::MicroNet;
using poppy::testing::trainedLookingNet;

std::pair<torch::Tensor, torch::Tensor> forwardEval(nn::PolicyValueNet& net, const torch::Tensor& x) {
  torch::NoGradGuard guard;
  net->eval();
  return net->forward(x);
}

class ModelFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = freshTempDir(::testing::UnitTest::GetInstance()->current_test_info()->name());
    net_ = trainedLookingNet(m_, 5);
    path_ = (dir_ / "net.model").string();
    nn::saveModel(path_, net_, m_.info());
    bytes_ = slurp(path_);
    line1_ = bytes_.find('\n');
    line2_ = bytes_.find('\n', line1_ + 1);
    ASSERT_NE(line1_, std::string::npos);
    ASSERT_NE(line2_, std::string::npos);
    ASSERT_GT(bytes_.size(), line2_ + 100);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // Loading `bytes` (written to a file of its own) must throw a ModelError naming that file.
  void expectRefused(const std::string& bytes, const std::string& what) {
    const std::string p = (dir_ / ("damaged-" + std::to_string(serial_++) + ".model")).string();
    spit(p, bytes);
    expectRefusedPath(p, what);
  }
  void expectRefusedPath(const std::string& p, const std::string& what) {
    try {
      nn::loadModel(p, nullptr, microRules(), nn::Encoder::kVersion);
      ADD_FAILURE() << what << ": loadModel accepted " << p;
    } catch (const nn::ModelError& e) {
      EXPECT_NE(std::string(e.what()).find(p), std::string::npos)
          << what << ": message does not name the file: " << e.what();
    } catch (const std::exception& e) {
      ADD_FAILURE() << what << ": threw something other than ModelError: " << e.what();
    }
  }

  MicroNet m_;
  fs::path dir_;
  nn::PolicyValueNet net_{nullptr};
  std::string path_, bytes_;
  size_t line1_ = 0, line2_ = 0;
  int serial_ = 0;
};

// A spatial-policy network (chu, nn/encoder.h) goes through a model file too: the header records
// its policy planes, and the loaded network gives the same outputs.
TEST(SpatialModelFile, ChuSaveThenLoadGivesIdenticalOutputs) {
  const game::VariantPtr chu = game::loadVariant("chu");
  const nn::Encoder enc(chu);
  nn::ModelInfo info;
  info.variant = "chu";
  info.rules = chu->fingerprint;
  info.encoderVersion = nn::Encoder::kVersion;
  info.shape = nn::networkShapeFor(enc, 1, 8, 8);
  torch::manual_seed(3);
  nn::PolicyValueNet net(info.shape);
  net->eval();
  const fs::path dir = freshTempDir("SpatialModelFile");
  const std::string path = (dir / "chu.model").string();
  nn::saveModel(path, net, info);
  nn::ModelInfo read;
  auto loaded = nn::loadModel(path, &read, chu.get(), nn::Encoder::kVersion);
  EXPECT_EQ(read.shape.policyPlanes, enc.policyPlanes());
  EXPECT_EQ(read.shape.policySize, enc.policySize());
  std::vector<float> planes(size_t(enc.inputSize()));
  enc.encode(game::Position(chu), planes.data());
  const auto x = torch::from_blob(planes.data(), {1, enc.planes(), 12, 12}).clone();
  const auto a = forwardEval(net, x), b = forwardEval(loaded, x);
  EXPECT_EQ(a.first.size(1), enc.policySize());
  EXPECT_TRUE(torch::equal(a.first, b.first));
  EXPECT_TRUE(torch::equal(a.second, b.second));
  fs::remove_all(dir);
}

TEST_F(ModelFiles, SaveThenLoadGivesIdenticalOutputs) {
  nn::ModelInfo info;
  auto loaded = nn::loadModel(path_, &info, microRules(), nn::Encoder::kVersion);
  EXPECT_EQ(info.variant, "micro");
  EXPECT_EQ(info.encoderVersion, nn::Encoder::kVersion);
  EXPECT_EQ(info.shape.blocks, 1);
  EXPECT_EQ(info.shape.channels, 8);
  EXPECT_EQ(info.shape.valueHidden, 8);
  EXPECT_EQ(info.shape.policySize, m_.encoder.policySize());
  EXPECT_EQ(info.step, 1234);
  EXPECT_EQ(info.id, "gen-0003");
  const nn::ModelInfo header = nn::readModelInfo(path_);
  EXPECT_EQ(header.id, "gen-0003");
  EXPECT_EQ(header.step, 1234);

  const auto planes = m_.batch(8, 99);
  const auto x = m_.input(planes, 8);
  const auto [p1, v1] = forwardEval(net_, x);
  const auto [p2, v2] = forwardEval(loaded, x);
  EXPECT_TRUE(torch::equal(p1, p2)) << "policy logits differ after a round trip";
  EXPECT_TRUE(torch::equal(v1, v2)) << "value logits differ after a round trip";
  // The comparison can tell networks apart: a fresh network gives other outputs.
  torch::manual_seed(77);
  nn::PolicyValueNet other(m_.shape);
  const auto [p3, v3] = forwardEval(other, x);
  EXPECT_FALSE(torch::allclose(p1, p3));
}

// Issue 16 (8): a model records the rules fingerprint of its variant, and a variant of the same
// name with other rules (an edited micro.yaml) refuses it, naming both fingerprints. Files
// written before fingerprints (m_.info() records none, like the older shipped models) are
// checked by name only.
TEST_F(ModelFiles, SameNameWithOtherRulesIsRefused) {
  nn::ModelInfo info = m_.info();
  info.rules = microRules()->fingerprint;
  const std::string withRules = (dir_ / "with-rules.model").string();
  nn::saveModel(withRules, net_, info);
  EXPECT_EQ(nn::readModelInfo(withRules).rules, microRules()->fingerprint);
  EXPECT_NO_THROW(nn::loadModel(withRules, nullptr, microRules(), nn::Encoder::kVersion));

  // micro.yaml with one rule changed (a repetition draws at the third occurrence), name kept.
  std::string yaml = slurp(std::string(POPPY_SOURCE_DIR) + "/configs/variants/micro.yaml");
  const size_t at = yaml.find("count: 4");
  ASSERT_NE(at, std::string::npos);
  yaml.replace(at, 8, "count: 3");
  const std::string editedPath = (dir_ / "micro.yaml").string();
  spit(editedPath, yaml);
  const auto edited = game::loadVariantFile(editedPath);
  ASSERT_EQ(edited->name, "micro");
  ASSERT_NE(edited->fingerprint, microRules()->fingerprint);
  try {
    nn::loadModel(withRules, nullptr, edited.get(), nn::Encoder::kVersion);
    ADD_FAILURE() << "a model of micro's rules loaded for an edited micro";
  } catch (const nn::ModelError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find(withRules), std::string::npos) << msg;
    EXPECT_NE(msg.find(game::fingerprintHex(microRules()->fingerprint)), std::string::npos) << msg;
    EXPECT_NE(msg.find(game::fingerprintHex(edited->fingerprint)), std::string::npos) << msg;
    EXPECT_NE(msg.find(editedPath), std::string::npos) << msg;
  }
  EXPECT_NO_THROW(nn::loadModel(path_, nullptr, edited.get(), nn::Encoder::kVersion)) << "no fingerprint recorded";
}

TEST_F(ModelFiles, AnotherVariantOrEncoderVersionIsRefusedByName) {
  const auto minishogi = game::loadVariant("minishogi");
  for (const auto& [variant, encoder] : std::vector<std::pair<const game::Variant*, int>>{
           {minishogi.get(), nn::Encoder::kVersion}, {microRules(), nn::Encoder::kVersion + 1}}) {
    try {
      nn::loadModel(path_, nullptr, variant, encoder);
      ADD_FAILURE() << "accepted a micro/v" << nn::Encoder::kVersion << " model as " << variant->name << "/v" << encoder;
    } catch (const nn::ModelError& e) {
      const std::string msg = e.what();
      EXPECT_NE(msg.find(path_), std::string::npos) << msg;
      if (variant != microRules())
        EXPECT_NE(msg.find("minishogi"), std::string::npos) << msg;
      else
        EXPECT_NE(msg.find("version"), std::string::npos) << msg;
    }
  }
  // nullptr and 0 accept anything.
  EXPECT_NO_THROW(nn::loadModel(path_, nullptr, nullptr, 0));
}

TEST_F(ModelFiles, TruncatedFilesAreRefused) {
  const size_t payload = bytes_.size() - (line2_ + 1);
  const std::vector<size_t> lengths = {1,
                                       4,
                                       8,
                                       line1_,
                                       line1_ + 1,
                                       line1_ + 5,
                                       line2_ - 1,
                                       line2_,
                                       line2_ + 1,
                                       line2_ + 2,
                                       line2_ + 1 + payload / 3,
                                       line2_ + 1 + payload / 2,
                                       bytes_.size() - 100,
                                       bytes_.size() - 1};
  for (size_t len : lengths) expectRefused(bytes_.substr(0, len), "truncated to " + std::to_string(len) + " bytes");
  // Bytes appended after the weights are refused too.
  expectRefused(bytes_ + "x", "one byte appended");
}

// The header reader reads the header's bytes only: damaged weights are left to the full load,
// and a "header" that runs on past 64 KiB without its second newline is refused, not read whole.
TEST_F(ModelFiles, HeaderReaderReadsOnlyTheHeader) {
  const std::string truncated = (dir_ / "truncated.model").string();
  spit(truncated, bytes_.substr(0, line2_ + 1 + 10));
  EXPECT_EQ(nn::readModelInfo(truncated).id, m_.info().id);
  expectRefusedPath(truncated, "weights truncated");

  const std::string longHeader = (dir_ / "long-header.model").string();
  spit(longHeader, bytes_.substr(0, line1_ + 1) + std::string(70 * 1024, ' ') + bytes_.substr(line1_ + 1));
  try {
    nn::readModelInfo(longHeader);
    ADD_FAILURE() << "a 70 KiB header line was read";
  } catch (const nn::ModelError& e) {
    EXPECT_NE(std::string(e.what()).find("header longer than 65536 bytes"), std::string::npos) << e.what();
  }
  expectRefusedPath(longHeader, "a 70 KiB header line");  // the full load takes the same limit
}

TEST_F(ModelFiles, FlippedByteInTheWeightsIsRefused) {
  const size_t payload = bytes_.size() - (line2_ + 1);
  for (size_t offset : {size_t(0), payload / 4, payload / 2, payload - 1}) {
    std::string damaged = bytes_;
    damaged[line2_ + 1 + offset] = char(damaged[line2_ + 1 + offset] ^ 0x10);
    expectRefused(damaged, "byte " + std::to_string(offset) + " of the weights flipped");
  }
}

TEST_F(ModelFiles, BadMagicLineIsRefused) {
  const std::string rest = bytes_.substr(line1_);
  expectRefused("POPPYNOT 1" + rest, "wrong magic");
  expectRefused("POPPYNET 3" + rest, "another format version");
  expectRefused("POPPYNET" + rest, "no version");
  expectRefused("poppynet 1" + rest, "lower-case magic");
  expectRefused("POPPYCKP 1" + rest, "a checkpoint's magic");
  expectRefused(bytes_.substr(line1_ + 1), "no magic line at all");
  expectRefused(std::string(200, '\0'), "zeros");
}

TEST_F(ModelFiles, DamagedHeaderIsRefused) {
  const std::string header = bytes_.substr(line1_ + 1, line2_ - line1_ - 1);
  const std::string head = bytes_.substr(0, line1_ + 1), tail = bytes_.substr(line2_);
  expectRefused(head + "{not json" + tail, "header is not JSON");
  expectRefused(head + "{}" + tail, "header without fields");
  std::string noCrc = header;
  noCrc.replace(noCrc.find("\"crc32\""), 7, "\"crc33\"");
  expectRefused(head + noCrc + tail, "header without crc32");
}

// The header is not covered by the checksum; a header that claims another architecture than the
// weights hold must still be refused, not silently produce a network of another shape.
TEST_F(ModelFiles, HeaderArchitectureThatDisagreesWithTheWeightsIsRefused) {
  const std::string head = bytes_.substr(0, line1_ + 1), tail = bytes_.substr(line2_);
  const std::string header = bytes_.substr(line1_ + 1, line2_ - line1_ - 1);
  for (const auto& [from, to] :
       std::vector<std::pair<std::string, std::string>>{{"\"blocks\":1", "\"blocks\":0"},
                                                        {"\"blocks\":1", "\"blocks\":2"},
                                                        {"\"channels\":8", "\"channels\":9"},
                                                        {"\"value_hidden\":8", "\"value_hidden\":9"}}) {
    std::string h = header;
    const size_t at = h.find(from);
    ASSERT_NE(at, std::string::npos) << header;
    h.replace(at, from.size(), to);
    const std::string p = (dir_ / ("header-" + std::to_string(serial_++) + ".model")).string();
    spit(p, head + h + tail);
    try {
      auto net = nn::loadModel(p, nullptr, microRules(), nn::Encoder::kVersion);
      ADD_FAILURE() << "a header edited from " << from << " to " << to << " loads without an error";
    } catch (const nn::ModelError& e) {
      EXPECT_NE(std::string(e.what()).find(p), std::string::npos) << e.what();
    } catch (const std::exception& e) {
      ADD_FAILURE() << "edited header " << to << ": threw something other than ModelError: " << e.what();
    }
  }
}

TEST_F(ModelFiles, MissingEmptyOrDirectoryPathIsRefused) {
  expectRefusedPath((dir_ / "no-such.model").string(), "missing file");
  const std::string empty = (dir_ / "empty.model").string();
  spit(empty, "");
  expectRefusedPath(empty, "empty file");
  const fs::path sub = dir_ / "a-directory.model";
  fs::create_directories(sub);
  expectRefusedPath(sub.string(), "a directory");
  // The header reader refuses them the same way.
  for (const std::string& p : {(dir_ / "no-such.model").string(), empty}) {
    try {
      nn::readModelInfo(p);
      ADD_FAILURE() << "readModelInfo accepted " << p;
    } catch (const nn::ModelError& e) {
      EXPECT_NE(std::string(e.what()).find(p), std::string::npos) << e.what();
    }
  }
}

TEST_F(ModelFiles, SaveIsAtomicAndReplacesTheOldFile) {
  // The file from SetUp is complete and no temporary is left next to it.
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir_)) names.push_back(e.path().filename().string());
  EXPECT_EQ(names, std::vector<std::string>{"net.model"});
  // Saving another network over it replaces it completely.
  nn::PolicyValueNet other = trainedLookingNet(m_, 6);
  nn::saveModel(path_, other, m_.info("gen-0004", 99));
  names.clear();
  for (const auto& e : fs::directory_iterator(dir_)) names.push_back(e.path().filename().string());
  EXPECT_EQ(names, std::vector<std::string>{"net.model"});
  nn::ModelInfo info;
  auto loaded = nn::loadModel(path_, &info, microRules(), nn::Encoder::kVersion);
  EXPECT_EQ(info.id, "gen-0004");
  const auto x = m_.input(m_.batch(4, 3), 4);
  EXPECT_TRUE(torch::equal(forwardEval(other, x).first, forwardEval(loaded, x).first));
  // A save that cannot happen (no such directory) throws and leaves nothing behind.
  const fs::path missingDir = dir_ / "missing" / "x.model";
  EXPECT_ANY_THROW(nn::saveModel(missingDir.string(), other, m_.info()));
  EXPECT_FALSE(fs::exists(missingDir));
  EXPECT_FALSE(fs::exists(missingDir.string() + ".tmp"));
}

TEST_F(ModelFiles, StaleTemporaryFromACrashDoesNotMatter) {
  // A crash mid-save leaves NAME.tmp: the next save and load work, and the load never reads it.
  spit(path_ + ".tmp", bytes_.substr(0, bytes_.size() / 2));
  EXPECT_NO_THROW(nn::loadModel(path_, nullptr, microRules(), nn::Encoder::kVersion));
  nn::saveModel(path_, net_, m_.info("gen-0009"));
  EXPECT_FALSE(fs::exists(path_ + ".tmp"));
  EXPECT_EQ(nn::readModelInfo(path_).id, "gen-0009");
}

// ---------------------------------------------------------------------------------------------
// Compute threads

// Debian's LibTorch runs its matrix products on OpenBLAS, whose own pool ignores
// at::set_num_threads: setComputeThreads must reach both, or "1 thread" is one per core.
TEST(ComputeThreads, ReachLibTorchAndOpenBlas) {
  nn::setComputeThreads(1);
  if (nn::blasThreads() == 0) GTEST_SKIP() << "LibTorch does not run on OpenBLAS in this build";
  EXPECT_EQ(torch::get_num_threads(), 1);
  EXPECT_EQ(nn::blasThreads(), 1);
  nn::setComputeThreads(2);
  EXPECT_EQ(torch::get_num_threads(), 2);
  EXPECT_EQ(nn::blasThreads(), 2);
  nn::setComputeThreads(1);
}

// ---------------------------------------------------------------------------------------------
// TorchEvaluator

TEST(TorchEvaluator, OutputsAreWellFormedAndBatchingChangesNothing) {
  torch::set_num_threads(1);
  const MicroNet m(2, 16);
  nn::PolicyValueNet net = trainedLookingNet(m, 11);
  nn::TorchEvaluator eval(net, nn::parseDevice("cpu"));
  const int batch = 64;
  const int policy = m.encoder.policySize();
  const auto planes = m.batch(batch, 2024);
  std::vector<float> logits(size_t(batch) * policy, NAN), wdl(size_t(batch) * 3, NAN);
  eval.evaluate(planes.data(), batch, logits.data(), wdl.data());
  for (int i = 0; i < batch; ++i) {
    double sum = 0;
    for (int k = 0; k < 3; ++k) {
      const float w = wdl[size_t(3 * i + k)];
      ASSERT_TRUE(std::isfinite(w));
      EXPECT_GE(w, 0.0f);
      EXPECT_LE(w, 1.0f);
      sum += w;
    }
    EXPECT_NEAR(sum, 1.0, 1e-5) << "row " << i;
  }
  for (float l : logits) ASSERT_TRUE(std::isfinite(l));

  std::vector<float> oneLogits(static_cast<size_t>(policy)), oneWdl(3);
  bool positionsDiffer = false;
  for (int i = 0; i < batch; ++i) {
    eval.evaluate(planes.data() + size_t(i) * m.encoder.inputSize(), 1, oneLogits.data(), oneWdl.data());
    for (int k = 0; k < policy; ++k)
      ASSERT_NEAR(oneLogits[size_t(k)], logits[size_t(i) * policy + k], 1e-4) << "position " << i << " index " << k;
    for (int k = 0; k < 3; ++k) ASSERT_NEAR(oneWdl[size_t(k)], wdl[size_t(3 * i + k)], 1e-5) << "position " << i;
    if (i > 0)
      for (int k = 0; k < policy && !positionsDiffer; ++k)
        positionsDiffer = std::fabs(logits[size_t(i) * policy + k] - logits[size_t(k)]) > 1e-4;
  }
  EXPECT_TRUE(positionsDiffer) << "the network gives every position the same output";

  // Evaluating the same batch again gives the same numbers (eval mode: no batch statistics).
  std::vector<float> again(logits.size()), againWdl(wdl.size());
  eval.evaluate(planes.data(), batch, again.data(), againWdl.data());
  for (size_t k = 0; k < logits.size(); ++k) ASSERT_NEAR(again[k], logits[k], 1e-5);
}

TEST(TorchEvaluator, MatchesTheNetworkItself) {
  const MicroNet m;
  nn::PolicyValueNet net = trainedLookingNet(m, 12);
  const auto planes = m.batch(5, 7);
  const auto [p, v] = forwardEval(net, m.input(planes, 5));
  const auto wdlWant = torch::softmax(v, 1);
  nn::TorchEvaluator eval(net, torch::kCPU);
  std::vector<float> logits(size_t(5) * m.encoder.policySize()), wdl(15);
  eval.evaluate(planes.data(), 5, logits.data(), wdl.data());
  for (int i = 0; i < 5; ++i) {
    for (int k = 0; k < m.encoder.policySize(); ++k)
      ASSERT_NEAR(logits[size_t(i) * m.encoder.policySize() + k], p[i][k].item<float>(), 1e-5);
    for (int k = 0; k < 3; ++k) ASSERT_NEAR(wdl[size_t(3 * i + k)], wdlWant[i][k].item<float>(), 1e-6);
  }
}

// network.blocks: 0 is accepted by the run config (0..64) and by model files (blocks >= 0): such a
// network (input convolution straight into the heads) must then run.
TEST(TorchEvaluator, NetworkWithoutResidualBlocksRuns) {
  const MicroNet m(0, 8);
  torch::manual_seed(1);
  nn::PolicyValueNet net(m.shape);
  nn::TorchEvaluator eval(net, torch::kCPU);
  const auto planes = m.batch(3, 5);
  std::vector<float> logits(size_t(3) * m.encoder.policySize()), wdl(9);
  try {
    eval.evaluate(planes.data(), 3, logits.data(), wdl.data());
  } catch (const std::exception& e) {
    FAIL() << "a 0-block network does not evaluate: " << std::string(e.what()).substr(0, 200);
  }
  for (int i = 0; i < 3; ++i)
    EXPECT_NEAR(wdl[size_t(3 * i)] + wdl[size_t(3 * i + 1)] + wdl[size_t(3 * i + 2)], 1.0, 1e-5);
}

TEST(Device, CpuParsesAndUnknownNamesAreRefused) {
  EXPECT_EQ(nn::parseDevice("cpu"), torch::Device(torch::kCPU));
  for (const std::string name : {"tpu", "", "CPU ", "gpu"}) {
    try {
      nn::parseDevice(name);
      ADD_FAILURE() << "parseDevice accepted '" << name << "'";
    } catch (const std::runtime_error& e) {
      EXPECT_NE(std::string(e.what()).find("'" + name + "'"), std::string::npos) << e.what();
    }
  }
}

TEST(Device, CudaWithoutAGpuIsAClearError) {
  if (torch::cuda::is_available()) GTEST_SKIP() << "this machine has CUDA";
  for (const std::string name : {"cuda", "cuda:0", "cuda:1"}) {
    try {
      nn::parseDevice(name);
      ADD_FAILURE() << "parseDevice accepted '" << name << "' without CUDA";
    } catch (const std::runtime_error& e) {
      const std::string msg = e.what();
      EXPECT_NE(msg.find(name), std::string::npos) << msg;
      EXPECT_NE(msg.find("cpu"), std::string::npos) << "should say what to use instead: " << msg;
    }
  }
}

}  // namespace
