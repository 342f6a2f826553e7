// A square in USI text ("<file number><rank letter>", e.g. 7f, 12a), read by the move parser
// (usi_move.cpp) and by the SFEN reader for chu's lion-capture field (sfen.cpp).
#pragma once
#include <string>

#include "game/types.h"
#include "game/variant.h"

namespace poppy::game {

// Reads the square at text[i] and moves i past it; -1 when malformed or off the board.
Square readUsiSquare(const Variant& v, const std::string& text, size_t& i);

}  // namespace poppy::game
