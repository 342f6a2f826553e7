// Betza movement notation, the subset the shogi family needs, and the part of H. G. Muller's
// XBetza that chu shogi's pieces need (see configs/variants/README.md).
// Directions are from the owner's view: dy > 0 is forward, dx > 0 is to the owner's right.
#pragma once
#include <cstdint>
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

// XBetza powers that the fast MoveVector tables cannot express. They live in a separate list
// (Face::special), so pieces without them pay nothing in move generation.
enum class LegMode : uint8_t {
  kMoveOrCapture,  // the default
  kMove,           // m: only to an empty square
  kCapture,        // c: only onto an enemy piece
};
enum class LegPath : uint8_t {
  kPlain,      // an ordinary step, leap or slide, with a modality restriction
  kLame,       // n: a leap blocked by an occupied square on its way (nD, nA, nH, nG; nN as the xiangqi horse)
  kMustJump,   // j on a two-square line leap (jD, jA): the square jumped over must be occupied
  kSkipFirst,  // j on a slide (jR): the first square is skipped, occupied or not; the slide starts beyond
  kHop,        // p on a slide (pR): slides to the first piece (the screen), goes on beyond it
  kGrasshop,   // g on a slide (gR): lands only on the square right behind the screen
  kJumpCapture,  // (paf)N before a capturing slide ((paf)2cB): jumps over up to `jumps` pieces
                 // of either side on its line and captures beyond them
};
struct Leg {
  int dx = 0;
  int dy = 0;
  int range = 1;  // as MoveVector::range
  LegMode mode = LegMode::kMoveOrCapture;
  LegPath path = LegPath::kPlain;
  int jumps = 0;  // kJumpCapture: the most pieces jumped over
  bool operator==(const Leg& o) const {
    return dx == o.dx && dy == o.dy && range == o.range && mode == o.mode && path == o.path && jumps == o.jumps;
  }
};
// One special move in one direction: a single restricted leg, or two one-square legs (`a`).
// The second leg's direction is absolute (the parser resolves XBetza's relative f/b/l/r).
struct SpecialMove {
  Leg first;
  bool twoLegs = false;
  Leg second;
  bool operator==(const SpecialMove& o) const {
    return first == o.first && twoLegs == o.twoLegs && (!twoLegs || second == o.second);
  }
};

// A piece's moves compiled from its notation: the plain fast-path vectors, and the rest.
struct PieceMoves {
  std::vector<MoveVector> plain;
  std::vector<SpecialMove> special;
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
// Kept for callers that know their notation is plain: throws BetzaError for XBetza powers.
std::vector<MoveVector> parseBetza(const std::string& text);

// The full parser. Beyond the above: modality m (move only) and c (capture only); n (lame
// leaper), j (jD/jA must jump over a piece; jR skips the first square), p (hopper) and g
// (grasshopper) on slides; two legs joined by `a` on the one-step atoms W, F and K, e.g. the
// lion's "KNADcaKmcabK" (caK: capture a neighbour, then one more step anywhere, back to the
// start included = igui; mcabK: step out and back, = a pass when the neighbour is empty). The
// second leg's f b l r s v are relative to the first leg (f: straight on, b: back). Legs other
// than the last default to m, as in XBetza. One group in parentheses: `(paf)N` before a
// capture-only slide, mitsugumi's jumping generals ("B(paf)2cB": as a bishop, and a capture on
// its lines beyond one or two pieces jumped over). Not supported (BetzaError naming the part):
// i, y, three or more legs, legs on leaping or riding atoms, other groups.
PieceMoves parseXBetza(const std::string& text);

}  // namespace poppy::game
