#include "play/openings/opening_tree_svg.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/xml_escape.h"

namespace poppy::play {

namespace {

constexpr double kBoxWidth = 212, kBoxHeight = 46, kNodePitch = 54, kFoldHeight = 16, kFoldPitch = 22,
                 kColumnGap = 56, kMargin = 20, kHeader = 104, kMaxEdgeWidth = 16, kDiagramGap = 24;
// The win-rate difference (against the parent position's value) that gets the strongest colour.
constexpr double kFullColour = 0.10;
const char* const kFonts = "'DejaVu Sans',sans-serif";
const char* const kMono = "'DejaVu Sans Mono',monospace";

std::string fmt(const char* format, double a) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, a);
  return buf;
}

std::string pct(double x) { return fmt("%.0f%%", 100.0 * x); }
std::string px(double x) { return fmt("%.1f", x); }

std::string joined(const std::vector<std::string>& moves) {
  std::string out;
  for (const std::string& m : moves) out += (out.empty() ? "" : " ") + m;
  return out;
}

// Squeezes text wider than `room` pixels (estimated at `advance` pixels a character).
std::string fit(const std::string& text, double advance, double room) {
  size_t glyphs = 0;
  for (unsigned char c : text) glyphs += (c & 0xC0) != 0x80;
  return double(glyphs) * advance <= room ? ""
                                          : " textLength=\"" + px(room) + "\" lengthAdjust=\"spacingAndGlyphs\"";
}

// A win-rate difference in whole percentage points: "+3", "-2", "±0".
std::string points(double delta) {
  const double rounded = std::round(100.0 * delta);
  return rounded == 0 ? "\u00b10" : fmt("%+.0f", rounded);
}

// Green for a move better than its position's value for the mover, red for worse.
std::string fillFor(double delta) {
  const double t = std::clamp(delta / kFullColour, -1.0, 1.0);
  const double lightness = 96 - 26 * std::abs(t);
  return t >= 0 ? "hsl(130,55%," + fmt("%.0f", lightness) + "%)" : "hsl(0,70%," + fmt("%.0f", lightness) + "%)";
}

int countBelow(const OpeningNode& n) {
  int count = 0;
  for (const OpeningNode& c : n.children) count += 1 + countBelow(c);
  return count;
}

struct Item {
  const OpeningNode* node = nullptr;           // nullptr: a row of folded moves
  std::vector<const OpeningNode*> folded;      // that row's moves
  int depth = 0;
  int parent = -1;
  double x = 0, y = 0, height = kBoxHeight;    // the box
  double reach = 1;        // product of the shares along the line: how often the network plays into it
  double moverValue = 0.5; // the parent position's value for the player who made the move
  int hiddenBelow = 0;     // positions of the tree below the drawn plies
  int diagram = 0;         // its board's number, 0 when none
};

class Drawer {
 public:
  Drawer(const OpeningTree& tree, const game::VariantPtr& variant, const OpeningTreeSvgOptions& options)
      : tree_(tree), variant_(variant), o_(options) {
    rootSide_ = tree.startSfen.find(" w ") != std::string::npos ? 1 : 0;
  }

  std::string draw() {
    double cursor = kHeader;
    place(tree_.root, 0, -1, 1.0, tree_.root.winRate, cursor);
    chooseDiagrams();
    int depth = 0;
    for (const Item& it : items_) depth = std::max(depth, it.depth);
    const double treeWidth = 2 * kMargin + (depth + 1) * kBoxWidth + depth * kColumnGap;
    const double treeBottom = cursor;

    std::string diagrams;
    double width = std::max(620.0, treeWidth), height = treeBottom + kMargin;
    if (!diagramItems_.empty()) {
      const SvgSize board = boardSvgSize(*variant_, o_.board);
      const double cellWidth = diagramWidth(board);
      double x = kMargin, y = treeBottom + 16;
      diagrams += "<text class=\"section\" x=\"" + px(kMargin) + "\" y=\"" + px(y + 14) +
                  "\" font-size=\"13\" font-weight=\"bold\">Positions (numbered on their boxes)</text>\n";
      y += 26;
      for (size_t k = 0; k < diagramItems_.size(); ++k) {
        diagrams += diagram(items_[diagramItems_[k]], x, y, board);
        x += cellWidth + kDiagramGap;
      }
      width = std::max(width, x - kDiagramGap + kMargin);
      height = y + 34 + board.height + 30 + kMargin;
    }

    std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
    out += "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + fmt("%.0f", width) + "\" height=\"" +
           fmt("%.0f", height) + "\" viewBox=\"0 0 " + fmt("%.0f", width) + " " + fmt("%.0f", height) +
           "\" font-family=\"" + kFonts + "\" font-size=\"12\">\n";
    out += "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
    out += header(width);
    // Edges first, so the boxes cover their ends.
    for (const Item& it : items_)
      if (it.parent >= 0) out += edge(items_[it.parent], it);
    for (const Item& it : items_) out += it.node ? box(it) : foldRow(it);
    out += diagrams;
    out += "</svg>\n";
    return out;
  }

 private:
  // Adds n (and what is drawn below it) to items_; returns the y of its box's centre.
  double place(const OpeningNode& n, int depth, int parent, double reach, double moverValue, double& cursor) {
    const int me = int(items_.size());
    items_.push_back({});
    items_[me].node = &n;
    items_[me].depth = depth;
    items_[me].parent = parent;
    items_[me].reach = reach;
    items_[me].moverValue = moverValue;
    items_[me].x = kMargin + depth * (kBoxWidth + kColumnGap);
    std::vector<const OpeningNode*> kids;
    for (const OpeningNode& c : n.children) kids.push_back(&c);
    std::stable_sort(kids.begin(), kids.end(),
                     [](const OpeningNode* a, const OpeningNode* b) { return a->share > b->share; });
    double centre;
    if (kids.empty() || depth >= o_.foldDepth) {
      items_[me].hiddenBelow = countBelow(n);
      centre = cursor + kBoxHeight / 2;
      cursor += kNodePitch;
    } else {
      // The value of this position for the player to move here, who makes the children's moves.
      const double childMoverValue = parent < 0 ? n.winRate : 1.0 - n.winRate;
      double first = 0, last = 0;
      std::vector<const OpeningNode*> folded;
      for (size_t i = 0; i < kids.size(); ++i) {
        if (i > 0 && kids[i]->share < o_.foldShare) {
          folded.push_back(kids[i]);
          continue;
        }
        const double c = place(*kids[i], depth + 1, me, reach * kids[i]->share, childMoverValue, cursor);
        if (i == 0) first = c;
        last = c;
      }
      if (!folded.empty()) {
        Item row;
        row.folded = folded;
        row.depth = depth + 1;
        row.parent = me;
        row.x = kMargin + (depth + 1) * (kBoxWidth + kColumnGap);
        row.y = cursor;
        row.height = kFoldHeight;
        items_.push_back(row);
        last = cursor + kFoldHeight / 2;
        cursor += kFoldPitch;
      }
      centre = (first + last) / 2;
    }
    items_[me].y = centre - kBoxHeight / 2;
    return centre;
  }

  void chooseDiagrams() {
    if (!o_.diagramLines.empty()) {
      for (const std::vector<std::string>& line : o_.diagramLines) {
        const auto found = std::find_if(items_.begin(), items_.end(),
                                        [&](const Item& it) { return it.node && it.node->line == line; });
        if (found == items_.end())
          throw std::invalid_argument("diagram line '" + joined(line) +
                                      "' is not a drawn position of the tree (drawn: " + std::to_string(o_.foldDepth) +
                                      " plies, moves under the fold share folded)");
        diagramItems_.push_back(int(found - items_.begin()));
      }
    } else {
      // The drawn leaves the network is likeliest to play into.
      std::vector<int> leaves;
      for (size_t i = 0; i < items_.size(); ++i) {
        const Item& it = items_[i];
        if (!it.node || it.depth == 0) continue;
        const bool drawnChild = std::any_of(items_.begin(), items_.end(), [&](const Item& c) {
          return c.parent == int(i) && c.node;
        });
        if (!drawnChild) leaves.push_back(int(i));
      }
      std::stable_sort(leaves.begin(), leaves.end(), [&](int a, int b) { return items_[a].reach > items_[b].reach; });
      leaves.resize(std::min<size_t>(leaves.size(), size_t(o_.diagrams)));
      diagramItems_ = leaves;
    }
    for (size_t k = 0; k < diagramItems_.size(); ++k) items_[diagramItems_[k]].diagram = int(k + 1);
  }

  const char* moverOf(const Item& it) const {
    // The player who made the move into this node (the root: the side to move there).
    const int ply = int(it.node->line.size());
    return (rootSide_ + ply + (ply == 0 ? 0 : 1)) % 2 == 0 ? "sente" : "gote";
  }

  std::string header(double width) const {
    std::string out = "<text class=\"title\" x=\"" + px(kMargin) + "\" y=\"24\" font-size=\"15\" font-weight=\"bold\"" +
                      fit("Opening tree: " + tree_.variant + " from " + tree_.startSfen, 8.5, width - 2 * kMargin) +
                      ">" + common::xmlEscape("Opening tree: " + tree_.variant + " from " + tree_.startSfen) +
                      "</text>\n";
    const std::string legend[] = {
        std::string(tree_.network ? "network" : "rollout") + " search, " + std::to_string(tree_.root.playouts) +
            " playouts a position; share = the move's share of the visits, edge width = share",
        "W/D/L and win (W + D/2) for the player who made the move; moves under " + pct(o_.foldShare) +
            " share folded; " + std::to_string(o_.foldDepth) + " plies drawn",
        "box colour: the move's win rate against its position's value for the same player"};
    for (int i = 0; i < 3; ++i)
      out += "<text class=\"legend\" x=\"" + px(kMargin) + "\" y=\"" + px(44.0 + 15 * i) + "\" fill=\"#444\">" +
             common::xmlEscape(legend[i]) + "</text>\n";
    // The colour key.
    const double keyY = 44.0 + 15 * 3 - 9;
    double x = kMargin;
    for (int step = -2; step <= 2; ++step) {
      const double delta = step * kFullColour / 2;
      out += "<rect class=\"key\" x=\"" + px(x) + "\" y=\"" + px(keyY) + "\" width=\"56\" height=\"14\" fill=\"" +
             fillFor(delta) + "\" stroke=\"#999\"/>";
      out += "<text x=\"" + px(x + 28) + "\" y=\"" + px(keyY + 11) + "\" font-size=\"10\" text-anchor=\"middle\">" +
             points(delta) + " pts</text>\n";
      x += 58;
    }
    return out;
  }

  std::string edge(const Item& from, const Item& to) const {
    const double x1 = from.x + kBoxWidth, y1 = from.y + from.height / 2;
    const double x2 = to.x, y2 = to.y + to.height / 2;
    const double mx = (x1 + x2) / 2;
    double share = 0;
    if (to.node) {
      share = to.node->share;
    } else {
      for (const OpeningNode* f : to.folded) share += f->share;
    }
    return "<path d=\"M" + px(x1) + "," + px(y1) + " C" + px(mx) + "," + px(y1) + " " + px(mx) + "," + px(y2) + " " +
           px(x2) + "," + px(y2) + "\" fill=\"none\" stroke=\"#6a8caf\" stroke-opacity=\"0.7\" stroke-width=\"" +
           fmt("%.2f", std::max(1.0, kMaxEdgeWidth * share)) + "\"" + (to.node ? "" : " stroke-dasharray=\"3 3\"") +
           "/>\n";
  }

  std::string box(const Item& it) const {
    const OpeningNode& n = *it.node;
    const bool root = it.depth == 0;
    const char* mover = moverOf(it);
    const double delta = n.winRate - it.moverValue;
    std::string line1 = root ? std::string("start \u00b7 ") + mover + " to move" : n.move + " (" + mover + ")";
    std::string line1b = root ? "" : "share " + pct(n.share);
    if (tree_.recordGames > 0) line1b += (line1b.empty() ? "" : " \u00b7 ") + std::to_string(n.games) + " games";
    std::string line2 = root ? std::to_string(n.playouts) + " playouts" : joined(n.line);
    if (it.hiddenBelow > 0) line2 += " \u2026 +" + std::to_string(it.hiddenBelow) + " below";
    if (n.terminal) line2 += " \u00b7 game over";
    std::string line3 = "W/D/L " + fmt("%.0f", 100.0 * n.wdl[0]) + "/" + fmt("%.0f", 100.0 * n.wdl[1]) + "/" +
                        fmt("%.0f", 100.0 * n.wdl[2]) + " \u00b7 win " + pct(n.winRate);
    if (!root) line3 += " (" + points(delta) + ")";
    std::string title = root ? "start: " + tree_.startSfen : "line: " + joined(n.line);
    title += "\nW/D/L " + fmt("%.1f", 100.0 * n.wdl[0]) + "/" + fmt("%.1f", 100.0 * n.wdl[1]) + "/" +
             fmt("%.1f%%", 100.0 * n.wdl[2]) + " (" + mover + ")";
    if (!root) title += "\nprior " + pct(n.prior) + ", " + std::to_string(n.visits) + " visits";

    const std::string fill = root ? "#eeeeee" : fillFor(delta);
    const double tx = it.x + 7;
    std::string out = "<g class=\"node\" data-line=\"" + common::xmlEscape(joined(n.line)) + "\">\n<title>" +
                      common::xmlEscape(title) + "</title>\n";
    out += "<rect x=\"" + px(it.x) + "\" y=\"" + px(it.y) + "\" width=\"" + px(kBoxWidth) + "\" height=\"" +
           px(kBoxHeight) + "\" rx=\"5\" fill=\"" + fill + "\" stroke=\"#333\"" +
           (n.terminal ? " stroke-dasharray=\"4 3\"" : "") + "/>\n";
    out += "<text class=\"node\" x=\"" + px(tx) + "\" y=\"" + px(it.y + 14) + "\">";
    out += "<tspan font-weight=\"bold\">" + common::xmlEscape(line1) + "</tspan>";
    if (!line1b.empty()) out += "<tspan dx=\"8\">" + common::xmlEscape(line1b) + "</tspan>";
    out += "<tspan x=\"" + px(tx) + "\" dy=\"14\" font-family=\"" + kMono + "\" font-size=\"10\" fill=\"#333\"" +
           fit(line2, 6.1, kBoxWidth - 14) + ">" + common::xmlEscape(line2) + "</tspan>";
    out += "<tspan x=\"" + px(tx) + "\" dy=\"14\" font-size=\"11\"" + fit(line3, 6.3, kBoxWidth - 14) + ">" +
           common::xmlEscape(line3) + "</tspan>";
    out += "</text>\n";
    if (it.diagram > 0) out += badge(it.x + kBoxWidth - 10, it.y + 10, it.diagram);
    out += "</g>\n";
    return out;
  }

  std::string foldRow(const Item& it) const {
    double share = 0;
    std::string moves;
    for (const OpeningNode* f : it.folded) {
      share += f->share;
      moves += (moves.empty() ? "" : " \u00b7 ") + f->move + " " + pct(f->share);
    }
    const std::string text = "+" + std::to_string(it.folded.size()) + " more (" + pct(share) + "): " + moves;
    return "<text class=\"folded\" x=\"" + px(it.x + 4) + "\" y=\"" + px(it.y + 12) +
           "\" font-size=\"10\" font-style=\"italic\" fill=\"#555\"" + fit(text, 5.6, kBoxWidth + kColumnGap - 8) +
           ">" + common::xmlEscape(text) + "</text>\n";
  }

  static std::string badge(double cx, double cy, int number) {
    return "<circle class=\"badge\" cx=\"" + px(cx) + "\" cy=\"" + px(cy) + "\" r=\"8\" fill=\"#2b4a7a\"/>"
           "<text x=\"" + px(cx) + "\" y=\"" + px(cy + 4) + "\" font-size=\"11\" font-weight=\"bold\" fill=\"white\" "
           "text-anchor=\"middle\">" + std::to_string(number) + "</text>\n";
  }

  static double diagramWidth(const SvgSize& board) { return std::max(board.width, 230.0); }

  // A numbered board of the position at item `it`, its line above and its figures below.
  std::string diagram(const Item& it, double x, double y, const SvgSize& board) const {
    game::Position pos = game::Position::fromSfen(variant_, tree_.startSfen);
    for (const std::string& usi : it.node->line) pos.makeMove(pos.parseUsi(usi));
    const OpeningNode& n = *it.node;
    std::string out = "<g class=\"diagram\" data-line=\"" + common::xmlEscape(joined(n.line)) + "\">\n";
    out += badge(x + 8, y + 8, it.diagram);
    out += "<text x=\"" + px(x + 20) + "\" y=\"" + px(y + 12) + "\" font-family=\"" + kMono + "\" font-size=\"11\"" +
           fit(joined(n.line), 6.7, diagramWidth(board) - 24) + ">" + common::xmlEscape(joined(n.line)) + "</text>\n";
    out += boardSvgGroup(pos, o_.board, x, y + 22) + "\n";
    const std::string figures = "played " + pct(it.reach) + " of the time \u00b7 win " + pct(n.winRate) + " (" +
                                moverOf(it) + ")";
    out += "<text x=\"" + px(x) + "\" y=\"" + px(y + 22 + board.height + 14) + "\" font-size=\"10\" fill=\"#444\"" +
           fit(figures, 5.8, diagramWidth(board) - 4) + ">" + common::xmlEscape(figures) + "</text>\n";
    return out + "</g>\n";
  }

  const OpeningTree& tree_;
  const game::VariantPtr& variant_;
  const OpeningTreeSvgOptions& o_;
  int rootSide_ = 0;
  std::vector<Item> items_;
  std::vector<int> diagramItems_;
};

}  // namespace

std::string openingTreeSvg(const OpeningTree& tree, const game::VariantPtr& variant,
                           const OpeningTreeSvgOptions& options) {
  if (options.foldDepth < 1) throw std::invalid_argument("the fold depth must be at least 1");
  if (!(options.foldShare >= 0 && options.foldShare <= 1))
    throw std::invalid_argument("the fold share must be between 0 and 1");
  if (options.diagrams < 0 || options.diagrams > 12)
    throw std::invalid_argument("the number of board diagrams must be 0 to 12");
  if (!variant || variant->name != tree.variant)
    throw std::invalid_argument("the opening tree is of " + tree.variant + ", not of the variant given");
  return Drawer(tree, variant, options).draw();
}

}  // namespace poppy::play
