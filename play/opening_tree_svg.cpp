// The SVG drawing of an opening tree: plies run left to right, one column per ply; leaves take
// one row each and an inner node sits level with the middle of its children. A box shows the
// move, its visit share and win rate (coloured from red, 0%, to green, 100%, mover's view); an
// edge is as thick as the move's share. Hovering a box shows its whole line and W/D/L.
#include <algorithm>
#include <cstdio>
#include <string>
#include <unordered_map>
#include <vector>

#include "play/opening_tree.h"

#include "common/xml_escape.h"

namespace poppy::play {

namespace {

constexpr double kBoxWidth = 164, kBoxHeight = 50, kColumnGap = 70, kRowHeight = 62, kMargin = 20,
                 kHeader = 74, kMaxEdgeWidth = 14;

std::string fmt(const char* format, double a) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, a);
  return buf;
}

std::string pct(double x) { return fmt("%.0f%%", 100.0 * x); }

struct Placed {
  const OpeningNode* node;
  double x, y;  // the box's top-left corner
};

class Drawer {
 public:
  explicit Drawer(const OpeningTree& tree) : tree_(tree) {
    rootSide_ = tree.startSfen.find(" w ") != std::string::npos ? 1 : 0;
  }

  std::string draw() {
    double nextRow = 0;
    place(tree_.root, 0, nextRow);
    int depth = 0;
    for (const Placed& p : placed_) depth = std::max<int>(depth, int(p.node->line.size()));
    // At least wide enough for the legend lines.
    const double width = std::max(560.0, 2 * kMargin + (depth + 1) * kBoxWidth + depth * kColumnGap);
    const double height = kHeader + std::max(1.0, nextRow) * kRowHeight + kMargin;
    std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
    out += "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + fmt("%.0f", width) + "\" height=\"" +
           fmt("%.0f", height) + "\" viewBox=\"0 0 " + fmt("%.0f", width) + " " + fmt("%.0f", height) +
           "\" font-family=\"sans-serif\" font-size=\"12\">\n";
    out += "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
    out += "<text class=\"title\" x=\"" + fmt("%.0f", kMargin) + "\" y=\"22\" font-size=\"15\" font-weight=\"bold\">" +
           common::xmlEscape("Opening tree: " + tree_.variant + " from " + tree_.startSfen) + "</text>\n";
    const std::string legend[] = {
        std::string(tree_.network ? "network" : "rollout") + " search, " + std::to_string(tree_.root.playouts) +
            " playouts per position; share = visit share, edge width = share",
        "win = W + D/2 for the player who made the move (box colour: red 0%, green 100%)"};
    for (int i = 0; i < 2; ++i)
      out += "<text class=\"legend\" x=\"" + fmt("%.0f", kMargin) + "\" y=\"" + fmt("%.0f", 42.0 + 16 * i) +
             "\" fill=\"#444\">" + common::xmlEscape(legend[i]) + "</text>\n";
    // Edges first, so the boxes cover their ends.
    for (const Placed& p : placed_)
      for (const OpeningNode& c : p.node->children) edge(p, at(&c), c.share, out);
    for (const Placed& p : placed_) box(p, out);
    out += "</svg>\n";
    return out;
  }

 private:
  // Places n and its subtree; returns the y of n's box. Leaves take the next free row.
  double place(const OpeningNode& n, int column, double& nextRow) {
    double y;
    if (n.children.empty()) {
      y = kHeader + nextRow * kRowHeight;
      nextRow += 1;
    } else {
      double first = 0, last = 0;
      for (size_t i = 0; i < n.children.size(); ++i) {
        const double cy = place(n.children[i], column + 1, nextRow);
        if (i == 0) first = cy;
        last = cy;
      }
      y = (first + last) / 2;
    }
    index_[&n] = placed_.size();
    placed_.push_back({&n, kMargin + column * (kBoxWidth + kColumnGap), y});
    return y;
  }

  const Placed& at(const OpeningNode* n) const { return placed_[index_.at(n)]; }

  void edge(const Placed& from, const Placed& to, double share, std::string& out) const {
    const double x1 = from.x + kBoxWidth, y1 = from.y + kBoxHeight / 2;
    const double x2 = to.x, y2 = to.y + kBoxHeight / 2;
    const double mx = (x1 + x2) / 2;
    out += "<path d=\"M" + fmt("%.1f", x1) + "," + fmt("%.1f", y1) + " C" + fmt("%.1f", mx) + "," +
           fmt("%.1f", y1) + " " + fmt("%.1f", mx) + "," + fmt("%.1f", y2) + " " + fmt("%.1f", x2) + "," +
           fmt("%.1f", y2) + "\" fill=\"none\" stroke=\"#6a8caf\" stroke-opacity=\"0.75\" stroke-width=\"" +
           fmt("%.2f", std::max(1.0, kMaxEdgeWidth * share)) + "\"/>\n";
  }

  void box(const Placed& p, std::string& out) const {
    const OpeningNode& n = *p.node;
    const bool root = n.line.empty();
    const int ply = int(n.line.size());
    const char* mover = (rootSide_ + ply + (root ? 0 : 1)) % 2 == 0 ? "sente" : "gote";
    std::string line1 = root ? std::string("start") : n.move + " (" + mover + ")";
    std::string line2 = root ? std::string(mover) + " to move \u00b7 win " + pct(n.winRate)
                             : "share " + pct(n.share) + " \u00b7 win " + pct(n.winRate);
    std::string line3 = root ? std::to_string(n.playouts) + " playouts" : "prior " + pct(n.prior);
    if (tree_.recordGames > 0) line3 += " \u00b7 games " + std::to_string(n.games);
    if (n.terminal) line3 += " \u00b7 game over";
    std::string title = root ? "start: " + tree_.startSfen : "line:";
    for (const std::string& m : n.line) title += " " + m;
    title += fmt("\nW/D/L %.1f", 100.0 * n.wdl[0]) + fmt("/%.1f", 100.0 * n.wdl[1]) +
             fmt("/%.1f%%", 100.0 * n.wdl[2]) + " (" + mover + ")";
    // Hue 0 (red) at a 0% win rate to 120 (green) at 100%.
    const std::string fill = "hsl(" + fmt("%.0f", 120.0 * std::clamp<double>(n.winRate, 0, 1)) + ",70%,86%)";
    out += "<g class=\"node\">\n<title>" + common::xmlEscape(title) + "</title>\n";
    out += "<rect x=\"" + fmt("%.1f", p.x) + "\" y=\"" + fmt("%.1f", p.y) + "\" width=\"" + fmt("%.0f", kBoxWidth) +
           "\" height=\"" + fmt("%.0f", kBoxHeight) + "\" rx=\"6\" fill=\"" + fill + "\" stroke=\"#333\"" +
           (n.terminal ? " stroke-dasharray=\"4 3\"" : "") + "/>\n";
    const double tx = p.x + 8;
    out += "<text class=\"node\" x=\"" + fmt("%.1f", tx) + "\" y=\"" + fmt("%.1f", p.y + 15) + "\">";
    out += "<tspan font-weight=\"bold\">" + common::xmlEscape(line1) + "</tspan>";
    out += "<tspan x=\"" + fmt("%.1f", tx) + "\" dy=\"15\">" + common::xmlEscape(line2) + "</tspan>";
    out += "<tspan x=\"" + fmt("%.1f", tx) + "\" dy=\"15\" fill=\"#444\">" + common::xmlEscape(line3) + "</tspan>";
    out += "</text>\n</g>\n";
  }

  const OpeningTree& tree_;
  int rootSide_ = 0;
  std::vector<Placed> placed_;
  std::unordered_map<const OpeningNode*, size_t> index_;
};

}  // namespace

std::string openingTreeSvg(const OpeningTree& tree) { return Drawer(tree).draw(); }

}  // namespace poppy::play
