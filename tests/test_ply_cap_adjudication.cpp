// Material by mobility (game/material.h) and self-play's scoring of games at the ply cap
// (selfplay/ply_cap_adjudication.h).
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "game/material.h"
#include "game/position.h"
#include "game/variant_loader.h"
#include "mcts/evaluator.h"
#include "nn/encoder.h"
#include "selfplay/game_record.h"
#include "selfplay/ply_cap_adjudication.h"
#include "selfplay/selfplay_runner.h"

using namespace poppy;

namespace {

double valueOf(const game::Variant& v, const std::vector<double>& values, const std::string& token) {
  for (size_t f = 0; f < v.faces.size(); ++f)
    if (v.faces[f].token() == token) return values[f];
  throw std::runtime_error("no face " + token);
}

}  // namespace

// Micro shogi's 4x5 board (20 squares), counted by hand from sente's side (forward = towards
// rank a, rank index 0):
//   rook (+G, R): 3 squares along the rank + 4 along the file from every square: 7.
//   pawn (P, fW): a forward square from the 16 squares off the far rank: 16/20 = 0.8.
//   lance (+S, fR): r squares forward from rank index r; 4 x (0+1+2+3+4) = 40: 2.0.
//   knight (+P, ffN): from the 12 squares two ranks or more from the far rank, files 1,2,2,1
//     targets by column: 3 x 6 = 18: 0.9.
//   gold and tokin (WfF): orthogonal neighbours 2 x (3x5 + 4x4) = 62, forward diagonals
//     4 ranks x (1+2+2+1) = 24: 86/20 = 4.3.
//   silver (FfW): diagonal neighbours 2 x (2 x 3x4) = 48, forward steps 16: 64/20 = 3.2.
//   bishop (B): per direction sum over a=0..3, b=0..4 of min(a, b) = 0+4+7+9 = 20, four
//     directions alike: 80/20 = 4.0.
//   king: royal, 0.
TEST(Material, MicroMobilityValuesCountedByHand) {
  const auto v = game::loadVariant("micro");
  const std::vector<double> values = game::mobilityValues(*v);
  EXPECT_DOUBLE_EQ(valueOf(*v, values, "+G"), 7.0);
  EXPECT_DOUBLE_EQ(valueOf(*v, values, "P"), 0.8);
  EXPECT_DOUBLE_EQ(valueOf(*v, values, "+S"), 2.0);
  EXPECT_DOUBLE_EQ(valueOf(*v, values, "+P"), 0.9);
  EXPECT_DOUBLE_EQ(valueOf(*v, values, "G"), 4.3);
  EXPECT_DOUBLE_EQ(valueOf(*v, values, "+B"), 4.3);
  EXPECT_DOUBLE_EQ(valueOf(*v, values, "S"), 3.2);
  EXPECT_DOUBLE_EQ(valueOf(*v, values, "B"), 4.0);
  EXPECT_DOUBLE_EQ(valueOf(*v, values, "K"), 0.0);
}

TEST(Material, BoardAndHandPiecesCount) {
  const auto v = game::loadVariant("micro");
  const std::vector<double> values = game::mobilityValues(*v);
  const game::Position start(v);
  // Each side: bishop 4.0 + gold 4.3 + silver 3.2 + pawn 0.8 (+ the king, 0).
  EXPECT_NEAR(game::material(start, 0, values), 12.3, 1e-9);
  EXPECT_NEAR(game::material(start, 1, values), 12.3, 1e-9);
  // Gote's bishop taken and in sente's hand (counted at its setup face, the bishop); sente's
  // gold turned rook.
  const auto pos = game::Position::fromSfen(v, "k1gs/p3/4/3P/S+GBK w B 2");
  EXPECT_NEAR(game::material(pos, 0, values), 4.0 + 7.0 + 3.2 + 0.8 + 4.0, 1e-9);
  EXPECT_NEAR(game::material(pos, 1, values), 8.3, 1e-9);
}

TEST(PlyCapAdjudication, TheSideAheadByTheMarginWins) {
  const auto v = game::loadVariant("micro");
  // Sente 16.3 against gote 8.3: ahead by 8.0 / 12.3 = 0.65 of a side's start material.
  const auto sente = game::Position::fromSfen(v, "k1gs/p3/4/3P/SGBK w B 2");
  // Gote took sente's pawn: 13.1 against 11.5, (13.1 - 11.5) / 12.3 = 0.13.
  const auto gote = game::Position::fromSfen(v, "kbgs/p3/4/4/SGBK b p 2");
  EXPECT_NEAR(selfplay::PlyCapAdjudicator(v, 0.5).balance(sente), 8.0 / 12.3, 1e-9);
  EXPECT_EQ(selfplay::PlyCapAdjudicator(v, 0.5).winner(sente), 0);
  EXPECT_EQ(selfplay::PlyCapAdjudicator(v, 0.7).winner(sente), -1);
  EXPECT_NEAR(selfplay::PlyCapAdjudicator(v, 0.1).balance(gote), -1.6 / 12.3, 1e-9);
  EXPECT_EQ(selfplay::PlyCapAdjudicator(v, 0.1).winner(gote), 1);
  EXPECT_EQ(selfplay::PlyCapAdjudicator(v, 0.2).winner(gote), -1);
  EXPECT_EQ(selfplay::PlyCapAdjudicator(v, 0).winner(sente), -1);  // off
  EXPECT_EQ(selfplay::PlyCapAdjudicator(v, 0.01).winner(game::Position(v)), -1);
}

// Short micro games with a uniform network end at a 6-ply cap, mostly with some material taken.
// With adjudication on, a game at the cap whose material differs by the margin says which side
// won it, and its samples (one a ply: player to move alternates) carry that result; the game's
// own result stays a draw. Off, every such sample is a draw.
TEST(PlyCapAdjudication, SelfPlaySamplesLearnTheAdjudicatedResult) {
  const auto variant = game::loadVariant("micro");
  const nn::Encoder encoder(variant);
  mcts::UniformEvaluator eval(encoder.policySize());
  for (const double margin : {0.0, 0.05}) {
    selfplay::SelfPlaySettings s;
    s.search.playouts = 8;
    s.fastPlayouts = 8;
    s.search.plyCap = 6;
    s.parallelGames = 8;
    s.temperatureMoves = 6;
    s.plyCapAdjudication = margin;
    s.seed = 5;
    selfplay::SelfPlayRunner runner(variant, encoder, eval, s);
    const selfplay::PlyCapAdjudicator judge(variant, 0.05);
    int atCap = 0, adjudicated = 0;
    runner.play(40, [&](std::vector<selfplay::Sample>&& samples, selfplay::GameRecord&& record) {
      if (record.reason != "ply_cap") return;
      ++atCap;
      EXPECT_EQ(record.result, "draw");
      game::Position end(variant);
      for (const std::string& m : record.moves) end.makeMove(end.parseUsi(m));
      const int expected = margin > 0 ? judge.winner(end) : -1;
      EXPECT_EQ(record.adjudicated, expected < 0 ? "" : (expected == 0 ? "sente" : "gote"));
      adjudicated += expected >= 0;
      ASSERT_EQ(samples.size(), record.moves.size());
      for (size_t ply = 0; ply < samples.size(); ++ply)
        EXPECT_EQ(samples[ply].result, expected < 0 ? 0 : (expected == int(ply % 2) ? 1 : -1)) << "ply " << ply;
      // The record, adjudication included, survives its JSON line.
      EXPECT_EQ(selfplay::gameRecordFromJson(selfplay::gameRecordToJson(record)), record);
    });
    EXPECT_GT(atCap, 20);
    if (margin > 0) {
      EXPECT_GT(adjudicated, 5);
    }
  }
}

TEST(PlyCapAdjudication, RecordsRefuseAnAdjudicationThatCannotBe) {
  selfplay::GameRecord r;
  r.id = "1";
  r.variant = "micro";
  r.start = "kbgs/p3/4/3P/SGBK b - 1";
  r.result = "draw";
  r.reason = "ply_cap";
  r.adjudicated = "nobody";
  EXPECT_THROW(selfplay::gameRecordToJson(r), selfplay::GameRecordError);
  r.adjudicated = "gote";
  r.result = "sente";
  r.reason = "checkmate";
  EXPECT_THROW(selfplay::gameRecordToJson(r), selfplay::GameRecordError);
  EXPECT_THROW(selfplay::gameRecordFromJson(
                   R"({"id":"1","variant":"micro","start":"s","moves":[],"result":"draw","reason":"ply_cap",)"
                   R"("plies":0,"model":"m","adjudicated":3})"),
               selfplay::GameRecordError);
}

TEST(PlyCapAdjudication, MarginOutsideZeroToOneIsRefused) {
  const auto variant = game::loadVariant("micro");
  const nn::Encoder encoder(variant);
  mcts::UniformEvaluator eval(encoder.policySize());
  selfplay::SelfPlaySettings s;
  s.fastPlayouts = s.search.playouts;
  for (const double margin : {-0.1, 1.5}) {
    s.plyCapAdjudication = margin;
    try {
      selfplay::SelfPlayRunner runner(variant, encoder, eval, s);
      ADD_FAILURE() << "margin " << margin << " accepted";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("plyCapAdjudication"), std::string::npos) << e.what();
    }
  }
  s.plyCapAdjudication = 1;
  EXPECT_NO_THROW(selfplay::SelfPlayRunner(variant, encoder, eval, s));
}
