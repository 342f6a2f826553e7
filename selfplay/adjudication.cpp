#include "selfplay/adjudication.h"

#include <cstdlib>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "mcts/centipawns.h"

namespace poppy::selfplay {
namespace {

// "a:b:c" -> its whole numbers; throws naming `what` and the text.
std::vector<int> numbers(const std::string& text, size_t count, const std::string& what, const std::string& form) {
  std::vector<int> out;
  std::stringstream in(text);
  std::string part;
  while (std::getline(in, part, ':')) {
    size_t used = 0;
    int value = 0;
    try {
      value = std::stoi(part, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (part.empty() || used != part.size())
      throw std::invalid_argument(what + " '" + text + "': '" + part + "' is not a whole number (expected " + form + ")");
    out.push_back(value);
  }
  if (out.size() != count || (!text.empty() && text.back() == ':'))
    throw std::invalid_argument(what + " '" + text + "': expected " + form);
  return out;
}

std::string sideName(int side) { return side == 0 ? "sente" : "gote"; }

}  // namespace

void parseResignRule(const std::string& text, AdjudicationRules& rules) {
  const std::vector<int> n = numbers(text, 2, "--resign", "MOVES:CP, e.g. 3:1000");
  if (n[0] < 1) throw std::invalid_argument("--resign '" + text + "': MOVES must be at least 1");
  if (n[1] < 0) throw std::invalid_argument("--resign '" + text + "': CP must not be negative");
  rules.resignMoves = n[0];
  rules.resignCp = n[1];
}

void parseDrawRule(const std::string& text, AdjudicationRules& rules) {
  const std::vector<int> n = numbers(text, 3, "--draw", "FROM:MOVES:CP, e.g. 40:8:10");
  if (n[0] < 0) throw std::invalid_argument("--draw '" + text + "': FROM must not be negative");
  if (n[1] < 1) throw std::invalid_argument("--draw '" + text + "': MOVES must be at least 1");
  if (n[2] < 0) throw std::invalid_argument("--draw '" + text + "': CP must not be negative");
  rules.drawFromMove = n[0];
  rules.drawMoves = n[1];
  rules.drawCp = n[2];
}

int centipawnsOfValue(double v) { return int(mcts::centipawnsOfWinRate((1.0 + v) / 2.0)); }

std::optional<Verdict> Adjudicator::afterMove(int mover, std::optional<int> scoreCp, int ply) {
  if (!scoreCp) {
    losing_[mover] = winning_[mover] = level_[mover] = 0;
    return std::nullopt;
  }
  const int s = *scoreCp;
  losing_[mover] = s <= -rules_.resignCp ? losing_[mover] + 1 : 0;
  winning_[mover] = s >= rules_.resignCp ? winning_[mover] + 1 : 0;
  level_[mover] = std::abs(s) <= rules_.drawCp ? level_[mover] + 1 : 0;
  // Two-sided, the winner's move may be the one that completes the agreement: both sides are
  // looked at after every move.
  for (const int loser : {mover, 1 - mover}) {
    const int winner = 1 - loser;
    if (rules_.resignMoves > 0 && losing_[loser] >= rules_.resignMoves &&
        (!rules_.resignTwoSided || winning_[winner] >= rules_.resignMoves)) {
      Verdict v;
      v.winner = winner;
      v.detail = sideName(loser) + " scored " + std::to_string(-rules_.resignCp) + " cp or less for " +
                 std::to_string(rules_.resignMoves) + " moves in a row" +
                 (rules_.resignTwoSided ? " and " + sideName(winner) + " " + std::to_string(rules_.resignCp) +
                                              " or more for as many"
                                        : "") +
                 " (last move's score " + std::to_string(s) + ")";
      return v;
    }
  }
  // Move m (counting from 1) is complete after ply 2m.
  if (rules_.drawMoves > 0 && ply >= 2 * rules_.drawFromMove && level_[0] >= rules_.drawMoves &&
      level_[1] >= rules_.drawMoves) {
    Verdict v;
    v.detail = "both scored within " + std::to_string(rules_.drawCp) + " cp of zero for " +
               std::to_string(rules_.drawMoves) + " moves in a row, from move " + std::to_string(rules_.drawFromMove);
    return v;
  }
  return std::nullopt;
}

}  // namespace poppy::selfplay
