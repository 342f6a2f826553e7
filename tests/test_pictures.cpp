// The pictures Poppy draws: SVG boards (play/human/board_svg.h), the opening tree's picture with its
// folds, colours and board diagrams (play/openings/opening_tree_svg.h), and their PNGs
// (report/svg_to_png.h), decoded back here with cairo to look at the pixels.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "game/position.h"
#include "game/variant_loader.h"
#include "play/human/board_svg.h"
#include "play/openings/opening_tree_svg.h"
#include "report/svg_to_png.h"

#ifdef POPPY_PNG
#include <cairo.h>
#endif

namespace poppy {
namespace {

size_t countOf(const std::string& text, const std::string& needle) {
  size_t n = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

// The values of one attribute on every element whose tag starts with `open` ("<g class=\"piece\"").
std::vector<std::string> attributes(const std::string& svg, const std::string& open, const std::string& name) {
  std::vector<std::string> values;
  for (size_t at = svg.find(open); at != std::string::npos; at = svg.find(open, at + 1)) {
    const size_t end = svg.find('>', at);
    const size_t a = svg.find(name + "=\"", at);
    if (a == std::string::npos || a > end) continue;
    const size_t start = a + name.size() + 2;
    values.push_back(svg.substr(start, svg.find('"', start) - start));
  }
  return values;
}

// ---- boards ----------------------------------------------------------------------------------

TEST(BoardSvg, DrawsEveryPieceOfMicroShogisStart) {
  const game::VariantPtr v = game::loadVariant("micro");
  const game::Position start(v);
  ASSERT_EQ(start.sfen(), "kbgs/p3/4/3P/SGBK b - 1");
  const std::string svg = play::boardSvg(start);
  // Read from the SFEN: gote k b g s on rank a and p on b; sente P on d and S G B K on e.
  EXPECT_EQ(countOf(svg, "<g class=\"piece\""), 10u);
  std::multiset<std::string> sente, gote;
  const auto tokens = attributes(svg, "<g class=\"piece\"", "data-token");
  const auto colours = attributes(svg, "<g class=\"piece\"", "data-color");
  ASSERT_EQ(tokens.size(), colours.size());
  for (size_t i = 0; i < tokens.size(); ++i) (colours[i] == "sente" ? sente : gote).insert(tokens[i]);
  EXPECT_EQ(sente, (std::multiset<std::string>{"S", "G", "B", "K", "P"}));
  EXPECT_EQ(gote, (std::multiset<std::string>{"K", "B", "G", "S", "P"}));
  // Kanji as on a real set: 玉 for sente's king, 王 for gote's, 歩 for both pawns.
  EXPECT_EQ(countOf(svg, ">玉<"), 1u);
  EXPECT_EQ(countOf(svg, ">王<"), 1u);
  EXPECT_EQ(countOf(svg, ">歩<"), 2u);
  // Gote's five tiles turn, and their kanji with them (a tile and a text group each).
  EXPECT_EQ(countOf(svg, "rotate(180"), 10u);
  // No move made yet: nothing highlighted. File numbers 4..1 and rank letters a..e.
  EXPECT_EQ(countOf(svg, "last-move"), 0u);
  for (const char* label : {">4<", ">1<", ">a<", ">e<"}) EXPECT_NE(svg.find(label), std::string::npos) << label;
}

TEST(BoardSvg, LettersStayUprightOnTheOpponentsTiles) {
  const game::VariantPtr v = game::loadVariant("micro");
  play::BoardSvgOptions o;
  o.letters = true;
  const std::string svg = play::boardSvg(game::Position(v), o);
  EXPECT_EQ(countOf(svg, ">玉<"), 0u);
  // Only gote's five tiles turn; every rotation is on a tile, none on a text.
  EXPECT_EQ(countOf(svg, "rotate(180"), 5u);
  EXPECT_EQ(countOf(svg, "<g transform=\"rotate"), 0u);
  // The token big, the face's name beneath.
  EXPECT_NE(svg.find(">pawn<"), std::string::npos);
  EXPECT_NE(svg.find(">K<"), std::string::npos);
}

TEST(BoardSvg, PromotedFacesAreRedAndHandsCounted) {
  const game::VariantPtr v = game::loadVariant("minishogi");
  // A tokin on 4b for sente, two pawns and a gold in sente's hand (the SFEN need not come
  // from a game).
  const game::Position pos = game::Position::fromSfen(v, "rbsgk/1+P2p/5/P4/KGSBR b G2P 1");
  const std::string svg = play::boardSvg(pos);
  EXPECT_NE(svg.find("data-token=\"+P\""), std::string::npos);
  EXPECT_NE(svg.find("fill=\"#c00000\">と<"), std::string::npos);  // kanji of the tokin, in red
  EXPECT_EQ(countOf(svg, "<text class=\"count\""), 1u);              // "2" beside the pawns
  EXPECT_NE(svg.find(">2</text>"), std::string::npos);
  // Pieces on the board (5 + 2 + 1 + 5) and the two kinds in hand.
  EXPECT_EQ(countOf(svg, "<g class=\"piece\""), 15u);
}

TEST(BoardSvg, TheLastMoveIsHighlighted) {
  const game::VariantPtr v = game::loadVariant("minishogi");
  game::Position pos(v);
  pos.makeMove(pos.parseUsi("5e4d"));  // a board move: two squares
  EXPECT_EQ(countOf(play::boardSvg(pos), "class=\"last-move\""), 2u);
  game::Position withHand = game::Position::fromSfen(v, "rbsgk/4p/5/P4/KGSBR b G 1");
  withHand.makeMove(withHand.parseUsi("G*3c"));  // a drop: one square
  EXPECT_EQ(countOf(play::boardSvg(withHand), "class=\"last-move\""), 1u);
}

// ---- the opening tree's picture ------------------------------------------------------------

// A tree written by hand from micro's start, with figures chosen so the folds, colours and
// diagrams can be worked out below:
//   start (win .50 for sente)
//     m0 share .60 win .55 ─ n0 share .70 win .40 ─ p0 share 1 ─ q0 share 1 (depth 4)
//                          └ n1 share .30 win .60
//     m1 share .30 win .45
//     m2 share .06, m3 share .04 (under the 10% fold share)
struct HandTree {
  game::VariantPtr v = game::loadVariant("micro");
  play::OpeningTree tree;
  std::vector<std::string> m, n;
  std::string p0, q0;

  static play::OpeningNode node(const game::Position& pos, const std::vector<std::string>& line, double share,
                                float win) {
    play::OpeningNode x;
    x.move = line.empty() ? "" : line.back();
    x.line = line;
    x.sfen = pos.sfen();
    x.share = share;
    x.winRate = win;
    x.wdl = {win, 0, 1 - win};
    x.searched = true;
    return x;
  }

  static std::vector<std::string> legal(const game::Position& pos) {
    game::MoveList moves;
    pos.generateLegal(moves);
    std::vector<std::string> out;
    for (const game::Move mv : moves) out.push_back(pos.moveToUsi(mv));
    return out;
  }

  HandTree() {
    const game::Position start(v);
    tree.variant = "micro";
    tree.startSfen = start.sfen();
    tree.network = true;
    tree.root = node(start, {}, 1, 0.5f);
    tree.root.playouts = 400;
    m = legal(start);
    const double shares[] = {0.60, 0.30, 0.06, 0.04};
    const float wins[] = {0.55f, 0.45f, 0.5f, 0.5f};
    for (int i = 0; i < 4; ++i) {
      game::Position pos = start;
      pos.makeMove(pos.parseUsi(m[i]));
      tree.root.children.push_back(node(pos, {m[i]}, shares[i], wins[i]));
    }
    game::Position afterM0 = start;
    afterM0.makeMove(afterM0.parseUsi(m[0]));
    n = legal(afterM0);
    const double nShares[] = {0.7, 0.3};
    const float nWins[] = {0.40f, 0.60f};
    for (int i = 0; i < 2; ++i) {
      game::Position pos = afterM0;
      pos.makeMove(pos.parseUsi(n[i]));
      tree.root.children[0].children.push_back(node(pos, {m[0], n[i]}, nShares[i], nWins[i]));
    }
    game::Position afterN0 = afterM0;
    afterN0.makeMove(afterN0.parseUsi(n[0]));
    p0 = legal(afterN0)[0];
    game::Position afterP0 = afterN0;
    afterP0.makeMove(afterP0.parseUsi(p0));
    q0 = legal(afterP0)[0];
    game::Position afterQ0 = afterP0;
    afterQ0.makeMove(afterQ0.parseUsi(q0));
    play::OpeningNode& n0 = tree.root.children[0].children[0];
    n0.children.push_back(node(afterP0, {m[0], n[0], p0}, 1, 0.5f));
    n0.children[0].children.push_back(node(afterQ0, {m[0], n[0], p0, q0}, 1, 0.5f));
  }
};

// The <g class="node"> element whose data-line is `line`, up to its end.
std::string nodeElement(const std::string& svg, const std::string& line) {
  const size_t at = svg.find("<g class=\"node\" data-line=\"" + line + "\"");
  if (at == std::string::npos) return "";
  return svg.substr(at, svg.find("</g>", at) - at);
}

TEST(OpeningTreePicture, FoldsSmallSharesAndDeepPlies) {
  HandTree h;
  play::OpeningTreeSvgOptions o;
  o.diagrams = 0;
  const std::string svg = play::openingTreeSvg(h.tree, h.v, o);
  // Drawn: the root, m0, m1, n0, n1 and p0 (ply 3); q0 (ply 4) is below the fold depth of 3.
  EXPECT_EQ(countOf(svg, "<g class=\"node\""), 6u);
  EXPECT_TRUE(nodeElement(svg, h.m[0] + " " + h.n[0] + " " + h.p0 + " " + h.q0).empty());
  EXPECT_NE(nodeElement(svg, h.m[0] + " " + h.n[0] + " " + h.p0).find("+1 below"), std::string::npos);
  // m2 and m3 (6% and 4%) folded into one line under the root.
  EXPECT_EQ(countOf(svg, "class=\"folded\""), 1u);
  EXPECT_NE(svg.find("+2 more (10%): " + h.m[2] + " 6% \u00b7 " + h.m[3] + " 4%"), std::string::npos);
  EXPECT_TRUE(nodeElement(svg, h.m[2]).empty());
  // Six boxes' edges plus one dashed edge to the folded line.
  EXPECT_EQ(countOf(svg, "<path "), 6u);
  EXPECT_EQ(countOf(svg, "stroke-dasharray=\"3 3\""), 1u);

  // Nothing folded: all eight moves drawn (q0 too, with the fold depth at 4).
  o.foldShare = 0;
  o.foldDepth = 4;
  EXPECT_EQ(countOf(play::openingTreeSvg(h.tree, h.v, o), "<g class=\"node\""), 9u);
}

TEST(OpeningTreePicture, ColoursAMoveAgainstItsPositionsValue) {
  HandTree h;
  play::OpeningTreeSvgOptions o;
  o.diagrams = 0;
  const std::string svg = play::openingTreeSvg(h.tree, h.v, o);
  // m0: .55 against the start's .50 for sente: +5 points, half the full colour (lightness 96 - 13).
  const std::string m0 = nodeElement(svg, h.m[0]);
  EXPECT_NE(m0.find("fill=\"hsl(130,55%,83%)\""), std::string::npos) << m0;
  EXPECT_NE(m0.find("win 55% (+5)"), std::string::npos) << m0;
  // m1: .45, 5 points worse: red.
  EXPECT_NE(nodeElement(svg, h.m[1]).find("fill=\"hsl(0,70%,83%)\""), std::string::npos);
  // n0 is gote's reply: after m0 the position is worth 1 - .55 = .45 to gote, and n0 wins .40.
  const std::string n0 = nodeElement(svg, h.m[0] + " " + h.n[0]);
  EXPECT_NE(n0.find("fill=\"hsl(0,70%,83%)\""), std::string::npos) << n0;
  EXPECT_NE(n0.find("(gote)"), std::string::npos);
  // n1 wins .60: 15 points better, past the full colour (lightness 70).
  EXPECT_NE(nodeElement(svg, h.m[0] + " " + h.n[1]).find("fill=\"hsl(130,55%,70%)\""), std::string::npos);
  // The whole line and W/D/L are text on the box, not only in the hover title.
  EXPECT_NE(n0.find(">" + h.m[0] + " " + h.n[0] + "</tspan>"), std::string::npos) << n0;
  EXPECT_NE(n0.find(">W/D/L 40/0/60"), std::string::npos) << n0;
}

TEST(OpeningTreePicture, BoardsOfTheLikeliestLinesOrOfChosenOnes) {
  HandTree h;
  play::OpeningTreeSvgOptions o;
  o.diagrams = 2;
  const std::string svg = play::openingTreeSvg(h.tree, h.v, o);
  // Drawn leaves and how often the network plays into them: p0 .6 x .7 x 1 = .42, m1 .30,
  // n1 .6 x .3 = .18. The two likeliest: p0, then m1.
  const std::string p0Line = h.m[0] + " " + h.n[0] + " " + h.p0;
  EXPECT_EQ(attributes(svg, "<g class=\"diagram\"", "data-line"), (std::vector<std::string>{p0Line, h.m[1]}));
  EXPECT_EQ(countOf(svg, "<g class=\"board\""), 2u);
  EXPECT_NE(svg.find("played 42% of the time"), std::string::npos);
  EXPECT_NE(nodeElement(svg, p0Line).find("class=\"badge\""), std::string::npos);
  EXPECT_EQ(nodeElement(svg, h.m[0]).find("class=\"badge\""), std::string::npos);
  // The board after p0 highlights p0's squares (micro has no drops at the start: a board move).
  EXPECT_EQ(countOf(svg, "class=\"last-move\""), 4u);

  o.diagramLines = {{h.m[0]}};
  const std::string chosen = play::openingTreeSvg(h.tree, h.v, o);
  EXPECT_EQ(attributes(chosen, "<g class=\"diagram\"", "data-line"), (std::vector<std::string>{h.m[0]}));

  // A folded or unknown line is refused, naming it.
  o.diagramLines = {{h.m[2]}};
  try {
    play::openingTreeSvg(h.tree, h.v, o);
    ADD_FAILURE() << "a folded line was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("'" + h.m[2] + "' is not a drawn position"), std::string::npos) << e.what();
  }
}

TEST(OpeningTreePicture, RefusesBadOptions) {
  HandTree h;
  play::OpeningTreeSvgOptions o;
  o.foldDepth = 0;
  EXPECT_THROW(play::openingTreeSvg(h.tree, h.v, o), std::invalid_argument);
  o = {};
  o.foldShare = 1.5;
  EXPECT_THROW(play::openingTreeSvg(h.tree, h.v, o), std::invalid_argument);
  o = {};
  o.diagrams = 13;
  EXPECT_THROW(play::openingTreeSvg(h.tree, h.v, o), std::invalid_argument);
  EXPECT_THROW(play::openingTreeSvg(h.tree, game::loadVariant("minishogi")), std::invalid_argument);
}

// ---- PNG ---------------------------------------------------------------------------------------
#ifdef POPPY_PNG

struct Decoded {
  int width = 0, height = 0;
  std::vector<uint32_t> argb;
  uint32_t at(int x, int y) const { return argb[size_t(y) * width + x] & 0xFFFFFF; }
};

Decoded decodePng(const std::string& png) {
  struct Reader {
    const std::string* bytes;
    size_t at = 0;
  } reader{&png};
  auto read = [](void* closure, unsigned char* data, unsigned int length) -> cairo_status_t {
    auto* r = static_cast<Reader*>(closure);
    if (r->at + length > r->bytes->size()) return CAIRO_STATUS_READ_ERROR;
    std::memcpy(data, r->bytes->data() + r->at, length);
    r->at += length;
    return CAIRO_STATUS_SUCCESS;
  };
  cairo_surface_t* s = cairo_image_surface_create_from_png_stream(read, &reader);
  Decoded d;
  if (cairo_surface_status(s) == CAIRO_STATUS_SUCCESS) {
    d.width = cairo_image_surface_get_width(s);
    d.height = cairo_image_surface_get_height(s);
    const int stride = cairo_image_surface_get_stride(s);
    const unsigned char* data = cairo_image_surface_get_data(s);
    for (int y = 0; y < d.height; ++y)
      for (int x = 0; x < d.width; ++x) d.argb.push_back(*reinterpret_cast<const uint32_t*>(data + y * stride + 4 * x));
  }
  cairo_surface_destroy(s);
  return d;
}

TEST(SvgToPng, DrawsTheShapesAtTheScaleAsked) {
  const std::string svg =
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"40\" height=\"30\">"
      "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>"
      "<rect x=\"10\" y=\"10\" width=\"20\" height=\"10\" fill=\"#e8c48a\"/></svg>";
  const Decoded d = decodePng(report::svgToPng(svg, 2));
  ASSERT_EQ(d.width, 80);
  ASSERT_EQ(d.height, 60);
  EXPECT_EQ(d.at(40, 30), 0xE8C48Au);  // inside the rectangle (20..60 x 20..40 at scale 2)
  EXPECT_EQ(d.at(5, 5), 0xFFFFFFu);
  EXPECT_EQ(d.at(70, 30), 0xFFFFFFu);
}

TEST(SvgToPng, ABoardComesOutWithItsWoodAndItsPieces) {
  const game::VariantPtr v = game::loadVariant("micro");
  play::BoardSvgOptions o;
  const std::string svg = play::boardSvg(game::Position(v), o);
  const play::SvgSize size = play::boardSvgSize(*v, o);
  const Decoded d = decodePng(report::svgToPng(svg, 1));
  ASSERT_EQ(d.width, int(std::ceil(size.width)));
  ASSERT_EQ(d.height, int(std::ceil(size.height)));
  // Count the pixels of the wood (empty squares) and of the tiles' face colour.
  std::map<uint32_t, int> colours;
  for (uint32_t p : d.argb) ++colours[p & 0xFFFFFF];
  EXPECT_GT(colours[0xE8C48A], 1000);  // 10 empty squares of 34x34, less grid lines
  EXPECT_GT(colours[0xF6DFA8], 2000);  // 10 tiles of about 28x31, less their ink
}

TEST(SvgToPng, BrokenDrawingsAreClearErrors) {
  try {
    report::svgToPng("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"10\"");
    ADD_FAILURE() << "a truncated SVG was drawn";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("cannot read the SVG drawing"), std::string::npos) << e.what();
  }
  EXPECT_THROW(report::svgToPng("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"30000\" height=\"10\"/>"),
               std::invalid_argument);
  EXPECT_THROW(report::svgToPng("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"10\" height=\"10\"/>", 0),
               std::invalid_argument);
}

#else
// Built without librsvg (cmake -DPOPPY_PNG=OFF): asking for a PNG says why there is none.
TEST(SvgToPng, ABuildWithoutLibrsvgSaysSo) {
  try {
    report::svgToPng("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"10\" height=\"10\"/>");
    ADD_FAILURE() << "a PNG without librsvg";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("built without PNG pictures"), std::string::npos) << e.what();
  }
}
#endif  // POPPY_PNG

}  // namespace
}  // namespace poppy
