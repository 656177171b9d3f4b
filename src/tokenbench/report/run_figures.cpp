#include "tokenbench/report/run_figures.h"

#include "tokenbench/metrics/model_time.h"

namespace tokenbench::report {

metrics::SummaryOptions summary_options(const core::RunConfig& config) {
  metrics::SummaryOptions options;
  options.percentiles = config.percentiles;
  options.slo = metrics::parse_slo(config.goodput);
  return options;
}

RunFigures::RunFigures(const core::RunConfig& config)
    : factor_(metrics::model_time_factor(config)),
      summary_(summary_options(config)),
      checks_(factor_),
      genai_(config) {
  const metrics::SummaryOptions options = summary_options(config);
  for (const auto& item : config.buckets) {
    buckets_.emplace_back(metrics::parse_bucket_spec(item), options);
  }
  if (config.replica_urls.size() > 1) replicas_.emplace(config.replica_urls, options);
  if (core::RequestMix mix = core::request_mix(config); !mix.empty()) {
    mix_.emplace(std::move(mix), options);
  }
  if (config.steady_state == "auto") steady_.emplace(config.max_concurrency);
}

void RunFigures::add(const core::RequestRecord& record) {
  ++records_;
  // The client's own checks (send rate, stamps, consistency) are in real time, and so is the
  // steady state's window: write_run_outputs picks the requests sent in it by their real stamps.
  checks_.add(record);
  if (steady_) steady_->add(record);
  if (factor_ == 1.0) {
    add_figures(record);
    return;
  }
  core::RequestRecord model = record;
  metrics::rescale_to_model_time(model, factor_);
  add_figures(model);
}

void RunFigures::add_figures(const core::RequestRecord& record) {
  summary_.add(record);
  stream_.add(record);
  timings_.add(record);
  for (auto& b : buckets_) b.add(record);
  if (replicas_) replicas_->add(record);
  if (mix_) mix_->add(record);
  page_.add(record);
  genai_.add(record);
}

}  // namespace tokenbench::report
