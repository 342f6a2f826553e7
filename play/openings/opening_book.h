// Opening books: for positions near the start, the moves to play and how often. `poppy openings
// book` exports one from a model's opening tree; `poppy usi` (option Book) and `poppy match`
// (--book-a/--book-b) play from it while the game is in the book.
//
// The file is JSON, written atomically:
//   {"format": "poppy-book", "version": 1, "variant": "micro",
//    "positions": {"<SFEN without the move number>": [{"move": "2e2d", "weight": 0.62,
//                   "visits": 310, "win_rate": 0.55}, ...], ...}}
// Positions are keyed by board, side to move and hands, so transpositions share entries.
#pragma once
#include <map>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "game/position.h"

namespace poppy::play {

// A book file that cannot be read or is malformed; the message names the file and the problem.
class BookError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct BookMove {
  std::string move;       // USI
  double weight = 1.0;    // relative frequency (> 0)
  int visits = 0;         // search visits behind it (information only)
  double winRate = 0.5;   // for the side to move, W + D/2 (information only)
};

class OpeningBook {
 public:
  explicit OpeningBook(std::string variant = "") : variant_(std::move(variant)) {}

  // Reads and checks a book: format, variant (when expectedVariant is not empty), every key a
  // legal SFEN of the variant (written any way sfen() reads; two keys for one position are
  // refused) and every move legal there. Throws BookError.
  static OpeningBook load(const std::string& path, const game::VariantPtr& variant);
  void save(const std::string& path) const;  // atomic

  const std::string& variant() const { return variant_; }
  size_t size() const { return positions_.size(); }
  // Adds (or replaces) the moves of pos.
  void set(const game::Position& pos, std::vector<BookMove> moves);
  // The moves for pos, or nullptr when pos is not in the book.
  const std::vector<BookMove>* find(const game::Position& pos) const;
  // A book move for pos drawn in proportion to the weights (the heaviest when rng is null), or
  // Move::none() when pos is out of book.
  game::Move choose(const game::Position& pos, std::mt19937* rng) const;

  // The key used for pos: its SFEN without the move number.
  static std::string key(const game::Position& pos);

 private:
  std::string variant_;
  std::map<std::string, std::vector<BookMove>> positions_;
};

}  // namespace poppy::play
