// Opening books (play/openings/opening_book.h): a JSON file, checked on load. Byte 0 picks the shipped
// variant the book is loaded for; the rest is the file. Promises: load throws BookError or
// gives a book whose every position is found again by its SFEN and answers a legal book move
// (with and without a random draw), and which saves and loads back the same.
#include <cstddef>
#include <cstdint>
#include <random>
#include <string>

#include <nlohmann/json.hpp>

#include "fuzz/fuzz_support.h"
#include "game/position.h"
#include "play/openings/opening_book.h"

using namespace poppy;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static fuzz::ScratchFile file("book.json");
  static fuzz::ScratchFile saved("saved.json");
  if (size < 1) return 0;
  const game::VariantPtr& variant = fuzz::variantFromByte(data[0]);
  play::OpeningBook book;
  try {
    book = play::OpeningBook::load(file.write(data + 1, size - 1), variant);
  } catch (const play::BookError&) {
    return 0;  // refused with the documented error
  }

  const nlohmann::json doc = nlohmann::json::parse(std::string(reinterpret_cast<const char*>(data + 1), size - 1));
  std::mt19937 rng(1);
  for (const auto& [key, moves] : doc.at("positions").items()) {
    const game::Position pos = game::Position::fromSfen(variant, key + " 1");
    fuzz::check(book.find(pos) != nullptr, "a position of the book is not found by its own SFEN: " + key);
    game::MoveList legal;
    pos.generateLegal(legal);
    for (std::mt19937* r : {static_cast<std::mt19937*>(nullptr), &rng}) {
      const game::Move m = book.choose(pos, r);
      fuzz::check(!(m == game::Move::none()), "no book move for a book position: " + key);
      bool listed = false;
      for (const game::Move& l : legal) listed = listed || l == m;
      fuzz::check(listed, "an illegal book move in " + key);
    }
  }

  book.save(saved.path());
  const play::OpeningBook again = play::OpeningBook::load(saved.path(), variant);
  fuzz::check(again.size() == book.size(), "a saved book loads with another number of positions");
  return 0;
}
