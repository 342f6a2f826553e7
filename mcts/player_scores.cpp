#include "mcts/player_scores.h"

#include <algorithm>

namespace poppy::mcts {

unsigned outPlayers(const game::Position& pos) {
  unsigned out = 0;
  for (game::Color c = 0; c < pos.variant().numPlayers; ++c) out |= unsigned(pos.isOut(c)) << c;
  return out;
}

void scoresFromValues(int players, game::Color mover, unsigned out, const float* values, float* scores, float& draw) {
  auto isOut = [&](game::Color c) { return (out >> c) & 1; };
  float wins[game::kMaxPlayers] = {};
  float total = std::max(0.0f, values[players]);
  int in = 0;
  for (int place = 0; place < players; ++place) {
    const game::Color c = (mover + place) % players;
    if (isOut(c)) continue;
    ++in;
    wins[c] = std::max(0.0f, values[place]);
    total += wins[c];
  }
  if (!(total > 0.0f)) {  // nothing usable: an even share among the players still in
    draw = 1.0f;
    for (game::Color c = 0; c < players; ++c) scores[c] = isOut(c) ? 0.0f : 1.0f / float(in);
    return;
  }
  draw = std::max(0.0f, values[players]) / total;
  for (game::Color c = 0; c < players; ++c)
    scores[c] = isOut(c) ? 0.0f : wins[c] / total + draw / float(in);
}

void terminalScores(const game::Position& pos, const game::Outcome& outcome, float* scores, float& draw) {
  const int players = pos.variant().numPlayers;
  int in = 0;
  for (game::Color c = 0; c < players; ++c) in += !pos.isOut(c);
  draw = outcome.draw() ? 1.0f : 0.0f;
  for (game::Color c = 0; c < players; ++c)
    scores[c] = outcome.draw() ? (pos.isOut(c) ? 0.0f : 1.0f / float(in)) : (c == outcome.winner ? 1.0f : 0.0f);
}

}  // namespace poppy::mcts
