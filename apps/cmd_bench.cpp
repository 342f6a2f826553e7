// `poppy bench ...`: benchmarks that print figures (never pass/fail). `bench perft` times the
// move generator on start-position perft, optionally beside Fairy-Stockfish on the same machine,
// and chu beside lishogi's shogiops (tests/reference/shogiops, installed by scripts/setup.sh).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "apps/commands.h"
#include "game/perft.h"
#include "game/variant_loader.h"
#include "play/engines/usi_notation.h"

namespace poppy::apps {
namespace {

struct BenchPerftOptions {
  std::vector<std::string> cases = {"micro:7", "minishogi:6", "shogi:5", "chu:4"};
  int runs = 5;
  std::string csv = "bench_perft.csv";
  std::string fairy = "/usr/games/fairy-stockfish";
  std::string shogiops = std::string(POPPY_SOURCE_DIR) + "/tests/reference/shogiops";
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// Fairy-Stockfish's name for our variant, or "" where it has none.
std::string fairyName(const std::string& variant) {
  for (const char* played : {"micro", "minishogi", "kyoto", "judkins", "gorogoro", "tori", "shogi"})
    if (variant == played) return play::fairyVariantName(variant);
  return "";
}

// Wall time of `go perft depth` in a Fairy-Stockfish process, start-up subtracted; <0 if it fails.
double timeFairy(const std::string& exe, const std::string& variant, int depth, unsigned long long expected) {
  auto run = [&](int d, unsigned long long* nodes) {
    const std::string cmd = "printf 'setoption name UCI_Variant value " + variant +
                            "\\nposition startpos\\ngo perft " + std::to_string(d) + "\\nquit\\n' | " + exe +
                            " 2>/dev/null";
    const auto start = std::chrono::steady_clock::now();
    FILE* pipe = popen(cmd.c_str(), "r");
    if (!pipe) return -1.0;
    char line[512];
    while (std::fgets(line, sizeof line, pipe))
      std::sscanf(line, "Nodes searched: %llu", nodes);
    if (pclose(pipe) != 0) return -1.0;
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  unsigned long long nodes = 0, ignored = 0;
  const double startup = run(1, &ignored);
  const double total = run(depth, &nodes);
  if (startup < 0 || total < 0 || nodes != expected) return -1.0;
  return std::max(total - startup, 1e-9);
}

// shogiops' own chu perft (it counts lion moves by path, so more nodes than Poppy's distinct
// positions) timed inside node, start-up excluded: {nodes, seconds}, seconds < 0 if it fails.
std::pair<unsigned long long, double> timeShogiops(const std::string& dir, int depth, const std::string& sfen) {
  const std::string cmd = "node '" + dir + "/chu_perft.mjs' raw " + std::to_string(depth) + " '" + sfen + "' 2>/dev/null";
  FILE* pipe = popen(cmd.c_str(), "r");
  if (!pipe) return {0, -1.0};
  unsigned long long nodes = 0;
  double seconds = -1.0;
  char line[256];
  while (std::fgets(line, sizeof line, pipe)) std::sscanf(line, "%llu %lf", &nodes, &seconds);
  if (pclose(pipe) != 0) return {0, -1.0};
  return {nodes, seconds};
}

void runBenchPerft(const BenchPerftOptions& o) {
  using namespace poppy::game;
  std::ofstream csv(o.csv, std::ios::app);
  const bool haveFairy = !o.fairy.empty() && std::ifstream(o.fairy).good();
  if (!haveFairy) std::printf("(Fairy-Stockfish not found at '%s': comparison skipped)\n", o.fairy.c_str());
  const std::time_t now = std::time(nullptr);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%S", std::localtime(&now));
  double worstRatio = 1e300, worstRate = 1e300;
  for (const std::string& c : o.cases) {
    const auto colon = c.find(':');
    if (colon == std::string::npos) throw std::runtime_error("bench case '" + c + "' must be VARIANT:DEPTH");
    const std::string name = c.substr(0, colon);
    const int depth = std::stoi(c.substr(colon + 1));
    Position pos(loadVariant(name));
    std::vector<double> ours, theirs;
    uint64_t nodes = 0;
    for (int r = 0; r < o.runs; ++r) {
      const auto start = std::chrono::steady_clock::now();
      nodes = perft(pos, depth);
      const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      ours.push_back(s);
      csv << stamp << ",poppy," << name << ',' << depth << ',' << nodes << ',' << s << '\n';
      std::printf("  %s perft %d run %d: %llu nodes in %.3f s (%.2f M nodes/s)\n", name.c_str(), depth, r + 1,
                  static_cast<unsigned long long>(nodes), s, nodes / s / 1e6);
      std::fflush(stdout);
    }
    const std::string fname = fairyName(name);
    if (haveFairy && !fname.empty())
      for (int r = 0; r < o.runs; ++r) {
        const double s = timeFairy(o.fairy, fname, depth, nodes);
        if (s < 0) {
          std::printf("  fairy-stockfish did not give %llu nodes for %s: comparison skipped\n",
                      static_cast<unsigned long long>(nodes), name.c_str());
          theirs.clear();
          break;
        }
        theirs.push_back(s);
        csv << stamp << ",fairy-stockfish," << name << ',' << depth << ',' << nodes << ',' << s << '\n';
        std::printf("  fairy-stockfish %s perft %d run %d: %.3f s (%.2f M nodes/s)\n", name.c_str(), depth, r + 1, s,
                    nodes / s / 1e6);
        std::fflush(stdout);
      }
    if (name == "chu" && !o.shogiops.empty()) {
      std::vector<double> rates;
      for (int r = 0; r < std::min(o.runs, 3); ++r) {  // 14 s a run at depth 4
        const auto [n, s] = timeShogiops(o.shogiops, depth, pos.sfen());
        if (s <= 0) {
          std::printf("  shogiops (node, %s/chu_perft.mjs) did not run: comparison skipped\n", o.shogiops.c_str());
          rates.clear();
          break;
        }
        rates.push_back(n / s);
        csv << stamp << ",shogiops," << name << ',' << depth << ',' << n << ',' << s << '\n';
        std::printf("  shogiops chu perft %d run %d: %llu nodes (lion moves by path) in %.3f s (%.3f M nodes/s)\n",
                    depth, r + 1, n, s, n / s / 1e6);
        std::fflush(stdout);
      }
      if (!rates.empty())
        std::printf("chu: poppy %.2f M nodes/s, shogiops %.3f M nodes/s (each on its own count): %.1fx\n",
                    nodes / median(ours) / 1e6, median(rates) / 1e6, nodes / median(ours) / median(rates));
    }
    const double rate = nodes / median(ours) / 1e6;
    worstRate = std::min(worstRate, rate);
    std::printf("%s perft %d: %llu nodes, median %.3f s = %.2f M nodes/s", name.c_str(), depth,
                static_cast<unsigned long long>(nodes), median(ours), rate);
    if (!theirs.empty()) {
      const double ratio = median(theirs) / median(ours);
      worstRatio = std::min(worstRatio, ratio);
      std::printf("; fairy-stockfish %.2f M nodes/s; ratio %.2fx", nodes / median(theirs) / 1e6, ratio);
    }
    std::printf("\n");
  }
  if (worstRatio < 1e300)
    std::printf("lowest speed ratio poppy/fairy-stockfish: %.2fx\n", worstRatio);
  else
    std::printf("lowest rate: %.2f M nodes/s\n", worstRate);
}

}  // namespace

void addBenchCommand(CLI::App& app) {
  CLI::App* bench = app.add_subcommand("bench", "Benchmarks that print figures");
  bench->require_subcommand(1);
  auto o = std::make_shared<BenchPerftOptions>();
  CLI::App* perftCmd = bench->add_subcommand(
      "perft", "Single-threaded start-position perft, median of several runs, beside Fairy-Stockfish if installed");
  perftCmd->add_option("--case", o->cases, "VARIANT:DEPTH, repeatable")->capture_default_str();
  perftCmd->add_option("--runs", o->runs, "Runs per case (the median is reported)")
      ->check(CLI::Range(1, 100))
      ->capture_default_str();
  perftCmd->add_option("--csv", o->csv, "Append every run to this CSV file")->capture_default_str();
  perftCmd->add_option("--fairy", o->fairy, "Fairy-Stockfish binary to compare with ('' to skip)")
      ->capture_default_str();
  perftCmd->add_option("--shogiops", o->shogiops,
                       "Directory of tests/reference/shogiops to time chu against ('' to skip)")
      ->capture_default_str();
  perftCmd->callback([o] { runBenchPerft(*o); });
  addNetworkBenches(bench);
  addSearchBench(bench);
}

}  // namespace poppy::apps
