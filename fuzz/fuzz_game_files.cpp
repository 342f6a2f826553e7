// KIF and CSA game files (play/game_files/kif_format.h, play/game_files/csa_format.h). Byte 0 picks the format (even:
// KIF, odd: CSA); the rest is the file. Promises: reading any bytes either gives a game or
// throws GameFileError naming the file, never another exception or a crash; a game read is
// legal (its moves replay from its start) and writes back to a file that reads as the same moves.
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz/fuzz_support.h"
#include "game/position.h"
#include "game/variant_loader.h"
#include "play/game_files/csa_format.h"
#include "play/game_files/game_file.h"
#include "play/game_files/kif_format.h"

using namespace poppy;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const bool kif = data[0] % 2 == 0;
  const std::string text(reinterpret_cast<const char*>(data) + 1, size - 1);
  const std::string source = kif ? "fuzz.kif" : "fuzz.csa";
  selfplay::GameRecord r;
  try {
    r = kif ? play::kifToGame(text, source) : play::csaToGame(text, source);
  } catch (const play::GameFileError& e) {
    fuzz::check(std::string(e.what()).rfind(source + ":", 0) == 0, std::string("an error that does not name the file: ") + e.what());
    return 0;
  }
  const game::VariantPtr v = game::loadVariant(r.variant);
  game::Position pos = game::Position::fromSfen(v, r.start);
  for (const std::string& m : r.moves) pos.makeMove(pos.parseUsi(m));  // throws (a crash here) if not legal
  fuzz::check(r.plies == int(r.moves.size()), "plies differ from the moves");
  const std::string again = kif ? play::gameToKif(r, v) : play::gameToCsa(r, v);
  const selfplay::GameRecord back = kif ? play::kifToGame(again, source) : play::csaToGame(again, source);
  fuzz::check(back.moves == r.moves && back.start == r.start && back.result == r.result && back.reason == r.reason,
              "a game read does not write back to the same game:\n" + again);
  return 0;
}
