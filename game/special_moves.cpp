#include "game/special_moves.h"

#include <algorithm>
#include <cstdlib>

#include "game/powers.h"

namespace poppy::game {
namespace {

// Board delta (columns, ranks; ranks grow towards sente) of an owner's-view vector, as in
// variant.cpp: gote's pieces are sente's rotated by 180 degrees.
inline void orient(Color c, int dx, int dy, int& dc, int& dr) {
  dc = c == 0 ? dx : -dx;
  dr = c == 0 ? -dy : dy;
}

// Walks every special move and calls emit(to, mid) for each destination. `at` reads a square.
template <class At, class Emit>
void walk(const Variant& v, At at, int face, Color c, Square from, Emit emit) {
  const int col0 = v.colOf(from), rank0 = v.rankOf(from);
  auto squareAt = [&](int col, int rank) -> int {
    if (col < 0 || col >= v.files || rank < 0 || rank >= v.ranks) return -1;
    return v.square(col, rank);
  };
  auto own = [&](Piece p) { return p && colorOf(p) == c; };
  // May a leg of this mode end on a square holding p (not our own)?
  auto allowed = [](LegMode mode, Piece p) {
    return p ? mode != LegMode::kMove : mode != LegMode::kCapture;
  };
  for (const SpecialMove& sm : v.faces[face].special) {
    const Leg& l = sm.first;
    int dc, dr;
    orient(c, l.dx, l.dy, dc, dr);
    if (sm.twoLegs) {
      const int mid = squareAt(col0 + dc, rank0 + dr);
      if (mid < 0) continue;
      const Piece pm = at(mid);
      if (own(pm) || !allowed(l.mode, pm)) continue;
      int dc2, dr2;
      orient(c, sm.second.dx, sm.second.dy, dc2, dr2);
      const int to = squareAt(v.colOf(mid) + dc2, v.rankOf(mid) + dr2);
      if (to < 0) continue;
      const Piece pt = to == from ? kEmpty : at(to);  // the mover has left its square
      if (own(pt) || !allowed(sm.second.mode, pt)) continue;
      // Through an empty square to elsewhere is an ordinary move; back home it is a pass.
      emit(to, (pm || to == from) ? mid : -1);
      continue;
    }
    if (l.range == 1) {  // a leap, perhaps lame or jumping
      const int to = squareAt(col0 + dc, rank0 + dr);
      if (to < 0) continue;
      if (l.path == LegPath::kLame || l.path == LegPath::kMustJump) {
        // The squares passed over: along the line for D A H G; for N, the orthogonal first step
        // in the long direction (the xiangqi horse's leg).
        bool blocked = false, jumped = false;
        if (l.dx == 0 || l.dy == 0 || std::abs(l.dx) == std::abs(l.dy)) {
          const int n = std::max(std::abs(l.dx), std::abs(l.dy));
          for (int k = 1; k < n; ++k) {
            const Piece p = at(squareAt(col0 + dc / n * k, rank0 + dr / n * k));
            blocked = blocked || p;
            jumped = jumped || p;
          }
        } else {
          const bool steep = std::abs(dr) > std::abs(dc);
          const int s = squareAt(col0 + (steep ? 0 : dc / 2), rank0 + (steep ? dr / 2 : 0));
          blocked = at(s) != kEmpty;
        }
        if (l.path == LegPath::kLame ? blocked : !jumped) continue;
      }
      const Piece p = at(to);
      if (!own(p) && allowed(l.mode, p)) emit(to, -1);
      continue;
    }
    // A slide (range 0 unlimited), perhaps skipping its first square or hopping a screen.
    const int limit = l.range == 0 ? std::max(v.files, v.ranks) : l.range;
    if (l.path == LegPath::kJumpCapture) {
      // Every enemy on the line up to the (jumps + 1)-th piece met is a capture; empty squares
      // and own pieces are no destinations.
      int met = 0;
      for (int k = 1; k <= limit; ++k) {
        const int to = squareAt(col0 + dc * k, rank0 + dr * k);
        if (to < 0) break;
        const Piece p = at(to);
        if (!p) continue;
        if (!own(p)) emit(to, -1);
        if (++met > l.jumps) break;
      }
      continue;
    }
    bool screened = false;  // hoppers: the screen has been passed
    for (int k = l.path == LegPath::kSkipFirst ? 2 : 1; k <= limit; ++k) {
      const int to = squareAt(col0 + dc * k, rank0 + dr * k);
      if (to < 0) break;
      const Piece p = at(to);
      const bool hopper = l.path == LegPath::kHop || l.path == LegPath::kGrasshop;
      if (hopper && !screened) {
        screened = p != kEmpty;  // empty squares before the screen are no destinations
        continue;
      }
      if (!own(p) && allowed(l.mode, p)) emit(to, -1);
      if (p || l.path == LegPath::kGrasshop) break;
    }
  }
}

// The squares the fast tables (steps, leaps, slides) take `face` to, with `at` reading squares.
template <class At>
SquareSet tableDestinations(const Variant& v, At at, int face, Color c, Square from) {
  SquareSet out;
  const auto& sm = v.movesFrom(face, c, from);
  const uint8_t* lt = v.leapTargets() + sm.leapBegin;
  for (int i = 0; i < sm.leapCount; ++i) {
    const Piece p = at(lt[i]);
    if (!p || colorOf(p) != c) out.set(lt[i]);
  }
  const Variant::Ray* rays = v.rays() + sm.rayBegin;
  for (int r = 0; r < sm.rayCount; ++r)
    for (int k = 0; k < rays[r].length; ++k) {
      const Square s = v.raySquares()[rays[r].begin + k];
      const Piece p = at(s);
      if (p && colorOf(p) == c) break;
      out.set(s);
      if (p) break;
    }
  return out;
}

}  // namespace

int specialTargets(const Variant& v, const Piece* board, int face, Color c, Square from, SpecialTarget* out,
                   int* xbetzaCount) {
  int n = 0;
  auto at = [&](int s) { return board[s]; };
  walk(v, at, face, c, from, [&](int to, int mid) {
    if (n < kMaxSpecialTargets) out[n++] = SpecialTarget{int16_t(to), int16_t(mid), 0};
  });
  if (xbetzaCount) *xbetzaCount = n;
  if (v.faces[face].hasPowers()) {
    SquareSet reached = tableDestinations(v, at, face, c, from);
    for (int i = 0; i < n; ++i)
      if (out[i].mid < 0) reached.set(out[i].to);
    n += powerTargets(v, board, face, c, from, reached, out + n, kMaxSpecialTargets - n);
  }
  return n;
}

bool specialAttacks(const Variant& v, const Piece* board, int face, Color c, Square from, Square target) {
  // Any piece not of colour c stands in for the enemy on an empty target.
  const Piece enemy = makePiece((c + 1) % kMaxPlayers, 0);
  auto at = [&](int s) { return s == target && !board[s] ? enemy : board[s]; };
  bool hit = false;
  const bool powers = v.faces[face].hasPowers();
  SquareSet reached;  // where the XBetza and table moves end, for burning
  walk(v, at, face, c, from, [&](int to, int mid) {
    hit = hit || to == target || mid == target;
    if (powers && mid < 0) reached.set(to);
  });
  if (hit || !powers) return hit;
  reached |= tableDestinations(v, at, face, c, from);
  return powerAttacks(v, board, face, c, from, target, reached);
}

}  // namespace poppy::game
