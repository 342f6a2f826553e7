#include "play/openings/opening_book.h"

#include <nlohmann/json.hpp>

#include "common/atomic_file.h"
#include "common/json_integer.h"

namespace poppy::play {

namespace {

constexpr int kVersion = 1;

std::string withoutMoveNumber(const std::string& sfen) {
  const size_t space = sfen.rfind(' ');
  return space == std::string::npos ? sfen : sfen.substr(0, space);
}

}  // namespace

std::string OpeningBook::key(const game::Position& pos) { return withoutMoveNumber(pos.sfen()); }

void OpeningBook::set(const game::Position& pos, std::vector<BookMove> moves) { positions_[key(pos)] = std::move(moves); }

const std::vector<BookMove>* OpeningBook::find(const game::Position& pos) const {
  const auto it = positions_.find(key(pos));
  return it == positions_.end() || it->second.empty() ? nullptr : &it->second;
}

game::Move OpeningBook::choose(const game::Position& pos, std::mt19937* rng) const {
  const std::vector<BookMove>* moves = find(pos);
  if (!moves) return game::Move::none();
  size_t pick = 0;
  if (rng) {
    double total = 0;
    for (const BookMove& m : *moves) total += m.weight;
    double r = std::uniform_real_distribution<double>(0.0, total)(*rng);
    for (pick = 0; pick + 1 < moves->size(); ++pick) {
      r -= (*moves)[pick].weight;
      if (r < 0) break;
    }
  } else {
    for (size_t i = 1; i < moves->size(); ++i)
      if ((*moves)[i].weight > (*moves)[pick].weight) pick = i;
  }
  // Books are checked on load, but the position's history (repetitions) may still forbid a move.
  try {
    return pos.parseUsi((*moves)[pick].move);
  } catch (const std::exception&) {
    return game::Move::none();
  }
}

void OpeningBook::save(const std::string& path) const {
  nlohmann::json positions = nlohmann::json::object();
  for (const auto& [k, moves] : positions_) {
    nlohmann::json list = nlohmann::json::array();
    for (const BookMove& m : moves)
      list.push_back({{"move", m.move}, {"weight", m.weight}, {"visits", m.visits}, {"win_rate", m.winRate}});
    positions[k] = list;
  }
  const nlohmann::json doc = {{"format", "poppy-book"}, {"version", kVersion}, {"variant", variant_},
                              {"positions", positions}};
  common::writeFileAtomically(path, doc.dump(1) + "\n");
}

OpeningBook OpeningBook::load(const std::string& path, const game::VariantPtr& variant) {
  std::string text;
  try {
    text = common::readWholeFile(path);
  } catch (const std::exception& e) {
    throw BookError("opening book '" + path + "': " + e.what());
  }
  auto bad = [&](const std::string& why) { return BookError("opening book '" + path + "': " + why); };
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    throw bad(std::string("not valid JSON (") + e.what() + ")");
  }
  // (value() would throw a JSON type error for a "format" that is not a string.)
  if (!doc.is_object() || !doc.contains("format") || doc["format"] != "poppy-book") throw bad("not a poppy-book file");
  int version = 0;
  if (!doc.contains("version") || !common::jsonToInteger(doc["version"], version) || version != kVersion)
    throw bad("unsupported version (this Poppy reads version " + std::to_string(kVersion) + ")");
  if (!doc.contains("variant") || !doc["variant"].is_string()) throw bad("no variant");
  OpeningBook book(doc["variant"].get<std::string>());
  if (book.variant_ != variant->name)
    throw bad("it is a book for '" + book.variant_ + "', not '" + variant->name + "'");
  if (!doc.contains("positions") || !doc["positions"].is_object()) throw bad("no positions object");
  for (const auto& [k, list] : doc["positions"].items()) {
    game::Position pos(variant);
    try {
      pos = game::Position::fromSfen(variant, k + " 1");
    } catch (const std::exception& e) {
      throw bad("position '" + k + "': " + e.what());
    }
    if (!list.is_array() || list.empty()) throw bad("position '" + k + "': moves must be a non-empty array");
    std::vector<BookMove> moves;
    for (const auto& item : list) {
      if (!item.is_object() || !item.contains("move") || !item["move"].is_string())
        throw bad("position '" + k + "': each move needs a \"move\" string");
      BookMove m;
      m.move = item["move"].get<std::string>();
      try {
        pos.parseUsi(m.move);
      } catch (const std::exception& e) {
        throw bad("position '" + k + "': move '" + m.move + "': " + e.what());
      }
      if (item.contains("weight")) {
        if (!item["weight"].is_number() || !(item["weight"].get<double>() > 0))
          throw bad("position '" + k + "': move '" + m.move + "': weight must be a positive number");
        m.weight = item["weight"].get<double>();
      }
      if (item.contains("visits")) common::jsonToInteger(item["visits"], m.visits);  // optional: left 0 when not a fitting integer
      if (item.contains("win_rate") && item["win_rate"].is_number()) m.winRate = item["win_rate"].get<double>();
      moves.push_back(std::move(m));
    }
    // Filed under the book's own key (spacing, hand order and counts as sfen() writes them),
    // or find() would never see a key written another way.
    const std::string canonical = key(pos);
    if (book.positions_.count(canonical))
      throw bad("position '" + k + "' is the same position as another key ('" + canonical + "')");
    book.positions_[canonical] = std::move(moves);
  }
  return book;
}

}  // namespace poppy::play
