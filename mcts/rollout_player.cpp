#include "mcts/rollout_player.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "mcts/player_scores.h"

namespace poppy::mcts {

RolloutPlayer::Result RolloutPlayer::resultOf(const game::Position& pos, const game::Outcome& outcome) {
  Result r;
  float draw = 0.0f;
  terminalScores(pos, outcome, r.scores, draw);
  r.draw = outcome.draw();
  return r;
}

RolloutPlayer::RolloutPlayer(int simulations, uint64_t seed, int plyCap, float c)
    : simulations_(std::max(1, simulations)), plyCap_(plyCap), c_(c), rng_(seed) {}

game::Move RolloutPlayer::choose(const game::Position& pos) {
  if (!startSearch(pos)) return game::Move::none();
  searchMore(simulations_);
  return mostVisitedMove();
}

bool RolloutPlayer::startSearch(const game::Position& pos) {
  nodes_.clear();
  root_.reset();
  if (pos.outcome(plyCap_).over()) return false;
  root_ = std::make_unique<game::Position>(pos);  // the simulations make and unmake on this copy
  nodes_.emplace_back();
  return true;
}

game::Move RolloutPlayer::mostVisitedMove() const {
  if (nodes_.empty() || nodes_[0].numChildren == 0) return game::Move::none();
  const Node& root = nodes_[0];
  int best = root.firstChild;
  for (int i = 1; i < root.numChildren; ++i)
    if (nodes_[size_t(root.firstChild + i)].visits > nodes_[size_t(best)].visits) best = root.firstChild + i;
  return nodes_[size_t(best)].move;
}

void RolloutPlayer::searchMore(int simulations) {
  if (!root_) throw std::logic_error("RolloutPlayer::searchMore before startSearch");
  for (int s = 0; s < simulations; ++s) simulate(*root_);
}

std::vector<RolloutPlayer::ChildStat> RolloutPlayer::rootChildren() const {
  std::vector<ChildStat> out;
  if (nodes_.empty() || nodes_[0].firstChild < 0) return out;
  for (int i = 0; i < nodes_[0].numChildren; ++i) {
    const Node& c = nodes_[size_t(nodes_[0].firstChild + i)];
    out.push_back({c.move, c.visits, c.visits ? c.score / float(c.visits) : 0.5f,
                   c.visits ? c.draws / float(c.visits) : 0.0f});
  }
  return out;
}

std::vector<game::Move> RolloutPlayer::principalVariation(int rootChild, int maxLength) const {
  std::vector<game::Move> line;
  if (nodes_.empty() || rootChild < 0 || rootChild >= nodes_[0].numChildren) return line;
  int cur = nodes_[0].firstChild + rootChild;
  while (int(line.size()) < maxLength) {
    const Node& n = nodes_[size_t(cur)];
    line.push_back(n.move);
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

int RolloutPlayer::selectChild(const Node& parent) const {
  const float logN = std::log(float(parent.visits));
  int best = parent.firstChild;
  float bestScore = -1.0f;
  for (int i = 0; i < parent.numChildren; ++i) {
    const Node& ch = nodes_[size_t(parent.firstChild + i)];
    const float score = ch.score / float(ch.visits) + c_ * std::sqrt(logN / float(ch.visits));
    if (score > bestScore) {
      bestScore = score;
      best = parent.firstChild + i;
    }
  }
  return best;
}

void RolloutPlayer::simulate(game::Position& pos) {
  int cur = 0, depth = 0;
  Result result;
  for (;;) {
    if (nodes_[size_t(cur)].terminal < 0) {
      const game::Outcome o = pos.outcome(plyCap_);
      nodes_[size_t(cur)].terminal = o.over() ? 1 : 0;
      if (o.over()) nodes_[size_t(cur)].terminalResult = resultOf(pos, o);
    }
    Node& node = nodes_[size_t(cur)];
    if (node.terminal == 1) {
      result = node.terminalResult;
      break;
    }
    if (node.firstChild < 0) {
      // First time through: all children at once, shuffled, so "the next untried child" is a
      // uniformly random untried move.
      pos.generateLegal(moves_);
      const int first = int(nodes_.size()), count = moves_.size();
      nodes_.resize(nodes_.size() + size_t(count));  // invalidates `node`
      for (int i = 0; i < count; ++i) {
        nodes_[size_t(first + i)].move = moves_[i];
        nodes_[size_t(first + i)].parent = cur;
        nodes_[size_t(first + i)].mover = pos.sideToMove();
      }
      std::shuffle(nodes_.begin() + first, nodes_.end(), rng_);
      nodes_[size_t(cur)].firstChild = first;
      nodes_[size_t(cur)].numChildren = count;
    }
    const Node& parent = nodes_[size_t(cur)];
    // Children are tried in block order, so the first unvisited one follows the visited ones.
    int next = -1;
    for (int i = 0; i < parent.numChildren; ++i)
      if (nodes_[size_t(parent.firstChild + i)].visits == 0) {
        next = parent.firstChild + i;
        break;
      }
    const bool expanding = next >= 0;
    if (!expanding) next = selectChild(parent);
    pos.makeMove(nodes_[size_t(next)].move);
    ++depth;
    cur = next;
    if (expanding) {
      const game::Outcome o = pos.outcome(plyCap_);
      Node& leaf = nodes_[size_t(cur)];
      leaf.terminal = o.over() ? 1 : 0;
      if (o.over()) leaf.terminalResult = resultOf(pos, o);
      result = o.over() ? leaf.terminalResult : rollout(pos);
      break;
    }
  }
  // Each node scores for the player who moved into it (the root, for no one, counts visits).
  for (int n = cur; n >= 0; n = nodes_[size_t(n)].parent) {
    Node& node = nodes_[size_t(n)];
    node.visits += 1;
    if (node.mover >= 0) node.score += result.scores[node.mover];
    if (result.draw) node.draws += 1.0f;
  }
  for (; depth > 0; --depth) pos.unmakeMove();
}

RolloutPlayer::Result RolloutPlayer::rollout(game::Position& pos) {
  int plies = 0;
  Result result;
  for (;;) {
    const game::Outcome o = pos.outcome(plyCap_);
    if (o.over()) {
      result = resultOf(pos, o);
      break;
    }
    pos.generateLegal(moves_);
    pos.makeMove(moves_[int(rng_() % uint64_t(moves_.size()))]);
    ++plies;
  }
  for (; plies > 0; --plies) pos.unmakeMove();
  return result;
}

}  // namespace poppy::mcts
