// SFEN for four players (docs/RULES.md "Yonin shogi"): five fields,
//   board side hands move-number controllers
// The board reads as two-player SFEN (rank a first, each rank from file 9 down), but every
// piece is its army's letter (s south, w west, n north, e east) and then the piece, upper case:
// "sK", "w+P", "nX" (north's turned king). Side: s, w, n or e. Hands: "-", or for each player
// with pieces its letter and then counts and letters, "s2PGnR". Controllers: who moves each
// army, in the order s w n e ("swne" until somebody is mated; "sswe" once south has mated
// west). The move number and the controllers may be left out (1, and "swne").
#include <algorithm>
#include <cctype>
#include <cstring>
#include <sstream>
#include <string>

#include "game/position.h"
#include "game/sfen_fields.h"

namespace poppy::game {
namespace {

constexpr char kPlayerLetters[] = "swne";
const char* const kPlayerNames[] = {"south", "west", "north", "east"};

[[noreturn]] void fail(const std::string& sfen, const std::string& what) {
  throw SfenError("invalid four-player SFEN \"" + sfen + "\": " + what);
}

int playerOf(char c) {
  const char* p = std::strchr(kPlayerLetters, c);
  return c && p ? int(p - kPlayerLetters) : -1;
}

}  // namespace

Position Position::fromFourPlayerSfen(VariantPtr variant, const std::string& sfen) {
  const Variant& v = *variant;
  Position pos(variant, 0);
  std::istringstream in(sfen);
  std::string boardText, sideText, handText, numberText, controlText, extra;
  in >> boardText >> sideText >> handText >> numberText >> controlText >> extra;
  if (boardText.empty()) fail(sfen, "it is empty");
  if (sideText.empty()) fail(sfen, "the side to move (s, w, n or e) is missing");
  if (handText.empty()) fail(sfen, "the hand field (\"-\" or pieces) is missing");
  if (!extra.empty()) fail(sfen, "unexpected text \"" + extra + "\" after the controllers");

  const auto boardFail = [&](const std::string& what) { fail(sfen, what); };
  sfen_fields::readBoardField(
      boardText, v.files, v.ranks, v.name,
      [&](size_t& i, int col, int rank, const std::string& rankName) {
        const int army = playerOf(boardText[i]);
        if (army < 0)
          fail(sfen, std::string("'") + boardText[i] + "' in " + rankName +
                         ": each piece starts with its army's letter, s, w, n or e (like sK or w+P)");
        ++i;
        const bool promoted = i < boardText.size() && boardText[i] == '+';
        if (promoted) ++i;
        if (i >= boardText.size()) fail(sfen, rankName + " ends in the middle of a piece");
        const char letter = boardText[i++];
        const int face = std::isupper(static_cast<unsigned char>(letter)) ? v.faceIndex(letter, promoted) : -1;
        if (face < 0)
          fail(sfen, std::string("unknown piece '") + (promoted ? "+" : "") + letter + "' in " + rankName + " for " + v.name);
        pos.board_[v.square(col, rank)] = makePiece(army, face);
      },
      boardFail);

  if (sideText.size() != 1 || playerOf(sideText[0]) < 0) fail(sfen, "side to move \"" + sideText + "\" is not s, w, n or e");
  pos.side_ = playerOf(sideText[0]);

  if (handText != "-") {
    int player = -1;
    for (size_t i = 0; i < handText.size();) {
      if (playerOf(handText[i]) >= 0) {
        player = playerOf(handText[i++]);
        continue;
      }
      if (player < 0) fail(sfen, "the hands must start with a player's letter (s, w, n or e), like s2PnR");
      long count = 1;
      if (std::isdigit(static_cast<unsigned char>(handText[i]))) {
        count = sfen_fields::readNumber(handText, i);
        if (count < 1) fail(sfen, "a hand count of 0");
        if (i >= handText.size()) fail(sfen, "hand count without a piece letter");
      }
      const char letter = handText[i++];
      const int kind = std::isupper(static_cast<unsigned char>(letter)) ? v.handKindOf(letter) : -1;
      if (kind < 0) fail(sfen, std::string("'") + letter + "' cannot be in hand in " + v.name);
      const long total = pos.hand_[player][kind] + count;
      if (total > kMaxHandCount) fail(sfen, "more than " + std::to_string(kMaxHandCount) + " of one piece in hand");
      pos.hand_[player][kind] = uint8_t(total);
    }
  }

  if (!numberText.empty()) {
    const std::optional<int> number = sfen_fields::parseMoveNumber(numberText);
    if (!number) fail(sfen, "move number \"" + numberText + "\" is not a positive whole number");
    pos.moveNumber_ = *number;
  }
  if (!controlText.empty()) {
    if (controlText.size() != size_t(v.numPlayers))
      fail(sfen, "the controllers \"" + controlText + "\" must be four letters, who moves the s, w, n and e armies");
    for (Color a = 0; a < v.numPlayers; ++a) {
      const int c = playerOf(controlText[a]);
      if (c < 0) fail(sfen, "the controllers \"" + controlText + "\" may hold only s, w, n and e");
      pos.controller_[a] = c;
    }
  }

  // Kings: one an army, upright while its player plays, turned once it is mated.
  const int king = v.royalFace();
  for (Color a = 0; a < v.numPlayers; ++a) {
    int upright = 0, turned = 0;
    for (Square s = 0; s < v.numSquares(); ++s) {
      const Piece p = pos.board_[s];
      if (!p || colorOf(p) != a) continue;
      if (faceOf(p) == king) {
        ++upright;
        pos.kingSq_[a] = s;
      }
      turned += faceOf(p) == v.turnedKingFace;
    }
    const std::string name = kPlayerNames[a];
    if (upright + turned != 1)
      fail(sfen, name + " has " + std::to_string(upright + turned) + " kings (upright or turned), not one");
    const Color c = pos.controller_[a];
    if (upright && c != a)
      fail(sfen, name + "'s king stands, so " + name + " plays its own pieces, not " + kPlayerNames[c]);
    if (turned && c == a)
      fail(sfen, name + "'s king is turned (mated), so another player controls its pieces: the controllers list " +
                     name + " as its own");
    if (turned) pos.kingSq_[a] = -1;
  }
  for (Color a = 0; a < v.numPlayers; ++a) {
    const Color c = pos.controller_[a];
    if (pos.isOut(c))
      fail(sfen, std::string(kPlayerNames[a]) + "'s army is listed as " + kPlayerNames[c] + "'s, who is out");
    for (size_t k = 0; k < v.handKinds.size(); ++k)
      if (pos.isOut(a) && pos.hand_[a][k]) fail(sfen, std::string(kPlayerNames[a]) + " is out but has pieces in hand");
  }
  if (pos.isOut(pos.side_)) fail(sfen, std::string("the side to move, ") + kPlayerNames[pos.side_] + ", is out");

  // No more of a piece than the four sets hold (board and hands, promoted or not).
  std::vector<long> setCount(v.handKinds.size(), 0), count(v.handKinds.size(), 0);
  const Position start = v.startSfen.empty() || v.startSfen == sfen ? pos : fromFourPlayerSfen(variant, v.startSfen);
  for (Square s = 0; s < v.numSquares(); ++s) {
    if (const Piece p = start.board_[s]; p && v.faces[faceOf(p)].handKind >= 0) ++setCount[v.faces[faceOf(p)].handKind];
    if (const Piece p = pos.board_[s]; p && v.faces[faceOf(p)].handKind >= 0) ++count[v.faces[faceOf(p)].handKind];
  }
  for (size_t k = 0; k < v.handKinds.size(); ++k) {
    for (Color c = 0; c < v.numPlayers; ++c) {
      setCount[k] += start.hand_[c][k];
      count[k] += pos.hand_[c][k];
    }
    if (count[k] > setCount[k])
      fail(sfen, std::to_string(count[k]) + " " + std::string(1, v.handKinds[k].letter) +
                     " pieces on the board and in hand, more than the " + std::to_string(setCount[k]) + " of the start");
  }

  State first;
  first.move = Move::none();
  pos.states_.push_back(first);
  pos.states_.back().hash = pos.computeHash();
  // A player put in check moves next, so nobody can be in check while another, not in check,
  // is to move; unless the game is over (the winner, who moved last, is the side to move).
  pos.states_.back().inCheck = pos.playerInCheck(pos.side_);
  if (!pos.states_.back().inCheck && pos.armiesOf(pos.side_) < 3)
    for (Color c = 0; c < v.numPlayers; ++c)
      if (pos.playerInCheck(c))
        fail(sfen, std::string(kPlayerNames[c]) + " is in check, so " + kPlayerNames[pos.side_] +
                       " (not in check) cannot be the side to move");
  return pos;
}

std::string Position::fourPlayerSfen() const {
  const Variant& v = *variant_;
  std::string out = sfen_fields::boardField(
      v.files, v.ranks, [&](int col, int rank) { return board_[v.square(col, rank)]; },
      [&](Piece p) {
        const Face& f = v.faces[faceOf(p)];
        std::string token(1, kPlayerLetters[colorOf(p)]);
        if (f.promoted) token += '+';
        return token + f.letter;
      });
  out += ' ';
  out += kPlayerLetters[side_];
  std::string hand;
  for (Color c = 0; c < v.numPlayers; ++c) {
    std::string mine;
    for (size_t k = 0; k < v.handKinds.size(); ++k) {
      const int n = hand_[c][k];
      if (!n) continue;
      if (n > 1) mine += std::to_string(n);
      mine += v.handKinds[k].letter;
    }
    if (!mine.empty()) hand += kPlayerLetters[c] + mine;
  }
  out += ' ' + (hand.empty() ? std::string("-") : hand);
  out += ' ' + std::to_string(std::min(moveNumber(), kMaxMoveNumber)) + ' ';
  for (Color a = 0; a < v.numPlayers; ++a) out += kPlayerLetters[controller_[a]];
  return out;
}

}  // namespace poppy::game
