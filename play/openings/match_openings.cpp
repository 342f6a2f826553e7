#include "play/openings/match_openings.h"

#include <sstream>

#include "common/atomic_file.h"

namespace poppy::play {
namespace {

// One line (comment already removed) -> an opening; throws std::runtime_error saying what is wrong.
selfplay::MatchOpening parseLine(const std::string& line, const game::VariantPtr& variant, int plyCap) {
  std::istringstream in(line);
  std::vector<std::string> words;
  for (std::string w; in >> w;) words.push_back(w);
  size_t i = 0;
  if (i < words.size() && words[i] == "position") ++i;
  selfplay::MatchOpening o;
  if (i < words.size() && words[i] == "startpos") {
    o.sfen = game::Position(variant).sfen();
    ++i;
  } else {
    if (i < words.size() && words[i] == "sfen") ++i;
    std::string sfen;
    while (i < words.size() && words[i] != "moves") sfen += (sfen.empty() ? "" : " ") + words[i++];
    if (sfen.empty()) throw std::runtime_error("no position (expected startpos or an SFEN)");
    o.sfen = sfen;
  }
  game::Position pos = game::Position::fromSfen(variant, o.sfen);  // throws SfenError
  o.sfen = pos.sfen();
  if (i < words.size()) {
    if (words[i] != "moves") throw std::runtime_error("expected 'moves' after the position, not '" + words[i] + "'");
    ++i;
    if (i == words.size()) throw std::runtime_error("'moves' without any move");
  }
  for (; i < words.size(); ++i) {
    const game::Move m = pos.parseUsi(words[i]);  // throws MoveError naming the move and position
    pos.makeMove(m);
    o.moves.push_back(words[i]);
  }
  if (pos.outcome(plyCap).over()) throw std::runtime_error("the game is already over in this position");
  return o;
}

}  // namespace

std::vector<selfplay::MatchOpening> parseOpenings(const std::string& text, const std::string& name,
                                                  const game::VariantPtr& variant, int plyCap) {
  std::vector<selfplay::MatchOpening> openings;
  std::vector<std::string> errors;
  std::istringstream in(text);
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    const size_t hash = line.find('#');
    if (hash != std::string::npos) line.resize(hash);
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    try {
      openings.push_back(parseLine(line, variant, plyCap));
    } catch (const std::exception& e) {
      errors.push_back(name + ":" + std::to_string(number) + ": " + e.what());
    }
  }
  if (!errors.empty()) {
    std::string message = std::to_string(errors.size()) + " bad opening line" + (errors.size() > 1 ? "s" : "") + ":";
    for (const auto& e : errors) message += "\n  " + e;
    throw OpeningsError(message);
  }
  if (openings.empty()) throw OpeningsError(name + ": no opening in the file (only blank lines or comments)");
  return openings;
}

std::vector<selfplay::MatchOpening> loadOpenings(const std::string& path, const game::VariantPtr& variant, int plyCap) {
  std::string text;
  try {
    text = common::readWholeFile(path);
  } catch (const common::FileError& e) {
    throw OpeningsError(std::string("openings file: ") + e.what());
  }
  return parseOpenings(text, path, variant, plyCap);
}

}  // namespace poppy::play
