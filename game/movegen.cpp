// Legal move generation. Outside check, legality comes from pins (computed once per position)
// and, for king moves, an attack test on the destination; in check every candidate is tried.
#include <cstdlib>
#include <utility>

#include "game/neighbours.h"
#include "game/position.h"
#include "game/special_moves.h"

namespace poppy::game {

bool Position::faceAttacks(int face, Color c, Square from, Square target) const {
  if (plainReaches(face, c, from, target)) return true;
  const Variant& v = *variant_;
  return ((v.specialFaces() >> face) & 1) && specialAttacks(v, board_, face, c, from, target);
}

// Do the fast tables (steps, leaps, slides that both move and capture) reach target?
bool Position::plainReaches(int face, Color c, Square from, Square target) const {
  const Variant& v = *variant_;
  const auto& sm = v.movesFrom(face, c, from);
  const uint8_t* lt = v.leapTargets() + sm.leapBegin;
  for (int i = 0; i < sm.leapCount; ++i)
    if (lt[i] == target) return true;
  const Variant::Ray* rays = v.rays() + sm.rayBegin;
  for (int r = 0; r < sm.rayCount; ++r)
    for (int k = 0; k < rays[r].length; ++k) {
      Square s = v.raySquares()[rays[r].begin + k];
      if (s == target) return true;
      if (board_[s]) break;
    }
  return false;
}

int Position::findPins(Color us, Pin* pins) const {
  const Variant& v = *variant_;
  const Color them = opponent(us);
  const Square ks = kingSq_[us];
  const auto& ai = v.attacksTo(ks, them);
  const Variant::Ray* rays = v.rays() + ai.rayBegin;
  int n = 0;
  for (uint32_t r = 0; r < ai.rayCount; ++r) {
    const Variant::Ray& ray = rays[r];
    Square first = -1;
    for (int k = 0; k < ray.length; ++k) {
      Square s = v.raySquares()[ray.begin + k];
      Piece p = board_[s];
      if (!p) continue;
      if (first < 0) {
        if (colorOf(p) != us) break;
        first = s;
        continue;
      }
      if (colorOf(p) == them && ((v.slideMask(them, ray.dir, k + 1) >> faceOf(p)) & 1))
        pins[n++] = Pin{first, -v.slideDx(ray.dir), -v.slideDy(ray.dir), k + 1};
      break;
    }
  }
  return n;
}

bool Position::keepsKingSafe(Move m) const {
  const Color us = side_;
  Square ks = kingSq_[us];
  if (ks < 0) return true;
  // Try the move on the board itself and put everything back: cheaper than a full make.
  Piece* b = const_cast<Piece*>(board_);
  bool safe;
  if (m.isDrop()) {
    b[m.to] = makePiece(us, m.dropFace());
    safe = !attackedByEnemyOf(ks, us);
    b[m.to] = kEmpty;
  } else if (!m.isTwoLeg()) {
    const Piece pf = b[m.from], pt = b[m.to];
    b[m.to] = pf;
    b[m.from] = kEmpty;
    safe = !attackedByEnemyOf(m.from == ks ? m.to : ks, us);
    b[m.from] = pf;
    b[m.to] = pt;
  } else if (m.isBurn()) {
    // The burned neighbours of `to` are emptied as well; undone in reverse order (to == from
    // for a double igui).
    Piece burned[8];
    const Piece pf = b[m.from], pt = b[m.to];
    b[m.from] = kEmpty;
    b[m.to] = pf;
    for (int d = 0; d < 8; ++d)
      if ((m.burnMask() >> d) & 1) {
        const Square s = neighbourOf(*variant_, m.to, d);
        burned[d] = b[s];
        b[s] = kEmpty;
      }
    safe = !attackedByEnemyOf(m.from == ks ? m.to : ks, us);
    for (int d = 7; d >= 0; --d)
      if ((m.burnMask() >> d) & 1) b[neighbourOf(*variant_, m.to, d)] = burned[d];
    b[m.to] = pt;
    b[m.from] = pf;
  } else {
    // Undone in reverse order: a two-leg move may end on its own square (to == from).
    const Square mid = m.mid();
    const Piece pf = b[m.from], pm = b[mid], pt = b[m.to];
    b[mid] = kEmpty;
    b[m.from] = kEmpty;
    b[m.to] = pf;
    safe = !attackedByEnemyOf(m.from == ks ? m.to : ks, us);
    b[m.to] = pt;
    b[m.from] = pf;
    b[mid] = pm;
  }
  return safe;
}

// A drop of a no-drop-mate face (the shogi pawn) that checkmates is illegal.
bool Position::dropGivesMateIllegally(Move m) const {
  if (variant_->numPlayers > 2) return fourPlayerDropMates(m);
  if (disarmed(side_)) return false;  // unashogi: a side without its king on the board gives no check
  const Color them = opponent(side_);
  const Square ek = kingSq_[them];
  const int face = variant_->movesAsPieceBehind ? borrowedFace(m.to, side_, m.dropFace()) : m.dropFace();
  if (ek < 0 || !faceAttacks(face, side_, m.to, ek)) return false;
  Position& self = const_cast<Position&>(*this);
  self.makeMove(m);
  const bool mate = !hasLegalMove();
  self.unmakeMove();
  return mate;
}

// kFourPlayers (game/four_players.cpp): the mover moves the pieces of every army it controls,
// each the way its army faces, and nobody takes a turned king.
template <bool kStopAtFirst, bool kFourPlayers>
int Position::generate(MoveList* out) const {
  const Variant& v = *variant_;
  const Color us = side_;
  const Color them = opponent(us);
  const Square ks = v.royalCapture ? -1 : kingSq_[us];  // royal capture: no move is illegal for check
  const bool check = inCheck();
  // Pins come from the fast tables only; where special moves exist every candidate is tried.
  const uint64_t specialFaces = v.specialFaces();
  // Freezing too: a move can free an enemy piece (or freeze one) and so change what attacks
  // the king in ways pins do not see.
  // Four players: attacks come from three sides, and pins are not worth their bookkeeping.
  // An-nan shogi: a move changes what the pieces in front of its two squares move as.
  const bool tryEach = check || specialFaces || v.freezerFaces || v.movesAsPieceBehind || kFourPlayers;
  const int n = v.numSquares();
  Pin pins[64];
  const int npins = (ks >= 0 && !tryEach) ? findPins(us, pins) : 0;
  int count = 0;
  // The army of the piece being moved: its move tables, promotion zone and dead squares. Two
  // players: always the mover's.
  Color army = us;
  // May the mover not take the piece q (non-empty)? Four players: nor a turned king, nor a king:
  // a player in check moves before anyone could take its king, except when two are in check at
  // once and the first of them moves (docs/RULES.md "Yonin shogi").
  const int king = kFourPlayers ? v.royalFace() : -1;
  auto untakeable = [&](Piece q) {
    if constexpr (kFourPlayers)
      return controller_[colorOf(q)] == us || faceOf(q) == v.turnedKingFace || faceOf(q) == king;
    return colorOf(q) == us;
  };

  // Unashogi (king_in_hand.cpp): until the mover's king is dropped, no capture and no promotion.
  const bool disarmedMover = disarmed(us);
  // Mitsugumi: no turn skip right after the opponent's (freezing.cpp).
  const bool skipBanned = v.noSkipAfterSkip && lastMoveSkipped();
  // A move that comes home (a pass, an igui, a double igui) leaves a position fixed by what it
  // took: every pass (any piece, through any empty square) is one position, and so is every
  // igui taking the same piece or pieces, whichever piece makes it. The first legal one
  // generated stands for all. One that also promotes is the same position only when the same
  // piece makes it. homeKey is the key of the home move being added (-1 for other moves).
  struct HomeSeen {
    int key;
    Square promoter;  // -1 without a flip
  };
  HomeSeen homeSeen[128];
  int numHomeSeen = 0;
  int homeKey = -1;
  auto firstHome = [&](Move m) {
    const Square promoter = m.isFlip() ? m.from : -1;
    for (int i = 0; i < numHomeSeen; ++i)
      if (homeSeen[i].key == homeKey && homeSeen[i].promoter == promoter) return false;
    if (numHomeSeen < 128) homeSeen[numHomeSeen++] = HomeSeen{homeKey, promoter};
    return true;
  };
  // Yari shogi: a move may not complete a repetition (repetition_ban.cpp); until some position
  // has come back repetitionCount - 1 times, none can (State::mostRepeats), and the check, a
  // scan of the game's history for each move, is skipped.
  const bool repetitionBanned =
      v.repetitionResult == RepetitionResult::kIllegal && states_.back().mostRepeats >= v.repetitionCount - 1;
  // Adds one candidate; returns true when generation should stop.
  auto emit = [&](Move m) {
    if (skipBanned && m.isTwoLeg() && m.to == m.from && !m.isFlip() && !board_[m.mid()]) return false;
    if (repetitionBanned && repeatsTooOften(m)) return false;
    if (homeKey >= 0 && !firstHome(m)) return false;
    ++count;
    if constexpr (kStopAtFirst) {
      return true;
    } else {
      out->push(m);
      return false;
    }
  };

  // Legality of a board move from `from` to `to` (independent of flipping).
  auto boardMoveLegal = [&](Square from, Square to) {
    if (ks < 0) return true;
    if (tryEach) return keepsKingSafe(Move::board(from, to, false));
    if (from == ks) {
      Piece* b = const_cast<Piece*>(board_);
      const Piece king = b[ks];
      b[ks] = kEmpty;  // the king must not shield its own destination from a slider
      const bool safe = !attackedBy(to, them);
      b[ks] = king;
      return safe;
    }
    for (int i = 0; i < npins; ++i) {
      if (pins[i].square != from) continue;
      const int dc = v.colOf(to) - v.colOf(ks), dr = v.rankOf(to) - v.rankOf(ks);
      const Pin& p = pins[i];
      int t;
      if (p.dcol != 0) {
        if (dc % p.dcol) return false;
        t = dc / p.dcol;
      } else {
        if (dc != 0) return false;
        t = dr / p.drank;
      }
      if (t < 1 || t > p.maxDist || t * p.dcol != dc || t * p.drank != dr) return false;
    }
    return true;
  };

  // Chu shogi: as shogi, or only on entering the zone, capturing, or reaching a dead square.
  auto mayPromoteInZone = [&](Square from, Square to, int face, bool capture) {
    const bool fromIn = v.inZone(army, from), toIn = v.inZone(army, to);
    if (!v.promoteOnEntryOrCapture) return fromIn || toIn;
    return (!fromIn && toIn) || (capture && (fromIn || toIn)) || v.isDeadSquare(face, army, to);
  };

  // Emits the flip / no-flip versions a move allows; make(flip) builds the move. A template
  // (generic lambda), so the plain board move below compiles to the same code as before
  // two-leg moves existed.
  auto addWithFlips = [&](auto make, Square from, Square to, int face, bool capture) {
    const Face& f = v.faces[face];
    if (f.reverts) return emit(make(true));  // whale's far-rank dolphin turns back as it moves
    const bool deadIfPlain = v.forcedOnDeadSquare && v.isDeadSquare(face, army, to);
    if (disarmedMover) return !deadIfPlain && emit(make(false));
    switch (v.promotion) {
      case PromotionKind::kNone:
        return !deadIfPlain && emit(make(false));
      case PromotionKind::kZone:
        if (f.flipTo >= 0 && !f.promoted && mayPromoteInZone(from, to, face, capture)) {
          if (emit(make(true))) return true;
          return !v.promotionMandatory && !deadIfPlain && emit(make(false));
        }
        return !deadIfPlain && emit(make(false));
      case PromotionKind::kOnCapture:
        return emit(make(capture && f.flipTo >= 0));
      case PromotionKind::kEveryMove:
        return emit(make(f.flipTo >= 0));
    }
    return false;
  };

  auto addBoardMove = [&](Square from, Square to, int face, bool capture) {
    if (!boardMoveLegal(from, to)) return false;
    if (v.lionFaces && capture && !lionRulesAllow(face, from, -1, to)) return false;
    return addWithFlips([&](bool flip) { return Move::board(from, to, flip); }, from, to, face, capture);
  };

  // The special moves of the piece on `from`, each distinct move once: a target the fast
  // tables reach already is skipped, and repeats from different notations are dropped.
  // Where special moves exist, tryEach holds: every candidate is tried on the board.
  auto addSpecialMoves = [&](Square from, int face) {
    SpecialTarget targets[kMaxSpecialTargets];
    int numXBetza = 0;
    const int nt = specialTargets(v, board_, face, us, from, targets, &numXBetza);
    for (int i = 0; i < nt; ++i) {
      const SpecialTarget t = targets[i];
      if (i < numXBetza) {  // the power targets after them are distinct and new (special_moves.h)
        if (t.mid < 0 && plainReaches(face, us, from, t.to)) continue;
        bool seen = false;
        for (int j = 0; j < i && !seen; ++j) seen = targets[j].to == t.to && targets[j].mid == t.mid;
        if (seen) continue;
      }
      if (v.lionFaces && !lionRulesAllow(face, from, t.mid, t.to)) continue;
      auto make = [&](bool flip) {
        if (t.burn) return Move::burn(from, t.to, t.burn, flip);
        return t.mid < 0 ? Move::board(from, t.to, flip) : Move::twoLeg(from, t.mid, t.to, flip);
      };
      if (ks >= 0 && !keepsKingSafe(make(false))) continue;
      const bool capture = (t.to != from && board_[t.to]) || (t.mid >= 0 && board_[t.mid]) || t.burn;
      homeKey = t.to != from ? -1 : t.mid >= 0 ? homeMoveKey(t.mid) : homePairKey(from, t.burn);
      const bool stop = addWithFlips(make, from, t.to, face, capture);
      homeKey = -1;
      if (stop) return true;
    }
    return false;
  };

  const uint8_t* raySq = v.raySquares();
  const bool overlap = v.leapRayOverlap();
  const uint8_t* alsoLeap = v.rayAlsoLeap();
  for (Square from = 0; from < n; ++from) {
    const Piece p = board_[from];
    if (!p) continue;
    if constexpr (kFourPlayers) {
      if (controller_[colorOf(p)] != us) continue;
      army = colorOf(p);
    } else if (colorOf(p) != us) {
      continue;
    }
    if (v.freezerFaces && isFrozen(from)) continue;
    const int face = faceOf(p);
    // An-nan shogi: the moves of the friendly piece behind; the promotion stays the piece's own.
    const auto& sm = v.movesFrom(v.movesAsPieceBehind ? borrowedFace(from, army, face) : face, army, from);
    const uint8_t* lt = v.leapTargets() + sm.leapBegin;
    for (int i = 0; i < sm.leapCount; ++i) {
      const Square to = lt[i];
      const Piece q = board_[to];
      if (q && (untakeable(q) || disarmedMover)) continue;
      if (addBoardMove(from, to, face, q != kEmpty)) return count;
    }
    const Variant::Ray* rays = v.rays() + sm.rayBegin;
    for (int r = 0; r < sm.rayCount; ++r) {
      const Variant::Ray& ray = rays[r];
      for (int k = 0; k < ray.length; ++k) {
        const Square to = raySq[ray.begin + k];
        const Piece q = board_[to];
        if (q && (untakeable(q) || disarmedMover)) break;
        if (!(overlap && alsoLeap[ray.begin + k]) && addBoardMove(from, to, face, q != kEmpty)) return count;
        if (q) break;
      }
    }
    if (((specialFaces >> face) & 1) && addSpecialMoves(from, face)) return count;
  }

  if (!v.dropsEnabled) return count;
  army = us;  // a drop faces the dropper's own way (yonin shogi)
  // A drop only blocks lines, so outside check it keeps the king safe, unless some piece moves
  // through others: a dropped piece can be the screen an enemy cannon hops over to the king (or
  // the square a jD must jump, or a lion's first capture). Then every drop is tried.
  const bool dropMayExposeKing = ks >= 0 && (check || specialFaces);
  // Where nifu counts: files, or for yonin's west and east, whose pawns move along ranks.
  const bool linesAreRanks = kFourPlayers && v.quarterTurns(us) % 2;
  auto lineOf = [&](Square s) { return linesAreRanks ? v.rankOf(s) : v.colOf(s); };
  for (int kind = 0; kind < int(v.handKinds.size()); ++kind) {
    if (!hand_[us][kind]) continue;
    const HandKind& hk = v.handKinds[kind];
    const int dropFaces[2] = {hk.setupFace, v.dropEitherFace ? hk.otherFace : -1};
    for (int face : dropFaces) {
      if (face < 0) continue;
      const bool deadRule = v.dropOnDeadSquareForbidden && ((v.deadSquareDropFaces >> face) & 1);
      const bool mateRule = (v.noDropMateFaces >> face) & 1;
      const bool kingDrop = v.faces[face].royal;  // unashogi
      // Hand shogi: an assassin is dropped only where it gives check (a drop discovers none);
      // a half knight only on the dropper's first maxRank ranks.
      const bool onlyToCheck = (v.dropOnlyToCheckFaces >> face) & 1;
      const int maxRank = v.dropMaxRank[size_t(face)];
      const Square enemyKing = kingSq_[them];
      const int perFile = v.maxPerFile[face];
      int onFile[kMaxFiles > kMaxRanks ? kMaxFiles : kMaxRanks] = {};
      if (perFile) {
        // A face that reverts (whale's far-rank dolphin) is a passing state of the same piece,
        // and counts with it; a promotion (shogi's tokin) does not.
        const int other = v.faces[face].flipTo;
        const Piece same = makePiece(us, face);
        const Piece passing = other >= 0 && v.faces[other].reverts ? makePiece(us, other) : same;
        for (Square s = 0; s < n; ++s)
          if (board_[s] == same || board_[s] == passing) ++onFile[lineOf(s)];
      }
      for (Square to = 0; to < n; ++to) {
        if (board_[to]) continue;
        if (deadRule && v.isDeadSquare(face, us, to)) continue;
        if (perFile && onFile[lineOf(to)] >= perFile) continue;
        if (maxRank && v.ranks - v.distanceToFarEdge(us, to) > maxRank) continue;
        if (onlyToCheck && (enemyKing < 0 || disarmed(us) || !faceAttacks(face, us, to, enemyKing))) continue;
        const Move m = Move::drop(face, to);
        if (dropMayExposeKing && !keepsKingSafe(m)) continue;
        if (kingDrop && !kingDropIsSafe(to)) continue;
        if (mateRule && dropGivesMateIllegally(m)) continue;
        if (emit(m)) return count;
      }
    }
  }
  return count;
}

void Position::generateLegal(MoveList& out) const {
  out.clear();
  if (variant_->numPlayers > 2) generate<false, true>(&out);
  else generate<false, false>(&out);
}

bool Position::hasLegalMove() const {
  return (variant_->numPlayers > 2 ? generate<true, true>(nullptr) : generate<true, false>(nullptr)) > 0;
}

bool Position::isLegal(Move m) const {
  MoveList list;
  generateLegal(list);
  for (const Move& x : list)
    if (x == m) return true;
  return false;
}

}  // namespace poppy::game
