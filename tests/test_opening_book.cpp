// play::OpeningBook: the JSON book that `poppy openings book` writes and `poppy usi` and
// `poppy match` play from: round trip, weighted and heaviest choice, transpositions sharing
// keys, and the load errors (each naming the file).
#include <gtest/gtest.h>

#include <map>
#include <random>

#include "game/position.h"
#include "game/variant_loader.h"
#include "play/openings/opening_book.h"
#include "support/scratch_files.h"

namespace poppy {
namespace {

using testing::freshTempDir;
using testing::spit;

const ::testing::Environment* const kCleanup = testing::removeScratchRootAtExit("poppy_book_test_");

game::VariantPtr micro() { return game::loadVariant("micro"); }

std::vector<std::string> legalUsi(const game::Position& pos) {
  game::MoveList legal;
  pos.generateLegal(legal);
  std::vector<std::string> out;
  for (int i = 0; i < legal.size(); ++i) out.push_back(pos.moveToUsi(legal[i]));
  return out;
}

game::Position after(game::Position pos, const std::vector<std::string>& moves) {
  for (const std::string& m : moves) pos.makeMove(pos.parseUsi(m));
  return pos;
}

// Expects load to throw a BookError whose message names the file and contains `what`.
void expectLoadError(const std::string& path, const std::string& what) {
  try {
    play::OpeningBook::load(path, micro());
    ADD_FAILURE() << "loaded " << path << " without an error";
  } catch (const play::BookError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find(path), std::string::npos) << message;
    EXPECT_NE(message.find(what), std::string::npos) << message;
  }
}

TEST(OpeningBook, SaveAndLoadRoundTrip) {
  auto v = micro();
  const game::Position start(v);
  const auto moves = legalUsi(start);
  ASSERT_GE(moves.size(), 3u);
  const game::Position second = after(start, {moves[1]});
  const auto replies = legalUsi(second);
  ASSERT_FALSE(replies.empty());

  play::OpeningBook book("micro");
  book.set(start, {{moves[0], 0.6, 300, 0.55}, {moves[2], 0.25, 120, 0.48}});
  book.set(second, {{replies[0], 1.0, 50, 0.4}});
  const auto dir = freshTempDir("poppy_book_test_", "roundtrip");
  const std::string path = (dir / "book.json").string();
  book.save(path);

  const play::OpeningBook loaded = play::OpeningBook::load(path, v);
  EXPECT_EQ(loaded.variant(), "micro");
  EXPECT_EQ(loaded.size(), 2u);
  const auto* got = loaded.find(start);
  ASSERT_NE(got, nullptr);
  ASSERT_EQ(got->size(), 2u);
  EXPECT_EQ((*got)[0].move, moves[0]);
  EXPECT_DOUBLE_EQ((*got)[0].weight, 0.6);
  EXPECT_EQ((*got)[0].visits, 300);
  EXPECT_DOUBLE_EQ((*got)[0].winRate, 0.55);
  EXPECT_EQ((*got)[1].move, moves[2]);
  EXPECT_DOUBLE_EQ((*got)[1].weight, 0.25);
  ASSERT_NE(loaded.find(second), nullptr);
  EXPECT_EQ(loaded.find(second)->front().move, replies[0]);
  EXPECT_EQ(loaded.find(after(start, {moves[2]})), nullptr);
  std::filesystem::remove_all(dir);
}

TEST(OpeningBook, ChoosesByWeightAndHeaviest) {
  auto v = micro();
  const game::Position start(v);
  const auto moves = legalUsi(start);
  ASSERT_GE(moves.size(), 2u);
  play::OpeningBook book("micro");
  book.set(start, {{moves[0], 1.0, 0, 0.5}, {moves[1], 3.0, 0, 0.5}});

  // Without a generator: the heaviest move, every time.
  EXPECT_EQ(start.moveToUsi(book.choose(start, nullptr)), moves[1]);

  // With one: in proportion to the weights (3:1); 4000 draws put the share within a few points.
  std::mt19937 rng(7);
  std::map<std::string, int> counts;
  for (int i = 0; i < 4000; ++i) ++counts[start.moveToUsi(book.choose(start, &rng))];
  EXPECT_EQ(counts.size(), 2u);
  EXPECT_NEAR(counts[moves[1]] / 4000.0, 0.75, 0.04);

  // Out of book: no move.
  EXPECT_EQ(book.choose(after(start, {moves[0]}), &rng), game::Move::none());
}

TEST(OpeningBook, TranspositionsShareAKey) {
  auto v = micro();
  const game::Position start(v);
  // The move number is not part of the key.
  const std::string board = start.sfen().substr(0, start.sfen().rfind(' '));
  EXPECT_EQ(play::OpeningBook::key(game::Position::fromSfen(v, board + " 9")), play::OpeningBook::key(start));

  // Find two move orders that reach one position: a b c and c b a.
  std::vector<std::string> first, second;
  for (const std::string& a : legalUsi(start)) {
    const game::Position p1 = after(start, {a});
    for (const std::string& b : legalUsi(p1)) {
      const game::Position p2 = after(p1, {b});
      for (const std::string& c : legalUsi(p2)) {
        if (c == a) continue;
        try {
          const game::Position other = after(start, {c, b, a});
          if (play::OpeningBook::key(other) == play::OpeningBook::key(after(p2, {c}))) {
            first = {a, b, c};
            second = {c, b, a};
          }
        } catch (const game::MoveError&) {
        }
        if (!first.empty()) break;
      }
      if (!first.empty()) break;
    }
    if (!first.empty()) break;
  }
  ASSERT_FALSE(first.empty()) << "micro shogi should have a three-ply transposition";
  const game::Position x = after(start, first), y = after(start, second);
  const auto replies = legalUsi(x);
  ASSERT_FALSE(replies.empty());
  play::OpeningBook book("micro");
  book.set(x, {{replies[0], 1.0, 1, 0.5}});
  ASSERT_NE(book.find(y), nullptr);
  EXPECT_EQ(book.find(y)->front().move, replies[0]);
  EXPECT_EQ(y.moveToUsi(book.choose(y, nullptr)), replies[0]);
}

// A key is any SFEN of the position (spacing, hand order, "PP" for "2P"): load() files it under
// the book's own key, so find() sees it. It used to keep the text as written, and such an entry
// was silently never played. Found by fuzz/fuzz_opening_book (a key with leading spaces).
TEST(OpeningBook, KeysWrittenAnotherWayAreFoundAndRepeatsRefused) {
  auto v = micro();
  game::Position pos(v);
  pos.makeMove(pos.parseUsi(legalUsi(pos).front()));
  const std::string reply = legalUsi(pos).front();
  // Both sides with two pieces in hand, written out of the canonical order and uncounted.
  const game::Position hands = game::Position::fromSfen(v, "k3/p3/4/3P/3K b 2G2s 1");
  const std::string handReply = legalUsi(hands).back();
  const auto dir = freshTempDir("poppy_book_test_", "keys");
  auto load = [&](const std::string& positions) {
    const std::string path = (dir / "book.json").string();
    spit(path, "{\"format\": \"poppy-book\", \"version\": 1, \"variant\": \"micro\", \"positions\": {" + positions +
                   "}}");
    return play::OpeningBook::load(path, v);
  };
  const std::string spaced = "  " + play::OpeningBook::key(pos) + " ";
  const play::OpeningBook book = load("\"" + spaced + "\": [{\"move\": \"" + reply + "\"}], " +
                                      "\"k3/p3/4/3P/3K b ssGG\": [{\"move\": \"" + handReply + "\"}]");
  ASSERT_NE(book.find(pos), nullptr);
  EXPECT_EQ(pos.moveToUsi(book.choose(pos, nullptr)), reply);
  ASSERT_NE(book.find(hands), nullptr);
  EXPECT_EQ(hands.moveToUsi(book.choose(hands, nullptr)), handReply);

  // Two keys for one position would leave one of them unused: refused, naming both.
  try {
    load("\"" + spaced + "\": [{\"move\": \"" + reply + "\"}], \"" + play::OpeningBook::key(pos) + "\": [{\"move\": \"" +
         reply + "\"}]");
    ADD_FAILURE() << "a repeated position was accepted";
  } catch (const play::BookError& e) {
    EXPECT_NE(std::string(e.what()).find("same position"), std::string::npos) << e.what();
  }
  std::filesystem::remove_all(dir);
}

TEST(OpeningBook, LoadErrorsNameTheFile) {
  auto v = micro();
  const game::Position start(v);
  const std::string key = play::OpeningBook::key(start);
  const std::string legal = legalUsi(start).front();
  const auto dir = freshTempDir("poppy_book_test_", "errors");
  auto write = [&](const std::string& name, const std::string& text) {
    const std::string path = (dir / name).string();
    spit(path, text);
    return path;
  };
  auto doc = [&](const std::string& variant, const std::string& positions) {
    return "{\"format\": \"poppy-book\", \"version\": 1, \"variant\": \"" + variant + "\", \"positions\": {" +
           positions + "}}";
  };
  auto entry = [&](const std::string& k, const std::string& move, const std::string& weight) {
    return "\"" + k + "\": [{\"move\": \"" + move + "\", \"weight\": " + weight + "}]";
  };

  // The good document loads, so each failure below comes from its one change.
  EXPECT_EQ(play::OpeningBook::load(write("good.json", doc("micro", entry(key, legal, "1"))), v).size(), 1u);

  expectLoadError((dir / "missing.json").string(), "missing.json");
  expectLoadError(write("notjson.json", "{\"format\": \"poppy-book\", "), "not valid JSON");
  expectLoadError(write("other.json", "[1, 2, 3]"), "not a poppy-book file");
  // A "format" that is not a string was a JSON type error escaping load(), not a BookError.
  expectLoadError(write("format.json", "{\"format\": 5}"), "not a poppy-book file");
  expectLoadError(write("variant.json", doc("minishogi", entry(key, legal, "1"))), "'minishogi', not 'micro'");
  expectLoadError(write("illegal.json", doc("micro", entry(key, "5a5e", "1"))), "5a5e");
  expectLoadError(write("sfen.json", doc("micro", entry("kbgs/p3/4 b -", legal, "1"))), "kbgs/p3/4 b -");
  expectLoadError(write("zero.json", doc("micro", entry(key, legal, "0"))), "weight must be a positive number");
  expectLoadError(write("negative.json", doc("micro", entry(key, legal, "-0.5"))), "weight must be a positive number");
  expectLoadError(write("empty.json", doc("micro", "\"" + key + "\": []")), "non-empty array");
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace poppy
