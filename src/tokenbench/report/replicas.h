#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tokenbench/core/request.h"
#include "tokenbench/metrics/summary.h"
#include "tokenbench/metrics/summary_builder.h"

namespace tokenbench::report {

/// The figures of one replica of a deployment measured as one (a repeated --base-url), beside
/// the check that the total holds up: TPS_total ~ sum over replicas of B / TPOT.
struct ReplicaFigures {
  std::string url;
  metrics::Summary summary;  ///< over the measured requests this replica served
  /// B, the mean number of requests in flight at the replica: its successful measured requests'
  /// summed time from send to done, over the whole run's duration (Little's law).
  double mean_batch = metrics::kUndefined;
  /// mean_batch / mean TPOT (in seconds): the token rate of B requests all decoding, tok/s.
  double batch_tps = metrics::kUndefined;
};

/// Splits `records` by RequestRecord::endpoint over `urls` and summarises each part with
/// `options`; `duration_s` is the whole run's measured duration.
std::vector<ReplicaFigures> per_replica(const std::vector<core::RequestRecord>& records,
                                        const std::vector<std::string>& urls,
                                        const metrics::SummaryOptions& options, double duration_s);

/// per_replica fed one record at a time, in any order, without keeping them: a SummaryBuilder per
/// replica (metrics::kPartExactLimit). Not thread-safe.
class ReplicasBuilder {
 public:
  ReplicasBuilder(std::vector<std::string> urls, const metrics::SummaryOptions& options);
  void add(const core::RequestRecord& record);
  std::vector<ReplicaFigures> finish(double duration_s) const;

 private:
  std::vector<std::string> urls_;
  std::vector<metrics::SummaryBuilder> parts_;
  std::vector<double> in_flight_s_;
};

/// The `replicas` section of summary.json: one object per replica.
nlohmann::json replicas_to_json(const std::vector<ReplicaFigures>& replicas);

/// The console table: one row per replica and the total, with B/TPOT beside the measured rate.
std::string render_replicas(const std::vector<ReplicaFigures>& replicas,
                            const metrics::Summary& total, const std::string& balance);

}  // namespace tokenbench::report
