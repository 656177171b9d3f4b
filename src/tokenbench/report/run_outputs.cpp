#include "tokenbench/report/run_outputs.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "tokenbench/report/console.h"
#include "tokenbench/report/replicas.h"
#include "tokenbench/report/summary_json.h"

namespace tokenbench::report {

void write_text_file(const std::string& path, const std::string& text) {
  // Write beside the target, then rename: a reader never sees a half-written file.
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) throw std::runtime_error("cannot write " + path + ": " + std::strerror(errno));
    out << text;
    if (!out.flush())
      throw std::runtime_error("cannot write " + path + ": " + std::strerror(errno));
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    throw std::runtime_error("cannot write " + path + ": " + std::strerror(errno));
  }
}

std::string read_text_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path + ": " + std::strerror(errno));
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

RunOutputs write_run_outputs(const std::string& dir,
                             const std::vector<core::RequestRecord>& records,
                             const core::RunConfig& config) {
  metrics::SummaryOptions options;
  options.percentiles = config.percentiles;
  options.slo = metrics::parse_slo(config.goodput);
  RunOutputs out;
  out.summary = metrics::summarize(records, options);
  // Server text in error examples may be invalid UTF-8: replaced, never a lost summary.
  out.summary_json = summary_to_json(out.summary, config);
  out.console = render_console_report(out.summary, config);
  if (config.replica_urls.size() > 1) {
    const auto replicas =
        per_replica(records, config.replica_urls, options, out.summary.duration_s);
    out.summary_json["tokenbench"]["replicas"] = replicas_to_json(replicas);
    out.console += render_replicas(replicas, out.summary, core::to_string(config.balance));
  }
  write_text_file(
      dir + "/" + kSummaryFile,
      out.summary_json.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
  return out;
}

}  // namespace tokenbench::report
