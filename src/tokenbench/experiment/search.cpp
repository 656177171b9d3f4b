#include "tokenbench/experiment/search.h"

#include <fmt/format.h>

#include <cmath>
#include <cstdio>
#include <map>

#include "tokenbench/experiment/html_pages.h"
#include "tokenbench/experiment/journal.h"

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

double throughput_of(const Figures& f) {
  const auto it = f.find("request_throughput");
  return it == f.end() ? std::nan("") : it->second;
}

const Decision* decision_at(const SearchResult& r, std::optional<double> v) {
  if (!v) return nullptr;
  for (const auto& d : r.trajectory) {
    if (d.value == *v) return &d;
  }
  return nullptr;
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
    double sum = 0;
    for (int k = 0; k < o.repeats; ++k) {
      if (canceled()) return std::nullopt;
      Probe p = probe(v, k);
      if (!p.complete) {
        r.probes.push_back(std::move(p));
        return std::nullopt;
      }
      ++d.runs;
      if (p.met) ++d.passes;
      if (!std::isnan(throughput_of(p.figures))) sum += throughput_of(p.figures);
      r.probes.push_back(std::move(p));
    }
    d.pass = 2 * d.passes > d.runs;
    d.request_throughput = d.runs > 0 ? sum / d.runs : 0;
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
        return r;
      }
    } else {
      r.hi = next;
      break;
    }
  }
  // Bisection of [lo, hi) to the precision.
  auto narrow_enough = [&] {
    if (integral(o) && *r.hi - *r.lo <= 1) return true;
    return (*r.hi - *r.lo) / *r.lo <= o.precision;
  };
  while (!narrow_enough()) {
    double mid = (*r.lo + *r.hi) / 2;
    if (integral(o)) mid = std::floor(mid);
    const auto ok = decide(mid);
    if (!ok) return stop_canceled();
    (*ok ? r.lo : r.hi) = mid;
  }
  r.status = "found";
  return r;
}

SearchResult run_search(Runner& runner, const core::RunConfig& base, const SearchOptions& o) {
  const auto done = o.resume ? completed_levels(base.output_dir, kSearchJson, "probes")
                             : std::map<std::string, json>{};
  SearchResult partial;  // what search.json shows while the search runs
  std::string no_success;
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
      p.summary = std::move(outcome.parts.front().summary_json);
      p.complete = !outcome.canceled;  // a --fail-fast stop is complete: it failed
    }
    p.figures = figures_from_summary(p.summary);
    const auto completed = p.figures.find("completed");
    if (no_success.empty() && (completed == p.figures.end() || !(completed->second > 0))) {
      no_success = p.dir + ": " + first_error(p.summary);
    }
    p.slo = check_slos(o.slos, p.figures);
    p.met = all_met(p.slo);
    std::fprintf(stderr, "tokenbench: probe %s %s: %s, %.2f req/s%s\n", vary_name(o).c_str(),
                 value_text(o, value).c_str(), p.met ? "meets the SLOs" : "breaks an SLO",
                 throughput_of(p.figures), p.met ? "" : (" (" + first_breach(p.slo) + ")").c_str());
    partial.probes.push_back(p);
    write_journal(base.output_dir, kSearchJson, search_to_json(partial, o));
    return p;
  };
  SearchResult result = search(o, probe, [&runner] { return runner.canceled(); });
  result.no_success = no_success;
  write_journal(base.output_dir, kSearchJson, search_to_json(result, o));
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
    trajectory.push_back({{"value", d.value},
                          {"pass", d.pass},
                          {"passes", d.passes},
                          {"runs", d.runs},
                          {"request_throughput", d.request_throughput}});
  }
  json answer = nullptr;
  if (!r.status.empty()) {
    const Decision* at = decision_at(r, r.lo);
    answer = {{"status", r.status},
              {"value", r.lo ? json(*r.lo) : json(nullptr)},
              {"failing_value", r.hi ? json(*r.hi) : json(nullptr)},
              {"request_throughput", at ? json(at->request_throughput) : json(nullptr)},
              {"sentence", search_sentence(r, o)}};
  }
  return json{{"vary", vary_name(o)},
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
  const Decision* at = decision_at(r, r.lo);
  if (r.status == "min_breaks") {
    return fmt::format("no load meets {}: even {} {}{} breaks it; lower --min", slo_list(o), what,
                       value_text(o, o.min), unit);
  }
  if (r.status == "canceled" || !at) return "the search was interrupted before an answer";
  std::string s =
      fmt::format("under {} the maximum throughput is {:.2f} req/s ({} {}{}", slo_list(o),
                  at->request_throughput, what, value_text(o, *r.lo), unit);
  if (r.status == "max_meets") {
    s += fmt::format(", the top of the range: raise --max to look higher)");
  } else if (integral(o)) {
    s += fmt::format("; {} breaks it)", value_text(o, *r.hi));
  } else {
    s += fmt::format(", within {:g}%: {}{} breaks it)", 100 * o.precision, value_text(o, *r.hi),
                     unit);
  }
  return s;
}

std::string render_search(const SearchResult& r, const SearchOptions& o) {
  std::string out = fmt::format("{:>16} {:>8} {:>10}  {}\n", vary_name(o), "req/s", "verdict",
                                "runs meeting the SLOs");
  for (const auto& d : r.trajectory) {
    out += fmt::format("{:>16} {:>8.2f} {:>10}  {}/{}\n", value_text(o, d.value),
                       d.request_throughput, d.pass ? "meets" : "breaks", d.passes, d.runs);
  }
  std::string sentence = search_sentence(r, o);
  sentence[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(sentence[0])));
  return out + sentence + ".\n";
}

}  // namespace tokenbench::experiment
