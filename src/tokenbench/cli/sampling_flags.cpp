// --temperature, --top-p, --top-k: fields of every request body, kept in --extra-body.

#include "tokenbench/cli/sampling_flags.h"

#include <fmt/format.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <optional>

#include "tokenbench/cli/run_flags.h"
#include "tokenbench/core/json_parse.h"

namespace tokenbench::cli {
namespace {

std::optional<double> number(const std::string& text) {
  try {
    std::size_t used = 0;
    const double v = std::stod(text, &used);
    if (used == text.size() && std::isfinite(v)) return v;
  } catch (const std::exception&) {
  }
  return std::nullopt;
}

// The JSON value of one flag, or UsageError saying what it takes.
nlohmann::json value_of(const char* flag, const std::string& text) {
  const auto v = number(text);
  const std::string flag_name(flag);
  if (flag_name == "--temperature") {
    if (!v || *v < 0) {
      throw UsageError(fmt::format("--temperature '{}' must be a number >= 0 (e.g. 0.7)", text));
    }
    return *v;
  }
  if (flag_name == "--top-p") {
    if (!v || !(*v > 0 && *v <= 1)) {
      throw UsageError(fmt::format("--top-p '{}' must be a number in (0, 1] (e.g. 0.9)", text));
    }
    return *v;
  }
  if (!v || *v != std::floor(*v) || *v < -1 || *v > 1e9) {
    throw UsageError(
        fmt::format("--top-k '{}' must be a whole number >= 1 (-1 or 0: no limit), e.g. 50", text));
  }
  return static_cast<std::int64_t>(*v);
}

}  // namespace

void merge_sampling_flags(const SamplingFlags& flags, core::RunConfig& config) {
  const struct {
    const char* flag;
    const char* field;
    const std::string& text;
  } fields[] = {{"--temperature", "temperature", flags.temperature},
                {"--top-p", "top_p", flags.top_p},
                {"--top-k", "top_k", flags.top_k}};
  nlohmann::json body = nlohmann::json::object();
  bool any = false;
  for (const auto& f : fields) {
    if (f.text.empty()) continue;
    const nlohmann::json value = value_of(f.flag, f.text);
    if (core::scores_inputs(config.api)) {
      throw UsageError(std::string(f.flag) + " is a sampling parameter: --api " +
                       core::to_string(config.api) + " generates no text");
    }
    if (config.api == core::ApiKind::kOpenAIResponses && std::string(f.field) == "top_k") {
      throw UsageError(
          "--top-k: the Responses API has no top_k field (it takes --temperature and --top-p)");
    }
    if (!any && !config.extra_body.empty()) {
      body = core::parse_json_or_discarded(config.extra_body);
      if (!body.is_object()) {
        throw UsageError("--extra-body must be a JSON object, e.g. '{\"ignore_eos\":true}'");
      }
    }
    any = true;
    if (const auto it = body.find(f.field); it != body.end() && *it != value) {
      throw UsageError(fmt::format("{} {} and --extra-body's \"{}\": {} disagree: give one", f.flag,
                                   f.text, f.field, it->dump()));
    }
    body[f.field] = value;
  }
  if (any) config.extra_body = body.dump();
}

}  // namespace tokenbench::cli
