// Self-play and the gate's seat match for four players (yonin shogi), with uniform evaluators:
// what the samples learn (the winner's place clockwise from each sample's mover), what the
// records say, and how the seat match turns its games into the candidate's share.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "game/position.h"
#include "game/variant_loader.h"
#include "mcts/evaluator.h"
#include "mcts/player_scores.h"
#include "nn/encoder.h"
#include "selfplay/seat_match.h"
#include "selfplay/selfplay_runner.h"

using namespace poppy;

namespace {

struct Yonin {
  game::VariantPtr variant = game::loadVariant("yonin");
  nn::Encoder encoder{variant};
};

const char* const kSeats[] = {"south", "west", "north", "east"};

int seatOf(const std::string& name) {
  for (int s = 0; s < 4; ++s)
    if (name == kSeats[s]) return s;
  return -1;
}

// Search settings without the two-player tools (the tree turns them off for four anyway).
mcts::SearchParams quick(int playouts) {
  mcts::SearchParams p;
  p.playouts = playouts;
  p.solver = false;
  p.leafMatePlies = p.rootMatePlies = 0;
  return p;
}

}  // namespace

// Every sample learns the winner's place clockwise from its own mover (0: the mover won), or -1
// for a draw; the record names the winning seat. Each sample's mover is found by replaying the
// record (every ply is a sample: no playout cap randomisation).
TEST(FourPlayerSelfPlay, SamplesLearnTheWinnersPlaceFromTheirMover) {
  const Yonin y;
  mcts::UniformEvaluator eval(y.encoder.policySize(), mcts::valueSize(4));
  selfplay::SelfPlaySettings s;
  s.search = quick(12);
  s.fastPlayouts = 12;
  // Random-looking play ends about a third of yonin's games by a second mate within 300 plies
  // (tests/test_yonin.cpp's random games): 16 games leave no decisive one about once in 1,000.
  s.search.plyCap = 300;
  s.parallelGames = 8;
  s.temperatureMoves = 400;  // every move sampled: varied games
  selfplay::SelfPlayRunner runner(y.variant, y.encoder, eval, s);
  int decisive = 0, games = 0;
  std::set<int8_t> results;
  runner.play(16, [&](std::vector<selfplay::Sample>&& samples, selfplay::GameRecord&& record) {
    ++games;
    ASSERT_EQ(samples.size(), record.moves.size());
    const int winner = seatOf(record.result);
    if (record.result != "draw") {
      ASSERT_GE(winner, 0) << record.result;
      EXPECT_EQ(record.reason, "second_checkmate");
      ++decisive;
    } else {
      EXPECT_TRUE(record.reason == "ply_cap" || record.reason == "repetition" || record.reason == "stalemate")
          << record.reason;
    }
    game::Position pos(y.variant);
    for (size_t i = 0; i < samples.size(); ++i) {
      const int mover = pos.sideToMove();
      EXPECT_EQ(samples[i].result, winner < 0 ? -1 : (winner - mover + 4) % 4) << "ply " << i;
      results.insert(samples[i].result);
      pos.makeMove(pos.parseUsi(record.moves[i]));
    }
    EXPECT_TRUE(pos.outcome(300).over());
  });
  EXPECT_EQ(games, 16);
  // The uniform players end some games by a second mate: places 0-3 all occur there.
  EXPECT_GT(decisive, 0);
  EXPECT_TRUE(results.count(0) && results.count(1) && results.count(2) && results.count(3));
}

TEST(FourPlayerSelfPlay, MaterialAdjudicationIsRefused) {
  const Yonin y;
  mcts::UniformEvaluator eval(y.encoder.policySize(), mcts::valueSize(4));
  selfplay::SelfPlaySettings s;
  s.plyCapAdjudication = 0.05;
  EXPECT_THROW(selfplay::SelfPlayRunner(y.variant, y.encoder, eval, s), std::invalid_argument);
}

// The candidate (A) sits in seat game % 4, the best (B) in the other three; wins, draws and the
// share add up from the records.
TEST(SeatMatch, TheCandidatesSeatGoesRoundAndTheShareAddsUp) {
  const Yonin y;
  mcts::UniformEvaluator ea(y.encoder.policySize(), mcts::valueSize(4)), eb(y.encoder.policySize(), mcts::valueSize(4));
  selfplay::PlayerSpec a, b;
  a.kind = b.kind = selfplay::PlayerSpec::Kind::kNetwork;
  a.name = "candidate";
  b.name = "best";
  a.evaluator = &ea;
  b.evaluator = &eb;
  a.search = b.search = quick(8);
  selfplay::MatchSettings ms;
  ms.games = 8;
  ms.parallelGames = 8;
  ms.plyCap = 120;
  ms.openingTemperaturePlies = 120;  // every move sampled
  ms.idPrefix = "seat-";
  const selfplay::SeatMatchResult r = selfplay::playSeatMatch(y.variant, y.encoder, a, b, ms);
  ASSERT_EQ(r.games(), 8);
  ASSERT_EQ(r.records.size(), 8u);
  int wins = 0, others = 0, draws = 0;
  std::set<std::string> ids;
  for (size_t i = 0; i < r.records.size(); ++i) {
    const selfplay::GameRecord& g = r.records[i];
    const int number = std::stoi(g.id.substr(5));
    ids.insert(g.id);
    EXPECT_EQ(r.seatOfA[i], number % 4) << g.id;
    EXPECT_NE(g.model.find(std::string("candidate as ") + kSeats[number % 4]), std::string::npos) << g.model;
    if (g.result == "draw") ++draws;
    else if (seatOf(g.result) == r.seatOfA[i]) ++wins;
    else ++others;
  }
  EXPECT_EQ(ids.size(), 8u);
  EXPECT_EQ(r.winsA, wins);
  EXPECT_EQ(r.winsOthers, others);
  EXPECT_EQ(r.draws, draws);
  EXPECT_LE(r.drawPointsA, draws / 2.0 + 1e-9);  // at least two players are in at a draw
  EXPECT_DOUBLE_EQ(r.share(), (wins + r.drawPointsA) / 8.0);
  // Two players, an external player (no engine plays yonin) or a network player without a
  // network are refused.
  EXPECT_THROW(selfplay::playSeatMatch(game::loadVariant("micro"), nn::Encoder(game::loadVariant("micro")), a, b, ms),
               std::invalid_argument);
  selfplay::PlayerSpec external;
  external.kind = selfplay::PlayerSpec::Kind::kExternal;
  external.name = "usi:engine";
  EXPECT_THROW(selfplay::playSeatMatch(y.variant, y.encoder, a, external, ms), std::invalid_argument);
  selfplay::PlayerSpec noNetwork = b;
  noNetwork.evaluator = nullptr;
  EXPECT_THROW(selfplay::playSeatMatch(y.variant, y.encoder, a, noNetwork, ms), std::invalid_argument);
}

// The yardstick without an engine: rollout MCTS in one seat, random movers in the other three
// (their moves without a search). Rollout's searches of the games run at once; every game is
// legal to its end (the records replay) and counted once. (Its choices are tested on hand-built
// positions in test_four_player_search.cpp: at this size a match says little about strength.)
TEST(SeatMatch, RolloutInOneSeatAgainstRandomMovers) {
  const Yonin y;
  selfplay::PlayerSpec rollout, random;
  rollout.kind = selfplay::PlayerSpec::Kind::kRollout;
  rollout.simulations = 20;
  rollout.name = "rollout:20";
  random.kind = selfplay::PlayerSpec::Kind::kRandom;
  random.name = "random";
  selfplay::MatchSettings ms;
  ms.games = 8;
  ms.parallelGames = 4;
  ms.plyCap = 80;
  ms.idPrefix = "seat-";
  const selfplay::SeatMatchResult r = selfplay::playSeatMatch(y.variant, y.encoder, rollout, random, ms);
  ASSERT_EQ(r.games(), 8);
  ASSERT_EQ(r.records.size(), 8u);
  std::set<std::string> ids;
  for (size_t i = 0; i < r.records.size(); ++i) {
    const selfplay::GameRecord& g = r.records[i];
    ids.insert(g.id);
    EXPECT_NE(g.model.find(std::string("rollout:20 as ") + kSeats[r.seatOfA[i]]), std::string::npos) << g.model;
    game::Position pos(y.variant);
    for (const std::string& m : g.moves) pos.makeMove(pos.parseUsi(m));  // throws on an illegal move
    EXPECT_TRUE(pos.outcome(ms.plyCap).over()) << g.id;
  }
  EXPECT_EQ(ids.size(), 8u);
}

TEST(SeatMatch, GumbelRootPlayersVaryTheirGamesWithoutSampledPlies) {
  // `poppy match --gumbel-actions` for four players: with no sampled plies, uniform-network
  // players searching by PUCT play the same game in every seat rotation that repeats (8 games, 4
  // rotations: at most 4 distinct); with a Gumbel root its draw makes each game its own.
  const Yonin y;
  mcts::UniformEvaluator e(y.encoder.policySize(), mcts::valueSize(4));
  selfplay::PlayerSpec a;
  a.kind = selfplay::PlayerSpec::Kind::kNetwork;
  a.name = "uniform";
  a.evaluator = &e;
  a.search = quick(8);
  selfplay::MatchSettings ms;
  ms.games = 8;
  ms.parallelGames = 8;
  ms.plyCap = 30;
  ms.openingTemperaturePlies = 0;
  const auto distinctGames = [&](const selfplay::PlayerSpec& p) {
    std::set<std::string> lines;
    for (const auto& g : selfplay::playSeatMatch(y.variant, y.encoder, p, p, ms).records) {
      std::string line;
      for (const auto& m : g.moves) line += m + " ";
      lines.insert(line);
    }
    return lines.size();
  };
  EXPECT_LE(distinctGames(a), 4u);
  a.search.gumbelConsidered = 4;
  EXPECT_GE(distinctGames(a), 7u);
}
