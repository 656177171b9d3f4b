#pragma once

#include <cstdint>
#include <string>

namespace tokenbench::load {

/// The pause between a reply and the session's next turn (--think-time). Plain data.
struct ThinkTime {
  enum class Kind { kFixed, kUniform, kExponential };
  Kind kind = Kind::kFixed;
  double a = 0;  ///< fixed: the seconds; uniform: the low end; exponential: the mean
  double b = 0;  ///< uniform: the high end

  /// The pause before turn `turn` of session `session`, in seconds: a function of the seed, the
  /// session and the turn alone, so a run repeats whatever order its turns end in.
  double seconds(std::uint64_t seed, std::int64_t session, std::int32_t turn) const;
};

/// Parses "2" or "0.5" (seconds), "uniform:LO,HI" or "exponential:MEAN". Throws
/// std::invalid_argument with a one-line message naming the accepted forms.
ThinkTime parse_think_time(const std::string& text);

}  // namespace tokenbench::load
