// KIF, the game format of Kakinoki's shogi programs that shogi GUIs, databases and lishogi use:
// a header of "key：value" lines (手合割 gives the start: 平手, a handicap, 5五将棋, or a board
// diagram), then one numbered move a line in Japanese ("７六歩(77)", "同　歩(64)", "３一角打",
// "３三角成(77)"), ending in a word that says how the game ended (投了, 詰み, 千日手 ...).
// Poppy writes UTF-8 KIF ("#KIF version=2.0 encoding=UTF-8") and reads UTF-8 or Shift_JIS
// (CP932, the older .kif files). Variants made of standard shogi's pieces only (shogi,
// minishogi, judkins, gorogoro; play/game_files/shogi_names.h).
#pragma once
#include <string>

#include "game/variant.h"
#include "selfplay/game_record.h"

namespace poppy::play {

// The KIF text of a game record. The players are the record's model ("A vs B" for a match:
// sente A, gote B). A comment line "#poppy ..." keeps what KIF has no word for (the record's
// id, variant, result and reason), so that Poppy reads its own files back exactly; other
// programs skip it. Throws std::invalid_argument for a variant KIF cannot write, and
// game::MoveError for a record whose moves are not legal.
std::string gameToKif(const selfplay::GameRecord& record, const game::VariantPtr& variant);

// The main line of a KIF file's text (variations, 変化, are skipped). `source` names the file
// in errors; `variantName` is the variant when the header does not say (empty: infer it from
// 手合割, or fail). Throws GameFileError (play/game_files/game_file.h) naming the source, the line and
// what is wrong, for any move that is not legal among them.
selfplay::GameRecord kifToGame(const std::string& text, const std::string& source, const std::string& variantName = "");

}  // namespace poppy::play
