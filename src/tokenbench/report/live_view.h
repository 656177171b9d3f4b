#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace tokenbench::report {

/// What the live terminal view shows of a run in flight: counters the engine and the recorder
/// keep (read, never locked against the engine's threads). NaN marks a figure not known yet.
struct LiveFrame {
  double elapsed_s = 0;
  double eta_s = 0;  ///< NaN: unknown
  std::int64_t done = 0;
  std::int64_t total = 0;  ///< requests the run will send; 0: unknown (--duration)
  std::int64_t in_flight = 0;
  std::int64_t failed = 0;
  double output_tps = 0;   ///< output tokens per second over the last few seconds
  double ttft_p50_ms = 0;  ///< over the last completed requests; NaN: none yet
  double ttft_p95_ms = 0;
  std::string level;  ///< "level 2/5 (concurrency 8)" in a sweep; "" otherwise
};

/// The view's lines (2, or 3 with a level), each under 100 columns, no newline.
std::vector<std::string> render_live(const LiveFrame& frame);

/// One plain line of progress for a log (stderr not a terminal): no escape sequences, no
/// newline. "tokenbench: progress 20s: 120/1000 done, 2 failed, 1234 output tok/s, TTFT p50
/// 41.3 ms (recent), ETA 2m27s", with the level first in a sweep.
std::string render_progress_line(const LiveFrame& frame);

/// Redraws `lines` in place of the `previous` lines drawn before (0: none): cursor up, each line
/// cleared and written. The escape sequences of a VT100-compatible terminal.
std::string redraw(const std::vector<std::string>& lines, std::size_t previous);

/// A small character plot of `points` (x: throughput, y: latency), `width` x `height` cells with
/// labelled axes; each point is drawn as its index (1-9, then a-z) so the levels can be told
/// apart. Points with a NaN coordinate are left out. Empty when no point is defined.
std::string text_plot(const std::vector<std::pair<double, double>>& points,
                      const std::string& x_label, const std::string& y_label, int width = 48,
                      int height = 12);

}  // namespace tokenbench::report
