// `tokenbench run`: parses flags into a RunConfig, resolves the target, and drives a Benchmark.

#include <fmt/core.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>
#include <sstream>
#include <thread>
#include <tuple>

#include "tokenbench/cli/commands.h"
#include "tokenbench/client/credentials.h"
#include "tokenbench/client/http_get.h"
#include "tokenbench/core/clock.h"
#include "tokenbench/core/run_config.h"
#include "tokenbench/load/benchmark.h"
#include "tokenbench/metrics/summary.h"
#include "tokenbench/metrics/token_counts.h"
#include "tokenbench/report/recorder.h"
#include "tokenbench/report/run_outputs.h"
#include "tokenbench/tokenizer/tokenizer.h"
#include "tokenbench/workload/workload.h"

namespace tokenbench::cli {
namespace {

struct RunFlags {
  core::RunConfig config;
  std::string api;  // empty: inferred from the endpoint
  std::string arrival = "gamma";
  std::string percentiles = "50,90,95,99";
  bool no_stream = false;
  bool no_ignore_eos = false;
  bool quiet = false;
};

std::atomic<load::Benchmark*> g_running{nullptr};

extern "C" void on_interrupt(int sig) {
  if (load::Benchmark* b = g_running.load()) b->cancel();
  std::signal(sig, SIG_DFL);  // a second Ctrl-C (or SIGTERM) ends the process at once
}

class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

std::vector<double> parse_percentiles(const std::string& text) {
  std::vector<double> out;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ',')) {
    try {
      std::size_t used = 0;
      const double p = std::stod(item, &used);
      if (used != item.size() || !(p > 0 && p < 100)) throw std::invalid_argument(item);
      out.push_back(p);
    } catch (const std::exception&) {
      throw UsageError("--percentiles: '" + item +
                       "' is not a number between 0 and 100 (e.g. --percentiles 50,90,99)");
    }
  }
  if (out.empty()) throw UsageError("--percentiles needs at least one value, e.g. 50,90,99");
  return out;
}

std::string trim_slashes(std::string url) {
  while (!url.empty() && url.back() == '/') url.pop_back();
  return url;
}

void finalize_config(RunFlags& f) {
  core::RunConfig& c = f.config;
  c.base_url = trim_slashes(c.base_url);
  if (c.base_url.rfind("http://", 0) != 0 && c.base_url.rfind("https://", 0) != 0) {
    throw UsageError("--base-url '" + c.base_url +
                     "' must start with http:// or https:// (e.g. http://127.0.0.1:8000)");
  }
  if (c.endpoint.empty() || c.endpoint.front() != '/') c.endpoint = "/" + c.endpoint;
  if (f.api.empty()) {
    c.api = c.endpoint.find("chat") != std::string::npos ? core::ApiKind::kOpenAIChat
                                                         : core::ApiKind::kOpenAICompletions;
  } else if (f.api == "openai-chat") {
    c.api = core::ApiKind::kOpenAIChat;
  } else if (f.api == "openai") {
    c.api = core::ApiKind::kOpenAICompletions;
  } else {
    throw UsageError("--api '" + f.api + "' is not known: use openai-chat or openai");
  }
  if (f.arrival == "gamma" || f.arrival == "poisson") {
    c.arrival = core::ArrivalKind::kGamma;
    if (f.arrival == "poisson") c.burstiness = 1.0;
  } else if (f.arrival == "constant") {
    c.arrival = core::ArrivalKind::kConstant;
  } else {
    throw UsageError("--arrival '" + f.arrival + "' is not known: use gamma, poisson or constant");
  }
  c.stream = !f.no_stream;
  c.ignore_eos = !f.no_ignore_eos;
  c.percentiles = parse_percentiles(f.percentiles);
  if (!(c.request_rate > 0)) throw UsageError("--request-rate must be > 0 (or inf)");
  if (!(c.burstiness > 0)) throw UsageError("--burstiness must be > 0");
  if (c.max_concurrency < 0) throw UsageError("--max-concurrency must be >= 0");
  if (c.num_prompts < 0 || c.warmup < 0)
    throw UsageError("--num-prompts and --warmup must be >= 0");
  if (c.duration_s < 0) throw UsageError("--duration must be >= 0");
  if (c.num_prompts == 0 && c.duration_s == 0) c.num_prompts = 1000;  // vLLM's default
  if (c.input_len < 1) throw UsageError("--input-len must be >= 1");
  if (c.output_len < 0 || (c.output_len == 0 && c.dataset == "random")) {
    throw UsageError("--output-len must be >= 1 (with --dataset jsonl, 0 leaves max_tokens unset)");
  }
  if (c.range_ratio < 0 || c.range_ratio >= 1) throw UsageError("--range-ratio must be in [0, 1)");
  if (c.random_prefix_len < 0) throw UsageError("--random-prefix-len must be >= 0");
  if (!(c.timeout_s > 0)) throw UsageError("--timeout must be > 0 seconds");
  for (const auto& h : c.headers) {
    if (h.find(':') == std::string::npos) {
      throw UsageError("--header '" + h + "' must look like 'Name: value'");
    }
  }
  try {
    metrics::parse_slo(c.goodput);
  } catch (const std::invalid_argument& e) {
    throw UsageError(std::string("--goodput: ") + e.what());
  }
  if (c.dataset == "jsonl" && !std::filesystem::is_regular_file(c.dataset_path)) {
    throw UsageError("dataset file '" + c.dataset_path +
                     "' does not exist: check --dataset-path (a JSON Lines file)");
  }
}

// Lets thousands of streams open their sockets.
void raise_fd_limit() {
  rlimit lim{};
  if (getrlimit(RLIMIT_NOFILE, &lim) == 0 && lim.rlim_cur < lim.rlim_max) {
    lim.rlim_cur = lim.rlim_max;
    setrlimit(RLIMIT_NOFILE, &lim);
  }
}

std::string default_output_dir(const core::RunConfig& c) {
  std::string model = c.model;  // "org/name" must not become a subfolder
  for (char& ch : model) {
    if (!std::isalnum(static_cast<unsigned char>(ch)) && ch != '.' && ch != '-' && ch != '_') {
      ch = '_';
    }
  }
  return "results/" + core::compact_timestamp(c.started_at) + "-" +
         (model.empty() ? "model" : model);
}

// Splits "scheme://user:pass@host/..." into the URL without its credentials and the credentials.
std::pair<std::string, std::string> split_userinfo(const std::string& url) {
  const auto scheme_end = url.find("://");
  if (scheme_end == std::string::npos) return {url, ""};
  const auto authority = scheme_end + 3;
  const auto authority_end = url.find('/', authority);
  const auto at = url.rfind('@', authority_end == std::string::npos ? url.size() : authority_end);
  if (at == std::string::npos || at < authority) return {url, ""};
  return {url.substr(0, authority) + url.substr(at + 1), url.substr(authority, at - authority)};
}

// Every credential this run knows, to be cut out of anything it prints or writes.
std::vector<std::string> collect_secrets(const core::RunConfig& c,
                                         const std::optional<std::string>& api_key,
                                         const std::string& userinfo) {
  std::vector<std::string> secrets;
  if (api_key) secrets.push_back(*api_key);
  if (!userinfo.empty()) {
    secrets.push_back(userinfo);
    if (const auto colon = userinfo.find(':'); colon != std::string::npos) {
      secrets.push_back(userinfo.substr(colon + 1));
    }
  }
  for (const auto& h : c.headers) {
    if (!core::is_secret_header(h)) continue;
    std::string value = h.substr(h.find(':') + 1);
    value.erase(0, value.find_first_not_of(' '));
    if (value.rfind("Bearer ", 0) == 0) secrets.push_back(value.substr(7));
    if (!value.empty()) secrets.push_back(value);
  }
  // Longest first, so that a secret containing another is cut whole.
  std::sort(secrets.begin(), secrets.end(),
            [](const std::string& a, const std::string& b) { return a.size() > b.size(); });
  return secrets;
}

std::string redact_all(std::string text, const std::vector<std::string>& secrets) {
  for (const auto& s : secrets) text = client::redact(std::move(text), s);
  return text;
}

int run_command(RunFlags& f) {
  try {
    finalize_config(f);
  } catch (const UsageError& e) {
    std::fprintf(stderr, "tokenbench: error: %s\n", e.what());
    return kExitUsage;
  }
  core::RunConfig& c = f.config;
  c.started_at = core::wall_clock_iso8601();

  load::Target target;
  target.base_url = c.base_url;  // credentials in the URL are used, but never shown or written
  std::string userinfo;
  std::tie(c.base_url, userinfo) = split_userinfo(c.base_url);
  target.headers = c.headers;
  const std::optional<std::string> api_key = client::find_api_key(c.api_key_env);
  if (api_key) target.headers.push_back("Authorization: Bearer " + *api_key);
  const std::vector<std::string> secrets = collect_secrets(c, api_key, userinfo);

  // Preflight: the server must answer before we measure it; /v1/models also names the model.
  const auto models = client::http_get(target.base_url + "/v1/models", target.headers, 10.0);
  if (!models.transport_ok) {
    std::fprintf(stderr,
                 "tokenbench: error: cannot reach %s: %s. Is the server running? Check "
                 "--base-url.\n",
                 c.base_url.c_str(), redact_all(models.error, secrets).c_str());
    return kExitNoMeasure;
  }
  if (c.model.empty()) {
    const auto id = models.status == 200 ? client::first_model_id(models.body) : std::nullopt;
    if (!id) {
      std::fprintf(stderr,
                   "tokenbench: error: %s/v1/models (HTTP %ld) names no model: pass --model "
                   "NAME\n",
                   c.base_url.c_str(), models.status);
      return kExitNoMeasure;
    }
    c.model = *id;
  }
  if (c.output_dir.empty()) c.output_dir = default_output_dir(c);

  std::unique_ptr<load::Benchmark> bench;
  std::unique_ptr<tokenizer::Tokenizer> tok;
  try {
    if (!c.tokenizer.empty()) {
      tokenizer::LoadOptions options;
      options.tiktoken_encoding = c.tiktoken_encoding;
      tok = tokenizer::load_tokenizer(c.tokenizer, options);
    }
    std::filesystem::create_directories(c.output_dir);
    report::write_text_file(c.output_dir + "/" + report::kConfigFile, core::to_yaml(c));
    bench = std::make_unique<load::Benchmark>(
        c, std::move(target), workload::build_workload(c, tok.get()), tok != nullptr);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tokenbench: error: %s\n", e.what());
    return kExitUsage;
  }
  raise_fd_limit();
  // Output tokens are counted with the tokenizer on the recorder's thread, off the engine's.
  report::Recorder::Finalizer count_tokens;
  if (tok) {
    count_tokens = [&tok](core::RequestRecord& r) { metrics::count_output_tokens(*tok, r); };
  }
  report::Recorder recorder(c.output_dir + "/" + report::kRequestsFile, count_tokens);

  if (!f.quiet) {
    std::fprintf(stderr, "tokenbench: %s%s model %s, %s, %d worker%s -> %s\n", c.base_url.c_str(),
                 c.endpoint.c_str(), c.model.c_str(),
                 c.num_prompts > 0 ? fmt::format("{} requests", c.num_prompts).c_str()
                                   : fmt::format("{} s", c.duration_s).c_str(),
                 bench->workers(), bench->workers() == 1 ? "" : "s", c.output_dir.c_str());
  }
  std::atomic<bool> finished{false};
  std::thread progress;
  if (!f.quiet && isatty(STDERR_FILENO)) {
    progress = std::thread([&] {
      const auto t0 = std::chrono::steady_clock::now();
      while (!finished.load()) {
        std::this_thread::sleep_for(std::chrono::milliseconds(500));
        const double s =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        std::fprintf(stderr, "\r  %lld done, %lld failed, %.1f s   ",
                     static_cast<long long>(recorder.finished()),
                     static_cast<long long>(recorder.failed()), s);
      }
      std::fprintf(stderr, "\n");
    });
  }

  g_running.store(bench.get());
  std::signal(SIGINT, on_interrupt);
  std::signal(SIGTERM, on_interrupt);
  bench->run([&recorder, &secrets](core::RequestRecord&& r) {
    // A server may echo a credential in its error text (OpenAI echoes part of a bad key).
    if (!r.ok() && !secrets.empty())
      r.error_message = redact_all(std::move(r.error_message), secrets);
    recorder.add(std::move(r));
  });
  std::signal(SIGINT, SIG_DFL);
  std::signal(SIGTERM, SIG_DFL);
  g_running.store(nullptr);
  finished.store(true);
  if (progress.joinable()) progress.join();
  recorder.close();

  report::RunOutputs out;
  try {
    out = report::write_run_outputs(c.output_dir, recorder.records(), c);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tokenbench: error: %s\n", e.what());
    return kExitNoMeasure;
  }
  std::fputs(out.console.c_str(), stdout);
  std::printf("Results: %s\n", c.output_dir.c_str());
  if (bench->canceled()) std::fprintf(stderr, "tokenbench: interrupted; partial results kept\n");
  if (out.summary.completed == 0) {
    std::string why;
    if (!out.summary.error_examples.empty()) {
      why = ": " + out.summary.error_examples.begin()->first + ": " +
            out.summary.error_examples.begin()->second;
    }
    std::fprintf(stderr, "tokenbench: error: no request succeeded%s\n", why.c_str());
    return kExitNoMeasure;
  }
  return kExitOk;
}

}  // namespace

void add_run_command(CLI::App& app, int& exit_code) {
  auto flags = std::make_shared<RunFlags>();
  core::RunConfig& c = flags->config;
  CLI::App* cmd = app.add_subcommand("run", "Benchmark an OpenAI-compatible server");
  // Target
  cmd->add_option("--base-url", c.base_url, "Server URL, e.g. http://127.0.0.1:8000")
      ->capture_default_str();
  cmd->add_option("--endpoint", c.endpoint, "Request path")->capture_default_str();
  cmd->add_option("--api", flags->api,
                  "openai-chat | openai (legacy completions); default: inferred from --endpoint");
  cmd->add_option("--model", c.model, "Model name; default: the first id of GET /v1/models");
  cmd->add_option("--header", c.headers, "Extra request header 'Name: value' (repeatable)");
  cmd->add_option("--extra-body", c.extra_body,
                  "JSON object merged into every request body, e.g. '{\"temperature\":0}'");
  cmd->add_option("--timeout", c.timeout_s, "Per-request timeout in seconds")
      ->capture_default_str();
  cmd->add_option("--api-key-env", c.api_key_env,
                  "Environment variable (or .env key) holding the API key")
      ->capture_default_str();
  cmd->add_flag("--no-stream", flags->no_stream, "Non-streaming requests (TTFT undefined)");
  // Load
  cmd->add_option("--max-concurrency", c.max_concurrency,
                  "Requests in flight at most (closed loop); 0: unlimited")
      ->capture_default_str();
  cmd->add_option("--request-rate", c.request_rate,
                  "Arrivals per second (open loop); inf: all at once")
      ->capture_default_str();
  cmd->add_option("--burstiness", c.burstiness, "Gamma shape of inter-arrival gaps; 1 is Poisson")
      ->capture_default_str();
  cmd->add_option("--arrival", flags->arrival, "gamma | poisson | constant")->capture_default_str();
  cmd->add_option("--num-prompts", c.num_prompts,
                  "Requests to measure (default 1000 when --duration is not given)");
  cmd->add_option("--duration", c.duration_s, "Stop issuing requests after this many seconds");
  cmd->add_option("--warmup", c.warmup, "Requests sent before measuring, not aggregated")
      ->capture_default_str();
  cmd->add_option("--seed", c.seed, "Seed of the workload and the arrival schedule")
      ->capture_default_str();
  cmd->add_option("--workers", c.workers,
                  "Worker threads; 0: one per core (at most the concurrency)")
      ->capture_default_str();
  // Workload
  cmd->add_option("--dataset", c.dataset, "random | jsonl")->capture_default_str();
  cmd->add_option("--dataset-path", c.dataset_path, "JSON Lines file for --dataset jsonl");
  cmd->add_option("--input-len", c.input_len, "Random prompt length in tokens")
      ->capture_default_str();
  cmd->add_option("--output-len", c.output_len, "Output length in tokens (sent as max_tokens)")
      ->capture_default_str();
  cmd->add_option("--range-ratio", c.range_ratio,
                  "Random lengths drawn from [len*(1-r), len*(1+r)]")
      ->capture_default_str();
  cmd->add_option("--random-prefix-len", c.random_prefix_len,
                  "Random prefix of this many tokens shared by every prompt")
      ->capture_default_str();
  cmd->add_option("--tokenizer", c.tokenizer,
                  "tokenizer.json, tokenizer.model, *.tiktoken or a model folder: token-exact "
                  "prompts and local token counts");
  cmd->add_option("--tiktoken-encoding", c.tiktoken_encoding,
                  "cl100k_base | o200k_base, for a .tiktoken file not named after one");
  cmd->add_flag("--no-ignore-eos", flags->no_ignore_eos,
                "Do not send ignore_eos/min_tokens (for servers that reject them)");
  // Figures and output
  cmd->add_option("--percentiles", flags->percentiles, "Percentiles to report, comma-separated")
      ->capture_default_str();
  cmd->add_option("--goodput", c.goodput, "SLOs for goodput, e.g. --goodput ttft:200 tpot:50")
      ->expected(1, 4);
  cmd->add_option("--output-dir", c.output_dir,
                  "Results directory (default results/<timestamp>-<model>)");
  cmd->add_flag("--quiet", flags->quiet, "No progress line");
  cmd->callback([flags, &exit_code] { exit_code = run_command(*flags); });
}

}  // namespace tokenbench::cli
