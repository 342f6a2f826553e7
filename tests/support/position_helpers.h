// Small helpers for rule tests: squares by USI name, pieces as SFEN tokens, legal moves as text.
#pragma once
#include <algorithm>
#include <cctype>
#include <string>
#include <vector>

#include "game/position.h"

namespace poppy::testing {

// "2b" -> square index of the variant.
inline game::Square sq(const game::Variant& v, const std::string& name) {
  const int file = std::stoi(name.substr(0, name.size() - 1));
  const int rank = name.back() - 'a';
  return v.square(v.files - file, rank);
}

// The piece on a square as an SFEN token ("+G", "p"), "" when empty.
inline std::string tokenAt(const game::Position& pos, const std::string& name) {
  const game::Piece p = pos.at(sq(pos.variant(), name));
  if (!p) return "";
  std::string t = pos.variant().faces[game::faceOf(p)].token();
  if (game::colorOf(p) == 1) t.back() = char(std::tolower(static_cast<unsigned char>(t.back())));
  return t;
}

inline std::vector<std::string> legalUsi(const game::Position& pos) {
  game::MoveList list;
  pos.generateLegal(list);
  std::vector<std::string> out;
  for (const game::Move& m : list) out.push_back(pos.moveToUsi(m));
  return out;
}

inline bool hasLegal(const game::Position& pos, const std::string& usi) {
  const auto all = legalUsi(pos);
  return std::find(all.begin(), all.end(), usi) != all.end();
}

}  // namespace poppy::testing
