#include "play/game_files/kif_format.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>
#include <sstream>
#include <vector>

#include "game/position.h"
#include "game/variant_loader.h"
#include "play/game_files/game_end_words.h"
#include "play/game_files/game_file.h"
#include "play/game_files/shogi_names.h"
#include "selfplay/selfplay_runner.h"

namespace poppy::play {
namespace {

using game::Move;
using game::Position;
using game::Square;

const char* const kFullWidthSpace = "\u3000";

// Standard shogi's handicaps (上手, gote, gives the pieces and moves first), and the other
// named starts lishogi and 81Dojo write.
struct NamedStart {
  const char* name;
  const char* variant;
  const char* sfen;  // empty: the variant's own start
};
const NamedStart kStarts[] = {
    {"平手", "shogi", ""},
    {"5五将棋", "minishogi", ""},
    {"香落ち", "shogi", "lnsgkgsn1/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1"},
    {"右香落ち", "shogi", "1nsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1"},
    {"角落ち", "shogi", "lnsgkgsnl/1r7/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1"},
    {"飛車落ち", "shogi", "lnsgkgsnl/7b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1"},
    {"飛香落ち", "shogi", "lnsgkgsn1/7b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1"},
    {"二枚落ち", "shogi", "lnsgkgsnl/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1"},
    {"四枚落ち", "shogi", "1nsgkgsn1/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1"},
    {"六枚落ち", "shogi", "2sgkgs2/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1"},
    {"八枚落ち", "shogi", "3gkg3/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1"},
    {"十枚落ち", "shogi", "4k4/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1"},
};

std::string startSfenOf(const NamedStart& s) {
  return *s.sfen ? s.sfen : game::loadVariant(s.variant)->startSfen;
}

// UTF-8 text cut into characters.
std::vector<std::string> characters(const std::string& s) {
  std::vector<std::string> out;
  for (size_t i = 0; i < s.size();) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    const size_t n = c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
    out.push_back(s.substr(i, n));
    i += n;
  }
  return out;
}

bool startsWith(const std::string& s, const std::string& prefix) { return s.rfind(prefix, 0) == 0; }

// Without ASCII and full-width spaces at either end.
std::string trim(std::string s) {
  for (bool changed = true; changed;) {
    changed = false;
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.pop_back(), changed = true;
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.erase(0, 1), changed = true;
    if (startsWith(s, kFullWidthSpace)) s.erase(0, 3), changed = true;
    if (s.size() >= 3 && s.compare(s.size() - 3, 3, kFullWidthSpace) == 0) s.resize(s.size() - 3), changed = true;
  }
  return s;
}

// A board diagram's line of file numbers: "  ９ ８ ７ ６ ５ ４ ３ ２ １".
bool isFileHeader(const std::string& line) {
  bool digit = false;
  for (const std::string& ch : characters(line)) {
    bool isDigit = false;
    for (int d = 1; d <= 9; ++d) isDigit = isDigit || ch == fullWidthDigit(d);
    if (!isDigit && ch != " " && ch != kFullWidthSpace) return false;
    digit = digit || isDigit;
  }
  return digit;
}

std::string kifSquare(const game::Variant& v, Square s) {
  return fullWidthDigit(v.fileNumber(s)) + kanjiNumber(v.rankOf(s) + 1);
}

const ShogiPieceName& nameOf(const game::Variant& v, int face) {
  return *shogiPieceName(v.faces[size_t(face)].name);
}

// "７六歩(77)", "同　歩(64)", "３一角打", "３三角成(77)".
std::string kifMove(const Position& pos, Move m, Square previousTo) {
  const game::Variant& v = pos.variant();
  std::string text = m.to == previousTo ? std::string("同") + kFullWidthSpace : kifSquare(v, m.to);
  if (m.isDrop()) return text + nameOf(v, m.dropFace()).kif + "打";
  text += nameOf(v, game::faceOf(pos.at(m.from))).kif;
  // KIF writes 成 for a promotion and nothing for a move that could have promoted (不成 is
  // KI2's, and KIF readers such as tsshogi refuse it); Poppy reads either.
  if (m.isFlip()) text += "成";
  return text + "(" + std::to_string(v.fileNumber(m.from)) + std::to_string(v.rankOf(m.from) + 1) + ")";
}

// A board diagram (BOD) of a start no name stands for.
std::string boardDiagram(const Position& pos) {
  const game::Variant& v = pos.variant();
  auto hand = [&](game::Color c) {
    std::string out;
    for (size_t k = 0; k < v.handKinds.size(); ++k) {
      const int n = pos.handCount(c, int(k));
      if (n == 0) continue;
      if (!out.empty()) out += kFullWidthSpace;
      out += nameOf(v, v.handKinds[k].setupFace).board + (n > 1 ? kanjiNumber(n) : "");
    }
    return out.empty() ? std::string("なし") : out;
  };
  std::string frame = "+";
  for (int f = 0; f < v.files; ++f) frame += "---";
  frame += "+\n";
  std::string out = "後手の持駒：" + hand(1) + "\n ";
  for (int f = v.files; f >= 1; --f) out += " " + fullWidthDigit(f);
  out += "\n" + frame;
  for (int r = 0; r < v.ranks; ++r) {
    out += "|";
    for (int c = 0; c < v.files; ++c) {
      const game::Piece p = pos.at(v.square(c, r));
      if (!p) out += " ・";
      else out += std::string(game::colorOf(p) == 1 ? "v" : " ") + nameOf(v, game::faceOf(p)).board;
    }
    out += "|" + kanjiNumber(r + 1) + "\n";
  }
  out += frame + "先手の持駒：" + hand(0) + "\n";
  if (pos.sideToMove() == 1) out += "後手番\n";
  return out;
}

// The 手合割 name of a start, or empty when it has none.
std::string startName(const game::Variant& v, const std::string& sfen) {
  for (const NamedStart& s : kStarts)
    if (v.name == s.variant && startSfenOf(s) == sfen) return s.name;
  return "";
}

}  // namespace

std::string gameToKif(const selfplay::GameRecord& record, const game::VariantPtr& variant) {
  requireShogiPieces(*variant, "KIF");
  Position pos = Position::fromSfen(variant, record.start);
  const GamePlayers players = playersOf(record);
  std::ostringstream out;
  out << "#KIF version=2.0 encoding=UTF-8\n";
  out << "#poppy id=" << record.id << " variant=" << record.variant << " result=" << record.result
      << " reason=" << record.reason << "\n";
  const std::string named = startName(*variant, pos.sfen());
  if (!named.empty()) out << "手合割：" << named << "\n";
  else out << "手合割：その他\n" << boardDiagram(pos);
  out << "先手：" << players.sente << "\n";
  out << "後手：" << players.gote << "\n";
  out << "手数----指手---------消費時間--\n";
  Square previousTo = -1;
  char number[32];
  for (size_t i = 0; i < record.moves.size(); ++i) {
    const Move m = pos.parseUsi(record.moves[i]);
    std::snprintf(number, sizeof number, "%4zu ", i + 1);
    out << number << kifMove(pos, m, previousTo) << "\n";
    previousTo = m.to;
    pos.makeMove(m);
  }
  const GameEndText end = gameEndOf(record, pos.sideToMove());
  std::snprintf(number, sizeof number, "%4zu ", record.moves.size() + 1);
  out << number << end.kif << "\n";
  out << "まで" << record.moves.size() << "手で" << end.summary << "\n";
  return out.str();
}

namespace {

class KifReader {
 public:
  KifReader(const std::string& source, std::string variantName) : source_(source), variantName_(std::move(variantName)) {}

  selfplay::GameRecord read(const std::string& text) {
    std::istringstream in(toUtf8(text, source_));
    std::string line;
    bool moves = false;
    while (std::getline(in, line)) {
      ++lineNumber_;
      if (!line.empty() && line.back() == '\r') line.pop_back();
      if (lineNumber_ == 1 && startsWith(line, "\xEF\xBB\xBF")) line.erase(0, 3);
      if (moves && startsWith(line, "変化")) break;  // the main line ends where variations start
      if (readCommentOrDiagram(line)) continue;
      const std::string t = trim(line);
      if (t.empty() || startsWith(t, "まで")) continue;
      if (startsWith(t, "手数")) {
        moves = true;
        continue;
      }
      if (t[0] >= '0' && t[0] <= '9') {
        moves = true;
        if (!readMoveLine(t)) break;  // the game's end
        continue;
      }
      const size_t colon = t.find("：");
      if (colon != std::string::npos) header_[t.substr(0, colon)] = trim(t.substr(colon + 3));
    }
    return finish();
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw GameFileError(source_ + ":" + std::to_string(lineNumber_) + ": " + what);
  }

  // Comments (#, * and & lines) and board diagram lines. Poppy's own "#poppy" line is read.
  bool readCommentOrDiagram(const std::string& line) {
    if (startsWith(line, "#poppy ")) {
      std::istringstream words(line.substr(7));
      std::string word;
      while (words >> word) {
        const size_t eq = word.find('=');
        if (eq != std::string::npos) poppy_[word.substr(0, eq)] = word.substr(eq + 1);
      }
      return true;
    }
    if (startsWith(line, "#") || startsWith(line, "*") || startsWith(line, "&")) return true;
    if (startsWith(line, "|")) {
      diagramRows_.push_back(line);
      return true;
    }
    if (startsWith(line, "+-") || isFileHeader(line)) return true;
    for (const char* key : {"後手の持駒", "上手の持駒"})
      if (startsWith(line, key)) return goteHand_ = trim(line.substr(line.find("：") + 3)), true;
    for (const char* key : {"先手の持駒", "下手の持駒"})
      if (startsWith(line, key)) return senteHand_ = trim(line.substr(line.find("：") + 3)), true;
    if (startsWith(line, "後手番") || startsWith(line, "上手番")) return goteToMove_ = true, true;
    if (startsWith(line, "先手番") || startsWith(line, "下手番")) return goteToMove_ = false, true;
    return false;
  }

  // Sets up the variant and the start position before the first move.
  void begin() {
    if (pos_) return;
    std::string name = variantName_;
    if (name.empty() && poppy_.count("variant")) name = poppy_["variant"];
    const std::string handicap = header_.count("手合割") ? header_["手合割"] : "";
    const NamedStart* named = nullptr;
    for (const NamedStart& s : kStarts)
      if (handicap == s.name) named = &s;
    if (name.empty() && named) name = named->variant;
    if (name.empty() && diagramRows_.size() == 9) name = "shogi";
    if (name.empty() && diagramRows_.size() == 5) name = "minishogi";
    if (name.empty()) fail("the start (手合割 '" + handicap + "') names no variant Poppy knows: give the variant");
    try {
      variant_ = game::loadVariant(name);
    } catch (const std::exception& e) {
      fail(e.what());
    }
    try {
      requireShogiPieces(*variant_, "KIF");
    } catch (const std::invalid_argument& e) {
      fail(e.what());
    }
    std::string sfen = variant_->startSfen;
    if (!diagramRows_.empty()) sfen = diagramSfen();
    else if (named && named->variant == variant_->name) sfen = startSfenOf(*named);
    else if (!handicap.empty() && handicap != "その他" && !named) fail("unknown 手合割 '" + handicap + "'");
    try {
      pos_ = std::make_unique<Position>(Position::fromSfen(variant_, sfen));
    } catch (const game::SfenError& e) {
      fail(std::string("bad board diagram: ") + e.what());
    }
    record_.variant = variant_->name;
    record_.start = pos_->sfen();
  }

  std::string diagramSfen() {
    const game::Variant& v = *variant_;
    if (int(diagramRows_.size()) != v.ranks)
      fail("the board diagram has " + std::to_string(diagramRows_.size()) + " ranks; " + v.name + " has " +
           std::to_string(v.ranks));
    std::string board;
    for (const std::string& row : diagramRows_) {
      const size_t last = row.rfind('|');
      const std::vector<std::string> cells = characters(row.substr(1, last == 0 ? std::string::npos : last - 1));
      if (int(cells.size()) != 2 * v.files) fail("board diagram row '" + row + "' is not " + std::to_string(v.files) + " squares");
      if (!board.empty()) board += '/';
      int empty = 0;
      for (size_t i = 0; i < cells.size(); i += 2) {
        if (cells[i + 1] == "・") {
          ++empty;
          continue;
        }
        const int face = faceOfKifName(v, cells[i + 1]);
        if (face < 0) fail("unknown piece '" + cells[i + 1] + "' in the board diagram");
        if (empty) board += std::to_string(empty), empty = 0;
        std::string token = v.faces[size_t(face)].token();
        if (cells[i] == "v")
          for (char& ch : token) ch = char(std::tolower(static_cast<unsigned char>(ch)));
        board += token;
      }
      if (empty) board += std::to_string(empty);
    }
    const std::string hands = diagramHand(senteHand_, true) + diagramHand(goteHand_, false);
    return board + (goteToMove_ ? " w " : " b ") + (hands.empty() ? "-" : hands) + " 1";
  }

  std::string diagramHand(const std::string& text, bool sente) {
    if (text.empty() || text == "なし") return "";
    std::string out;
    std::string item;
    auto flush = [&] {
      if (item.empty()) return;
      const std::vector<std::string> chars = characters(item);
      const int face = faceOfKifName(*variant_, chars[0]);
      if (face < 0) fail("unknown piece '" + chars[0] + "' in a hand");
      std::string count;
      for (size_t i = 1; i < chars.size(); ++i) count += chars[i];
      const int n = count.empty() ? 1 : kanjiNumberValue(count);
      if (n < 1) fail("bad count '" + count + "' in a hand");
      std::string letter = variant_->faces[size_t(face)].letterToken();
      if (!sente)
        for (char& ch : letter) ch = char(std::tolower(static_cast<unsigned char>(ch)));
      out += (n > 1 ? std::to_string(n) : "") + letter;
      item.clear();
    };
    for (const std::string& ch : characters(text)) {
      if (ch == " " || ch == kFullWidthSpace) flush();
      else item += ch;
    }
    flush();
    return out;
  }

  // One numbered line: a move (true), or the word that ends the game (false).
  bool readMoveLine(const std::string& t) {
    begin();
    size_t i = 0;
    while (i < t.size() && t[i] >= '0' && t[i] <= '9') ++i;
    const int number = std::stoi(t.substr(0, std::min<size_t>(i, 6)));
    std::string text = trim(t.substr(i));
    // The time column: "( 0:01/00:00:01)" after the move.
    const size_t time = text.find("( ");
    if (time != std::string::npos) text = trim(text.substr(0, time));
    const size_t space = text.find(' ');
    if (space != std::string::npos) text = text.substr(0, space);
    if (number != int(record_.moves.size()) + 1)
      fail("move number " + std::to_string(number) + " where " + std::to_string(record_.moves.size() + 1) + " was due");
    const GameEnd* end = gameEndFromKif(text);
    if (end) {
      endWord_ = end;
      return false;
    }
    const Move m = parseMove(text, number);
    record_.moves.push_back(pos_->moveToUsi(m));
    previousTo_ = m.to;
    pos_->makeMove(m);
    return true;
  }

  Move parseMove(const std::string& text, int number) {
    const game::Variant& v = *variant_;
    const std::vector<std::string> c = characters(text);
    const std::string what = "move " + std::to_string(number) + " '" + text + "': ";
    size_t i = 0;
    Square to = -1;
    if (!c.empty() && c[0] == "同") {
      if (previousTo_ < 0) fail(what + "同 with no move before it");
      to = previousTo_;
      i = 1;
      while (i < c.size() && (c[i] == kFullWidthSpace || c[i] == " ")) ++i;
    } else if (c.size() >= 2) {
      int file = -1;
      for (int d = 1; d <= 9; ++d)
        if (c[0] == fullWidthDigit(d) || c[0] == std::to_string(d)) file = d;
      const int rank = kanjiNumberValue(c[1]);
      if (file < 1 || file > v.files || rank < 1 || rank > v.ranks) fail(what + "no square at its start");
      to = v.square(v.files - file, rank - 1);
      i = 2;
    } else {
      fail(what + "not a move");
    }
    // The piece: two characters for 成銀, 成桂, 成香; one otherwise.
    int face = -1;
    if (i + 1 < c.size() && c[i] == "成") face = faceOfKifName(v, c[i] + c[i + 1]), i += 2;
    else if (i < c.size()) face = faceOfKifName(v, c[i]), i += 1;
    if (face < 0) fail(what + "no piece Poppy knows after the square");
    bool promote = false, drop = false;
    if (i < c.size() && c[i] == "成") promote = true, ++i;
    else if (i + 1 < c.size() && c[i] == "不" && c[i + 1] == "成") i += 2;
    if (i < c.size() && c[i] == "打") drop = true, ++i;
    std::string rest;
    for (; i < c.size(); ++i) rest += c[i];
    std::string usi;
    if (drop || rest.empty()) {
      if (!rest.empty()) fail(what + "'" + rest + "' after a drop");
      if (promote) fail(what + "a drop cannot promote");
      usi = v.faces[size_t(face)].letterToken() + "*" + pos_->squareName(to);
    } else {
      if (rest.size() != 4 || rest[0] != '(' || rest[3] != ')' || !std::isdigit(static_cast<unsigned char>(rest[1])) ||
          !std::isdigit(static_cast<unsigned char>(rest[2])))
        fail(what + "the square it comes from, '" + rest + "', is not (FR)");
      const int file = rest[1] - '0', rank = rest[2] - '0';
      if (file < 1 || file > v.files || rank < 1 || rank > v.ranks) fail(what + "no square " + rest);
      const Square from = v.square(v.files - file, rank - 1);
      const game::Piece p = pos_->at(from);
      if (!p || game::colorOf(p) != pos_->sideToMove()) fail(what + "no piece of the side to move on " + pos_->squareName(from));
      if (game::faceOf(p) != face)
        fail(what + "the piece on " + pos_->squareName(from) + " is a " + v.faces[size_t(game::faceOf(p))].name +
             ", not a " + v.faces[size_t(face)].name);
      usi = pos_->squareName(from) + pos_->squareName(to) + (promote ? "+" : "");
    }
    try {
      // Without 成 a move that may promote stays unpromoted: parseUsi completes forced flips only.
      return pos_->parseUsi(usi);
    } catch (const game::MoveError& e) {
      fail(what + e.what());
    }
  }

  selfplay::GameRecord finish() {
    begin();
    const game::Color toMove = pos_->sideToMove();
    const char* winner[2] = {"sente", "gote"};
    if (endWord_) {
      record_.reason = endWord_->reason;
      record_.result = endWord_->winner == GameEnd::kDraw ? "draw"
                       : endWord_->winner == GameEnd::kSideToMove ? winner[toMove]
                                                                  : winner[1 - toMove];
    } else {
      const game::Outcome o = pos_->outcome();
      record_.reason = o.over() ? selfplay::reasonName(o.reason) : "unfinished";
      record_.result = o.over() && o.winner >= 0 ? winner[o.winner] : "draw";
    }
    // Poppy's own files say what KIF has no word for.
    if (poppy_.count("result")) record_.result = poppy_["result"];
    if (poppy_.count("reason")) record_.reason = poppy_["reason"];
    record_.id = poppy_.count("id") ? poppy_["id"] : std::filesystem::path(source_).stem().string();
    GamePlayers players;
    for (const char* key : {"先手", "下手"})
      if (header_.count(key)) players.sente = header_[key];
    for (const char* key : {"後手", "上手"})
      if (header_.count(key)) players.gote = header_[key];
    record_.model = modelOf(players);
    record_.plies = int(record_.moves.size());
    return record_;
  }

  std::string source_, variantName_;
  int lineNumber_ = 0;
  std::map<std::string, std::string> header_, poppy_;
  std::vector<std::string> diagramRows_;
  std::string senteHand_, goteHand_;
  bool goteToMove_ = false;
  game::VariantPtr variant_;
  std::unique_ptr<Position> pos_;
  Square previousTo_ = -1;
  const GameEnd* endWord_ = nullptr;
  selfplay::GameRecord record_;
};

}  // namespace

selfplay::GameRecord kifToGame(const std::string& text, const std::string& source, const std::string& variantName) {
  return KifReader(source, variantName).read(text);
}

}  // namespace poppy::play
