// `poppy bench search`: playouts per second of the play-time search (play::Analyzer, what
// `poppy usi`, `play` and `serve` run for each move) with a model, from the start position and
// from middle-game positions, for each number of search threads asked for. The positions are
// reached by the model itself (a few playouts a move, moves sampled by visits, seeded), so the
// bench needs no data file and gives the same positions on every run.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "apps/commands.h"
#include "common/progress_line.h"
#include "game/variant_loader.h"
#include "mcts/play_time_search.h"
#include "nn/model_header.h"
#include "nn/network_backend.h"
#include "play/analyzer.h"

namespace poppy::apps {
namespace {

struct BenchSearchOptions {
  std::string model = "models/micro/micro-v3.model";
  std::string device = "cpu";
  std::vector<int> threads = {1, 2};
  std::vector<std::string> inference = {"torch", "eigen"};
  // Leaf mate search depths to measure; empty: the play-time default (mcts/play_time_search.h).
  std::vector<int> leafMatePlies;
  double seconds = 1.0;   // per position, as `go movetime 1000`
  int positions = 20;     // middle-game positions besides the start
  int plies = 16;         // how deep into the game they are
  std::string csv = "bench_search.csv";
};

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// `count` positions `plies` into games the model plays against itself with 32 playouts a move,
// each move drawn in proportion to its visits (seeded: the same positions every run). A game
// that ends before is replaced by the next seed's.
std::vector<game::Position> middleGamePositions(const game::VariantPtr& variant, mcts::Evaluator& evaluator,
                                                int count, int plies) {
  mcts::SearchParams params;
  params.playouts = 32;
  std::vector<game::Position> out;
  for (uint64_t seed = 1; int(out.size()) < count && seed <= uint64_t(count) * 10; ++seed) {
    play::Analyzer analyzer(variant, &evaluator, params, seed);
    std::mt19937 rng{uint32_t(seed)};
    game::Position pos(variant);
    for (int ply = 0; ply < plies && !pos.outcome(200).over(); ++ply) {
      const play::Analysis a = analyzer.analyze(pos, {});
      std::vector<double> weights;
      for (const auto& m : a.moves) weights.push_back(std::max(1, m.visits));
      std::discrete_distribution<size_t> pick(weights.begin(), weights.end());
      pos.makeMove(a.moves[pick(rng)].move);
    }
    if (!pos.outcome(200).over()) out.push_back(pos);
  }
  return out;
}

void runBenchSearch(const BenchSearchOptions& o) {
  nn::ModelInfo info = nn::readModelInfo(o.model);
  const game::VariantPtr variant = game::loadVariant(info.variant);
  game::requireTwoPlayers(*variant, "poppy bench search");
  nn::setNetworkThreads(nn::kPlayTimeNetworkThreads);  // as usi and serve search
  std::vector<std::unique_ptr<mcts::Evaluator>> evaluators;
  for (const std::string& name : o.inference)
    evaluators.push_back(nn::loadModelEvaluator(o.model, variant.get(), o.device, nn::parseInference(name), &info));
  std::fprintf(stderr, "bench search: %s (%s, %d blocks x %d channels), %.2f s a position\n", o.model.c_str(),
               info.variant.c_str(), info.shape.blocks, info.shape.channels, o.seconds);

  // The positions come from the first inference setting's evaluator (all give the same network).
  std::vector<game::Position> positions{game::Position(variant)};
  for (game::Position& p : middleGamePositions(variant, *evaluators.front(), o.positions, o.plies))
    positions.push_back(std::move(p));
  const bool newCsv = !std::filesystem::exists(o.csv);
  std::ofstream csv(o.csv, std::ios::app);
  if (!csv) throw std::runtime_error("cannot write " + o.csv);
  if (newCsv) csv << "model,inference,threads,position,sfen,playouts,seconds,playouts_per_second,cache_hits,network_leaves,leaf_mate_plies\n";

  struct Row {
    std::string inference;
    int leafMate, threads;
    double start, middle;
    double cacheShare;  // leaves answered by the cache (transpositions), of all leaves evaluated
  };
  std::vector<Row> rows;
  common::ProgressLine progress;
  const std::vector<int> leafDepths =
      o.leafMatePlies.empty() ? std::vector<int>{mcts::playTimeSearchParams().leafMatePlies} : o.leafMatePlies;
  const int total = int(o.inference.size() * leafDepths.size() * o.threads.size() * positions.size());
  int done = 0;
  for (size_t e = 0; e < evaluators.size(); ++e)
    for (int leafMate : leafDepths)
    for (int threads : o.threads) {
      // The search that plays (usi, play, serve), with this leaf mate depth.
      mcts::SearchParams params = mcts::playTimeSearchParams();
      params.leafMatePlies = leafMate;
      play::Analyzer analyzer(variant, evaluators[e].get(), params);
      analyzer.setThreads(threads);
      play::SearchLimits limits;
      limits.seconds = o.seconds;
      std::vector<double> middle;
      double start = 0;
      int64_t hits = 0, leaves = 0;
      for (size_t i = 0; i < positions.size(); ++i) {
        const play::Analysis a = analyzer.analyze(positions[i], limits);
        // Without tree reuse each search starts with empty caches: these are this search's.
        hits += analyzer.cacheHits();
        leaves += analyzer.cacheHits() + analyzer.cacheMisses();
        const double rate = a.seconds > 0 ? double(a.playouts) / a.seconds : 0;
        if (i == 0) {
          start = rate;
        } else {
          middle.push_back(rate);
        }
        csv << o.model << ',' << o.inference[e] << ',' << threads << ',' << (i == 0 ? std::string("start") : "middle-" + std::to_string(i)) << ','
            << positions[i].sfen() << ',' << a.playouts << ',' << a.seconds << ',' << rate << ',' << analyzer.cacheHits() << ','
            << analyzer.cacheMisses() << ',' << leafMate << '\n';
        ++done;
        std::ostringstream line;
        line << "bench search: " << done << '/' << total << " searches, " << o.inference[e] << ", leaf mate " << leafMate
             << ", " << threads
             << " thread(s), last "
             << int(rate) << " playouts/s, about " << int((total - done) * o.seconds) << " s left";
        progress.update(line.str(), done == total);
      }
      rows.push_back({o.inference[e], leafMate, threads, start, median(middle),
                      leaves > 0 ? double(hits) / double(leaves) : 0.0});
    }
  progress.finish();
  std::printf("%-10s %-10s %-8s %16s %24s %10s %12s\n", "inference", "leaf mate", "threads", "start pos/s",
              "middle-game median pos/s", "vs first", "from cache");
  for (const Row& r : rows)
    std::printf("%-10s %-10d %-8d %16.0f %24.0f %9.2fx %11.1f%%\n", r.inference.c_str(), r.leafMate, r.threads, r.start, r.middle,
                rows.front().middle > 0 ? r.middle / rows.front().middle : 0.0, 100 * r.cacheShare);
  std::printf("(%zu middle-game positions, %d plies in; figures appended to %s)\n", positions.size() - 1, o.plies,
              o.csv.c_str());
}

}  // namespace

void addSearchBench(CLI::App* bench) {
  auto o = std::make_shared<BenchSearchOptions>();
  CLI::App* cmd = bench->add_subcommand(
      "search", "Playouts per second of the play-time search (usi, play, serve) with a model, by search threads");
  cmd->add_option("--model", o->model, "Model file")->check(CLI::ExistingFile)->capture_default_str();
  cmd->add_option("--device", o->device, "cpu, cuda or cuda:N")->capture_default_str();
  cmd->add_option("--threads", o->threads, "Search thread counts to measure")
      ->check(CLI::Range(1, 256))
      ->delimiter(',')
      ->capture_default_str();
  cmd->add_option("--inference", o->inference, "Inference settings to measure (auto, torch, eigen, int8)")
      ->check(CLI::IsMember({"auto", "torch", "eigen", "int8"}))
      ->delimiter(',')
      ->capture_default_str();
  cmd->add_option("--leaf-mate-plies", o->leafMatePlies,
                  "Leaf mate search depths to measure (0, 1 or 3; default: the play-time default)")
      ->check(CLI::IsMember({0, 1, 3}))
      ->delimiter(',');
  cmd->add_option("--seconds", o->seconds, "Search time per position")->check(CLI::Range(0.01, 600.0))->capture_default_str();
  cmd->add_option("--positions", o->positions, "Middle-game positions besides the start")
      ->check(CLI::Range(0, 1000))
      ->capture_default_str();
  cmd->add_option("--plies", o->plies, "Plies into the game of those positions")->check(CLI::Range(1, 200))->capture_default_str();
  cmd->add_option("--csv", o->csv, "Append every search to this CSV file")->capture_default_str();
  cmd->callback([o] { runBenchSearch(*o); });
}

}  // namespace poppy::apps
