// XBoard's (CECP's) notation for Poppy's moves, as HaChu and XBoard write chu: files a, b, ...
// from sente's left, ranks 1, 2, ... from sente's side (USI `12l` is `a1`, `1a` is `l12` on
// chu's 12x12 board), promotion `+`, a lion's two steps or igui as two legs `f4f5,f5f6`, a lion's
// pass `@@@@`, a drop `P@e5`. An engine's move is read back by rendering every legal move of the
// position and taking the one it names, so the two notations can never disagree silently.
#pragma once
#include <string>

#include "game/position.h"

namespace poppy::play {

// XBoard's name of the variant, or "" where Poppy's and XBoard's variants are not known to be the
// same game (HaChu's `9x9+0_shogi` is shogi without drops).
std::string xboardVariantName(const std::string& poppyVariant);

std::string xboardSquare(const game::Variant& variant, game::Square square);
std::string xboardMove(const game::Position& pos, game::Move move);
// The legal move of pos that `text` names (legs joined with a comma, a trailing `=` for "no
// promotion" allowed); Move::none() when no legal move is written so.
game::Move moveFromXboard(const game::Position& pos, const std::string& text);

}  // namespace poppy::play
