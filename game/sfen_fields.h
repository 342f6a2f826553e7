// What two-player SFEN (game/sfen.cpp) and four-player SFEN (game/four_player_sfen.cpp) read and
// write alike: empty-square and hand counts, the move number, and the board field's layout both
// ways.
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

// The board field: rank a first, each rank from the highest file down (files x ranks squares,
// `pieceAt(col, rank)` the piece there or 0), runs of empty squares as counts, ranks joined by
// '/', and each piece written as `pieceToken(piece)` says (the two formats differ only there).
template <typename PieceAt, typename PieceToken>
std::string boardField(int files, int ranks, PieceAt pieceAt, PieceToken pieceToken) {
  std::string out;
  for (int rank = 0; rank < ranks; ++rank) {
    if (rank) out += '/';
    int empty = 0;
    for (int col = 0; col < files; ++col) {
      const auto piece = pieceAt(col, rank);
      if (!piece) {
        ++empty;
        continue;
      }
      if (empty) out += std::to_string(empty);
      empty = 0;
      out += pieceToken(piece);
    }
    if (empty) out += std::to_string(empty);
  }
  return out;
}

// The board field read back, the inverse of boardField: ranks joined by '/', runs of empty
// squares as counts, and at each piece `readPiece(i, col, rank, rankName)`, which reads the token
// at text[i], moves i past it and places it (the two formats differ only there). Every problem
// goes to `fail(what)`, which throws.
template <typename ReadPiece, typename Fail>
void readBoardField(const std::string& text, int files, int ranks, const std::string& variantName,
                    ReadPiece readPiece, Fail fail) {
  int rank = 0, col = 0;
  auto rankName = [&] { return std::string("rank ") + char('a' + rank); };
  for (size_t i = 0; i < text.size();) {
    const char c = text[i];
    if (c == '/') {
      if (col != files)
        fail(rankName() + " has " + std::to_string(col) + " squares, the " + variantName + " board has " +
             std::to_string(files) + " files");
      ++rank;
      col = 0;
      ++i;
      if (rank >= ranks) fail("more than " + std::to_string(ranks) + " ranks");
      continue;
    }
    if (std::isdigit(static_cast<unsigned char>(c))) {
      const long empty = readNumber(text, i);
      if (empty == 0) fail("an empty-square count of 0");
      col += int(std::min(empty, long(files) + 1));
      if (col > files) fail(rankName() + " is longer than " + std::to_string(files) + " files");
      continue;
    }
    if (col >= files) fail(rankName() + " is longer than " + std::to_string(files) + " files");
    readPiece(i, col, rank, rankName());
    ++col;
  }
  if (rank != ranks - 1 || col != files)
    fail("the board needs " + std::to_string(ranks) + " ranks of " + std::to_string(files) + " squares");
}

}  // namespace poppy::game::sfen_fields
