// The flags of one measurement, shared by `tokenbench run` and `tokenbench search`.

#include "tokenbench/cli/run_flags.h"

#include <fmt/core.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string_view>
#include <thread>

#include "tokenbench/cli/commands.h"
#include "tokenbench/cli/memory_check.h"
#include "tokenbench/client/credentials.h"
#include "tokenbench/client/http_get.h"
#include "tokenbench/client/http_target.h"
#include "tokenbench/client/tls_options.h"
#include "tokenbench/core/clock.h"
#include "tokenbench/core/config_check.h"
#include "tokenbench/core/file_kind.h"
#include "tokenbench/core/input_limits.h"
#include "tokenbench/core/json_parse.h"
#include "tokenbench/core/text.h"
#include "tokenbench/distributed/mpi_comm.h"
#include "tokenbench/distributed/session.h"
#include "tokenbench/experiment/slo_expr.h"
#include "tokenbench/load/think_time.h"
#include "tokenbench/metrics/buckets.h"
#include "tokenbench/metrics/summary.h"
#include "tokenbench/records/recorder.h"
#include "tokenbench/records/results_dir.h"
#include "tokenbench/report/console.h"
#include "tokenbench/report/csv_export.h"
#include "tokenbench/report/html_report.h"
#include "tokenbench/telemetry/environment.h"
#include "tokenbench/workload/length_dist.h"
#include "tokenbench/workload/synthetic_image.h"
#include "tokenbench/workload/workload.h"

namespace tokenbench::cli {
namespace {

std::vector<std::string> split_commas(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ',')) {
    item.erase(0, item.find_first_not_of(' '));
    item.erase(item.find_last_not_of(' ') + 1);
    out.push_back(item);
  }
  return out;
}

double parse_number(const std::string& item, const char* flag, const char* example) {
  try {
    std::size_t used = 0;
    const double v = std::stod(item, &used);
    if (used != item.size()) throw std::invalid_argument(item);
    return v;
  } catch (const std::exception&) {
    throw UsageError(
        fmt::format("{}: '{}' is not a number (e.g. {} {})", flag, item, flag, example));
  }
}

std::vector<double> parse_percentiles(const std::string& text) {
  std::vector<double> out;
  for (const auto& item : split_commas(text)) {
    const double p = parse_number(item, "--percentiles", "50,90,99");
    if (!(p > 0 && p < 100)) {
      throw UsageError("--percentiles: '" + item +
                       "' is not a number between 0 and 100 (e.g. --percentiles 50,90,99)");
    }
    out.push_back(p);
  }
  if (out.empty()) throw UsageError("--percentiles needs at least one value, e.g. 50,90,99");
  return out;
}

std::vector<int> parse_concurrencies(const std::string& text) {
  std::vector<int> out;
  for (const auto& item : split_commas(text)) {
    const double v = parse_number(item, "--max-concurrency", "1,8,32");
    if (!(v >= 0 && v <= core::kMaxConcurrency) || v != std::floor(v)) {
      throw UsageError(
          fmt::format("--max-concurrency {} is out of range: give a whole number from 0 to {} (0: "
                      "unlimited), e.g. 1,8,32",
                      item, core::kMaxConcurrency));
    }
    out.push_back(static_cast<int>(v));
  }
  if (out.empty()) throw UsageError("--max-concurrency needs a value, e.g. 32 or 1,8,32");
  return out;
}

std::vector<double> parse_rates(const std::string& text) {
  std::vector<double> out;
  for (const auto& item : split_commas(text)) {
    const double v = item == "inf" ? INFINITY : parse_number(item, "--request-rate", "1,2,4");
    if (!(v > 0)) throw UsageError("--request-rate must be > 0 (or inf)");
    out.push_back(v);
  }
  if (out.empty()) throw UsageError("--request-rate needs a value, e.g. 8 or 1,2,4");
  return out;
}

std::string trim_slashes(std::string url) {
  while (!url.empty() && url.back() == '/') url.pop_back();
  return url;
}

// The authority of an http(s) URL (after "scheme://", before the path): [userinfo@]host[:port]
// with a host name, an IPv4 address or a bracketed IPv6 address, and a port from 1 to 65535.
// Returns why it is not one, or "".
std::string authority_problem(std::string_view authority) {
  if (const auto at = authority.rfind('@'); at != std::string_view::npos) {
    authority.remove_prefix(at + 1);  // user:password@ (credentials, never shown)
  }
  std::string_view host = authority;
  std::string_view port;
  if (!authority.empty() && authority.front() == '[') {
    const auto close = authority.find(']');
    if (close == std::string_view::npos) return "its IPv6 address has no closing ']'";
    host = authority.substr(0, close + 1);
    const std::string_view rest = authority.substr(close + 1);
    if (!rest.empty() && rest.front() != ':') return "text follows its IPv6 address's ']'";
    if (!rest.empty()) port = rest.substr(1);
    if (host.size() == 2) return "its IPv6 address is empty";
  } else {
    if (const auto colon = authority.rfind(':'); colon != std::string_view::npos) {
      host = authority.substr(0, colon);
      port = authority.substr(colon + 1);
      if (host.find(':') != std::string_view::npos) {
        return "an IPv6 address goes in brackets, e.g. http://[::1]:8000";
      }
    }
    if (host.find_first_of("[]") != std::string_view::npos) return "its host holds a bracket";
  }
  if (host.empty()) return "it names no host";
  if (host.find_first_of(" \t<>\"{}|\\^`") != std::string_view::npos) {
    return "its host holds a character a host name cannot";
  }
  if (authority.size() != host.size() && port.empty()) return "its port is empty";
  if (!port.empty()) {
    if (port.size() > 5 || port.find_first_not_of("0123456789") != std::string_view::npos) {
      return "its port '" + std::string(port) + "' is not a number from 1 to 65535";
    }
    const int n = std::stoi(std::string(port));
    if (n < 1 || n > 65535) return "its port " + std::to_string(n) + " is not from 1 to 65535";
  }
  return "";
}

std::string checked_url(const std::string& given) {
  std::string url = trim_slashes(given);
  const bool https = url.rfind("https://", 0) == 0;
  if (url.rfind("http://", 0) != 0 && !https) {
    throw UsageError("--base-url '" + core::one_line(url) +
                     "' must start with http:// or https:// (e.g. http://127.0.0.1:8000)");
  }
  const std::size_t start = https ? 8 : 7;
  const std::size_t end = url.find_first_of("/?#", start);
  const std::size_t length = end == std::string::npos ? std::string::npos : end - start;
  const std::string problem = authority_problem(std::string_view(url).substr(start, length));
  if (!problem.empty()) {
    throw UsageError("--base-url '" + core::one_line(client::split_userinfo(url).first) +
                     "' is not a valid URL: " + problem + " (e.g. http://127.0.0.1:8000)");
  }
  return url;
}

std::vector<std::string> g_command_line;

std::atomic<experiment::Runner*> g_running{nullptr};
std::atomic<bool> g_interrupted{false};
std::atomic<bool> g_exit_now{false};
std::atomic<int> g_signal{0};  // the first signal that stopped the run

extern "C" void on_interrupt(int signal_number) {
  // The first Ctrl-C (or SIGTERM) stops the run, which then reports what it measured; a second
  // one asks for an exit at once, after the records measured so far are written.
  if (g_interrupted.exchange(true)) {
    g_exit_now.store(true);
    return;
  }
  g_signal.store(signal_number);
  if (experiment::Runner* r = g_running.load()) r->cancel(signal_number);
}

}  // namespace

void set_command_line(int argc, char** argv) {
  g_command_line.assign(argv, argv + argc);
  // EvalScope's --api-key KEY: the key never reaches the environment record.
  for (std::size_t i = 0; i < g_command_line.size(); ++i) {
    std::string& a = g_command_line[i];
    if (a == "--api-key" && i + 1 < g_command_line.size()) {
      g_command_line[i + 1] = "<redacted>";
    } else if (a.rfind("--api-key=", 0) == 0) {
      a = "--api-key=<redacted>";
    }
  }
}

const std::vector<std::string>& command_line() { return g_command_line; }

int print_unsaved(const std::string& why, const nlohmann::json& document) {
  std::fputs(document.dump(2, ' ', false, nlohmann::json::error_handler_t::replace).c_str(),
             stdout);
  std::fputs("\n", stdout);
  std::fflush(stdout);
  std::fprintf(stderr,
               "tokenbench: error: the requests were measured, but the summary was not saved: "
               "%s. It is printed on stdout above (its only copy); free space and keep it (exit "
               "%d)\n",
               core::one_line(why).c_str(), kExitNotSaved);
  return kExitNotSaved;
}

std::pair<std::string, std::string> split_api_path(const std::string& url) {
  const auto scheme_end = url.find("://");
  const auto path_start = url.find('/', scheme_end == std::string::npos ? 0 : scheme_end + 3);
  if (path_start == std::string::npos) return {url, ""};
  const std::string path = url.substr(path_start);
  for (const char* endpoint : {"/v1/chat/completions", "/v1/completions", "/v1/embeddings",
                               "/v1/messages", "/v1/responses"}) {
    const std::string e(endpoint);
    if (path.size() >= e.size() && path.compare(path.size() - e.size(), e.size(), e) == 0) {
      return {url.substr(0, url.size() - e.size()), e};
    }
  }
  if (path.size() >= 3 && path.compare(path.size() - 3, 3, "/v1") == 0) {
    return {url.substr(0, url.size() - 3), "/v1"};
  }
  return {url, ""};
}

// checked_url, then split_api_path; says in one line what it changed. A whole endpoint found in
// the URL becomes `endpoint`; an --endpoint given that differs from it is refused.
std::string forgiving_url(const std::string& given, std::string& endpoint, bool endpoint_given,
                          bool* from_url) {
  const std::string url = checked_url(given);
  auto [base, found] = split_api_path(url);
  if (found.empty()) return url;
  // Said without the URL's user:password@, which is a credential.
  const std::string shown_url = client::split_userinfo(url).first;
  const std::string shown_base = client::split_userinfo(base).first;
  if (found == "/v1") {
    std::fprintf(stderr,
                 "tokenbench: note: --base-url ends in /v1: using %s as the server root (the "
                 "endpoint %s carries the /v1)\n",
                 shown_base.c_str(), endpoint.c_str());
    return base;
  }
  if (endpoint_given && endpoint != found) {
    throw UsageError(fmt::format(
        "--base-url {} names the endpoint {}, but --endpoint says {}: give the server root as "
        "--base-url, or leave out --endpoint (the URL decides)",
        shown_url, found, endpoint));
  }
  endpoint = found;
  if (from_url != nullptr) *from_url = true;
  std::fprintf(stderr,
               "tokenbench: note: --base-url %s is a whole endpoint URL: using base %s and "
               "--endpoint %s\n",
               shown_url.c_str(), shown_base.c_str(), endpoint.c_str());
  return base;
}

int with_runner(core::RunConfig& config, experiment::Runner::Options options,
                const std::string& dir_suffix,
                const std::function<int(experiment::Runner&)>& body) {
  config.started_at = core::wall_clock_iso8601();
  // Started by mpirun (or the MPI Operator): one rank of a distributed run (docs/DISTRIBUTED.md).
  std::unique_ptr<distributed::Comm> comm;
  std::unique_ptr<distributed::Session> session;
  if (distributed::launched_ranks() > 1) {
    try {
      comm = distributed::join_mpi_world();
    } catch (const std::exception& e) {
      std::fprintf(stderr, "tokenbench: error: started by mpirun, but %s\n", e.what());
      return kExitUsage;
    }
    session = std::make_unique<distributed::Session>(*comm);
    options.session = session.get();
  }
  const bool leader = session == nullptr || session->leader();
  int code = kExitOk;
  try {
    std::unique_ptr<experiment::Runner> made;
    try {
      made = std::make_unique<experiment::Runner>(config, options);
    } catch (const experiment::RunError& e) {
      if (leader) throw;
      // The leader goes on without this rank; it stays until the leader's finish, so that the
      // MPI job ends as one.
      std::fprintf(stderr, "tokenbench: error: rank %d takes no part: %s\n", session->rank(),
                   e.what());
      session->say_hello(e.what());
      while (session->await_level({})) {
      }
      return kExitOk;
    }
    experiment::Runner& runner = *made;
    if (session && leader) {
      for (const auto& a : session->hear_hellos()) {
        std::fprintf(stderr, "tokenbench: warning: rank %d (%s) takes no part: %s\n", a.rank,
                     a.host.c_str(), core::one_line(a.why).c_str());
      }
    } else if (session) {
      session->say_hello("");
    }
    // The default directory is claimed (created) by the leader alone: followers take the
    // directory the leader announces with each measurement.
    bool claimed = false;
    if (config.output_dir.empty()) {
      config.output_dir = default_output_dir(config) + dir_suffix;
      if (leader) {
        config.output_dir = claim_output_dir(config.output_dir);
        claimed = true;
      }
    }
    // A command that wrote nothing leaves no empty directory it claimed behind.
    struct Unclaim {
      const std::string& dir;
      bool claimed;
      ~Unclaim() {
        std::error_code ec;
        if (claimed && std::filesystem::is_empty(dir, ec)) std::filesystem::remove(dir, ec);
      }
    } unclaim{config.output_dir, claimed};
    g_running.store(&runner);
    std::signal(SIGINT, on_interrupt);
    std::signal(SIGTERM, on_interrupt);
    // Watches for a second signal: flushes what was measured and exits at once, whatever the
    // run is doing (a signal handler itself may not write files).
    std::atomic<bool> done{false};
    std::thread watcher([&runner, &done] {
      while (!done.load()) {
        if (g_exit_now.load()) {
          runner.flush_records();
          std::fputs(
              "tokenbench: stopped at once; requests.jsonl holds every request measured "
              "so far (tokenbench report DIR rebuilds the summary)\n",
              stderr);
          std::_Exit(exit_stopped(g_signal.load()));
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
      }
    });
    struct Restore {
      std::atomic<bool>& done;
      std::thread& watcher;
      ~Restore() {
        done.store(true);
        watcher.join();
        std::signal(SIGINT, SIG_DFL);
        std::signal(SIGTERM, SIG_DFL);
        g_running.store(nullptr);
      }
    } restore{done, watcher};
    // A follower runs whatever measurements the leader announces; the leader runs the command.
    code = leader ? body(runner) : experiment::follow(runner, *session, config);
    if (const int sig = g_signal.load(); sig != 0 && code != kExitUsage) {
      // A stopped run never passes for a finished one: a SIGTERM'd CI or Kubernetes job fails.
      std::fprintf(stderr,
                   "tokenbench: %s: the results are partial (summary.json's "
                   "tokenbench.stopped); exit %d\n",
                   runner.interruption().c_str(), exit_stopped(sig));
      code = exit_stopped(sig);
    }
    if (leader && code == kExitOk && runner.partial()) {
      std::fprintf(stderr,
                   "tokenbench: error: the results are partial: a rank's share is missing (see "
                   "MISSING above, and summary.json's tokenbench.distributed)\n");
      code = kExitPartial;
    }
  } catch (const experiment::RunError& e) {
    std::fprintf(stderr, "tokenbench: error: %s%s\n",
                 leader ? "" : fmt::format("rank {}: ", session->rank()).c_str(), e.what());
    code = e.unreachable() ? kExitNoMeasure : kExitUsage;
    if (!leader) code = kExitOk;  // the leader says what the run lacks; its exit code is the run's
  }
  if (session && leader) session->finish(code);
  if (comm) comm->close(code);
  return code;
}

core::ApiKind resolve_api(const std::string& api, const std::string& endpoint) {
  if (api.empty()) {
    const auto ends_with = [&endpoint](std::string_view tail) {
      return endpoint.size() >= tail.size() &&
             endpoint.compare(endpoint.size() - tail.size(), tail.size(), tail) == 0;
    };
    if (ends_with("/embeddings")) return core::ApiKind::kEmbeddings;
    if (ends_with("/messages")) return core::ApiKind::kAnthropicMessages;
    if (ends_with("/responses")) return core::ApiKind::kOpenAIResponses;
    return endpoint.find("chat") != std::string::npos ? core::ApiKind::kOpenAIChat
                                                      : core::ApiKind::kOpenAICompletions;
  }
  if (const auto kind = core::api_kind_from_string(api)) return *kind;
  throw UsageError("--api '" + api +
                   "' is not known: use openai-chat, openai (legacy completions), "
                   "openai-embeddings, anthropic-messages or openai-responses");
}

core::ApiKind settle_api(const std::string& api, std::string& endpoint, bool endpoint_given,
                         bool endpoint_from_url) {
  const core::ApiKind kind = resolve_api(api, endpoint);
  if (api.empty() || endpoint_given) return kind;
  if (endpoint_from_url) {
    // The URL names what is measured: an --api of another API would change it.
    if (resolve_api("", endpoint) != kind) {
      throw UsageError(fmt::format(
          "--api {} does not fit the endpoint {} that the URL names: leave out --api (the URL "
          "decides), or give the server root as --base-url",
          api, endpoint));
    }
    return kind;
  }
  // --api alone moves the endpoint to that API's usual path.
  if (endpoint == core::RunConfig{}.endpoint) endpoint = core::default_endpoint(kind);
  return kind;
}

// The options that only some APIs take.
static void check_api_options(const core::RunConfig& c) {
  if (c.max_tokens_field != "max_tokens" && c.max_tokens_field != "max_completion_tokens") {
    throw UsageError("--max-tokens-field '" + c.max_tokens_field +
                     "' is not known: use max_tokens or max_completion_tokens");
  }
  if (c.max_tokens_field != "max_tokens" && c.api != core::ApiKind::kOpenAIChat &&
      c.api != core::ApiKind::kOpenAICompletions) {
    throw UsageError("--max-tokens-field applies to --api openai-chat and openai; --api " +
                     core::to_string(c.api) + " has its own field");
  }
  if (c.batch_size < 1 || c.batch_size > 4096) {
    throw UsageError("--batch-size must be an integer in [1, 4096]");
  }
  if (c.batch_size > 1 && c.api != core::ApiKind::kEmbeddings) {
    throw UsageError(
        "--batch-size sends several inputs per request of --api openai-embeddings; "
        "--api " +
        core::to_string(c.api) + " takes one prompt per request");
  }
}

// RFC 9110's tchar: what a header name (a token) is made of.
static bool is_token_char(char ch) {
  return std::isalnum(static_cast<unsigned char>(ch)) != 0 ||
         std::string_view("!#$%&'*+-.^_`|~").find(ch) != std::string_view::npos;
}

void check_headers(const std::vector<std::string>& headers) {
  for (const auto& h : headers) {
    const auto colon = h.find(':');
    if (colon == std::string::npos) {
      throw UsageError("--header '" + core::one_line(h) + "' must look like 'Name: value'");
    }
    // Said by its name alone: the value may be a credential.
    const std::string_view name(h.data(), colon);
    if (name.empty()) {
      throw UsageError("--header has no name before its ':': give 'Name: value'");
    }
    if (!std::all_of(name.begin(), name.end(), is_token_char)) {
      throw UsageError("--header: the name '" + core::one_line(std::string(name)) +
                       "' is not an HTTP token (letters, digits and !#$%&'*+-.^_`|~; no spaces)");
    }
    if (h.find_first_of("\r\n") != std::string::npos) {
      // A line break would put a second header of the user's text on the wire.
      throw UsageError("--header '" + core::one_line(h) +
                       "' holds a line break: give one header per --header");
    }
  }
}

std::int64_t parse_byte_size(const std::string& text, const char* flag) {
  std::size_t used = 0;
  double value = 0;
  try {
    value = std::stod(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  std::string unit = text.substr(used);
  unit.erase(0, unit.find_first_not_of(' '));
  for (char& ch : unit) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  double scale = 0;
  if (unit.empty() || unit == "b") {
    scale = 1;
  } else if (unit == "k" || unit == "kb" || unit == "kib") {
    scale = 1024.0;
  } else if (unit == "m" || unit == "mb" || unit == "mib") {
    scale = 1024.0 * 1024;
  } else if (unit == "g" || unit == "gb" || unit == "gib") {
    scale = 1024.0 * 1024 * 1024;
  } else if (unit == "t" || unit == "tb" || unit == "tib") {
    scale = 1024.0 * 1024 * 1024 * 1024;
  }
  const double bytes = value * scale;
  if (used == 0 || scale == 0 || !std::isfinite(value) || !(bytes >= 0 && bytes <= 1e15)) {
    throw UsageError(fmt::format(
        "{}: '{}' is not a byte size (e.g. 4194304, 512KiB, 4MiB, 1GiB, 1TiB)", flag, text));
  }
  return static_cast<std::int64_t>(bytes);
}

void add_max_line_bytes_flag(CLI::App* cmd, std::string& value) {
  cmd->add_option("--max-line-bytes", value,
                  "The longest line read from a file (requests.jsonl, telemetry.jsonl); a longer "
                  "one is an error naming the file and line")
      ->capture_default_str();
}

void apply_max_line_bytes(const std::string& value) {
  const std::int64_t bytes = parse_byte_size(value, "--max-line-bytes");
  if (bytes < core::kMinMaxLineBytes || bytes > core::kMaxMaxLineBytes) {
    throw UsageError(
        fmt::format("--max-line-bytes {} is out of range: give {} to {} bytes (e.g. "
                    "16MiB, the default)",
                    bytes, core::kMinMaxLineBytes, core::kMaxMaxLineBytes));
  }
  core::set_max_line_bytes(bytes);
}

core::TargetSpec parse_target(const std::string& item) {
  core::TargetSpec t;
  for (const auto& part : split_commas(item)) {
    const auto eq = part.find('=');
    const std::string key = part.substr(0, eq);
    const std::string value = eq == std::string::npos ? "" : part.substr(eq + 1);
    if (eq == std::string::npos || value.empty()) {
      if (item.find("://") != std::string::npos && item.find('=') == std::string::npos) {
        throw UsageError("--target '" + item +
                         "': GuideLLM's --target URL is --base-url URL here (tokenbench's "
                         "--target is model=NAME[,url=URL], one of several targets compared)");
      }
      throw UsageError("--target '" + item +
                       "': each part is KEY=VALUE, e.g. --target model=llama,url=http://h:8000");
    }
    if (key == "model") {
      t.model = value;
    } else if (key == "url") {
      t.base_url = value;
    } else if (key == "key-env") {
      t.api_key_env = value;
    } else if (key == "name") {
      t.name = value;
    } else {
      throw UsageError("--target '" + item + "': unknown key '" + key +
                       "' (use model, url, key-env, name)");
    }
  }
  if (t.model.empty()) throw UsageError("--target '" + item + "' needs model=NAME");
  return t;
}

std::string default_output_dir(const core::RunConfig& c) {
  std::string model = c.targets.empty() ? c.model : "compare";
  return "results/" + core::compact_timestamp(c.started_at) + "-" +
         core::file_name_part(std::move(model), "model");
}

std::string claim_output_dir(const std::string& name) {
  std::error_code ec;
  const std::filesystem::path path(name);
  if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path(), ec);
  for (int n = 1; n <= 1000; ++n) {
    const std::string candidate = n == 1 ? name : fmt::format("{}-{}", name, n);
    // create_directory is one mkdir: true only for the process that made it.
    if (std::filesystem::create_directory(candidate, ec)) return candidate;
    if (ec) break;  // not "it exists": the run says why it cannot write there
  }
  return name;
}

namespace {

// vLLM's --result-filename: a file name inside the results directory, none of tokenbench's own.
void check_result_filename(const std::string& name) {
  if (name.empty()) return;
  const auto fail = [&name](const std::string& why) {
    throw UsageError("--result-filename '" + name + "': " + why +
                     " (e.g. --result-filename vllm-result.json)");
  };
  if (name.find('/') != std::string::npos || name == "." || name == "..") {
    fail("give a file name; the directory is --output-dir");
  }
  for (const char* own : {records::kSummaryFile, records::kRequestsFile, records::kRequestsZstFile,
                          records::kConfigFile, records::kReportFile, records::kTelemetryFile,
                          records::kEnvironmentFile, report::kHtmlReportFile,
                          report::kRequestsCsvFile, report::kLevelsCsvFile}) {
    if (name == own) fail("tokenbench writes that file itself; choose another name");
  }
}

// --extra-body: a JSON object, checked before anything is created (the request bodies are built
// after the results directory exists). Its text is not quoted: it may hold a credential.
void check_extra_body(const std::string& text) {
  if (text.empty()) return;
  try {
    if (!core::parse_json(text).is_object()) {
      throw UsageError("--extra-body must be a JSON object, e.g. '{\"temperature\":0}'");
    }
  } catch (const nlohmann::json::parse_error& e) {
    const std::string deep = core::json_depth_error(text);
    throw UsageError(fmt::format(
        "--extra-body is not valid JSON ({}): give a JSON object, e.g. '{{\"temperature\":0}}'",
        deep.empty() ? fmt::format("at byte {}", e.byte) : deep));
  }
}

// --dataset: a known name, with the file or the prompt it needs.
// --multi-turn and the flags that shape sessions.
void check_sessions(const core::RunConfig& c) {
  if (!c.multi_turn) {
    const core::RunConfig d;
    if (c.turns != d.turns || c.think_time != d.think_time ||
        c.concurrency_unit != d.concurrency_unit || !c.session_field.empty()) {
      throw UsageError(
          "--turns, --think-time, --concurrency-unit and --session-field shape the sessions of "
          "--multi-turn: add --multi-turn");
    }
    return;
  }
  if (c.api != core::ApiKind::kOpenAIChat && c.api != core::ApiKind::kAnthropicMessages &&
      c.api != core::ApiKind::kOpenAIResponses) {
    throw UsageError(
        "--multi-turn sends conversations: use --api openai-chat, anthropic-messages "
        "or openai-responses (not " +
        core::to_string(c.api) + ")");
  }
  const auto refuse = [](bool given, const char* flag) {
    if (given) throw UsageError(std::string(flag) + " does not apply to --multi-turn runs");
  };
  refuse(c.replay, "--replay");
  refuse(c.nonstream_sample > 0, "--nonstream-sample");
  refuse(c.drop_first_pct > 0, "--drop-first");
  refuse(!c.targets.empty(), "comparing targets (--target, --model a,b)");
  refuse(c.ramp_up != core::RampKind::kNone, "--ramp-up");
  refuse(c.image_count > 0, "--image-count");
  if (c.turns < 0 || c.turns > 1000) throw UsageError("--turns must be an integer in [0, 1000]");
  if (c.concurrency_unit != "session" && c.concurrency_unit != "request") {
    throw UsageError("--concurrency-unit '" + c.concurrency_unit +
                     "' is not known: use session (sessions in flight) or request");
  }
  if (!c.session_field.empty() && c.dataset != "jsonl" && c.dataset != "csv") {
    throw UsageError("--session-field names a field of --dataset jsonl or csv; --dataset " +
                     c.dataset + " has its own sessions");
  }
  try {
    load::parse_think_time(c.think_time);
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
}

// --dataset-path: a file with something in it, or a pipe (a named pipe, or <(...) as /dev/fd/N),
// which is read once as a stream. Anything else is named for what it is.
void check_dataset_path(const std::string& path) {
  const std::string shown = "--dataset-path '" + core::one_line(path) + "'";
  const core::FileKind kind = core::file_kind(path);
  switch (kind) {
    case core::FileKind::kRegular: {
      std::error_code ec;
      if (std::filesystem::file_size(path, ec) == 0 && !ec) {
        throw UsageError(shown + " is an empty file: a dataset needs at least one prompt");
      }
      return;
    }
    case core::FileKind::kPipe:
      return;
    case core::FileKind::kMissing:
      if (::access(path.c_str(), F_OK) == 0 || errno != ENOENT) {
        throw UsageError(shown + " cannot be read: " + std::strerror(errno));
      }
      throw UsageError("dataset file '" + core::one_line(path) +
                       "' does not exist: check --dataset-path");
    case core::FileKind::kDirectory:
      throw UsageError(shown + " is a directory: give the dataset's file itself");
    default:
      throw UsageError(shown + " is " + core::to_words(kind) +
                       ", not a file or a pipe: give the dataset's file (or a pipe, e.g. "
                       "<(zcat data.jsonl.gz))");
  }
}

// --tokenizer: a path that exists must be a file or a model folder (a device, a pipe or a socket
// is named for what it is); a name that is no path may be a Hugging Face id, looked up later.
void check_tokenizer_path(const std::string& path) {
  if (path.empty()) return;
  const core::FileKind kind = core::file_kind(path);
  if (kind == core::FileKind::kMissing || kind == core::FileKind::kRegular ||
      kind == core::FileKind::kDirectory) {
    return;
  }
  throw UsageError("--tokenizer '" + core::one_line(path) + "' is " + core::to_words(kind) +
                   ", not a file: give tokenizer.json, tokenizer.model, a *.tiktoken file or a "
                   "model folder");
}

void check_dataset(const core::RunConfig& c) {
  const std::string names = workload::kDatasetNames;
  if (("," + names + ",").find(", " + c.dataset + ",") == std::string::npos &&
      names.rfind(c.dataset + ",", 0) != 0) {
    throw UsageError("--dataset '" + c.dataset + "' is not one of " + names +
                     " (docs/WORKLOADS.md)");
  }
  for (const auto& [flag, spec] :
       {std::pair{"--input-dist", c.input_dist}, std::pair{"--output-dist", c.output_dist}}) {
    try {
      workload::parse_length_dist(spec, flag);
    } catch (const std::invalid_argument& e) {
      throw UsageError(e.what());
    }
    if (spec != "fixed" && c.dataset != "random" && c.dataset != "shared-prefix") {
      throw UsageError(std::string(flag) +
                       " draws the lengths of --dataset random and shared-prefix; --dataset " +
                       c.dataset + " has its own");
    }
  }
  if (c.image_count < 0 || c.image_count > 64) {
    throw UsageError("--image-count " + std::to_string(c.image_count) +
                     " is out of range: give 0 to 64 images per request");
  }
  try {
    workload::parse_image_size(c.image_size);
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  if (c.image_count > 0 && c.api != core::ApiKind::kOpenAIChat &&
      c.api != core::ApiKind::kAnthropicMessages && c.api != core::ApiKind::kOpenAIResponses) {
    throw UsageError(
        "--image-count: images need --api openai-chat, anthropic-messages or openai-responses "
        "(their messages carry them)");
  }
  if (c.replay) {
    const bool timed = c.dataset == "burstgpt" || c.dataset == "azure" || c.dataset == "mooncake" ||
                       (c.dataset == "csv" && !c.timestamp_field.empty());
    if (!timed) {
      throw UsageError(
          "--replay needs a dataset with arrival times: burstgpt, azure, mooncake, "
          "or csv with --timestamp-field");
    }
    if (!std::isinf(c.request_rate)) {
      throw UsageError("--replay sends at the trace's times: leave out --request-rate");
    }
    if (!std::isfinite(c.replay_speed) || c.replay_speed <= 0) {
      throw UsageError("--replay-speed must be a number > 0 (2 replays twice as fast)");
    }
  } else if (c.replay_speed != 1.0) {
    throw UsageError("--replay-speed applies to --replay: add --replay");
  }
  if (c.dataset == "fixed") {
    if (c.prompt.empty()) throw UsageError("--dataset fixed needs --prompt TEXT");
    return;
  }
  if (!c.prompt.empty()) {
    throw UsageError("--prompt is the prompt of --dataset fixed: add --dataset fixed");
  }
  if (c.dataset == "shared-prefix") {
    if (c.prefix_groups < 1 || c.prefix_groups > 100000 || c.prompts_per_group < 1 ||
        c.prompts_per_group > 100000 || c.prefix_len < 0 || c.prefix_len > 10000000) {
      throw UsageError(
          "--dataset shared-prefix: --prefix-groups and --prompts-per-group must be "
          "1 to 100000, --prefix-len 0 to 10^7");
    }
    return;
  }
  if (c.dataset == "sonnet" && (c.sonnet_prefix_len < 0 || c.sonnet_prefix_len > c.input_len)) {
    throw UsageError("--sonnet-prefix-len " + std::to_string(c.sonnet_prefix_len) +
                     " is out of range: give 0 to --input-len (" + std::to_string(c.input_len) +
                     ") tokens");
  }
  if (c.dataset == "random") return;
  if (c.dataset_path.empty()) {
    throw UsageError("--dataset " + c.dataset + " needs --dataset-path FILE");
  }
  check_dataset_path(c.dataset_path);
  const bool fields =
      c.prompt_field != "prompt" || !c.output_len_field.empty() || !c.timestamp_field.empty();
  if (fields && c.dataset != "csv") {
    throw UsageError(
        "--prompt-field, --output-len-field and --timestamp-field name columns of "
        "--dataset csv; --dataset " +
        c.dataset + " has its own layout");
  }
}

// Every server URL the flags name: --base-url and each --target's url=.
std::vector<std::string> target_urls(const RunFlags& f) {
  std::vector<std::string> urls = f.base_urls;
  for (const auto& t : f.target_items) {
    if (const auto at = t.find("url="); at != std::string::npos) {
      urls.push_back(t.substr(at + 4, t.find(',', at) - at - 4));
    }
  }
  return urls;
}

}  // namespace

void finalize_run_flags(RunFlags& f) {
  core::RunConfig& c = f.config;
  if (f.base_urls.empty()) throw UsageError("--base-url needs a URL");
  c.replica_urls.clear();
  bool endpoint_from_url = false;  // a --base-url named the endpoint: it decides the API
  for (const auto& url : f.base_urls) {
    c.replica_urls.push_back(forgiving_url(url, c.endpoint, f.endpoint_given, &endpoint_from_url));
  }
  c.base_url = c.replica_urls.front();
  if (c.replica_urls.size() == 1) c.replica_urls.clear();
  if (f.balance == "round-robin") {
    c.balance = core::BalanceKind::kRoundRobin;
  } else if (f.balance == "least-inflight") {
    c.balance = core::BalanceKind::kLeastInflight;
  } else {
    throw UsageError("--balance '" + f.balance +
                     "' is not known: use round-robin or least-inflight");
  }

  // TLS trust is process-wide: the preflight, the load and the /metrics scraper all follow it.
  client::set_tls_options({c.ca_file, c.insecure});
  if (c.stamps == "kernel") {
    // Kernel stamps need the native transport: refuse rather than silently fall back.
    for (const auto& url : target_urls(f)) {
      const std::string proxy = client::proxy_for(url);
      const bool web = url.rfind("http://", 0) == 0 || url.rfind("https://", 0) == 0;
      if (c.transport == "curl" || !web || !proxy.empty()) {
        throw UsageError(
            "--stamps kernel needs the native transport, which carries http:// and https:// "
            "without a proxy; " +
            (c.transport == "curl" ? std::string("--transport curl is set")
             : !proxy.empty()      ? proxy + " applies to " + url
                                   : url + " is not http(s)://") +
            ": use --stamps auto (user-space stamps there)");
      }
    }
  }

  if (!c.http2 && c.http2_streams != core::RunConfig{}.http2_streams) {
    throw UsageError("--http2-streams " + std::to_string(c.http2_streams) +
                     " needs --http2 (HTTP/1.1 carries one request per connection)");
  }
  if (c.http2) {
    // libcurl carries proxied endpoints (and all with --transport curl); old ones break h2c.
    for (const auto& url : target_urls(f)) {
      if (c.transport == "curl" || !client::proxy_for(url).empty()) {
        if (const std::string problem = client::curl_http2_problem(url); !problem.empty()) {
          throw UsageError(problem);
        }
      }
    }
  }

  c.targets.clear();
  for (const auto& item : f.target_items) {
    c.targets.push_back(parse_target(item));
    auto& url = c.targets.back().base_url;
    if (!url.empty()) url = forgiving_url(url, c.endpoint, f.endpoint_given, &endpoint_from_url);
  }
  if (c.http2) {
    // The preflight and other GETs to these servers speak HTTP/2 too.
    std::vector<std::string> servers{c.base_url};
    servers.insert(servers.end(), c.replica_urls.begin(), c.replica_urls.end());
    for (const auto& t : c.targets) {
      if (!t.base_url.empty()) servers.push_back(t.base_url);
    }
    client::set_http2_servers(std::move(servers));
  } else {
    client::set_http2_servers({});
  }
  const auto models = split_commas(f.models);
  if (models.size() > 1) {
    if (!c.targets.empty()) throw UsageError("use either --target or --model a,b,c, not both");
    for (const auto& m : models) {
      if (m.empty()) throw UsageError("--model '" + f.models + "' has an empty name");
      c.targets.push_back({m, "", m, ""});
    }
  } else {
    c.model = f.models;
  }
  if (c.targets.size() == 1) {  // one target is a plain run
    if (!c.targets[0].base_url.empty()) c.base_url = c.targets[0].base_url;
    c.model = c.targets[0].model;
    if (!c.targets[0].api_key_env.empty()) c.api_key_env = c.targets[0].api_key_env;
    c.targets.clear();
  }
  if (!c.targets.empty() && !c.replica_urls.empty()) {
    throw UsageError("several --base-url (replicas) and several targets cannot be combined");
  }
  for (std::size_t i = 0; i < c.targets.size(); ++i) {
    for (std::size_t j = 0; j < i; ++j) {
      const auto& a = c.targets[i].name.empty() ? c.targets[i].model : c.targets[i].name;
      const auto& b = c.targets[j].name.empty() ? c.targets[j].model : c.targets[j].name;
      if (a == b) throw UsageError("two targets are both named '" + a + "': add name=LABEL");
    }
  }

  if (c.endpoint.empty() || c.endpoint.front() != '/') c.endpoint = "/" + c.endpoint;
  c.api = settle_api(f.api, c.endpoint, f.endpoint_given, endpoint_from_url);
  if (c.api == core::ApiKind::kAnthropicMessages &&
      c.api_key_env == core::RunConfig{}.api_key_env) {
    c.api_key_env = "ANTHROPIC_API_KEY";
  }
  if (f.arrival == "gamma" || f.arrival == "poisson") {
    c.arrival = core::ArrivalKind::kGamma;
    if (f.arrival == "poisson") c.burstiness = 1.0;
  } else if (f.arrival == "constant") {
    c.arrival = core::ArrivalKind::kConstant;
  } else {
    throw UsageError("--arrival '" + f.arrival + "' is not known: use gamma, poisson or constant");
  }
  f.concurrencies = parse_concurrencies(f.concurrency);
  f.rates = parse_rates(f.rate);
  c.max_concurrency = f.concurrencies.front();
  c.request_rate = f.rates.front();
  if (!c.targets.empty() && (f.concurrencies.size() > 1 || f.rates.size() > 1)) {
    throw UsageError(
        "several targets are compared at one load level: give one "
        "--max-concurrency and one --request-rate (sweep each target separately)");
  }

  if (f.ramp == "none") {
    c.ramp_up = core::RampKind::kNone;
  } else if (f.ramp == "linear") {
    c.ramp_up = core::RampKind::kLinear;
  } else if (f.ramp == "exponential") {
    c.ramp_up = core::RampKind::kExponential;
  } else {
    throw UsageError("--ramp-up '" + f.ramp + "' is not known: use linear or exponential");
  }
  if (c.ramp_up != core::RampKind::kNone && std::isinf(c.request_rate)) {
    throw UsageError("--ramp-up climbs to --request-rate: give a finite --request-rate");
  }

  if (!report::console_style_from_string(c.console_style)) {
    throw UsageError("--console-style '" + c.console_style +
                     "' is not known: use ms, compact or evalscope-s");
  }
  c.stream = !f.no_stream && c.api != core::ApiKind::kEmbeddings;  // embeddings never stream
  c.ignore_eos = !f.no_ignore_eos;
  check_api_options(c);
  merge_sampling_flags(f.sampling, c);
  if (!(f.progress_interval_s == 0 ||
        (f.progress_interval_s >= 0.1 && f.progress_interval_s <= 86400))) {
    throw UsageError(
        "--progress-interval must be 0 (no progress lines) or 0.1 to 86400 seconds (e.g. 10)");
  }
  if (c.save_detailed) {
    if (distributed::launched_ranks() > 1) {
      throw UsageError("--save-detailed is not supported under mpirun: run it in one process");
    }
    std::fprintf(stderr,
                 "tokenbench: note: --save-detailed writes each request's prompt and generated "
                 "text into requests.jsonl (each cut at %zu KiB, none after %lld MiB of text): "
                 "expect a larger file\n",
                 core::kMaxDetailTextBytes >> 10,
                 static_cast<long long>(records::Recorder::kMaxDetailTotalBytes >> 20));
  }
  c.percentiles = parse_percentiles(f.percentiles);
  c.max_event_bytes = parse_byte_size(f.max_event_bytes, "--max-event-bytes");
  c.max_reply_bytes = parse_byte_size(f.max_reply_bytes, "--max-reply-bytes");
  c.max_line_bytes = parse_byte_size(f.max_line_bytes, "--max-line-bytes");
  c.preflight = !f.no_preflight;
  // vLLM's default, when neither --num-prompts nor --duration bounds the run.
  if (!f.num_prompts_given && c.num_prompts == 0 && c.duration_s == 0) c.num_prompts = 1000;
  try {
    core::validate(c);
    core::RunConfig level = c;  // every level of a sweep
    for (const int conc : f.concurrencies) {
      level.max_concurrency = conc;
      for (const double rate : f.rates) {
        level.request_rate = rate;
        core::validate(level);
      }
    }
  } catch (const core::ConfigError& e) {
    throw UsageError(e.what());
  }
  // Process-wide, like TLS: every file reader follows it (check_dataset reads --input-dist's).
  core::set_max_line_bytes(c.max_line_bytes);
  check_headers(c.headers);
  check_extra_body(c.extra_body);
  check_result_filename(c.result_filename);
  try {
    for (const auto& b : c.buckets) metrics::parse_bucket_spec(b);
    telemetry::parse_labels(c.labels);
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  try {
    metrics::parse_slo(c.goodput);
  } catch (const std::invalid_argument& e) {
    throw UsageError(std::string("--goodput: ") + e.what());
  }
  try {
    experiment::parse_slo_exprs(c.slo);
  } catch (const std::invalid_argument& e) {
    throw UsageError(std::string("--slo: ") + e.what());
  }
  check_dataset(c);
  check_tokenizer_path(c.tokenizer);
  check_sessions(c);
  check_workload_memory(c, f.max_workload_memory);
}

void add_run_flags(CLI::App* cmd, RunFlags& flags) {
  core::RunConfig& c = flags.config;
  // Target
  cmd->add_option("--base-url", flags.base_urls,
                  "Server URL, e.g. http://127.0.0.1:8000; repeat for replicas of one deployment")
      ->capture_default_str();
  cmd->add_option("--balance", flags.balance,
                  "round-robin | least-inflight: how requests spread over repeated --base-url")
      ->capture_default_str();
  cmd->add_option("--endpoint", c.endpoint, "Request path")
      ->capture_default_str()
      ->each([&flags](const std::string&) { flags.endpoint_given = true; });
  cmd->add_option("--api", flags.api,
                  "openai-chat | openai (legacy completions) | openai-embeddings | "
                  "anthropic-messages | openai-responses; default: inferred from --endpoint "
                  "(alone, it sets the endpoint: /v1/embeddings, /v1/messages, /v1/responses)");
  cmd->add_option("--max-tokens-field", c.max_tokens_field,
                  "The output limit's field for chat and completions: max_tokens or "
                  "max_completion_tokens (newer OpenAI-style servers reject max_tokens)")
      ->capture_default_str();
  cmd->add_option("--batch-size", c.batch_size,
                  "Embeddings: inputs per request (--num-prompts counts requests)")
      ->capture_default_str();
  cmd->add_option("--model", flags.models,
                  "Model name; default: the first id of GET /v1/models. A comma-separated list "
                  "compares models behind one gateway");
  cmd->add_option("--target", flags.target_items,
                  "A target to compare: model=NAME[,url=URL][,key-env=VAR][,name=LABEL] "
                  "(repeatable)");
  cmd->add_option("--target-load", c.target_load,
                  "Targets compared: each (every target its own --max-concurrency slots and "
                  "--request-rate) or shared (one schedule and one set of slots for all)")
      ->capture_default_str();
  cmd->add_option("--header", c.headers, "Extra request header 'Name: value' (repeatable)");
  cmd->add_option("--extra-body", c.extra_body,
                  "JSON object merged into every request body, e.g. '{\"temperature\":0}'");
  cmd->add_option("--temperature", flags.sampling.temperature,
                  "Sampling temperature sent in every request body (kept in extra_body)");
  cmd->add_option("--top-p", flags.sampling.top_p,
                  "Nucleus sampling top_p sent in every request body (kept in extra_body)");
  cmd->add_option("--top-k", flags.sampling.top_k,
                  "top_k sent in every request body (kept in extra_body; not for the Responses "
                  "API)");
  cmd->add_option("--timeout", c.timeout_s,
                  "Per-request timeout in seconds, from the send to the reply's end (class "
                  "timeout)")
      ->capture_default_str();
  cmd->add_option("--connect-timeout", c.connect_timeout_s,
                  "Seconds to establish a connection (class connect_timeout)")
      ->capture_default_str();
  cmd->add_option("--connection-mode", c.connection_mode,
                  "keep-alive: connections reused (opened before the run with "
                  "--max-concurrency), so TTFT holds no TCP set-up | per-request: a new "
                  "connection per request, its set-up stamped as connected_ns")
      ->check(CLI::IsMember({"keep-alive", "per-request"}))
      ->capture_default_str();
  cmd->add_option("--stamps", c.stamps,
                  "auto | kernel: stamp each read with the kernel's receive time (proxies use "
                  "user space) | user: the client's clock when the read returned")
      ->check(CLI::IsMember({"auto", "kernel", "user"}))
      ->capture_default_str();
  cmd->add_option("--transport", c.transport,
                  "auto: the native HTTP/1.1 and HTTP/2 transport (epoll, OpenSSL for https), "
                  "libcurl for proxies | curl: libcurl for everything")
      ->check(CLI::IsMember({"auto", "curl"}))
      ->capture_default_str();
  cmd->add_flag("--http2", c.http2,
                "Speak HTTP/2: prior knowledge (h2c) for http://, ALPN h2 for https://; requests "
                "share connections as streams, as gateways use them");
  cmd->add_option("--http2-streams", c.http2_streams,
                  "With --http2: the most requests one connection carries at once (fewer if the "
                  "server's SETTINGS_MAX_CONCURRENT_STREAMS says so); more connections open as "
                  "needed")
      ->check(CLI::Range(1, 1 << 20))
      ->capture_default_str();
  cmd->add_option("--cacert", c.ca_file,
                  "https: verify servers against this PEM bundle instead of the system's "
                  "certificates (a private CA, a self-signed server)")
      ->check(CLI::ExistingFile);
  cmd->add_flag("--insecure", c.insecure,
                "https: do not verify the server's certificate or name (a test server only)");
  cmd->add_option("--ttft-timeout", c.ttft_timeout_s,
                  "Fail a request with no first token this many seconds after its send (class "
                  "ttft_timeout); 0: none")
      ->capture_default_str();
  cmd->add_option("--stall-timeout", c.stall_timeout_s,
                  "Fail a reply that sends no byte for this many seconds mid-way (class "
                  "stall_timeout); 0: none")
      ->capture_default_str();
  cmd->add_option("--retries", c.retries,
                  "Retry a request that failed to connect, got 429 or 5xx, or was cut before "
                  "any output, up to N times (exponential backoff with jitter, honours "
                  "Retry-After); every attempt is recorded")
      ->capture_default_str();
  cmd->add_option("--max-event-bytes", flags.max_event_bytes,
                  "The largest SSE event a reply may send (a larger one fails it as malformed)")
      ->capture_default_str();
  cmd->add_option("--max-reply-bytes", flags.max_reply_bytes,
                  "The most bytes one reply may send (class protocol beyond it); 0: derived "
                  "from max_tokens with a wide margin")
      ->capture_default_str();
  cmd->add_option("--max-line-bytes", flags.max_line_bytes,
                  "The longest line read from a file (datasets, --input-dist empirical files, "
                  "tokenizer rank files); a longer one is an error naming the file and line")
      ->capture_default_str();
  cmd->add_option("--max-workload-memory", flags.max_workload_memory,
                  "The most memory the prompts, bodies and schedule made before the first "
                  "request may take: auto (75% of MemAvailable), 0 (no check) or a size (8GiB)")
      ->capture_default_str();
  cmd->add_flag("--no-preflight", flags.no_preflight,
                "Skip asking GET /v1/models before the run (then --model is required)");
  cmd->add_option("--api-key-env", c.api_key_env,
                  "Environment variable (or .env key) holding the API key")
      ->capture_default_str();
  cmd->add_flag("--no-stream", flags.no_stream, "Non-streaming requests (TTFT undefined)");
  cmd->add_flag_callback(
      "--no-request-id", [&c] { c.request_id = false; },
      "Send no X-Request-Id and traceparent headers (requests.jsonl then has no request_id)");
  cmd->add_option("--nonstream-sample", c.nonstream_sample,
                  "Send K of the measured requests non-streamed, spread evenly, and compare their "
                  "E2EL with the streamed ones' (Checks); 0: none")
      ->capture_default_str();
  // Load
  cmd->add_option("--max-concurrency", flags.concurrency,
                  "Requests in flight at most (closed loop); 0: unlimited. A list (1,8,32) "
                  "sweeps")
      ->capture_default_str();
  cmd->add_option("--request-rate", flags.rate,
                  "Arrivals per second (open loop); inf: all at once. A list (1,2,4) sweeps")
      ->capture_default_str();
  cmd->add_option("--burstiness", c.burstiness, "Gamma shape of inter-arrival gaps; 1 is Poisson")
      ->capture_default_str();
  cmd->add_option("--arrival", flags.arrival, "gamma | poisson | constant")->capture_default_str();
  cmd->add_flag("--replay", c.replay,
                "Send each request at its time in the trace (burstgpt, azure, mooncake, csv "
                "--timestamp-field) instead of --request-rate's arrivals");
  cmd->add_option("--replay-speed", c.replay_speed,
                  "With --replay: compress the trace's time by this factor (2: twice as fast)")
      ->capture_default_str();
  cmd->add_option("--ramp-up", flags.ramp,
                  "none | linear | exponential: climb from --ramp-up-start-rps to --request-rate")
      ->capture_default_str();
  cmd->add_option("--ramp-up-start-rps", c.ramp_up_start_rps, "Arrival rate at the start of a ramp")
      ->capture_default_str();
  cmd->add_option("--ramp-up-duration", c.ramp_up_duration_s, "Seconds the ramp takes");
  cmd->add_option("--num-prompts", c.num_prompts,
                  "Requests to measure (default 1000 when --duration is not given); per target "
                  "when comparing targets")
      ->each([&flags](const std::string&) { flags.num_prompts_given = true; });
  cmd->add_option("--duration", c.duration_s, "Stop issuing requests after this many seconds");
  cmd->add_option("--warmup", c.warmup, "Requests sent before measuring, not aggregated")
      ->capture_default_str();
  cmd->add_option("--drop-first", c.drop_first_pct,
                  "Leave the first PCT % of the measure phase out of the figures (phase "
                  "'dropped' in requests.jsonl)")
      ->capture_default_str();
  cmd->add_option("--seed", c.seed, "Seed of the workload and the arrival schedule")
      ->capture_default_str();
  cmd->add_option("--workers", c.workers,
                  "Worker threads; 0: one per core (at most the concurrency)")
      ->capture_default_str();
  // Workload
  cmd->add_option("--dataset", c.dataset,
                  "random | fixed | shared-prefix | jsonl | lines | csv | sharegpt | sonnet | "
                  "burstgpt | azure | mooncake (docs/WORKLOADS.md)")
      ->capture_default_str();
  cmd->add_option("--dataset-path", c.dataset_path,
                  "The dataset's file (every --dataset but random and fixed)");
  cmd->add_option("--prompt", c.prompt, "The prompt of --dataset fixed, sent by every request");
  cmd->add_option("--prompt-field", c.prompt_field, "--dataset csv: the prompt's column")
      ->capture_default_str();
  cmd->add_option("--output-len-field", c.output_len_field,
                  "--dataset csv: a column of output lengths (--output-len replaces them)");
  cmd->add_option("--timestamp-field", c.timestamp_field,
                  "--dataset csv: a column of arrival times in seconds");
  cmd->add_option("--session-field", c.session_field,
                  "--dataset jsonl or csv with --multi-turn: the field naming each prompt's "
                  "session (its turns in file order)");
  cmd->add_flag("--multi-turn", c.multi_turn,
                "Send each conversation as a session: its turns in order, each with the history "
                "and the replies received; --num-prompts counts sessions");
  cmd->add_option("--turns", c.turns,
                  "--multi-turn: turns per session (random and fixed prompts, or consecutive "
                  "prompts of a dataset without sessions); caps a dataset's sessions")
      ->capture_default_str();
  cmd->add_option("--think-time", c.think_time,
                  "--multi-turn: pause between a reply and the next turn: seconds, "
                  "uniform:LO,HI or exponential:MEAN")
      ->capture_default_str();
  cmd->add_option("--concurrency-unit", c.concurrency_unit,
                  "--multi-turn: what --max-concurrency counts, session or request")
      ->capture_default_str();
  cmd->add_option("--input-len", c.input_len,
                  "Prompt length in tokens (random; shared-prefix: each prompt's own part; "
                  "sonnet: the most)")
      ->capture_default_str();
  cmd->add_option("--output-len", c.output_len,
                  "Output length in tokens (sent as max_tokens); replaces the lengths a dataset "
                  "gives")
      ->each([&c](const std::string&) { c.output_len_from_dataset = false; })
      ->capture_default_str();
  cmd->add_option("--range-ratio", c.range_ratio,
                  "Random lengths drawn from [len*(1-r), len*(1+r)]")
      ->capture_default_str();
  cmd->add_option("--input-dist", c.input_dist,
                  "random, shared-prefix: prompt lengths drawn from fixed (--input-len), "
                  "uniform:LO,HI, normal:MEAN,SD, lognormal:MEAN,SD or empirical:FILE")
      ->capture_default_str();
  cmd->add_option("--output-dist", c.output_dist,
                  "random, shared-prefix: output lengths drawn from fixed (--output-len), "
                  "uniform:LO,HI, normal:MEAN,SD, lognormal:MEAN,SD or empirical:FILE")
      ->capture_default_str();
  cmd->add_option("--image-count", c.image_count,
                  "Synthetic PNG images sent with each chat request's prompt, as data URLs "
                  "(0 to 64)")
      ->capture_default_str();
  cmd->add_option("--image-size", c.image_size, "--image-count: each image's WxH in pixels")
      ->capture_default_str();
  cmd->add_option("--random-prefix-len", c.random_prefix_len,
                  "Random prefix of this many tokens shared by every prompt")
      ->capture_default_str();
  cmd->add_option("--prefix-groups", c.prefix_groups,
                  "--dataset shared-prefix: groups of prompts, each sharing a prefix")
      ->capture_default_str();
  cmd->add_option("--prompts-per-group", c.prompts_per_group,
                  "--dataset shared-prefix: prompts in each group")
      ->capture_default_str();
  cmd->add_option("--prefix-len", c.prefix_len,
                  "--dataset shared-prefix: tokens of a group's shared prefix (each prompt adds "
                  "--input-len of its own)")
      ->capture_default_str();
  cmd->add_option("--group-order", c.group_order,
                  "--dataset shared-prefix: interleaved (a prompt of each group in turn) or "
                  "grouped")
      ->check(CLI::IsMember({"interleaved", "grouped"}))
      ->capture_default_str();
  cmd->add_option("--sonnet-prefix-len", c.sonnet_prefix_len,
                  "--dataset sonnet: tokens of the head every prompt shares (the instruction and "
                  "the file's first lines)")
      ->capture_default_str();
  cmd->add_option("--tokenizer", c.tokenizer,
                  "tokenizer.json, tokenizer.model, *.tiktoken, a model folder, or a Hugging Face "
                  "id ORG/NAME in the local cache: token-exact "
                  "prompts and local token counts");
  cmd->add_option("--tiktoken-encoding", c.tiktoken_encoding,
                  "cl100k_base | o200k_base, for a .tiktoken file not named after one");
  cmd->add_flag("--no-ignore-eos", flags.no_ignore_eos,
                "Do not send ignore_eos/min_tokens (for servers that reject them)");
  // Figures and output
  cmd->add_option("--percentiles", flags.percentiles, "Percentiles to report, comma-separated")
      ->capture_default_str();
  cmd->add_option("--goodput", c.goodput, "SLOs for goodput, e.g. --goodput ttft:200 tpot:50")
      ->expected(1, 4);
  cmd->add_option("--slo", c.slo,
                  "Run-level objective on any summary figure, e.g. 'p95_ttft_ms<=500' or "
                  "'error_rate<0.01' (repeatable)");
  cmd->add_option("--buckets", c.buckets,
                  "Summary figures per length bucket: input:0,256,1024,4096 or output:0,128,512 "
                  "(repeatable)");
  cmd->add_option("--console-style", c.console_style,
                  "ms | compact | evalscope-s (latencies in seconds, as older evalscope)")
      ->capture_default_str();
  cmd->add_flag("--sim-time", c.sim_time,
                "Against serve-sim --time-scale X: report figures rescaled to its model time");
  cmd->add_option("--fail-fast", c.fail_fast,
                  "Stop when the first N requests all fail with one client error (4xx but "
                  "429); 0: never")
      ->capture_default_str();
  cmd->add_option("--server-metrics", c.server_metrics,
                  "The server's Prometheus endpoint, scraped during the run: auto "
                  "(<base-url>/metrics when it answers), off, or a URL")
      ->capture_default_str();
  cmd->add_flag("--server-metrics-auth", c.server_metrics_auth,
                "Send the API key and secret --header values to a --server-metrics URL of "
                "another origin (scheme, host, port) than --base-url too; by default only the "
                "target's own origin receives them");
  cmd->add_option("--metrics-interval", c.metrics_interval_s,
                  "Seconds between scrapes of --server-metrics (plus one at each edge of the "
                  "measure phase) and between GPU samples")
      ->capture_default_str();
  cmd->add_option("--gpu-metrics", c.gpu_metrics,
                  "GPU sampler, every --metrics-interval: auto (nvidia-smi when on PATH), "
                  "nvidia-smi, dcgm=URL (a DCGM exporter's /metrics), or off")
      ->capture_default_str();
  cmd->add_option("--label", c.labels,
                  "KEY=VALUE kept in the environment record, for what cannot be discovered "
                  "(e.g. cuda=12.4, weights=rev-abc; repeatable)");
  cmd->add_option("--max-error-rate", c.max_error_rate,
                  "The run fails (exit 2) when more than this share of its measured requests "
                  "failed (canceled ones aside); 0: any failure, 1: never")
      ->capture_default_str();
  cmd->add_option("--abort-on-error-rate", c.abort_on_error_rate,
                  "Stop the run when more than this share of the last 50 requests failed (e.g. "
                  "0.5); 0: never")
      ->capture_default_str();
  cmd->add_option("--config", flags.config_file,
                  "YAML settings: a results directory's config.yaml (repeats that run) or "
                  "flag: value lines; flags given beside it win");
  cmd->footer(
      "Flags of vLLM's bench serve, EvalScope perf and GenAI-Perf (--random-input-len, "
      "--host/--port, --parallel, --number, --url, --concurrency, ...) are accepted as aliases "
      "where they mean the same: docs/CLI.md, \"Coming from another tool\".");
  cmd->add_option("--output-dir", c.output_dir,
                  "Results directory (default results/<timestamp>-<model>)");
  cmd->add_option("--result-filename", c.result_filename,
                  "Also write summary.json under this name in the results directory (vLLM's "
                  "--result-filename; its keys are vLLM's)");
  cmd->add_option("--export", c.exports,
                  "Also write exports of the results: csv (requests.csv per run, levels.csv at "
                  "a sweep's root; docs/REPORTS.md)")
      ->check(CLI::IsMember({"csv"}));
  cmd->add_option("--records-compress", c.records_compress,
                  "Store the per-request records compressed: none (requests.jsonl) or zstd "
                  "(requests.jsonl.zst, flushed as often; `tokenbench report` reads both)")
      ->check(CLI::IsMember({"none", "zstd"}))
      ->capture_default_str();
  cmd->add_flag("--save-detailed", c.save_detailed,
                "Keep each request's prompt and generated text in requests.jsonl (prompt_text, "
                "output_text: at most 64 KiB each, 256 MiB per run; the file grows accordingly)");
  cmd->add_flag("--quiet", flags.quiet, "No start line, live view or progress lines");
  cmd->add_option("--progress-interval", flags.progress_interval_s,
                  "Seconds between progress lines on stderr when it is not a terminal (a log, "
                  "CI); 0: none")
      ->capture_default_str();
  cmd->add_flag("--overwrite", flags.overwrite,
                "Replace the results a directory already holds (refused otherwise)");
}

}  // namespace tokenbench::cli
