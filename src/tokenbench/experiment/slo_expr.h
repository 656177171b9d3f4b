#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "tokenbench/experiment/figures.h"

namespace tokenbench::experiment {

/// A run-level objective on one figure: `p95_ttft_ms<=500`, `error_rate<0.01`,
/// `request_throughput>=10`. The grammar of --slo and --require: NAME OP NUMBER with OP one of
/// <, <=, >, >= and NAME any figure name (figures.h). Plain data.
struct SloExpr {
  enum class Op { kLess, kLessEqual, kGreater, kGreaterEqual };
  std::string figure;
  Op op = Op::kLessEqual;
  double bound = 0.0;

  /// The expression as a person writes it, e.g. "p95_ttft_ms<=500".
  std::string text() const;
  /// True when `value` meets the bound; an undefined (NaN) value never does.
  bool holds(double value) const;
};

/// Parses one expression. Throws std::invalid_argument with a one-line message naming the bad
/// text: no operator, an unknown figure (with a hint of valid names), or a bound that is not a
/// finite number.
SloExpr parse_slo_expr(std::string_view text);

/// Parses every item of a repeatable flag; an item may hold several expressions separated by
/// commas. Throws as parse_slo_expr.
std::vector<SloExpr> parse_slo_exprs(const std::vector<std::string>& items);

/// One objective checked against a run.
struct SloVerdict {
  SloExpr expr;
  double actual = 0.0;  ///< NaN when the figure was undefined in the run
  bool met = false;
};

/// Checks every objective against `figures`.
std::vector<SloVerdict> check_slos(const std::vector<SloExpr>& slos, const Figures& figures);

/// True when every verdict is met (and vacuously for none).
bool all_met(const std::vector<SloVerdict>& verdicts);

/// "p95_ttft_ms 612.3 > 500" for the first unmet verdict, "" when all are met.
std::string first_breach(const std::vector<SloVerdict>& verdicts);

/// Every unmet verdict as first_breach says one, joined with "; " ("" when all are met).
std::string all_breaches(const std::vector<SloVerdict>& verdicts);

}  // namespace tokenbench::experiment
