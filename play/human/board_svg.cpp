#include "play/human/board_svg.h"

#include <algorithm>
#include <cstdio>

#include "common/xml_escape.h"
#include "play/game_files/piece_kanji.h"

namespace poppy::play {
namespace {

// The web page's colours (web/poppy.css).
const char* const kWood = "#e8c48a";
const char* const kLine = "#5a4020";
const char* const kTile = "#f6dfa8";
const char* const kTileEdge = "#7a5a2a";
const char* const kPromoted = "#c00000";
const char* const kLastMove = "rgba(255,200,0,0.45)";
const char* const kHandBack = "#efe1c4";
const char* const kKanjiFonts = "'Noto Serif CJK JP','Noto Sans CJK JP','IPAMincho','IPAGothic',serif";
const char* const kLetterFonts = "'DejaVu Sans',system-ui,sans-serif";

std::string num(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", x);
  std::string s = buf;
  if (s.size() > 2 && s.compare(s.size() - 2, 2, ".0") == 0) s.resize(s.size() - 2);
  return s;
}

struct Layout {
  double sq, label, hand, width, height;
  double boardX, boardY;  // the top-left corner of the first square
  bool hands;
};

Layout layoutOf(const game::Variant& v, const BoardSvgOptions& o) {
  Layout l;
  l.sq = o.square;
  l.label = std::max(11.0, 0.32 * o.square);
  l.hands = v.dropsEnabled;
  l.hand = l.hands ? 0.8 * o.square + 8 : 0;
  l.boardX = 2;
  l.boardY = l.hand + l.label + 6;
  l.width = l.boardX + v.files * l.sq + 2 + l.label + 4;
  l.height = l.boardY + v.ranks * l.sq + 2 + (l.hands ? 4 + l.hand : 0);
  return l;
}

// Text squeezed to `room` pixels when its estimated width is larger (a face name on a tile).
std::string fitted(const std::string& text, double fontSize, double room) {
  size_t glyphs = 0;
  for (unsigned char c : text) glyphs += (c & 0xC0) != 0x80;
  if (double(glyphs) * 0.58 * fontSize <= room) return "";
  return " textLength=\"" + num(room) + "\" lengthAdjust=\"spacingAndGlyphs\"";
}

// One tile centred on (cx, cy), `size` pixels square, pointing down when `down`.
std::string tile(const game::Face& face, game::Color color, bool down, bool lettersWanted, double cx, double cy,
                 double size) {
  const double w = 0.82 * size, h = 0.9 * size, x = cx - w / 2, y = cy - h / 2;
  const std::string kanji = lettersWanted ? "" : pieceKanji(face.name, color);
  const bool letters = kanji.empty();
  const std::string turn = down ? " transform=\"rotate(180 " + num(cx) + " " + num(cy) + ")\"" : "";
  const std::string ink = face.promoted ? kPromoted : "#222";
  std::string out = "<g class=\"piece\" data-token=\"" + common::xmlEscape(face.token()) + "\" data-color=\"" +
                    (color == 0 ? "sente" : "gote") + "\">";
  out += "<polygon points=\"";
  const double px[] = {0.5, 0.86, 1, 0, 0.14}, py[] = {0, 0.14, 1, 1, 0.14};
  for (int i = 0; i < 5; ++i) out += (i ? " " : "") + num(x + px[i] * w) + "," + num(y + py[i] * h);
  out += "\" fill=\"" + std::string(kTile) + "\" stroke=\"" + kTileEdge + "\" stroke-width=\"0.8\"" + turn + "/>";
  // Kanji turn with the tile, as on a real board; letters stay upright for both sides.
  const double small = std::max(5.0, 0.16 * size);
  if (!letters) {
    out += "<g" + turn + ">";
    out += "<text x=\"" + num(cx) + "\" y=\"" + num(cy + 0.14 * size) + "\" text-anchor=\"middle\" font-size=\"" +
           num(0.46 * size) + "\" font-family=\"" + kKanjiFonts + "\" fill=\"" + ink + "\">" +
           common::xmlEscape(kanji) + "</text>";
    out += "<text x=\"" + num(cx) + "\" y=\"" + num(y + h - 0.05 * size) + "\" text-anchor=\"middle\" font-size=\"" +
           num(small) + "\" font-family=\"" + kLetterFonts + "\" fill=\"" + (face.promoted ? kPromoted : "#555") +
           "\">" + common::xmlEscape(face.token()) + "</text></g>";
  } else {
    const double big = 0.36 * size;
    // On a downward tile the wide end is at the top: the name goes there, the token below it.
    const double tokenY = down ? cy + 0.2 * size : cy + 0.08 * size;
    const double nameY = down ? y + 0.05 * size + small : y + h - 0.05 * size;
    out += "<text x=\"" + num(cx) + "\" y=\"" + num(tokenY) + "\" text-anchor=\"middle\" font-size=\"" + num(big) +
           "\" font-weight=\"bold\" font-family=\"" + kLetterFonts + "\" fill=\"" + ink + "\"" +
           fitted(face.token(), big, 0.8 * w) + ">" + common::xmlEscape(face.token()) + "</text>";
    out += "<text x=\"" + num(cx) + "\" y=\"" + num(nameY) + "\" text-anchor=\"middle\" font-size=\"" + num(small) +
           "\" font-family=\"" + kLetterFonts + "\" fill=\"" + (face.promoted ? kPromoted : "#555") + "\"" +
           fitted(face.name, small, 0.9 * w) + ">" + common::xmlEscape(face.name) + "</text>";
  }
  return out + "</g>";
}

std::string handRow(const game::Position& pos, game::Color c, const BoardSvgOptions& o, const Layout& l, double y) {
  const game::Variant& v = pos.variant();
  const game::Color bottom = o.flipped ? 1 : 0;
  std::string out = "<rect x=\"0\" y=\"" + num(y) + "\" width=\"" + num(l.width) + "\" height=\"" + num(l.hand) +
                    "\" rx=\"4\" fill=\"" + kHandBack + "\" stroke=\"#c8b089\"/>";
  out += "<text x=\"4\" y=\"" + num(y + l.hand / 2 + 4) + "\" font-size=\"11\" fill=\"#555\" font-family=\"" +
         kLetterFonts + "\">" + (c == 0 ? "sente" : "gote") + "</text>";
  const double size = 0.8 * l.sq;
  double x = 42;
  for (int k = 0; k < int(v.handKinds.size()); ++k) {
    const int n = pos.handCount(c, k);
    if (n == 0) continue;
    const double cx = x + size / 2, cy = y + l.hand / 2;
    out += tile(v.faces[v.handKinds[k].setupFace], c, c != bottom, o.letters, cx, cy, size);
    if (n > 1)
      out += "<text class=\"count\" x=\"" + num(x + size) + "\" y=\"" + num(y + l.hand - 3) +
             "\" font-size=\"11\" font-weight=\"bold\" fill=\"#333\" font-family=\"" + kLetterFonts + "\">" +
             std::to_string(n) + "</text>";
    x += size + 10;
  }
  return out;
}

}  // namespace

SvgSize boardSvgSize(const game::Variant& variant, const BoardSvgOptions& options) {
  const Layout l = layoutOf(variant, options);
  return {l.width, l.height};
}

std::string boardSvgGroup(const game::Position& pos, const BoardSvgOptions& o, double x, double y) {
  const game::Variant& v = pos.variant();
  const Layout l = layoutOf(v, o);
  const game::Color bottom = o.flipped ? 1 : 0;
  std::string out = "<g class=\"board\" transform=\"translate(" + num(x) + " " + num(y) + ")\">";
  if (l.hands) out += handRow(pos, 1 - bottom, o, l, 0);
  // File numbers: right to left from sente's view (file 1 on sente's right).
  for (int i = 0; i < v.files; ++i) {
    const int file = o.flipped ? i + 1 : v.files - i;
    out += "<text x=\"" + num(l.boardX + (i + 0.5) * l.sq) + "\" y=\"" + num(l.boardY - 4) +
           "\" text-anchor=\"middle\" font-size=\"" + num(l.label * 0.9) + "\" fill=\"#555\" font-family=\"" +
           kLetterFonts + "\">" + std::to_string(file) + "</text>";
  }
  for (int i = 0; i < v.ranks; ++i) {
    const int rank = o.flipped ? v.ranks - 1 - i : i;
    out += "<text x=\"" + num(l.boardX + v.files * l.sq + 4) + "\" y=\"" + num(l.boardY + (i + 0.5) * l.sq + 4) +
           "\" font-size=\"" + num(l.label * 0.9) + "\" fill=\"#555\" font-family=\"" + kLetterFonts + "\">" +
           std::string(1, char('a' + rank)) + "</text>";
  }
  out += "<rect x=\"" + num(l.boardX) + "\" y=\"" + num(l.boardY) + "\" width=\"" + num(v.files * l.sq) +
         "\" height=\"" + num(v.ranks * l.sq) + "\" fill=\"" + kWood + "\" stroke=\"" + kLine +
         "\" stroke-width=\"2\"/>";
  auto cellX = [&](game::Square s) {
    const int col = v.colOf(s);
    return l.boardX + (o.flipped ? v.files - 1 - col : col) * l.sq;
  };
  auto cellY = [&](game::Square s) {
    const int row = v.rankOf(s);
    return l.boardY + (o.flipped ? v.ranks - 1 - row : row) * l.sq;
  };
  const game::Move last = pos.lastMove();
  if (o.lastMove && !last.isNone()) {
    std::vector<game::Square> marked{last.to};
    if (!last.isDrop() && last.from != last.to) marked.push_back(last.from);
    for (game::Square s : marked)
      out += "<rect class=\"last-move\" x=\"" + num(cellX(s)) + "\" y=\"" + num(cellY(s)) + "\" width=\"" +
             num(l.sq) + "\" height=\"" + num(l.sq) + "\" fill=\"" + kLastMove + "\"/>";
  }
  std::string grid = "<path d=\"";
  for (int i = 1; i < v.files; ++i)
    grid += "M" + num(l.boardX + i * l.sq) + "," + num(l.boardY) + "v" + num(v.ranks * l.sq);
  for (int i = 1; i < v.ranks; ++i)
    grid += "M" + num(l.boardX) + "," + num(l.boardY + i * l.sq) + "h" + num(v.files * l.sq);
  out += grid + "\" stroke=\"" + kLine + "\" stroke-width=\"1\" fill=\"none\"/>";
  for (game::Square s = 0; s < v.numSquares(); ++s) {
    const game::Piece p = pos.at(s);
    if (p == game::kEmpty) continue;
    const game::Color c = game::colorOf(p);
    out += tile(v.faces[game::faceOf(p)], c, c != bottom, o.letters, cellX(s) + l.sq / 2, cellY(s) + l.sq / 2, l.sq);
  }
  if (l.hands) out += handRow(pos, bottom, o, l, l.boardY + v.ranks * l.sq + 6);
  return out + "</g>";
}

std::string boardSvg(const game::Position& pos, const BoardSvgOptions& options) {
  const SvgSize size = boardSvgSize(pos.variant(), options);
  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out += "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + num(size.width) + "\" height=\"" + num(size.height) +
         "\" viewBox=\"0 0 " + num(size.width) + " " + num(size.height) + "\">\n";
  out += "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  out += boardSvgGroup(pos, options, 0, 0) + "\n</svg>\n";
  return out;
}

}  // namespace poppy::play
