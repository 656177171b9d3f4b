#include "tokenbench/experiment/runner.h"

#include <fcntl.h>
#include <fmt/core.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <optional>
#include <thread>
#include <tuple>

#include "tokenbench/client/credentials.h"
#include "tokenbench/client/error_classify.h"
#include "tokenbench/client/http_get.h"
#include "tokenbench/collect/child_process.h"
#include "tokenbench/collect/environment_probe.h"
#include "tokenbench/collect/scraper.h"
#include "tokenbench/core/clock.h"
#include "tokenbench/core/file_kind.h"
#include "tokenbench/core/secret_fields.h"
#include "tokenbench/core/text.h"
#include "tokenbench/distributed/merge.h"
#include "tokenbench/distributed/session.h"
#include "tokenbench/experiment/distributed_run.h"
#include "tokenbench/experiment/progress.h"
#include "tokenbench/metrics/token_counts.h"
#include "tokenbench/records/recorder.h"
#include "tokenbench/records/results_dir.h"
#include "tokenbench/report/csv_export.h"
#include "tokenbench/report/run_outputs.h"
#include "tokenbench/workload/workload.h"

namespace tokenbench::experiment {
namespace {

// Lets thousands of streams open their sockets.
void raise_fd_limit() {
  rlimit lim{};
  if (getrlimit(RLIMIT_NOFILE, &lim) == 0 && lim.rlim_cur < lim.rlim_max) {
    lim.rlim_cur = lim.rlim_max;
    setrlimit(RLIMIT_NOFILE, &lim);
  }
}

// One server to measure, as given: its URL (maybe with credentials), its model and key variable.
struct Wanted {
  std::string* base_url;  // rewritten without credentials
  std::string* model;     // filled in from /v1/models when empty
  std::string api_key_env;
};

// Reads the pipe at `path` to its end into a new private file under $TMPDIR (or /tmp); returns
// that file's path. Throws std::runtime_error naming `path`.
std::string copy_pipe_to_temp(const std::string& path) {
  const char* dir = std::getenv("TMPDIR");
  std::string name =
      std::string(dir != nullptr && *dir != '\0' ? dir : "/tmp") + "/tokenbench-dataset-XXXXXX";
  const int out = ::mkstemp(name.data());
  if (out < 0) {
    throw std::runtime_error("--dataset-path " + path +
                             " is a pipe, and no temporary file could "
                             "hold it: " +
                             std::strerror(errno) + " (set TMPDIR)");
  }
  const int in = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  const auto fail = [&](const std::string& what) {
    const int err = errno;
    if (in >= 0) ::close(in);
    ::close(out);
    std::remove(name.c_str());
    return std::runtime_error("--dataset-path " + path + ": " + what + ": " + std::strerror(err));
  };
  if (in < 0) throw fail("cannot open the pipe");
  std::vector<char> buffer(1 << 16);
  while (true) {
    const ssize_t n = ::read(in, buffer.data(), buffer.size());
    if (n == 0) break;
    if (n < 0) {
      if (errno == EINTR) continue;
      throw fail("cannot read the pipe");
    }
    for (ssize_t done = 0; done < n;) {
      const ssize_t w = ::write(out, buffer.data() + done, static_cast<std::size_t>(n - done));
      if (w < 0 && errno == EINTR) continue;
      if (w <= 0) throw fail("cannot keep its bytes in " + name);
      done += w;
    }
  }
  ::close(in);
  if (::close(out) != 0) throw fail("cannot keep its bytes in " + name);
  return name;
}

std::string join_ids(const std::vector<std::string>& ids) {
  std::string out;
  for (std::size_t i = 0; i < ids.size() && i < 5; ++i) out += (i ? ", " : "") + ids[i];
  if (ids.size() > 5) out += fmt::format(", and {} more", ids.size() - 5);
  return out;
}

// How long the preflight waits for GET /v1/models.
constexpr double kPreflightTimeoutS = 10;

// The preflight's GET /v1/models got no HTTP reply (`error`, redacted): an HTTP/1.1 answer to
// --http2, no answer on a connection that was made, or no connection.
std::string unanswered_preflight(const std::string& shown, const client::HttpGetResult& models,
                                 const std::string& error) {
  if (models.http1_answer) return fmt::format("{}: {}", shown, error);
  core::RequestRecord r;
  client::classify_transport_error(models.code, error.c_str(), false, false, r);
  if (r.error == core::ErrorClass::kTimeout &&
      (shown.rfind("https://", 0) != 0 || models.tls_ms >= 0)) {
    return fmt::format(
        "{} accepted the connection, but GET {}/v1/models got no answer within {:g} s: is the "
        "server still loading the model, or overloaded? (--no-preflight with --model NAME skips "
        "this request)",
        shown, shown, kPreflightTimeoutS);
  }
  return fmt::format("cannot reach {}: {}. Is the server running? Check --base-url.", shown, error);
}

}  // namespace

bool FailFast::observe(const core::RequestRecord& r) {
  if (limit_ <= 0 || decided_.load(std::memory_order_relaxed)) return false;
  std::lock_guard<std::mutex> lock(mutex_);
  if (decided_.load(std::memory_order_relaxed)) return false;
  const bool client_error = r.error == core::ErrorClass::kHttp4xx && r.http_status != 429;
  if (!client_error || (status_ != 0 && r.http_status != status_)) {
    decided_.store(true);  // a success or another kind of failure: the run can measure
    return false;
  }
  status_ = r.http_status;
  if (message_.empty()) message_ = core::without_full_stop(r.error_message);
  if (++seen_ < limit_) return false;
  decided_.store(true);
  verdict_ =
      fmt::format("the first {} requests all failed with HTTP {}: {}", seen_, status_, message_);
  return true;
}

std::string FailFast::verdict() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return verdict_;
}

bool ErrorRateGuard::observe(const core::RequestRecord& r) {
  if (max_rate_ <= 0 || r.retried || r.error == core::ErrorClass::kCanceled) return false;
  std::lock_guard<std::mutex> lock(mutex_);
  if (decided_) return false;
  window_.push_back(r.error);
  if (!r.ok()) ++failed_;
  if (window_.size() > kWindow) {
    if (window_.front() != core::ErrorClass::kNone) --failed_;
    window_.pop_front();
  }
  if (window_.size() < kMinimum) return false;
  const double rate = static_cast<double>(failed_) / static_cast<double>(window_.size());
  if (rate <= max_rate_) return false;
  decided_ = true;
  std::map<core::ErrorClass, std::size_t> by_class;
  for (const core::ErrorClass e : window_) {
    if (e != core::ErrorClass::kNone) ++by_class[e];
  }
  const auto most =
      std::max_element(by_class.begin(), by_class.end(),
                       [](const auto& a, const auto& b) { return a.second < b.second; });
  verdict_ = fmt::format(
      "{} of the last {} requests failed ({:.0f}% > --abort-on-error-rate {:g}%), "
      "most as {}",
      failed_, window_.size(), rate * 100, max_rate_ * 100, core::to_string(most->first));
  return true;
}

std::string ErrorRateGuard::verdict() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return verdict_;
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

Runner::Runner(core::RunConfig& config, Options options) : options_(std::move(options)) {
  if (config.gpu_metrics == "nvidia-smi" && !collect::find_on_path("nvidia-smi")) {
    throw RunError(
        "--gpu-metrics nvidia-smi: nvidia-smi is not on PATH (install the NVIDIA driver's tools, "
        "or use --gpu-metrics dcgm=URL or off)",
        false);
  }
  std::vector<Wanted> wanted;
  if (!config.targets.empty()) {
    for (auto& t : config.targets) {
      if (t.base_url.empty()) t.base_url = config.base_url;
      wanted.push_back(
          {&t.base_url, &t.model, t.api_key_env.empty() ? config.api_key_env : t.api_key_env});
    }
  } else if (config.replica_urls.size() > 1) {
    for (auto& url : config.replica_urls) {
      wanted.push_back({&url, &config.model, config.api_key_env});
    }
  } else {
    wanted.push_back({&config.base_url, &config.model, config.api_key_env});
  }
  client::add_header_secrets(config.headers, secrets_);
  for (const Wanted& w : wanted) {
    driver::Target target;
    target.base_url = *w.base_url;  // credentials in the URL are used, but never shown or written
    std::string userinfo;
    std::tie(*w.base_url, userinfo) = client::split_userinfo(*w.base_url);
    client::add_userinfo_secrets(userinfo, secrets_);
    target.headers = config.headers;
    client::add_api_headers(config.api, target.headers);
    const std::optional<std::string> key = client::find_api_key(w.api_key_env);
    if (key) {
      target.headers.push_back(client::auth_header(config.api, *key));
      const std::string warning = client::short_key_warning(*key, w.api_key_env);
      if (!warning.empty() && std::find(secrets_.begin(), secrets_.end(), *key) == secrets_.end()) {
        std::fprintf(stderr, "%s\n", warning.c_str());
      }
      secrets_.push_back(*key);
    }
    targets_.push_back(std::move(target));
  }
  if (!config.targets.empty()) {  // the root configuration names a base URL too
    std::string userinfo;
    std::tie(config.base_url, userinfo) = client::split_userinfo(config.base_url);
    client::add_userinfo_secrets(userinfo, secrets_);
  }
  // Credentials in a query string or the body (?api-key=..., {"api_key": ...}) are sent, but
  // never shown: their values are cut from everything written, as the key's are.
  for (const std::string* url : {&config.base_url, &config.endpoint, &config.server_metrics}) {
    core::redact_query(*url, &secrets_);
  }
  for (const auto& url : config.replica_urls) core::redact_query(url, &secrets_);
  for (const auto& t : config.targets) core::redact_query(t.base_url, &secrets_);
  core::redact_json_fields(config.extra_body, &secrets_);
  // Longest first, so that a secret containing another is cut whole.
  std::sort(secrets_.begin(), secrets_.end(),
            [](const std::string& a, const std::string& b) { return a.size() > b.size(); });
  if (config.replica_urls.size() > 1) config.base_url = config.replica_urls.front();

  // Preflight: every server must answer before we measure it; /v1/models also names the model.
  for (std::size_t i = 0; i < wanted.size(); ++i) {
    const std::string& shown = *wanted[i].base_url;
    if (!config.preflight) {
      if (wanted[i].model->empty()) {
        throw RunError(fmt::format("--no-preflight skips asking {}/v1/models for the model: "
                                   "pass --model NAME",
                                   shown),
                       false);
      }
      targets_[i].model = *wanted[i].model;
      continue;
    }
    const auto models = client::http_get(targets_[i].base_url + "/v1/models", targets_[i].headers,
                                         kPreflightTimeoutS);
    if (!models.transport_ok) {
      throw RunError(unanswered_preflight(shown, models, redact(models.error)), true);
    }
    if (models.status == 401 || models.status == 403) {
      throw RunError(
          fmt::format("{}/v1/models answered HTTP {}: the server rejected {}. Check "
                      "the key, or name its variable with --api-key-env",
                      shown, models.status, client::key_origin(wanted[i].api_key_env, config.api)),
          true);
    }
    const client::ModelList list = client::parse_model_list(models.body);
    if (list.sim_time_scale) config.sim_time_scale = *list.sim_time_scale;
    if (wanted[i].model->empty()) {
      if (models.status != 200 || list.ids.empty()) {
        if (const std::string not_api = client::non_api_reply(models); !not_api.empty()) {
          throw RunError(fmt::format("{}/v1/models {}: point --base-url at the API server itself "
                                     "(a login page or a proxy answered), or pass --model NAME",
                                     shown, core::one_line(not_api)),
                         true);
        }
        throw RunError(fmt::format("{}/v1/models (HTTP {}) names no model: pass --model NAME",
                                   shown, models.status),
                       true);
      }
      *wanted[i].model = list.ids.front();
    } else if (!list.ids.empty() &&
               std::find(list.ids.begin(), list.ids.end(), *wanted[i].model) == list.ids.end()) {
      // Some servers answer whatever the name; the results would carry a model that never ran.
      std::fprintf(stderr,
                   "tokenbench: warning: %s/v1/models does not list model '%s' (it lists %s); a "
                   "server that ignores the name answers with another model\n",
                   shown.c_str(), core::one_line(*wanted[i].model).c_str(),
                   core::one_line(join_ids(list.ids)).c_str());
    }
    targets_[i].model = *wanted[i].model;
    // The environment record: what the server says about itself (short GETs, never fatal).
    servers_.resize(wanted.size());
    servers_[i] = collect::probe_server(targets_[i].base_url, targets_[i].headers, models.body,
                                        models.server_header);
    servers_[i]["url"] = shown;
  }
  host_ = collect::collect_host();
  for (auto& t : config.targets) {
    if (t.name.empty()) t.name = t.model;
  }
  if (!config.tokenizer.empty()) {
    try {
      tokenizer::LoadOptions load_options;
      load_options.tiktoken_encoding = config.tiktoken_encoding;
      tokenizer_ = tokenizer::load_tokenizer(config.tokenizer, load_options);
    } catch (const std::exception& e) {
      throw RunError(e.what(), false);
    }
  }
  // A dataset from a pipe (a named pipe, <(...)) can be read once: its bytes are kept in a
  // private file that every measurement (a sweep's levels, a search's probes) reads.
  const bool from_file =
      config.dataset != "random" && config.dataset != "fixed" && config.dataset != "shared-prefix";
  if (from_file && !config.dataset_path.empty() &&
      core::file_kind(config.dataset_path) == core::FileKind::kPipe) {
    try {
      dataset_copy_ = copy_pipe_to_temp(config.dataset_path);
    } catch (const std::exception& e) {
      throw RunError(e.what(), false);
    }
  }
  raise_fd_limit();
}

Runner::~Runner() {
  if (!dataset_copy_.empty()) std::remove(dataset_copy_.c_str());
}

void Runner::cancel(int signal_number) {
  if (signal_number != 0) stop_signal_.store(signal_number);
  canceled_.store(true);
  if (driver::Benchmark* b = running_.load()) b->cancel();
}

std::string Runner::interruption() const {
  if (!canceled_.load()) return "";
  const int sig = stop_signal_.load();
  const std::string by = sig == SIGINT    ? "SIGINT (Ctrl-C)"
                         : sig == SIGTERM ? "SIGTERM"
                         : sig != 0       ? fmt::format("signal {}", sig)
                                          : "a cancel";
  return by + ": the run was stopped before its end";
}

void Runner::flush_records() {
  std::lock_guard<std::mutex> lock(recorders_mutex_);
  for (records::Recorder* r : live_recorders_) {
    r->flush_now(std::chrono::seconds(1));
    // The process exits next: the room kept for a summary it will not write is given back.
    records::release_reserve(std::filesystem::path(r->path()).parent_path().string());
  }
}

std::string Runner::redact(std::string text) const {
  for (const auto& s : secrets_) text = client::redact(std::move(text), s);
  return text;
}

RunOutcome Runner::run(const core::RunConfig& config) {
  RunOutcome outcome;
  distributed::Session* const session = options_.session;
  // A follower measures its share and sends it to the leader: no files but its records, no
  // console, no telemetry of its own.
  const bool follower = session != nullptr && !session->leader();
  const bool quiet = options_.quiet || follower;
  // One results directory per target compared, else one.
  std::vector<std::pair<std::string, core::RunConfig>> parts;
  if (config.targets.empty()) {
    parts.emplace_back("", config);
  } else {
    for (std::size_t i = 0; i < config.targets.size(); ++i) {
      parts.emplace_back(config.targets[i].name, target_config(config, i));
    }
  }
  std::unique_ptr<driver::Benchmark> bench;
  std::vector<std::unique_ptr<records::Recorder>> recorders;
  // The previous measurement's benchmark stays alive until this one replaces it, so that a
  // signal handler that read running_ just before it was cleared never cancels a freed object.
  records::Recorder::Finalizer count_tokens;
  if (tokenizer_) {
    count_tokens = [this](core::RequestRecord& r) { metrics::count_output_tokens(*tokenizer_, r); };
  }
  for (const auto& [name, c] : parts) {
    if (!follower && !options_.overwrite && records::holds_results(c.output_dir)) {
      throw RunError(c.output_dir +
                         " already holds results: pass --overwrite to replace them, or choose "
                         "another --output-dir",
                     false);
    }
  }
  std::map<std::string, std::string> labels;
  std::unique_ptr<core::RunConfig> pending_config;
  bool announced = false;
  // What this measurement created (directories, files), undone when it cannot start: a usage or
  // configuration error leaves no directory that would block the corrected rerun.
  std::vector<std::string> created;
  try {
    labels = telemetry::parse_labels(config.labels);
    std::vector<records::RecordsCompression> compressions;
    for (const auto& part : parts) {
      const std::string& name = part.second.records_compress;
      const auto compression = records::records_compression_from_string(name);
      if (!compression) {
        throw std::runtime_error("--records-compress " + name + ": unknown; one of none, zstd");
      }
      compressions.push_back(*compression);
    }
    // Everything that can refuse the configuration comes before the first file is written.
    workload::Workload workload;
    if (dataset_copy_.empty()) {
      workload = workload::build_workload(config, tokenizer_.get());
    } else {
      core::RunConfig from_copy = config;
      from_copy.dataset_path = dataset_copy_;
      try {
        workload = workload::build_workload(from_copy, tokenizer_.get());
      } catch (const std::exception& e) {  // said with the path the user gave
        std::string what = e.what();
        for (auto at = what.find(dataset_copy_); at != std::string::npos;
             at = what.find(dataset_copy_, at + config.dataset_path.size())) {
          what.replace(at, dataset_copy_.size(), config.dataset_path);
        }
        throw std::runtime_error(what);
      }
    }
    auto bench_config = std::make_unique<core::RunConfig>(config);
    if (session) {
      if (session->leader()) {
        session->announce_level(core::to_yaml(config));
        announced = true;
      }
      const load::Shard shard = session->shard();
      // --max-concurrency is global: each member takes its part of the slots.
      if (config.max_concurrency > 0) {
        const auto total = static_cast<std::size_t>(config.max_concurrency);
        if (total < shard.stride) {
          throw std::runtime_error(fmt::format(
              "--max-concurrency {} is less than the {} ranks measuring: give each rank at least "
              "one slot, or start fewer ranks",
              total, shard.stride));
        }
        bench_config->max_concurrency =
            static_cast<int>(total / shard.stride + (shard.first < total % shard.stride ? 1 : 0));
      }
      if (follower) {  // the leader alone watches the server and the GPUs
        bench_config->server_metrics = "off";
        bench_config->gpu_metrics = "off";
      }
    }
    bench = std::make_unique<driver::Benchmark>(*bench_config, targets_, std::move(workload),
                                                tokenizer_ != nullptr);
    // Alive as long as the benchmark that refers to it (last_bench_ below).
    pending_config = std::move(bench_config);
    records::make_directories(config.output_dir, created);
    if (!config.targets.empty() && !follower) {
      records::write_new_file(config.output_dir + "/" + records::kConfigFile, core::to_yaml(config),
                              created);
    }
    for (std::size_t i = 0; i < parts.size(); ++i) {
      const core::RunConfig& c = parts[i].second;
      const records::RecordsCompression compression = compressions[i];
      records::make_directories(c.output_dir, created);
      if (!follower) {
        records::write_new_file(c.output_dir + "/" + records::kConfigFile, core::to_yaml(c),
                                created);
      }
      // A run over an earlier one (--overwrite) leaves no stale requests file of the other kind
      // for `report` to find first.
      for (const auto other :
           {records::RecordsCompression::kNone, records::RecordsCompression::kZstd}) {
        if (other != compression) {
          std::filesystem::remove(c.output_dir + "/" + records::requests_file_name(other));
        }
      }
      // Each rank of a distributed run writes its own; the leader merges them.
      const std::string file =
          session ? distributed::rank_records_file(
                        session->rank(), compression == records::RecordsCompression::kZstd)
                  : records::requests_file_name(compression);
      const std::string records_path = c.output_dir + "/" + file;
      const bool fresh = !std::filesystem::exists(records_path);
      recorders.push_back(std::make_unique<records::Recorder>(
          records_path, count_tokens, compression,
          c.save_detailed ? records::Recorder::kMaxDetailTotalBytes : 0));
      if (fresh) created.push_back(records_path);
      if (!follower) {
        records::make_reserve(c.output_dir);
        created.push_back(c.output_dir + "/" + records::kReserveFile);
      }
    }
    {
      std::lock_guard<std::mutex> lock(recorders_mutex_);
      live_recorders_.clear();
      for (const auto& r : recorders) live_recorders_.push_back(r.get());
    }
  } catch (const std::exception& e) {
    if (follower || announced) report_unable(e.what());
    {
      std::lock_guard<std::mutex> lock(recorders_mutex_);
      live_recorders_.clear();
    }
    recorders.clear();  // closes their files before they are removed
    records::remove_created(created);
    throw RunError(e.what(), false);
  }
  core::Nanos common_start = core::kNever;
  if (session) {
    driver::Benchmark* b = bench.get();
    bench->distribute(session->shard(), [this, session, b, &common_start] {
      const auto start = session->common_start(b->clock(), "", [this] { return canceled_.load(); });
      if (!start) {  // the leader could not start this measurement: nothing to measure
        b->cancel();
        return b->clock().now();
      }
      common_start = *start;
      return *start;
    });
  }

  if (!quiet) {
    const std::string what =
        config.targets.empty()
            ? fmt::format(
                  "{}{} model {}{}", core::redact_query(config.base_url),
                  core::redact_query(config.endpoint), core::one_line(config.model),
                  config.replica_urls.size() > 1
                      ? fmt::format(" (and {} more replicas)", config.replica_urls.size() - 1)
                      : "")
            : fmt::format("{} targets", config.targets.size());
    const std::string amount = config.num_prompts > 0
                                   ? fmt::format("{} requests{}", config.num_prompts,
                                                 config.targets.empty() ? "" : " each")
                                   : fmt::format("{} s", config.duration_s);
    const std::string ranks =
        session ? fmt::format("{} ranks x ", session->shard().stride) : std::string();
    std::fprintf(stderr, "tokenbench: %s, %s, %s%d worker%s -> %s\n", what.c_str(), amount.c_str(),
                 ranks.c_str(), bench->workers(), bench->workers() == 1 ? "" : "s",
                 config.output_dir.c_str());
  }
  std::unique_ptr<Progress> progress;
  if (!quiet) {
    // At a terminal, the live view; else (a log, CI) a plain line every --progress-interval.
    const bool terminal = isatty(STDERR_FILENO) != 0;
    if (terminal || options_.progress_interval_s > 0) {
      progress = std::make_unique<Progress>(recorders, config, *bench, progress_label_, terminal,
                                            options_.progress_interval_s);
    }
  }

  // The GPUs, sampled on their own thread over the whole run (one sampler for every part).
  std::unique_ptr<collect::GpuSampler> gpu;
  if (!canceled_.load() && !follower) gpu = start_gpu_sampler(config, bench->clock());

  // The server's /metrics, one scraper per part (its own thread and connections), when asked or,
  // by default, when <base-url>/metrics answers.
  std::vector<std::unique_ptr<collect::MetricsScraper>> scrapers(parts.size());
  std::vector<std::string> metrics_urls(parts.size());
  if (config.server_metrics != "off" && !canceled_.load() && !follower) {
    for (std::size_t i = 0; i < parts.size(); ++i) {
      const driver::Target& t = targets_[std::min(i, targets_.size() - 1)];
      const bool automatic = config.server_metrics == "auto";
      const std::string url = automatic ? t.base_url + "/metrics" : config.server_metrics;
      metrics_urls[i] = automatic ? parts[i].second.base_url + "/metrics" : redact(url);
      // Credentials go only to the target's own origin, unless --server-metrics-auth.
      bool withheld = false;
      auto scraper = std::make_unique<collect::MetricsScraper>(
          url,
          client::headers_for_origin(url, t.base_url, t.headers, config.server_metrics_auth,
                                     &withheld),
          config.metrics_interval_s, bench->clock());
      const telemetry::Scrape first = scraper->scrape_now("before");
      // Auto: only a server whose names tokenbench knows (docs/TELEMETRY.md) has something to say.
      if (automatic && (!first.ok || first.snapshot.kind == telemetry::ServerKind::kUnknown)) {
        continue;
      }
      if (!first.ok) {
        std::fprintf(stderr, "tokenbench: warning: --server-metrics %s: %s; scraping goes on%s\n",
                     metrics_urls[i].c_str(), core::one_line(redact(first.error)).c_str(),
                     withheld ? " (the API key was not sent to this origin, which is not "
                                "--base-url's: --server-metrics-auth sends it)"
                              : "");
      }
      scraper->start();
      scrapers[i] = std::move(scraper);
    }
  }
  core::Nanos measure_start = core::kNever;
  core::Nanos measure_end = core::kNever;
  // A distributed run's measure phase ends when the last rank's does: the leader scrapes its
  // end after it gathered every rank's report.
  const auto scrape_edge = [&scrapers](bool starts) {
    for (auto& s : scrapers) {
      if (s) s->scrape_now(starts ? "measure_start" : "measure_end");
    }
  };
  const auto measure_edge = [&scrape_edge, &measure_start, &measure_end, &bench,
                             session](bool starts) {
    (starts ? measure_start : measure_end) = bench->clock().now();
    if (starts || session == nullptr) scrape_edge(starts);
  };

  running_.store(bench.get());
  // A distributed rank always runs, canceled or not, so that it passes the common start.
  if (!canceled_.load() || session) {
    if (canceled_.load()) bench->cancel();
    const bool split = recorders.size() > 1;
    FailFast fail_fast(config.fail_fast);
    ErrorRateGuard error_rate(config.abort_on_error_rate);
    driver::Benchmark* running = bench.get();
    bench->run(
        [this, &recorders, split, &fail_fast, &error_rate, running](core::RequestRecord&& r) {
          // A server may echo a credential in its error text (OpenAI echoes part of a bad key).
          if (!r.ok() && !secrets_.empty()) r.error_message = redact(std::move(r.error_message));
          if (fail_fast.observe(r) || error_rate.observe(r)) running->cancel();
          recorders[split ? std::min<std::size_t>(r.endpoint, recorders.size() - 1) : 0]->add(
              std::move(r));
        },
        measure_edge);
    outcome.failed_fast = fail_fast.verdict();
    outcome.error_rate_stop = error_rate.verdict();
  }
  running_.store(nullptr);
  std::vector<telemetry::GpuSample> gpu_samples;
  std::optional<telemetry::GpuSamplerInfo> gpu_info;
  if (gpu) {
    // One sample after the measure phase's end, so that the energy spans the whole phase.
    if (measure_end != core::kNever && !canceled_.load()) {
      gpu->wait_for_sample_after(measure_end,
                                 std::chrono::milliseconds(std::min<long>(
                                     5000, std::lround(config.metrics_interval_s * 2000) + 500)));
    }
    gpu->stop();
    gpu_samples = gpu->samples();
    gpu_info = gpu->info();
    gpu_info->first_error = redact(std::move(gpu_info->first_error));
  }
  last_bench_ = std::move(bench);
  last_config_ = std::move(pending_config);
  if (progress) progress->stop();
  // A stop by --fail-fast or --max-error-rate is a finding about the server, not an interruption.
  const std::string guard = !outcome.failed_fast.empty() ? "--fail-fast: " + outcome.failed_fast
                            : !outcome.error_rate_stop.empty()
                                ? "--abort-on-error-rate: " + outcome.error_rate_stop
                                : std::string();
  outcome.canceled = canceled_.load() || (last_bench_->canceled() && guard.empty());
  // An interruption is said as such, so that a partial result never passes for a whole one.
  const std::string stopped = !guard.empty()     ? guard
                              : canceled_.load() ? interruption()
                              : outcome.canceled ? std::string("the run was stopped before its end")
                                                 : std::string();
  {
    std::lock_guard<std::mutex> lock(recorders_mutex_);
    live_recorders_.clear();
  }
  for (auto& r : recorders) r->close();
  if (common_start != core::kNever) measure_start = common_start;
  std::optional<distributed::Merged> merged;
  if (session) {
    distributed::LeaderShare own;
    for (auto& r : recorders) own.parts.push_back(r->records());
    own.cpu = last_bench_->cpu_samples();
    own.measure_start = measure_start;
    own.measure_end = measure_end;
    own.canceled = outcome.canceled;
    if (follower) {
      session->send_report(rank_report(*session, last_bench_->clock(), own));
      return outcome;
    }
    std::vector<std::string> dirs;
    for (const auto& part : parts) dirs.push_back(part.second.output_dir);
    merged = distributed::merge_level(*session, std::move(own),
                                      session->gather_reports(outcome.canceled), dirs,
                                      config.records_compress == "zstd");
    scrape_edge(false);
    outcome.canceled = outcome.canceled || merged->canceled;
    outcome.partial = merged->partial;
    partial_ = partial_ || merged->partial;
    measure_start = merged->measure_start;
    measure_end = merged->measure_end;
    for (std::size_t i = 0; i < parts.size(); ++i) {
      write_merged_records(parts[i].second.output_dir, merged->parts[i],
                           config.records_compress == "zstd", merged->distributed[i]);
    }
  }
  for (std::size_t i = 0; i < parts.size(); ++i) {
    records::RunNotes notes;
    notes.stopped = stopped;
    if (scrapers[i]) {
      scrapers[i]->stop();
      notes.scrapes = scrapers[i]->scrapes();
      for (auto& s : notes.scrapes) s.error = redact(std::move(s.error));
      notes.metrics_url = metrics_urls[i];
    }
    notes.client_cpu = merged ? merged->cpu : last_bench_->cpu_samples();
    if (merged) notes.distributed = merged->distributed[i];
    notes.measure_start = measure_start;
    notes.measure_end = measure_end;
    notes.gpu_samples = gpu_samples;
    notes.gpu_sampler = gpu_info;
    notes.gpu_shared = parts.size() > 1;
    notes.environment = telemetry::environment_json(
        host_, options_.command_line, config.started_at,
        servers_.empty() ? nlohmann::json() : servers_[std::min(i, servers_.size() - 1)],
        gpu_info ? telemetry::gpus_summary(gpu_samples, *gpu_info) : nlohmann::json(), labels,
        [this](std::string s) { return redact(std::move(s)); });
    outcome.parts.push_back(write_part(parts[i].first, parts[i].second,
                                       merged ? merged->parts[i] : recorders[i]->records(), notes));
  }
  return outcome;
}

std::unique_ptr<collect::GpuSampler> Runner::start_gpu_sampler(const core::RunConfig& config,
                                                               const core::RunClock& clock) {
  const std::string& mode = config.gpu_metrics;
  if (mode == "off" || (mode == "auto" && gpu_auto_off_)) return nullptr;
  const bool automatic = mode == "auto";
  const auto say_no_sampler = [this](const std::string& why) {
    gpu_auto_off_ = true;
    std::fprintf(stderr,
                 "tokenbench: no GPU sampler: %s (use --gpu-metrics dcgm=URL for a remote "
                 "server's GPUs)\n",
                 core::one_line(why).c_str());
  };
  if (automatic && !collect::find_on_path("nvidia-smi")) {
    say_no_sampler("nvidia-smi is not on PATH");
    return nullptr;
  }
  const bool dcgm = mode.rfind("dcgm=", 0) == 0;
  std::unique_ptr<collect::GpuSampler> sampler;
  try {
    sampler = dcgm ? collect::GpuSampler::dcgm(mode.substr(5), config.metrics_interval_s, clock)
                   : collect::GpuSampler::nvidia_smi(config.metrics_interval_s, clock);
  } catch (const std::exception& e) {
    if (automatic) {
      say_no_sampler(e.what());
    } else {
      std::fprintf(stderr, "tokenbench: warning: --gpu-metrics %s: %s; no GPU figures\n",
                   mode.c_str(), core::one_line(redact(e.what())).c_str());
    }
    return nullptr;
  }
  // nvidia-smi answers at once; a first sample slower than this will not make a time series.
  const auto first_wait = std::chrono::milliseconds(
      std::max<long>(5000, std::lround(config.metrics_interval_s * 2000)));
  if (sampler->wait_for_sample_after(core::kNever, first_wait)) return sampler;
  const telemetry::GpuSamplerInfo info = sampler->info();
  const std::string why = info.first_error.empty() ? "no sample arrived" : info.first_error;
  if (automatic) {
    sampler->stop();
    say_no_sampler("nvidia-smi gave no sample: " + why);
    return nullptr;
  }
  std::fprintf(stderr, "tokenbench: warning: --gpu-metrics %s: %s; sampling goes on\n",
               mode.c_str(), core::one_line(redact(why)).c_str());
  return sampler;
}

LevelResult Runner::write_part(const std::string& name, const core::RunConfig& config,
                               const std::vector<core::RequestRecord>& records,
                               const records::RunNotes& notes) const {
  LevelResult result;
  result.name = name;
  result.dir = config.output_dir;
  // The summary first (write_run_outputs); every other file after it, each a warning when it
  // cannot be written (a full disk): what was measured is never lost to a side file.
  report::RunOutputs out;
  try {
    out = report::write_run_outputs(config.output_dir, records, config, notes);
  } catch (const std::exception& e) {
    throw RunError(e.what(), true);
  }
  const std::string& dir = config.output_dir;
  if (!notes.environment.is_null()) {
    records::write_optional([&] { records::write_environment(dir, notes.environment); });
  }
  if (!notes.scrapes.empty() || notes.gpu_sampler || !notes.client_cpu.empty()) {
    records::write_optional([&] { records::write_telemetry(dir, notes); });
  }
  if (report::wants_csv_export(config.exports)) {
    records::write_optional_file(dir + "/" + report::kRequestsCsvFile,
                                 [&] { return report::requests_to_csv(records); });
  }
  result.summary = std::move(out.summary);
  result.summary_json = std::move(out.summary_json);
  result.console = std::move(out.console);
  result.not_saved = std::move(out.not_saved);
  return result;
}

}  // namespace tokenbench::experiment
