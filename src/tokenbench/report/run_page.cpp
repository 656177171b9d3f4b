#include "tokenbench/report/run_page.h"

#include <algorithm>
#include <cmath>

#include "tokenbench/metrics/summary_builder.h"
#include "tokenbench/report/html_report.h"

namespace tokenbench::report {
namespace {

using nlohmann::json;

// Past this many bins the series' bins are merged in pairs (twice the page's points, so that the
// final width, chosen from the whole run's span, is never finer than the bins kept).
constexpr std::size_t kMaxBinsKept = 2 * kMaxSeriesPoints + 2;
constexpr core::Nanos kSecond = 1'000'000'000;

double sec(core::Nanos t) { return static_cast<double>(t) / 1e9; }

json stamp(core::Nanos t, core::Nanos t0) {
  return t == core::kNever ? json() : json(std::round(sec(t - t0) * 1e6) / 1e6);
}

std::int64_t floor_div(core::Nanos t, core::Nanos width) {
  return t >= 0 ? t / width : -((-t + width - 1) / width);
}

}  // namespace

RunPageBuilder::RunPageBuilder() : rows_(2 * kMaxTimelineRequests) {}

void RunPageBuilder::add(const core::RequestRecord& r) {
  for (core::Nanos t : {r.scheduled, r.sent, r.done}) {
    if (t == core::kNever) continue;
    t0_ = t0_ == core::kNever ? t : std::min(t0_, t);
    t1_ = t1_ == core::kNever ? t : std::max(t1_, t);
  }
  rows_.add([&r] {
    return Row{r.scheduled, r.sent, r.first_token, r.done,
               r.ok() ? "ok" : std::string(core::to_string(r.error))};
  });
  add_to_series(r);
  add_in_flight(r);
  gantt_.add(r);
  if (!r.ok() && r.phase == core::Phase::kMeasure && !r.retried) {
    auto& g = errors_[{std::string(core::to_string(r.error)), r.http_status}];
    ++g.count;
    if (g.example.empty()) g.example = r.error_message.substr(0, 500);
  }
}

void RunPageBuilder::add_to_series(const core::RequestRecord& r) {
  if (r.done == core::kNever) return;
  if (!r.ok()) {
    bin_at(r.done).errors += 1;
    return;
  }
  bin_at(r.done).completed += 1;
  // Output tokens spread over the chunks' arrival (each chunk by its share of the chunks'
  // tokens) when known, else at the end.
  double chunk_tokens = 0;
  for (const auto& c : r.chunks) chunk_tokens += std::max(0, c.tokens);
  if (chunk_tokens > 0 && r.output_tokens > 0) {
    const double scale = static_cast<double>(r.output_tokens) / chunk_tokens;
    for (const auto& c : r.chunks) {
      if (c.t != core::kNever) bin_at(c.t).tokens += std::max(0, c.tokens) * scale;
    }
  } else {
    bin_at(r.done).tokens += static_cast<double>(r.output_tokens);
  }
}

void RunPageBuilder::add_in_flight(const core::RequestRecord& r) {
  if (r.sent == core::kNever || r.done == core::kNever) return;
  if (r.in_flight < 0) {
    sends_.push_back(r.sent);
    ends_.push_back(r.done);
    return;
  }
  bin_at(r.sent);
  bin_at(r.done);  // both in the bins kept now (either may have widened them)
  Bin& at_send = bins_[static_cast<std::size_t>(floor_div(r.sent, bin_width_) - first_bin_)];
  at_send.peak = std::max(at_send.peak, static_cast<double>(r.in_flight));
  // In flight at the start of each bin that starts within [sent, done).
  for (std::int64_t j = floor_div(r.sent + bin_width_ - 1, bin_width_); j * bin_width_ < r.done;
       ++j) {
    bins_[static_cast<std::size_t>(j - first_bin_)].at_start += 1;
  }
}

RunPageBuilder::Bin& RunPageBuilder::bin_at(core::Nanos t) {
  // Widen the bins until the kept range, with t, fits kMaxBinsKept; then grow it to t.
  for (;;) {
    const std::int64_t i = floor_div(t, bin_width_);
    if (bins_.empty()) {
      first_bin_ = i;
      bins_.resize(1);
      return bins_[0];
    }
    const std::int64_t lo = std::min(first_bin_, i);
    const std::int64_t hi = std::max(first_bin_ + static_cast<std::int64_t>(bins_.size()) - 1, i);
    if (hi - lo + 1 > static_cast<std::int64_t>(kMaxBinsKept)) {
      coarsen();
      continue;
    }
    if (i < first_bin_) {
      bins_.insert(bins_.begin(), static_cast<std::size_t>(first_bin_ - i), Bin{});
      first_bin_ = i;
    } else if (i - first_bin_ >= static_cast<std::int64_t>(bins_.size())) {
      bins_.resize(static_cast<std::size_t>(i - first_bin_ + 1));
    }
    return bins_[static_cast<std::size_t>(i - first_bin_)];
  }
}

// Doubles the bin width: bins 2k and 2k+1 (of the old width, counted from time 0) become bin k.
void RunPageBuilder::coarsen() {
  bin_width_ *= 2;
  if (bins_.empty()) return;
  const std::int64_t first = floor_div(first_bin_, 2);
  std::vector<Bin> merged(static_cast<std::size_t>(
      floor_div(first_bin_ + static_cast<std::int64_t>(bins_.size()) - 1, 2) - first + 1));
  for (std::size_t j = 0; j < bins_.size(); ++j) {
    Bin& into = merged[static_cast<std::size_t>(
        floor_div(first_bin_ + static_cast<std::int64_t>(j), 2) - first)];
    into.tokens += bins_[j].tokens;
    into.completed += bins_[j].completed;
    into.errors += bins_[j].errors;
    // The merged bin starts where its even half does; an odd half's start is an instant within
    // it, so the level there counts toward its peak.
    const std::int64_t old_index = first_bin_ + static_cast<std::int64_t>(j);
    if (old_index == 2 * floor_div(old_index, 2)) {
      into.at_start = bins_[j].at_start;
    } else {
      into.peak = std::max(into.peak, bins_[j].at_start);
    }
    into.peak = std::max(into.peak, bins_[j].peak);
  }
  bins_ = std::move(merged);
  first_bin_ = first;
}

core::Nanos RunPageBuilder::t0() const { return t0_ == core::kNever ? 0 : t0_; }

json RunPageBuilder::timeline() const {
  std::vector<const Row*> order;
  order.reserve(rows_.kept().size());
  for (const auto& [place, row] : rows_.kept()) order.push_back(&row);
  std::stable_sort(order.begin(), order.end(),
                   [](const Row* a, const Row* b) { return a->scheduled < b->scheduled; });
  json rows = {{"scheduled", json::array()},   {"sent", json::array()},
               {"first_token", json::array()}, {"done", json::array()},
               {"outcome", json::array()},     {"index", json::array()}};
  const core::Nanos t0 = this->t0();
  // A row's index is its place among all the requests in order of schedule (estimated from its
  // place in the sample once the timeline is sampled).
  const double scale =
      order.empty() ? 1.0 : static_cast<double>(rows_.seen()) / static_cast<double>(order.size());
  for (std::size_t k : even_sample(order.size(), kMaxTimelineRequests)) {
    const Row& r = *order[k];
    rows["index"].push_back(
        rows_.stride() == 1 ? k
                            : static_cast<std::size_t>(std::floor(static_cast<double>(k) * scale)));
    rows["scheduled"].push_back(stamp(r.scheduled, t0));
    rows["sent"].push_back(stamp(r.sent, t0));
    rows["first_token"].push_back(stamp(r.first_token, t0));
    rows["done"].push_back(stamp(r.done, t0));
    rows["outcome"].push_back(r.outcome);
  }
  rows["total"] = rows_.seen();
  return rows;
}

json RunPageBuilder::series() const {
  const core::Nanos t0 = this->t0();
  const core::Nanos t1 = t1_ == core::kNever ? 0 : t1_;
  const double span = std::max(1e-9, sec(t1 - t0));
  // 1 s, or wider so that the run fits in kMaxSeriesPoints bins.
  core::Nanos width = kSecond;
  while (span / sec(width) > static_cast<double>(kMaxSeriesPoints)) width *= 2;
  width = std::max(width, bin_width_);
  const auto bins = static_cast<std::size_t>(std::ceil(span / sec(width))) + 1;
  const std::int64_t first = floor_div(t0, width);
  const auto bin_of = [&](core::Nanos t) {
    return static_cast<std::size_t>(std::clamp<std::int64_t>(floor_div(t, width) - first, 0,
                                                             static_cast<std::int64_t>(bins) - 1));
  };
  std::vector<double> tokens(bins, 0), errors(bins, 0), done(bins, 0);
  for (std::size_t j = 0; j < bins_.size(); ++j) {
    // A kept bin lies within one of the chosen width: both are powers of 2 from time 0.
    const std::size_t b = bin_of((first_bin_ + static_cast<std::int64_t>(j)) * bin_width_);
    tokens[b] += bins_[j].tokens;
    done[b] += bins_[j].completed;
    errors[b] += bins_[j].errors;
  }
  // The most requests in flight in each bin: from the records' own counts, and from their
  // stamps for those without.
  std::vector<double> peak = stamp_peaks(bins, first, width);
  for (std::size_t j = 0; j < bins_.size(); ++j) {
    const std::size_t b = bin_of((first_bin_ + static_cast<std::int64_t>(j)) * bin_width_);
    peak[b] = std::max({peak[b], bins_[j].at_start, bins_[j].peak});
  }
  json t = json::array();
  const double w = sec(width);
  for (std::size_t i = 0; i < bins; ++i) {
    tokens[i] /= w;
    // Each bin's start from t0; the first bin starts at or before t0.
    t.push_back(i == 0 ? 0.0 : sec((first + static_cast<std::int64_t>(i)) * width - t0));
  }
  return json{{"bin_s", w},        {"t", std::move(t)}, {"output_tok_s", tokens},
              {"in_flight", peak}, {"completed", done}, {"errors", errors}};
}

// The most requests in flight (sent, not yet done: [sent, done)) at any instant of each bin, from
// the stamps of the records without in_flight: the level at the bin's start, or just after one of
// its sends, whichever is higher. The level at x is the sends at or before x less the ends at or
// before x, so a request that ends as another is sent (or as a bin starts) is not counted with it.
std::vector<double> RunPageBuilder::stamp_peaks(std::size_t bins, std::int64_t first,
                                                core::Nanos width) const {
  std::vector<double> peak(bins, 0);
  if (sends_.empty()) return peak;
  std::vector<core::Nanos> sends = sends_;
  std::vector<core::Nanos> ends = ends_;
  std::sort(sends.begin(), sends.end());
  std::sort(ends.begin(), ends.end());
  const auto level_at = [&](core::Nanos x) {
    return static_cast<double>(std::upper_bound(sends.begin(), sends.end(), x) - sends.begin()) -
           static_cast<double>(std::upper_bound(ends.begin(), ends.end(), x) - ends.begin());
  };
  for (std::size_t b = 1; b < bins; ++b) {
    peak[b] = level_at((first + static_cast<std::int64_t>(b)) * width);
  }
  const auto bin_of = [&](core::Nanos t) {
    return static_cast<std::size_t>(std::clamp<std::int64_t>(floor_div(t, width) - first, 0,
                                                             static_cast<std::int64_t>(bins) - 1));
  };
  metrics::sweep_in_flight(sends, ends, [&](core::Nanos send, std::int64_t level) {
    const std::size_t b = bin_of(send);
    peak[b] = std::max(peak[b], static_cast<double>(level));
  });
  return peak;
}

json RunPageBuilder::errors() const {
  json out = json::array();
  for (const auto& [key, g] : errors_) {
    out.push_back({{"class", key.first},
                   {"status", key.second},
                   {"count", g.count},
                   {"example", redact_urls(g.example)}});
  }
  return out;
}

}  // namespace tokenbench::report
