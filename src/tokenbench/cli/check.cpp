// `tokenbench check`: is this server ready to be benchmarked? Each step with its result, its time
// and, when it fails, what to try.

#include <fmt/core.h>

#include <cstdio>

#include "tokenbench/cli/commands.h"
#include "tokenbench/cli/option_values.h"
#include "tokenbench/cli/run_flags.h"
#include "tokenbench/client/credentials.h"
#include "tokenbench/client/probe.h"
#include "tokenbench/core/secret_fields.h"
#include "tokenbench/core/text.h"

namespace tokenbench::cli {
namespace {

struct CheckFlags {
  std::string base_url = "http://127.0.0.1:8000";
  std::string endpoint = "/v1/chat/completions";
  bool endpoint_given = false;
  std::string api;
  std::string model;
  std::vector<std::string> headers;
  std::string api_key_env = "OPENAI_API_KEY";
  double timeout_s = 10;
  bool no_request = false;
  bool http2 = false;
  std::string ca_file;
  bool insecure = false;
};

std::string_view status_word(client::ProbeStep::Status s) {
  switch (s) {
    case client::ProbeStep::Status::kOk:
      return "ok";
    case client::ProbeStep::Status::kWarn:
      return "WARN";
    case client::ProbeStep::Status::kFail:
      return "FAIL";
    case client::ProbeStep::Status::kSkipped:
      return "-";
  }
  return "?";
}

std::string render(const client::ProbeResult& result) {
  std::string out;
  for (const auto& s : result.steps) {
    const std::string ms = s.ms >= 0 ? fmt::format("{:.1f} ms", s.ms) : "";
    out += fmt::format("  {:<8} {:<5} {:>10}  {}\n", s.name, status_word(s.status), ms,
                       core::one_line(s.detail));
    if (!s.hint.empty() && s.status != client::ProbeStep::Status::kOk) {
      out += fmt::format("  {:<8} {:<5} {:>10}  hint: {}\n", "", "", "", s.hint);
    }
  }
  return out;
}

int check(CheckFlags& f) {
  client::ProbeTarget target;
  bool endpoint_from_url = false;
  target.base_url = forgiving_url(f.base_url, f.endpoint, f.endpoint_given, &endpoint_from_url);
  target.endpoint = f.endpoint;
  target.api = settle_api(f.api, target.endpoint, f.endpoint_given, endpoint_from_url);
  if (!(f.timeout_s > 0 && f.timeout_s <= 3600)) {
    throw UsageError("--timeout must be a number of seconds in (0, 3600]");
  }
  check_headers(f.headers);
  std::string userinfo;
  std::tie(target.shown_url, userinfo) = client::split_userinfo(target.base_url);
  target.model = f.model;
  target.headers = f.headers;
  client::add_api_headers(target.api, target.headers);
  if (target.api == core::ApiKind::kAnthropicMessages && f.api_key_env == "OPENAI_API_KEY") {
    f.api_key_env = "ANTHROPIC_API_KEY";
  }
  if (const auto key = client::find_api_key(f.api_key_env)) {
    target.headers.push_back(client::auth_header(target.api, *key));
    if (const std::string w = client::short_key_warning(*key, f.api_key_env); !w.empty()) {
      std::fprintf(stderr, "%s\n", w.c_str());
    }
  }
  target.key_origin = client::key_origin(f.api_key_env, target.api);
  target.timeout_s = f.timeout_s;
  target.stream_request = !f.no_request;
  target.http2 = f.http2;
  // As `run` does: TLS trust and HTTP/2 for every step, the GETs included.
  target.tls = {f.ca_file, f.insecure};

  // A credential in the query string is sent, never shown (nor one the server echoes).
  std::vector<std::string> hidden;
  const std::string shown_endpoint = core::redact_query(target.endpoint, &hidden);
  std::printf("Checking %s (%s %s)\n", target.shown_url.c_str(),
              core::to_string(target.api).c_str(), shown_endpoint.c_str());
  std::fflush(stdout);
  const client::ProbeResult result = client::probe(target);
  std::string shown = render(result);
  for (const auto& secret : hidden) shown = client::redact(std::move(shown), secret);
  std::fputs(shown.c_str(), stdout);
  if (!result.ok()) {
    std::printf("Not ready: fix the failed step above, then check again.\n");
    return kExitNoMeasure;
  }
  // Every value is quoted for the shell: the line is made to be pasted, and the model id comes
  // from the server.
  const auto word = [](const std::string& v) { return core::shell_quoted(core::one_line(v)); };
  std::string line = "tokenbench run --base-url " + word(target.shown_url);
  if (f.endpoint_given || target.endpoint != "/v1/chat/completions") {
    line += " --endpoint " + word(shown_endpoint);
  }
  if (!result.model.empty()) line += " --model " + word(result.model);
  if (f.http2) line += " --http2";
  if (!f.ca_file.empty()) line += " --cacert " + word(f.ca_file);
  if (f.insecure) line += " --insecure";
  std::printf("Ready: %s\n", line.c_str());
  return kExitOk;
}

}  // namespace

void add_check_command(CLI::App& app, int& exit_code) {
  auto flags = std::make_shared<CheckFlags>();
  CLI::App* cmd = app.add_subcommand(
      "check",
      "Check that a server is ready to benchmark: name resolution, connect, TLS, the key, "
      "GET /v1/models and one tiny streamed request, each with its time and a hint");
  cmd->add_option("--base-url", flags->base_url, "Server URL, e.g. http://127.0.0.1:8000")
      ->capture_default_str();
  cmd->add_option("--endpoint", flags->endpoint, "Request path")
      ->capture_default_str()
      ->each([flags](const std::string&) { flags->endpoint_given = true; });
  cmd->add_option("--api", flags->api,
                  "openai-chat | openai (legacy completions); default: inferred from --endpoint");
  cmd->add_option("--model", flags->model, "Model name; default: the first id of GET /v1/models");
  cmd->add_option("--header", flags->headers, "Extra request header 'Name: value' (repeatable)");
  cmd->add_option("--api-key-env", flags->api_key_env,
                  "Environment variable (or .env key) holding the API key")
      ->capture_default_str();
  cmd->add_option("--timeout", flags->timeout_s, "Seconds each step may take")
      ->capture_default_str();
  cmd->add_flag("--no-request", flags->no_request,
                "Stop after GET /v1/models: send no generation request");
  cmd->add_flag("--http2", flags->http2,
                "Speak HTTP/2, as `run --http2` does: h2c prior knowledge for http://, ALPN h2 "
                "for https://");
  cmd->add_option("--cacert", flags->ca_file,
                  "https: verify the server against this PEM bundle instead of the system's "
                  "certificates")
      ->check(CLI::ExistingFile);
  cmd->add_flag("--insecure", flags->insecure,
                "https: do not verify the server's certificate or name (a test server only)");
  offer_table_values(cmd);  // --api: the option table's names
  cmd->callback([flags, &exit_code] {
    try {
      exit_code = check(*flags);
    } catch (const UsageError& e) {
      std::fprintf(stderr, "tokenbench: error: %s\n", e.what());
      exit_code = kExitUsage;
    }
  });
}

}  // namespace tokenbench::cli
