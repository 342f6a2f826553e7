// nn::BoardMirror, the left-right reflection of training samples. The reference is built without
// it: the mirrored position is written by reversing each rank of the SFEN board, and a mirrored
// move by renumbering the USI files (file f becomes files + 1 - f). Along random games (both sides
// to move, pieces in hand, drops, flips) the mirror of a position's planes must be the planes of
// the mirrored position, and the mirror of each legal move's policy index the index of the
// mirrored move, which must be legal there.
#include <gtest/gtest.h>

#include <cctype>
#include <random>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "game/position.h"
#include "game/variant_loader.h"
#include "nn/board_mirror.h"
#include "nn/encoder.h"

namespace {

using namespace poppy;

// Each rank of the SFEN board read from its other end: "s2k" -> "k2s", "+Bp1" -> "1p+B".
std::string mirroredSfen(const std::string& sfen) {
  const size_t space = sfen.find(' ');
  const std::string board = sfen.substr(0, space);
  std::string out;
  size_t start = 0;
  while (true) {
    const size_t slash = board.find('/', start);
    const std::string rank = board.substr(start, slash == std::string::npos ? std::string::npos : slash - start);
    std::vector<std::string> cells;  // "" for an empty square
    for (size_t i = 0; i < rank.size();) {
      if (std::isdigit(static_cast<unsigned char>(rank[i]))) {
        int empties = 0;
        while (i < rank.size() && std::isdigit(static_cast<unsigned char>(rank[i]))) empties = empties * 10 + (rank[i++] - '0');
        cells.insert(cells.end(), size_t(empties), "");
      } else {
        std::string piece;
        if (rank[i] == '+') piece += rank[i++];
        piece += rank[i++];
        if (i < rank.size() && rank[i] == '\'') piece += rank[i++];
        cells.push_back(piece);
      }
    }
    int empties = 0;
    for (auto it = cells.rbegin(); it != cells.rend(); ++it) {
      if (it->empty()) {
        ++empties;
        continue;
      }
      if (empties) out += std::to_string(empties);
      empties = 0;
      out += *it;
    }
    if (empties) out += std::to_string(empties);
    if (slash == std::string::npos) break;
    out += '/';
    start = slash + 1;
  }
  return out + sfen.substr(space);
}

// Every square of a USI move ("3c2b+", "P*4b") on the mirrored board.
std::string mirroredUsi(const std::string& move, int files) {
  static const std::regex square("([0-9]+)([a-z])");
  std::string out;
  auto last = move.cbegin();
  for (std::sregex_iterator it(move.begin(), move.end(), square), end; it != end; ++it) {
    out.append(last, (*it)[0].first);
    out += std::to_string(files + 1 - std::stoi((*it)[1].str())) + (*it)[2].str();
    last = (*it)[0].second;
  }
  return out.append(last, move.cend());
}

std::set<std::string> legalUsi(const game::Position& pos) {
  game::MoveList moves;
  pos.generateLegal(moves);
  std::set<std::string> out;
  for (int i = 0; i < moves.count; ++i) out.insert(pos.moveToUsi(moves.moves[i]));
  return out;
}

// Random games from the start of `variantName`, each position checked against its mirror.
void expectSamplesReflectAsTheirPositions(const std::string& variantName, int games, int plies) {
  const game::VariantPtr variant = game::loadVariant(variantName);
  const nn::Encoder encoder(variant);
  std::string whyNot;
  const auto mirror = nn::BoardMirror::forEncoder(encoder, &whyNot);
  ASSERT_TRUE(mirror.has_value()) << whyNot;
  std::mt19937 rng(7);
  int checked = 0, drops = 0, goteToMove = 0;
  for (int game = 0; game < games; ++game) {
    // The mirrored game is played beside the game, move for mirrored move, so that both have
    // the same history (the encoder's repetition plane).
    game::Position pos(variant);
    game::Position reflected = game::Position::fromSfen(variant, mirroredSfen(pos.sfen()));
    for (int ply = 0; ply < plies && !pos.outcome().over(); ++ply) {
      SCOPED_TRACE(pos.sfen() + " mirrored " + reflected.sfen());
      ASSERT_EQ(reflected.sfen(), mirroredSfen(pos.sfen()));

      std::vector<float> planes(size_t(encoder.inputSize())), expected(planes.size());
      encoder.encode(pos, planes.data());
      encoder.encode(reflected, expected.data());
      mirror->reflectPlanes(planes.data());
      ASSERT_EQ(planes, expected);

      game::MoveList moves;
      pos.generateLegal(moves);
      const std::set<std::string> legalThere = legalUsi(reflected);
      ASSERT_EQ(size_t(moves.count), legalThere.size());
      // A policy with a distinct weight on each legal move, mirrored, against the same weights
      // put on the mirrored moves of the mirrored position.
      std::vector<float> policy(size_t(encoder.policySize())), policyThere(policy.size());
      for (int i = 0; i < moves.count; ++i) {
        const game::Move m = moves.moves[i];
        const std::string there = mirroredUsi(pos.moveToUsi(m), variant->files);
        ASSERT_TRUE(legalThere.count(there)) << pos.moveToUsi(m) << " mirrored " << there;
        const int index = encoder.moveIndex(pos, m), indexThere = encoder.moveIndex(reflected, reflected.parseUsi(there));
        ASSERT_EQ(mirror->reflectedIndex(index), indexThere) << pos.moveToUsi(m);
        policy[size_t(index)] = float(i + 1);
        policyThere[size_t(indexThere)] = float(i + 1);
        drops += m.isDrop();
      }
      mirror->reflectPolicy(policy.data());
      ASSERT_EQ(policy, policyThere);
      ++checked;
      goteToMove += pos.sideToMove() == 1;
      const game::Move played = moves.moves[rng() % unsigned(moves.count)];
      reflected.makeMove(reflected.parseUsi(mirroredUsi(pos.moveToUsi(played), variant->files)));
      pos.makeMove(played);
    }
  }
  // The games reached what the mirror must handle: gote's turned board and drops from hand.
  EXPECT_GT(checked, games * 10);
  EXPECT_GT(goteToMove, checked / 3);
  EXPECT_GT(drops, 0);
}

TEST(BoardMirror, MicroSamplesReflectAsTheirPositions) { expectSamplesReflectAsTheirPositions("micro", 30, 80); }
TEST(BoardMirror, MinishogiSamplesReflectAsTheirPositions) { expectSamplesReflectAsTheirPositions("minishogi", 10, 80); }
TEST(BoardMirror, ShogiSamplesReflectAsTheirPositions) { expectSamplesReflectAsTheirPositions("shogi", 3, 120); }

TEST(BoardMirror, ReflectedIndicesArePairedUp) {
  const nn::Encoder encoder(game::loadVariant("micro"));
  const auto mirror = nn::BoardMirror::forEncoder(encoder);
  ASSERT_TRUE(mirror.has_value());
  std::set<int> seen;
  for (int i = 0; i < encoder.policySize(); ++i) {
    const int j = mirror->reflectedIndex(i);
    ASSERT_GE(j, 0);
    ASSERT_LT(j, encoder.policySize());
    EXPECT_EQ(mirror->reflectedIndex(j), i);
    seen.insert(j);
  }
  EXPECT_EQ(int(seen.size()), encoder.policySize());
}

// Tori's quails are each other's mirror images (seeds: the left quail slides forward and back
// to the right, the right quail the reverse), chu's policy is spatial, yonin has four players:
// a mirror would change each of those games, so none is offered.
TEST(BoardMirror, RefusedWhereAMirrorChangesTheGame) {
  const std::vector<std::pair<std::string, std::string>> refused = {
      {"tori", "does not move as its own mirror image"}, {"chu", "dense policy layout"}, {"yonin", "two players"}};
  for (const auto& [name, reason] : refused) {
    std::string whyNot;
    EXPECT_FALSE(nn::BoardMirror::forEncoder(nn::Encoder(game::loadVariant(name)), &whyNot).has_value()) << name;
    EXPECT_NE(whyNot.find(reason), std::string::npos) << name << ": " << whyNot;
  }
  for (const std::string name : {"micro", "minishogi", "kyoto", "judkins", "gorogoro", "shogi"})
    EXPECT_TRUE(nn::BoardMirror::forEncoder(nn::Encoder(game::loadVariant(name))).has_value()) << name;
}

}  // namespace
