#include "tokenbench/report/live_view.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace tokenbench::report {
namespace {

std::string duration(double s) {
  if (!std::isfinite(s) || s < 0) return "-";
  const auto total = static_cast<long long>(std::llround(s));
  if (total >= 3600) return fmt::format("{}h{:02}m", total / 3600, total / 60 % 60);
  if (total >= 60) return fmt::format("{}m{:02}s", total / 60, total % 60);
  return fmt::format("{}s", total);
}

std::string ms(double v) { return std::isfinite(v) ? fmt::format("{:.1f}", v) : "-"; }

char mark(std::size_t i) {
  return i < 9 ? static_cast<char>('1' + i) : i < 35 ? static_cast<char>('a' + (i - 9)) : '*';
}

}  // namespace

std::vector<std::string> render_live(const LiveFrame& f) {
  std::vector<std::string> lines;
  if (!f.level.empty()) lines.push_back(f.level);
  const std::string count =
      f.total > 0 ? fmt::format("{}/{} done", f.done, f.total) : fmt::format("{} done", f.done);
  lines.push_back(fmt::format("  {} elapsed, ETA {} | {}, {} in flight, {} failed",
                              duration(f.elapsed_s), duration(f.eta_s), count, f.in_flight,
                              f.failed));
  lines.push_back(fmt::format("  output {:.0f} tok/s | TTFT p50 {} ms, p95 {} ms (recent)",
                              f.output_tps, ms(f.ttft_p50_ms), ms(f.ttft_p95_ms)));
  return lines;
}

std::string render_progress_line(const LiveFrame& f) {
  // Elapsed to a tenth of a second while short, so that lines a second apart tell apart.
  const std::string elapsed = std::isfinite(f.elapsed_s) && f.elapsed_s >= 0 && f.elapsed_s < 10
                                  ? fmt::format("{:.1f}s", f.elapsed_s)
                                  : duration(f.elapsed_s);
  const std::string count =
      f.total > 0 ? fmt::format("{}/{} done", f.done, f.total) : fmt::format("{} done", f.done);
  const std::string level = f.level.empty() ? "" : f.level + ": ";
  const std::string eta = std::isfinite(f.eta_s) ? ", ETA " + duration(f.eta_s) : "";
  return fmt::format(
      "tokenbench: progress {}: {}{}, {} failed, {:.0f} output tok/s, TTFT p50 {} "
      "ms (recent){}",
      elapsed, level, count, f.failed, f.output_tps, ms(f.ttft_p50_ms), eta);
}

std::string redraw(const std::vector<std::string>& lines, std::size_t previous) {
  std::string out;
  if (previous > 0) out += fmt::format("\x1b[{}F", previous);  // to the first line drawn
  for (const auto& l : lines) out += "\x1b[2K" + l + "\n";
  // Lines left over from a taller frame are cleared.
  for (std::size_t i = lines.size(); i < previous; ++i) out += "\x1b[2K\n";
  return out;
}

std::string text_plot(const std::vector<std::pair<double, double>>& points,
                      const std::string& x_label, const std::string& y_label, int width,
                      int height) {
  double x_max = 0;
  double y_max = 0;
  bool any = false;
  for (const auto& [x, y] : points) {
    if (!std::isfinite(x) || !std::isfinite(y)) continue;
    any = true;
    x_max = std::max(x_max, x);
    y_max = std::max(y_max, y);
  }
  if (!any || width < 8 || height < 3) return "";
  if (x_max <= 0) x_max = 1;
  if (y_max <= 0) y_max = 1;
  std::vector<std::string> grid(static_cast<std::size_t>(height),
                                std::string(static_cast<std::size_t>(width), ' '));
  for (std::size_t i = 0; i < points.size(); ++i) {
    const auto [x, y] = points[i];
    if (!std::isfinite(x) || !std::isfinite(y)) continue;
    const int col =
        std::clamp(static_cast<int>(std::lround(x / x_max * (width - 1))), 0, width - 1);
    const int row =
        std::clamp(static_cast<int>(std::lround(y / y_max * (height - 1))), 0, height - 1);
    grid[static_cast<std::size_t>(height - 1 - row)][static_cast<std::size_t>(col)] = mark(i);
  }
  const std::string top = fmt::format("{:.4g}", y_max);
  const std::size_t pad = std::max<std::size_t>(top.size(), 1);
  std::string out = y_label + "\n";
  for (int r = 0; r < height; ++r) {
    const std::string tick = r == 0 ? top : r == height - 1 ? std::string("0") : std::string();
    out += fmt::format("{:>{}} |{}\n", tick, pad, grid[static_cast<std::size_t>(r)]);
  }
  out += fmt::format("{:>{}} +{}\n", "", pad, std::string(static_cast<std::size_t>(width), '-'));
  const std::string right = fmt::format("{:.4g}", x_max);
  out += fmt::format("{:>{}}  0{:>{}}\n", "", pad, right, width - 1);
  out += fmt::format("{:>{}}  {}\n", "", pad, x_label);
  return out;
}

}  // namespace tokenbench::report
