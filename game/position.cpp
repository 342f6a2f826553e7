#include "game/position.h"

#include <algorithm>
#include <cstring>

#include "game/neighbours.h"
#include "game/special_moves.h"

namespace poppy::game {

Position::Position(VariantPtr variant) : variant_(std::move(variant)) {
  *this = fromSfen(variant_, variant_->startSfen);
}

void Position::clear() {
  std::memset(board_, 0, sizeof board_);
  std::memset(hand_, 0, sizeof hand_);
  std::fill(std::begin(kingSq_), std::end(kingSq_), -1);
  for (Color c = 0; c < kMaxPlayers; ++c) controller_[c] = c;
  takeovers_.clear();
  side_ = 0;
  moveNumber_ = 1;
  states_.clear();
}

uint64_t Position::computeHash() const {
  const Variant& v = *variant_;
  uint64_t h = v.sideKey(side_);
  if (!states_.empty() && states_.back().lionCapture >= 0) h ^= v.lionCaptureKey(states_.back().lionCapture);
  for (Square s = 0; s < v.numSquares(); ++s)
    if (board_[s]) h ^= v.boardKey(board_[s], s);
  for (Color c = 0; c < v.numPlayers; ++c)
    for (int k = 0; k < int(v.handKinds.size()); ++k) h ^= v.handKey(c, k, hand_[c][k]);
  for (Color a = 0; a < v.numPlayers; ++a)
    if (controller_[a] != a) h ^= v.controllerKey(a, controller_[a]);
  if (v.checksToWin && !states_.empty())
    for (Color c = 0; c < 2; ++c) h ^= checkCountKey(c, states_.back().checks[c]);
  return h;
}

bool Position::attackedBy(Square s, Color by) const {
  const Variant& v = *variant_;
  if (v.movesAsPieceBehind) return borrowedAttackedBy(s, by);  // the reverse tables know only own moves
  if (v.kingsInHand && kingSq_[by] < 0) return false;          // no king on the board: no threats (king_in_hand.cpp)
  const auto& ai = v.attacksTo(s, by);
  const Variant::LeapSource* ls = v.leapSources() + ai.leapBegin;
  for (uint32_t i = 0; i < ai.leapCount; ++i) {
    Piece p = board_[ls[i].from];
    if (p && colorOf(p) == by && ((ls[i].faceMask >> faceOf(p)) & 1) && !(v.freezerFaces && isFrozen(ls[i].from)))
      return true;
  }
  const Variant::Ray* rays = v.rays() + ai.rayBegin;
  const uint8_t* sq = v.raySquares();
  for (uint32_t r = 0; r < ai.rayCount; ++r) {
    const Variant::Ray& ray = rays[r];
    for (int k = 0; k < ray.length; ++k) {
      Piece p = board_[sq[ray.begin + k]];
      if (!p) continue;
      if (colorOf(p) == by && ((v.slideMask(by, ray.dir, k + 1) >> faceOf(p)) & 1) &&
          !(v.freezerFaces && isFrozen(sq[ray.begin + k])))
        return true;
      break;
    }
  }
  return v.specialFaces() && specialAttackedBy(s, by);
}

// The special (XBetza) moves are not in the reverse tables: try each piece that has them.
bool Position::specialAttackedBy(Square s, Color by) const {
  const Variant& v = *variant_;
  for (Square from = 0; from < v.numSquares(); ++from) {
    const Piece p = board_[from];
    // from == s: a piece does not guard its own square (a lion's pass returns there).
    if (p && from != s && colorOf(p) == by && ((v.specialFaces() >> faceOf(p)) & 1) &&
        !(v.freezerFaces && isFrozen(from)) && specialAttacks(v, board_, faceOf(p), by, from, s))
      return true;
  }
  return false;
}

void Position::makeMove(Move m) {
  const Variant& v = *variant_;
  State st;
  st.move = m;
  st.mover = int8_t(side_);
  st.checks[0] = states_.back().checks[0];
  st.checks[1] = states_.back().checks[1];
  uint64_t h = states_.back().hash;
  const Color us = side_;
  if (m.isDrop()) {
    const int face = m.dropFace();
    const int kind = v.faces[face].handKind;
    const Piece p = makePiece(us, face);
    h ^= v.handKey(us, kind, hand_[us][kind]);
    --hand_[us][kind];
    h ^= v.handKey(us, kind, hand_[us][kind]);
    board_[m.to] = p;
    h ^= v.boardKey(p, m.to);
    st.moved = p;
    if (v.kingsInHand && v.faces[face].royal) kingSq_[us] = m.to;  // unashogi: the king dropped
  } else {
    const Piece p = board_[m.from];
    Piece cap = board_[m.to];
    auto take = [&](Piece q, Square s) {
      h ^= v.boardKey(q, s);
      if (!v.dropsEnabled) return;  // chu shogi: captured pieces leave the game
      const int kind = v.faces[faceOf(q)].handKind;
      if (kind < 0) return;  // a royal taken (royal capture with drops): the game is over
      h ^= v.handKey(us, kind, hand_[us][kind]);
      ++hand_[us][kind];
      h ^= v.handKey(us, kind, hand_[us][kind]);
    };
    // One flag test keeps plain moves on their old path.
    if (m.isTwoLeg()) {
      if (m.to == m.from) cap = kEmpty;  // igui or pass: the mover's own square, nothing taken
      if (board_[m.mid()]) {
        st.capturedMid = board_[m.mid()];
        take(st.capturedMid, m.mid());
        board_[m.mid()] = kEmpty;
      }
    }
    if (m.isBurn()) {
      if (m.to == m.from) cap = kEmpty;  // a double igui: nothing taken on the mover's square
      int k = 0;
      for (int d = 0; d < 8; ++d)
        if ((m.burnMask() >> d) & 1) {
          const Square s = neighbourOf(v, m.to, d);
          st.burned[k++] = board_[s];
          take(board_[s], s);
          board_[s] = kEmpty;
        }
    }
    st.moved = p;
    st.captured = cap;
    if (cap) take(cap, m.to);
    const Piece np = m.isFlip() ? makePiece(colorOf(p), v.faces[faceOf(p)].flipTo) : p;
    h ^= v.boardKey(p, m.from);
    board_[m.from] = kEmpty;
    board_[m.to] = np;
    h ^= v.boardKey(np, m.to);
    if (kingSq_[us] == m.from) kingSq_[us] = m.to;
    if (v.lionFaces) {
      // A non-lion that takes a lion opens the counter-strike rule (lion_rules.cpp); the
      // capture on `to` counts over one on the middle square, as in shogiops.
      const int before = states_.back().lionCapture;
      if (before >= 0) h ^= v.lionCaptureKey(before);
      if (!((v.lionFaces >> faceOf(p)) & 1)) {
        if (st.capturedMid && ((v.lionFaces >> faceOf(st.capturedMid)) & 1)) st.lionCapture = int16_t(m.mid());
        if (cap && ((v.lionFaces >> faceOf(cap)) & 1)) st.lionCapture = int16_t(m.to);
      }
      if (st.lionCapture >= 0) h ^= v.lionCaptureKey(st.lionCapture);
    }
  }
  if (v.numPlayers > 2) {
    // Who moves next, and any mates that brings, are yonin's rules (four_players.cpp).
    st.hash = h;
    states_.push_back(st);
    passTurn(us);
    return;
  }
  side_ = opponent(us);
  h ^= v.sideKey(us) ^ v.sideKey(side_);
  st.hash = h;
  if (v.repetitionResult == RepetitionResult::kIllegal) st.mostRepeats = std::max(states_.back().mostRepeats, occurrences(h));
  states_.push_back(st);
  states_.back().inCheck = checkAfterMove();
  if (v.checksToWin && states_.back().inCheck) countCheck(us);
}

void Position::unmakeMove() {
  const Variant& v = *variant_;
  if (v.numPlayers > 2) undoTakeovers();
  const State& st = states_.back();
  const Move m = st.move;
  side_ = st.mover;
  const Color us = side_;
  if (m.isDrop()) {
    ++hand_[us][v.faces[m.dropFace()].handKind];
    board_[m.to] = kEmpty;
    if (kingSq_[us] == m.to) kingSq_[us] = -1;  // unashogi: the king back in hand
  } else {
    // `to` before `from`: they are one square when a two-leg move came back.
    board_[m.to] = st.captured;
    board_[m.from] = st.moved;
    // Back out of the hand, where take() put it (never a royal: it has no hand kind).
    auto untake = [&](Piece q) {
      const int kind = v.faces[faceOf(q)].handKind;
      if (v.dropsEnabled && kind >= 0) --hand_[us][kind];
    };
    if (st.captured) untake(st.captured);
    if (m.isTwoLeg() && st.capturedMid) {
      board_[m.mid()] = st.capturedMid;
      untake(st.capturedMid);
    }
    if (m.isBurn()) {
      int k = 0;
      for (int d = 0; d < 8; ++d)
        if ((m.burnMask() >> d) & 1) {
          const Piece q = st.burned[k++];
          board_[neighbourOf(v, m.to, d)] = q;
          untake(q);
        }
    }
    if (kingSq_[us] == m.to) kingSq_[us] = m.from;
  }
  states_.pop_back();
}

}  // namespace poppy::game
