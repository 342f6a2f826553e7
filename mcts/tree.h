// One game's search tree. The tree keeps its own copy of the game (history included, so
// repetitions count) and walks it with make/unmake; it never copies a position per playout.
// Selection (PUCT with first-play urgency and virtual loss), expansion and backup live here;
// SearchDriver (search.h) decides which leaves go to the network together.
#pragma once
#include <array>
#include <cstdint>
#include <optional>
#include <random>
#include <vector>

#include "game/position.h"
#include "mcts/capture_search.h"
#include "mcts/gumbel_root.h"
#include "mcts/mate_search.h"
#include "mcts/node.h"
#include "mcts/search_params.h"
#include "nn/encoder.h"

namespace poppy::mcts {

class SearchDriver;

class Tree {
 public:
  struct ChildStat {
    game::Move move;
    int visits;
    float prior;
    float q;  // mean value from the root side's view, in [-1,1] (0 when unvisited)
    float draw = 0.0f;  // mean draw probability below this move (0 when unvisited)
    // Proven result of this move, in plies from the root: +N it mates in N plies, -N the root
    // side is mated in N plies after it, 0 not proven (see Node::proof).
    int mate = 0;
  };

  // gameSoFar carries the game's history; the tree plays on its own copy of it.
  Tree(const game::Position& gameSoFar, const SearchParams& params, uint64_t seed);

  const game::Position& rootPosition() const { return pos_; }
  const SearchParams& params() const { return params_; }
  // Switches Dirichlet noise at the root on or off. It is mixed in when the root is next
  // expanded or advanced to, so self-play sets it before advance() for the move to come
  // (playout cap randomisation: fast searches go without noise).
  void setRootNoise(bool on) { params_.rootNoise = on; }
  int rootVisits() const { return nodes_[0].visits; }
  // The root's legal moves in generateLegal order (empty until the root is expanded).
  std::vector<ChildStat> rootChildren() const;
  float rootValue() const;  // root side's view, 0 before any visit
  std::array<float, 3> rootWdl() const;  // (win, draw, loss) for the root side
  // Temperature 0: the most visited move (ties by prior, then generation order); otherwise
  // sampled in proportion to visits^(1/T). Move::none() when there is nothing to pick.
  game::Move pickMove(float temperature, std::mt19937& rng) const;
  // Plays m at the root. Keeps m's subtree when m was searched (tree reuse), else starts a
  // fresh tree. Throws std::invalid_argument for an illegal move.
  void advance(game::Move m);
  // Searches only these root moves (USI's `go searchmoves`); each must be legal at the root.
  // Call it on a tree that has not searched yet; advance() lifts it (the new root has other moves).
  // A root mate whose first move is not among them is not used.
  void restrictRootMoves(std::vector<game::Move> moves);
  // The game is over at the root (Position::outcome with the ply cap): nothing to search.
  bool rootIsTerminal() const { return rootTerminal_; }
  // The solver proved the root won or lost: more playouts cannot change the move to play.
  bool rootIsProven() const { return nodes_[0].proof != 0; }
  // The root's proof in plies from the root side's view: +N it mates in N, -N it is mated in N.
  int rootMate() const;
  // The mate the root mate search found at this root (empty if none): the line, moves first.
  const std::vector<game::Move>& rootMateLine() const { return rootMateLine_; }

  // Root visit counts as a distribution over encoder policy indices (the training target):
  // out has encoder.policySize() floats, non-zero only at legal moves, summing to 1. Before any
  // child visit it falls back to the priors (uniform before expansion). All zero at a terminal root.
  void visitPolicy(const nn::Encoder& encoder, float* out) const;
  std::vector<float> visitPolicy(const nn::Encoder& encoder) const;
  // The visit counts behind that target, one per root child (rootChildren() order): the visits,
  // less what policy target pruning takes back when playouts were forced (SearchParams).
  std::vector<double> targetVisits() const;

  size_t nodeCount() const { return nodes_.size(); }

  // The most visited line starting with the root's child number `rootChild` (rootChildren()
  // order): that move, then the most visited reply, and so on while nodes have visits.
  std::vector<game::Move> principalVariation(int rootChild, int maxLength = 32) const;

  // PUCT's exploration constant at a node of this many visits (SearchParams::cpuctGrowth).
  float cpuctAt(float parentVisits) const;

 private:
  friend class SearchDriver;

  enum class Descent {
    kLeaf,       // stands at a new node (index in leaf) whose children are allocated: evaluate it
    kResolved,   // reached a game end; its exact value is already backed up
    kCollision,  // reached a node already waiting for the network; virtual loss stays on the path
  };

  // Walks from the root by PUCT, adding virtual loss and making moves on pos_. The caller must
  // call rewind() afterwards (pos_ is left at the end of the path for encoding). With
  // leafMateSearch false a new leaf is returned without its mate search: the caller runs it
  // (SearchDriver's deferred leaf work) and reports a mate with proveLeafByMate.
  Descent descend(int& leaf, bool leafMateSearch = true);
  // The leaf mate search applies to this node (params: solver on, leafMatePlies > 0; not at a
  // root restricted by restrictRootMoves, whose mates may be by moves it must not play).
  bool wantsLeafMateSearch(int node) const {
    return params_.solver && params_.leafMatePlies > 0 && !(node == 0 && !rootMoves_.empty());
  }
  // A leaf returned by descend(leaf, false) mates with `first` in `plies`: proves it and backs
  // up the win in place of the network's value, as descend's own mate search does.
  void proveLeafByMate(int node, game::Move first, int plies);
  void rewind();
  // Sets a pending node's child priors (root noise if it is the root) and backs up its value.
  void expand(int node, const float* priors, float value, float draw);
  // More than two players: the same with each player's score (mcts/player_scores.h).
  void expandScores(int node, const float* priors, const float* scores, float draw);
  // Backs a value (side to move at `node`'s view) up to the root, removing virtual loss.
  void backup(int node, float value, float draw);
  // More than two players: adds each player's score at every node up to the root; a node's
  // valueSum takes 2 * score - 1 of the player to move there.
  void backupScores(int node, const float* scores, float draw);
  // The mean value of child `child` for the player to move at its parent, in [-1, 1], with the
  // child's descents in flight counted as losses (virtual loss).
  float childQ(const Node& parent, const Node& child) const;
  // The same from completed visits only (the child has some).
  float childValue(const Node& parent, const Node& child) const;
  // Removes the virtual loss of a collided descent that ended at `node`.
  void releaseVirtualLoss(int node);
  int selectChild(const Node& parent) const;
  // Forced playouts apply to this search (params: forcedPlayoutsK > 0 with root noise, no Gumbel).
  bool forcingPlayouts() const { return params_.forcedPlayoutsK > 0 && params_.rootNoise && !gumbelAtRoot(); }
  // The next root expanded is searched by Gumbel sequential halving (params: gumbelConsidered
  // > 0 with root noise).
  bool gumbelAtRoot() const { return params_.gumbelConsidered > 0 && params_.rootNoise; }
  // The root's children as Gumbel sees them (gumbelRows_, refilled).
  const std::vector<GumbelChild>& gumbelChildren() const;
  // The root child (index into its block) most short of its forced visits, or -1 if none is.
  int forcedRootChild() const;
  // Marks `node` proven (Node::proof encoding) and carries the proof up while parents follow
  // from it: a child lost for its mover proves its parent won; a parent whose children are all
  // proven won for their movers is lost.
  void prove(int node, int8_t proof);
  // The proof that a node's children give it (Node::proof encoding), 0 when they give none.
  int8_t provenFromChildren(const Node& parent) const;
  // A node's proven children: the shortest win for the node's side (a child proven lost for
  // its mover), the longest loss (ties: more visits), and whether every move loses.
  struct ProofScan {
    int shortestWin = -1, longestLoss = -1;
    bool allLose = false;
  };
  ProofScan scanProofs(const Node& parent) const;
  // Generates the legal moves at pos_ (which stands at `node`) as the node's children: pending.
  void allocateChildren(int node);
  // `first` mates in `plies` from `node` (its children allocated): marks the child, gives a node
  // that never had priors uniform ones, expands it and proves it won.
  void provenByMate(int node, game::Move first, int plies);
  // Mate search at a new leaf (its children just allocated): true when it proved the leaf won.
  bool proveByMateSearch(int node);
  void applyRootNoise();
  // With params_.materialWeight > 0, on each new root once its children have priors: a root move
  // that loses more than kRootMaterialMargin of an army to the captures that follow it (one ply
  // and a capture search, what HaChu sees at depth 1) keeps kUnsafePriorShare of its prior, the
  // rest going to the moves that do not. A network that cannot see a hanging king or lion would
  // otherwise spend a short search on its favourite moves, find them all lost, and never reach
  // the one that saves the game: first-play urgency values an unvisited move below the parent.
  void screenRootMoves();
  static constexpr float kRootMaterialMargin = 0.005f;
  static constexpr float kUnsafePriorShare = 0.01f;
  // The root child that proofs choose (shortest win, else the longest loss when every move is
  // lost), or -1 when proofs do not decide.
  int provenChoice() const;
  void resetRoot();
  // Runs the root mate search (params_.rootMatePlies, rootMateNodes) on a new root; a mate
  // found expands the root if needed (uniform priors: the proof decides) and proves it.
  void searchRootMate();

  SearchParams params_;
  game::Position pos_;
  // More than two players (max-n): per node, each player's summed score and the player to move
  // there; empty for two.
  int players_ = 2;
  std::vector<float> scoreSums_;
  std::vector<int8_t> movers_;
  int depth_ = 0;  // moves made on pos_ beyond the root during a descent
  bool rootTerminal_ = false;
  std::vector<Node> nodes_;  // nodes_[0] is the root
  std::vector<Node> spare_;  // reused by advance() to compact the kept subtree
  game::MoveList moves_;     // scratch for generateLegal
  MateSearch mate_;          // leaf mate search (params_.leafMatePlies)
  std::optional<CaptureSearch> captures_;  // screenRootMoves, made on first use
  std::vector<game::Move> rootMateLine_;
  std::vector<game::Move> rootMoves_;  // restrictRootMoves; empty: every legal move
  std::mt19937_64 rng_;      // root noise and Gumbel variables
  GumbelRoot gumbel_;        // active while the root is searched by Gumbel (gumbelAtRoot)
  mutable std::vector<GumbelChild> gumbelRows_;  // scratch for gumbelChildren()
};

}  // namespace poppy::mcts
