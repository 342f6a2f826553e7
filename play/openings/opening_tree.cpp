#include "play/openings/opening_tree.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <deque>
#include <map>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "play/human/four_player_board_text.h"

namespace poppy::play {

namespace {

using Clock = std::chrono::steady_clock;

std::string withoutMoveNumber(const std::string& sfen) {
  const size_t space = sfen.rfind(' ');
  return space == std::string::npos ? sfen : sfen.substr(0, space);
}

// Searches expected under a node still to be searched at `depth`, when every searched node
// expands `branching` children on average: 1 + b + b^2 + ... down to the last searched level.
double expectedSearches(int depth, int maxDepth, double branching) {
  double total = 0, level = 1;
  for (int d = depth; d < maxDepth; ++d) {
    total += level;
    level *= branching;
  }
  return total;
}

struct Pending {
  OpeningNode* node;
  game::Position pos;
  int depth;
};

void checkOptions(const OpeningTreeOptions& o) {
  if (o.depth < 1 || o.depth > kMaxOpeningTreeDepth)
    throw std::invalid_argument("depth " + std::to_string(o.depth) + " is out of range (1 to " +
                                std::to_string(kMaxOpeningTreeDepth) + ")");
  if (!(o.minShare >= 0 && o.minShare <= 1))
    throw std::invalid_argument("min-share " + std::to_string(o.minShare) + " is out of range (0 to 1)");
  if (o.maxChildren < 1) throw std::invalid_argument("max-children must be at least 1");
  if (o.playouts < 0) throw std::invalid_argument("playouts must not be negative");
}

}  // namespace

OpeningTree buildOpeningTree(Analyzer& analyzer, const game::Position& start, const OpeningTreeOptions& options,
                             const std::function<void(const OpeningTreeProgress&)>& progress) {
  checkOptions(options);
  const Clock::time_point began = Clock::now();
  OpeningTree tree;
  tree.variant = start.variant().name;
  tree.startSfen = start.sfen();
  tree.options = options;
  tree.network = analyzer.usesNetwork();
  tree.root.sfen = tree.startSfen;
  tree.root.mover = sideName(start.variant(), start.sideToMove());
  tree.players = start.variant().numPlayers;
  tree.root.prior = 1;
  tree.root.share = 1;

  SearchLimits limits;
  limits.playouts = options.playouts;
  // Breadth first, so the estimate of what is left improves level by level. Children vectors
  // are filled once, before their nodes are queued, so the queued pointers stay valid.
  std::deque<Pending> queue;
  queue.push_back({&tree.root, start, 0});
  int64_t expanded = 0;  // children added under searched nodes that could have children
  int64_t parents = 0;   // searched nodes above the last level
  // Until something is known, guess that the preferred moves fill the allowed width.
  const double guess = std::min<double>(options.maxChildren, options.minShare > 0 ? 1.0 / options.minShare : 20.0);
  while (!queue.empty()) {
    Pending p = std::move(queue.front());
    queue.pop_front();
    OpeningNode& node = *p.node;
    const Analysis a = analyzer.analyze(p.pos, limits);
    if (a.terminal) {
      node.terminal = true;
    } else {
      node.searched = true;
      node.playouts = a.playouts;
      ++tree.searches;
      if (p.depth == 0) {
        node.visits = a.playouts;
        node.wdl = a.wdl;
        node.winRate = a.winRate;
      }
      std::vector<game::Position> nextPositions;
      for (const MoveInfo& m : a.moves) {
        if (int(node.children.size()) >= options.maxChildren) break;
        if (m.visits <= 0 || m.share < options.minShare) break;  // ranked: the rest are smaller
        OpeningNode child;
        child.move = m.usi;
        child.line = node.line;
        child.line.push_back(m.usi);
        child.prior = m.prior;
        child.share = m.share;
        child.visits = m.visits;
        child.wdl = m.wdl;
        child.winRate = m.winRate;
        game::Position next = p.pos;
        next.makeMove(m.move);
        child.sfen = next.sfen();
        child.mover = sideName(p.pos.variant(), p.pos.sideToMove());
        node.children.push_back(std::move(child));
        nextPositions.push_back(std::move(next));
      }
      ++parents;
      expanded += int64_t(node.children.size());
      for (size_t i = 0; i < node.children.size(); ++i) {
        if (p.depth + 1 < options.depth) {
          queue.push_back({&node.children[i], std::move(nextPositions[i]), p.depth + 1});
        } else {
          node.children[i].terminal = nextPositions[i].outcome(analyzer.params().plyCap).over();
        }
      }
    }
    if (progress) {
      const double branching = parents ? double(expanded) / double(parents) : guess;
      double left = 0;
      for (const Pending& q : queue) left += expectedSearches(q.depth, options.depth, branching);
      OpeningTreeProgress pr;
      pr.searched = tree.searches;
      pr.estimate = tree.searches + int64_t(std::llround(left));
      pr.seconds = std::chrono::duration<double>(Clock::now() - began).count();
      progress(pr);
    }
  }
  return tree;
}

std::vector<std::string> checkGameRecords(const std::vector<selfplay::GameRecord>& records, const std::string& source,
                                          const game::VariantPtr& variant) {
  std::map<std::string, std::string> keys;  // record start SFEN -> its position key
  std::vector<std::string> out;
  out.reserve(records.size());
  for (const selfplay::GameRecord& r : records) {
    if (r.variant != variant->name)
      throw std::invalid_argument("game records '" + source + "': game '" + r.id + "' is of variant '" + r.variant +
                                  "', not '" + variant->name + "'");
    auto it = keys.find(r.start);
    if (it == keys.end()) {
      try {
        it = keys.emplace(r.start, withoutMoveNumber(game::Position::fromSfen(variant, r.start).sfen())).first;
      } catch (const std::exception& e) {
        throw std::invalid_argument("game records '" + source + "': game '" + r.id + "': bad start SFEN: " +
                                    e.what());
      }
    }
    out.push_back(it->second);
  }
  return out;
}

void countGames(OpeningTree& tree, const std::vector<selfplay::GameRecord>& records, const std::string& source,
                const game::VariantPtr& variant) {
  const std::vector<std::string> starts = checkGameRecords(records, source, variant);
  const std::string startKey = withoutMoveNumber(tree.startSfen);
  for (size_t i = 0; i < records.size(); ++i) {
    if (starts[i] != startKey) continue;  // a game from another position (a book, --sfen)
    OpeningNode* node = &tree.root;
    ++node->games;
    ++tree.recordGames;
    for (const std::string& move : records[i].moves) {
      OpeningNode* next = nullptr;
      for (OpeningNode& c : node->children)
        if (c.move == move) next = &c;
      if (!next) break;
      ++next->games;
      node = next;
    }
  }
}

OpeningBook openingTreeToBook(const OpeningTree& tree, const game::VariantPtr& variant) {
  OpeningBook book(variant->name);
  const game::Position start = game::Position::fromSfen(variant, tree.startSfen);
  std::deque<std::pair<const OpeningNode*, game::Position>> queue;
  queue.emplace_back(&tree.root, start);
  while (!queue.empty()) {
    auto [node, pos] = std::move(queue.front());
    queue.pop_front();
    if (node->children.empty()) continue;
    if (!book.find(pos)) {  // breadth first: the shallowest occurrence of a position wins
      std::vector<BookMove> moves;
      for (const OpeningNode& c : node->children) {
        BookMove m;
        m.move = c.move;
        m.weight = c.share;  // > 0: only visited moves are expanded
        m.visits = int(c.visits);
        m.winRate = c.winRate;
        moves.push_back(std::move(m));
      }
      book.set(pos, std::move(moves));
    }
    for (const OpeningNode& c : node->children) {
      game::Position next = pos;
      next.makeMove(pos.parseUsi(c.move));
      queue.emplace_back(&c, std::move(next));
    }
  }
  return book;
}

namespace {

std::string percent(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f%%", 100.0 * x);
  return buf;
}

std::string wdlText(const std::array<float, 3>& wdl) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.0f/%.0f/%.0f", 100.0 * wdl[0], 100.0 * wdl[1], 100.0 * wdl[2]);
  return buf;
}

void textNode(const OpeningTree& tree, const OpeningNode& n, const std::string& prefix, bool last, std::string& out) {
  char buf[256];
  std::snprintf(buf, sizeof buf, "%-6s %-5s share %6s  prior %6s  W/D/L %-8s  win %6s", n.move.c_str(),
                n.mover.c_str(), percent(n.share).c_str(), percent(n.prior).c_str(), wdlText(n.wdl).c_str(),
                percent(n.winRate).c_str());
  out += prefix + (last ? "`-- " : "|-- ") + buf;
  if (tree.recordGames > 0) out += "  games " + std::to_string(n.games);
  if (n.terminal) out += "  (game over)";
  out += "\n";
  const std::string childPrefix = prefix + (last ? "    " : "|   ");
  for (size_t i = 0; i < n.children.size(); ++i)
    textNode(tree, n.children[i], childPrefix, i + 1 == n.children.size(), out);
}

nlohmann::ordered_json nodeJson(const OpeningNode& n) {
  nlohmann::ordered_json j;
  j["move"] = n.move;
  j["line"] = n.line;
  j["sfen"] = n.sfen;
  j["mover"] = n.mover;
  j["prior"] = n.prior;
  j["share"] = n.share;
  j["visits"] = n.visits;
  j["wdl"] = {n.wdl[0], n.wdl[1], n.wdl[2]};
  j["win_rate"] = n.winRate;
  j["games"] = n.games;
  j["searched"] = n.searched;
  j["terminal"] = n.terminal;
  j["playouts"] = n.playouts;
  nlohmann::ordered_json children = nlohmann::ordered_json::array();
  for (const OpeningNode& c : n.children) children.push_back(nodeJson(c));
  j["children"] = std::move(children);
  return j;
}

}  // namespace

std::string openingTreeText(const OpeningTree& tree) {
  const OpeningTreeOptions& o = tree.options;
  const bool four = tree.players > 2;
  std::string out = "Opening tree of " + tree.variant + " from " + tree.startSfen + "\n";
  out += std::string(tree.network ? "network" : "rollout") + " search, " + std::to_string(tree.root.playouts) +
         " playouts per position, depth " + std::to_string(o.depth) + ", moves with share >= " +
         percent(o.minShare) + " (at most " + std::to_string(o.maxChildren) + " per position), " +
         std::to_string(tree.searches) + " positions searched\n";
  out += four ? "W/D/L and win (W + a draw's share among the players still in; L: another player wins) are from the "
                "view of the player who made the move"
              : "W/D/L and win (W + D/2) are from the view of the player who made the move";
  out += tree.recordGames > 0 ? "; games: recorded games through the move\n" : "\n";
  char buf[256];
  std::snprintf(buf, sizeof buf, "start  %s to move  W/D/L %s  win %s", tree.root.mover.c_str(),
                wdlText(tree.root.wdl).c_str(), percent(tree.root.winRate).c_str());
  out += buf;
  if (tree.recordGames > 0) out += "  games " + std::to_string(tree.root.games);
  out += "\n";
  for (size_t i = 0; i < tree.root.children.size(); ++i)
    textNode(tree, tree.root.children[i], "", i + 1 == tree.root.children.size(), out);
  return out;
}

std::string openingTreeJson(const OpeningTree& tree) {
  nlohmann::ordered_json j;
  j["format"] = "poppy-opening-tree";
  j["version"] = 1;
  j["variant"] = tree.variant;
  j["players"] = tree.players;
  j["start"] = tree.startSfen;
  j["depth"] = tree.options.depth;
  j["playouts"] = tree.root.playouts;
  j["min_share"] = tree.options.minShare;
  j["max_children"] = tree.options.maxChildren;
  j["search"] = tree.network ? "network" : "rollout";
  j["searches"] = tree.searches;
  j["record_games"] = tree.recordGames;
  j["wdl_view"] = "mover";
  j["root"] = nodeJson(tree.root);
  return j.dump(1) + "\n";
}

}  // namespace poppy::play
