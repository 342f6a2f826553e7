// The picture of an opening tree (`poppy openings tree --format svg|png`), made to be kept: plies
// run left to right, children sorted by visit share, edges as thick as the share. Each box says
// in text the move, its share, the whole line, W/D/L and the win rate (mover's view), and is
// coloured by how that win rate compares with the parent position's value for the same player
// (green better, red worse), so the differences between sibling moves show. Board diagrams of
// the most likely lines (or chosen ones) sit under the tree, numbered on their boxes.
//
// So that a depth-3 tree fits one screen, moves with a small share are folded into one line per
// position ("+3 more: ...") and plies below foldDepth into a count on their ancestor.
#pragma once
#include <string>
#include <vector>

#include "play/human/board_svg.h"
#include "play/openings/opening_tree.h"

namespace poppy::play {

struct OpeningTreeSvgOptions {
  int foldDepth = 3;          // plies drawn; positions below are counted on their ancestor's box
  double foldShare = 0.10;    // children under this share are folded (the most visited is always drawn)
  int diagrams = 3;           // boards of the this-many most likely drawn lines (by product of shares)
  // Lines to draw boards of instead (each a list of USI moves from the start); must be drawn nodes.
  std::vector<std::vector<std::string>> diagramLines;
  BoardSvgOptions board{30, false, false, true};
};

// Throws std::invalid_argument when an option is out of range (foldDepth >= 1, foldShare in
// [0, 1], diagrams 0 to 12) or a diagram line is not a drawn node of the tree.
std::string openingTreeSvg(const OpeningTree& tree, const game::VariantPtr& variant,
                           const OpeningTreeSvgOptions& options = {});

}  // namespace poppy::play
