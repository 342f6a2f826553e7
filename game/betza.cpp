#include "game/betza.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>

namespace poppy::game {
namespace {

struct Atom {
  int a, b;        // leap (a, b) with a <= b, all eight symmetric images
  int range;       // default range: 1 leaper, 0 rider
};

bool atomFor(char c, std::vector<Atom>& out) {
  switch (c) {
    case 'W': out = {{0, 1, 1}}; return true;
    case 'F': out = {{1, 1, 1}}; return true;
    case 'D': out = {{0, 2, 1}}; return true;
    case 'N': out = {{1, 2, 1}}; return true;
    case 'A': out = {{2, 2, 1}}; return true;
    case 'H': out = {{0, 3, 1}}; return true;
    case 'C': out = {{1, 3, 1}}; return true;
    case 'Z': out = {{2, 3, 1}}; return true;
    case 'G': out = {{3, 3, 1}}; return true;
    case 'K': out = {{0, 1, 1}, {1, 1, 1}}; return true;
    case 'R': out = {{0, 1, 0}}; return true;
    case 'B': out = {{1, 1, 0}}; return true;
    case 'Q': out = {{0, 1, 0}, {1, 1, 0}}; return true;
    default: return false;
  }
}

std::vector<std::pair<int, int>> images(int a, int b) {
  std::vector<std::pair<int, int>> v;
  for (int sx : {1, -1})
    for (int sy : {1, -1}) {
      v.push_back({a * sx, b * sy});
      v.push_back({b * sx, a * sy});
    }
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  return v;
}

// Does direction (dx, dy) of an atom pass one modifier group (one letter or a letter pair)?
bool passes(const std::string& g, int dx, int dy) {
  const bool orth = dx == 0 || dy == 0;
  const bool diag = std::abs(dx) == std::abs(dy);
  const bool steep = std::abs(dy) > std::abs(dx);   // oblique, more vertical
  if (g == "f") return dy > 0;
  if (g == "b") return dy < 0;
  if (g == "l") return dx < 0;
  if (g == "r") return dx > 0;
  if (g == "v") return orth ? dx == 0 : (diag ? true : steep);
  if (g == "s") return orth ? dy == 0 : (diag ? true : !steep);
  if (g.size() == 2) {
    const char x = g[0], y = g[1];
    auto vert = [](char c) { return c == 'f' || c == 'b'; };
    auto horiz = [](char c) { return c == 'l' || c == 'r'; };
    if ((vert(x) && horiz(y)) || (horiz(x) && vert(y)))
      return passes(std::string(1, x), dx, dy) && passes(std::string(1, y), dx, dy);
    if (x == y && (vert(x) || horiz(x)))  // ff, bb, ll, rr: the outermost oblique moves
      return passes(std::string(1, x), dx, dy) && (vert(x) ? steep : !steep);
    if ((x == 'f' || x == 'b') && y == 's')  // fs, bs: the flatter forward/backward moves
      return passes(std::string(1, x), dx, dy) && !steep;
  }
  return false;
}

// Splits a modifier string into groups: pairs first where they make sense, then single letters.
std::vector<std::string> groups(const std::string& mods, bool diagonalAtom, bool obliqueAtom,
                                const std::string& whole) {
  std::vector<std::string> out;
  for (size_t i = 0; i < mods.size();) {
    const char c = mods[i];
    if (std::string("fblrsv").find(c) == std::string::npos)
      throw BetzaError("unsupported modifier '" + std::string(1, c) + "' in \"" + whole +
                       "\" (only f b l r s v are known; other powers need a code plugin)");
    if (i + 1 < mods.size()) {
      const std::string pair = mods.substr(i, 2);
      const bool fbLr = (pair[0] == 'f' || pair[0] == 'b') && (pair[1] == 'l' || pair[1] == 'r');
      const bool lrFb = (pair[0] == 'l' || pair[0] == 'r') && (pair[1] == 'f' || pair[1] == 'b');
      const bool doubled = pair[0] == pair[1] && pair[0] != 's' && pair[0] != 'v';
      const bool flat = (pair[0] == 'f' || pair[0] == 'b') && pair[1] == 's';
      if (((fbLr || lrFb) && (diagonalAtom || obliqueAtom)) || ((doubled || flat) && obliqueAtom)) {
        out.push_back(pair);
        i += 2;
        continue;
      }
    }
    out.push_back(std::string(1, c));
    ++i;
  }
  return out;
}

}  // namespace

std::vector<MoveVector> parseBetza(const std::string& text) {
  if (text.empty()) throw BetzaError("empty movement notation");
  std::vector<MoveVector> result;
  size_t i = 0;
  while (i < text.size()) {
    size_t start = i;
    while (i < text.size() && std::islower(static_cast<unsigned char>(text[i]))) ++i;
    const std::string mods = text.substr(start, i - start);
    if (i >= text.size())
      throw BetzaError("modifiers \"" + mods + "\" at the end of \"" + text + "\" have no piece letter");
    std::vector<Atom> atoms;
    if (!atomFor(text[i], atoms))
      throw BetzaError("unknown atom '" + std::string(1, text[i]) + "' in \"" + text + "\"");
    const char atomChar = text[i++];
    bool doubled = false;
    if (i < text.size() && text[i] == atomChar) {  // WW, FF, NN: riders
      doubled = true;
      ++i;
    }
    int limit = -1;
    if (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) {
      size_t j = i;
      while (j < text.size() && std::isdigit(static_cast<unsigned char>(text[j]))) ++j;
      // Capped while reading: a huge number must give a BetzaError, not overflow.
      limit = 0;
      for (size_t k = i; k < j; ++k) limit = std::min(limit * 10 + (text[k] - '0'), 1000);
      if (limit < 1 || limit > 64)
        throw BetzaError("range " + text.substr(i, j - i) + " in \"" + text + "\" is out of 1..64");
      i = j;
    }
    for (const Atom& atom : atoms) {
      int range = atom.range;
      if (doubled) range = 0;
      if (limit > 0) range = limit;
      const bool diagonalAtom = atom.a == atom.b;
      const bool obliqueAtom = atom.a != 0 && atom.a != atom.b;
      const auto gs = groups(mods, diagonalAtom, obliqueAtom, text);
      for (auto [dx, dy] : images(atom.a, atom.b)) {
        bool keep = gs.empty();
        for (const auto& g : gs) keep = keep || passes(g, dx, dy);
        if (!keep) continue;
        MoveVector mv{dx, dy, range};
        // A later, longer range for the same direction wins (e.g. "KbR": bW is covered by bR).
        // Compared through mv: C++17 lambdas cannot capture structured bindings (clang refuses).
        auto same = std::find_if(result.begin(), result.end(),
                                 [&](const MoveVector& o) { return o.dx == mv.dx && o.dy == mv.dy; });
        if (same == result.end()) {
          result.push_back(mv);
        } else if (same->range != 0 && (range == 0 || range > same->range)) {
          same->range = range;
        }
      }
    }
    if (result.empty() && i >= text.size())
      throw BetzaError("\"" + text + "\" selects no move at all");
  }
  return result;
}

}  // namespace poppy::game
