#include "play/game_files/shogi_names.h"

#include <stdexcept>

namespace poppy::play {
namespace {

const ShogiPieceName kNames[] = {
    {"king", "玉", "玉", "OU"},        {"rook", "飛", "飛", "HI"},
    {"dragon", "龍", "龍", "RY"},      {"bishop", "角", "角", "KA"},
    {"horse", "馬", "馬", "UM"},       {"gold", "金", "金", "KI"},
    {"silver", "銀", "銀", "GI"},      {"promoted silver", "成銀", "全", "NG"},
    {"knight", "桂", "桂", "KE"},      {"promoted knight", "成桂", "圭", "NK"},
    {"lance", "香", "香", "KY"},       {"promoted lance", "成香", "杏", "NY"},
    {"pawn", "歩", "歩", "FU"},        {"tokin", "と", "と", "TO"},
};

// Shogi's promotions: the only flips the notations can write ("成").
const char* const kPromotions[][2] = {{"rook", "dragon"},   {"bishop", "horse"},          {"silver", "promoted silver"},
                                      {"knight", "promoted knight"}, {"lance", "promoted lance"}, {"pawn", "tokin"}};

// Other spellings readers meet: 王 (the king of the side that is not the higher-ranked player),
// 竜 (dragon), and the two-character promoted names in diagrams or one-character ones in moves.
const char* const kAliases[][2] = {{"王", "king"},           {"竜", "dragon"},          {"全", "promoted silver"},
                                   {"圭", "promoted knight"}, {"杏", "promoted lance"},  {"成銀", "promoted silver"},
                                   {"成桂", "promoted knight"}, {"成香", "promoted lance"}};

const char* const kDigits[] = {"１", "２", "３", "４", "５", "６", "７", "８", "９"};
const char* const kKanji[] = {"一", "二", "三", "四", "五", "六", "七", "八", "九",
                              "十", "十一", "十二", "十三", "十四", "十五", "十六", "十七", "十八"};

int faceNamed(const game::Variant& v, const std::string& name) {
  for (size_t f = 0; f < v.faces.size(); ++f)
    if (v.faces[f].name == name) return int(f);
  return -1;
}

}  // namespace

const ShogiPieceName* shogiPieceName(const std::string& faceName) {
  for (const ShogiPieceName& n : kNames)
    if (faceName == n.face) return &n;
  return nullptr;
}

void requireShogiPieces(const game::Variant& v, const char* format) {
  const std::string what = std::string(format) + " writes standard shogi's pieces only: variant '" + v.name + "' ";
  if (v.files > 9 || v.ranks > 9) throw std::invalid_argument(what + "has a board larger than 9x9");
  for (const game::Face& f : v.faces) {
    if (!shogiPieceName(f.name)) throw std::invalid_argument(what + "has the " + f.name);
    if (f.flipTo < 0 || f.promoted) continue;
    const std::string& other = v.faces[size_t(f.flipTo)].name;
    bool known = false;
    for (const auto& p : kPromotions) known = known || (f.name == p[0] && other == p[1]);
    if (!known || v.promotion != game::PromotionKind::kZone)
      throw std::invalid_argument(what + "turns its " + f.name + " into a " + other + " otherwise than by promotion");
  }
}

int faceOfKifName(const game::Variant& v, const std::string& name) {
  for (const ShogiPieceName& n : kNames)
    if (name == n.kif || name == n.board) return faceNamed(v, n.face);
  for (const auto& a : kAliases)
    if (name == a[0]) return faceNamed(v, a[1]);
  return -1;
}

int faceOfCsaCode(const game::Variant& v, const std::string& code) {
  for (const ShogiPieceName& n : kNames)
    if (code == n.csa) return faceNamed(v, n.face);
  return -1;
}

std::string fullWidthDigit(int d) { return d >= 1 && d <= 9 ? kDigits[d - 1] : ""; }

std::string kanjiNumber(int n) { return n >= 1 && n <= 18 ? kKanji[n - 1] : ""; }

int kanjiNumberValue(const std::string& text) {
  for (int n = 1; n <= 18; ++n)
    if (text == kKanji[n - 1]) return n;
  return -1;
}

}  // namespace poppy::play
