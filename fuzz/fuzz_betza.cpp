// The XBetza parser (game/betza.h parseXBetza) on arbitrary notation text.
// Promises: it returns or throws BetzaError, nothing else; the same text gives the same moves;
// every compiled vector has a direction within the largest atom (3 squares each way) and no
// negative range; the second leg of a two-leg move is one step; parseBetza (plain notation only)
// agrees with it: the same plain moves, or BetzaError exactly when XBetza powers were used.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "fuzz/fuzz_support.h"
#include "game/betza.h"

using namespace poppy;

namespace {

bool directionOk(int dx, int dy) { return (dx != 0 || dy != 0) && std::abs(dx) <= 3 && std::abs(dy) <= 3; }

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  game::PieceMoves moves;
  try {
    moves = game::parseXBetza(text);
  } catch (const game::BetzaError&) {
    return 0;  // refused with the documented error
  }
  const game::PieceMoves again = game::parseXBetza(text);
  fuzz::check(again.plain == moves.plain && again.special == moves.special, "two parses differ: " + text);
  for (const game::MoveVector& v : moves.plain) {
    fuzz::check(directionOk(v.dx, v.dy), "a plain move with a bad direction from: " + text);
    fuzz::check(v.range >= 0, "a plain move with a negative range from: " + text);
  }
  for (const game::SpecialMove& s : moves.special) {
    fuzz::check(directionOk(s.first.dx, s.first.dy), "a special move with a bad direction from: " + text);
    fuzz::check(s.first.range >= 0, "a special move with a negative range from: " + text);
    if (s.twoLegs)
      fuzz::check(directionOk(s.second.dx, s.second.dy) && std::abs(s.second.dx) <= 1 && std::abs(s.second.dy) <= 1,
                  "a second leg that is not one step from: " + text);
  }
  try {
    const auto plain = game::parseBetza(text);
    fuzz::check(moves.special.empty() && plain == moves.plain, "parseBetza disagrees with parseXBetza on: " + text);
  } catch (const game::BetzaError&) {
    fuzz::check(!moves.special.empty(), "parseBetza refused plain notation: " + text);
  }
  return 0;
}
