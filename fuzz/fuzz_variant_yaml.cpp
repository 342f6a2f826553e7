// The variant loader (game/variant_loader.h) on arbitrary YAML. Promise: loadVariantFile throws
// VariantError, or returns a variant the rules engine can play: its start position is valid SFEN,
// moves can be generated, made and unmade, and the network encoder can be built for it.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "fuzz/fuzz_support.h"
#include "game/position.h"
#include "game/variant_loader.h"
#include "nn/encoder.h"

using namespace poppy;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static fuzz::ScratchFile file("variant.yaml");
  game::VariantPtr variant;
  try {
    variant = game::loadVariantFile(file.write(data, size));
  } catch (const game::VariantError&) {
    return 0;  // refused with the documented error
  }
  game::Position pos(variant);
  const std::string start = pos.sfen();
  fuzz::check(game::Position::fromSfen(variant, start).sfen() == start, "the start SFEN does not parse back: " + start);

  const nn::Encoder encoder(variant);
  std::vector<float> planes(size_t(encoder.inputSize()));
  // A short game: always the last legal move, so that drops (listed last) come into play.
  game::MoveList moves;
  for (int ply = 0; ply < 12 && !pos.outcome(0).over(); ++ply) {
    pos.generateLegal(moves);
    if (moves.size() == 0) break;
    encoder.encode(pos, planes.data());
    for (const game::Move& m : moves) {
      const int index = encoder.moveIndex(pos, m);
      fuzz::check(index >= 0 && index < encoder.policySize(), "policy index out of range in " + pos.sfen());
      fuzz::check(encoder.indexToMove(pos, index) == m, "policy index does not map back in " + pos.sfen());
    }
    pos.makeMove(moves[moves.size() - 1]);
    game::Position::fromSfen(variant, pos.sfen());
  }
  while (pos.gamePly() > 0) pos.unmakeMove();
  fuzz::check(pos.sfen() == start, "unmaking the game does not restore the start " + start);
  return 0;
}
