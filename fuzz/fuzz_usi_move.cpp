// Position::parseUsi, and the Fairy-Stockfish notation of play/engines/usi_notation.h, on arbitrary move
// text in positions reached by play. Input: byte 0 picks a shipped variant, byte 1 how many plies
// to play from its start (bytes 2.. pick each move), the rest is the move text.
// Promises: parseUsi returns a legal move whose own text parses back to it, or throws MoveError;
// the notation maps a legal move there and back to the same text, and never fails on garbage.
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz/fuzz_support.h"
#include "game/position.h"
#include "play/engines/usi_notation.h"

using namespace poppy;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  const game::VariantPtr& variant = fuzz::variantFromByte(data[0]);
  const size_t plies = data[1] % 32;
  size_t at = 2;
  game::Position pos(variant);
  game::MoveList moves;
  for (size_t i = 0; i < plies && at < size; ++i, ++at) {
    pos.generateLegal(moves);
    if (moves.size() == 0) break;
    pos.makeMove(moves[data[at] % moves.size()]);
  }
  const std::string text(reinterpret_cast<const char*>(data + at), size - at);

  pos.generateLegal(moves);
  try {
    const game::Move m = pos.parseUsi(text);
    bool listed = false;
    for (const game::Move& legal : moves) listed = listed || legal == m;
    fuzz::check(listed, "parseUsi accepted '" + text + "', which is not a legal move, in " + pos.sfen());
    fuzz::check(pos.parseUsi(pos.moveToUsi(m)) == m, "the text of a parsed move does not parse back: " + text);
  } catch (const game::MoveError&) {
    // refused with the documented error
  }

  // Fairy-Stockfish's letters for micro shogi (the identity for the other variants).
  const play::UsiNotation fairy(play::NotationKind::kFairy, variant->name);
  const std::string fromEngine = fairy.fromEngine(pos, text);
  try {
    pos.parseUsi(fromEngine);
  } catch (const game::MoveError&) {
  }
  fairy.move(pos, text);  // the move need not be legal
  fairy.sfen(text);       // nor need the SFEN be valid: garbage passes through
  for (const game::Move& m : moves) {
    const std::string usi = pos.moveToUsi(m);
    fuzz::check(fairy.fromEngine(pos, fairy.move(pos, usi)) == usi, "the notation does not map " + usi + " back");
  }
  return 0;
}
