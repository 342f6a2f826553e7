// The one-character kanji a piece face is drawn with, on the web page (which gets it from the
// server in each piece's JSON) and in Poppy's SVG boards (play/human/board_svg.h): shogi's pieces as
// KIF diagrams write them, and tori shogi's birds. Other faces (chu's, whale's, mitsugumi's) have
// none here and are drawn with their letters.
#pragma once
#include <string>

#include "game/types.h"

namespace poppy::play {

// "歩" for "pawn", "" when the face has no kanji here. Gote's king is 王 (sente's 玉), as on a
// real set.
std::string pieceKanji(const std::string& faceName, game::Color color);

}  // namespace poppy::play
