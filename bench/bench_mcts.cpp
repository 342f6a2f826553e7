// Search overhead benchmark (prints figures, never fails): self-play with the uniform evaluator,
// so the time is all search (selection, make/unmake, movegen, encoding, backup), no network.
// Usage: bench_mcts [variant=micro] [games=64] [playouts=128] [maxBatch=256] [cacheLog2=0]
// Plays `games` games at once to the end (ply cap 200), moves by temperature 1 for 10 plies
// then most visits, with tree reuse, and reports playouts per second on one thread.
#include <chrono>
#include <cstdio>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "game/variant_loader.h"
#include "mcts/search.h"

using namespace poppy;

int main(int argc, char** argv) {
  const std::string variant = argc > 1 ? argv[1] : "micro";
  const int games = argc > 2 ? std::stoi(argv[2]) : 64;
  const int playouts = argc > 3 ? std::stoi(argv[3]) : 128;
  const int maxBatch = argc > 4 ? std::stoi(argv[4]) : 256;
  const int cacheLog2 = argc > 5 ? std::stoi(argv[5]) : 0;

  const game::VariantPtr v = game::loadVariant(variant);
  const nn::Encoder encoder(v);
  mcts::UniformEvaluator eval(encoder.policySize());
  std::unique_ptr<mcts::EvalCache> cache;
  if (cacheLog2 > 0) cache = std::make_unique<mcts::EvalCache>(cacheLog2);
  mcts::SearchDriver driver(eval, encoder, maxBatch, cache.get());

  mcts::SearchParams params;
  params.playouts = playouts;
  params.rootNoise = true;
  std::vector<std::unique_ptr<mcts::Tree>> trees;
  for (int g = 0; g < games; ++g)
    trees.push_back(std::make_unique<mcts::Tree>(game::Position(v), params, uint64_t(g)));
  std::mt19937 rng(1);

  const auto start = std::chrono::steady_clock::now();
  int64_t moves = 0;
  for (;;) {
    std::vector<mcts::Tree*> live;
    for (auto& t : trees)
      if (!t->rootIsTerminal()) live.push_back(t.get());
    if (live.empty()) break;
    driver.search(live, playouts);
    for (mcts::Tree* t : live) {
      const float temperature = t->rootPosition().gamePly() < 10 ? 1.0f : 0.0f;
      t->advance(t->pickMove(temperature, rng));
      ++moves;
    }
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const auto& s = driver.stats();
  const int64_t done = s.evaluations + s.terminals + s.cacheHits;
  std::printf("%s: %d games, %lld moves (%.1f plies/game), %d playouts/move, batch <= %d\n", variant.c_str(),
              games, (long long)moves, double(moves) / games, playouts, maxBatch);
  std::printf("  %.2f s total, %.3f s in the evaluator (%.1f%%)\n", seconds, s.evalSeconds,
              100.0 * s.evalSeconds / s.totalSeconds);
  std::printf("  new playouts %lld (%lld network leaves in %lld batches, avg %.1f; %lld terminal; %lld cache hits;"
              " %lld collisions)\n",
              (long long)done, (long long)s.evaluations, (long long)s.batches,
              double(s.evaluations) / double(std::max<int64_t>(1, s.batches)), (long long)s.terminals,
              (long long)s.cacheHits, (long long)s.collisions);
  std::printf("  %.0f playouts/s of search overhead (one thread), %.0f games/hour without a network\n",
              double(done) / (s.totalSeconds - s.evalSeconds), 3600.0 * games / seconds);
  return 0;
}
