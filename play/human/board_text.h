// A position drawn as text for a terminal (`poppy play`): the board with USI coordinates (file
// numbers along the top, right to left from sente's view; rank letters down the right side, `a`
// at gote's back rank), both hands, and the last move's squares in brackets. Sente's pieces are
// upper case ("K", "+B"), gote's lower case behind a 'v' ("vk", "v+b"), the way Japanese
// diagrams turn gote's pieces upside down. Colour (ANSI) is optional; nothing depends on it.
//
//   gote in hand: P
//       4     3     2     1
//   +-----+-----+-----+-----+
//   |  vk |[  .]|  vg |  vs | a     one cell per square, 5 characters wide; '[' and ']'
//   |  vp |   . |   . |   . | b     replace the spaces around the squares the last move
//   |   . |   . |   . |[v+b]| c     left and reached
//   ...
//   sente in hand: -
#pragma once
#include <array>
#include <string>

#include "game/position.h"

namespace poppy::play {

struct BoardStyle {
  bool flipped = false;  // gote's view: rank `a` at the bottom, file 1 on the left
  bool color = false;    // ANSI colours: gote's pieces red, the last move's squares highlighted
  std::array<std::string, 2> names{"sente", "gote"};  // shown beside the hands
};

// "K", "+B" for sente; "vk", "v+b" for gote; "." for an empty square.
std::string pieceText(const game::Variant& variant, game::Piece piece);

// The pieces colour c holds, canonical order, "G Px2" style; "-" when empty.
std::string handText(const game::Position& pos, game::Color c);

// The board between the two hands (the side at the bottom of the picture holds the lower hand).
std::string renderBoard(const game::Position& pos, const BoardStyle& style = {});

}  // namespace poppy::play
