#include "mcts/tree.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "mcts/player_scores.h"

namespace poppy::mcts {

namespace {

// Value of a finished game from the view of the side to move there.
void terminalValue(const game::Position& pos, const game::Outcome& o, float& value, float& draw) {
  draw = o.draw() ? 1.0f : 0.0f;
  value = o.winner < 0 ? 0.0f : (o.winner == pos.sideToMove() ? 1.0f : -1.0f);
}

}  // namespace

Tree::Tree(const game::Position& gameSoFar, const SearchParams& params, uint64_t seed)
    : params_(params), pos_(gameSoFar), players_(gameSoFar.variant().numPlayers), mate_(params.plyCap), rng_(seed) {
  if (players_ > 2) {
    // Proofs, mate searches and repetition contempt are two-player tools (a won or lost
    // position, one opponent's reply): a four-player tree goes without them. Gumbel's root
    // needs only the root mover's value of each move, which max-n gives (childValue).
    params_.solver = false;
    params_.leafMatePlies = params_.rootMatePlies = 0;
    params_.repetitionContempt = 0.0f;
  }
  nodes_.reserve(1024);
  resetRoot();
}

void Tree::resetRoot() {
  gumbel_.clear();
  nodes_.clear();
  nodes_.emplace_back();
  if (players_ > 2) {
    scoreSums_.assign(size_t(players_), 0.0f);
    movers_.assign(1, int8_t(pos_.sideToMove()));
  }
  rootTerminal_ = pos_.outcome(params_.plyCap).over();
  searchRootMate();
}

void Tree::searchRootMate() {
  rootMateLine_.clear();
  Node& root = nodes_[0];
  if (!params_.solver || params_.rootMatePlies <= 0 || rootTerminal_ || root.proof != 0) return;
  MateSearch search(params_.plyCap, params_.rootMateNodes);
  MateResult r = search.find(pos_, params_.rootMatePlies);
  if (!r.found) return;
  if (!rootMoves_.empty() && std::find(rootMoves_.begin(), rootMoves_.end(), r.line.front()) == rootMoves_.end())
    return;  // a mate by a move the search may not play proves nothing about the moves it may
  rootMateLine_ = std::move(r.line);
  if (root.state == Node::kNew) allocateChildren(0);  // a reused root keeps its children and priors
  provenByMate(0, rootMateLine_.front(), r.plies);
}

float Tree::cpuctAt(float parentVisits) const {
  if (params_.cpuctGrowth <= 0.0f) return params_.cpuct;
  return params_.cpuct + params_.cpuctGrowth * std::log((parentVisits + params_.cpuctBase) / params_.cpuctBase);
}

// PUCT: Q + cpuct * P * sqrt(N) / (1 + n). Virtual loss counts each descent in flight as a
// loss, so the leaves gathered for one batch spread over the tree instead of piling up.
// With the solver, a child proven lost for its mover (a won move) is taken at once, the
// shortest such mate first, and children proven won for their movers (lost moves) are never
// chosen while another move is left; when all moves lose, the longest resistance is searched.
int Tree::selectChild(const Node& parent) const {
  if (&parent == nodes_.data() && gumbel_.active()) {
    const ProofScan scan = params_.solver ? scanProofs(parent) : ProofScan{};
    if (scan.shortestWin >= 0) return parent.firstChild + scan.shortestWin;
    const int chosen = gumbel_.select(gumbelChildren());
    return parent.firstChild + (chosen >= 0 ? chosen : std::max(scan.longestLoss, 0));
  }
  if (&parent == nodes_.data() && forcingPlayouts())
    if (const int forced = forcedRootChild(); forced >= 0) return parent.firstChild + forced;
  const Node* c = nodes_.data() + parent.firstChild;
  const int count = parent.numChildren;
  const float parentVisits = float(std::max(1, parent.visits + parent.inFlight));
  const float explore = cpuctAt(parentVisits) * std::sqrt(parentVisits);
  float best = -std::numeric_limits<float>::infinity();
  int bestIndex = -1;
  float visitedPolicy = 0.0f;
  int unvisited = -1;  // the unvisited child with the highest prior: all of them share one Q
  int win = -1, longestLoss = -1;  // proven children (solver): one pass serves both
  for (int i = 0; i < count; ++i) {
    if (c[i].proof != 0 && params_.solver) {
      if (c[i].provenLoss()) {
        if (win < 0 || c[i].proofPlies() < c[win].proofPlies()) win = i;
      } else if (longestLoss < 0 || c[i].proofPlies() > c[longestLoss].proofPlies()) {
        longestLoss = i;
      }
      continue;
    }
    const int n = c[i].visits + c[i].inFlight;
    if (n == 0) {
      if (unvisited < 0 || c[i].prior > c[unvisited].prior) unvisited = i;
      continue;
    }
    visitedPolicy += c[i].prior;
    const float score = childQ(parent, c[i]) + explore * c[i].prior / float(1 + n);
    if (score > best) {
      best = score;
      bestIndex = i;
    }
  }
  if (win >= 0) return parent.firstChild + win;
  if (unvisited >= 0) {
    const float parentQ = parent.visits > 0 ? parent.valueSum / float(parent.visits) : 0.0f;
    float reduction = params_.fpuReduction;
    if (params_.fpuScaledByVisitedPolicy) reduction *= std::sqrt(visitedPolicy);
    const float score = parentQ - reduction + explore * c[unvisited].prior;
    if (bestIndex < 0 || score > best) bestIndex = unvisited;
  }
  if (bestIndex < 0) bestIndex = std::max(longestLoss, 0);  // every move is proven lost
  return parent.firstChild + bestIndex;
}

// Forced playouts (KataGo): a root child with prior P gets at least sqrt(k * P * N) visits, N
// the root's visits, so that moves the noise favoured are looked at enough to be judged. A
// proven root child is left to the solver's rules.
int Tree::forcedRootChild() const {
  const Node& root = nodes_[0];
  const Node* c = nodes_.data() + root.firstChild;
  const float total = float(root.visits + root.inFlight);
  int most = -1;
  float mostShort = 0.0f;
  for (int i = 0; i < root.numChildren; ++i) {
    if (params_.solver && c[i].proof != 0) {
      if (c[i].provenLoss()) return -1;  // a won move: the solver plays it
      continue;
    }
    const float shortBy = std::sqrt(params_.forcedPlayoutsK * c[i].prior * total) - float(c[i].visits + c[i].inFlight);
    if (shortBy > mostShort) {
      mostShort = shortBy;
      most = i;
    }
  }
  return most;
}

void Tree::prove(int node, int8_t proof) {
  nodes_[size_t(node)].proof = proof;
  // Re-derive each ancestor from its children while that changes it: a first proof, or a
  // shorter win (a longer resistance) found below a node proven before.
  for (int n = node;;) {
    const int p = nodes_[size_t(n)].parent;
    if (p < 0) return;
    Node& parent = nodes_[size_t(p)];
    const int8_t derived = provenFromChildren(parent);
    if (derived == 0 || derived == parent.proof) return;
    parent.proof = derived;
    n = p;
  }
}

Tree::ProofScan Tree::scanProofs(const Node& parent) const {
  ProofScan scan;
  const Node* c = nodes_.data() + parent.firstChild;
  scan.allLose = parent.numChildren > 0;
  for (int i = 0; i < parent.numChildren; ++i) {
    if (c[i].provenLoss() && (scan.shortestWin < 0 || c[i].proofPlies() < c[scan.shortestWin].proofPlies()))
      scan.shortestWin = i;
    if (!c[i].provenWin()) {
      scan.allLose = false;
    } else if (scan.longestLoss < 0 || c[i].proofPlies() > c[scan.longestLoss].proofPlies() ||
               (c[i].proofPlies() == c[scan.longestLoss].proofPlies() && c[i].visits > c[scan.longestLoss].visits)) {
      scan.longestLoss = i;
    }
  }
  return scan;
}

int8_t Tree::provenFromChildren(const Node& parent) const {
  const ProofScan scan = scanProofs(parent);
  const Node* c = nodes_.data() + parent.firstChild;
  if (scan.shortestWin >= 0) return Node::winIn(c[scan.shortestWin].proofPlies() + 1);
  if (scan.allLose) return Node::lossIn(c[scan.longestLoss].proofPlies() + 1);
  return 0;
}

bool Tree::proveByMateSearch(int node) {
  int plies = 0;
  const game::Move m = mate_.quick(pos_, params_.leafMatePlies, plies);
  if (m.isNone()) return false;
  provenByMate(node, m, plies);
  return true;
}

void Tree::proveLeafByMate(int node, game::Move first, int plies) {
  provenByMate(node, first, plies);
  backup(node, 1.0f, 0.0f);
}

void Tree::provenByMate(int node, game::Move first, int plies) {
  Node& n = nodes_[size_t(node)];
  Node* c = nodes_.data() + n.firstChild;
  // Priors are never read below a proven node, except at a root searched again after tree
  // reuse, where selection takes the proven move first; uniform ones keep a node that never
  // had the network's valid.
  const bool needsPriors = n.state != Node::kExpanded;
  for (int i = 0; i < n.numChildren; ++i) {
    if (needsPriors) c[i].prior = 1.0f / float(n.numChildren);
    if (c[i].move == first) c[i].proof = Node::lossIn(plies - 1);
  }
  n.state = Node::kExpanded;
  prove(node, Node::winIn(plies));
}

float Tree::childQ(const Node& parent, const Node& child) const {
  const int n = child.visits + child.inFlight;
  // Two players: the child stores values from its own side's view; the parent's is the negation.
  if (players_ == 2) return (-child.valueSum - float(child.inFlight)) / float(n);
  const size_t p = size_t(&parent - nodes_.data()), c = size_t(&child - nodes_.data());
  return (2.0f * scoreSums_[c * size_t(players_) + size_t(movers_[p])] - float(n)) / float(n);
}

float Tree::childValue(const Node& parent, const Node& child) const {
  if (players_ == 2) return -child.valueSum / float(child.visits);
  const size_t p = size_t(&parent - nodes_.data()), c = size_t(&child - nodes_.data());
  return 2.0f * scoreSums_[c * size_t(players_) + size_t(movers_[p])] / float(child.visits) - 1.0f;
}

void Tree::allocateChildren(int node) {
  pos_.generateLegal(moves_);
  if (node == 0 && !rootMoves_.empty()) {
    int kept = 0;  // in place, generation order kept
    for (int i = 0; i < moves_.size(); ++i)
      if (std::find(rootMoves_.begin(), rootMoves_.end(), moves_[i]) != rootMoves_.end()) moves_.moves[kept++] = moves_[i];
    moves_.count = kept;
  }
  const int first = int(nodes_.size());
  const int count = moves_.size();
  nodes_.resize(nodes_.size() + size_t(count));  // invalidates references into nodes_
  if (players_ > 2) {
    scoreSums_.resize(nodes_.size() * size_t(players_), 0.0f);
    movers_.resize(nodes_.size(), -1);  // set when a descent first stands on the child
  }
  for (int i = 0; i < count; ++i) {
    Node& child = nodes_[size_t(first + i)];
    child.move = moves_[i];
    child.parent = node;
  }
  Node& self = nodes_[size_t(node)];
  self.firstChild = first;
  self.numChildren = uint16_t(count);
  self.state = Node::kPending;
}

Tree::Descent Tree::descend(int& leaf, bool leafMateSearch) {
  int cur = 0;
  depth_ = 0;
  for (;;) {
    Node& node = nodes_[cur];
    ++node.inFlight;
    // A proven node below the root is exact: no need to look further (MCTS-solver).
    if (node.proof != 0 && cur != 0 && params_.solver) {
      backup(cur, node.provenWin() ? 1.0f : -1.0f, 0.0f);
      return Descent::kResolved;
    }
    switch (node.state) {
      case Node::kExpanded: {
        cur = selectChild(node);
        pos_.makeMove(nodes_[cur].move);
        if (players_ > 2) movers_[size_t(cur)] = int8_t(pos_.sideToMove());
        ++depth_;
        continue;
      }
      case Node::kPending:
        leaf = cur;
        return Descent::kCollision;
      case Node::kTerminal: {
        // Every backup of a terminal adds the same exact value, so the mean is that value.
        const float v = node.valueSum / float(node.visits), d = node.drawSum / float(node.visits);
        if (players_ > 2) {
          float scores[game::kMaxPlayers];
          for (int p = 0; p < players_; ++p)
            scores[p] = scoreSums_[size_t(cur) * size_t(players_) + size_t(p)] / float(node.visits);
          backupScores(cur, scores, d);
        } else {
          backup(cur, v, d);
        }
        return Descent::kResolved;
      }
      case Node::kNew:
        break;
    }
    const game::Outcome o = pos_.outcome(params_.plyCap);
    if (o.over() && players_ > 2) {
      float scores[game::kMaxPlayers], d;
      terminalScores(pos_, o, scores, d);
      node.state = Node::kTerminal;
      backupScores(cur, scores, d);
      return Descent::kResolved;
    }
    if (o.over()) {
      float v, d;
      terminalValue(pos_, o, v, d);
      node.state = Node::kTerminal;
      backup(cur, v, d);
      if (params_.solver && !o.draw()) prove(cur, v > 0 ? Node::winIn(0) : Node::lossIn(0));
      return Descent::kResolved;
    }
    if (params_.repetitionContempt > 0 && cur != 0 && pos_.repetitionsSoFar() > 0) {
      // Not a game end: scored +contempt for the side to move here, so -contempt for the
      // mover (values are from the side to move's view); advance() never keeps such a node.
      node.state = Node::kTerminal;
      backup(cur, params_.repetitionContempt, 1.0f);
      return Descent::kResolved;
    }
    // The only generateLegal for this node: its moves become its children right away, and the
    // network's priors fill them in later (Tree::expand).
    allocateChildren(cur);  // invalidates `node`
    if (leafMateSearch && wantsLeafMateSearch(cur) && proveByMateSearch(cur)) {
      backup(cur, 1.0f, 0.0f);
      return Descent::kResolved;
    }
    leaf = cur;
    return Descent::kLeaf;
  }
}

void Tree::rewind() {
  for (; depth_ > 0; --depth_) pos_.unmakeMove();
}

void Tree::expand(int node, const float* priors, float value, float draw) {
  Node& n = nodes_[node];
  Node* c = nodes_.data() + n.firstChild;
  for (int i = 0; i < n.numChildren; ++i) c[i].prior = priors[i];
  n.state = Node::kExpanded;
  if (node == 0) screenRootMoves();
  if (node == 0 && gumbelAtRoot()) {
    const GumbelParams gumbel{params_.gumbelConsidered, GumbelParams{}.cVisit, params_.gumbelCScale};
    gumbel_.start(n.numChildren, params_.playouts - 1, value, gumbel, rng_);  // the root's own visit is the first playout
  } else if (node == 0 && params_.rootNoise) {
    applyRootNoise();
  }
  backup(node, value, draw);
}

void Tree::expandScores(int node, const float* priors, const float* scores, float draw) {
  Node& n = nodes_[node];
  Node* c = nodes_.data() + n.firstChild;
  for (int i = 0; i < n.numChildren; ++i) c[i].prior = priors[i];
  n.state = Node::kExpanded;
  if (node == 0 && gumbelAtRoot()) {
    const GumbelParams gumbel{params_.gumbelConsidered, GumbelParams{}.cVisit, params_.gumbelCScale};
    // The root mover's expected score, as a value in [-1, 1] like childValue's.
    const float value = 2.0f * scores[movers_[0]] - 1.0f;
    gumbel_.start(n.numChildren, params_.playouts - 1, value, gumbel, rng_);
  } else if (node == 0 && params_.rootNoise) {
    applyRootNoise();
  }
  backupScores(node, scores, draw);
}

void Tree::backupScores(int node, const float* scores, float draw) {
  for (int n = node; n >= 0;) {
    Node& x = nodes_[n];
    ++x.visits;
    --x.inFlight;
    float* sums = scoreSums_.data() + size_t(n) * size_t(players_);
    for (int p = 0; p < players_; ++p) sums[p] += scores[p];
    x.valueSum += 2.0f * scores[movers_[size_t(n)]] - 1.0f;
    x.drawSum += draw;
    n = x.parent;
  }
}

void Tree::backup(int node, float value, float draw) {
  for (int n = node; n >= 0;) {
    Node& x = nodes_[n];
    ++x.visits;
    --x.inFlight;
    x.valueSum += value;
    x.drawSum += draw;
    value = -value;
    n = x.parent;
  }
}

void Tree::releaseVirtualLoss(int node) {
  for (int n = node; n >= 0; n = nodes_[n].parent) --nodes_[n].inFlight;
}

void Tree::screenRootMoves() {
  Node& root = nodes_[0];
  if (!(params_.materialWeight > 0) || players_ > 2 || root.numChildren < 2) return;
  if (!captures_) captures_.emplace(pos_.variantPtr());
  Node* c = nodes_.data() + root.firstChild;
  std::vector<float> kept(size_t(root.numChildren));
  float best = -2.0f;
  for (int i = 0; i < root.numChildren; ++i) {
    pos_.makeMove(c[i].move);
    // The material the mover keeps: the opponent's capture search, seen from the mover's side;
    // taking the last royal piece (chu) is the whole game.
    kept[size_t(i)] = CaptureSearch::tookLastRoyal(pos_) ? 1.0f : -captures_->balance(pos_);
    pos_.unmakeMove();
    best = std::max(best, kept[size_t(i)]);
  }
  float sum = 0.0f;
  for (int i = 0; i < root.numChildren; ++i) {
    if (kept[size_t(i)] < best - kRootMaterialMargin) c[i].prior *= kUnsafePriorShare;
    sum += c[i].prior;
  }
  if (sum > 0.0f)
    for (int i = 0; i < root.numChildren; ++i) c[i].prior /= sum;
}

// Dirichlet noise on the root priors (AlphaZero): self-play then tries moves the network
// dismisses. Sampled as normalised Gamma(alpha, 1) draws.
void Tree::applyRootNoise() {
  Node& root = nodes_[0];
  const int count = root.numChildren;
  if (count < 2) return;
  std::gamma_distribution<float> gamma(params_.dirichletAlpha, 1.0f);
  std::vector<float> noise(static_cast<size_t>(count));
  float sum = 0.0f;
  for (float& x : noise) sum += (x = gamma(rng_));
  if (!(sum > 0.0f)) return;
  const float f = params_.noiseFraction;
  Node* c = nodes_.data() + root.firstChild;
  for (int i = 0; i < count; ++i) c[i].prior = (1.0f - f) * c[i].prior + f * noise[size_t(i)] / sum;
}

void Tree::restrictRootMoves(std::vector<game::Move> moves) {
  if (nodes_[0].visits > 0) throw std::logic_error("Tree::restrictRootMoves: the tree has searched already");
  for (game::Move m : moves)
    if (!pos_.isLegal(m)) throw std::invalid_argument("Tree::restrictRootMoves: illegal move in " + pos_.sfen());
  rootMoves_ = std::move(moves);
  resetRoot();  // the constructor's root mate search may have proved the root by a move left out
}

void Tree::advance(game::Move m) {
  rootMoves_.clear();
  const Node& root = nodes_[0];
  int keep = -1;
  if (root.firstChild >= 0)
    for (int i = 0; i < root.numChildren; ++i)
      if (nodes_[size_t(root.firstChild + i)].move == m) {
        keep = root.firstChild + i;
        break;
      }
  if (keep < 0 && !pos_.isLegal(m))
    throw std::invalid_argument("Tree::advance: illegal move in " + pos_.sfen());
  pos_.makeMove(m);
  gumbel_.clear();
  if (gumbelAtRoot()) {  // sequential halving schedules the visits of one search from none
    resetRoot();
    return;
  }

  const Node::State kept = keep >= 0 ? nodes_[size_t(keep)].state : Node::kNew;
  // A repetition scored by repetitionContempt is terminal in the tree only: search it afresh.
  const bool keptGameEnd = kept == Node::kTerminal && pos_.outcome(params_.plyCap).over();
  if (kept != Node::kExpanded && !keptGameEnd) {
    resetRoot();
    return;
  }
  // Copy the kept subtree into spare_ breadth first: each copied node still names its old
  // child block, which is appended and re-pointed when the loop reaches it.
  spare_.clear();
  spare_.push_back(nodes_[size_t(keep)]);
  spare_[0].parent = -1;
  // More than two players: the kept nodes' score sums and movers move with them (oldIndex).
  std::vector<int> oldIndex;
  if (players_ > 2) oldIndex.push_back(keep);
  for (size_t i = 0; i < spare_.size(); ++i) {
    const int oldFirst = spare_[i].firstChild;
    if (oldFirst < 0) continue;
    const int count = spare_[i].numChildren;
    const int newFirst = int(spare_.size());
    spare_.insert(spare_.end(), nodes_.begin() + oldFirst, nodes_.begin() + oldFirst + count);
    spare_[i].firstChild = newFirst;
    for (int k = 0; k < count; ++k) spare_[size_t(newFirst + k)].parent = int(i);
    if (players_ > 2)
      for (int k = 0; k < count; ++k) oldIndex.push_back(oldFirst + k);
  }
  nodes_.swap(spare_);
  if (players_ > 2) {
    std::vector<float> scores(nodes_.size() * size_t(players_));
    std::vector<int8_t> movers(nodes_.size());
    for (size_t i = 0; i < nodes_.size(); ++i) {
      const size_t old = size_t(oldIndex[i]);
      std::copy_n(scoreSums_.begin() + std::ptrdiff_t(old * size_t(players_)), players_,
                  scores.begin() + std::ptrdiff_t(i * size_t(players_)));
      movers[i] = movers_[old];
    }
    scoreSums_.swap(scores);
    movers_.swap(movers);
  }
  rootTerminal_ = pos_.outcome(params_.plyCap).over();
  searchRootMate();
  if (nodes_[0].state == Node::kExpanded) screenRootMoves();
  if (params_.rootNoise && nodes_[0].state == Node::kExpanded) applyRootNoise();
}

std::vector<Tree::ChildStat> Tree::rootChildren() const {
  std::vector<ChildStat> out;
  const Node& root = nodes_[0];
  if (root.state != Node::kExpanded) return out;
  out.reserve(root.numChildren);
  for (int i = 0; i < root.numChildren; ++i) {
    const Node& c = nodes_[size_t(root.firstChild + i)];
    const int mate = c.provenLoss() ? c.proofPlies() + 1 : c.provenWin() ? -(c.proofPlies() + 1) : 0;
    out.push_back({c.move, c.visits, c.prior, c.visits > 0 ? childValue(root, c) : 0.0f,
                   c.visits > 0 ? c.drawSum / float(c.visits) : 0.0f, mate});
  }
  return out;
}

std::vector<game::Move> Tree::principalVariation(int rootChild, int maxLength) const {
  std::vector<game::Move> line;
  const Node& root = nodes_[0];
  if (root.state != Node::kExpanded || rootChild < 0 || rootChild >= root.numChildren) return line;
  int cur = root.firstChild + rootChild;
  if (!rootMateLine_.empty() && nodes_[size_t(cur)].move == rootMateLine_.front()) {
    line.assign(rootMateLine_.begin(), rootMateLine_.begin() + std::min<size_t>(rootMateLine_.size(), size_t(maxLength)));
    return line;
  }
  while (int(line.size()) < maxLength) {
    const Node& n = nodes_[size_t(cur)];
    line.push_back(n.move);
    if (n.state != Node::kExpanded || n.numChildren == 0) break;
    int best = -1;
    for (int i = 0; i < n.numChildren; ++i) {
      const Node& c = nodes_[size_t(n.firstChild + i)];
      if (c.visits > 0 && (best < 0 || c.visits > nodes_[size_t(best)].visits)) best = n.firstChild + i;
    }
    if (best < 0) break;
    cur = best;
  }
  return line;
}

int Tree::rootMate() const {
  const Node& root = nodes_[0];
  return root.provenWin() ? root.proofPlies() : root.provenLoss() ? -root.proofPlies() : 0;
}

float Tree::rootValue() const {
  const Node& root = nodes_[0];
  if (root.proof != 0) return root.provenWin() ? 1.0f : -1.0f;
  if (root.visits > 0) return root.valueSum / float(root.visits);
  if (rootTerminal_) {
    float v, d;
    terminalValue(pos_, pos_.outcome(params_.plyCap), v, d);
    return v;
  }
  return 0.0f;
}

std::array<float, 3> Tree::rootWdl() const {
  const Node& root = nodes_[0];
  float v = 0.0f, d = 1.0f;
  if (root.proof != 0) {
    v = root.provenWin() ? 1.0f : -1.0f;
    d = 0.0f;
  } else if (root.visits > 0) {
    v = root.valueSum / float(root.visits);
    d = root.drawSum / float(root.visits);
  } else if (rootTerminal_) {
    terminalValue(pos_, pos_.outcome(params_.plyCap), v, d);
  }
  if (players_ > 2 && root.proof == 0 && root.visits > 0) {
    // v = 2 * score - 1 for the mover, whose score is W plus its share of a draw.
    int in = 0;
    for (game::Color c = 0; c < players_; ++c) in += !pos_.isOut(c);
    const float w = std::max(0.0f, 0.5f * (v + 1.0f) - d / float(in));
    return {w, d, std::max(0.0f, 1.0f - w - d)};
  }
  // v = W - L and W + D + L = 1.
  const float w = std::max(0.0f, 0.5f * (1.0f - d + v));
  const float l = std::max(0.0f, 0.5f * (1.0f - d - v));
  return {w, d, l};
}

// With the solver, proofs decide before visits: the shortest proven win is played; moves proven
// lost are never played while another is left, and when every move loses, the longest
// resistance is played (an opponent may still go wrong).
int Tree::provenChoice() const {
  const Node& root = nodes_[0];
  if (!params_.solver || root.state != Node::kExpanded) return -1;
  const ProofScan scan = scanProofs(root);
  if (scan.shortestWin >= 0) return scan.shortestWin;
  return scan.allLose ? scan.longestLoss : -1;
}

game::Move Tree::pickMove(float temperature, std::mt19937& rng) const {
  const Node& root = nodes_[0];
  if (root.state != Node::kExpanded || root.numChildren == 0) return game::Move::none();
  const Node* c = nodes_.data() + root.firstChild;
  const int count = root.numChildren;
  if (const int proven = provenChoice(); proven >= 0) return c[proven].move;
  if (gumbel_.active()) {  // Gumbel's move at every ply: its draw is the exploration
    const int chosen = gumbel_.choice(gumbelChildren());
    if (chosen >= 0) return c[chosen].move;
  }
  // Moves proven lost take no part below (provenChoice answered if all of them are).
  const auto playable = [&](int i) { return !(params_.solver && c[i].provenWin()); };
  int best = -1;
  for (int i = 0; i < count; ++i) {
    if (!playable(i)) continue;
    if (best < 0 || c[i].visits > c[best].visits || (c[i].visits == c[best].visits && c[i].prior > c[best].prior))
      best = i;
  }
  if (temperature <= 0.0f || c[best].visits == 0) return c[best].move;

  // visits^(1/T), relative to the most visited child so the powers stay finite for small T.
  std::vector<double> weight(static_cast<size_t>(count));
  double total = 0.0;
  const double inv = 1.0 / double(temperature), top = double(c[best].visits);
  for (int i = 0; i < count; ++i)
    total += (weight[size_t(i)] = c[i].visits > 0 && playable(i) ? std::pow(double(c[i].visits) / top, inv) : 0.0);
  // A portable uniform draw in [0, total): std::uniform_real_distribution differs by library.
  double u = double(rng()) / 4294967296.0 * total;
  for (int i = 0; i < count; ++i) {
    if (u < weight[size_t(i)]) return c[i].move;
    u -= weight[size_t(i)];
  }
  return c[best].move;  // rounding at the end of the range
}

void Tree::visitPolicy(const nn::Encoder& encoder, float* out) const {
  std::fill(out, out + encoder.policySize(), 0.0f);
  if (rootTerminal_) return;
  const Node& root = nodes_[0];
  if (root.state != Node::kExpanded) {
    game::MoveList moves;
    pos_.generateLegal(moves);
    for (const game::Move& m : moves) out[encoder.moveIndex(pos_, m)] = 1.0f / float(moves.size());
    return;
  }
  const Node* c = nodes_.data() + root.firstChild;
  // A proof is a better target than visits: the proven move alone (the shortest win, or the
  // longest resistance when all lose); otherwise moves proven lost get no share.
  if (const int proven = provenChoice(); proven >= 0) {
    out[encoder.moveIndex(pos_, c[proven].move)] = 1.0f;
    return;
  }
  if (gumbel_.active()) {
    std::vector<double> improved;
    gumbel_.improvedPolicy(gumbelChildren(), improved);
    for (int i = 0; i < root.numChildren; ++i)
      if (improved[size_t(i)] > 0) out[encoder.moveIndex(pos_, c[i].move)] = float(improved[size_t(i)]);
    return;
  }
  const auto playable = [&](int i) { return !(params_.solver && c[i].provenWin()); };
  const std::vector<double> counts = targetVisits();
  double visits = 0.0, priors = 0.0;
  for (int i = 0; i < root.numChildren; ++i) {
    if (!playable(i)) continue;
    visits += counts[size_t(i)];
    priors += c[i].prior;
  }
  for (int i = 0; i < root.numChildren; ++i) {
    if (!playable(i)) continue;
    const double share = visits > 0   ? counts[size_t(i)] / visits
                         : priors > 0 ? c[i].prior / priors
                                      : 1.0 / root.numChildren;
    out[encoder.moveIndex(pos_, c[i].move)] = float(share);
  }
}

// Policy target pruning (KataGo): forced visits that PUCT would not have given are taken back
// from every child but the most visited one c*. A child keeps the visits n' at which its PUCT
// score Q + cpuct * P * sqrt(N) / (1 + n') would still reach c*'s, losing at most its forced
// sqrt(k * P * N); a child left with one visit or none drops out of the target.
std::vector<double> Tree::targetVisits() const {
  const Node& root = nodes_[0];
  const Node* c = nodes_.data() + root.firstChild;
  std::vector<double> counts(size_t(root.numChildren));
  int best = -1;
  for (int i = 0; i < root.numChildren; ++i) {
    counts[size_t(i)] = c[i].visits;
    if (best < 0 || c[i].visits > c[best].visits) best = i;
  }
  if (!forcingPlayouts() || best < 0 || c[best].visits == 0) return counts;
  const double total = root.visits;
  const double explore = cpuctAt(float(total)) * std::sqrt(total);
  const auto q = [&](int i) { return double(childValue(root, c[i])); };
  const double bestScore = q(best) + explore * c[best].prior / (1.0 + c[best].visits);
  for (int i = 0; i < root.numChildren; ++i) {
    if (i == best || c[i].visits == 0) continue;
    const double gap = bestScore - q(i);
    if (gap <= 0) continue;  // its value alone earns it every visit
    const double forced = std::sqrt(double(params_.forcedPlayoutsK) * c[i].prior * total);
    const double earned = std::ceil(explore * c[i].prior / gap - 1.0);
    const double kept = std::clamp(std::max(double(c[i].visits) - forced, earned), 0.0, double(c[i].visits));
    counts[size_t(i)] = kept <= 1.0 ? 0.0 : kept;
  }
  return counts;
}

const std::vector<GumbelChild>& Tree::gumbelChildren() const {
  const Node& root = nodes_[0];
  const Node* c = nodes_.data() + root.firstChild;
  gumbelRows_.resize(root.numChildren);
  for (int i = 0; i < root.numChildren; ++i) {
    GumbelChild& row = gumbelRows_[size_t(i)];
    row.prior = c[i].prior;
    row.visits = c[i].visits;
    row.inFlight = c[i].inFlight;
    row.q = c[i].visits > 0 ? childValue(root, c[i]) : 0.0f;
    row.excluded = params_.solver && c[i].provenWin();
  }
  return gumbelRows_;
}

std::vector<float> Tree::visitPolicy(const nn::Encoder& encoder) const {
  std::vector<float> out(size_t(encoder.policySize()));
  visitPolicy(encoder, out.data());
  return out;
}

}  // namespace poppy::mcts
