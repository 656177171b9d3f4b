#include "tokenbench/experiment/journal.h"

#include <filesystem>

#include "tokenbench/report/run_outputs.h"

namespace tokenbench::experiment {

std::map<std::string, nlohmann::json> completed_levels(const std::string& root,
                                                       const std::string& file,
                                                       const std::string& list) {
  std::map<std::string, nlohmann::json> out;
  const std::string path = root + "/" + file;
  if (!std::filesystem::is_regular_file(path)) return out;
  const auto doc = nlohmann::json::parse(report::read_text_file(path), nullptr, false);
  if (!doc.is_object() || !doc.contains(list) || !doc[list].is_array()) return out;
  for (const auto& level : doc[list]) {
    if (!level.is_object() || !level.value("complete", false)) continue;
    const std::string dir = level.value("dir", "");
    const std::string summary = root + "/" + dir + "/" + report::kSummaryFile;
    if (dir.empty() || !std::filesystem::is_regular_file(summary)) continue;
    auto s = nlohmann::json::parse(report::read_text_file(summary), nullptr, false);
    if (s.is_object()) out[dir] = std::move(s);
  }
  return out;
}

void write_journal(const std::string& root, const std::string& file, const nlohmann::json& doc) {
  report::write_text_file(root + "/" + file,
                          doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
}

}  // namespace tokenbench::experiment
