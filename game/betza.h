// Betza movement notation, the subset the shogi family needs (see README "Variant files").
// Directions are from the owner's view: dy > 0 is forward, dx > 0 is to the owner's right.
#pragma once
#include <stdexcept>
#include <string>
#include <vector>

namespace poppy::game {

// One way a piece may move: steps of (dx, dy), repeated up to `range` times along a line.
// range 1 is a single step or leap (never blocked); range > 1 slides and is blocked by the
// first occupied square; range 0 means unlimited.
struct MoveVector {
  int dx = 0;
  int dy = 0;
  int range = 1;
  bool operator==(const MoveVector& o) const { return dx == o.dx && dy == o.dy && range == o.range; }
};

class BetzaError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Parses e.g. "WfF" (gold), "fR" (lance), "ffN" (shogi knight), "KbRfBbF2" (tori eagle).
// Supported atoms: W F D N A H C Z G, K (=WF), R (=WW), B (=FF), Q (=RB); a doubled atom rides;
// a number after an atom limits the range. Modifiers: f b l r s v and the pairs fl fr bl br
// (diagonal atoms) and ff bb ll rr fs bs (oblique atoms). Anything else throws BetzaError
// naming the offending part: such pieces are code plugins, not notation.
std::vector<MoveVector> parseBetza(const std::string& text);

}  // namespace poppy::game
