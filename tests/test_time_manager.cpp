// play::moveBudget / clockBudgetMs: how long `poppy usi` thinks. The rule under test is that a
// budget never reaches the time left on the clock (plus byoyomi), whatever the GUI sends.
#include <gtest/gtest.h>

#include "play/engines/time_manager.h"

namespace poppy::play {
namespace {

TEST(TimeManager, NeverReachesTheTimeLeft) {
  const int64_t remainings[] = {-5, 0, 1, 3, 5, 20, 50, 100, 150, 1000, 10000, 60000, 3600000};
  const int64_t increments[] = {0, 1, 500, 10000, 100000};
  const int64_t byoyomis[] = {0, 1, 100, 1000, 10000, 60000};
  const int64_t overheads[] = {0, 30, 100, 1000};
  for (int64_t r : remainings)
    for (int64_t inc : increments)
      for (int64_t byo : byoyomis)
        for (int64_t overhead : overheads) {
          TimeSettings s;
          s.overheadMs = overhead;
          const int64_t hard = std::max<int64_t>(0, r) + byo;
          const int64_t ms = clockBudgetMs(r, inc, byo, s);
          SCOPED_TRACE(::testing::Message() << "remaining " << r << " inc " << inc << " byoyomi " << byo
                                            << " overhead " << overhead << " budget " << ms);
          EXPECT_GE(ms, 0);
          if (hard > 0) {
            EXPECT_LT(ms, hard);
          }
          // Whenever the latency margin fits, the budget keeps it (and byoyomi's 10%) in hand.
          const int64_t safe = std::max<int64_t>(0, r) + byo * 9 / 10 - overhead;
          if (safe >= s.minimumMs) {
            EXPECT_LE(ms, safe);
          }
          // The same through a `go` command, for both sides.
          GoLimits go;
          go.btime = r;
          go.binc = inc;
          go.byoyomi = byo;
          const MoveBudget b = moveBudget(go, 0, s);
          EXPECT_TRUE(b.timed);
          EXPECT_GT(b.seconds, 0);  // 0 would mean "no limit"
          if (hard > 0) {
            EXPECT_LT(b.seconds * 1000, double(hard));
          }
          if (hard == 0) {
            EXPECT_EQ(b.playouts, 1);
          }
        }
}

TEST(TimeManager, SuddenDeathSpendsATwentiethAndIncrements) {
  TimeSettings s;
  s.overheadMs = 100;
  EXPECT_EQ(clockBudgetMs(60000, 0, 0, s), 60000 / 20);
  EXPECT_EQ(clockBudgetMs(60000, 5000, 0, s), 60000 / 20 + 5000 * 8 / 10);
  // A large increment with little time left: capped by the time left less the latency.
  EXPECT_EQ(clockBudgetMs(1000, 10000, 0, s), 1000 - 100);
  // More time or more increment never means a shorter budget.
  int64_t previous = 0;
  for (int64_t r = 0; r <= 100000; r += 250) {
    const int64_t ms = clockBudgetMs(r, 1000, 0, s);
    EXPECT_GE(ms, previous) << r;
    previous = ms;
  }
}

TEST(TimeManager, ByoyomiKeepsTenPercentAndTheLatency) {
  TimeSettings s;
  s.overheadMs = 100;
  // Main time spent: the byoyomi less 10% and the latency.
  EXPECT_EQ(clockBudgetMs(0, 0, 10000, s), 9000 - 100);
  // Main time left as well: a share of it on top of the byoyomi.
  EXPECT_EQ(clockBudgetMs(20000, 0, 10000, s), 20000 / 20 + 9000 - 100);
  // A byoyomi shorter than the latency: a quarter of it, still an answer in time.
  const int64_t tiny = clockBudgetMs(0, 0, 80, s);
  EXPECT_GT(tiny, 0);
  EXPECT_LT(tiny, 80);
}

TEST(TimeManager, MovetimeNodesAndInfinite) {
  TimeSettings s;
  s.overheadMs = 100;
  GoLimits go;
  go.movetime = 5000;
  go.btime = 1000000;  // movetime wins over the clock
  MoveBudget b = moveBudget(go, 0, s);
  EXPECT_TRUE(b.timed);
  EXPECT_DOUBLE_EQ(b.seconds, 4.9);
  go = GoLimits{};
  go.movetime = 40;  // shorter than the latency
  b = moveBudget(go, 0, s);
  EXPECT_GT(b.seconds, 0);
  EXPECT_LT(b.seconds, 0.040);

  go = GoLimits{};
  go.nodes = 1234;
  b = moveBudget(go, 1, s);
  EXPECT_EQ(b.playouts, 1234);
  EXPECT_FALSE(b.timed);
  EXPECT_EQ(b.seconds, 0);

  go = GoLimits{};
  b = moveBudget(go, 0, s);  // bare `go`: no limit from here, the engine's Playouts apply
  EXPECT_FALSE(b.timed);
  EXPECT_EQ(b.playouts, 0);
  EXPECT_FALSE(b.infinite);

  go.infinite = true;
  EXPECT_TRUE(moveBudget(go, 0, s).infinite);
  go = GoLimits{};
  go.ponder = true;
  go.btime = go.wtime = 60000;
  EXPECT_TRUE(moveBudget(go, 0, s).infinite);
}

TEST(TimeManager, EachSideReadsItsOwnClock) {
  TimeSettings s;
  s.overheadMs = 0;
  GoLimits go;
  go.btime = 100000;
  go.wtime = 2000;
  go.binc = 0;
  go.winc = 0;
  EXPECT_DOUBLE_EQ(moveBudget(go, 0, s).seconds, 100000 / 20 / 1000.0);
  EXPECT_DOUBLE_EQ(moveBudget(go, 1, s).seconds, 2000 / 20 / 1000.0);
}

}  // namespace
}  // namespace poppy::play
