// The live terminal view: its lines, the in-place redraw, and the sweep's character plot.

#include "tokenbench/report/live_view.h"

#include <gtest/gtest.h>

#include <cmath>

namespace tokenbench::report {
namespace {

TEST(LiveView, LinesSayProgressLoadAndRecentLatency) {
  LiveFrame f;
  f.elapsed_s = 75;
  f.eta_s = 30;
  f.done = 120;
  f.total = 200;
  f.in_flight = 16;
  f.failed = 2;
  f.output_tps = 1234.4;
  f.ttft_p50_ms = 41.26;
  f.ttft_p95_ms = 190;
  EXPECT_EQ(render_live(f), (std::vector<std::string>{
                                "  1m15s elapsed, ETA 30s | 120/200 done, 16 in flight, 2 failed",
                                "  output 1234 tok/s | TTFT p50 41.3 ms, p95 190.0 ms (recent)"}));
  f.level = "level 2/5 (c8)";
  f.total = 0;
  f.eta_s = std::nan("");
  f.ttft_p50_ms = f.ttft_p95_ms = std::nan("");
  EXPECT_EQ(render_live(f),
            (std::vector<std::string>{"level 2/5 (c8)",
                                      "  1m15s elapsed, ETA - | 120 done, 16 in flight, 2 failed",
                                      "  output 1234 tok/s | TTFT p50 - ms, p95 - ms (recent)"}));
}

TEST(LiveView, ProgressLineForALogIsPlainText) {
  LiveFrame f;
  f.elapsed_s = 20.2;
  f.eta_s = 147;
  f.done = 120;
  f.total = 1000;
  f.in_flight = 16;
  f.failed = 2;
  f.output_tps = 1234.4;
  f.ttft_p50_ms = 41.26;
  f.ttft_p95_ms = 190;
  EXPECT_EQ(render_progress_line(f),
            "tokenbench: progress 20s: 120/1000 done, 2 failed, 1234 output tok/s, TTFT p50 41.3 "
            "ms (recent), ETA 2m27s");
  // Short runs count tenths; a sweep names its level; unknown figures are "-".
  f.elapsed_s = 1.5;
  f.total = 0;
  f.eta_s = std::nan("");
  f.ttft_p50_ms = std::nan("");
  f.level = "level 2/5 (concurrency 8)";
  EXPECT_EQ(render_progress_line(f),
            "tokenbench: progress 1.5s: level 2/5 (concurrency 8): 120 done, 2 failed, 1234 output "
            "tok/s, TTFT p50 - ms (recent)");
}

TEST(LiveView, RedrawGoesBackOverTheLinesItDrew) {
  EXPECT_EQ(redraw({"a", "b"}, 0), "\x1b[2Ka\n\x1b[2Kb\n");
  EXPECT_EQ(redraw({"a", "b"}, 2), "\x1b[2F\x1b[2Ka\n\x1b[2Kb\n");
  // A shorter frame clears what the taller one left.
  EXPECT_EQ(redraw({"a"}, 3), "\x1b[3F\x1b[2Ka\n\x1b[2K\n\x1b[2K\n");
}

TEST(LiveView, TextPlotPlacesEachLevelByItsFigures) {
  const std::string plot =
      text_plot({{10, 5}, {20, 10}, {std::nan(""), 3}}, "req/s", "TTFT p95 (ms)", 11, 3);
  EXPECT_EQ(plot,
            "TTFT p95 (ms)\n"
            "10 |          2\n"
            "   |     1     \n"  // 10 req/s at 5 ms: half way along and up
            " 0 |           \n"
            "   +-----------\n"
            "    0        20\n"
            "    req/s\n")
      << plot;
  EXPECT_EQ(text_plot({{std::nan(""), 1}}, "x", "y"), "");
}

}  // namespace
}  // namespace tokenbench::report
