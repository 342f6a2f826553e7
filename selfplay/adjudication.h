// Ending match games early on the players' own scores, as engine testers do (cutechess-cli's and
// fastchess's -resign and -draw): a game whose result both programs already see is not played out.
//
// Resign: a player whose score of its own moves was at most -resignCp for resignMoves moves in a
// row loses; with twoSided, only when the opponent's last resignMoves moves also scored at least
// +resignCp (both agree). Draw: from move drawFromMove on (a move being one ply of each side),
// when both players' scores stayed within drawCp of zero for drawMoves moves each in a row.
// A move without a score (a player that does not report one, a book move) breaks every streak:
// only what the players said counts. Scores are centipawns from the mover's view; mates count as
// kMateScoreCp (minus the plies to the mate, so nearer mates score higher).
#pragma once
#include <optional>
#include <string>

namespace poppy::selfplay {

inline constexpr int kMateScoreCp = 30000;

struct AdjudicationRules {
  int resignMoves = 0, resignCp = 0;  // resignMoves 0: no resign adjudication
  bool resignTwoSided = false;
  int drawFromMove = 0, drawMoves = 0, drawCp = 0;  // drawMoves 0: no draw adjudication
  bool enabled() const { return resignMoves > 0 || drawMoves > 0; }
};

// Parses "MOVES:CP" (resign) and "FROM:MOVES:CP" (draw); throws std::invalid_argument naming the
// text and what is wrong (counts must be positive, centipawns not negative).
void parseResignRule(const std::string& text, AdjudicationRules& rules);
void parseDrawRule(const std::string& text, AdjudicationRules& rules);

// A value v in [-1, 1] (the network's win - loss) as centipawns on the shogi engines' scale, as
// `poppy usi` reports it: mcts::centipawnsOfWinRate of p = (1 + v) / 2 (at most +-6,963, below
// any mate score).
int centipawnsOfValue(double v);

struct Verdict {
  int winner = -1;     // 0 sente, 1 gote, -1 a draw
  std::string detail;  // for the game record: who scored what, for how long
};

// One game's scores, move by move.
class Adjudicator {
 public:
  explicit Adjudicator(AdjudicationRules rules = {}) : rules_(rules) {}
  // The move just played by `mover` (0 sente, 1 gote), now at game ply `ply` (after the move),
  // with the mover's score if it gave one. A verdict ends the game.
  std::optional<Verdict> afterMove(int mover, std::optional<int> scoreCp, int ply);

 private:
  AdjudicationRules rules_;
  int losing_[2] = {0, 0};   // each side's own moves in a row scoring <= -resignCp
  int winning_[2] = {0, 0};  // ... scoring >= +resignCp
  int level_[2] = {0, 0};    // ... within drawCp of zero
};

}  // namespace poppy::selfplay
