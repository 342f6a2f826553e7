// Four players (yonin shogi, seed 003; docs/RULES.md "Yonin shogi"). Colour c is an army, the
// one that starts on the board's side c quarter turns clockwise from south; the player of the
// same number controls it until mated. Play goes clockwise, but a player put in check moves
// next (the first of them in turn order after the last mover, when several are). A player who
// must move, is in check and has no legal move is mated by whoever moved last: its king turns
// into a blocker (Variant::turnedKingFace), and the mater takes its hand and every army it
// controlled; those pieces keep their direction and promotion zone. A player not in check
// without a legal move passes. The first to control three armies (to have mated two players,
// or one who had mated another) wins.
//
// makeMove carries all this out at once (passTurn), so after any move the side to move is a
// player with a legal move, or the game is over: the search and the move list never see a
// pass or a mate as a move of its own.
#include <cstring>

#include "game/position.h"

namespace poppy::game {

int Position::armiesOf(Color player) const {
  int n = 0;
  for (Color a = 0; a < variant_->numPlayers; ++a) n += controller_[a] == player;
  return n;
}

bool Position::attackedByOtherArmies(Square s, Color player) const {
  for (Color a = 0; a < variant_->numPlayers; ++a)
    if (controller_[a] != player && attackedBy(s, a)) return true;
  return false;
}

bool Position::playerInCheck(Color player) const {
  return !isOut(player) && kingSq_[player] >= 0 && attackedByEnemyOf(kingSq_[player], player);
}

void Position::mate(Color mated, Color mater) {
  const Variant& v = *variant_;
  uint64_t& h = states_.back().hash;
  Takeover t;
  t.ply = gamePly();
  t.mated = mated;
  t.mater = mater;
  t.king = kingSq_[mated];
  std::memcpy(t.controllersBefore, controller_, sizeof controller_);
  std::memcpy(t.hand, hand_[mated], sizeof t.hand);
  for (Color a = 0; a < v.numPlayers; ++a) {
    if (controller_[a] != mated) continue;
    if (controller_[a] != a) h ^= v.controllerKey(a, controller_[a]);
    controller_[a] = mater;
    if (mater != a) h ^= v.controllerKey(a, mater);
  }
  for (int k = 0; k < int(v.handKinds.size()); ++k) {
    if (!hand_[mated][k]) continue;
    h ^= v.handKey(mated, k, hand_[mated][k]) ^ v.handKey(mated, k, 0);
    h ^= v.handKey(mater, k, hand_[mater][k]);
    hand_[mater][k] = uint8_t(hand_[mater][k] + hand_[mated][k]);
    h ^= v.handKey(mater, k, hand_[mater][k]);
    hand_[mated][k] = 0;
  }
  const Piece king = board_[t.king], turned = makePiece(mated, v.turnedKingFace);
  h ^= v.boardKey(king, t.king) ^ v.boardKey(turned, t.king);
  board_[t.king] = turned;
  kingSq_[mated] = -1;
  takeovers_.push_back(t);
}

void Position::passTurn(Color mover) {
  const Variant& v = *variant_;
  const int players = v.numPlayers;
  Color seat = mover;  // the turn goes on clockwise from here
  int passes = 0;
  for (;;) {
    Color next = -1;
    for (int k = 1; k < players && next < 0; ++k)
      if (playerInCheck((seat + k) % players)) next = (seat + k) % players;
    for (int k = 1; k <= players && next < 0; ++k)
      if (!isOut((seat + k) % players)) next = (seat + k) % players;
    states_.back().hash ^= v.sideKey(side_) ^ v.sideKey(next);
    side_ = next;
    states_.back().inCheck = playerInCheck(next);
    if (hasLegalMove()) return;
    seat = next;
    if (states_.back().inCheck) {
      // Mated by whoever moved last. The turn goes on from the mated player's seat.
      mate(next, mover);
      passes = 0;
      if (armiesOf(mover) >= 3) {
        states_.back().hash ^= v.sideKey(side_) ^ v.sideKey(mover);
        side_ = mover;
        states_.back().inCheck = false;
        return;
      }
      continue;
    }
    // No move and not in check: a pass. When every player left has passed, nobody can move
    // and the game is drawn (fourPlayerOutcome finds the side to move without a move).
    int left = 0;
    for (Color c = 0; c < players; ++c) left += !isOut(c);
    if (++passes >= left) return;
  }
}

void Position::undoTakeovers() {
  const Variant& v = *variant_;
  while (!takeovers_.empty() && takeovers_.back().ply == gamePly()) {
    const Takeover& t = takeovers_.back();
    std::memcpy(controller_, t.controllersBefore, sizeof controller_);
    for (int k = 0; k < int(v.handKinds.size()); ++k) hand_[t.mater][k] = uint8_t(hand_[t.mater][k] - t.hand[k]);
    std::memcpy(hand_[t.mated], t.hand, sizeof t.hand);
    board_[t.king] = makePiece(t.mated, v.royalFace());
    kingSq_[t.mated] = t.king;
    takeovers_.pop_back();
  }
}

// A pawn drop that gives check is illegal when the player it checks is then mated (seed 003:
// shogi's pawn-drop rule holds, against any player).
bool Position::fourPlayerDropMates(Move m) const {
  Position& self = const_cast<Position&>(*this);
  self.makeMove(m);
  bool mates = false;
  for (auto it = takeovers_.rbegin(); it != takeovers_.rend() && it->ply == gamePly(); ++it)
    mates = mates || faceAttacks(m.dropFace(), colorOf(board_[m.to]), m.to, it->king);
  self.unmakeMove();
  return mates;
}

Outcome Position::fourPlayerOutcome(int plyCap) const {
  const Variant& v = *variant_;
  for (Color c = 0; c < v.numPlayers; ++c)
    if (armiesOf(c) >= 3) return Outcome{EndReason::kSecondMate, c};
  if (!hasLegalMove()) return Outcome{EndReason::kStalemate, -1};
  // A position back for the repetition count's time draws, for all four (docs/RULES.md: seed
  // 003 says nothing of perpetual check among four, and no rule here gives it to anyone).
  if (repetitionsSoFar() + 1 >= v.repetitionCount) return Outcome{EndReason::kRepetition, -1};
  if (plyCap > 0 && gamePly() >= plyCap) return Outcome{EndReason::kPlyCap, -1};
  return Outcome{};
}

}  // namespace poppy::game
