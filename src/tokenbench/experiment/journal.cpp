#include "tokenbench/experiment/journal.h"

#include <fmt/format.h>

#include <filesystem>
#include <sstream>

#include "tokenbench/core/json_parse.h"
#include "tokenbench/core/run_options.h"
#include "tokenbench/experiment/runner.h"
#include "tokenbench/experiment/search.h"
#include "tokenbench/experiment/sweep.h"
#include "tokenbench/experiment/targets.h"
#include "tokenbench/records/results_dir.h"

namespace tokenbench::experiment {

std::map<std::string, nlohmann::json> completed_levels(const std::string& root,
                                                       const std::string& file,
                                                       const std::string& list) {
  std::map<std::string, nlohmann::json> out;
  const std::string path = root + "/" + file;
  if (!std::filesystem::is_regular_file(path)) return out;
  const auto doc = core::parse_json_or_discarded(records::read_text_file(path));
  if (!doc.is_object() || !doc.contains(list) || !doc[list].is_array()) return out;
  for (const auto& level : doc[list]) {
    if (!level.is_object() || !level.value("complete", false)) continue;
    const std::string dir = level.value("dir", "");
    const std::string summary = fmt::format("{}/{}/{}", root, dir, records::kSummaryFile);
    if (dir.empty() || !std::filesystem::is_regular_file(summary)) continue;
    auto s = core::parse_json_or_discarded(records::read_text_file(summary));
    if (s.is_object()) out[dir] = std::move(s);
  }
  return out;
}

void check_same_configuration(const core::RunConfig& expected) {
  const std::string path = expected.output_dir + "/" + records::kConfigFile;
  core::RunConfig kept;
  try {
    kept = core::run_config_from_yaml(records::read_text_file(path));
  } catch (const std::exception& e) {
    throw RunError(std::string("--resume: ") + e.what(), false);
  }
  const core::RunConfig& now = expected;
  // When it ran, where its results go, and how figures are judged and shown are not part of the
  // measurement: the option table's rows that --resume does not require unchanged.
  core::carry_unresumed(kept, now);
  const std::string a = core::to_yaml(kept);
  const std::string b = core::to_yaml(now);
  if (a == b) return;
  // Name the first line that differs, so the user sees which flag changed.
  std::istringstream sa(a), sb(b);
  std::string la, lb;
  while (std::getline(sa, la) && std::getline(sb, lb) && la == lb) {
  }
  throw RunError("--resume: " + path + " was measured with another configuration ('" + la +
                     "' there, '" + lb +
                     "' now): give the flags of the interrupted run, or start "
                     "a new --output-dir",
                 false);
}

std::string experiment_root_hint(const std::string& dir) {
  for (const char* file : {kSweepJson, kSearchJson, kCompareJson}) {
    if (std::filesystem::is_regular_file(dir + "/" + file)) {
      return dir + " holds an experiment (" + file +
             "), not one run: pass one of its subdirectories";
    }
  }
  return "";
}

void write_journal(const std::string& root, const std::string& file, const nlohmann::json& doc) {
  records::write_text_file(
      root + "/" + file, doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
}

std::string try_write_journal(const std::string& root, const std::string& file,
                              const nlohmann::json& doc) noexcept {
  try {
    write_journal(root, file, doc);
    return "";
  } catch (const std::exception& e) {
    return e.what();
  }
}

}  // namespace tokenbench::experiment
