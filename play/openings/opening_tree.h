// The network's opening preferences as a tree (`poppy openings tree`, `poppy openings book`):
// from a start position, search with play::Analyzer, keep the moves it prefers (visit share at
// least minShare, at most maxChildren of them), and search again after each of them, down to
// `depth` plies. Each node can also count how many recorded games went through it.
//
// Renderers: indented text for a terminal, nested JSON, and an SVG drawing (opening_tree_svg.h).
// No LibTorch here: the network comes in as the Analyzer's mcts::Evaluator.
#pragma once
#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "game/position.h"
#include "play/analyzer.h"
#include "play/openings/opening_book.h"
#include "selfplay/game_record.h"

namespace poppy::play {

struct OpeningTreeOptions {
  int depth = 3;            // plies below the start position
  int64_t playouts = 0;     // per search; 0: the analyzer's params.playouts
  double minShare = 0.05;   // expand a move when its visit share is at least this (and above 0)
  int maxChildren = 5;      // and when it is among the this-many most visited moves
};

// The deepest tree buildOpeningTree accepts: the number of searches grows like maxChildren^depth.
constexpr int kMaxOpeningTreeDepth = 12;

struct OpeningNode {
  std::string move;               // USI of the move that leads here ("" at the root)
  std::vector<std::string> line;  // every move from the start position to here
  std::string sfen;               // the position here
  std::string mover;              // who made `move` (the root: the side to move): sente/gote or a seat
  // The move's figures in the parent's search (the root: its own search).
  float prior = 0;                // network prior (1/N for the rollout search); root: 1
  double share = 0;               // visits / all the parent's root-child visits; root: 1
  int64_t visits = 0;             // parent's visits of this move; root: its playouts
  // Win, draw, loss and the expected score (W + D/2; among four players W + D/N, N the players
  // still in; L is then another player's win) from the view of the player who made `move` (the
  // root: the side to move there).
  std::array<float, 3> wdl{0, 1, 0};
  float winRate = 0.5f;
  int64_t games = 0;              // records that went through this node (countGames)
  bool searched = false;          // this node's position was searched (inner nodes)
  bool terminal = false;          // the game is over here
  int64_t playouts = 0;           // of this node's own search, when searched
  std::vector<OpeningNode> children;  // most visited first
};

struct OpeningTree {
  std::string variant;
  int players = 2;           // the variant's players (four: movers are seats, scores as above)
  std::string startSfen;
  OpeningTreeOptions options;
  bool network = false;      // searched with the network (false: rollout MCTS)
  int64_t searches = 0;      // positions searched
  int64_t recordGames = 0;   // records counted (the root's games), 0 when none were given
  OpeningNode root;
};

struct OpeningTreeProgress {
  int64_t searched = 0;   // searches done
  int64_t estimate = 0;   // searches done + an estimate of those left
  double seconds = 0;
};

// Throws std::invalid_argument naming the option when options are out of range (depth 1 to
// kMaxOpeningTreeDepth, minShare in [0, 1], maxChildren >= 1, playouts >= 0). Searches in
// breadth-first order; progress, when given, is called after every search.
OpeningTree buildOpeningTree(Analyzer& analyzer, const game::Position& start, const OpeningTreeOptions& options,
                             const std::function<void(const OpeningTreeProgress&)>& progress = nullptr);

// Checks records against a variant: each is of that variant and has a good start SFEN. Returns
// each record's start as a position key (SFEN without the move number). Throws
// std::invalid_argument naming `source` and the record.
std::vector<std::string> checkGameRecords(const std::vector<selfplay::GameRecord>& records, const std::string& source,
                                          const game::VariantPtr& variant);
// Adds to every node's games the number of records from the tree's start position whose moves
// begin with the node's line (call once per file). Records from another start are ignored; a
// record of another variant, or with a bad start SFEN, throws std::invalid_argument naming
// `source` and the record (before anything is counted).
void countGames(OpeningTree& tree, const std::vector<selfplay::GameRecord>& records, const std::string& source,
                const game::VariantPtr& variant);

// The tree's inner nodes as a book: each searched node's position with its children's moves,
// weight = visit share, visits, win rate. A position reached twice (a transposition) keeps the
// first (shallower) one.
OpeningBook openingTreeToBook(const OpeningTree& tree, const game::VariantPtr& variant);

// Renderers.
std::string openingTreeText(const OpeningTree& tree);
// {"format": "poppy-opening-tree", "version": 1, "variant", "start", "depth", "playouts",
//  "min_share", "max_children", "search": "network"|"rollout", "searches", "record_games",
//  "wdl_view": "mover", "root": NODE}; NODE = {"move", "line", "sfen", "prior", "share", "visits",
//  "wdl": [w, d, l], "win_rate", "games", "searched", "terminal", "playouts", "children": [NODE...]}
std::string openingTreeJson(const OpeningTree& tree);
// The SVG drawing is in play/openings/opening_tree_svg.h.

}  // namespace poppy::play
