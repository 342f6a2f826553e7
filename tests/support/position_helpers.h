// Small helpers for rule tests: squares by USI name, pieces as SFEN tokens, legal moves as text.
#pragma once
#include <algorithm>
#include <sstream>
#include <cctype>
#include <map>
#include <set>
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
  if (game::colorOf(p) == 1) {  // the letter: after a '+', before a prime
    char& letter = t[t[0] == '+' ? 1 : 0];
    letter = char(std::tolower(static_cast<unsigned char>(letter)));
  }
  return t;
}

// The board field of an SFEN with these pieces ("6f" -> "L", "12a" -> "+p") and nothing else.
inline std::string boardSfen(const game::Variant& v, const std::map<std::string, std::string>& pieces) {
  std::string board;
  for (int rank = 0; rank < v.ranks; ++rank) {
    int empty = 0;
    for (int col = 0; col < v.files; ++col) {
      const auto it = pieces.find(std::to_string(v.files - col) + char('a' + rank));
      if (it == pieces.end()) {
        ++empty;
        continue;
      }
      if (empty) board += std::to_string(empty);
      empty = 0;
      board += it->second;
    }
    if (empty) board += std::to_string(empty);
    if (rank + 1 < v.ranks) board += '/';
  }
  return board;
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

// The set of legal USI board moves starting on one square ("4d4c", "4c4b+"); drops never
// match (they start with a letter).
inline std::set<std::string> boardMovesFrom(const game::Position& pos, const std::string& from) {
  std::set<std::string> out;
  for (const auto& m : legalUsi(pos))
    if (m.compare(0, from.size(), from) == 0 && m.find('*') == std::string::npos) out.insert(m);
  return out;
}

// Expected set: from + each target ("4d", {"4c", "3b+"}) -> {"4d4c", "4d3b+"}.
inline std::set<std::string> movesFromTo(const std::string& from, const std::vector<std::string>& targets) {
  std::set<std::string> out;
  for (const auto& t : targets) out.insert(from + t);
  return out;
}

// Legal board moves from one square to another (to see which flip forms exist).
inline std::vector<game::Move> movesBetween(const game::Position& pos, const std::string& from, const std::string& to) {
  game::MoveList list;
  pos.generateLegal(list);
  std::vector<game::Move> out;
  const game::Square f = sq(pos.variant(), from), t = sq(pos.variant(), to);
  for (const game::Move& m : list)
    if (!m.isDrop() && m.from == f && m.to == t) out.push_back(m);
  return out;
}

// SFEN fields: 0 board, 1 side, 2 hand, 3 move number.
inline std::string field(const std::string& sfen, int n) {
  std::istringstream in(sfen);
  std::string f;
  for (int i = 0; i <= n; ++i) in >> f;
  return f;
}

inline void play(game::Position& pos, const std::vector<std::string>& moves) {
  for (const auto& m : moves) pos.makeMove(pos.parseUsi(m));
}

}  // namespace poppy::testing
