// Gumbel root selection with sequential halving (Danihelka, Guez, Schrittwieser and Silver,
// "Policy improvement by planning with Gumbel", ICLR 2022), for self-play's full searches.
//
// AlphaZero explores with Dirichlet noise at the root and trains on visit counts; with few
// playouts the visits say little and the noise decides much. Gumbel AlphaZero instead samples
// m moves without replacement (the top m of g + logit, g a Gumbel(0,1) draw per move), shares
// the playouts among them by sequential halving (each phase gives the moves left equal visits,
// then keeps the better half by g + logit + sigma(q)), plays the survivor, and trains the policy
// on softmax(logit + sigma(completed q)), which improves on the prior even with 16 playouts.
// Below the root the search stays PUCT.
//
// This file knows nothing of trees: the root's children come in as GumbelChild rows, so the
// rules can be tested with numbers worked out by hand (tests/test_gumbel.cpp).
#pragma once
#include <cstdint>
#include <random>
#include <vector>

namespace poppy::mcts {

struct GumbelParams {
  int considered = 16;   // m: moves sampled at the root (fewer when there are fewer moves)
  // sigma(q) = (cVisit + the most visits of any move) * cScale * q, q rescaled to [0, 1] over
  // the root's moves. The defaults are mctx's (DeepMind's reference implementation).
  float cVisit = 50.0f;
  float cScale = 0.1f;
};

// What the root knows of one of its moves.
struct GumbelChild {
  float prior = 0.0f;    // the network's probability (no noise)
  int visits = 0;        // playouts backed up through the move
  int inFlight = 0;      // playouts on their way down (virtual loss), counted as visits to come
  float q = 0.0f;        // mean value from the root side's view, in [-1, 1] (read when visits > 0)
  bool excluded = false; // proven lost: never searched, played or trained on
};

// Sequential halving's schedule for `simulations` playouts below the root among `considered`
// moves: entry k is the visit count that a move must have to take playout k. Phase p (of
// ceil(log2 considered)) gives each of the moves left max(1, simulations / (phases * left))
// more visits, then halves them (to 2 at the least) until the playouts are spent.
std::vector<int> sequentialHalvingSchedule(int considered, int simulations);

class GumbelRoot {
 public:
  // A new root with `moves` moves: draws their Gumbel variables. `simulations` is the number of
  // playouts the search will spend below the root; networkValue the root's own network value
  // (root side's view), which completes the q of unvisited moves.
  void start(int moves, int simulations, float networkValue, const GumbelParams& params, std::mt19937_64& rng);
  // The same with given Gumbel variables (tests).
  void start(std::vector<float> gumbel, int simulations, float networkValue, const GumbelParams& params);
  void clear() { gumbel_.clear(); }
  bool active() const { return !gumbel_.empty(); }

  // The move that takes the next playout (an index into children), -1 when all are excluded.
  // Sequential halving: among the moves whose visits (in flight included) are the schedule's
  // count for this playout, the highest g + logit + sigma(q). Past the schedule, or when proofs
  // removed the moves it expects, the two most visited moves take turns.
  int select(const std::vector<GumbelChild>& children) const;
  // The move to play: the highest g + logit + sigma(q) among the most visited moves.
  int choice(const std::vector<GumbelChild>& children) const;
  // The policy training target, softmax(logit + sigma(completed q)) over the moves not
  // excluded (0 for excluded ones); out gets one entry per child.
  void improvedPolicy(const std::vector<GumbelChild>& children, std::vector<double>& out) const;

  // q of visited moves; for unvisited ones the value the visited ones and the network give
  // the root (the paper's v_mix). One entry per child.
  std::vector<float> completedQ(const std::vector<GumbelChild>& children) const;
  // sigma(completed q) per child: completed q rescaled to [0, 1] over the children, times
  // (cVisit + the most visits) * cScale.
  std::vector<float> sigma(const std::vector<GumbelChild>& children) const;

 private:
  std::vector<float> scores(const std::vector<GumbelChild>& children, bool withGumbel) const;

  std::vector<float> gumbel_;
  std::vector<int> schedule_;
  float networkValue_ = 0.0f;
  GumbelParams params_;
};

}  // namespace poppy::mcts
