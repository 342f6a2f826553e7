// Values for more than two players (yonin shogi): the search keeps each player's expected
// score, in [0, 1] and summing to 1 over the players, and each node chooses for the player to
// move there (max-n). A player who is out (mated and taken over) scores 0; a drawn game is
// shared by the players still in it. Two-player search keeps its own W - L values (tree.h).
#pragma once
#include "game/position.h"
#include "game/types.h"

namespace poppy::mcts {

// Floats per position in an evaluator's answer: (win, draw, loss) from the mover's view for
// two players; for more, each player's chance to win, the mover first and then clockwise, and
// the chance of a draw last.
inline int valueSize(int players) { return players == 2 ? 3 : players + 1; }
constexpr int kMaxValueSize = game::kMaxPlayers + 1;

// An evaluator's answer for `pos` (valueSize floats, as above) as scores by player, with the
// draw chance. A player who is out gets no chance of winning; what the evaluator gave it goes
// to the others in proportion.
// `out`: a bit per player who is out (outPlayers).
void scoresFromValues(int players, game::Color mover, unsigned out, const float* values, float* scores, float& draw);
unsigned outPlayers(const game::Position& pos);

// A finished game: the winner scores 1; a draw is shared by the players still in.
void terminalScores(const game::Position& pos, const game::Outcome& outcome, float* scores, float& draw);

}  // namespace poppy::mcts
