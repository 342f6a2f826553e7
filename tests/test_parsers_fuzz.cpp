// Fuzzing the two text parsers, for every shipped variant, with fixed seeds (the same inputs on
// every run with a given standard library):
//  - Position::fromSfen on tens of thousands of random and mutated SFENs (edits of real SFENs
//    from random play, swapped fields, huge numbers, unicode and control bytes, very long
//    strings): each either parses (then sfen() re-parses to the same text with the same hash,
//    generateLegal works and every legal move can be made and unmade exactly) or throws
//    SfenError whose message contains the input. Nothing else is thrown.
//  - Stricter: after any legal move from an accepted SFEN, sfen() is still accepted by fromSfen.
//  - Position::parseUsi on random positions with garbage and mutated move texts (wrong suffixes,
//    drops of pieces not in hand, off-board squares): each either returns a move from
//    generateLegal's list (the exact one, for a legal move's own text) or throws MoveError naming
//    the text and the position.
// Failures are grouped by kind; the first few of each kind are printed with the input escaped.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "game/position.h"
#include "game/variant_loader.h"
#include "support/random_positions.h"

using namespace poppy::game;

namespace {

constexpr uint32_t kSeed = 0x5eed2024;

const std::vector<std::string> kVariants = {"micro", "minishogi", "kyoto", "judkins", "gorogoro", "tori", "shogi"};

uint32_t variantIndex(const std::string& name) {
  return uint32_t(std::find(kVariants.begin(), kVariants.end(), name) - kVariants.begin());
}

// Input text for a failure message: non-printable bytes escaped, long texts shortened.
std::string show(const std::string& s) {
  std::string out;
  for (size_t i = 0; i < s.size() && i < 300; ++i) {
    const unsigned char c = s[i];
    if (c >= 32 && c < 127 && c != '\\') {
      out += char(c);
    } else {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    }
  }
  if (s.size() > 300) out += "... (" + std::to_string(s.size()) + " bytes)";
  return "\"" + out + "\"";
}

// Failures by kind: the first few of each kind are reported with their input, then counted.
class Failures {
 public:
  explicit Failures(std::string variant) : variant_(std::move(variant)) {}
  void add(const std::string& kind, const std::string& what) {
    if (counts_[kind]++ < kShown) ADD_FAILURE() << variant_ << " [" << kind << "] " << what;
  }
  int count() const {
    int n = 0;
    for (const auto& [kind, c] : counts_) n += c;
    return n;
  }
  std::string summary() const {
    std::string s;
    for (const auto& [kind, c] : counts_) s += "  " + std::to_string(c) + " x " + kind + "\n";
    return s;
  }

 private:
  static constexpr int kShown = 3;
  std::string variant_;
  std::map<std::string, int> counts_;
};

int rnd(std::mt19937& rng, int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); }

template <typename T>
const T& pick(std::mt19937& rng, const std::vector<T>& v) {
  return v[size_t(rnd(rng, 0, int(v.size()) - 1))];
}

const std::vector<std::string> kSpecialNumbers = {
    "0",          "00",       "01",         "1",
    "2",          "9",        "10",         "15",
    "16",         "17",       "62",         "63",
    "64",         "65",       "127",        "128",
    "255",        "256",      "9999999",    "10000000",
    "10000001",   "99999999", "2147483647", "2147483648",
    "4294967296", "-1",       "-0",         "+1",
    "1e3",        "0x10",     "1.5",        "99999999999999999999999999999999"};

const std::vector<std::string> kUnicode = {"\xc3\xa9",          // e acute
                                           "\xe2\x80\x8b",      // zero-width space
                                           "\xf0\x9f\x98\x80",  // emoji
                                           "\xef\xbc\xb0",      // full-width P
                                           "\xe2\x80\x83",      // em space
                                           "\xc2\xa0",          // no-break space
                                           "\xef\xbb\xbf",      // byte-order mark
                                           "\xff",
                                           "\xfe",
                                           "\x80",
                                           "\xc0\x80",
                                           "\xed\xa0\x80",  // invalid UTF-8
                                           "\x7f",
                                           "\x01",
                                           "\x1b[31m",
                                           "\r",
                                           "\v",
                                           "\f"};

// Every character that means something in an SFEN of this variant, and a few that do not.
std::string sfenAlphabet(const Variant& v) {
  std::string a = "0123456789/+- bw*XxQqZz#.,";
  for (const Face& f : v.faces) {
    a += f.letter;
    a += char(std::tolower(static_cast<unsigned char>(f.letter)));
  }
  return a;
}

std::vector<std::string> splitFields(const std::string& s) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : s) {
    if (c == ' ') {
      out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  out.push_back(cur);
  return out;
}

std::string join(const std::vector<std::string>& parts, char sep) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) out += (i ? std::string(1, sep) : "") + parts[i];
  return out;
}

// A random hand field: letters of the variant (and some others) with random counts.
std::string randomHand(std::mt19937& rng, const Variant& v) {
  if (rnd(rng, 0, 5) == 0) return "-";
  std::string letters = "KQX+*-";
  for (const Face& f : v.faces) letters += f.letter;
  std::string hand;
  const int n = rnd(rng, 1, 6);
  for (int i = 0; i < n; ++i) {
    if (rnd(rng, 0, 2) == 0) hand += rnd(rng, 0, 1) ? pick(rng, kSpecialNumbers) : std::to_string(rnd(rng, 2, 9));
    char c = letters[size_t(rnd(rng, 0, int(letters.size()) - 1))];
    if (rnd(rng, 0, 1)) c = char(std::tolower(static_cast<unsigned char>(c)));
    hand += c;
  }
  return hand;
}

// One random edit of an SFEN-like text.
std::string mutateOnce(std::mt19937& rng, const Variant& v, const std::string& alphabet, std::string s) {
  auto pos = [&](bool allowEnd) { return s.empty() ? 0 : size_t(rnd(rng, 0, int(s.size()) - (allowEnd ? 0 : 1))); };
  auto randomChar = [&] { return alphabet[size_t(rnd(rng, 0, int(alphabet.size()) - 1))]; };
  switch (rnd(rng, 0, 19)) {
    case 0:  // delete 1-3 characters
      if (!s.empty()) s.erase(pos(false), size_t(rnd(rng, 1, 3)));
      break;
    case 1:  // insert a character of the alphabet
      s.insert(pos(true), 1, randomChar());
      break;
    case 2:  // replace a character
      if (!s.empty()) s[pos(false)] = randomChar();
      break;
    case 3:  // insert a random byte (never NUL: messages are C strings)
      s.insert(pos(true), 1, char(rnd(rng, 1, 255)));
      break;
    case 4: {  // swap two fields
      auto f = splitFields(s);
      if (f.size() >= 2)
        std::swap(f[size_t(rnd(rng, 0, int(f.size()) - 1))], f[size_t(rnd(rng, 0, int(f.size()) - 1))]);
      s = join(f, ' ');
      break;
    }
    case 5: {  // remove a field
      auto f = splitFields(s);
      f.erase(f.begin() + rnd(rng, 0, int(f.size()) - 1));
      s = join(f, ' ');
      break;
    }
    case 6: {  // add a field
      auto f = splitFields(s);
      static const std::vector<std::string> extra = {"1", "b", "w", "-", "P", "extra", "0", "moves", "1d1c"};
      f.insert(f.begin() + rnd(rng, 0, int(f.size())), pick(rng, extra));
      s = join(f, ' ');
      break;
    }
    case 7: {  // replace a run of digits (or insert) a special number
      std::vector<size_t> starts;
      for (size_t i = 0; i < s.size(); ++i)
        if (std::isdigit(static_cast<unsigned char>(s[i])) &&
            (i == 0 || !std::isdigit(static_cast<unsigned char>(s[i - 1]))))
          starts.push_back(i);
      const std::string num = pick(rng, kSpecialNumbers);
      if (starts.empty()) {
        s.insert(pos(true), num);
      } else {
        const size_t at = pick(rng, starts);
        size_t end = at;
        while (end < s.size() && std::isdigit(static_cast<unsigned char>(s[end]))) ++end;
        s.replace(at, end - at, num);
      }
      break;
    }
    case 8:
    case 9: {  // duplicate or remove a rank
      auto f = splitFields(s);
      std::vector<std::string> ranks;
      std::string cur;
      for (char c : f[0]) {
        if (c == '/') {
          ranks.push_back(cur);
          cur.clear();
        } else {
          cur += c;
        }
      }
      ranks.push_back(cur);
      const int r = rnd(rng, 0, int(ranks.size()) - 1);
      if (rnd(rng, 0, 1))
        ranks.insert(ranks.begin() + r, ranks[size_t(r)]);
      else
        ranks.erase(ranks.begin() + r);
      f[0] = join(ranks, '/');
      s = join(f, ' ');
      break;
    }
    case 10:  // truncate
      s.resize(pos(true));
      break;
    case 11:  // unicode and control bytes
      s.insert(pos(true), pick(rng, kUnicode));
      break;
    case 12:  // flip the case of a letter
      for (int tries = 0; tries < 8 && !s.empty(); ++tries) {
        const size_t i = pos(false);
        const unsigned char c = s[i];
        if (std::isalpha(c)) {
          s[i] = std::isupper(c) ? char(std::tolower(c)) : char(std::toupper(c));
          break;
        }
      }
      break;
    case 13: {  // a random hand
      auto f = splitFields(s);
      if (f.size() >= 3)
        f[2] = randomHand(rng, v);
      else
        f.push_back(randomHand(rng, v));
      s = join(f, ' ');
      break;
    }
    case 14: {  // a random side to move
      static const std::vector<std::string> sides = {"B", "W", "x", "bw", "", "-", "0", "white", "b\xc3\xa9"};
      auto f = splitFields(s);
      if (f.size() >= 2) f[1] = pick(rng, sides);
      s = join(f, ' ');
      break;
    }
    case 15: {  // whitespace variations
      static const std::vector<std::string> spaces = {"  ", "\t", "\n", " \t ", "", "\r\n"};
      std::vector<size_t> at;
      for (size_t i = 0; i < s.size(); ++i)
        if (s[i] == ' ') at.push_back(i);
      if (at.empty() || rnd(rng, 0, 3) == 0) {
        s = rnd(rng, 0, 1) ? "  " + s : s + pick(rng, spaces);
      } else {
        s.replace(pick(rng, at), 1, pick(rng, spaces));
      }
      break;
    }
    case 16: {  // add or remove a '+' before a letter
      std::vector<size_t> letters;
      for (size_t i = 0; i < s.size() && s[i] != ' '; ++i)
        if (std::isalpha(static_cast<unsigned char>(s[i]))) letters.push_back(i);
      if (letters.empty()) break;
      const size_t i = pick(rng, letters);
      if (i > 0 && s[i - 1] == '+')
        s.erase(i - 1, 1);
      else
        s.insert(i, rnd(rng, 0, 3) ? "+" : "++");
      break;
    }
    case 17: {  // a special move number
      auto f = splitFields(s);
      if (f.size() >= 4)
        f[3] = pick(rng, kSpecialNumbers);
      else
        f.push_back(pick(rng, kSpecialNumbers));
      s = join(f, ' ');
      break;
    }
    case 18: {  // replace a board character by a piece token
      std::vector<size_t> board;
      for (size_t i = 0; i < s.size() && s[i] != ' '; ++i)
        if (s[i] != '/') board.push_back(i);
      if (board.empty()) break;
      const Face& f = v.faces[size_t(rnd(rng, 0, int(v.faces.size()) - 1))];
      std::string token = f.token();
      if (rnd(rng, 0, 1)) token.back() = char(std::tolower(static_cast<unsigned char>(token.back())));
      s.replace(pick(rng, board), 1, token);
      break;
    }
    case 19:  // empty string or whitespace only
      s = rnd(rng, 0, 1) ? "" : std::string(size_t(rnd(rng, 1, 4)), ' ');
      break;
  }
  return s;
}

// A structurally well-formed SFEN with random contents: random pieces (promoted or not, any
// colour, on any rank), usually one king each, random hand and move number.
std::string randomBoardSfen(std::mt19937& rng, const Variant& v) {
  std::vector<std::string> cells(size_t(v.numSquares()));
  const int density = rnd(rng, 5, 95);
  int royalFace = -1;
  for (size_t f = 0; f < v.faces.size(); ++f)
    if (v.faces[f].royal) royalFace = int(f);
  for (auto& c : cells) {
    if (rnd(rng, 0, 99) >= density) continue;
    const Face& f = v.faces[size_t(rnd(rng, 0, int(v.faces.size()) - 1))];
    if (f.royal) continue;
    c = f.token();
    if (rnd(rng, 0, 1)) c.back() = char(std::tolower(static_cast<unsigned char>(c.back())));
  }
  if (royalFace >= 0) {
    const int kings = rnd(rng, 0, 9) == 0 ? rnd(rng, 0, 3) : 2;
    for (int k = 0; k < kings; ++k) {
      std::string t(1, v.faces[size_t(royalFace)].letter);
      if (k % 2) t[0] = char(std::tolower(static_cast<unsigned char>(t[0])));
      cells[size_t(rnd(rng, 0, v.numSquares() - 1))] = t;
    }
  }
  std::string board;
  for (int r = 0; r < v.ranks; ++r) {
    if (r) board += '/';
    int empty = 0;
    for (int c = 0; c < v.files; ++c) {
      const std::string& cell = cells[size_t(v.square(c, r))];
      if (cell.empty()) {
        ++empty;
        continue;
      }
      if (empty) board += std::to_string(empty);
      empty = 0;
      board += cell;
    }
    if (empty) board += std::to_string(empty);
  }
  std::string hand;
  if (rnd(rng, 0, 2) == 0) {
    hand = "-";
  } else {
    for (const HandKind& hk : v.handKinds)
      for (int color = 0; color < 2; ++color) {
        if (rnd(rng, 0, 2)) continue;
        const int n = rnd(rng, 0, 9) == 0 ? rnd(rng, 1, 63) : rnd(rng, 1, 3);
        if (n > 1) hand += std::to_string(n);
        hand += color ? char(std::tolower(static_cast<unsigned char>(hk.letter))) : hk.letter;
      }
    if (hand.empty()) hand = "-";
  }
  std::string number = rnd(rng, 0, 9) == 0 ? pick(rng, kSpecialNumbers) : std::to_string(rnd(rng, 1, 300));
  return board + (rnd(rng, 0, 1) ? " b " : " w ") + hand + " " + number;
}

std::string randomBytes(std::mt19937& rng, const std::string& alphabet, size_t n) {
  std::string s;
  for (size_t i = 0; i < n; ++i)
    s += rnd(rng, 0, 4) ? alphabet[size_t(rnd(rng, 0, int(alphabet.size()) - 1))] : char(rnd(rng, 1, 255));
  return s;
}

// Checks a position fromSfen accepted: sfen() round trip, hash, move generation, make/unmake.
void checkAccepted(const VariantPtr& variant, const Position& p, const std::string& input, std::mt19937& rng,
                   Failures& fail, int& movesChecked) {
  const std::string out = p.sfen();
  try {
    const Position q = Position::fromSfen(variant, out);
    if (q.sfen() != out)
      fail.add("sfen() round trip",
               "input " + show(input) + ": sfen() " + show(out) + " re-parses to " + show(q.sfen()));
    if (q.hash() != p.hash())
      fail.add("sfen() round trip", "input " + show(input) + ": re-parsed sfen() has another hash");
  } catch (const std::exception& e) {
    fail.add("sfen() output does not parse",
             "input " + show(input) + " parsed, but its sfen() " + show(out) + " does not: " + e.what());
    return;
  }
  if (p.hash() != p.computeHash()) fail.add("hash", "input " + show(input) + ": hash differs from computeHash()");

  MoveList legal;
  p.generateLegal(legal);
  if (legal.size() > kMaxMoves) {
    fail.add("movegen", "input " + show(input) + ": generateLegal returned " + std::to_string(legal.size()) + " moves");
    return;
  }
  if (p.hasLegalMove() != (legal.size() > 0))
    fail.add("movegen", "input " + show(input) + ": hasLegalMove disagrees with generateLegal");

  Position w = p;
  for (const Move& m : legal) {
    ++movesChecked;
    const std::string usi = w.moveToUsi(m);
    w.makeMove(m);
    if (w.hash() != w.computeHash()) fail.add("hash", "sfen " + show(out) + ": hash wrong after " + usi);
    w.unmakeMove();
    if (w.sfen() != out || w.hash() != p.hash())
      fail.add("unmakeMove", "sfen " + show(out) + ": " + usi + " not undone exactly");
  }
  // The USI text of a few legal moves parses back to the same move.
  for (int k = 0; k < 4 && legal.size() > 0; ++k) {
    const Move m = legal[rnd(rng, 0, legal.size() - 1)];
    const std::string usi = p.moveToUsi(m);
    try {
      if (p.parseUsi(usi) != m)
        fail.add("legal move text", "sfen " + show(out) + ": " + usi + " parses to another move");
    } catch (const std::exception& e) {
      fail.add("legal move text", "sfen " + show(out) + ": legal move " + usi + " rejected: " + e.what());
    }
  }
}

// After any legal move from an accepted position, sfen() must still be an SFEN fromSfen takes.
void checkSfenAfterMoves(const VariantPtr& variant, const Position& p, Failures& fail, int& movesChecked) {
  const std::string out = p.sfen();
  MoveList legal;
  p.generateLegal(legal);
  Position w = p;
  for (const Move& m : legal) {
    ++movesChecked;
    const std::string usi = w.moveToUsi(m);
    w.makeMove(m);
    const std::string after = w.sfen();
    try {
      if (Position::fromSfen(variant, after).sfen() != after)
        fail.add("sfen() round trip after a move",
                 "sfen " + show(out) + " after " + usi + ": " + show(after) + " does not round-trip");
    } catch (const std::exception& e) {
      const std::string msg = e.what();
      const std::string kind =
          msg.find("move number") != std::string::npos ? "sfen() after a move: move number too big to parse"
          : msg.find("in hand") != std::string::npos   ? "sfen() after a move: hand count too big to parse"
                                                       : "sfen() after a move does not parse";
      fail.add(kind, "sfen " + show(out) + " after " + usi + ": sfen() gives " + show(after) +
                         ", which does not parse: " + msg);
    }
    w.unmakeMove();
  }
}

struct SfenStats {
  int inputs = 0, accepted = 0, rejected = 0, moves = 0;
};

void checkSfen(const VariantPtr& variant, const std::string& input, std::mt19937& rng, Failures& fail, SfenStats& st) {
  ++st.inputs;
  try {
    const Position p = Position::fromSfen(variant, input);
    ++st.accepted;
    checkAccepted(variant, p, input, rng, fail, st.moves);
  } catch (const SfenError& e) {
    ++st.rejected;
    // what() is a C string: text after a NUL byte cannot show, so only the part before it is required.
    const std::string visible = input.substr(0, input.find('\0'));
    if (std::string(e.what()).find(visible) == std::string::npos)
      fail.add("SfenError message lacks the input",
               "SfenError for " + show(input) + " does not contain the input: " + show(e.what()));
  } catch (const std::exception& e) {
    fail.add("wrong exception type",
             "input " + show(input) + " threw " + typeid(e).name() + " instead of SfenError: " + e.what());
  } catch (...) {
    fail.add("wrong exception type", "input " + show(input) + " threw a non-std exception");
  }
}

// The SFEN inputs for one variant, the same on every run.
std::vector<std::string> sfenInputs(const VariantPtr& variant) {
  const Variant& v = *variant;
  std::mt19937 rng(kSeed + variantIndex(v.name));
  const std::string alphabet = sfenAlphabet(v);
  const std::string start = v.startSfen;
  const std::string board = start.substr(0, start.find(' '));

  // Fixed edge cases.
  std::vector<std::string> in = {
      "",
      " ",
      "\t",
      "\n",
      "-",
      "b",
      "/",
      "////",
      "1 b - 1",
      "+",
      "++",
      "*",
      "b - 1",
      "- b - 1",
      start + " ",
      " " + start,
      start + "\n",
      start + " extra",
      start.substr(0, start.size() - 2),
      start + " 1",
      start + "\t",
      board,
      board + " b",
      board + " b -",
      board + " w - 1",
      board + " b - 10000000",
      board + " b - 10000001",
      board + " b - 99999999999999999999999",
      board + " b - 0",
      board + " b - -1",
      board + " b 0P 1",
      board + " b 63P 1",
      board + " b 64P 1",
      board + " b 32P32P 1",
      board + " b P63P 1",
      board + " b 99999999999999999999P 1",
      board + " b 5 1",
      board + " b -P 1",
      board + " b P- 1",
      board + " b -- 1",
      board + " b +P 1",
      board + " b K 1",
      board + "/ b - 1",
      "/" + board + " b - 1",
      board + "// b - 1",
  };
  // NUL bytes.
  in.push_back(std::string("\0", 1));
  in.push_back(start + std::string("\0", 1));
  in.push_back(std::string(start).insert(3, 1, '\0'));
  // Very long inputs.
  const std::string firstRank = start.substr(0, start.find('/'));
  std::string manyRanks = firstRank;
  for (int i = 0; i < 2000; ++i) manyRanks += "/" + firstRank;
  in.push_back(manyRanks + " b - 1");
  in.push_back(std::string(100000, '1') + " b - 1");
  in.push_back(std::string(100000, '9') + " b - 1");
  in.push_back(board + " b " + std::string(5000, v.handKinds.empty() ? 'P' : v.handKinds[0].letter) + " 1");
  in.push_back(board + " b - " + std::string(5000, '7'));
  std::string repeated;
  for (int i = 0; i < 200; ++i) repeated += start + " ";
  in.push_back(repeated);
  in.push_back(std::string(200000, '+'));
  in.push_back(std::string(200000, 'k'));
  in.push_back(std::string(200000, ' '));
  in.push_back(randomBytes(rng, alphabet, 100000));

  // Mutations of real SFENs from random play.
  for (const auto& base : poppy::testing::randomPositions(variant, 300, 80, kSeed + 1)) {
    in.push_back(base);
    for (int k = 0; k < 60; ++k) {
      std::string s = base;
      const int edits = rnd(rng, 1, 4);
      for (int e = 0; e < edits; ++e) s = mutateOnce(rng, v, alphabet, s);
      in.push_back(s);
    }
  }
  // Well-formed SFENs with random contents (these often parse and stress movegen).
  for (int k = 0; k < 4000; ++k) {
    std::string s = randomBoardSfen(rng, v);
    if (k % 4 == 3) s = mutateOnce(rng, v, alphabet, s);
    in.push_back(s);
  }
  // Pure garbage.
  for (int k = 0; k < 3000; ++k) in.push_back(randomBytes(rng, alphabet, size_t(rnd(rng, 0, 60))));
  return in;
}

class ParserFuzz : public ::testing::TestWithParam<std::string> {};

TEST_P(ParserFuzz, SfenParsesCleanlyOrThrowsSfenError) {
  const VariantPtr variant = loadVariant(GetParam());
  std::mt19937 rng(kSeed + 50 + variantIndex(GetParam()));
  Failures fail(GetParam());
  SfenStats st;
  for (const auto& s : sfenInputs(variant)) checkSfen(variant, s, rng, fail, st);
  std::printf("[ %s ] %d SFEN inputs: %d accepted (%d legal moves made), %d rejected\n", GetParam().c_str(), st.inputs,
              st.accepted, st.moves, st.rejected);
  // Shogi refuses more than its set of each piece (`full_set_at_start`), which many mutated
  // SFENs have: ~1,450 of its inputs are accepted, the other variants' 2,000 and more.
  EXPECT_GT(st.accepted, 1000);
  EXPECT_GT(st.rejected, 10000);
  EXPECT_EQ(fail.count(), 0) << "SFEN failures by kind (first ones of each shown above):\n" << fail.summary();
}

// Stricter: every position reached by one legal move from an accepted SFEN prints an SFEN that
// fromSfen takes back (limits on move numbers and hand counts must agree with what play reaches).
TEST_P(ParserFuzz, SfenAfterAnyLegalMoveReparses) {
  const VariantPtr variant = loadVariant(GetParam());
  Failures fail(GetParam());
  int positions = 0, moves = 0;
  for (const auto& s : sfenInputs(variant)) {
    std::optional<Position> p;
    try {
      p.emplace(Position::fromSfen(variant, s));
    } catch (const std::exception&) {
      continue;  // the other test checks rejections
    }
    ++positions;
    checkSfenAfterMoves(variant, *p, fail, moves);
  }
  std::printf("[ %s ] %d accepted SFENs, %d moves made\n", GetParam().c_str(), positions, moves);
  EXPECT_EQ(fail.count(), 0) << "failures by kind (first ones of each shown above):\n" << fail.summary();
}

// Minimal reproducers of the limits above, at the limits themselves: an SFEN at a limit is
// accepted, and the position one move later prints an SFEN that reparses.

// game/types.h: the move number kMaxMoveNumber is accepted, and sfen() caps the number so that
// the position after one more move still reparses.
TEST(SfenLimits, MoveNumberAtTheLimitSurvivesAMove) {
  const VariantPtr micro = loadVariant("micro");
  const std::string sfen = "kbgs/p3/4/3P/SGBK b - " + std::to_string(kMaxMoveNumber);
  Position pos(micro);
  ASSERT_NO_THROW(pos = Position::fromSfen(micro, sfen)) << "the limit itself must be accepted";
  EXPECT_EQ(pos.sfen(), sfen);
  pos.makeMove(pos.parseUsi("1d1c"));
  const std::string after = pos.sfen();
  EXPECT_NO_THROW(Position::fromSfen(micro, after)) << "sfen() after one move gives " << after;
  // One past the limit is refused (the number reader once saturated at the limit and accepted it).
  for (const std::string& tooBig : {std::to_string(kMaxMoveNumber + 1), std::string("99999999999999999999")})
    EXPECT_THROW(Position::fromSfen(micro, "kbgs/p3/4/3P/SGBK b - " + tooBig), SfenError) << tooBig;
}

// docs/RULES.md: at most 63 of one physical piece on the board and in both hands together. Gote
// holds 62 pawns; the 63rd stands on 1c, and gote's gold on 1b takes it (micro: the capturer
// flips, so the move is 1b1c+): gote's hand reaches the limit.
TEST(SfenLimits, HandCountAtTheLimitSurvivesACapture) {
  const VariantPtr micro = loadVariant("micro");
  EXPECT_THROW(Position::fromSfen(micro, "3k/3g/3P/4/K3 w 63p 1"), SfenError) << "64 pawns in all";
  const std::string sfen = "3k/3g/3P/4/K3 w 62p 1";
  Position pos(micro);
  ASSERT_NO_THROW(pos = Position::fromSfen(micro, sfen)) << "63 pawns in all is the limit and must be accepted";
  pos.makeMove(pos.parseUsi("1b1c+"));
  const int pawn = micro->handKindOf('P');
  EXPECT_EQ(pos.handCount(1, pawn), kMaxHandCount);
  const std::string after = pos.sfen();
  EXPECT_EQ(pos.hash(), pos.computeHash());
  EXPECT_NO_THROW(Position::fromSfen(micro, after)) << "sfen() after the capture gives " << after;
  pos.unmakeMove();
  EXPECT_EQ(pos.sfen(), sfen);
}

// Move texts to try on one position.
std::vector<std::string> moveTexts(std::mt19937& rng, const Position& pos, const MoveList& legal,
                                   const std::string& alphabet) {
  const Variant& v = pos.variant();
  std::vector<std::string> texts;
  auto sq = [&](int file, int rank) { return std::to_string(file) + char('a' + rank); };
  auto randomSquare = [&] { return sq(rnd(rng, 1, v.files), rnd(rng, 0, v.ranks - 1)); };
  auto offBoardSquare = [&] {
    switch (rnd(rng, 0, 6)) {
      case 0:
        return sq(0, rnd(rng, 0, v.ranks - 1));
      case 1:
        return sq(v.files + 1, rnd(rng, 0, v.ranks - 1));
      case 2:
        return sq(rnd(rng, 1, v.files), v.ranks);
      case 3:
        return std::to_string(rnd(rng, 10, 1000)) + char('a' + rnd(rng, 0, 25));
      case 4:
        return std::to_string(rnd(rng, 1, v.files)) + char(rnd(rng, 0, 1) ? 'A' + rnd(rng, 0, 25) : '`');
      case 5:
        return std::string("-1") + 'a';
      default:
        return pick(rng, kSpecialNumbers) + "a";
    }
  };

  // Mutations of legal move texts.
  for (int k = 0; k < 12 && legal.size() > 0; ++k) {
    std::string t = pos.moveToUsi(legal[rnd(rng, 0, legal.size() - 1)]);
    switch (rnd(rng, 0, 11)) {
      case 0:
        t.erase(size_t(rnd(rng, 0, int(t.size()) - 1)), 1);
        break;
      case 1:
        t.insert(size_t(rnd(rng, 0, int(t.size()))), 1, alphabet[size_t(rnd(rng, 0, int(alphabet.size()) - 1))]);
        break;
      case 2:
        t[size_t(rnd(rng, 0, int(t.size()) - 1))] = alphabet[size_t(rnd(rng, 0, int(alphabet.size()) - 1))];
        break;
      case 3:
        t += "+";
        break;
      case 4:
        t += "-";
        break;
      case 5:
        t += pick(rng, std::vector<std::string>{"=", "++", "+-", "x", " ", "\n", "*", "#", "!", "\xc3\xa9"});
        break;
      case 6:  // swap the suffix
        if (!t.empty() && (t.back() == '+' || t.back() == '-'))
          t.back() = t.back() == '+' ? '-' : '+';
        else
          t += rnd(rng, 0, 1) ? "+" : "-";
        break;
      case 7:  // drop the suffix
        if (!t.empty() && (t.back() == '+' || t.back() == '-')) t.pop_back();
        break;
      case 8:  // reverse from and to
        if (t.find('*') == std::string::npos && t.size() >= 4) {
          const std::string core = t.substr(0, 4);
          t = core.substr(2, 2) + core.substr(0, 2) + t.substr(4);
        }
        break;
      case 9:  // case change
        for (char& c : t)
          c = std::isupper(static_cast<unsigned char>(c)) ? char(std::tolower(static_cast<unsigned char>(c)))
                                                          : char(std::toupper(static_cast<unsigned char>(c)));
        break;
      case 10:
        t = " " + t;
        break;
      case 11:
        t = t + t;
        break;
    }
    texts.push_back(t);
  }
  // Board moves between random squares, with random suffixes.
  for (int k = 0; k < 12; ++k) {
    static const std::vector<std::string> suffixes = {"", "", "+", "-", "=", "++"};
    texts.push_back(randomSquare() + randomSquare() + pick(rng, suffixes));
  }
  // Drops of every face (in hand or not), the king, unknown letters, lower case.
  for (int k = 0; k < 10; ++k) {
    std::string token;
    const int kind = rnd(rng, 0, 9);
    if (kind < 6) {
      token = v.faces[size_t(rnd(rng, 0, int(v.faces.size()) - 1))].token();
    } else if (kind == 6) {
      token = std::string(1, char('A' + rnd(rng, 0, 25)));
    } else if (kind == 7) {
      token = "+" + std::string(1, char('A' + rnd(rng, 0, 25)));
    } else if (kind == 8) {
      token = std::string(1, char('a' + rnd(rng, 0, 25)));
    } else {
      token = pick(rng, std::vector<std::string>{"", "++P", "PP", "1", "*", "+", "\xc3\xa9"});
    }
    texts.push_back(token + "*" + (rnd(rng, 0, 3) ? randomSquare() : offBoardSquare()) +
                    pick(rng, std::vector<std::string>{"", "", "", "+", "-", "*"}));
  }
  // Off-board squares.
  for (int k = 0; k < 8; ++k) {
    if (rnd(rng, 0, 1))
      texts.push_back(offBoardSquare() + randomSquare());
    else
      texts.push_back(randomSquare() + offBoardSquare());
  }
  // Random garbage, short and long.
  for (int k = 0; k < 8; ++k) texts.push_back(randomBytes(rng, alphabet, size_t(rnd(rng, 0, 12))));
  if (rnd(rng, 0, 9) == 0) texts.push_back(randomBytes(rng, alphabet, 20000));
  return texts;
}

void checkMove(const Position& pos, const MoveList& legal, const std::string& text, Failures& fail, int& accepted,
               int& rejected) {
  // Is the text exactly the USI of a legal move? Then it must parse to that move.
  const Move* exact = nullptr;
  for (const Move& m : legal)
    if (pos.moveToUsi(m) == text) exact = &m;
  try {
    const Move m = pos.parseUsi(text);
    ++accepted;
    if (std::find(legal.begin(), legal.end(), m) == legal.end())
      fail.add("illegal move accepted", "position " + show(pos.sfen()) + ": " + show(text) +
                                            " parsed to a move not in generateLegal: " + show(pos.moveToUsi(m)));
    else if (exact && m != *exact)
      fail.add("legal move text",
               "position " + show(pos.sfen()) + ": " + show(text) + " parsed to " + show(pos.moveToUsi(m)));
  } catch (const MoveError& e) {
    ++rejected;
    const std::string msg = e.what();
    if (msg.find(text) == std::string::npos)
      fail.add("MoveError message lacks the move",
               "MoveError for " + show(text) + " does not contain the move text: " + show(msg));
    if (msg.find(pos.sfen()) == std::string::npos)
      fail.add("MoveError message lacks the position",
               "MoveError for " + show(text) + " does not name the position " + show(pos.sfen()) + ": " + show(msg));
    if (exact)
      fail.add("legal move text", "position " + show(pos.sfen()) + ": legal move " + show(text) + " rejected: " + msg);
  } catch (const std::exception& e) {
    fail.add("wrong exception type", "position " + show(pos.sfen()) + ": " + show(text) + " threw " + typeid(e).name() +
                                         " instead of MoveError: " + e.what());
  } catch (...) {
    fail.add("wrong exception type", "position " + show(pos.sfen()) + ": " + show(text) + " threw a non-std exception");
  }
}

TEST_P(ParserFuzz, UsiMoveParsesToLegalMoveOrThrowsMoveError) {
  const VariantPtr variant = loadVariant(GetParam());
  std::mt19937 rng(kSeed + 100 + variantIndex(GetParam()));
  Failures fail(GetParam());
  std::string alphabet = "0123456789abcdefghijklmnopqrstuvwxyz+-*/ ";
  for (const Face& f : variant->faces) alphabet += f.letter;

  int accepted = 0, rejected = 0, positions = 0;
  auto sfens = poppy::testing::randomPositions(variant, 300, 100, kSeed + 2);
  // Some random-content positions too (full hands, promoted pieces anywhere).
  for (int k = 0; sfens.size() < 400 && k < 3000; ++k) {
    const std::string s = randomBoardSfen(rng, *variant);
    try {
      Position::fromSfen(variant, s);
      sfens.push_back(s);
    } catch (const SfenError&) {
    }
  }
  MoveList legal;
  for (const auto& sfen : sfens) {
    const Position pos = Position::fromSfen(variant, sfen);
    ++positions;
    pos.generateLegal(legal);
    // Every legal move's own text, and the suffix-less text of flips.
    for (const Move& m : legal) {
      const std::string t = pos.moveToUsi(m);
      checkMove(pos, legal, t, fail, accepted, rejected);
      if (!t.empty() && (t.back() == '+' || t.back() == '-'))
        checkMove(pos, legal, t.substr(0, t.size() - 1), fail, accepted, rejected);
    }
    for (const auto& t : moveTexts(rng, pos, legal, alphabet)) checkMove(pos, legal, t, fail, accepted, rejected);
    for (const std::string t :
         {"",     " ",    "*",    "+",      "-",    "+*",  "P*",       "*5e",    "P**1a", "1a",   "1a1",
          "1a1a", "0a0a", "none", "resign", "0000", "win", "\xc3\xa9", "1a1b+-", "K*1a",  "+K*1a"})
      checkMove(pos, legal, t, fail, accepted, rejected);
  }
  std::printf("[ %s ] %d positions: %d move texts accepted, %d rejected\n", GetParam().c_str(), positions, accepted,
              rejected);
  EXPECT_GT(accepted, 2000);
  EXPECT_GT(rejected, 10000);
  EXPECT_EQ(fail.count(), 0) << "move parser failures by kind (first ones of each shown above):\n" << fail.summary();
}

INSTANTIATE_TEST_SUITE_P(Variants, ParserFuzz, ::testing::ValuesIn(kVariants),
                         [](const auto& info) { return info.param; });

}  // namespace
