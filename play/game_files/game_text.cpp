#include "play/game_files/game_text.h"

#include <sstream>
#include <vector>

#include "common/text_trim.h"
#include "game/position.h"
#include "game/variant_loader.h"
#include "play/game_files/csa_format.h"
#include "play/game_files/game_file.h"
#include "play/game_files/kif_format.h"

namespace poppy::play {
namespace {

std::vector<std::string> words(const std::string& s) {
  std::istringstream in(s);
  std::vector<std::string> out;
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

bool looksLikeKif(const std::string& t) {
  return t.rfind("#KIF", 0) == 0 || t.find("手合割") != std::string::npos || t.find("手数") != std::string::npos ||
         t.find("開始日時") != std::string::npos || t.find("先手：") != std::string::npos;
}

bool looksLikeCsa(const std::string& t) {
  std::istringstream in(t);
  for (std::string line; std::getline(in, line);) {
    line = common::trimmed(line);
    if (line.empty() || line[0] == '\'') continue;
    return line.rfind("V2", 0) == 0 || line.rfind("PI", 0) == 0 || line.rfind("P1", 0) == 0 ||
           line.rfind("N+", 0) == 0 || line.rfind("$", 0) == 0;
  }
  return false;
}

// An SFEN (4 fields, the move number optional) or "position startpos|sfen ...", then "moves ...".
selfplay::GameRecord fromUsiText(const std::string& text, const std::string& variantName) {
  std::vector<std::string> w = words(text);
  const bool command = !w.empty() && w[0] == "position";
  auto fail = [&](const std::string& what) {
    throw GameFileError(std::string(command ? "the position command" : "the SFEN") + ": " + what);
  };
  size_t at = command ? 1 : 0;
  game::VariantPtr variant;
  try {
    variant = game::loadVariant(variantName);
  } catch (const std::exception& e) {
    fail(std::string("variant: ") + e.what());
  }
  std::string sfen;
  if (at < w.size() && w[at] == "startpos") {
    sfen = variant->startSfen;
    ++at;
  } else {
    if (at < w.size() && w[at] == "sfen") ++at;
    std::string fields;
    for (int n = 0; at < w.size() && w[at] != "moves" && n < 4; ++n) fields += (n ? " " : "") + w[at++];
    if (fields.empty()) fail("no position (an SFEN, or startpos)");
    sfen = fields;
  }
  game::Position pos(variant);
  try {
    pos = game::Position::fromSfen(variant, sfen);
  } catch (const game::SfenError& e) {
    fail(std::string("bad SFEN: ") + e.what());
  }
  selfplay::GameRecord r;
  r.variant = variant->name;
  r.start = pos.sfen();
  if (at < w.size()) {
    if (w[at] != "moves") fail("'" + w[at] + "' where 'moves' or the end was expected");
    for (++at; at < w.size(); ++at) {
      try {
        const game::Move m = pos.parseUsi(w[at]);
        r.moves.push_back(pos.moveToUsi(m));
        pos.makeMove(m);
      } catch (const game::MoveError& e) {
        fail("move " + std::to_string(r.moves.size() + 1) + " (" + w[at] + ") is illegal: " + e.what());
      }
    }
  }
  r.plies = int(r.moves.size());
  return r;
}

}  // namespace

selfplay::GameRecord gameFromText(const std::string& text, const std::string& variantName) {
  const std::string t = common::trimmed(text);
  if (t.empty()) throw GameFileError("no game: the text is empty (paste an SFEN, a KIF or CSA game, or a record)");
  if (t[0] == '{') {
    try {
      return selfplay::gameRecordFromJson(t.substr(0, t.find('\n')));
    } catch (const selfplay::GameRecordError& e) {
      throw GameFileError(std::string("the game record: ") + e.what());
    }
  }
  // A KIF or CSA game names its start (手合割, PI): the file's own variant first; the caller's
  // where the file leaves it open.
  if (looksLikeKif(t)) {
    const std::string utf8 = toUtf8(t, "the KIF text");
    try {
      return kifToGame(utf8, "the KIF text", "");
    } catch (const GameFileError&) {
      return kifToGame(utf8, "the KIF text", variantName);
    }
  }
  if (looksLikeCsa(t)) {
    try {
      return csaToGame(t, "the CSA text", "");
    } catch (const GameFileError&) {
      return csaToGame(t, "the CSA text", variantName);
    }
  }
  return fromUsiText(t, variantName);
}

}  // namespace poppy::play
