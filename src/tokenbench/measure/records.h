#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "tokenbench/core/run_config.h"
#include "tokenbench/measure/cohort.h"
#include "tokenbench/records/recorder.h"
#include "tokenbench/report/run_figures.h"

namespace tokenbench::measure {

/// One results directory of a measurement: a target compared (its name and its own
/// configuration, target_config), or the whole measurement ("" and its configuration).
struct Part {
  std::string name;
  core::RunConfig config;
};

/// The parts of the measurement `config`: one per target compared, else one.
std::vector<Part> results_parts(const core::RunConfig& config);

/// The configuration of target `index` of a multi-target run, as its own results directory
/// records it: a single-target configuration with that target's URL and model.
core::RunConfig target_config(const core::RunConfig& config, std::size_t index);

/// Throws RunError when a part's directory already holds results (--overwrite replaces them).
void refuse_results_in(const std::vector<Part>& parts);

/// A measurement's requests files, one recorder per part, and what was created for them
/// (directories, config.yaml, the summary's reserve), undone when the measurement cannot start.
struct Records {
  /// Each part's figures, fed by its recorder (read them after the recorder is closed).
  /// Declared first: the recorders' threads, which feed them, stop before they are destroyed.
  std::vector<std::unique_ptr<report::RunFigures>> figures;
  std::vector<std::unique_ptr<records::Recorder>> recorders;
  std::vector<std::string> created;

  /// Closes the recorders' files and removes everything created (a usage or configuration error
  /// leaves no directory that would block the corrected rerun).
  void undo();
};

/// Opens the records: the results directories, their config.yaml (written by the cohort's
/// leader) and a recorder per part into the file the cohort names, each record finished by
/// `finalize` (output tokens counted). Fills `records` as it goes, so that undo() removes what
/// it made when it throws.
void open_records(const core::RunConfig& config, const std::vector<Part>& parts,
                  const Cohort& cohort, const records::Recorder::Finalizer& finalize,
                  Records& records);

}  // namespace tokenbench::measure
