// A game pasted as text, in whichever form it comes (the study board of `poppy serve`): an SFEN,
// optionally with "moves ..." after it; a USI "position startpos|sfen ... [moves ...]" command; a
// KIF or CSA game (play/game_files/kif_format.h, csa_format.h); or one line of Poppy's JSONL game
// records (selfplay/game_record.h). Every move is checked by the rules.
#pragma once
#include <string>

#include "selfplay/game_record.h"

namespace poppy::play {

// `variantName`: the variant of an SFEN or a position command, and of a KIF or CSA file that does
// not name one. Throws GameFileError (play/game_files/game_file.h) saying which form the text was
// read as and what is wrong (the move number and text of an illegal move).
selfplay::GameRecord gameFromText(const std::string& text, const std::string& variantName);

}  // namespace poppy::play
