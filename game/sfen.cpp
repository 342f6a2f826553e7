// SFEN text both ways. Board from rank a, each rank from the highest file down; side b/w;
// hand "-" or counts and letters (any order read, canonical order written); move number.
#include <algorithm>
#include <cctype>
#include <sstream>

#include "game/position.h"
#include "game/sfen_fields.h"
#include "game/usi_square.h"

#include <map>

namespace poppy::game {
namespace {

[[noreturn]] void fail(const std::string& sfen, const std::string& what) {
  throw SfenError("invalid SFEN \"" + sfen + "\": " + what);
}

// A face that only ever moves straight ahead or back along its file, and that no other face
// turns into by moving (whale's dolphin returning from its bishop move does): two of them of one
// side on a file can only come from drops, which the file limit forbids.
bool keepsItsFile(const Variant& v, int face) {
  const Face& f = v.faces[size_t(face)];
  if (!f.special.empty() || f.hasPowers()) return false;
  if (v.movesAsPieceBehind) return false;  // an-nan: a pawn may move sideways as the piece behind it
  for (const MoveVector& m : f.moves)
    if (m.dx != 0) return false;
  for (const Face& other : v.faces)
    if (&other != &f && other.reverts && other.flipTo == face) return false;
  return true;
}

std::string sideName(Color c) { return c == 0 ? "sente" : "gote"; }

}  // namespace

Position Position::fromSfen(VariantPtr variant, const std::string& sfen) {
  if (variant->numPlayers > 2) return fromFourPlayerSfen(variant, sfen);
  const Variant& v = *variant;
  Position pos(variant, 0);
  std::istringstream in(sfen);
  std::string boardText, sideText, handText, numberText, checksText, extra;
  in >> boardText >> sideText >> handText >> numberText;
  if (v.checksToWin) in >> checksText;  // miburi: checks given, "1+0" (game/check_count.cpp)
  in >> extra;
  if (boardText.empty()) fail(sfen, "it is empty");
  if (sideText.empty()) fail(sfen, "the side to move (b or w) is missing");
  if (handText.empty()) fail(sfen, "the hand field (\"-\" or pieces) is missing");
  if (!extra.empty())
    fail(sfen, "unexpected text \"" + extra + "\" after the " + (v.checksToWin ? "checks given" : "move number"));

  const auto boardFail = [&](const std::string& what) { fail(sfen, what); };
  sfen_fields::readBoardField(
      boardText, v.files, v.ranks, v.name,
      [&](size_t& i, int col, int rank, const std::string& rankName) {
        bool promoted = false;
        if (boardText[i] == '+') {
          promoted = true;
          if (++i >= boardText.size()) fail(sfen, "'+' at the end of the board");
        }
        const char letter = boardText[i];
        if (!std::isalpha(static_cast<unsigned char>(letter)))
          fail(sfen, std::string("unexpected character '") + letter + "' in " + rankName);
        const bool prime = i + 1 < boardText.size() && boardText[i + 1] == '\'';
        const int face = v.faceIndex(char(std::toupper(static_cast<unsigned char>(letter))), promoted, prime);
        if (face < 0)
          fail(sfen, std::string("unknown piece '") + (promoted ? "+" : "") + letter + (prime ? "'" : "") + "' for " + v.name);
        i += prime ? 2 : 1;
        const Color owner = std::isupper(static_cast<unsigned char>(letter)) ? 0 : 1;
        pos.board_[v.square(col, rank)] = makePiece(owner, face);
      },
      boardFail);

  if (sideText == "b") pos.side_ = 0;
  else if (sideText == "w") pos.side_ = 1;
  else fail(sfen, "side to move \"" + sideText + "\" is neither b nor w");

  // Chu shogi has no hands: as in lishogi, the field holds the square where a non-lion just took
  // a lion (lion_rules.cpp), or "-".
  int lionCapture = -1;
  if (v.lionFaces && handText != "-") {
    size_t end = 0;
    lionCapture = readUsiSquare(v, handText, end);
    if (lionCapture < 0 || end != handText.size())
      fail(sfen, "the third field \"" + handText + "\" must be \"-\" or the square where a lion was just taken, like 7f");
    const Piece taker = pos.board_[lionCapture];
    if (!taker || ((v.lionFaces >> faceOf(taker)) & 1) || colorOf(taker) == pos.side_)
      fail(sfen, "the lion-capture square " + handText + " must hold the non-lion of the side that just moved");
  } else if (handText != "-") {
    for (size_t i = 0; i < handText.size();) {
      long count = 1;
      if (std::isdigit(static_cast<unsigned char>(handText[i]))) {
        count = sfen_fields::readNumber(handText, i);
        if (count < 1) fail(sfen, "a hand count of 0");
        if (i >= handText.size()) fail(sfen, "hand count without a piece letter");
      }
      const char letter = handText[i++];
      const bool prime = i < handText.size() && handText[i] == '\'';
      if (prime) ++i;
      const int kind = std::isalpha(static_cast<unsigned char>(letter))
                           ? v.handKindOf(char(std::toupper(static_cast<unsigned char>(letter))), prime)
                           : -1;
      if (kind < 0) fail(sfen, std::string("'") + letter + (prime ? "'" : "") + "' cannot be in hand in " + v.name);
      const Color owner = std::isupper(static_cast<unsigned char>(letter)) ? 0 : 1;
      const long total = pos.hand_[owner][kind] + count;
      if (total > kMaxHandCount) fail(sfen, "more than " + std::to_string(kMaxHandCount) + " of one piece in hand");
      pos.hand_[owner][kind] = uint8_t(total);
    }
  }

  if (!numberText.empty()) {
    const std::optional<int> number = sfen_fields::parseMoveNumber(numberText);
    if (!number) fail(sfen, "move number \"" + numberText + "\" is not a positive whole number");
    pos.moveNumber_ = *number;
  }

  // Every physical piece can end up in one hand: cap the total so hand counts stay in range.
  for (size_t k = 0; k < v.handKinds.size(); ++k) {
    long total = 0;
    for (Color c = 0; c < v.numPlayers; ++c) total += pos.hand_[c][k];
    for (Square s = 0; s < v.numSquares(); ++s)
      if (pos.board_[s] && v.faces[faceOf(pos.board_[s])].handKind == int(k)) ++total;
    if (total > kMaxHandCount)
      fail(sfen, "more than " + std::to_string(kMaxHandCount) + " " + v.faces[v.handKinds[k].setupFace].letterToken() +
                     " pieces on the board and in hand together");
    if (k < v.maxPiecesInGame.size() && total > v.maxPiecesInGame[k])
      fail(sfen, std::to_string(total) + " " + v.faces[v.handKinds[k].setupFace].letterToken() +
                     " pieces (promoted or not, on the board and in hand, both sides) where " + v.name + " has " +
                     std::to_string(v.maxPiecesInGame[k]) + " in all");
  }

  if (!v.maxPiecesPerSide.empty()) {
    std::vector<int> count(v.maxPiecesPerSide.size(), 0);
    for (Square s = 0; s < v.numSquares(); ++s) {
      const Piece p = pos.board_[s];
      const int kind = p ? v.faces[faceOf(p)].handKind : -1;
      if (kind < 0) continue;
      const size_t slot = size_t(colorOf(p)) * v.handKinds.size() + size_t(kind);
      if (++count[slot] > v.maxPiecesPerSide[slot])
        fail(sfen, std::string(colorOf(p) == 0 ? "sente" : "gote") + " has more " + v.faces[v.handKinds[size_t(kind)].setupFace].letterToken() +
                       " pieces (promoted or not) than the " + std::to_string(v.maxPiecesPerSide[slot]) + " it starts with, and " +
                       v.name + " has no drops");
    }
  }

  // Placements no game can reach (two-player zone promotion, no flipping pieces): a piece on a
  // square where it could never move again where promotion is forced there (a pawn on its last
  // rank in shogi), and more of a face on a file than drops allow when the face never leaves
  // its file (two unpromoted pawns of one side: nifu).
  if (v.numPlayers == 2 && v.promotion == PromotionKind::kZone) {
    std::map<std::pair<int, int>, int> onFile;  // (colour and face, file) -> count
    for (Square s = 0; s < v.numSquares(); ++s) {
      const Piece p = pos.board_[s];
      if (!p) continue;
      const int face = faceOf(p);
      const Color c = colorOf(p);
      if (v.forcedOnDeadSquare && v.isDeadSquare(face, c, s))
        fail(sfen, sideName(c) + "'s " + v.faces[size_t(face)].token() + " on " + pos.squareName(s) +
                       " could never move again, and " + v.name + " forces promotion there");
      const int limit = face < int(v.maxPerFile.size()) ? v.maxPerFile[size_t(face)] : 0;
      if (limit > 0 && keepsItsFile(v, face) && ++onFile[{c * int(v.faces.size()) + face, v.colOf(s)}] > limit)
        fail(sfen, sideName(c) + " has more than " + std::to_string(limit) + " " + v.faces[size_t(face)].token() +
                       " on one file (" + pos.squareName(s) + "'s), which " + v.name + "'s drops never allow");
    }
  }

  // Kings: exactly one per side for variants with a royal piece; under royal capture at least
  // one (a king, and perhaps a crown prince) and at most one of each royal face.
  bool hasRoyal = false;
  for (const Face& f : v.faces) hasRoyal = hasRoyal || f.royal;
  int kings[kMaxPlayers] = {};
  int perFace[kMaxPlayers][kMaxFaces] = {};
  for (Square s = 0; s < v.numSquares(); ++s) {
    const Piece p = pos.board_[s];
    if (p && v.faces[faceOf(p)].royal) {
      if (!v.royalCapture) pos.kingSq_[colorOf(p)] = s;
      ++kings[colorOf(p)];
      if (++perFace[colorOf(p)][faceOf(p)] > 1 && v.royalCapture)
        fail(sfen, std::string(colorOf(p) == 0 ? "sente" : "gote") + " has two of the royal " + v.faces[faceOf(p)].name);
    }
  }
  // Unashogi: a king in hand counts as one on the board (king_in_hand.cpp).
  if (v.kingsInHand)
    for (Color c = 0; c < v.numPlayers; ++c) kings[c] += pos.hand_[c][v.faces[size_t(v.royalFace())].handKind];
  if (hasRoyal)
    for (Color c = 0; c < v.numPlayers; ++c)
      if (v.royalCapture ? kings[c] < 1 : kings[c] != 1)
        fail(sfen, std::string(c == 0 ? "sente" : "gote") + " has " + std::to_string(kings[c]) +
                       (v.royalCapture ? " royal pieces, not one or more" : " kings, not one"));

  State start;
  start.move = Move::none();
  start.lionCapture = int16_t(lionCapture);
  if (!checksText.empty()) {
    // "S+G": the checks sente and gote have given, each below checksToWin but for the side that
    // just moved, whose last check may have ended the game.
    const size_t plus = checksText.find('+');
    size_t i = 0, j = plus + 1;
    const long bySente = plus == std::string::npos ? -1 : sfen_fields::readNumber(checksText, i);
    const long byGote = plus == std::string::npos ? -1 : sfen_fields::readNumber(checksText, j);
    if (plus == std::string::npos || i != plus || i == 0 || j != checksText.size() || j == plus + 1)
      fail(sfen, "the checks field \"" + checksText + "\" must read like 1+0 (checks given by sente and by gote)");
    const long given[2] = {bySente, byGote};
    for (Color c = 0; c < 2; ++c) {
      const long most = c == pos.side_ ? v.checksToWin - 1 : v.checksToWin;
      if (given[c] > most)
        fail(sfen, sideName(c) + " has given " + std::to_string(given[c]) + " checks, more than " + v.name +
                       " allows " + (c == pos.side_ ? "the side to move (its last would have ended the game)" : "a side"));
      start.checks[c] = uint8_t(given[c]);
    }
  }
  pos.states_.push_back(start);
  pos.states_.back().hash = pos.computeHash();
  const Color mover = pos.side_, other = pos.opponent(mover);
  // Under royal capture a king may stand attacked on either side.
  if (pos.kingSq_[other] >= 0 && pos.attackedBy(pos.kingSq_[other], mover))
    fail(sfen, std::string("the side not to move (") + (other == 0 ? "sente" : "gote") + ") is in check");
  pos.states_.back().inCheck = pos.checkAfterMove();
  return pos;
}

std::string Position::sfen() const {
  const Variant& v = *variant_;
  if (v.numPlayers > 2) return fourPlayerSfen();
  std::string out = sfen_fields::boardField(
      v.files, v.ranks, [&](int col, int rank) { return board_[v.square(col, rank)]; },
      [&](Piece p) {
        const Face& f = v.faces[faceOf(p)];
        std::string token = f.promoted ? "+" : "";
        token += colorOf(p) == 0 ? f.letter : char(std::tolower(static_cast<unsigned char>(f.letter)));
        if (f.prime) token += '\'';
        return token;
      });
  out += side_ == 0 ? " b " : " w ";
  std::string hand;
  if (v.lionFaces && lionCaptureSquare() >= 0) hand = squareName(lionCaptureSquare());
  for (Color c = 0; c < v.numPlayers; ++c)
    for (size_t k = 0; k < v.handKinds.size(); ++k) {
      const int n = hand_[c][k];
      if (!n) continue;
      if (n > 1) hand += std::to_string(n);
      const char letter = v.handKinds[k].letter;
      hand += c == 0 ? letter : char(std::tolower(static_cast<unsigned char>(letter)));
      if (v.handKinds[k].prime) hand += '\'';
    }
  out += hand.empty() ? "-" : hand;
  // Saturates, so that the text always reads back.
  out += ' ' + std::to_string(std::min(moveNumber(), kMaxMoveNumber));
  if (v.checksToWin) out += ' ' + std::to_string(checksGiven(0)) + '+' + std::to_string(checksGiven(1));
  return out;
}

}  // namespace poppy::game
