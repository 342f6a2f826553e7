#include "play/engines/usi_notation.h"

#include <cctype>
#include <sstream>
#include <stdexcept>

namespace poppy::play {
namespace {

std::string upper(std::string s) {
  for (char& c : s) c = char(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

bool promotedToken(const std::string& token) { return !token.empty() && token[0] == '+'; }

}  // namespace

NotationKind parseNotationKind(const std::string& text) {
  if (text == "auto") return NotationKind::kAuto;
  if (text == "poppy") return NotationKind::kPoppy;
  if (text == "fairy") return NotationKind::kFairy;
  throw std::invalid_argument("notation '" + text + "': expected auto, poppy or fairy");
}

std::string notationName(NotationKind kind) {
  switch (kind) {
    case NotationKind::kAuto:
      return "auto";
    case NotationKind::kPoppy:
      return "poppy";
    case NotationKind::kFairy:
      return "fairy";
  }
  return "auto";
}

NotationKind resolveNotation(NotationKind kind, const std::string& engineName) {
  if (kind != NotationKind::kAuto) return kind;
  return upper(engineName).rfind("FAIRY-STOCKFISH", 0) == 0 ? NotationKind::kFairy : NotationKind::kPoppy;
}

namespace {
// The variants whose UCI_Variant name in Fairy-Stockfish is not Poppy's.
struct VariantRename {
  const char* poppy;
  const char* fairy;
};
constexpr VariantRename kFairyVariantNames[] = {{"kyoto", "kyotoshogi"}, {"tori", "torishogi"}};
}  // namespace

std::string fairyVariantName(const std::string& poppyVariant) {
  for (const VariantRename& r : kFairyVariantNames)
    if (poppyVariant == r.poppy) return r.fairy;
  return poppyVariant;
}

std::string poppyVariantName(const std::string& fairyVariant) {
  for (const VariantRename& r : kFairyVariantNames)
    if (fairyVariant == r.fairy) return r.poppy;
  return fairyVariant;
}

UsiNotation::UsiNotation(NotationKind kind, const std::string& variant) {
  if (kind == NotationKind::kAuto) throw std::invalid_argument("UsiNotation: resolve the 'auto' notation first");
  // The only variant whose letters differ (see the header); the table lists every renamed face.
  if (kind == NotationKind::kFairy && variant == "micro") renames_ = {{"G", "+R"}, {"+G", "R"}, {"S", "+L"}, {"+S", "L"}};
}

std::string UsiNotation::face(const std::string& token, bool toEngine) const {
  if (token.empty()) return token;
  const std::string key = upper(token);
  for (const Rename& r : renames_) {
    if ((toEngine ? r.poppy : r.engine) != key) continue;
    std::string out = toEngine ? r.engine : r.poppy;
    if (std::islower(static_cast<unsigned char>(token.back())))  // gote's piece in an SFEN
      for (char& c : out) c = char(std::tolower(static_cast<unsigned char>(c)));
    return out;
  }
  return token;
}

std::string UsiNotation::sfen(const std::string& poppySfen) const {
  if (!translates()) return poppySfen;
  std::istringstream in(poppySfen);
  std::string board, side, hand, rest;
  in >> board >> side >> hand;
  std::getline(in, rest);  // the move number, with its space
  std::string b;
  for (size_t i = 0; i < board.size(); ++i) {
    if (board[i] == '+' && i + 1 < board.size()) {
      b += face(board.substr(i, 2), true);
      ++i;
    } else if (std::isalpha(static_cast<unsigned char>(board[i]))) {
      b += face(std::string(1, board[i]), true);
    } else {
      b += board[i];  // digits (empty squares) and '/'
    }
  }
  // In hand a piece has no face: it is named by the base letter of its setup face's other name
  // (Poppy's G, the engine's +R: R).
  for (char& c : hand) {
    if (!std::isalpha(static_cast<unsigned char>(c))) continue;  // counts and '-'
    std::string renamed = face(std::string(1, c), true);
    if (promotedToken(renamed)) renamed.erase(0, 1);
    c = renamed[0];
  }
  std::string out = b;
  for (const std::string* part : {&side, &hand})
    if (!part->empty()) out += " " + *part;
  return out + rest;
}

std::string UsiNotation::boardMove(const game::Position& pos, const std::string& text) const {
  const char suffix = text.empty() ? 0 : text.back();
  if (suffix != '+' && suffix != '-') return text;  // no flip written: the same text
  // The from-square: the file number and the rank letter at the start.
  size_t i = 0;
  while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) ++i;
  if (i == 0 || i >= text.size()) return text;
  const std::string fromText = text.substr(0, i + 1);
  const game::Variant& v = pos.variant();
  for (int s = 0; s < v.numSquares(); ++s) {
    if (pos.squareName(s) != fromText) continue;
    const game::Piece p = pos.at(s);
    if (!p) return text;
    // "+" means "to the promoted face" in both notations; the renamed pieces have their faces
    // the other way round, so their suffix is the other one (the same swap both ways).
    const std::string ours = v.faces[size_t(game::faceOf(p))].token();
    const std::string theirs = face(ours, true);
    if (promotedToken(ours) == promotedToken(theirs)) return text;
    return text.substr(0, text.size() - 1) + (suffix == '+' ? '-' : '+');
  }
  return text;
}

std::string UsiNotation::move(const game::Position& before, const std::string& poppyMove) const {
  if (!translates()) return poppyMove;
  const size_t star = poppyMove.find('*');
  if (star == std::string::npos) return boardMove(before, poppyMove);
  return face(poppyMove.substr(0, star), true) + poppyMove.substr(star);
}

std::vector<std::string> UsiNotation::moves(const game::VariantPtr& variant, const std::string& startSfen,
                                            const std::vector<std::string>& poppyMoves) const {
  if (!translates()) return poppyMoves;
  game::Position pos = game::Position::fromSfen(variant, startSfen);
  std::vector<std::string> out;
  out.reserve(poppyMoves.size());
  for (const std::string& m : poppyMoves) {
    out.push_back(move(pos, m));
    pos.makeMove(pos.parseUsi(m));
  }
  return out;
}

std::string UsiNotation::fromEngine(const game::Position& pos, const std::string& engineMove) const {
  if (!translates()) return engineMove;
  const size_t star = engineMove.find('*');
  if (star == std::string::npos) return boardMove(pos, engineMove);
  if (star == 0) return engineMove;
  return face(engineMove.substr(0, star), false) + engineMove.substr(star);
}

}  // namespace poppy::play
