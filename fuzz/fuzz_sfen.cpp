// Position::fromSfen on arbitrary text. The first byte picks one of the shipped variants, the rest
// is the SFEN. Promise (game/position.h): it throws SfenError, or returns a position whose sfen()
// parses back to the same text and hash, where every legal move can be made and unmade exactly.
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz/fuzz_support.h"
#include "game/position.h"

using namespace poppy;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const game::VariantPtr& variant = fuzz::variantFromByte(data[0]);
  const std::string text(reinterpret_cast<const char*>(data + 1), size - 1);
  game::Position pos(variant);
  try {
    pos = game::Position::fromSfen(variant, text);
  } catch (const game::SfenError&) {
    return 0;  // refused with the documented error
  }
  const std::string sfen = pos.sfen();
  const game::Position again = game::Position::fromSfen(variant, sfen);  // must not throw
  fuzz::check(again.sfen() == sfen, "sfen() does not parse back to itself: " + sfen);
  fuzz::check(again.hash() == pos.hash(), "the hash changes on re-parsing " + sfen);
  fuzz::check(pos.computeHash() == pos.hash(), "incremental and computed hash differ for " + sfen);

  game::MoveList moves;
  pos.generateLegal(moves);
  for (const game::Move& m : moves) {
    const std::string usi = pos.moveToUsi(m);
    fuzz::check(pos.parseUsi(usi) == m, "legal move " + usi + " does not parse back in " + sfen);
    pos.makeMove(m);
    fuzz::check(pos.computeHash() == pos.hash(), "hash wrong after " + usi + " in " + sfen);
    game::Position::fromSfen(variant, pos.sfen());  // a position after a legal move is valid SFEN
    pos.unmakeMove();
    fuzz::check(pos.sfen() == sfen && pos.hash() == again.hash(), "unmaking " + usi + " does not restore " + sfen);
  }
  pos.outcome(0);
  return 0;
}
