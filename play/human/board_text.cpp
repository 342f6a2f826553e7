#include "play/human/board_text.h"

#include <cctype>

namespace poppy::play {
namespace {

// ANSI escapes (SGR). Only used when BoardStyle::color is set.
const char* const kReset = "\x1b[0m";
const char* const kGote = "\x1b[31m";            // red
const char* const kSente = "\x1b[1m";            // bold
const char* const kHighlight = "\x1b[30;43m";    // black on yellow
const char* const kDim = "\x1b[2m";

constexpr int kCellWidth = 5;  // mark, 3 characters of piece text, mark
constexpr int kMargin = 2;     // spaces before the left border

std::string rightAligned(const std::string& s, size_t width) {
  return s.size() >= width ? s : std::string(width - s.size(), ' ') + s;
}

// Columns (0 = sente's left, as Variant::colOf) in drawing order.
int columnAt(const game::Variant& v, int i, bool flipped) { return flipped ? v.files - 1 - i : i; }
int rankAt(const game::Variant& v, int i, bool flipped) { return flipped ? v.ranks - 1 - i : i; }

// Variants without drops (chu) have no hands to show.
std::string handLine(const game::Position& pos, game::Color c, const BoardStyle& style) {
  if (!pos.variant().dropsEnabled) return "";
  return std::string(kMargin, ' ') + style.names[c] + " in hand: " + handText(pos, c) + "\n";
}

}  // namespace

std::string pieceText(const game::Variant& variant, game::Piece piece) {
  if (piece == game::kEmpty) return ".";
  const game::Face& face = variant.faces[game::faceOf(piece)];
  std::string text = face.token();
  if (game::colorOf(piece) == 0) return text;
  for (char& ch : text) ch = char(std::tolower(static_cast<unsigned char>(ch)));
  return "v" + text;
}

std::string handText(const game::Position& pos, game::Color c) {
  const game::Variant& v = pos.variant();
  std::string text;
  for (size_t kind = 0; kind < v.handKinds.size(); ++kind) {
    const int n = pos.handCount(c, int(kind));
    if (n == 0) continue;
    if (!text.empty()) text += ' ';
    text += v.faces[v.handKinds[kind].setupFace].letterToken();
    if (n > 1) text += "x" + std::to_string(n);
  }
  return text.empty() ? "-" : text;
}

std::string renderBoard(const game::Position& pos, const BoardStyle& style) {
  const game::Variant& v = pos.variant();
  const game::Move last = pos.lastMove();
  auto highlighted = [&](game::Square s) {
    if (last.isNone()) return false;
    return s == last.to || (!last.isDrop() && s == last.from) || (last.isTwoLeg() && s == last.mid());
  };

  std::string out;
  // The hand of the side drawn at the top comes first, as in printed diagrams.
  const game::Color top = style.flipped ? 0 : 1;
  out += handLine(pos, top, style);

  std::string header(kMargin + 1, ' ');
  for (int i = 0; i < v.files; ++i) {
    const int col = columnAt(v, i, style.flipped);
    // The number sits above the last letter of the piece text.
    header += rightAligned(std::to_string(v.files - col), kCellWidth - 1) + "  ";
  }
  while (!header.empty() && header.back() == ' ') header.pop_back();
  out += header + "\n";

  std::string border(kMargin, ' ');
  border += '+';
  for (int i = 0; i < v.files; ++i) border += std::string(kCellWidth, '-') + "+";
  out += border + "\n";

  for (int r = 0; r < v.ranks; ++r) {
    const int rank = rankAt(v, r, style.flipped);
    std::string row(kMargin, ' ');
    row += '|';
    for (int i = 0; i < v.files; ++i) {
      const game::Square s = v.square(columnAt(v, i, style.flipped), rank);
      const game::Piece p = pos.at(s);
      const bool mark = highlighted(s);
      const std::string text = rightAligned(pieceText(v, p), kCellWidth - 2);
      std::string cell;
      if (style.color) {
        const char* tone = p == game::kEmpty ? kDim : (game::colorOf(p) == 0 ? kSente : kGote);
        if (mark) tone = kHighlight;
        cell = std::string(mark ? "[" : " ") + tone + text + kReset + (mark ? "]" : " ");
      } else {
        cell = std::string(mark ? "[" : " ") + text + (mark ? "]" : " ");
      }
      row += cell + "|";
    }
    row += ' ';
    row += char('a' + rank);
    out += row + "\n";
  }
  out += border + "\n";
  out += handLine(pos, 1 - top, style);
  return out;
}

}  // namespace poppy::play
