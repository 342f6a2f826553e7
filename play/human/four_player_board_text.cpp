#include "play/human/four_player_board_text.h"

namespace poppy::play {
namespace {

const char* const kSeats[] = {"south", "west", "north", "east"};
constexpr char kArmyLetters[] = "swne";
constexpr int kCellWidth = 5;

// The board square drawn at row r, column c (0, 0 top left) when `seat` sits at the bottom:
// the board turned by the seat's quarter turns (west's side, file 9, comes to the bottom).
game::Square squareAt(const game::Variant& v, game::Color seat, int r, int c) {
  const int n = v.files - 1;  // four players: a square board
  switch (v.quarterTurns(seat)) {
    case 0: return v.square(c, r);
    case 1: return v.square(n - r, c);
    case 2: return v.square(n - c, n - r);
    default: return v.square(r, n - c);
  }
}

std::string coordinate(const game::Variant& v, game::Square s, bool file) {
  return file ? std::to_string(v.fileNumber(s)) : std::string(1, char('a' + v.rankOf(s)));
}

std::string centred(const std::string& s, int width) {
  const int pad = std::max(0, width - int(s.size()));
  return std::string(size_t(pad - pad / 2), ' ') + s + std::string(size_t(pad / 2), ' ');
}

}  // namespace

std::string seatName(game::Color seat) { return seat >= 0 && seat < 4 ? kSeats[seat] : "?"; }

std::string sideName(const game::Variant& v, game::Color c) {
  if (v.numPlayers > 2) return seatName(c);
  return c == 0 ? "sente" : "gote";
}

int parseSeat(const std::string& text) {
  for (int s = 0; s < 4; ++s)
    if (text == kSeats[s] || text == std::string(1, kArmyLetters[s])) return s;
  return -1;
}

std::string fourPlayerPieceText(const game::Variant& variant, game::Piece piece) {
  if (piece == game::kEmpty) return ".";
  return std::string(1, kArmyLetters[game::colorOf(piece)]) + variant.faces[game::faceOf(piece)].token();
}

std::string renderFourPlayerBoard(const game::Position& pos, game::Color seat) {
  const game::Variant& v = pos.variant();
  const int n = v.files;
  const bool filesAlongTop = v.quarterTurns(seat) % 2 == 0;
  const game::Move last = pos.lastMove();
  auto marked = [&](game::Square s) {
    return !last.isNone() && (s == last.to || (!last.isDrop() && s == last.from));
  };
  std::string out = "  ";
  for (int c = 0; c < n; ++c) out += centred(coordinate(v, squareAt(v, seat, 0, c), filesAlongTop), kCellWidth + 1);
  out += "\n";
  std::string rule = "  +";
  for (int c = 0; c < n; ++c) rule += std::string(kCellWidth, '-') + "+";
  out += rule + "\n";
  for (int r = 0; r < n; ++r) {
    out += "  |";
    for (int c = 0; c < n; ++c) {
      const game::Square s = squareAt(v, seat, r, c);
      const std::string text = fourPlayerPieceText(v, pos.at(s));
      const std::string cell = centred(text, kCellWidth - 2);
      out += marked(s) ? "[" + cell + "]" : " " + cell + " ";
      out += "|";
    }
    out += " " + coordinate(v, squareAt(v, seat, r, 0), !filesAlongTop) + "\n";
  }
  out += rule + "\n";
  for (game::Color c = 0; c < v.numPlayers; ++c) {
    out += "  " + seatName(c) + (c == seat ? " (you)" : "") + ": ";
    if (pos.isOut(c)) {
      out += "mated; its pieces are " + seatName(pos.controllerOf(c)) + "'s\n";
      continue;
    }
    std::string hand;
    for (size_t k = 0; k < v.handKinds.size(); ++k) {
      const int count = pos.handCount(c, int(k));
      if (!count) continue;
      if (!hand.empty()) hand += ' ';
      hand += std::string(1, v.handKinds[k].letter) + (count > 1 ? "x" + std::to_string(count) : "");
    }
    out += "in hand " + (hand.empty() ? std::string("-") : hand);
    std::string armies;
    for (game::Color a = 0; a < v.numPlayers; ++a)
      if (a != c && pos.controllerOf(a) == c) armies += " " + seatName(a) + "'s";
    if (!armies.empty()) out += "; also moves" + armies + " pieces";
    out += "\n";
  }
  return out;
}

}  // namespace poppy::play
