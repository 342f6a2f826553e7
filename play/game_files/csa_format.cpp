#include "play/game_files/csa_format.h"

#include <cctype>
#include <filesystem>
#include <map>
#include <memory>
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

void requireCsaVariant(const game::Variant& v) {
  requireShogiPieces(v, "CSA");
  if (v.files != 9 || v.ranks != 9) throw std::invalid_argument("CSA writes 9x9 shogi only, not " + v.name);
}

std::string csaSquare(const game::Variant& v, Square s) {
  return std::to_string(v.fileNumber(s)) + std::to_string(v.rankOf(s) + 1);
}

const char* codeOf(const game::Variant& v, int face) { return shogiPieceName(v.faces[size_t(face)].name)->csa; }

}  // namespace

std::string gameToCsa(const selfplay::GameRecord& record, const game::VariantPtr& variant) {
  const game::Variant& v = *variant;
  requireCsaVariant(v);
  Position pos = Position::fromSfen(variant, record.start);
  const GamePlayers players = playersOf(record);
  std::ostringstream out;
  out << "V2.2\n";
  out << "'poppy id=" << record.id << " variant=" << record.variant << " result=" << record.result
      << " reason=" << record.reason << "\n";
  out << "N+" << players.sente << "\nN-" << players.gote << "\n";
  if (pos.sfen() == game::loadVariant("shogi")->startSfen) {
    out << "PI\n";
  } else {
    for (int r = 0; r < 9; ++r) {
      out << "P" << r + 1;
      for (int c = 0; c < 9; ++c) {
        const game::Piece p = pos.at(v.square(c, r));
        if (!p) out << " * ";
        else out << (game::colorOf(p) == 0 ? '+' : '-') << codeOf(v, game::faceOf(p));
      }
      out << "\n";
    }
    for (game::Color c = 0; c < 2; ++c) {
      std::string hand;
      for (size_t k = 0; k < v.handKinds.size(); ++k)
        for (int n = 0; n < pos.handCount(c, int(k)); ++n) hand += std::string("00") + codeOf(v, v.handKinds[k].setupFace);
      if (!hand.empty()) out << "P" << (c == 0 ? '+' : '-') << hand << "\n";
    }
  }
  out << (pos.sideToMove() == 0 ? "+" : "-") << "\n";
  for (const std::string& usi : record.moves) {
    const Move m = pos.parseUsi(usi);
    out << (pos.sideToMove() == 0 ? '+' : '-');
    if (m.isDrop()) {
      out << "00" << csaSquare(v, m.to) << codeOf(v, m.dropFace());
    } else {
      const int face = game::faceOf(pos.at(m.from));
      out << csaSquare(v, m.from) << csaSquare(v, m.to) << codeOf(v, m.isFlip() ? v.faces[size_t(face)].flipTo : face);
    }
    out << "\n";
    pos.makeMove(m);
  }
  out << gameEndOf(record, pos.sideToMove()).csa << "\n";
  return out.str();
}

namespace {

class CsaReader {
 public:
  CsaReader(const std::string& source, const std::string& variantName)
      : source_(source), variant_(loadVariantOrFail(variantName.empty() ? "shogi" : variantName)) {
    try {
      requireCsaVariant(*variant_);
    } catch (const std::invalid_argument& e) {
      fail(e.what());
    }
  }

  selfplay::GameRecord read(const std::string& text) {
    std::istringstream in(toUtf8(text, source_));
    std::string line;
    while (std::getline(in, line)) {
      ++lineNumber_;
      if (!line.empty() && line.back() == '\r') line.pop_back();
      if (line.empty()) continue;
      if (line[0] == '\'') {
        readComment(line);
        continue;
      }
      // Several statements may share a line, separated by commas.
      std::istringstream statements(line);
      std::string statement;
      while (std::getline(statements, statement, ',')) {
        if (!readStatement(statement)) return finish();
      }
    }
    return finish();
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw GameFileError(source_ + (lineNumber_ ? ":" + std::to_string(lineNumber_) : "") + ": " + what);
  }

  game::VariantPtr loadVariantOrFail(const std::string& name) {
    try {
      return game::loadVariant(name);
    } catch (const std::exception& e) {
      fail(e.what());
    }
  }

  void readComment(const std::string& line) {
    if (line.rfind("'poppy ", 0) != 0) return;
    std::istringstream words(line.substr(7));
    std::string word;
    while (words >> word) {
      const size_t eq = word.find('=');
      if (eq != std::string::npos) poppy_[word.substr(0, eq)] = word.substr(eq + 1);
    }
  }

  // One statement; false at the end of the game.
  bool readStatement(const std::string& s) {
    if (s.empty()) return true;
    switch (s[0]) {
      case 'V': case '$': case 'T': return true;  // version, metadata, time
      case 'N':
        if (s.size() >= 2 && (s[1] == '+' || s[1] == '-')) (s[1] == '+' ? players_.sente : players_.gote) = s.substr(2);
        return true;
      case 'P':
        readSetup(s);
        return true;
      case '%':
        end_ = s;
        return false;
      case '+': case '-':
        if (s.size() == 1) {
          if (pos_) fail("'" + s + "' after the moves began");
          goteToMove_ = s[0] == '-';
          return true;
        }
        readMove(s);
        return true;
      default:
        fail("unknown statement '" + s + "'");
    }
  }

  // "PI" (with pieces taken off: "PI82HI22KA"), "P1".."P9" rows, "P+"/"P-" placements.
  void readSetup(const std::string& s) {
    if (pos_) fail("'" + s + "' after the moves began");
    const game::Variant& v = *variant_;
    if (s.size() >= 2 && s[1] == 'I') {
      board_.assign(81, "");
      const Position start(variant_);
      for (Square sq = 0; sq < 81; ++sq)
        if (start.at(sq)) board_[size_t(sq)] = (game::colorOf(start.at(sq)) == 0 ? "+" : "-") + std::string(codeOf(v, game::faceOf(start.at(sq))));
      for (size_t i = 2; i + 4 <= s.size(); i += 4) board_[size_t(squareAt(s.substr(i, 2)))].clear();
      return;
    }
    if (s.size() >= 2 && s[1] >= '1' && s[1] <= '9') {
      if (board_.empty()) board_.assign(81, "");
      const int rank = s[1] - '1';
      if (s.size() != 2 + 9 * 3) fail("board row '" + s + "' is not 9 squares of 3 characters");
      for (int c = 0; c < 9; ++c) {
        const std::string cell = s.substr(size_t(2 + 3 * c), 3);
        if (cell == " * ") board_[size_t(v.square(c, rank))].clear();
        else if ((cell[0] == '+' || cell[0] == '-') && faceOfCsaCode(v, cell.substr(1)) >= 0) board_[size_t(v.square(c, rank))] = cell;
        else fail("bad square '" + cell + "' in '" + s + "'");
      }
      return;
    }
    if (s.size() >= 2 && (s[1] == '+' || s[1] == '-')) {
      if (board_.empty()) board_.assign(81, "");
      for (size_t i = 2; i + 4 <= s.size(); i += 4) {
        const std::string square = s.substr(i, 2), code = s.substr(i + 2, 2);
        if (faceOfCsaCode(v, code) < 0) fail("unknown piece '" + code + "' in '" + s + "'");
        if (square == "00") hands_[s[1] == '+' ? 0 : 1] += code == "AL" ? "" : code;
        else board_[size_t(squareAt(square))] = std::string(1, s[1]) + code;
      }
      return;
    }
    fail("unknown statement '" + s + "'");
  }

  Square squareAt(const std::string& fr) {
    if (fr.size() != 2 || fr[0] < '1' || fr[0] > '9' || fr[1] < '1' || fr[1] > '9') fail("bad square '" + fr + "'");
    return variant_->square(9 - (fr[0] - '0'), fr[1] - '1');
  }

  void begin() {
    if (pos_) return;
    const game::Variant& v = *variant_;
    std::string sfen = v.startSfen;
    if (!board_.empty()) {
      std::string board;
      for (int r = 0; r < 9; ++r) {
        if (r) board += '/';
        int empty = 0;
        for (int c = 0; c < 9; ++c) {
          const std::string& cell = board_[size_t(v.square(c, r))];
          if (cell.empty()) {
            ++empty;
            continue;
          }
          if (empty) board += std::to_string(empty), empty = 0;
          std::string token = v.faces[size_t(faceOfCsaCode(v, cell.substr(1)))].token();
          if (cell[0] == '-')
            for (char& ch : token) ch = char(std::tolower(static_cast<unsigned char>(ch)));
          board += token;
        }
        if (empty) board += std::to_string(empty);
      }
      std::string hands;
      for (int c = 0; c < 2; ++c)
        for (size_t i = 0; i + 2 <= hands_[c].size(); i += 2) {
          std::string letter = v.faces[size_t(faceOfCsaCode(v, hands_[c].substr(i, 2)))].letterToken();
          if (c == 1)
            for (char& ch : letter) ch = char(std::tolower(static_cast<unsigned char>(ch)));
          hands += letter;
        }
      sfen = board + (goteToMove_ ? " w " : " b ") + (hands.empty() ? "-" : hands) + " 1";
    } else if (goteToMove_) {
      sfen = v.startSfen.substr(0, v.startSfen.find(' ')) + " w - 1";
    }
    try {
      pos_ = std::make_unique<Position>(Position::fromSfen(variant_, sfen));
    } catch (const game::SfenError& e) {
      fail(std::string("bad start position: ") + e.what());
    }
  }

  void readMove(const std::string& s) {
    begin();
    const game::Variant& v = *variant_;
    const std::string what = "move " + std::to_string(moves_.size() + 1) + " '" + s + "': ";
    if (s.size() != 7) fail(what + "not a move (+FFTTPP)");
    if ((s[0] == '+') != (pos_->sideToMove() == 0)) fail(what + "it is the other side's turn");
    const int face = faceOfCsaCode(v, s.substr(5, 2));
    if (face < 0) fail(what + "unknown piece '" + s.substr(5, 2) + "'");
    std::string usi;
    const Square to = squareAt(s.substr(3, 2));
    if (s.substr(1, 2) == "00") {
      usi = v.faces[size_t(face)].letterToken() + "*" + pos_->squareName(to);
    } else {
      const Square from = squareAt(s.substr(1, 2));
      const game::Piece p = pos_->at(from);
      if (!p || game::colorOf(p) != pos_->sideToMove()) fail(what + "no piece of the side to move on " + pos_->squareName(from));
      const int before = game::faceOf(p);
      const bool promote = face != before;
      if (promote && v.faces[size_t(before)].flipTo != face)
        fail(what + "the piece on " + pos_->squareName(from) + " is a " + v.faces[size_t(before)].name + ", which cannot become a " +
             v.faces[size_t(face)].name);
      usi = pos_->squareName(from) + pos_->squareName(to) + (promote ? "+" : "");
    }
    try {
      const Move m = pos_->parseUsi(usi);
      moves_.push_back(pos_->moveToUsi(m));
      pos_->makeMove(m);
    } catch (const game::MoveError& e) {
      fail(what + e.what());
    }
  }

  selfplay::GameRecord finish() {
    begin();
    selfplay::GameRecord r;
    const game::Color toMove = pos_->sideToMove();
    const char* winner[2] = {"sente", "gote"};
    if (end_ == "%+ILLEGAL_ACTION" || end_ == "%-ILLEGAL_ACTION") {
      r.reason = "illegal_move";
      r.result = end_[1] == '+' ? "gote" : "sente";
    } else if (!end_.empty()) {
      const GameEnd* e = gameEndFromCsa(end_);
      if (!e) fail("unknown end '" + end_ + "'");
      r.reason = e->reason;
      r.result = e->winner == GameEnd::kDraw ? "draw" : e->winner == GameEnd::kSideToMove ? winner[toMove] : winner[1 - toMove];
    } else {
      const game::Outcome o = pos_->outcome();
      r.reason = o.over() ? selfplay::reasonName(o.reason) : "unfinished";
      r.result = o.over() && o.winner >= 0 ? winner[o.winner] : "draw";
    }
    if (poppy_.count("result")) r.result = poppy_["result"];
    if (poppy_.count("reason")) r.reason = poppy_["reason"];
    r.id = poppy_.count("id") ? poppy_["id"] : std::filesystem::path(source_).stem().string();
    r.variant = variant_->name;
    Position start = *pos_;
    while (start.gamePly() > 0) start.unmakeMove();
    r.start = start.sfen();
    r.moves = moves_;
    r.plies = int(moves_.size());
    r.model = modelOf(players_);
    return r;
  }

  std::string source_;
  int lineNumber_ = 0;
  game::VariantPtr variant_;
  std::map<std::string, std::string> poppy_;
  GamePlayers players_;
  std::vector<std::string> board_;  // "+FU", "-OU" or empty, per square, before the moves
  std::string hands_[2];            // CSA codes, two letters each
  bool goteToMove_ = false;
  std::unique_ptr<Position> pos_;
  std::vector<std::string> moves_;
  std::string end_;
};

}  // namespace

selfplay::GameRecord csaToGame(const std::string& text, const std::string& source, const std::string& variantName) {
  return CsaReader(source, variantName).read(text);
}

}  // namespace poppy::play
