// common/progress_line.h: rewritten in place on a terminal, a full line every few seconds into
// a pipe. Times are given to update() so the test needs no waiting.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "common/progress_line.h"

using poppy::common::ProgressLine;

namespace {

// What the lines written by `body` look like, captured through a memory stream.
template <typename Body>
std::string captured(bool terminal, Body body) {
  char* data = nullptr;
  size_t size = 0;
  std::FILE* f = open_memstream(&data, &size);
  {
    ProgressLine line(f, terminal, 5.0);
    body(line);
  }
  std::fclose(f);
  std::string out(data, size);
  std::free(data);
  return out;
}

}  // namespace

TEST(ProgressLine, IntoAPipeAFullLineEveryFewSecondsAndTheLastOne) {
  const std::string out = captured(false, [](ProgressLine& p) {
    for (int i = 0; i <= 1000; ++i) p.update(std::to_string(i) + "/1000 games", i == 1000, i * 0.012);  // 12 s
  });
  // Shown at 0 s, 5.004 s (i = 417), 10.008 s (i = 834), and the last one: four lines, no \r.
  EXPECT_EQ(out, "0/1000 games\n417/1000 games\n834/1000 games\n1000/1000 games\n");
}

TEST(ProgressLine, OnATerminalRewrittenInPlaceAndEndedOnce) {
  const std::string out = captured(true, [](ProgressLine& p) {
    p.update("1/3", false, 0.0);
    p.update("2/3", false, 0.05);  // within a tenth of a second: skipped
    p.update("3/3", true, 0.06);   // the last one always shows
    p.finish();
    p.finish();
  });
  EXPECT_EQ(out, "\r\033[K1/3\r\033[K3/3\n");
}

TEST(ProgressLine, NothingShownNothingWritten) {
  EXPECT_EQ(captured(true, [](ProgressLine&) {}), "");
}

// Issue 39 (13): `records export` wrote "0 of 1 games written" twice into a file: the first
// update and the final one carried the same text. A pipe gets each line once; a terminal, whose
// line is rewritten in place, is unaffected.
TEST(ProgressLine, IntoAPipeTheSameLineIsNotWrittenTwice) {
  const std::string out = captured(false, [](ProgressLine& p) {
    p.update("0 of 1 games written", false, 0.0);
    p.update("0 of 1 games written", true, 0.1);
  });
  EXPECT_EQ(out, "0 of 1 games written\n");
  const std::string changed = captured(false, [](ProgressLine& p) {
    p.update("0 of 1 games written", false, 0.0);
    p.update("1 of 1 games written", true, 0.1);
  });
  EXPECT_EQ(changed, "0 of 1 games written\n1 of 1 games written\n");
}
