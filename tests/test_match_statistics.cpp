// report/match_statistics.h: pentanomial pair counts, LOS and the SPRT. The expected numbers are
// derived by hand beside each test from the formulas of fishtest and fastchess (the header
// states them), not taken from the code.
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "report/match_statistics.h"
#include "report/round_robin.h"

namespace poppy {
namespace {

// A game record of the match "m-": game n, A sente in the even ones, A's result +1, 0 or -1.
void addGame(selfplay::MatchResult& r, int n, int aResult) {
  selfplay::GameRecord g;
  g.id = "m-" + std::to_string(n);
  const bool aSente = n % 2 == 0;
  g.result = aResult == 0 ? "draw" : ((aResult > 0) == aSente ? "sente" : "gote");
  if (aResult > 0) ++r.winsA;
  else if (aResult < 0) ++r.lossesA;
  else ++r.draws;
  r.records.push_back(g);
  r.aWasSente.push_back(aSente);
}

TEST(MatchStatistics, PentanomialCountsFinishedPairsOfColourSwappedGames) {
  selfplay::MatchResult r;
  // Finished out of order, as parallel games do. Pairs: (0, 1) a win and a loss: 1 point;
  // (2, 3) a draw and a win: 1.5; (4, 5) two losses: 0; (6, 7) two wins: 2; game 8 waits for 9.
  addGame(r, 3, +1);
  addGame(r, 0, +1);
  addGame(r, 8, +1);
  addGame(r, 1, -1);
  addGame(r, 2, 0);
  addGame(r, 5, -1);
  addGame(r, 4, -1);
  addGame(r, 7, +1);
  addGame(r, 6, +1);
  const report::Pentanomial p = report::pentanomialOf(r, "m-");
  EXPECT_EQ(p.counts, (std::array<int64_t, 5>{1, 0, 1, 1, 1}));
  EXPECT_EQ(p.pairs(), 4);

  r.records.back().id = "other-6";
  EXPECT_THROW(report::pentanomialOf(r, "m-"), std::invalid_argument);
}

// By hand: 100 pairs [5, 10, 40, 30, 15] have pair scores x = 0, 1/4, 1/2, 3/4, 1 with mean
// m = (2.5 + 20 + 22.5 + 15) / 100 = 0.6 and variance
// v = (5 x 0.36 + 10 x 0.1225 + 40 x 0.01 + 30 x 0.0225 + 15 x 0.16) / 100 = 6.5 / 100 = 0.065.
// Elo 0 and 10 expect s0 = 0.5 and s1 = 1 / (1 + 10^-0.025) = 1 / 1.944061 = 0.514387, so
// LLR = 100 (0.014387) (1.2 - 1.014387) / 0.13 = 2.0542. Bounds at alpha = beta = 0.05:
// ln(0.05 / 0.95) = -2.9444 and +2.9444.
TEST(MatchStatistics, SprtLogLikelihoodRatioOfAHandWorkedCase) {
  report::Pentanomial p;
  p.counts = {5, 10, 40, 30, 15};
  const report::SprtSettings s{0, 10, 0.05, 0.05};
  report::SprtStatus st = report::sprtStatus(p, s);
  EXPECT_NEAR(st.llr, 2.0542, 5e-4);
  EXPECT_NEAR(st.lower, -2.9444, 1e-4);
  EXPECT_NEAR(st.upper, 2.9444, 1e-4);
  EXPECT_EQ(st.verdict, report::SprtVerdict::kContinue);

  // Twice the pairs in the same proportions: twice the evidence, 4.108, past the upper bound.
  p.counts = {10, 20, 80, 60, 30};
  st = report::sprtStatus(p, s);
  EXPECT_NEAR(st.llr, 4.1084, 1e-3);
  EXPECT_EQ(st.verdict, report::SprtVerdict::kAcceptH1);

  // The mirror image, m = 0.4: LLR = 200 (0.014387) (0.8 - 1.014387) / 0.13 = -4.745: H0.
  p.counts = {30, 60, 80, 20, 10};
  st = report::sprtStatus(p, s);
  EXPECT_NEAR(st.llr, -4.7452, 1e-3);
  EXPECT_EQ(st.verdict, report::SprtVerdict::kAcceptH0);
  EXPECT_EQ(report::sprtVerdictText(st.verdict), "H0 accepted");

  // alpha 0.01, beta 0.1 move the bounds: ln(0.1 / 0.99) = -2.2925, ln(0.9 / 0.01) = 4.4998.
  st = report::sprtStatus(p, {0, 10, 0.01, 0.1});
  EXPECT_NEAR(st.lower, -2.2925, 1e-4);
  EXPECT_NEAR(st.upper, 4.4998, 1e-4);
}

// Every pair won: no variance without fastchess's regularisation (a zero count counts as 0.001
// pairs), which keeps the ratio finite and large: the test decides for H1 at once.
TEST(MatchStatistics, SprtDecidesOnPairsThatAllScoredTheSame) {
  report::Pentanomial p;
  EXPECT_EQ(report::sprtLogLikelihoodRatio(p, {0, 10, 0.05, 0.05}), 0.0);  // no pairs, no evidence
  p.counts = {0, 0, 0, 0, 3};
  const report::SprtStatus st = report::sprtStatus(p, {0, 10, 0.05, 0.05});
  EXPECT_TRUE(std::isfinite(st.llr));
  EXPECT_EQ(st.verdict, report::SprtVerdict::kAcceptH1);
}

// A floor on the pairs: the same three pairs decide with minPairs 3 and not with 4 (same LLR,
// reported); a negative floor is refused by name.
TEST(MatchStatistics, SprtWaitsForItsMinimumPairs) {
  report::Pentanomial p;
  p.counts = {0, 0, 0, 0, 3};
  const report::SprtStatus waiting = report::sprtStatus(p, {0, 10, 0.05, 0.05, 4});
  EXPECT_EQ(waiting.verdict, report::SprtVerdict::kContinue);
  const report::SprtStatus decided = report::sprtStatus(p, {0, 10, 0.05, 0.05, 3});
  EXPECT_EQ(decided.verdict, report::SprtVerdict::kAcceptH1);
  EXPECT_DOUBLE_EQ(waiting.llr, decided.llr);
  try {
    report::checkSprtSettings({0, 10, 0.05, 0.05, -1});
    ADD_FAILURE() << "a negative minimum of pairs was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("min pairs -1"), std::string::npos) << e.what();
  }
}

// By hand: 60 wins, 40 losses: 0.5 (1 + erf(20 / sqrt(200))) = 0.5 (1 + erf(1.41421)) =
// 0.5 (1 + 0.954500) = 0.977250. Draws change nothing; no decisive game: 0.5.
TEST(MatchStatistics, LikelihoodOfSuperiorityFromWinsAndLosses) {
  selfplay::MatchResult r;
  r.winsA = 60;
  r.lossesA = 40;
  r.draws = 25;
  EXPECT_NEAR(report::likelihoodOfSuperiority(r), 0.977250, 1e-6);
  r.winsA = r.lossesA = 0;
  EXPECT_EQ(report::likelihoodOfSuperiority(r), 0.5);
}

TEST(MatchStatistics, BadSprtSettingsAreNamed) {
  try {
    report::checkSprtSettings({10, 0, 0.05, 0.05});
    FAIL() << "elo0 above elo1 accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "elo0 10 must be below elo1 0");
  }
  EXPECT_THROW(report::checkSprtSettings({0, 10, 0, 0.05}), std::invalid_argument);
  EXPECT_THROW(report::checkSprtSettings({0, 10, 0.05, 0.5}), std::invalid_argument);
  EXPECT_NO_THROW(report::checkSprtSettings({-5, 5, 0.01, 0.2}));
}

}  // namespace
}  // namespace poppy

// --- round robin (report/round_robin.h) -------------------------------------------------------

// Two players, 3 points of 4: the Elo difference is 400 log10(0.75 / 0.25) = 190.85.
TEST(RoundRobin, TwoPlayersGiveTheScoresElo) {
  const std::vector<double> elo = poppy::report::roundRobinElo(2, {{0, 1, 1.0, 4}});
  EXPECT_DOUBLE_EQ(elo[0], 0);
  EXPECT_NEAR(elo[1], 400 * std::log10(3.0), 0.5);
}

// Scores that are exactly what ratings 0, -100 and -250 predict (equal games per pair): the
// maximum-likelihood ratings are those ratings (each player's expected points equal its points).
TEST(RoundRobin, ConsistentScoresGiveTheirRatingsBack) {
  auto expected = [](double a, double b) { return 1 / (1 + std::pow(10.0, (b - a) / 400)); };
  const double r[3] = {0, -100, -250};
  const int n = 100;
  std::vector<poppy::report::PairResult> pairs;
  for (int i = 0; i < 3; ++i)
    for (int j = i + 1; j < 3; ++j) pairs.push_back({i, j, n * expected(r[i], r[j]), n});
  const std::vector<double> elo = poppy::report::roundRobinElo(3, pairs);
  for (int i = 0; i < 3; ++i) EXPECT_NEAR(elo[size_t(i)], r[i], 1.0) << i;
  // A player who never scored stays finite, below the others, at most the bound away.
  const std::vector<double> shut = poppy::report::roundRobinElo(3, {{0, 1, 2, 4}, {0, 2, 4, 4}, {1, 2, 4, 4}});
  EXPECT_LT(shut[2], shut[1]);
  EXPECT_GE(shut[2], -poppy::report::kEloBound);
  EXPECT_THROW(poppy::report::roundRobinElo(2, {{0, 1, 5, 4}}), std::invalid_argument);
  EXPECT_THROW(poppy::report::roundRobinElo(2, {{0, 2, 1, 4}}), std::invalid_argument);
}

TEST(RoundRobin, TheCrosstableListsPlayersByRating) {
  const std::string t = poppy::report::crosstable({"a", "b"}, {{0, 1, 1.0, 4}}, {0, 190.85});
  // b (3 of 4) first, with its +191; a second, 1 of 4 against b.
  EXPECT_LT(t.find("b "), t.find("a "));
  EXPECT_NE(t.find("+191"), std::string::npos) << t;
  EXPECT_NE(t.find("3.0/4"), std::string::npos) << t;
  EXPECT_NE(t.find("1.0/4"), std::string::npos) << t;
}
