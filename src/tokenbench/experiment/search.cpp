#include "tokenbench/experiment/search.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <numeric>

#include "tokenbench/experiment/html_pages.h"
#include "tokenbench/experiment/journal.h"
#include "tokenbench/metrics/model_time.h"
#include "tokenbench/records/records_io.h"
#include "tokenbench/records/results_dir.h"

namespace tokenbench::experiment {
namespace {

using nlohmann::json;

bool integral(const SearchOptions& o) { return o.vary == SearchOptions::Vary::kMaxConcurrency; }

std::string value_text(const SearchOptions& o, double v) {
  // The shortest text that reads back as the same number: two probes never share a directory.
  return integral(o) ? fmt::format("{}", static_cast<long long>(v)) : fmt::format("{}", v);
}

std::string vary_name(const SearchOptions& o) {
  return integral(o) ? "max-concurrency" : "request-rate";
}

std::string slo_list(const SearchOptions& o) {
  std::string out;
  for (const auto& e : o.slos) out += (out.empty() ? "" : " and ") + e.text();
  return out;
}

double throughput_of(const Figures& f) { return figure(f, "request_throughput"); }

double mean_of(const std::vector<double>& v) {
  return v.empty() ? std::nan("")
                   : std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
}

const Decision* decision_at(const SearchResult& r, std::optional<double> v) {
  if (!v) return nullptr;
  for (const auto& d : r.trajectory) {
    if (d.value == *v) return &d;
  }
  return nullptr;
}

nlohmann::json interval_json(const std::optional<metrics::Interval>& i) {
  if (!i) return nullptr;
  const auto side = [](double v) {
    return std::isinf(v) ? nlohmann::json(nullptr) : nlohmann::json(v);
  };
  return {{"estimate", i->estimate}, {"lo", side(i->lo)}, {"hi", side(i->hi)}};
}

// A bracket [a, c) too narrow to split further.
bool narrow(const SearchOptions& o, double a, double c) {
  if (integral(o) && c - a <= 1) return true;
  return (c - a) / a <= o.precision;
}

// The passing levels, ascending.
std::vector<const Decision*> passing_levels(const SearchResult& r) {
  std::vector<const Decision*> out;
  for (const auto& d : r.trajectory) {
    if (d.pass) out.push_back(&d);
  }
  std::sort(out.begin(), out.end(),
            [](const Decision* a, const Decision* b) { return a->value < b->value; });
  return out;
}

// The index of the best of `levels` (the lowest level on a tie): the highest throughput, or the
// lowest defined cost per 1M output tokens.
std::size_t peak_index(const std::vector<const Decision*>& levels, const SearchOptions& o) {
  const auto better = [&o](const Decision* a, const Decision* b) {
    if (o.objective == SearchOptions::Objective::kCost) {
      const double x = a->usd_per_million_output_tokens, y = b->usd_per_million_output_tokens;
      return !std::isnan(x) && (std::isnan(y) || x < y);
    }
    return a->request_throughput > b->request_throughput;
  };
  std::size_t best = 0;
  for (std::size_t i = 1; i < levels.size(); ++i) {
    if (better(levels[i], levels[best])) best = i;
  }
  return best;
}

// Past the knee throughput falls while the SLOs may still hold: a bisection on the SLO's flip
// alone cannot find the top of such a curve, so the midpoints on both sides of the best passing
// level are probed until they are too narrow to split, at most kPeakProbes of them. False when
// the search was canceled meanwhile.
bool probe_around_peak(const SearchResult& r, const SearchOptions& o,
                       const std::function<std::optional<bool>(double)>& decide) {
  for (int extra = 0; extra < kPeakProbes;) {
    const auto passing = passing_levels(r);
    const std::size_t b = peak_index(passing, o);
    if (passing.size() < 2 || b + 1 == passing.size()) return true;
    std::vector<double> next;
    const auto consider = [&](double a, double c) {
      if (narrow(o, a, c)) return;
      const double mid = integral(o) ? std::floor((a + c) / 2) : (a + c) / 2;
      if (mid > a && mid < c && !decision_at(r, mid)) next.push_back(mid);
    };
    if (b > 0) consider(passing[b - 1]->value, passing[b]->value);
    consider(passing[b]->value, passing[b + 1]->value);
    if (next.empty()) return true;
    for (const double v : next) {
      if (!decide(v)) return false;
      ++extra;
    }
  }
  return true;
}

// The decision of a level from its runs: with repeats, every SLO judged on its interval over the
// runs (met when the whole interval meets it: the level passes with 95% confidence), else the
// majority's verdict; the mean throughput, and the intervals (over the runs when repeated, else
// the run's own).
void decide_level(Decision& d, const std::vector<Probe>& runs, const std::vector<SloExpr>& exprs) {
  const std::size_t slos = exprs.size();
  std::vector<double> throughputs, costs;
  std::vector<std::vector<double>> actuals(slos);
  for (const auto& p : runs) {
    ++d.runs;
    if (p.met) ++d.passes;
    const double x = throughput_of(p.figures);
    if (!std::isnan(x)) throughputs.push_back(x);
    const double usd = figure(p.figures, "usd_per_million_output_tokens");
    if (!std::isnan(usd)) costs.push_back(usd);
    for (std::size_t i = 0; i < slos && i < p.slo.size(); ++i) {
      if (!std::isnan(p.slo[i].actual)) actuals[i].push_back(p.slo[i].actual);
    }
  }
  d.pass = 2 * d.passes > d.runs;
  d.request_throughput = throughputs.empty() ? 0 : mean_of(throughputs);
  d.usd_per_million_output_tokens = mean_of(costs);
  d.slo_ci.assign(slos, std::nullopt);
  if (runs.size() > 1) {
    d.throughput_ci = metrics::mean_interval(throughputs);
    for (std::size_t i = 0; i < slos; ++i) d.slo_ci[i] = metrics::mean_interval(actuals[i]);
    const bool intervals = std::all_of(d.slo_ci.begin(), d.slo_ci.end(),
                                       [](const auto& ci) { return ci.has_value(); });
    if (intervals && slos > 0) {
      d.by_interval = true;
      d.pass = true;
      for (std::size_t i = 0; i < slos; ++i) {
        d.pass = d.pass && exprs[i].holds(d.slo_ci[i]->lo) && exprs[i].holds(d.slo_ci[i]->hi);
      }
    }
  } else if (runs.size() == 1) {
    d.throughput_ci = runs.front().throughput_ci;
    for (std::size_t i = 0; i < slos && i < runs.front().slo_ci.size(); ++i) {
      d.slo_ci[i] = runs.front().slo_ci[i];
    }
  }
}

std::string interval_text(const metrics::Interval& i) {
  const auto side = [](double v) {
    return std::isinf(v) ? std::string("?") : fmt::format("{:.4g}", v);
  };
  return fmt::format("{:.4g} [{}, {}]", i.estimate, side(i.lo), side(i.hi));
}

// Where the probes cannot tell the answer from its neighbours, or a verdict from noise.
std::vector<std::string> noise_warnings(const SearchResult& r, const SearchOptions& o) {
  std::vector<std::string> out;
  const std::string more = o.repeats > 1
                               ? fmt::format(
                                     "more --repeats (now {}) or longer probes (--num-prompts, "
                                     "--duration) would",
                                     o.repeats)
                               : "--repeats 3 (or longer probes: --num-prompts, --duration) would";
  const auto passing = passing_levels(r);
  const Decision* best = r.best ? decision_at(r, r.best) : nullptr;
  if (best && best->throughput_ci) {
    const auto at = std::find(passing.begin(), passing.end(), best) - passing.begin();
    std::string close;
    for (const auto k : {at - 1, at + 1}) {
      if (k < 0 || k >= static_cast<std::ptrdiff_t>(passing.size())) continue;
      const Decision* d = passing[static_cast<std::size_t>(k)];
      if (!d->throughput_ci || !d->throughput_ci->overlaps(*best->throughput_ci)) continue;
      close += fmt::format("{}{} ({} req/s)", close.empty() ? "" : " or ", value_text(o, d->value),
                           interval_text(*d->throughput_ci));
    }
    if (!close.empty()) {
      out.push_back(fmt::format(
          "the best level's throughput, {} req/s at {} {} (95% interval), cannot be told from "
          "{} {}: {} separate them",
          interval_text(*best->throughput_ci), vary_name(o), value_text(o, best->value),
          vary_name(o), close, more));
    }
  }
  // The verdicts that decided the answer: at the best and largest passing levels and the
  // smallest failing one.
  std::vector<double> deciding;
  for (const auto& v : {r.best, r.lo, r.hi}) {
    if (v && std::find(deciding.begin(), deciding.end(), *v) == deciding.end()) {
      deciding.push_back(*v);
    }
  }
  for (const double v : deciding) {
    const Decision* d = decision_at(r, v);
    if (!d) continue;
    for (std::size_t i = 0; i < o.slos.size() && i < d->slo_ci.size(); ++i) {
      const auto& ci = d->slo_ci[i];
      if (!ci || !ci->contains(o.slos[i].bound)) continue;
      out.push_back(fmt::format(
          "the verdict at {} {} is within the noise: {} is {} (95% interval), which straddles "
          "the bound; {} settle it",
          vary_name(o), value_text(o, v), o.slos[i].figure, interval_text(*ci), more));
    }
  }
  return out;
}

// The intervals of a probe's throughput and of its SLOs' percentile figures, from the records
// its directory holds; none when they cannot be read (the verdicts stand without them). With
// --sim-time the figures are in the simulator's model time (`factor`): so are their intervals,
// from the same model-time copy of the records as the summary's.
void add_intervals(Probe& p, const SearchOptions& o, const std::string& dir, double factor) {
  p.slo_ci.assign(o.slos.size(), std::nullopt);
  const std::string file = records::find_requests_file(dir);
  if (file.empty()) return;
  std::vector<core::RequestRecord> records;
  try {
    records = metrics::in_model_time(records::read_records_jsonl(file), factor);
  } catch (const std::exception&) {
    return;
  }
  p.throughput_ci = metrics::throughput_interval(records);
  for (std::size_t i = 0; i < o.slos.size(); ++i) {
    if (const auto percentile = percentile_figure(o.slos[i].figure)) {
      p.slo_ci[i] = metrics::quantile_interval(
          metrics::per_request_samples(records, percentile->second), percentile->first / 100);
    }
  }
}
}  // namespace

std::string probe_dir(const SearchOptions& options, double value, int repeat) {
  std::string dir = (integral(options) ? "conc-" : "rate-") + value_text(options, value);
  if (repeat > 0) dir += fmt::format("-rep{}", repeat + 1);
  return dir;
}

SearchResult search(const SearchOptions& o, const ProbeFn& probe,
                    const std::function<bool()>& canceled) {
  SearchResult r;
  // Runs every repeat at `v`; nullopt when the search was canceled meanwhile.
  auto decide = [&](double v) -> std::optional<bool> {
    Decision d;
    d.value = v;
    std::vector<Probe> runs;
    for (int k = 0; k < o.repeats; ++k) {
      if (canceled()) return std::nullopt;
      Probe p = probe(v, k);
      if (!p.complete) {
        r.probes.push_back(std::move(p));
        return std::nullopt;
      }
      runs.push_back(p);
      r.probes.push_back(std::move(p));
    }
    decide_level(d, runs, o.slos);
    r.trajectory.push_back(d);
    return d.pass;
  };
  auto stop_canceled = [&] {
    r.canceled = true;
    r.status = "canceled";
    return r;
  };
  const auto at_min = decide(o.min);
  if (!at_min) return stop_canceled();
  if (!*at_min) {
    r.hi = o.min;
    r.status = "min_breaks";
    return r;
  }
  r.lo = o.min;
  // Bracketing: double until a level fails or --max passes.
  while (true) {
    double next = std::min(*r.lo * 2, o.max);
    if (integral(o)) next = std::min(o.max, std::max(*r.lo + 1, std::floor(next)));
    const auto ok = decide(next);
    if (!ok) return stop_canceled();
    if (*ok) {
      r.lo = next;
      if (next >= o.max) {
        r.status = "max_meets";
        break;
      }
    } else {
      r.hi = next;
      break;
    }
  }
  // Bisection of [lo, hi) to the precision.
  while (r.status.empty() && !narrow(o, *r.lo, *r.hi)) {
    double mid = (*r.lo + *r.hi) / 2;
    if (integral(o)) mid = std::floor(mid);
    const auto ok = decide(mid);
    if (!ok) return stop_canceled();
    (*ok ? r.lo : r.hi) = mid;
  }
  if (r.status.empty()) r.status = "found";
  if (!probe_around_peak(r, o, decide)) r.canceled = true;
  const auto passing = passing_levels(r);
  if (!passing.empty()) {
    const std::size_t b = peak_index(passing, o);
    r.best = passing[b]->value;
    // Throughput fell past the best: the best is below the largest passing level (by cost, the
    // largest passing level must also carry less).
    r.fell = b + 1 < passing.size() &&
             (o.objective == SearchOptions::Objective::kThroughput ||
              passing.back()->request_throughput < passing[b]->request_throughput);
  }
  r.warnings = noise_warnings(r, o);
  return r;
}

SearchResult run_search(Runner& runner, const core::RunConfig& base, const SearchOptions& o) {
  const auto done = o.resume ? completed_levels(base.output_dir, kSearchJson, "probes")
                             : std::map<std::string, json>{};
  SearchResult partial;  // what search.json shows while the search runs
  std::string no_success;
  std::string not_saved;  // why a probe's summary or search.json could not be written
  auto probe = [&](double value, int repeat) {
    Probe p;
    p.value = value;
    p.repeat = repeat;
    p.dir = probe_dir(o, value, repeat);
    core::RunConfig c = base;
    if (integral(o)) {
      c.max_concurrency = static_cast<int>(value);
    } else {
      c.request_rate = value;
    }
    c.seed = base.seed + static_cast<std::uint64_t>(repeat);
    c.output_dir = base.output_dir + "/" + p.dir;
    if (const auto it = done.find(p.dir); it != done.end()) {
      check_same_configuration(c);
      p.summary = it->second;
      p.complete = true;
      std::fprintf(stderr, "tokenbench: probe %s: complete in an earlier run, kept\n",
                   p.dir.c_str());
    } else {
      runner.set_progress_label(fmt::format("probe {} ({} {})", partial.probes.size() + 1,
                                            vary_name(o), value_text(o, value)));
      RunOutcome outcome = runner.run(c);
      if (!outcome.parts.front().not_saved.empty() && not_saved.empty()) {
        not_saved = outcome.parts.front().not_saved;
      }
      p.summary = std::move(outcome.parts.front().summary_json);
      p.complete = !outcome.canceled;  // a --fail-fast stop is complete: it failed
    }
    p.figures = figures_from_summary(p.summary);
    const auto completed = p.figures.find("completed");
    if (no_success.empty() && (completed == p.figures.end() || !(completed->second > 0))) {
      no_success = p.dir + ": " + first_error(p.summary);
    }
    p.slo = check_slos(o.slos, p.figures);
    // A level where most requests fail does not meet the SLOs, however fast its few successes.
    const auto errors = p.figures.find("error_rate");
    const bool too_many_errors = errors != p.figures.end() && errors->second > base.max_error_rate;
    p.met = all_met(p.slo) && !too_many_errors;
    add_intervals(p, o, c.output_dir, metrics::model_time_factor(base));
    const std::string breach = too_many_errors
                                   ? fmt::format("error rate {:.1f}% > --max-error-rate {:g}%",
                                                 100 * errors->second, 100 * base.max_error_rate)
                                   : first_breach(p.slo);
    std::fprintf(stderr, "tokenbench: probe %s %s: %s, %.2f req/s%s\n", vary_name(o).c_str(),
                 value_text(o, value).c_str(), p.met ? "meets the SLOs" : "breaks an SLO",
                 throughput_of(p.figures), p.met ? "" : (" (" + breach + ")").c_str());
    partial.probes.push_back(p);
    const std::string why =
        try_write_journal(base.output_dir, kSearchJson, search_to_json(partial, o));
    if (!why.empty() && not_saved.empty()) not_saved = why;
    return p;
  };
  SearchResult result = search(o, probe, [&runner] { return runner.canceled(); });
  result.no_success = no_success;
  result.interrupted = runner.interruption();
  if (const auto why = try_write_journal(base.output_dir, kSearchJson, search_to_json(result, o));
      !why.empty() && not_saved.empty()) {
    not_saved = why;
  }
  result.not_saved = not_saved;
  write_experiment_report_or_warn(base.output_dir);
  return result;
}

json search_to_json(const SearchResult& r, const SearchOptions& o) {
  json slos = json::array();
  for (const auto& e : o.slos) slos.push_back(e.text());
  json probes = json::array();
  for (const auto& p : r.probes) {
    json verdicts = json::array();
    for (const auto& v : p.slo) {
      verdicts.push_back({{"slo", v.expr.text()},
                          {"actual", std::isnan(v.actual) ? json(nullptr) : json(v.actual)},
                          {"met", v.met}});
    }
    const double x = throughput_of(p.figures);
    probes.push_back({{"value", p.value},
                      {"repeat", p.repeat},
                      {"dir", p.dir},
                      {"complete", p.complete},
                      {"met", p.met},
                      {"slo", std::move(verdicts)},
                      {"request_throughput", std::isnan(x) ? json(nullptr) : json(x)}});
  }
  json trajectory = json::array();
  for (const auto& d : r.trajectory) {
    json slo_ci = json::array();
    for (const auto& ci : d.slo_ci) slo_ci.push_back(interval_json(ci));
    trajectory.push_back(
        {{"value", d.value},
         {"pass", d.pass},
         {"judged_by", d.by_interval ? "interval" : "majority"},
         {"passes", d.passes},
         {"runs", d.runs},
         {"request_throughput", d.request_throughput},
         {"request_throughput_ci", interval_json(d.throughput_ci)},
         {"usd_per_million_output_tokens", std::isnan(d.usd_per_million_output_tokens)
                                               ? json(nullptr)
                                               : json(d.usd_per_million_output_tokens)},
         {"slo_ci", std::move(slo_ci)}});
  }
  json answer = nullptr;
  if (!r.status.empty()) {
    const Decision* best = decision_at(r, r.best);
    const Decision* largest = decision_at(r, r.lo);
    json warnings = json::array();
    for (const auto& w : r.warnings) warnings.push_back(w);
    answer = {
        {"status", r.status},
        {"value", r.best ? json(*r.best) : json(nullptr)},
        {"request_throughput", best ? json(best->request_throughput) : json(nullptr)},
        {"usd_per_million_output_tokens", best && !std::isnan(best->usd_per_million_output_tokens)
                                              ? json(best->usd_per_million_output_tokens)
                                              : json(nullptr)},
        {"largest_passing_value", r.lo ? json(*r.lo) : json(nullptr)},
        {"largest_passing_request_throughput",
         largest ? json(largest->request_throughput) : json(nullptr)},
        {"failing_value", r.hi ? json(*r.hi) : json(nullptr)},
        {"throughput_fell", r.fell},
        {"warnings", std::move(warnings)},
        {"sentence", search_sentence(r, o)}};
  }
  if (!r.interrupted.empty()) answer["interrupted"] = r.interrupted;
  return json{{"vary", vary_name(o)},
              {"objective", o.objective == SearchOptions::Objective::kCost ? "cost" : "throughput"},
              {"min", o.min},
              {"max", o.max},
              {"precision", o.precision},
              {"repeats", o.repeats},
              {"slo", std::move(slos)},
              {"probes", std::move(probes)},
              {"trajectory", std::move(trajectory)},
              {"answer", std::move(answer)}};
}

std::string search_sentence(const SearchResult& r, const SearchOptions& o) {
  const std::string what = integral(o) ? "concurrency" : "request rate";
  const std::string unit = integral(o) ? "" : "/s";
  const Decision* best = decision_at(r, r.best);
  const Decision* largest = decision_at(r, r.lo);
  if (r.status == "min_breaks") {
    return fmt::format("no load meets {}: even {} {}{} breaks it; lower --min", slo_list(o), what,
                       value_text(o, o.min), unit);
  }
  if (r.status == "canceled" || !best || !largest) {
    return "the search was interrupted before an answer";
  }
  std::string s =
      o.objective == SearchOptions::Objective::kCost
          ? fmt::format(
                "under {} the cheapest load is {} {}{}: ${:.4g} per 1M output tokens, at "
                "{:.2f} req/s",
                slo_list(o), what, value_text(o, best->value), unit,
                best->usd_per_million_output_tokens, best->request_throughput)
          : fmt::format("under {} the maximum throughput is {:.2f} req/s at {} {}{}", slo_list(o),
                        best->request_throughput, what, value_text(o, best->value), unit);
  if (best != largest) {
    s += fmt::format("; the largest load meeting them is {} {}{}, at {:.2f} req/s", what,
                     value_text(o, largest->value), unit, largest->request_throughput);
  } else {
    s += ", the largest load meeting them";
  }
  if (r.status == "max_meets") {
    s += ", the top of the range: raise --max to look higher";
  } else if (integral(o)) {
    s += fmt::format(" ({} breaks them)", value_text(o, *r.hi));
  } else {
    s += fmt::format(" (within {:g}%: {}{} breaks them)", 100 * o.precision, value_text(o, *r.hi),
                     unit);
  }
  if (r.fell) {
    s += fmt::format(
        ". Throughput fell between passing levels ({:.2f} req/s at {}, {:.2f} at {}): past the "
        "peak more load brings less, so the levels around the best were probed",
        best->request_throughput, value_text(o, best->value), largest->request_throughput,
        value_text(o, largest->value));
  }
  return s;
}

std::string render_search(const SearchResult& r, const SearchOptions& o) {
  std::string out = fmt::format("{:>16} {:>8} {:>17} {:>10}  {}\n", vary_name(o), "req/s",
                                "95% interval", "verdict", "runs meeting the SLOs");
  for (const auto& d : r.trajectory) {
    const std::string ci =
        d.throughput_ci ? fmt::format("[{:.2f}, {:.2f}]", d.throughput_ci->lo, d.throughput_ci->hi)
                        : "-";
    const std::string mark = r.best && d.value == *r.best ? "  <- best"
                             : r.lo && d.value == *r.lo   ? "  <- largest passing"
                                                          : "";
    out += fmt::format("{:>16} {:>8.2f} {:>17} {:>10}  {}/{}{}{}\n", value_text(o, d.value),
                       d.request_throughput, ci, d.pass ? "meets" : "breaks", d.passes, d.runs,
                       d.by_interval ? " (judged on the SLOs' intervals)" : "", mark);
  }
  std::string sentence = search_sentence(r, o);
  sentence[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(sentence[0])));
  out += sentence + ".\n";
  for (const auto& w : r.warnings) out += "Warning: " + w + ".\n";
  if (!r.interrupted.empty()) out += "INTERRUPTED: " + r.interrupted + ".\n";
  return out;
}

}  // namespace tokenbench::experiment
