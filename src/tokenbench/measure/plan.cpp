// Preparing the target(s) once per command: credentials, the preflight, the environment's facts,
// the tokenizer and a dataset pipe's copy (measure::Plan).

#include "tokenbench/measure/plan.h"

#include <fcntl.h>
#include <fmt/core.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <stdexcept>
#include <tuple>

#include "tokenbench/client/credentials.h"
#include "tokenbench/client/error_classify.h"
#include "tokenbench/client/http_get.h"
#include "tokenbench/collect/child_process.h"
#include "tokenbench/collect/environment_probe.h"
#include "tokenbench/core/file_kind.h"
#include "tokenbench/core/secret_fields.h"
#include "tokenbench/core/text.h"
#include "tokenbench/measure/outcome.h"

namespace tokenbench::measure {
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

// The servers `config` names, with credentials in their URLs and model names still to fill in.
std::vector<Wanted> wanted_servers(core::RunConfig& config) {
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
  return wanted;
}

// The credentials: each target's headers with its API key, the secrets cut from everything
// written (longest first), and every URL in `config` without its user:password@.
void resolve_credentials(core::RunConfig& config, const std::vector<Wanted>& wanted, Plan& plan) {
  std::vector<std::string>& secrets = plan.secrets;
  client::add_header_secrets(config.headers, secrets);
  for (const auto& h : config.otlp_headers) {  // a collector's credentials, whatever their name
    if (const auto eq = h.find('='); eq != std::string::npos && eq + 1 < h.size()) {
      secrets.push_back(h.substr(eq + 1));
    }
  }
  for (const Wanted& w : wanted) {
    driver::Target target;
    target.base_url = *w.base_url;  // credentials in the URL are used, but never shown or written
    std::string userinfo;
    std::tie(*w.base_url, userinfo) = client::split_userinfo(*w.base_url);
    client::add_userinfo_secrets(userinfo, secrets);
    target.headers = config.headers;
    client::add_api_headers(config.api, target.headers);
    const std::optional<std::string> key = client::find_api_key(w.api_key_env);
    if (key) {
      target.headers.push_back(client::auth_header(config.api, *key));
      const std::string warning = client::short_key_warning(*key, w.api_key_env);
      if (!warning.empty() && std::find(secrets.begin(), secrets.end(), *key) == secrets.end()) {
        std::fprintf(stderr, "%s\n", warning.c_str());
      }
      secrets.push_back(*key);
    }
    plan.targets.push_back(std::move(target));
  }
  if (!config.targets.empty()) {  // the root configuration names a base URL too
    std::string userinfo;
    std::tie(config.base_url, userinfo) = client::split_userinfo(config.base_url);
    client::add_userinfo_secrets(userinfo, secrets);
  }
  // Credentials in a query string or the body (?api-key=..., {"api_key": ...}) are sent, but
  // never shown: their values are cut from everything written, as the key's are.
  for (const std::string* url : {&config.base_url, &config.endpoint}) {
    core::redact_query(*url, &secrets);
  }
  for (const auto& m : core::server_metrics_source(config).urls)
    core::redact_query(m.url, &secrets);
  for (const auto& url : config.replica_urls) core::redact_query(url, &secrets);
  for (const auto& t : config.targets) core::redact_query(t.base_url, &secrets);
  core::redact_query(config.otlp_endpoint, &secrets);
  core::redact_json_fields(config.extra_body, &secrets);
  // Longest first, so that a secret containing another is cut whole.
  std::sort(secrets.begin(), secrets.end(),
            [](const std::string& a, const std::string& b) { return a.size() > b.size(); });
  if (config.replica_urls.size() > 1) config.base_url = config.replica_urls.front();
}

// The model /v1/models' list `ids` names for `w`: its first when none was given (a list without
// one is an error), else the one given, with a warning when the list lacks it.
void settle_model(const Wanted& w, const client::HttpGetResult& models,
                  const std::vector<std::string>& ids) {
  const std::string& shown = *w.base_url;
  if (w.model->empty()) {
    if (models.status != 200 || ids.empty()) {
      if (const std::string not_api = client::non_api_reply(models); !not_api.empty()) {
        throw RunError(fmt::format("{}/v1/models {}: point --base-url at the API server itself "
                                   "(a login page or a proxy answered), or pass --model NAME",
                                   shown, core::one_line(not_api)),
                       true);
      }
      throw RunError(fmt::format("{}/v1/models (HTTP {}) names no model: pass --model NAME", shown,
                                 models.status),
                     true);
    }
    *w.model = ids.front();
  } else if (!ids.empty() && std::find(ids.begin(), ids.end(), *w.model) == ids.end()) {
    // Some servers answer whatever the name; the results would carry a model that never ran.
    std::fprintf(stderr,
                 "tokenbench: warning: %s/v1/models does not list model '%s' (it lists %s); a "
                 "server that ignores the name answers with another model\n",
                 shown.c_str(), core::one_line(*w.model).c_str(),
                 core::one_line(join_ids(ids)).c_str());
  }
}

// Preflight: server `i` of `count` must answer before we measure it; /v1/models also names the
// model.
void preflight(core::RunConfig& config, const Wanted& w, std::size_t i, std::size_t count,
               Plan& plan) {
  const std::string& shown = *w.base_url;
  driver::Target& target = plan.targets[i];
  if (!config.preflight) {
    if (w.model->empty()) {
      throw RunError(fmt::format("--no-preflight skips asking {}/v1/models for the model: "
                                 "pass --model NAME",
                                 shown),
                     false);
    }
    target.model = *w.model;
    return;
  }
  const auto models = client::http_get(target.base_url + "/v1/models", target.headers,
                                       kPreflightTimeoutS, client::get_options(config));
  if (!models.transport_ok) {
    throw RunError(unanswered_preflight(shown, models, plan.redact(models.error)), true);
  }
  if (models.status == 401 || models.status == 403) {
    throw RunError(fmt::format("{}/v1/models answered HTTP {}: the server rejected {}. Check "
                               "the key, or name its variable with --api-key-env",
                               shown, models.status, client::key_origin(w.api_key_env, config.api)),
                   true);
  }
  const client::ModelList list = client::parse_model_list(models.body);
  if (list.sim_time_scale) config.sim_time_scale = *list.sim_time_scale;
  settle_model(w, models, list.ids);
  target.model = *w.model;
  // The environment record: what the server says about itself (short GETs, never fatal).
  plan.servers.resize(count);
  plan.servers[i] = collect::probe_server(target.base_url, target.headers, models.body,
                                          models.server_header, 2.0, client::get_options(config));
  plan.servers[i]["url"] = shown;
}

std::unique_ptr<tokenizer::Tokenizer> load_tokenizer(const core::RunConfig& config) {
  if (config.tokenizer.empty()) return nullptr;
  try {
    tokenizer::LoadOptions load_options;
    load_options.tiktoken_encoding = config.tiktoken_encoding;
    return tokenizer::load_tokenizer(config.tokenizer, load_options);
  } catch (const std::exception& e) {
    throw RunError(e.what(), false);
  }
}

// A dataset from a pipe (a named pipe, <(...)) can be read once: its bytes are kept in a
// private file that every measurement (a sweep's levels, a search's probes) reads. "" for none.
std::string keep_dataset_pipe(const core::RunConfig& config) {
  if (core::reads_file(config.dataset) && !config.dataset_path.empty() &&
      core::file_kind(config.dataset_path) == core::FileKind::kPipe) {
    try {
      return copy_pipe_to_temp(config.dataset_path);
    } catch (const std::exception& e) {
      throw RunError(e.what(), false);
    }
  }
  return "";
}

}  // namespace

std::string Plan::redact(std::string text) const {
  for (const auto& s : secrets) text = client::redact(std::move(text), s);
  return text;
}

Plan resolve_plan(core::RunConfig& config) {
  if (config.gpu_metrics.mode == core::GpuMetricsSource::Mode::kNvidiaSmi &&
      !collect::find_on_path("nvidia-smi")) {
    throw RunError(
        "--gpu-metrics nvidia-smi: nvidia-smi is not on PATH (install the NVIDIA driver's tools, "
        "or use --gpu-metrics dcgm=URL or off)",
        false);
  }
  Plan plan;
  const std::vector<Wanted> wanted = wanted_servers(config);
  resolve_credentials(config, wanted, plan);
  for (std::size_t i = 0; i < wanted.size(); ++i) {
    preflight(config, wanted[i], i, wanted.size(), plan);
  }
  plan.host = collect::collect_host();
  for (auto& t : config.targets) {
    if (t.name.empty()) t.name = t.model;
  }
  plan.tokenizer = load_tokenizer(config);
  plan.dataset_copy = keep_dataset_pipe(config);
  raise_fd_limit();
  return plan;
}

workload::Workload build_workload(const Plan& plan, const core::RunConfig& config) {
  const std::string& copy = plan.dataset_copy;
  if (copy.empty()) return workload::build_workload(config, plan.tokenizer.get());
  core::RunConfig from_copy = config;
  from_copy.dataset_path = copy;
  try {
    return workload::build_workload(from_copy, plan.tokenizer.get());
  } catch (const std::exception& e) {  // said with the path the user gave
    std::string what = e.what();
    for (auto at = what.find(copy); at != std::string::npos;
         at = what.find(copy, at + config.dataset_path.size())) {
      what.replace(at, copy.size(), config.dataset_path);
    }
    throw std::runtime_error(what);
  }
}

}  // namespace tokenbench::measure
