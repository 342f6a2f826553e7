// play/game_clock: byoyomi and Fischer clocks, worked through by hand on a millisecond counter.
#include <gtest/gtest.h>

#include <stdexcept>

#include "common/game_clock.h"

namespace poppy {
namespace {

TEST(GameClock, ParsesTheClockNotations) {
  common::ClockSettings s = common::parseClock("5m+10s");
  EXPECT_EQ(s.mainMs, 300000);
  EXPECT_EQ(s.incrementMs, 10000);
  EXPECT_EQ(s.byoyomiMs, 0);
  s = common::parseClock(" 10m / 30s ");
  EXPECT_EQ(s.mainMs, 600000);
  EXPECT_EQ(s.byoyomiMs, 30000);
  EXPECT_EQ(common::parseClock("90").mainMs, 90000);  // seconds by default
  EXPECT_EQ(common::parseClock("1.5m").mainMs, 90000);
  EXPECT_EQ(common::parseClock("0/30s").byoyomiMs, 30000);  // byoyomi only
  EXPECT_FALSE(common::parseClock("none").enabled());
  EXPECT_FALSE(common::parseClock("").enabled());
  for (const char* bad : {"5m+10s/3s", "5q", "m", "-5m", "0", "5m+"}) EXPECT_THROW(common::parseClock(bad), std::invalid_argument) << bad;
  EXPECT_EQ(common::clockText(common::parseClock("5m/30s")), "5:00 + 30s byoyomi");
  EXPECT_EQ(common::clockText(common::parseClock("3m+2s")), "3:00 + 2s a move");
  EXPECT_EQ(common::formatClockMs(9400), "0:09.4");
  EXPECT_EQ(common::formatClockMs(272000), "4:32");
  EXPECT_EQ(common::formatClockMs(3723000), "1:02:03");
}

// 10 s main time + 5 s byoyomi.
TEST(GameClock, ByoyomiStartsAfreshEachMove) {
  common::GameClock c(common::parseClock("10s/5s"));
  c.start(0, 0);
  EXPECT_TRUE(c.moved(4000));  // sente 4 s: 6 s main left
  EXPECT_EQ(c.mainLeftMs(0, 4000), 6000);
  c.start(1, 4000);
  EXPECT_TRUE(c.moved(4000 + 14000));  // gote 14 s: its 10 s, then 4 of its 5 s byoyomi
  EXPECT_EQ(c.mainLeftMs(1, 18000), 0);
  c.start(0, 18000);
  EXPECT_EQ(c.mainLeftMs(0, 20000), 4000);     // running: 2 s used of 6
  EXPECT_EQ(c.byoyomiLeftMs(0, 20000), 5000);  // byoyomi untouched while main time lasts
  EXPECT_TRUE(c.moved(18000 + 11000));         // 6 s main + 5 s byoyomi: exactly in time
  c.start(1, 29000);
  EXPECT_EQ(c.byoyomiLeftMs(1, 31000), 3000);  // gote in byoyomi: the period counts down afresh
  EXPECT_FALSE(c.flagged(1, 29000 + 5000));
  EXPECT_TRUE(c.flagged(1, 29000 + 5001));
  EXPECT_EQ(c.flagAtMs(30000), 34000);
  EXPECT_FALSE(c.moved(29000 + 6000));  // too late
}

// 10 s + 2 s a move.
TEST(GameClock, FischerAddsTheIncrementAfterEachMove) {
  common::GameClock c(common::parseClock("10s+2s"));
  c.start(0, 0);
  EXPECT_TRUE(c.moved(3000));
  EXPECT_EQ(c.mainLeftMs(0, 3000), 9000);  // 10 - 3 + 2
  c.start(1, 3000);
  EXPECT_TRUE(c.moved(3000 + 10000));      // exactly all of it
  EXPECT_EQ(c.mainLeftMs(1, 13000), 2000); // 0 + 2
  c.start(0, 13000);
  EXPECT_TRUE(c.flagged(0, 13000 + 9001));
  EXPECT_EQ(c.running(), 0);
  c.stop();
  EXPECT_EQ(c.running(), -1);
  EXPECT_FALSE(c.flagged(0, 99999999));  // a stopped clock charges no one
}

}  // namespace
}  // namespace poppy
