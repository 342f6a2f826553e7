// Settings of the PUCT search. Defaults suit micro shogi self-play.
#pragma once
#include <cstdint>

namespace poppy::mcts {

struct SearchParams {
  int playouts = 128;
  float cpuct = 1.5f;
  // Exploration that grows with the parent's visits (AlphaZero's and KataGo's): PUCT's constant
  // is cpuct + cpuctGrowth * ln((N + cpuctBase) / cpuctBase), N the parent's visits. A search of
  // thousands of playouts keeps widening where a fixed constant would settle on one line.
  // 0 = a fixed constant (every default).
  float cpuctGrowth = 0.0f;
  float cpuctBase = 500.0f;
  // First-play urgency: an unvisited child is valued at the parent's Q minus this reduction
  // (times sqrt of the prior mass already visited, see fpuScaledByVisitedPolicy).
  float fpuReduction = 0.25f;
  // Scale the reduction by sqrt(sum of the priors of visited children), as Lc0 and KataGo do.
  // Without it, a flat policy (an untrained network, the uniform evaluator) makes the search
  // dig into the first child or two and never look at their siblings: with 40 children of
  // prior 1/40, an unvisited child only beats a visited one once the parent has ~180 visits.
  bool fpuScaledByVisitedPolicy = true;
  // Priors are softmax(logit / policyTemperature) over the legal moves (lc0's PolicySoftmaxTemp):
  // above 1 flattens a confident policy, so the search looks at more of the moves it ranks low.
  // An evaluation cache (mcts/eval_cache.h) stores priors at one temperature: share one only
  // between trees of the same temperature.
  float policyTemperature = 1.0f;
  bool rootNoise = false;
  float dirichletAlpha = 0.5f;
  float noiseFraction = 0.25f;
  // Forced playouts and policy target pruning (KataGo), in searches with root noise only
  // (self-play's full searches): each root child gets at least sqrt(k * prior * N) visits, and
  // the training target then takes back the forced visits that PUCT would not have spent.
  // k = forcedPlayoutsK; 0 is off, KataGo uses 2.
  float forcedPlayoutsK = 0.0f;
  // Gumbel root selection with sequential halving (mcts/gumbel_root.h), in searches with root
  // noise only, in place of the Dirichlet noise and forced playouts: this many moves are sampled
  // at the root; 0 is off (PUCT). Such a root is searched afresh each move (no tree reuse: the
  // halving schedule counts the visits of this search), and the move played and the policy
  // target are Gumbel's (at every ply: the Gumbel draw is the exploration, not a temperature).
  int gumbelConsidered = 0;
  float gumbelCScale = 0.1f;  // sigma's c_scale (GumbelParams)
  int leavesPerTree = 4;  // virtual-loss leaves gathered per tree per batch
  int plyCap = 200;       // game plies (counted from the game's SFEN) after which it is drawn
  // Self-play (selfplay.repetition_contempt) and match/ladder model players
  // (--repetition-contempt): a move below the root that brings back a position the game or the
  // path has already had ends its playout as a draw worth this much less than a draw to the side
  // that made it. The rules still draw at the fourth occurrence; this steers search off cheap
  // shuffles (chu's lion passes) that an uninformed value head cannot tell from any other move.
  // 0 = off (the default everywhere else: gate games, usi, play, serve).
  float repetitionContempt = 0.0f;
  // MCTS-solver: game ends found in the tree are proofs, backed up exactly (a child lost for its
  // mover is a won parent; a parent whose children are all won for their movers is lost);
  // selection and move choice play proven wins and avoid proven losses.
  bool solver = true;
  // Exact mate search (checks only, mcts/mate_search.h) at every new leaf before it goes to the
  // network: 0 off, 1 mate in one, 3 mate in three plies. A mate found proves the leaf.
  int leafMatePlies = 3;
  // A deeper mate search at each new root (the position to move in), bounded by a node budget:
  // a mate found proves the root and decides the move before any playout. 0 plies: off.
  int rootMatePlies = 5;
  int64_t rootMateNodes = 4000;
  // Material at the leaves (mcts/capture_search.h; two players): the value of every new leaf the
  // network answers is blended with the material lead its side to move keeps once the captures
  // on the board are played out: (1 - w) x the network's win/draw/loss + w x a sure result whose
  // expected score is tanh(lead / materialScale), the lead a share of one side's start material.
  // For networks too weak to see a hanging piece (chu after an hour). 0 = off (every default).
  // An eval cache keeps the blended answer: share one only between trees of the same two settings.
  float materialWeight = 0.0f;
  float materialScale = 0.1f;
};

// May a tree grown under `a` go on searching under `b` (tree reuse between moves, play::Analyzer)?
// Every setting that shapes the tree must agree. The playouts are a budget, and the ply cap
// moves with the game (`usi` sets it a horizon past the current ply), so those two may differ.
inline bool sameTreeSettings(const SearchParams& a, const SearchParams& b) {
  return a.cpuct == b.cpuct && a.cpuctGrowth == b.cpuctGrowth && a.cpuctBase == b.cpuctBase && a.fpuReduction == b.fpuReduction &&
         a.fpuScaledByVisitedPolicy == b.fpuScaledByVisitedPolicy && a.policyTemperature == b.policyTemperature &&
         a.rootNoise == b.rootNoise && a.dirichletAlpha == b.dirichletAlpha && a.noiseFraction == b.noiseFraction &&
         a.forcedPlayoutsK == b.forcedPlayoutsK && a.gumbelConsidered == b.gumbelConsidered &&
         a.gumbelCScale == b.gumbelCScale && a.leavesPerTree == b.leavesPerTree &&
         a.repetitionContempt == b.repetitionContempt && a.solver == b.solver && a.leafMatePlies == b.leafMatePlies &&
         a.rootMatePlies == b.rootMatePlies && a.rootMateNodes == b.rootMateNodes &&
         a.materialWeight == b.materialWeight && a.materialScale == b.materialScale;
}
// May an EvalCache filled by searches under `a` answer searches under `b`? It keeps priors at one
// policy temperature and values blended with one material weight and scale.
inline bool sameCacheAnswers(const SearchParams& a, const SearchParams& b) {
  return a.policyTemperature == b.policyTemperature && a.materialWeight == b.materialWeight &&
         a.materialScale == b.materialScale;
}
// A new field changes this size: add it to sameTreeSettings (or say there why it may differ),
// then update the size.
static_assert(sizeof(SearchParams) == 96, "SearchParams changed: is the new field in sameTreeSettings?");

}  // namespace poppy::mcts
