// A position drawn as SVG: the board with file numbers along the top and rank letters down the
// right (as the web page and `poppy play` show them), both hands, the last move's squares
// highlighted. The pieces are the web page's (web/poppy.css): pentagon tiles pointing at the
// opponent, the face's kanji (play/game_files/piece_kanji.h) with its SFEN token beneath, promoted faces in
// red; faces without kanji, or every face with `letters`, show the token with the face's name
// beneath. Letters stay upright on the opponent's (turned) tiles, so "+P" or "M" and "W" read
// the same for both sides.
//
// Used for the board diagrams of `poppy openings tree` (play/openings/opening_tree_svg.cpp) and
// `poppy openings board`. Two-player boards only (a yonin board has no "top" and "bottom" side).
#pragma once
#include <string>

#include "game/position.h"

namespace poppy::play {

struct BoardSvgOptions {
  double square = 34;      // pixels per square
  bool letters = false;    // letters on every face (the web page's "Letters" box)
  bool flipped = false;    // gote at the bottom
  bool lastMove = true;    // highlight the squares the last move left and reached
};

struct SvgSize {
  double width = 0, height = 0;
};

// The drawing's size for this variant (it does not depend on the position).
SvgSize boardSvgSize(const game::Variant& variant, const BoardSvgOptions& options);

// A <g class="board"> drawing the position with its top-left corner at (x, y), to be placed in
// a larger SVG.
std::string boardSvgGroup(const game::Position& pos, const BoardSvgOptions& options, double x, double y);

// A whole SVG document of the position.
std::string boardSvg(const game::Position& pos, const BoardSvgOptions& options = {});

}  // namespace poppy::play
