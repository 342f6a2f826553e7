#include "play/game_files/piece_kanji.h"

#include "play/game_files/shogi_names.h"

namespace poppy::play {
namespace {

// Tori shogi's birds (seed 002 names them in English; these are their usual kanji).
const char* const kBirds[][2] = {{"phoenix", "鵬"},    {"falcon", "鷹"},      {"eagle", "鵰"},
                                 {"crane", "鶴"},      {"pheasant", "雉"},    {"left quail", "鶉"},
                                 {"right quail", "鶉"}, {"swallow", "燕"},     {"goose", "鴈"}};

}  // namespace

std::string pieceKanji(const std::string& faceName, game::Color color) {
  if (faceName == "king") return color == 0 ? "玉" : "王";
  if (const ShogiPieceName* n = shogiPieceName(faceName)) return n->board;
  for (const auto& bird : kBirds)
    if (faceName == bird[0]) return bird[1];
  return "";
}

}  // namespace poppy::play
