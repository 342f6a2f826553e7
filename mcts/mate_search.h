// An exact search for forced mates where every attacking move gives check (the shogi way of
// reading mates, "tsume"): the attacker checks, the defender tries every legal reply, and the
// line ends when the defender has no legal move (a loss in every supported variant) or when
// Position::outcome otherwise declares the attacker the winner. A mate it reports is certain;
// a mate that needs a quiet (non-checking) move is not found, which keeps it fast enough to run
// at every leaf of the MCTS (mate in 1 and 3 plies, as dlshogi does) and deeper at the root.
//
// Repetitions and the ply cap are judged by Position::outcome on the searched line, so a proof
// holds for the game's actual history.
#pragma once
#include <cstdint>
#include <functional>
#include <vector>

#include "game/position.h"

namespace poppy::mcts {

struct MateResult {
  bool found = false;
  int plies = 0;                  // length of the mate (1, 3, 5, ...) when found
  std::vector<game::Move> line;   // the attacker's first move, then a longest defence, ...
  int64_t nodes = 0;              // positions made during the search
  bool budgetExhausted = false;   // stopped by maxNodes or the stop test before deciding every depth
};

class MateSearch {
 public:
  // plyCap as in Position::outcome (0: none). maxNodes bounds one call of find() (0: no bound).
  explicit MateSearch(int plyCap = 0, int64_t maxNodes = 0) : plyCap_(plyCap), maxNodes_(maxNodes) {}

  // Is there a mate of at most maxPlies (odd; even values are rounded down) for the side to
  // move? Searches depth 1, 3, ... so the first mate found is a shortest one. pos is restored.
  MateResult find(game::Position& pos, int maxPlies);

  // Cheapest check used at every MCTS leaf: a mate in 1 or (maxPlies >= 3) in 3. Returns the
  // first move of a shortest mate, or Move::none(); `plies` receives its length.
  game::Move quick(game::Position& pos, int maxPlies, int& plies);

  int64_t nodes() const { return nodes_; }
  // Asked every 1,024 nodes; true ends find() as if the node budget were spent (time limits,
  // a USI `stop`).
  void setStopTest(std::function<bool()> stop) { stopTest_ = std::move(stop); }

 private:
  // Attacker to move: a checking move that mates within `plies` (odd). Writes it to `first`.
  bool attack(game::Position& pos, int plies, game::Move* first);
  // Defender to move (in check, game not over): does every reply lose within `plies` (even)?
  bool defend(game::Position& pos, int plies);
  // The mating line of a proven attack: shortest mates for the attacker, longest defence.
  void collectLine(game::Position& pos, int plies, std::vector<game::Move>& line);
  bool outOfBudget() {
    if (maxNodes_ > 0 && nodes_ >= maxNodes_) return true;
    if (stopTest_ && (nodes_ & 1023) == 0 && !stopped_) stopped_ = stopTest_();
    return stopped_;
  }

  int plyCap_;
  int64_t maxNodes_;
  int64_t nodes_ = 0;
  game::Color attacker_ = 0;
  std::function<bool()> stopTest_;
  bool stopped_ = false;
};

}  // namespace poppy::mcts
