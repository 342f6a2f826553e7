// The statistics engine testers read a match by (fastchess, cutechess, fishtest): the games of an
// opening played twice with colours swapped counted as one pair (pentanomial counts), the
// likelihood of superiority, and the sequential probability ratio test that stops a match as
// soon as it has decided between two Elo hypotheses.
//
// The SPRT is the generalised SPRT of fishtest and fastchess with the logistic Elo model: for the
// hypotheses H0: Elo = elo0 and H1: Elo = elo1, with s = 1 / (1 + 10^(-Elo/400)) the expected
// score of each, and the N pairs' scores x (A's points in the pair over 2: 0, 1/4, 1/2, 3/4, 1)
// with mean m and variance v,
//   LLR = N (s1 - s0) (2m - s0 - s1) / (2v)
// (Van den Bergh's normal approximation of the log likelihood ratio). The match stops with H1
// accepted when LLR >= ln((1 - beta) / alpha), with H0 accepted when LLR <= ln(beta / (1 - alpha)).
// Counting pairs rather than games takes the pairs' correlation into account (an opening that
// favours one side favours each player once), which a count of games ignores.
#pragma once
#include <array>
#include <cstdint>
#include <string>

#include "selfplay/match.h"

namespace poppy::report {

// Pairs of colour-swapped games by A's points in the pair: counts[k] pairs scored k/2 points
// (k = 0: two losses; 1: a loss and a draw; 2: two draws, or a win and a loss; 3: a win and a
// draw; 4: two wins).
struct Pentanomial {
  std::array<int64_t, 5> counts{};
  int64_t pairs() const;
};

// The pairs (games 2k and 2k+1 of the match: the same opening, A sente in the first) of which
// both games have finished, from the records' ids (idPrefix + game number). Throws
// std::invalid_argument naming a record whose id is not the match's.
Pentanomial pentanomialOf(const selfplay::MatchResult& result, const std::string& idPrefix);

// The likelihood that A is the stronger player, from the wins and losses (draws say nothing
// about it): 0.5 (1 + erf((W - L) / sqrt(2 (W + L)))); 0.5 without a decisive game.
double likelihoodOfSuperiority(const selfplay::MatchResult& result);

struct SprtSettings {
  double elo0 = 0, elo1 = 5;       // the hypotheses, logistic Elo of A over B; elo0 < elo1
  double alpha = 0.05, beta = 0.05;  // the chances of accepting H1 when H0 holds, and H0 when H1 does
  // The test may not decide before this many pairs have finished (0: at any pair). The first
  // pairs of a lopsided match all score alike, and with fastchess's regularisation (below) one
  // such pair has almost no variance and decides at once (LLR 17.7 for [0, 50] after one pair won
  // twice); a floor keeps a verdict from resting on a game or two.
  int minPairs = 0;
};

// Throws std::invalid_argument unless elo0 < elo1, alpha and beta are in (0, 0.5) and minPairs >= 0.
void checkSprtSettings(const SprtSettings& s);

// The log likelihood ratio of H1 over H0 for these pairs. A pentanomial count of zero counts as
// 0.001 pairs (fastchess's regularisation): without it a match whose pairs all scored the same
// would have no variance and no ratio. 0 without pairs.
double sprtLogLikelihoodRatio(const Pentanomial& pairs, const SprtSettings& s);

enum class SprtVerdict { kContinue, kAcceptH0, kAcceptH1 };

struct SprtStatus {
  double llr = 0;
  double lower = 0, upper = 0;  // ln(beta / (1 - alpha)) and ln((1 - beta) / alpha)
  SprtVerdict verdict = SprtVerdict::kContinue;
};

SprtStatus sprtStatus(const Pentanomial& pairs, const SprtSettings& s);

// "H0 accepted", "H1 accepted" or "undecided".
std::string sprtVerdictText(SprtVerdict v);

}  // namespace poppy::report
