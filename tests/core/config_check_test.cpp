#include "tokenbench/core/config_check.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "tokenbench/core/clock.h"

namespace tokenbench::core {
namespace {

// The message validate() throws for the default config changed by `edit` ("" when none).
std::string error_for(const std::function<void(RunConfig&)>& edit) {
  RunConfig c;
  c.num_prompts = 100;
  edit(c);
  try {
    validate(c);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

TEST(ConfigCheck, DefaultsAndEdgesOfTheRangesPass) {
  EXPECT_EQ(error_for([](RunConfig&) {}), "");
  EXPECT_EQ(error_for([](RunConfig& c) {
              c.num_prompts = 0;
              c.duration_s = 30;
            }),
            "");
  EXPECT_EQ(error_for([](RunConfig& c) { c.num_prompts = kMaxNumPrompts; }), "");
  EXPECT_EQ(error_for([](RunConfig& c) { c.request_rate = kMinRequestRate; }), "");
  EXPECT_EQ(error_for([](RunConfig& c) { c.request_rate = INFINITY; }), "");
  EXPECT_EQ(error_for([](RunConfig& c) { c.max_concurrency = kMaxConcurrency; }), "");
  EXPECT_EQ(error_for([](RunConfig& c) { c.duration_s = kMaxSeconds; }), "");
  EXPECT_EQ(error_for([](RunConfig& c) {
              c.timeout_s = kMinTimeoutSeconds;
              c.ttft_timeout_s = 0;  // none
              c.stall_timeout_s = kMinTimeoutSeconds;
            }),
            "");
  EXPECT_EQ(error_for([](RunConfig& c) {
              c.dataset = core::Dataset::kJsonl;
              c.output_len = 0;
            }),
            "");
}

// The values: each is refused in one line naming the flag, the value and the range.
TEST(ConfigCheck, OutOfRangeValuesNameTheFlagAndItsRange) {
  struct Case {
    std::function<void(RunConfig&)> edit;
    std::string message;
  };
  const std::vector<Case> cases = {
      {[](RunConfig& c) { c.num_prompts = 0; },
       "--num-prompts 0 is out of range: give 1 to 10000000, or a --duration to run for"},
      {[](RunConfig& c) { c.num_prompts = 1'000'000'000'000; },
       "--num-prompts 1000000000000 is out of range: give 1 to 10000000"},
      {[](RunConfig& c) { c.num_prompts = -5; }, "--num-prompts -5 is out of range"},
      {[](RunConfig& c) { c.request_rate = 1e-300; },
       "--request-rate 1e-300 is out of range: give 0.001 to"},
      {[](RunConfig& c) { c.request_rate = NAN; }, "--request-rate nan is out of range"},
      {[](RunConfig& c) { c.duration_s = 1e10; },
       "--duration 10000000000 is out of range: give 0 to 1000000 seconds"},
      {[](RunConfig& c) { c.max_concurrency = 1'000'000'000; },
       "--max-concurrency 1000000000 is out of range: give 0 to 100000 (0: unlimited)"},
      {[](RunConfig& c) { c.warmup = -1; }, "--warmup -1 is out of range"},
      {[](RunConfig& c) { c.input_len = 0; }, "--input-len 0 is out of range: give 1 to"},
      {[](RunConfig& c) { c.output_len = 0; }, "--output-len 0 is out of range: give 1 to"},
      {[](RunConfig& c) { c.range_ratio = NAN; }, "--range-ratio nan is out of range"},
      {[](RunConfig& c) { c.timeout_s = 0; }, "--timeout 0 is out of range"},
      // Below 1 ms a timeout would truncate to 0, which means none: the run would hang.
      {[](RunConfig& c) { c.timeout_s = 1e-10; },
       "--timeout 1e-10 is out of range: give 0.001 to 1000000 seconds"},
      {[](RunConfig& c) { c.connect_timeout_s = 1e-12; },
       "--connect-timeout 1e-12 is out of range"},
      {[](RunConfig& c) { c.ttft_timeout_s = 1e-12; },
       "--ttft-timeout 1e-12 is out of range: give 0.001 to 1000000 seconds (0: none)"},
      {[](RunConfig& c) { c.stall_timeout_s = 1e-12; }, "--stall-timeout 1e-12 is out of range"},
      {[](RunConfig& c) { c.burstiness = INFINITY; }, "--burstiness inf is out of range"},
      {[](RunConfig& c) { c.drop_first_pct = 100; }, "--drop-first 100 is out of range"},
      {[](RunConfig& c) { c.fail_fast = -1; }, "--fail-fast -1 is out of range"},
      {[](RunConfig& c) { c.workers = 1'000'000; }, "--workers 1000000 is out of range"},
      {[](RunConfig& c) {
         c.request_rate = 5;
         c.ramp_up = RampKind::kLinear;
         c.ramp_up_duration_s = 10;
         c.ramp_up_start_rps = 50;
       },
       "--ramp-up-start-rps 50 is out of range: give more than 0, at most the --request-rate"},
      {[](RunConfig& c) {
         c.request_rate = 5;
         c.ramp_up = RampKind::kLinear;
       },
       "--ramp-up-duration 0 is out of range"},
  };
  for (const Case& c : cases) {
    const std::string message = error_for(c.edit);
    EXPECT_EQ(message.rfind(c.message, 0), 0u) << message << "\n  expected: " << c.message;
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  }
}

// Issue 25 item 18: a NaN that no range caught (a ramp setting without --ramp-up) was kept in
// config.yaml as .nan, which did not replay; ramp settings without a ramp name the flag they need.
TEST(ConfigCheck, NonFiniteNumbersAndRampSettingsWithoutARampAreRefused) {
  EXPECT_EQ(error_for([](RunConfig& c) {
              c.ramp_up_duration_s = NAN;
            }).rfind("--ramp-up-duration nan: give a finite number", 0),
            0u);
  EXPECT_EQ(error_for([](RunConfig& c) {
              c.ramp_up_start_rps = INFINITY;
            }).rfind("--ramp-up-start-rps inf: give a finite number", 0),
            0u);
  EXPECT_EQ(error_for([](RunConfig& c) {
              c.replay_speed = NAN;
            }).rfind("--replay-speed nan: give a finite number", 0),
            0u);
  EXPECT_EQ(error_for([](RunConfig& c) { c.request_rate = NAN; }).rfind("--request-rate nan", 0),
            0u);
  EXPECT_EQ(error_for([](RunConfig& c) { c.ramp_up_duration_s = 5; }),
            "--ramp-up-duration 5 needs --ramp-up (linear or exponential): add it, or leave out "
            "--ramp-up-duration");
  EXPECT_EQ(error_for([](RunConfig& c) { c.ramp_up_start_rps = 2; }),
            "--ramp-up-start-rps 2 needs --ramp-up (linear or exponential): add it, or leave out "
            "--ramp-up-start-rps");
  EXPECT_EQ(error_for([](RunConfig& c) {
              c.request_rate = 5;
              c.ramp_up = RampKind::kLinear;
              c.ramp_up_duration_s = 3;
              c.ramp_up_start_rps = 2;
            }),
            "");
}

// A --duration run at an unlimited rate without a concurrency cap is refused before it
// connects (it was the Benchmark constructor's, after the preflight).
TEST(ConfigCheck, ADurationAtAnUnlimitedRateNeedsAConcurrencyCap) {
  RunConfig c;
  c.num_prompts = 0;
  c.duration_s = 5;
  try {
    validate_load(c);
    ADD_FAILURE() << "accepted";
  } catch (const ConfigError& e) {
    EXPECT_EQ(std::string(e.what()),
              "--duration with an unlimited request rate needs --max-concurrency N (or "
              "--request-rate)");
  }
  c.max_concurrency = 4;
  EXPECT_NO_THROW(validate_load(c));
  c.max_concurrency = 0;
  c.request_rate = 10;
  EXPECT_NO_THROW(validate_load(c));
  RunConfig counted;  // --num-prompts ends the run
  counted.num_prompts = 10;
  EXPECT_NO_THROW(validate_load(counted));
}

TEST(ConfigCheck, SaturatedNanosNeverWrap) {
  EXPECT_EQ(saturated_nanos(1.5), 1'500'000'000);
  EXPECT_EQ(saturated_nanos(1e300), kSaturatedNanos);
  EXPECT_EQ(saturated_nanos(INFINITY), kSaturatedNanos);
  EXPECT_EQ(saturated_nanos(-3), 0);
  EXPECT_EQ(saturated_nanos(NAN), 0);
}

}  // namespace
}  // namespace tokenbench::core
