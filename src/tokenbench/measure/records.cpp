// The results directories of one measurement and the requests files it records into.

#include "tokenbench/measure/records.h"

#include <filesystem>
#include <stdexcept>

#include "tokenbench/core/text.h"
#include "tokenbench/measure/outcome.h"
#include "tokenbench/records/recorder.h"
#include "tokenbench/records/results_dir.h"

namespace tokenbench::measure {

std::vector<Part> results_parts(const core::RunConfig& config) {
  std::vector<Part> parts;
  if (config.targets.empty()) {
    parts.push_back({"", config});
  } else {
    for (std::size_t i = 0; i < config.targets.size(); ++i) {
      parts.push_back({config.targets[i].name, target_config(config, i)});
    }
  }
  return parts;
}

core::RunConfig target_config(const core::RunConfig& config, std::size_t index) {
  core::RunConfig c = config;
  const core::TargetSpec& t = config.targets.at(index);
  if (!t.base_url.empty()) c.base_url = t.base_url;
  c.model = t.model;
  if (!t.api_key_env.empty()) c.api_key_env = t.api_key_env;
  c.output_dir = config.output_dir + "/" + core::file_name_part(t.name, "target");
  c.targets.clear();
  return c;
}

void refuse_results_in(const std::vector<Part>& parts) {
  for (const auto& part : parts) {
    if (records::holds_results(part.config.output_dir)) {
      throw RunError(part.config.output_dir +
                         " already holds results: pass --overwrite to replace them, or choose "
                         "another --output-dir",
                     false);
    }
  }
}

void Records::undo() {
  recorders.clear();  // closes their files before they are removed
  records::remove_created(created);
}

void open_records(const core::RunConfig& config, const std::vector<Part>& parts,
                  const Cohort& cohort, const records::Recorder::Finalizer& finalize,
                  Records& records) {
  std::vector<std::string>& created = records.created;
  const bool leads = cohort.leads();
  records::make_directories(config.output_dir, created);
  if (!config.targets.empty() && leads) {
    records::write_new_file(config.output_dir + "/" + records::kConfigFile, core::to_yaml(config),
                            created);
  }
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const core::RunConfig& c = parts[i].config;
    const records::RecordsCompression compression = c.records_compress;
    records::make_directories(c.output_dir, created);
    if (leads) {
      records::write_new_file(c.output_dir + "/" + records::kConfigFile, core::to_yaml(c), created);
    }
    // A run over an earlier one (--overwrite) leaves no stale requests file of the other kind
    // for `report` to find first.
    for (const auto other :
         {records::RecordsCompression::kNone, records::RecordsCompression::kZstd}) {
      if (other != compression) {
        std::filesystem::remove(c.output_dir + "/" + records::requests_file_name(other));
      }
    }
    const std::string records_path = c.output_dir + "/" + cohort.records_file(compression);
    const bool fresh = !std::filesystem::exists(records_path);
    // Each part's figures are fed on its recorder's thread as records are written: no record is
    // kept (report/run_figures.h).
    auto& figures = records.figures.emplace_back(std::make_unique<report::RunFigures>(c));
    records.recorders.push_back(std::make_unique<records::Recorder>(
        records_path, finalize, compression,
        c.save_detailed ? records::Recorder::kMaxDetailTotalBytes : 0,
        [f = figures.get()](const core::RequestRecord& r) { f->add(r); }));
    if (fresh) created.push_back(records_path);
    if (leads) {
      records::make_reserve(c.output_dir);
      created.push_back(c.output_dir + "/" + records::kReserveFile);
    }
  }
}

}  // namespace tokenbench::measure
