#include "play/engines/xboard_notation.h"

namespace poppy::play {

std::string xboardVariantName(const std::string& poppyVariant) {
  // Only chu for now: HaChu's shogi is `9x9+0_shogi`, without drops, and XBoard's small shogis
  // are board-size variants of it whose rules were not checked against Poppy's.
  return poppyVariant == "chu" ? "chu" : "";
}

std::string xboardSquare(const game::Variant& variant, game::Square square) {
  // Poppy numbers squares in SFEN order: rank a (gote's back rank) first, each rank from
  // sente's left. XBoard counts files from sente's left too, and ranks from sente's side.
  const int column = square % variant.files, row = square / variant.files;
  return std::string(1, char('a' + column)) + std::to_string(variant.ranks - row);
}

std::string xboardMove(const game::Position& pos, game::Move move) {
  const game::Variant& v = pos.variant();
  if (move.isDrop()) {
    const std::string usi = pos.moveToUsi(move);  // "P*5e": the piece's letter before the '*'
    return usi.substr(0, usi.find('*')) + "@" + xboardSquare(v, move.to);
  }
  const std::string promote = move.isFlip() ? "+" : "";
  if (move.isTwoLeg()) {
    if (move.to == move.from && pos.at(move.mid()) == game::kEmpty) return "@@@@";  // a lion's pass
    return xboardSquare(v, move.from) + xboardSquare(v, move.mid()) + "," + xboardSquare(v, move.mid()) +
           xboardSquare(v, move.to) + promote;
  }
  return xboardSquare(v, move.from) + xboardSquare(v, move.to) + promote;
}

game::Move moveFromXboard(const game::Position& pos, const std::string& text) {
  std::string wanted = text;
  if (!wanted.empty() && wanted.back() == '=') wanted.pop_back();
  game::MoveList legal;
  pos.generateLegal(legal);
  for (const game::Move m : legal)
    if (xboardMove(pos, m) == wanted) return m;
  return game::Move::none();
}

}  // namespace poppy::play
