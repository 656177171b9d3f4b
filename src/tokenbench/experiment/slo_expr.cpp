#include "tokenbench/experiment/slo_expr.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <sstream>
#include <stdexcept>

namespace tokenbench::experiment {
namespace {

std::string_view op_text(SloExpr::Op op) {
  switch (op) {
    case SloExpr::Op::kLess:
      return "<";
    case SloExpr::Op::kLessEqual:
      return "<=";
    case SloExpr::Op::kGreater:
      return ">";
    case SloExpr::Op::kGreaterEqual:
      return ">=";
  }
  return "?";
}

// The operator that a breach shows: the negation of the objective's.
std::string_view breach_text(SloExpr::Op op) {
  switch (op) {
    case SloExpr::Op::kLess:
      return ">=";
    case SloExpr::Op::kLessEqual:
      return ">";
    case SloExpr::Op::kGreater:
      return "<=";
    case SloExpr::Op::kGreaterEqual:
      return "<";
  }
  return "?";
}

std::string trim(std::string_view s) {
  const auto b = s.find_first_not_of(" \t");
  if (b == std::string_view::npos) return "";
  const auto e = s.find_last_not_of(" \t");
  return std::string(s.substr(b, e - b + 1));
}

std::string unknown_figure_hint(const std::string& name) {
  // Suggest the known names sharing the longest piece after the first '_' (p95_ttfx_ms -> ttft).
  std::vector<std::string> close;
  const auto& known = known_figure_names();
  const std::string tail = name.substr(name.find('_') == std::string::npos ? 0 : name.find('_'));
  for (const auto& k : known) {
    if (k.size() >= tail.size() && k.compare(k.size() - tail.size(), tail.size(), tail) == 0) {
      close.push_back(k);
    }
  }
  if (close.empty()) {
    close = {"p95_ttft_ms", "p99_tpot_ms",        "mean_e2el_ms",
             "error_rate",  "request_throughput", "p50_decode_tps"};
  }
  if (close.size() > 6) close.resize(6);
  std::string out;
  for (const auto& c : close) out += (out.empty() ? "" : ", ") + c;
  return out;
}

}  // namespace

std::string SloExpr::text() const { return fmt::format("{}{}{:g}", figure, op_text(op), bound); }

bool SloExpr::holds(double value) const {
  if (std::isnan(value)) return false;
  switch (op) {
    case Op::kLess:
      return value < bound;
    case Op::kLessEqual:
      return value <= bound;
    case Op::kGreater:
      return value > bound;
    case Op::kGreaterEqual:
      return value >= bound;
  }
  return false;
}

SloExpr parse_slo_expr(std::string_view text) {
  const auto at = text.find_first_of("<>");
  if (at == std::string_view::npos) {
    throw std::invalid_argument(fmt::format(
        "'{}' is not an objective: write NAME<=NUMBER, e.g. p95_ttft_ms<=500 or error_rate<0.01",
        text));
  }
  SloExpr e;
  e.figure = trim(text.substr(0, at));
  std::size_t rest = at + 1;
  const bool equal = rest < text.size() && text[rest] == '=';
  if (equal) ++rest;
  e.op = text[at] == '<' ? (equal ? SloExpr::Op::kLessEqual : SloExpr::Op::kLess)
                         : (equal ? SloExpr::Op::kGreaterEqual : SloExpr::Op::kGreater);
  const std::string number = trim(text.substr(rest));
  if (!is_figure_name(e.figure)) {
    throw std::invalid_argument(
        fmt::format("'{}': unknown figure '{}'; figures are summary "
                    "keys such as {} (docs/EXPERIMENTS.md lists them)",
                    text, e.figure, unknown_figure_hint(e.figure)));
  }
  try {
    std::size_t used = 0;
    e.bound = std::stod(number, &used);
    if (used != number.size() || !std::isfinite(e.bound)) throw std::invalid_argument(number);
  } catch (const std::exception&) {
    throw std::invalid_argument(
        fmt::format("'{}': the bound '{}' is not a number, e.g. {}<=500", text, number, e.figure));
  }
  return e;
}

std::vector<SloExpr> parse_slo_exprs(const std::vector<std::string>& items) {
  std::vector<SloExpr> out;
  for (const auto& item : items) {
    std::stringstream ss(item);
    std::string piece;
    while (std::getline(ss, piece, ',')) {
      if (!trim(piece).empty()) out.push_back(parse_slo_expr(piece));
    }
  }
  return out;
}

std::vector<SloVerdict> check_slos(const std::vector<SloExpr>& slos, const Figures& figures) {
  std::vector<SloVerdict> out;
  for (const auto& e : slos) {
    const auto it = figures.find(e.figure);
    const double actual = it == figures.end() ? std::nan("") : it->second;
    out.push_back({e, actual, e.holds(actual)});
  }
  return out;
}

bool all_met(const std::vector<SloVerdict>& verdicts) {
  return std::all_of(verdicts.begin(), verdicts.end(), [](const SloVerdict& v) { return v.met; });
}

namespace {

std::string breach(const SloVerdict& v) {
  if (std::isnan(v.actual)) return fmt::format("{} undefined", v.expr.figure);
  return fmt::format("{} {:.4g} {} {:g}", v.expr.figure, v.actual, breach_text(v.expr.op),
                     v.expr.bound);
}

}  // namespace

std::string first_breach(const std::vector<SloVerdict>& verdicts) {
  for (const auto& v : verdicts) {
    if (!v.met) return breach(v);
  }
  return "";
}

std::string all_breaches(const std::vector<SloVerdict>& verdicts) {
  std::string out;
  for (const auto& v : verdicts) {
    if (!v.met) out += (out.empty() ? "" : "; ") + breach(v);
  }
  return out;
}

}  // namespace tokenbench::experiment
