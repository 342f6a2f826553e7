// The names shogi's game formats give pieces and squares: KIF's Japanese piece names (and the
// one-character forms of its board diagrams), CSA's two-letter codes, full-width file digits and
// kanji rank numerals. Only variants made of standard shogi's pieces have them (shogi,
// minishogi, judkins, gorogoro): a face is matched by its name in the variant file ("pawn",
// "promoted silver").
#pragma once
#include <string>

#include "game/variant.h"

namespace poppy::play {

struct ShogiPieceName {
  const char* face;   // the face's name in configs/variants/shogi.yaml
  const char* kif;    // KIF move text: "歩", "成銀"
  const char* board;  // one character, KIF board diagrams: "全"
  const char* csa;    // "FU", "NG"
};

// The entry of a face name, or nullptr.
const ShogiPieceName* shogiPieceName(const std::string& faceName);

// Throws std::invalid_argument when `v` cannot be written in the KIF and CSA notations: a face
// standard shogi has not, a flip other than shogi's promotions, a board larger than 9x9.
// `format` names the format in the message ("KIF").
void requireShogiPieces(const game::Variant& v, const char* format);

// The face of `v` with this KIF name (move text or board form, with the alternative spellings
// 王, 竜, 全, 圭, 杏, 成銀 ...), or -1.
int faceOfKifName(const game::Variant& v, const std::string& name);
// The face of `v` with this CSA code, or -1.
int faceOfCsaCode(const game::Variant& v, const std::string& code);

// "１".."９" for 1..9.
std::string fullWidthDigit(int d);
// "一".."十八" for 1..18; empty for anything else.
std::string kanjiNumber(int n);
// The number a kanji numeral stands for (一..十八), or -1.
int kanjiNumberValue(const std::string& text);

}  // namespace poppy::play
