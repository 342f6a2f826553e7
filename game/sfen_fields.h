// The number fields that two-player SFEN (game/sfen.cpp) and four-player SFEN
// (game/four_player_sfen.cpp) read alike: empty-square and hand counts, and the move number.
#pragma once

#include <algorithm>
#include <cctype>
#include <optional>
#include <string>

#include "game/types.h"

namespace poppy::game::sfen_fields {

// Reads a run of digits at text[i] and moves i past it. The value is capped at
// kMaxMoveNumber + 1, so a run of any length stays "too big" rather than overflowing.
inline long readNumber(const std::string& text, size_t& i) {
  long value = 0;
  while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) {
    value = std::min(value * 10 + (text[i] - '0'), long(kMaxMoveNumber) + 1);
    ++i;
  }
  return value;
}

// The move-number field: a whole number from 1 to kMaxMoveNumber and nothing else, or nullopt.
inline std::optional<int> parseMoveNumber(const std::string& text) {
  size_t i = 0;
  const long number = readNumber(text, i);
  if (i != text.size() || number < 1 || number > kMaxMoveNumber) return std::nullopt;
  return int(number);
}

}  // namespace poppy::game::sfen_fields
