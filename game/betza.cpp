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

// The atoms a piece letter stands for; none for a letter that is not an atom.
std::vector<Atom> atomsOf(char c) {
  switch (c) {
    case 'W': return {{0, 1, 1}};
    case 'F': return {{1, 1, 1}};
    case 'D': return {{0, 2, 1}};
    case 'N': return {{1, 2, 1}};
    case 'A': return {{2, 2, 1}};
    case 'H': return {{0, 3, 1}};
    case 'C': return {{1, 3, 1}};
    case 'Z': return {{2, 3, 1}};
    case 'G': return {{3, 3, 1}};
    case 'K': return {{0, 1, 1}, {1, 1, 1}};
    case 'R': return {{0, 1, 0}};
    case 'B': return {{1, 1, 0}};
    case 'Q': return {{0, 1, 0}, {1, 1, 0}};
    default: return {};
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

// The compass in clockwise order from straight forward; the second leg of a two-leg move is
// chosen by its turn from the first leg, counted in these eighths of a circle.
constexpr int kCompass[8][2] = {{0, 1}, {1, 1}, {1, 0}, {1, -1}, {0, -1}, {-1, -1}, {-1, 0}, {-1, 1}};

int compassIndex(int dx, int dy) {
  for (int i = 0; i < 8; ++i)
    if (kCompass[i][0] == dx && kCompass[i][1] == dy) return i;
  return -1;
}

// Relative turns (in eighths, clockwise) that one modifier group of a later leg selects.
std::vector<int> relativeTurns(const std::string& g, const std::string& part, const std::string& whole) {
  if (g == "f") return {0};
  if (g == "fr" || g == "rf") return {1};
  if (g == "r") return {2};
  if (g == "br" || g == "rb") return {3};
  if (g == "b") return {4};
  if (g == "bl" || g == "lb") return {5};
  if (g == "l") return {6};
  if (g == "fl" || g == "lf") return {7};
  if (g == "s") return {2, 6};
  if (g == "v") return {0, 4};
  throw BetzaError("direction \"" + g + "\" of a later leg in \"" + part + "\" of \"" + whole +
                   "\" is not supported (f b l r s v fl fr bl br, relative to the leg before)");
}

// The modifiers of one leg, sorted by kind.
struct LegMods {
  std::string dirs;
  LegMode mode = LegMode::kMoveOrCapture;
  LegPath path = LegPath::kPlain;
  bool special() const { return mode != LegMode::kMoveOrCapture || path != LegPath::kPlain; }
};

LegMods readLeg(const std::string& mods, bool last, const std::string& part, const std::string& whole) {
  LegMods leg;
  bool m = false, c = false, hasPath = false;
  for (char ch : mods) {
    LegPath path = LegPath::kPlain;
    switch (ch) {
      case 'f': case 'b': case 'l': case 'r': case 's': case 'v': leg.dirs += ch; continue;
      case 'm': m = true; continue;
      case 'c': c = true; continue;
      case 'n': path = LegPath::kLame; break;
      case 'j': path = LegPath::kMustJump; break;  // becomes kSkipFirst on a slide, see below
      case 'p': path = LegPath::kHop; break;
      case 'g': path = LegPath::kGrasshop; break;
      case 'i':
        throw BetzaError("the initial-move modifier 'i' in \"" + part + "\" of \"" + whole +
                         "\" is not supported (no supported piece needs it)");
      default:
        throw BetzaError("unsupported modifier '" + std::string(1, ch) + "' in \"" + whole +
                         "\" (known: f b l r s v, m c, n j p g, a; other powers need a code plugin)");
    }
    if (hasPath)
      throw BetzaError("two of n j p g on one leg in \"" + part + "\" of \"" + whole + "\"");
    hasPath = true;
    leg.path = path;
  }
  // m and c together, or neither, allow both; XBetza makes a leg that is not the last move-only.
  if (m != c) leg.mode = m ? LegMode::kMove : LegMode::kCapture;
  else if (!m && !last) leg.mode = LegMode::kMove;
  return leg;
}

bool keepDirection(const std::vector<std::string>& gs, int dx, int dy) {
  bool keep = gs.empty();
  for (const auto& g : gs) keep = keep || passes(g, dx, dy);
  return keep;
}

// Adds a plain vector; a later, longer range for the same direction wins (e.g. "KbR": bW is
// covered by bR).
void addPlain(std::vector<MoveVector>& out, MoveVector mv) {
  // Compared through mv: C++17 lambdas cannot capture structured bindings (clang refuses).
  auto same = std::find_if(out.begin(), out.end(), [&](const MoveVector& o) { return o.dx == mv.dx && o.dy == mv.dy; });
  if (same == out.end()) {
    out.push_back(mv);
  } else if (same->range != 0 && (mv.range == 0 || mv.range > same->range)) {
    same->range = mv.range;
  }
}

void addSpecial(std::vector<SpecialMove>& out, const SpecialMove& m) {
  if (std::find(out.begin(), out.end(), m) == out.end()) out.push_back(m);
}

// The path modifier checked against the atom it modifies; j on a slide skips the first square.
LegPath pathFor(LegPath path, const Atom& atom, int range, const std::string& part, const std::string& whole) {
  const bool leap = range == 1;
  const bool line = atom.a == 0 || atom.a == atom.b;  // D A H G: a leap along a line
  switch (path) {
    case LegPath::kPlain: return path;
    case LegPath::kLame:
      if (leap && atom.b >= 2 && (line || (atom.a == 1 && atom.b == 2))) return path;
      throw BetzaError("'n' in \"" + part + "\" of \"" + whole + "\" needs one of the leaps D A H G N");
    case LegPath::kMustJump:
    case LegPath::kSkipFirst:
      if (!leap) return LegPath::kSkipFirst;
      if (line && atom.b == 2) return LegPath::kMustJump;
      throw BetzaError("'j' in \"" + part + "\" of \"" + whole + "\" needs the leap D or A, or a slide");
    case LegPath::kJumpCapture:  // set by "(paf)N" only, never by a modifier letter
      return path;
    case LegPath::kHop:
    case LegPath::kGrasshop:
      if (!leap) return path;
      throw BetzaError("'p'/'g' in \"" + part + "\" of \"" + whole + "\" need a slide (e.g. pR, gB)");
  }
  return path;
}

// Do the atoms ride by themselves (R B Q, whose range is unlimited)?
bool atom0Rides(const std::vector<Atom>& atoms) {
  for (const Atom& a : atoms)
    if (a.range != 0) return false;
  return true;
}

}  // namespace

PieceMoves parseXBetza(const std::string& text) {
  if (text.empty()) throw BetzaError("empty movement notation");
  PieceMoves result;
  size_t i = 0;
  while (i < text.size()) {
    size_t start = i;
    while (i < text.size() && std::islower(static_cast<unsigned char>(text[i]))) ++i;
    // "(paf)N" (N optional: any number) before a capture-only slide: jumps over up to N pieces.
    int jumps = 0;
    if (i == start && text.compare(i, 5, "(paf)") == 0) {
      i += 5;
      size_t j = i;
      while (j < text.size() && std::isdigit(static_cast<unsigned char>(text[j]))) ++j;
      jumps = 64;
      if (j > i) {
        jumps = 0;
        for (size_t k = i; k < j; ++k) jumps = std::min(jumps * 10 + (text[k] - '0'), 1000);
        if (jumps < 1 || jumps > 16)
          throw BetzaError("jump count " + text.substr(i, j - i) + " in \"" + text + "\" is out of 1..16");
      }
      i = j;
      start = i;
      while (i < text.size() && std::islower(static_cast<unsigned char>(text[i]))) ++i;
    }
    const std::string mods = text.substr(start, i - start);
    if (i < text.size() && (text[i] == '(' || text[i] == ')'))
      throw BetzaError("groups in parentheses (\"" + text.substr(start) + "\" in \"" + text +
                       "\") are not supported, but for (paf)N before a capturing slide, as \"(paf)2cB\"");
    if (i >= text.size())
      throw BetzaError("modifiers \"" + mods + "\" at the end of \"" + text + "\" have no piece letter");
    const std::vector<Atom> atoms = atomsOf(text[i]);
    if (atoms.empty())
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
    const std::string part = text.substr(start, i - start);  // this move's text, for messages

    // Split the modifiers into legs at 'a'.
    std::vector<std::string> legText{""};
    for (char ch : mods) {
      if (ch == 'a') legText.emplace_back();
      else legText.back() += ch;
    }
    std::vector<LegMods> legs;
    for (size_t k = 0; k < legText.size(); ++k) legs.push_back(readLeg(legText[k], k + 1 == legText.size(), part, text));

    if (legs.size() > 2)
      throw BetzaError("moves of three or more legs (\"" + part + "\" in \"" + text + "\") are not supported");
    if (legs.size() == 2) {
      // Two one-square legs of the same atom: what the lion, horned falcon and soaring eagle need.
      if (std::string("WFK").find(atomChar) == std::string::npos || doubled || limit > 0)
        throw BetzaError("a two-leg move needs the one-step atom W, F or K (\"" + part + "\" in \"" + text + "\")");
      if (legs[0].path != LegPath::kPlain || legs[1].path != LegPath::kPlain)
        throw BetzaError("n j p g inside a two-leg move (\"" + part + "\" in \"" + text + "\") are not supported");
      std::vector<std::pair<int, int>> dirs;  // the atom's directions
      for (const Atom& atom : atoms)
        for (auto d : images(atom.a, atom.b)) dirs.push_back(d);
      std::vector<int> turns;
      for (const auto& g : groups(legs[1].dirs, true, false, text))
        for (int t : relativeTurns(g, part, text)) turns.push_back(t);
      for (const Atom& atom : atoms) {
        const auto gs1 = groups(legs[0].dirs, atom.a == atom.b, false, text);
        for (auto [dx1, dy1] : images(atom.a, atom.b)) {
          if (!keepDirection(gs1, dx1, dy1)) continue;
          for (auto [dx2, dy2] : dirs) {
            const int turn = (compassIndex(dx2, dy2) - compassIndex(dx1, dy1) + 8) % 8;
            if (!turns.empty() && std::find(turns.begin(), turns.end(), turn) == turns.end()) continue;
            SpecialMove sm;
            sm.first = Leg{dx1, dy1, 1, legs[0].mode, LegPath::kPlain};
            sm.twoLegs = true;
            sm.second = Leg{dx2, dy2, 1, legs[1].mode, LegPath::kPlain};
            addSpecial(result.special, sm);
          }
        }
      }
      if (result.plain.empty() && result.special.empty() && i >= text.size())
        throw BetzaError("\"" + text + "\" selects no move at all");
      continue;
    }

    const LegMods& leg = legs[0];
    if (jumps > 0 && (leg.mode != LegMode::kCapture || leg.path != LegPath::kPlain || !(doubled || atom0Rides(atoms)) ||
                      limit > 0))
      throw BetzaError("(paf)N must come before a capture-only slide of unlimited range, as \"(paf)2cB\" (\"" + part +
                       "\" in \"" + text + "\")");
    for (const Atom& atom : atoms) {
      int range = atom.range;
      if (doubled) range = 0;
      if (limit > 0) range = limit;
      const bool diagonalAtom = atom.a == atom.b;
      const bool obliqueAtom = atom.a != 0 && atom.a != atom.b;
      const auto gs = groups(leg.dirs, diagonalAtom, obliqueAtom, text);
      const LegPath path = jumps > 0 ? LegPath::kJumpCapture : pathFor(leg.path, atom, range, part, text);
      for (auto [dx, dy] : images(atom.a, atom.b)) {
        if (!keepDirection(gs, dx, dy)) continue;
        if (leg.special())
          addSpecial(result.special, SpecialMove{Leg{dx, dy, range, leg.mode, path, jumps}, false, Leg{}});
        else addPlain(result.plain, MoveVector{dx, dy, range});
      }
    }
    if (result.plain.empty() && result.special.empty() && i >= text.size())
      throw BetzaError("\"" + text + "\" selects no move at all");
  }
  return result;
}

std::vector<MoveVector> parseBetza(const std::string& text) {
  PieceMoves moves = parseXBetza(text);
  if (!moves.special.empty())
    throw BetzaError("\"" + text + "\" uses XBetza powers (m c n j p g a) that plain Betza does not have");
  return moves.plain;
}

}  // namespace poppy::game
