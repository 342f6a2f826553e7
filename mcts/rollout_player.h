// The classic baseline before networks: UCT Monte Carlo tree search whose leaves are valued by
// playing uniformly random moves to the end of the game (the ply cap counts as a draw, or as the
// variant adjudicates it). No network; game ends are judged by Position::outcome exactly as in
// the PUCT search. New search per move (no tree reuse): it is a yardstick, not a contender.
// Any number of players (max-n, as the PUCT search's player_scores.h): each node keeps the
// score of the player who moved into it, a game's result giving the winner 1 and the others 0,
// and a draw an equal share to the players still in it (for two players: 1, 0.5, 0).
#pragma once
#include <cstdint>
#include <memory>
#include <random>
#include <vector>

#include "game/position.h"

namespace poppy::mcts {

class RolloutPlayer {
 public:
  RolloutPlayer(int simulations, uint64_t seed, int plyCap = 200, float c = 1.4f);
  // The most visited root move after `simulations` playouts; Move::none() when the game is over.
  game::Move choose(const game::Position& pos);

  // Analysis in steps (the USI engine, hints, the web page): startSearch sets the root (a copy
  // of pos, history included; false, with nothing to search, when the game is over there),
  // searchMore adds simulations to it, so a caller can stop on a clock or a stop flag between
  // steps. choose() is startSearch + searchMore(simulations) + mostVisitedMove.
  struct ChildStat {
    game::Move move;
    int visits;
    float score;  // mean result for the root side: 1 win, 0 loss, a draw its share (0.5 when unvisited)
    float draw;   // share of the results below this move that were draws
  };
  bool startSearch(const game::Position& pos);
  void searchMore(int simulations);
  // The root move with the most visits (the first of equals); Move::none() before any simulation.
  game::Move mostVisitedMove() const;
  int rootVisits() const { return nodes_.empty() ? 0 : nodes_[0].visits; }
  std::vector<ChildStat> rootChildren() const;  // empty until the first simulation
  // The root's child number `rootChild`, then the most visited reply, and so on.
  std::vector<game::Move> principalVariation(int rootChild, int maxLength = 32) const;

 private:
  // A finished game's score for each player, and whether it was drawn.
  struct Result {
    float scores[game::kMaxPlayers] = {};
    bool draw = false;
  };
  struct Node {
    game::Move move;
    float score = 0.0f;  // sum of the results of `mover`, the player who moved here
    float draws = 0.0f;  // how many of those results were draws
    int visits = 0;
    int parent = -1;
    int firstChild = -1;  // children are one block, created in random order when first visited
    int numChildren = 0;
    int8_t mover = -1;       // the colour of the player who moved here; -1 at the root
    int8_t terminal = -1;    // -1 not known yet, 0 game goes on, 1 game over here
    Result terminalResult;   // when terminal == 1
  };

  // One selection-expansion-rollout-backup pass; pos is the root and is restored.
  void simulate(game::Position& pos);
  // The result after random play from pos to the end of the game; pos restored.
  Result rollout(game::Position& pos);
  static Result resultOf(const game::Position& pos, const game::Outcome& outcome);
  // UCB1 over a node's children, all of which have been visited.
  int selectChild(const Node& parent) const;

  int simulations_;
  int plyCap_;
  float c_;
  std::mt19937_64 rng_;
  std::vector<Node> nodes_;
  game::MoveList moves_;
  std::unique_ptr<game::Position> root_;  // startSearch's position
};

}  // namespace poppy::mcts
