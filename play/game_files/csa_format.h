// CSA, the Computer Shogi Association's game format (version 2.2), which shogi servers
// (floodgate), engines and GUIs read: "N+"/"N-" players, the start as "PI" (the standard
// start) or a board of "P1".."P9" rows and "P+"/"P-" hands, then one move a line ("+7776FU":
// side, from, to, the piece after the move; "00" from the hand), ending in "%TORYO" and the like.
// Standard shogi (9x9) only.
#pragma once
#include <string>

#include "game/variant.h"
#include "selfplay/game_record.h"

namespace poppy::play {

// The CSA text of a game record. As with KIF (play/game_files/kif_format.h), a comment "'poppy ..." keeps
// the record's id, result and reason. Throws std::invalid_argument for a variant other than
// 9x9 shogi pieces, game::MoveError for moves that are not legal.
std::string gameToCsa(const selfplay::GameRecord& record, const game::VariantPtr& variant);

// The game of a CSA file's text; `source` names it in errors, `variantName` is the variant
// (empty: shogi). Throws GameFileError (play/game_files/game_file.h) naming the source, the line and what
// is wrong.
selfplay::GameRecord csaToGame(const std::string& text, const std::string& source, const std::string& variantName = "");

}  // namespace poppy::play
