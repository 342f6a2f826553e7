// The opening tree (play/openings/opening_tree.h): built in-process with a scripted network that prefers
// known moves (no LibTorch here), checked for shape, shares, order, pruning, game counts, the
// three renderers and the book export; then `poppy openings tree|book` end to end on the
// shipped micro model, and their errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>

#include <cmath>
#include <cstdlib>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "game/position.h"
#include "game/variant_loader.h"
#include "nn/encoder.h"
#include "play/analyzer.h"
#include "play/openings/opening_book.h"
#include "play/openings/opening_tree.h"
#include "play/openings/opening_tree_svg.h"
#include "selfplay/game_record.h"
#include "support/scratch_files.h"

namespace poppy {
namespace {

using testing::freshTempDir;
using testing::shellQuote;
using testing::slurp;

const ::testing::Environment* const kCleanup = testing::removeScratchRootAtExit("poppy_tree_test_");

game::VariantPtr micro() { return game::loadVariant("micro"); }

// A network with fixed logits per policy index (so it favours the same moves, seen from the
// side to move, at every position) and a fixed value.
class ScriptedEvaluator : public mcts::Evaluator {
 public:
  ScriptedEvaluator(int policySize, std::map<int, float> logits) : policySize_(policySize), logits_(std::move(logits)) {}
  void evaluate(const float*, int batch, float* logits, float* wdl) override {
    for (int i = 0; i < batch; ++i) {
      for (int k = 0; k < policySize_; ++k) {
        const auto it = logits_.find(k);
        logits[size_t(i) * policySize_ + k] = it == logits_.end() ? 0.0f : it->second;
      }
      wdl[3 * i] = 0.35f;
      wdl[3 * i + 1] = 0.4f;
      wdl[3 * i + 2] = 0.25f;
    }
  }

 private:
  int policySize_;
  std::map<int, float> logits_;
};

// The start position's legal moves; the test favours the first three strongly, in order.
struct Fixture {
  game::VariantPtr v = micro();
  nn::Encoder encoder{v};
  game::Position start{v};
  std::vector<std::string> favourites;
  std::unique_ptr<ScriptedEvaluator> eval;
  mcts::SearchParams params;

  Fixture() {
    game::MoveList legal;
    start.generateLegal(legal);
    const float logits[] = {4.0f, 3.0f, 1.5f};
    std::map<int, float> script;
    for (int i = 0; i < 3 && i < legal.size(); ++i) {
      script[encoder.moveIndex(start, legal[i])] = logits[i];
      favourites.push_back(start.moveToUsi(legal[i]));
    }
    eval = std::make_unique<ScriptedEvaluator>(encoder.policySize(), script);
    params.playouts = 300;
  }

  play::OpeningTree build(const play::OpeningTreeOptions& o) {
    play::Analyzer analyzer(v, eval.get(), params);
    return play::buildOpeningTree(analyzer, start, o);
  }
};

int countNodes(const play::OpeningNode& n) {
  int total = 1;
  for (const auto& c : n.children) total += countNodes(c);
  return total;
}

void forEachNode(const play::OpeningNode& n, const std::function<void(const play::OpeningNode&)>& f) {
  f(n);
  for (const auto& c : n.children) forEachNode(c, f);
}

TEST(OpeningTree, FollowsTheSearchAndItsPreferences) {
  Fixture f;
  ASSERT_EQ(f.favourites.size(), 3u);
  play::OpeningTreeOptions o;
  o.depth = 2;
  o.minShare = 0.1;
  o.maxChildren = 5;
  const play::OpeningTree tree = f.build(o);

  // The root's children are exactly the moves of a plain search of the start with share >= 0.1.
  play::Analyzer reference(f.v, f.eval.get(), f.params);
  const play::Analysis a = reference.analyze(f.start, {});
  std::vector<const play::MoveInfo*> expected;
  for (const auto& m : a.moves)
    if (m.share >= 0.1) expected.push_back(&m);
  ASSERT_GE(expected.size(), 2u) << "the scripted prior should give two moves a share of 10% or more";
  ASSERT_EQ(tree.root.children.size(), expected.size());
  EXPECT_EQ(tree.root.children[0].move, f.favourites[0]);
  EXPECT_EQ(tree.root.children[1].move, f.favourites[1]);
  for (size_t i = 0; i < expected.size(); ++i) {
    const play::OpeningNode& c = tree.root.children[i];
    EXPECT_EQ(c.move, expected[i]->usi);
    EXPECT_DOUBLE_EQ(c.share, expected[i]->share);
    EXPECT_FLOAT_EQ(c.prior, expected[i]->prior);
    EXPECT_EQ(c.visits, expected[i]->visits);
    EXPECT_EQ(c.line, std::vector<std::string>{c.move});
    EXPECT_TRUE(c.searched);
    EXPECT_NEAR(c.wdl[0] + c.wdl[1] + c.wdl[2], 1.0f, 1e-4);
    EXPECT_NEAR(c.winRate, c.wdl[0] + c.wdl[1] / 2, 1e-5);
    if (i > 0) {
      EXPECT_GE(tree.root.children[i - 1].share, c.share);
    }
  }
  EXPECT_GT(tree.root.children[0].prior, tree.root.children[1].prior);

  // Depth 2: the grandchildren are leaves that were not searched; one search per inner node.
  int inner = 0;
  forEachNode(tree.root, [&](const play::OpeningNode& n) {
    EXPECT_LE(n.line.size(), 2u);
    if (n.line.size() < 2) {
      EXPECT_TRUE(n.searched) << n.sfen;
      ++inner;
    } else {
      EXPECT_FALSE(n.searched) << n.sfen;
      EXPECT_TRUE(n.children.empty());
      EXPECT_GE(n.share, 0.1);
    }
    double shares = 0;
    for (const auto& c : n.children) shares += c.share;
    EXPECT_LE(shares, 1.0 + 1e-9);
    // Each node's SFEN is its line played from the start.
    game::Position p = f.start;
    for (const auto& m : n.line) p.makeMove(p.parseUsi(m));
    EXPECT_EQ(p.sfen(), n.sfen);
  });
  EXPECT_EQ(tree.searches, inner);
  EXPECT_TRUE(tree.network);
  EXPECT_EQ(tree.root.playouts, a.playouts);
}

TEST(OpeningTree, MinShareAndMaxChildrenPrune) {
  Fixture f;
  play::OpeningTreeOptions o;
  o.depth = 1;
  o.minShare = 0;
  o.maxChildren = 2;
  play::OpeningTree tree = f.build(o);
  ASSERT_EQ(tree.root.children.size(), 2u);
  EXPECT_EQ(tree.root.children[0].move, f.favourites[0]);
  EXPECT_EQ(tree.root.children[1].move, f.favourites[1]);
  EXPECT_EQ(tree.searches, 1);

  o.maxChildren = 100;
  tree = f.build(o);  // min share 0: every visited move
  play::Analyzer reference(f.v, f.eval.get(), f.params);
  size_t visited = 0;
  for (const auto& m : reference.analyze(f.start, {}).moves) visited += m.visits > 0;
  EXPECT_EQ(tree.root.children.size(), visited);

  o.minShare = 0.5;  // only the favourite has half the visits
  tree = f.build(o);
  ASSERT_EQ(tree.root.children.size(), 1u);
  EXPECT_EQ(tree.root.children[0].move, f.favourites[0]);

  o.minShare = 1.0;  // no move has every visit
  tree = f.build(o);
  EXPECT_TRUE(tree.root.children.empty());
}

TEST(OpeningTree, ReportsProgressAndRejectsBadOptions) {
  Fixture f;
  play::OpeningTreeOptions o;
  o.depth = 3;
  o.minShare = 0.2;
  std::vector<play::OpeningTreeProgress> seen;
  play::Analyzer analyzer(f.v, f.eval.get(), f.params);
  const play::OpeningTree tree =
      play::buildOpeningTree(analyzer, f.start, o, [&](const play::OpeningTreeProgress& p) { seen.push_back(p); });
  ASSERT_EQ(int64_t(seen.size()), tree.searches);
  for (size_t i = 0; i < seen.size(); ++i) {
    EXPECT_EQ(seen[i].searched, int64_t(i) + 1);
    EXPECT_GE(seen[i].estimate, seen[i].searched);
  }
  EXPECT_EQ(seen.back().estimate, tree.searches);

  for (int depth : {0, -1, play::kMaxOpeningTreeDepth + 1}) {
    o = {};
    o.depth = depth;
    EXPECT_THROW(f.build(o), std::invalid_argument) << depth;
  }
  o = {};
  o.minShare = 1.5;
  EXPECT_THROW(f.build(o), std::invalid_argument);
  o = {};
  o.maxChildren = 0;
  EXPECT_THROW(f.build(o), std::invalid_argument);
}

TEST(OpeningTree, MateEndsABranch) {
  // Sente mates with a gold drop (several squares do); the rollout search finds the mates, and
  // the nodes after them are over: not searched, no children.
  auto v = micro();
  const game::Position pos = game::Position::fromSfen(v, "k3/4/1G2/4/3K b G 1");
  mcts::SearchParams params;
  params.playouts = 3000;
  play::Analyzer analyzer(v, nullptr, params);
  play::OpeningTreeOptions o;
  o.depth = 2;
  o.minShare = 0.05;
  const play::OpeningTree tree = play::buildOpeningTree(analyzer, pos, o);
  EXPECT_FALSE(tree.network);
  ASSERT_FALSE(tree.root.children.empty());
  const play::OpeningNode& best = tree.root.children.front();
  EXPECT_GT(best.winRate, 0.99f);
  EXPECT_TRUE(best.terminal);
  EXPECT_FALSE(best.searched);
  EXPECT_TRUE(best.children.empty());
  game::Position after = pos;
  after.makeMove(after.parseUsi(best.move));
  EXPECT_TRUE(after.outcome().over());
  EXPECT_EQ(after.outcome().winner, 0);
}

selfplay::GameRecord record(const std::string& id, const std::vector<std::string>& moves,
                            const std::string& start = "kbgs/p3/4/3P/SGBK b - 1", const std::string& variant = "micro") {
  selfplay::GameRecord r;
  r.id = id;
  r.variant = variant;
  r.start = start;
  r.moves = moves;
  r.result = "draw";
  r.reason = "ply_cap";
  r.plies = int(moves.size());
  r.model = "gen-0001";
  return r;
}

TEST(OpeningTree, CountsTheGamesThroughEachNode) {
  Fixture f;
  ASSERT_EQ(f.start.sfen(), "kbgs/p3/4/3P/SGBK b - 1");
  play::OpeningTreeOptions o;
  o.depth = 2;
  o.minShare = 0.1;
  play::OpeningTree tree = f.build(o);
  ASSERT_GE(tree.root.children.size(), 2u);
  const play::OpeningNode& a = tree.root.children[0];
  const play::OpeningNode& b = tree.root.children[1];
  ASSERT_FALSE(a.children.empty());
  const std::string aReply = a.children[0].move;
  // A reply to `a` that the tree does not hold.
  game::Position afterA = f.start;
  afterA.makeMove(afterA.parseUsi(a.move));
  game::MoveList replies;
  afterA.generateLegal(replies);
  std::string offTree;
  for (int i = 0; i < replies.size(); ++i) {
    const std::string usi = afterA.moveToUsi(replies[i]);
    bool inTree = false;
    for (const auto& c : a.children) inTree |= c.move == usi;
    if (!inTree) offTree = usi;
  }
  ASSERT_FALSE(offTree.empty());

  std::vector<selfplay::GameRecord> records = {
      record("1", {a.move, aReply, "x"}), record("2", {a.move, aReply}), record("3", {a.move, aReply, "y", "z"}),
      record("4", {a.move, offTree}),     record("5", {a.move}),         record("6", {b.move, "q"}),
      record("7", {}),
      // The same start written with another move number counts; another position does not.
      record("8", {a.move}, "kbgs/p3/4/3P/SGBK b - 5"), record("9", {a.move}, "kbgs/p3/4/3P/SGBK w - 1")};
  play::countGames(tree, records, "hand.jsonl", f.v);
  EXPECT_EQ(tree.recordGames, 8);
  EXPECT_EQ(tree.root.games, 8);
  EXPECT_EQ(tree.root.children[0].games, 6);
  EXPECT_EQ(tree.root.children[0].children[0].games, 3);
  EXPECT_EQ(tree.root.children[1].games, 1);
  for (size_t i = 2; i < tree.root.children.size(); ++i) EXPECT_EQ(tree.root.children[i].games, 0);
  for (size_t i = 1; i < a.children.size(); ++i) EXPECT_EQ(a.children[i].games, 0);

  // A second file adds to the counts.
  play::countGames(tree, {record("10", {b.move})}, "more.jsonl", f.v);
  EXPECT_EQ(tree.root.games, 9);
  EXPECT_EQ(tree.root.children[1].games, 2);

  // Records of another variant, or with a broken start, are refused by file name.
  try {
    play::countGames(tree, {record("11", {}, "kbgs/p3/4/3P/SGBK b - 1", "minishogi")}, "other.jsonl", f.v);
    ADD_FAILURE() << "counted a minishogi record";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("other.jsonl"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("minishogi"), std::string::npos) << e.what();
  }
  EXPECT_THROW(play::countGames(tree, {record("12", {}, "not a sfen")}, "bad.jsonl", f.v), std::invalid_argument);
  EXPECT_EQ(tree.root.games, 9);
}

// Checks that every tag is closed in order (a small XML well-formedness check: no attribute
// parsing beyond quotes, which is all the SVG writer produces) and returns the element count
// per "name class" (class may be empty).
std::map<std::string, int> checkXml(const std::string& xml) {
  std::map<std::string, int> counts;
  std::vector<std::string> open;
  size_t i = 0;
  while ((i = xml.find('<', i)) != std::string::npos) {
    size_t end = i + 1;
    char quote = 0;
    while (end < xml.size() && (quote || xml[end] != '>')) {
      if (quote && xml[end] == quote) quote = 0;
      else if (!quote && (xml[end] == '"' || xml[end] == '\'')) quote = xml[end];
      ++end;
    }
    if (end >= xml.size()) {
      ADD_FAILURE() << "unterminated tag at " << i;
      return counts;
    }
    const std::string tag = xml.substr(i + 1, end - i - 1);
    EXPECT_EQ(tag.find('<'), std::string::npos) << tag;
    if (tag[0] == '?') {
      EXPECT_EQ(tag.back(), '?');
    } else if (tag[0] == '/') {
      if (open.empty() || open.back() != tag.substr(1)) {
        ADD_FAILURE() << "closing </" << tag.substr(1) << "> does not match <" << (open.empty() ? "" : open.back())
                      << ">";
        return counts;
      }
      open.pop_back();
    } else {
      const std::string name = tag.substr(0, tag.find_first_of(" /"));
      const size_t cls = tag.find("class=\"");
      const std::string className = cls == std::string::npos ? "" : tag.substr(cls + 7, tag.find('"', cls + 7) - cls - 7);
      ++counts[name + " " + className];
      if (tag.back() != '/') open.push_back(name);
    }
    i = end + 1;
  }
  EXPECT_TRUE(open.empty()) << open.size() << " elements left open";
  // Text outside tags must not hold a bare '&' or '>'.
  std::string text;
  bool inTag = false;
  for (char c : xml) {
    if (c == '<') inTag = true;
    if (!inTag) text += c;
    if (c == '>') inTag = false;
  }
  for (size_t k = 0; (k = text.find('&', k)) != std::string::npos; ++k) {
    const size_t semi = text.find(';', k);
    EXPECT_TRUE(semi != std::string::npos && semi - k <= 6) << "bare & in text";
  }
  return counts;
}

TEST(OpeningTree, RendersTextJsonAndSvg) {
  Fixture f;
  play::OpeningTreeOptions o;
  o.depth = 2;
  o.minShare = 0.1;
  play::OpeningTree tree = f.build(o);
  play::countGames(tree, {record("1", {tree.root.children[0].move})}, "g.jsonl", f.v);
  const int nodes = countNodes(tree.root);
  ASSERT_GT(nodes, 3);

  // Text: a header, then one line per node; every move is shown.
  const std::string text = play::openingTreeText(tree);
  size_t lines = 0;
  for (char c : text) lines += c == '\n';
  EXPECT_EQ(lines, 3u + size_t(nodes));
  forEachNode(tree.root, [&](const play::OpeningNode& n) {
    if (!n.move.empty()) {
      EXPECT_NE(text.find(n.move), std::string::npos) << n.move;
    }
  });
  EXPECT_NE(text.find("view of the player who made the move"), std::string::npos);

  // JSON: parses back into the same tree.
  const nlohmann::json j = nlohmann::json::parse(play::openingTreeJson(tree));
  EXPECT_EQ(j["format"], "poppy-opening-tree");
  EXPECT_EQ(j["variant"], "micro");
  EXPECT_EQ(j["start"], f.start.sfen());
  EXPECT_EQ(j["depth"], 2);
  EXPECT_EQ(j["search"], "network");
  EXPECT_EQ(j["wdl_view"], "mover");
  EXPECT_EQ(j["record_games"], 1);
  std::function<void(const nlohmann::json&, const play::OpeningNode&)> same = [&](const nlohmann::json& jn,
                                                                                 const play::OpeningNode& n) {
    EXPECT_EQ(jn["move"], n.move);
    EXPECT_EQ(jn["line"].get<std::vector<std::string>>(), n.line);
    EXPECT_EQ(jn["sfen"], n.sfen);
    EXPECT_NEAR(jn["share"].get<double>(), n.share, 1e-9);
    EXPECT_NEAR(jn["prior"].get<double>(), n.prior, 1e-6);
    EXPECT_EQ(jn["visits"], n.visits);
    EXPECT_EQ(jn["games"], n.games);
    EXPECT_EQ(jn["searched"], n.searched);
    EXPECT_NEAR(jn["win_rate"].get<double>(), n.winRate, 1e-6);
    ASSERT_EQ(jn["wdl"].size(), 3u);
    ASSERT_EQ(jn["children"].size(), n.children.size());
    for (size_t i = 0; i < n.children.size(); ++i) same(jn["children"][i], n.children[i]);
  };
  same(j["root"], tree.root);

  // SVG: well formed, one box and one <text> per node, one edge per parent-child link.
  // Nothing folded and no boards: every node drawn.
  play::OpeningTreeSvgOptions picture;
  picture.foldShare = 0;
  picture.diagrams = 0;
  const std::string svg = play::openingTreeSvg(tree, f.v, picture);
  const auto counts = checkXml(svg);
  EXPECT_EQ(counts.count("svg "), 1u);
  EXPECT_EQ(counts.at("text node"), nodes);
  EXPECT_EQ(counts.at("g node"), nodes);
  EXPECT_EQ(counts.at("rect "), nodes + 1);  // plus the background
  EXPECT_EQ(counts.at("rect key"), 5u);      // the colour key
  EXPECT_EQ(counts.at("path "), nodes - 1);
  forEachNode(tree.root, [&](const play::OpeningNode& n) {
    if (!n.move.empty()) {
      EXPECT_NE(svg.find(">" + n.move + " ("), std::string::npos) << n.move;
    }
  });
}

TEST(OpeningTree, ExportsABook) {
  Fixture f;
  play::OpeningTreeOptions o;
  o.depth = 2;
  o.minShare = 0.1;
  const play::OpeningTree tree = f.build(o);
  const play::OpeningBook book = play::openingTreeToBook(tree, f.v);
  EXPECT_EQ(int64_t(book.size()), tree.searches);  // no transposition within two plies
  const auto* root = book.find(f.start);
  ASSERT_NE(root, nullptr);
  ASSERT_EQ(root->size(), tree.root.children.size());
  for (size_t i = 0; i < root->size(); ++i) {
    EXPECT_EQ((*root)[i].move, tree.root.children[i].move);
    EXPECT_DOUBLE_EQ((*root)[i].weight, tree.root.children[i].share);
    EXPECT_EQ((*root)[i].visits, tree.root.children[i].visits);
    EXPECT_NEAR((*root)[i].winRate, tree.root.children[i].winRate, 1e-6);
  }
  game::Position afterA = f.start;
  afterA.makeMove(afterA.parseUsi(tree.root.children[0].move));
  ASSERT_NE(book.find(afterA), nullptr);
  EXPECT_EQ(book.find(afterA)->front().move, tree.root.children[0].children.front().move);
  // The leaves' positions were not searched, so they are out of book.
  game::Position leaf = afterA;
  leaf.makeMove(leaf.parseUsi(tree.root.children[0].children.front().move));
  EXPECT_EQ(book.find(leaf), nullptr);

  const auto dir = freshTempDir("poppy_tree_test_", "book");
  book.save((dir / "book.json").string());
  const play::OpeningBook loaded = play::OpeningBook::load((dir / "book.json").string(), f.v);
  EXPECT_EQ(loaded.size(), book.size());
  EXPECT_EQ(f.start.moveToUsi(loaded.choose(f.start, nullptr)), tree.root.children[0].move);
  std::filesystem::remove_all(dir);
}

#ifdef POPPY_BINARY  // the poppy command is built with LibTorch only (tests/CMakeLists.txt)
// ---- the `poppy openings` command on the shipped model ----

struct CmdRun {
  int code = -1;
  std::string out, err;
};

CmdRun poppy(const std::string& args, const std::filesystem::path& dir) {
  const std::string out = (dir / "stdout").string(), err = (dir / "stderr").string();
  const std::string cmd = "cd " + shellQuote(POPPY_SOURCE_DIR) + " && timeout -k 5 120 " + shellQuote(POPPY_BINARY) +
                          " " + args + " </dev/null >" + shellQuote(out) + " 2>" + shellQuote(err);
  CmdRun r;
  r.code = testing::exitCodeOf(std::system(cmd.c_str()));
  r.out = slurp(out);
  r.err = slurp(err);
  return r;
}

const char* kModel = "models/micro/micro-1h.model";

TEST(OpeningsCommand, TreeOnTheShippedModel) {
  const auto dir = freshTempDir("poppy_tree_test_", "cli_tree");
  const std::string json = (dir / "tree.json").string();
  CmdRun r = poppy(std::string("openings tree --model ") + kModel + " --depth 2 --playouts 100 --format json --out " +
                    shellQuote(json),
                dir);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("searched"), std::string::npos) << r.err;  // progress
  const nlohmann::json j = nlohmann::json::parse(slurp(json));
  EXPECT_EQ(j["search"], "network");
  EXPECT_EQ(j["depth"], 2);
  const auto& children = j["root"]["children"];
  ASSERT_FALSE(children.empty());
  double shares = 0;
  for (const auto& c : children) {
    EXPECT_GE(c["share"].get<double>(), 0.05);
    EXPECT_LE(c["line"].size(), 1u);
    shares += c["share"].get<double>();
    for (const auto& g : c["children"]) EXPECT_EQ(g["line"].size(), 2u);
  }
  EXPECT_LE(shares, 1.0 + 1e-9);
  EXPECT_LE(children.size(), 5u);

  r = poppy(std::string("openings tree --model ") + kModel + " --depth 1 --playouts 50", dir);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("Opening tree of micro"), std::string::npos) << r.out;
  r = poppy(std::string("openings tree --model ") + kModel + " --depth 1 --playouts 50 --format svg", dir);
  ASSERT_EQ(r.code, 0) << r.err;
  checkXml(r.out);
#ifdef POPPY_PNG
  // A PNG (the picture at twice its size): the PNG signature and the header's size.
  const std::string png = (dir / "tree.png").string();
  r = poppy(std::string("openings tree --model ") + kModel + " --depth 1 --playouts 50 --format png --out " +
                shellQuote(png),
            dir);
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string bytes = slurp(png);
  ASSERT_GT(bytes.size(), 24u);
  EXPECT_EQ(bytes.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
  auto bigEndian = [&](size_t at) {
    return (uint32_t(uint8_t(bytes[at])) << 24) | (uint32_t(uint8_t(bytes[at + 1])) << 16) |
           (uint32_t(uint8_t(bytes[at + 2])) << 8) | uint32_t(uint8_t(bytes[at + 3]));
  };
  EXPECT_GE(bigEndian(16), 2u * 620u);  // the picture is at least 620 wide
  EXPECT_GT(bigEndian(20), 2u * 300u);
  r = poppy(std::string("openings tree --model ") + kModel + " --depth 1 --playouts 50 --format png", dir);
  EXPECT_NE(r.code, 0);
  EXPECT_NE(r.err.find("--format png needs --out"), std::string::npos) << r.err;
#endif
  std::filesystem::remove_all(dir);
}

TEST(OpeningsCommand, BookOnTheShippedModelLoads) {
  const auto dir = freshTempDir("poppy_tree_test_", "cli_book");
  const std::string path = (dir / "book.json").string();
  const CmdRun r = poppy(std::string("openings book --model ") + kModel + " --depth 2 --playouts 100 --out " +
                          shellQuote(path),
                      dir);
  ASSERT_EQ(r.code, 0) << r.err;
  auto v = micro();
  const play::OpeningBook book = play::OpeningBook::load(path, v);
  EXPECT_GE(book.size(), 2u);
  const game::Position start(v);
  const game::Move m = book.choose(start, nullptr);
  ASSERT_NE(m, game::Move::none());
  EXPECT_TRUE(start.isLegal(m));
  std::filesystem::remove_all(dir);
}

// Yonin (four players) without a model: the four-player search with the uniform network. Each
// node names who made its move, in the turn order of the seed (south, west, north, east: no
// check can happen in the first three plies from the start, the armies being too far apart), and
// each child's position is its parent's after its move.
TEST(OpeningsCommand, TreeForFourPlayers) {
  const auto dir = freshTempDir("poppy_tree_test_", "cli_yonin");
  const std::string json = (dir / "tree.json").string();
  CmdRun r = poppy("openings tree --variant yonin --no-model --depth 3 --playouts 32 --max-children 2 --min-share 0 "
                   "--format json "
                   "--out " + shellQuote(json),
                   dir);
  ASSERT_EQ(r.code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(slurp(json));
  EXPECT_EQ(j["players"], 4);
  EXPECT_EQ(j["search"], "network");
  EXPECT_EQ(j["root"]["mover"], "south");
  auto v = game::loadVariant("yonin");
  const std::vector<std::string> seats = {"south", "west", "north"};
  int nodes = 0;
  std::function<void(const nlohmann::json&, int)> walk = [&](const nlohmann::json& n, int ply) {
    for (const auto& c : n["children"]) {
      ++nodes;
      EXPECT_EQ(c["mover"], seats[size_t(ply)]) << c["line"].dump();
      game::Position pos = game::Position::fromSfen(v, n["sfen"].get<std::string>());
      pos.makeMove(pos.parseUsi(c["move"].get<std::string>()));
      EXPECT_EQ(pos.sfen(), c["sfen"]);
      // Among four the expected score is W + D/4 here (nobody is out).
      const auto& wdl = c["wdl"];
      EXPECT_NEAR(c["win_rate"].get<double>(), wdl[0].get<double>() + wdl[1].get<double>() / 4, 1e-5);
      walk(c, ply + 1);
    }
  };
  walk(j["root"], 0);
  EXPECT_EQ(nodes, 2 + 4 + 8);

  r = poppy("openings tree --variant yonin --no-model --depth 1 --playouts 16", dir);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("start  south to move"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("sente"), std::string::npos) << r.out;
  r = poppy("openings tree --variant yonin --no-model --depth 1 --format svg", dir);
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--format svg draws two-player trees; yonin has 4 players"), std::string::npos) << r.err;
  r = poppy("openings book --variant yonin --no-model --depth 1 --out " + shellQuote((dir / "b.json").string()), dir);
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("poppy openings book is for two-player variants"), std::string::npos) << r.err;
  std::filesystem::remove_all(dir);
}

TEST(OpeningsCommand, BadInputIsAClearError) {
  const auto dir = freshTempDir("poppy_tree_test_", "cli_errors");
  auto expectError = [&](const std::string& args, const std::string& needle) {
    const CmdRun r = poppy(args, dir);
    EXPECT_NE(r.code, 0) << args;
    EXPECT_LT(r.code, 124) << args << "\n" << r.err;  // not a timeout or a signal
    EXPECT_NE(r.err.find(needle), std::string::npos) << args << "\n" << r.err;
    for (const char* crash : {"terminate", "Segmentation", "Aborted", "what():"})
      EXPECT_EQ(r.err.find(crash), std::string::npos) << args << "\n" << r.err;
  };
  expectError("openings tree --model models/micro/no-such.model --depth 1", "no-such.model");
  expectError(std::string("openings tree --model ") + kModel + " --sfen 'kbgs/p3/zz b - 1' --depth 1", "kbgs/p3/zz");
  expectError(std::string("openings tree --model ") + kModel + " --depth 0", "--depth");
  expectError(std::string("openings tree --model ") + kModel + " --depth 40", "--depth");
  expectError("openings tree --depth 1", "--model");
  expectError(std::string("openings tree --model ") + kModel + " --no-model --depth 1", "--no-model");
  expectError(std::string("openings tree --model ") + kModel + " --format pdf", "pdf");
  expectError(std::string("openings book --model ") + kModel + " --depth 1", "--out");

  selfplay::GameRecord other = record("m1", {"5a4b"}, "lnsgkgsnl/9 b - 1", "minishogi");
  const std::string records = (dir / "other.jsonl").string();
  selfplay::appendGameRecords(records, {other});
  expectError(std::string("openings tree --model ") + kModel + " --depth 1 --records " + shellQuote(records),
              "other.jsonl");

  // Issue 39 (12): a records file with no readable record is an error (it once printed a warning
  // per line and exited 0), with the first few warnings only; an output that cannot be written is
  // refused before the search (the search is long: depth 8 here, never reached).
  const std::string junk = (dir / "junk.jsonl").string();
  std::string lines;
  for (int i = 0; i < 500; ++i) lines += "not a record " + std::to_string(i) + "\n";
  std::ofstream(junk) << lines;
  const CmdRun bad = poppy(std::string("openings tree --model ") + kModel + " --depth 1 --records " + shellQuote(junk), dir);
  EXPECT_EQ(bad.code, 2) << bad.err;
  EXPECT_NE(bad.err.find("--records " + junk + ": no game record could be read"), std::string::npos) << bad.err;
  EXPECT_LE(std::count(bad.err.begin(), bad.err.end(), '\n'), 13) << bad.err;
  EXPECT_NE(bad.err.find("490 more malformed lines not shown"), std::string::npos) << bad.err;
  for (const std::string& out : {std::string("/nonexistent-folder/t.svg"), dir.string()}) {
    const CmdRun r =
        poppy(std::string("openings tree --model ") + kModel + " --depth 8 --format svg --out " + shellQuote(out), dir);
    EXPECT_EQ(r.code, 2) << r.err;
    EXPECT_NE(r.err.find(out + ": cannot be written"), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("searches"), std::string::npos) << "searched first:\n" << r.err;
  }
  expectError(std::string("openings book --model ") + kModel + " --depth 8 --out /nonexistent-folder/b.json",
              "/nonexistent-folder/b.json: cannot be written");
  std::filesystem::remove_all(dir);
}

#endif  // POPPY_BINARY

}  // namespace
}  // namespace poppy
