// The engine against servers that misbehave: replies that never end, bodies it did not ask for,
// content-free answers, web pages, redirects and silences. Each must end as a classified failure,
// and the client's memory must stay flat while it happens.

#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <fstream>
#include <mutex>
#include <sstream>

#include "fake_server.h"
#include "tokenbench/client/http_engine.h"

namespace tokenbench::client {
namespace {

using namespace std::chrono_literals;
using testing::FakeServer;
using testing::Piece;

const std::string kSseHeaders =
    "HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Type: text/event-stream\r\n\r\n";
const std::string kJsonHeaders =
    "HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Type: application/json\r\n\r\n";

std::string chat_chunk(const std::string& content) {
  return "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"" + content +
         "\"},\"finish_reason\":null}]}\n\n";
}

// One request against `url` under `config` (its endpoints are set here); returns the record of
// every attempt (one unless config.retries), in the order recorded.
std::vector<core::RequestRecord> run_attempts(const std::string& url, EngineConfig config,
                                              std::int64_t max_tokens = 8) {
  core::RunClock clock;
  config.endpoints = {{url + "/v1/chat/completions", {}}};
  config.max_concurrency = 1;
  HttpEngine engine(config, clock);
  std::vector<core::RequestSpec> specs(1);
  specs[0].max_tokens = max_tokens;
  std::vector<std::string> bodies{R"({"messages":[{"role":"user","content":"hi"}]})"};
  ImmediateSource source(specs, bodies, 1, clock.now());
  std::mutex m;
  std::vector<core::RequestRecord> records;
  engine.run_phase(source, 1, [&](core::RequestRecord&& r) {
    std::lock_guard<std::mutex> lock(m);
    records.push_back(std::move(r));
  });
  return records;
}

// One request without retries: its record.
core::RequestRecord run_one(const std::string& url, EngineConfig config,
                            std::int64_t max_tokens = 8) {
  auto records = run_attempts(url, std::move(config), max_tokens);
  EXPECT_EQ(records.size(), 1u);
  return records.empty() ? core::RequestRecord{} : std::move(records[0]);
}

EngineConfig with_timeout(double seconds, bool stream = true) {
  EngineConfig config;
  config.timeout_s = seconds;
  config.stream = stream;
  return config;
}

// A memory figure of this process's /proc/self/status ("VmHWM": peak resident, "VmRSS": resident),
// in bytes; reset_peak() starts a new peak.
std::int64_t status_bytes(std::string_view key) {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind(key, 0) == 0 && line.size() > key.size() && line[key.size()] == ':') {
      return std::stoll(line.substr(key.size() + 1)) * 1024;
    }
  }
  return -1;
}
void reset_peak() { std::ofstream("/proc/self/clear_refs") << "5"; }

// Runs `body` and returns by how much it raised the process's peak resident memory.
template <typename Body>
std::int64_t peak_growth(Body&& body) {
  reset_peak();
  const std::int64_t before = status_bytes("VmRSS");
  body();
  return status_bytes("VmHWM") - before;
}

constexpr std::int64_t kFlat = 32 << 20;  // far below what the hostile servers would cost

TEST(HostileServer, EndlessSseLineFailsAsMalformedWithFlatMemory) {
  // Without a bound, this server grows the client by about 100 MB a second until the timeout.
  FakeServer server({{kSseHeaders + "data: {\"choices\":[{\"delta\":{\"content\":\"", 0ms},
                     {std::string(64 * 1024, 'x'), 0ms, Piece::kForever}});
  EngineConfig config = with_timeout(5);
  config.max_event_bytes = 1 << 20;
  core::RequestRecord r;
  const std::int64_t growth = peak_growth([&] { r = run_one(server.url(), config); });
  EXPECT_EQ(r.error, core::ErrorClass::kMalformed) << r.error_message;
  EXPECT_NE(r.error_message.find("--max-event-bytes"), std::string::npos) << r.error_message;
  EXPECT_NE(r.error_message.find("1 MiB"), std::string::npos) << r.error_message;
  EXPECT_LT(growth, kFlat);
}

TEST(HostileServer, EndlessValidStreamStopsAtTheChunkBoundWithFlatMemory) {
  FakeServer server({{kSseHeaders, 0ms}, {chat_chunk("a"), 0ms, Piece::kForever}});
  core::RequestRecord r;
  const std::int64_t growth =
      peak_growth([&] { r = run_one(server.url(), with_timeout(5), /*max_tokens=*/8); });
  EXPECT_EQ(r.error, core::ErrorClass::kProtocol) << r.error_message;
  const ReplyLimits limits = reply_limits(EngineConfig{}, 8);
  EXPECT_EQ(limits.chunks, 8 * 8 + 256);
  // Every chunk up to the bound is kept and stamped; none beyond it.
  EXPECT_EQ(static_cast<std::int64_t>(r.chunks.size()), limits.chunks);
  EXPECT_NE(r.error_message.find("more than 320 content chunks for max_tokens 8"),
            std::string::npos)
      << r.error_message;
  EXPECT_LT(growth, kFlat);
}

TEST(HostileServer, EndlessKeepAliveCommentsStopAtTheByteBound) {
  // No content at all, only comments: nothing is kept, but the reply is still bounded.
  FakeServer server({{kSseHeaders, 0ms}, {": " + std::string(8190, 'k') + "\n", 0ms, -1}});
  EngineConfig config = with_timeout(5);
  config.max_reply_bytes = 4 << 20;
  const auto r = run_one(server.url(), config);
  EXPECT_EQ(r.error, core::ErrorClass::kProtocol) << r.error_message;
  EXPECT_NE(r.error_message.find("the reply exceeded 4 MiB"), std::string::npos) << r.error_message;
}

TEST(HostileServer, EndlessNonStreamedBodyIsBoundedWithFlatMemory) {
  FakeServer server({{kJsonHeaders + "{\"choices\":[{\"message\":{\"content\":\"", 0ms},
                     {std::string(64 * 1024, 'y'), 0ms, Piece::kForever}});
  core::RequestRecord r;
  const std::int64_t growth =
      peak_growth([&] { r = run_one(server.url(), with_timeout(5, /*stream=*/false), 8); });
  EXPECT_EQ(r.error, core::ErrorClass::kProtocol) << r.error_message;
  EXPECT_NE(r.error_message.find("the reply body exceeded"), std::string::npos) << r.error_message;
  EXPECT_LT(growth, kFlat);
}

TEST(HostileServer, KeptTextIsBounded) {
  // Few chunks, each huge: the chunk bound does not stop it, the text bound does.
  FakeServer server({{kSseHeaders, 0ms}, {chat_chunk(std::string(512 * 1024, 'z')), 0ms, 40}});
  EngineConfig config = with_timeout(5);
  config.keep_text = true;
  const auto r = run_one(server.url(), config, 8);
  EXPECT_EQ(r.error, core::ErrorClass::kProtocol) << r.error_message;
  EXPECT_NE(r.error_message.find("text exceeded"), std::string::npos) << r.error_message;
  EXPECT_LE(static_cast<std::int64_t>(r.output_text.size()),
            reply_limits(EngineConfig{}, 8).text_bytes);
}

TEST(HostileServer, ImplausibleUsageIsAProtocolFailureNotAHang) {
  // fuzz/findings/huge-usage.sse: usage claims 10^18 tokens for two chunks. Believed, it hung
  // the worker, then made per-token ITL allocate gigabytes.
  FakeServer server({{kSseHeaders + chat_chunk("a") + chat_chunk("b") +
                          "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":3,"
                          "\"completion_tokens\":1000000000000000000}}\n\ndata: [DONE]\n\n",
                      0ms}});
  const auto r = run_one(server.url(), with_timeout(5), 8);
  EXPECT_EQ(r.error, core::ErrorClass::kProtocol) << r.error_message;
  EXPECT_NE(r.error_message.find("claims 1000000000000000000 completion tokens for max_tokens 8"),
            std::string::npos)
      << r.error_message;
  EXPECT_EQ(r.output_tokens, 2);  // the chunks count instead
  for (const auto& c : r.chunks) EXPECT_EQ(c.tokens, 1);
}

TEST(HostileServer, UnrequestedGzipBodyIsRefusedUnread) {
  std::string gzip_like = "\x1f\x8b\x08";
  gzip_like += std::string(200 * 1024, '\0');
  FakeServer server(
      {{"HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Type: text/event-stream\r\n"
        "Content-Encoding: gzip\r\n\r\n" +
            gzip_like,
        0ms}});
  const auto r = run_one(server.url(), with_timeout(5));
  EXPECT_EQ(r.error, core::ErrorClass::kProtocol) << r.error_message;
  EXPECT_NE(r.error_message.find("encoded 'gzip'"), std::string::npos) << r.error_message;
  EXPECT_TRUE(r.chunks.empty());
}

TEST(HostileServer, HugeResponseHeadersAreAProtocolFailure) {
  // One 1 MB header line, then many small ones.
  FakeServer one_line(
      {{"HTTP/1.1 200 OK\r\nX-Big: " + std::string(1 << 20, 'h') + "\r\n\r\n", 0ms}});
  const auto a = run_one(one_line.url(), with_timeout(5));
  EXPECT_EQ(a.error, core::ErrorClass::kProtocol) << a.error_message;
  EXPECT_NE(a.error_message.find("headers exceed 256 KiB"), std::string::npos) << a.error_message;

  std::string many = "HTTP/1.1 200 OK\r\n";
  for (int i = 0; i < 400; ++i)
    many += "X-H" + std::to_string(i) + ": " + std::string(1000, 'h') + "\r\n";
  FakeServer many_lines({{many + "\r\n", 0ms}});
  const auto b = run_one(many_lines.url(), with_timeout(5));
  EXPECT_EQ(b.error, core::ErrorClass::kProtocol) << b.error_message;
  EXPECT_NE(b.error_message.find("headers exceed 256 KiB"), std::string::npos) << b.error_message;
}

TEST(HostileServer, ContentFreeRepliesAreFailuresOfTheirOwnClass) {
  FakeServer empty_json({{kJsonHeaders + "{}", 0ms}});
  const auto a = run_one(empty_json.url(), with_timeout(5, /*stream=*/false));
  EXPECT_EQ(a.error, core::ErrorClass::kEmptyReply) << a.error_message;

  FakeServer only_done({{kSseHeaders + "data: [DONE]\n\n", 0ms}});
  const auto b = run_one(only_done.url(), with_timeout(5));
  EXPECT_EQ(b.error, core::ErrorClass::kEmptyReply) << b.error_message;

  FakeServer zero_usage(
      {{kSseHeaders + "data: {\"choices\":[{\"delta\":{\"role\":\"assistant\"}}]}\n\n"
                      "data: {\"choices\":[{\"delta\":{},\"finish_reason\":\"stop\"}],"
                      "\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":0}}\n\n"
                      "data: [DONE]\n\n",
        0ms}});
  const auto c = run_one(zero_usage.url(), with_timeout(5));
  EXPECT_EQ(c.error, core::ErrorClass::kEmptyReply) << c.error_message;
  EXPECT_NE(c.error_message.find("finish_reason stop"), std::string::npos) << c.error_message;
}

TEST(HostileServer, ToolCallsAndUsageOnlyRepliesAreOutput) {
  // A reply that only calls a tool generated tokens: it is stamped and counted.
  FakeServer tools(
      {{kSseHeaders + "data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":"
                      "{\"name\":\"get_weather\",\"arguments\":\"\"}}]}}]}\n\n"
                      "data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":"
                      "{\"arguments\":\"{\\\"city\\\":\\\"Paris\\\"}\"}}]}}]}\n\n"
                      "data: {\"choices\":[{\"delta\":{},\"finish_reason\":\"tool_calls\"}]}\n\n"
                      "data: [DONE]\n\n",
        0ms}});
  EngineConfig config = with_timeout(5);
  config.keep_text = true;
  const auto a = run_one(tools.url(), config);
  EXPECT_TRUE(a.ok()) << a.error_message;
  EXPECT_EQ(a.chunks.size(), 2u);
  EXPECT_EQ(a.output_text, "get_weather{\"city\":\"Paris\"}");

  // No text, but the server's usage counts output tokens (content the adapter does not know).
  FakeServer usage_only(
      {{kJsonHeaders + "{\"choices\":[{\"message\":{\"audio\":{}},\"finish_reason\":"
                       "\"stop\"}],\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":5}}",
        0ms}});
  const auto b = run_one(usage_only.url(), with_timeout(5, /*stream=*/false));
  EXPECT_TRUE(b.ok()) << b.error_message;
  EXPECT_EQ(b.output_tokens, 5);
}

TEST(HostileServer, HtmlPagesAreMalformedAndNamed) {
  const std::string page =
      "<!DOCTYPE html>\n<html><head><title>Sign in - Gateway</title></head><body>...</body></html>";
  FakeServer login(
      {{"HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Type: text/html\r\n\r\n" + page, 0ms}});
  const auto a = run_one(login.url(), with_timeout(5));
  EXPECT_EQ(a.error, core::ErrorClass::kMalformed) << a.error_message;
  EXPECT_NE(a.error_message.find("an HTML page titled 'Sign in - Gateway'"), std::string::npos)
      << a.error_message;
  EXPECT_NE(a.error_message.find("--base-url"), std::string::npos) << a.error_message;

  FakeServer proxy(
      {{"HTTP/1.1 502 Bad Gateway\r\nConnection: close\r\nContent-Type: "
        "text/html\r\n\r\n<html><head><title>502 Bad Gateway</title></head></html>",
        0ms}});
  const auto b = run_one(proxy.url(), with_timeout(5));
  EXPECT_EQ(b.error, core::ErrorClass::kHttp5xx) << b.error_message;
  EXPECT_EQ(b.error_message, "HTTP 502: an HTML page titled '502 Bad Gateway'");
}

TEST(HostileServer, RedirectIsItsOwnClassAndNamesTheLocation) {
  FakeServer server(
      {{"HTTP/1.1 301 Moved Permanently\r\nConnection: close\r\nLocation: "
        "https://api.example.com/v1/chat/completions\r\nContent-Length: 0\r\n\r\n",
        0ms}});
  const auto r = run_one(server.url(), with_timeout(5));
  EXPECT_EQ(r.error, core::ErrorClass::kRedirect) << r.error_message;
  EXPECT_EQ(r.http_status, 301);
  EXPECT_NE(r.error_message.find("https://api.example.com/v1/chat/completions"), std::string::npos)
      << r.error_message;
  EXPECT_NE(core::error_hint(r.error, r.http_status).find("--base-url"), std::string::npos);
}

TEST(HostileServer, TtftTimeoutEndsAServerThatOnlyPings) {
  FakeServer server({{kSseHeaders, 0ms}, {": ping\n\n", 50ms, 60}});
  EngineConfig config = with_timeout(10);
  config.ttft_timeout_s = 0.3;
  const auto r = run_one(server.url(), config);
  EXPECT_EQ(r.error, core::ErrorClass::kTtftTimeout) << r.error_message;
  EXPECT_GE(r.done - r.sent, 300'000'000);
  EXPECT_LT(r.done - r.sent, 2'500'000'000);  // the server would have pinged for 3 s
  EXPECT_NE(r.error_message.find("0.3 s"), std::string::npos) << r.error_message;
}

TEST(HostileServer, StallTimeoutEndsASilenceMidStreamAndKeepsTheChunks) {
  FakeServer server({{kSseHeaders + chat_chunk("a") + chat_chunk("b"), 1500ms},
                     {chat_chunk("c") + "data: [DONE]\n\n", 0ms}});
  EngineConfig config = with_timeout(10);
  config.stall_timeout_s = 0.3;
  const auto r = run_one(server.url(), config);
  EXPECT_EQ(r.error, core::ErrorClass::kStallTimeout) << r.error_message;
  EXPECT_EQ(r.chunks.size(), 2u);
  EXPECT_LT(r.done - r.sent, 2'500'000'000);
  EXPECT_NE(r.error_message.find("after 2 content chunks"), std::string::npos) << r.error_message;
}

TEST(HostileServer, ConnectTimeoutIsItsOwnClass) {
  // A listener whose accept queue is full: the kernel drops further SYNs, so connect() hangs.
  const int listener = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(bind(listener, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  ASSERT_EQ(listen(listener, 0), 0);
  socklen_t len = sizeof addr;
  getsockname(listener, reinterpret_cast<sockaddr*>(&addr), &len);
  std::vector<int> fillers;
  for (int i = 0; i < 4; ++i) {
    const int f = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
    connect(f, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
    fillers.push_back(f);
  }
  std::this_thread::sleep_for(100ms);
  EngineConfig config = with_timeout(10);
  config.connect_timeout_s = 0.3;
  const auto r = run_one("http://127.0.0.1:" + std::to_string(ntohs(addr.sin_port)), config);
  EXPECT_EQ(r.error, core::ErrorClass::kConnectTimeout) << r.error_message;
  EXPECT_LT(r.done - r.sent, 2'500'000'000);
  for (const int f : fillers) close(f);
  close(listener);
}

TEST(HostileServer, TotalTimeoutStaysTimeout) {
  FakeServer server({{kSseHeaders + chat_chunk("a"), 0ms}, {chat_chunk("b"), 100ms, 40}});
  const auto r = run_one(server.url(), with_timeout(0.5));
  EXPECT_EQ(r.error, core::ErrorClass::kTimeout) << r.error_message;
  EXPECT_GE(r.chunks.size(), 1u);
}

std::vector<core::RequestRecord> run_with_retries(const std::string& url, int retries) {
  EngineConfig config;
  config.retries = retries;
  config.seed = 7;
  return run_attempts(url, config);
}

TEST(HostileServer, RetriesRecordEveryAttemptAndHonourRetryAfter) {
  FakeServer server(
      {{"HTTP/1.1 429 Too Many Requests\r\nConnection: close\r\nRetry-After: "
        "1\r\nContent-Length: 2\r\n\r\n{}",
        0ms}});
  const auto records = run_with_retries(server.url(), 2);
  ASSERT_EQ(records.size(), 3u);
  for (std::uint32_t i = 0; i < 3; ++i) {
    EXPECT_EQ(records[i].id, records[0].id);
    EXPECT_EQ(records[i].attempt, i);
    EXPECT_EQ(records[i].error, core::ErrorClass::kRateLimited);
    EXPECT_EQ(records[i].retried, i < 2);  // the last attempt stands for the request
  }
  // Retry-After: 1 is honoured (the backoff alone would wait 0.125 to 0.5 s).
  EXPECT_GE(records[1].sent - records[0].done, 1'000'000'000);
  EXPECT_GE(records[2].sent - records[1].done, 1'000'000'000);
  EXPECT_EQ(server.requests(), 3);
}

TEST(HostileServer, NonRetryableFailuresAreNotRetried) {
  FakeServer server(
      {{"HTTP/1.1 400 Bad Request\r\nConnection: close\r\nContent-Length: "
        "2\r\n\r\n{}",
        0ms}});
  const auto records = run_with_retries(server.url(), 3);
  ASSERT_EQ(records.size(), 1u);
  EXPECT_FALSE(records[0].retried);
  EXPECT_EQ(server.requests(), 1);
}

TEST(RetryBackoff, GrowsExponentiallyWithRepeatableJitter) {
  for (std::uint32_t attempt = 0; attempt < 8; ++attempt) {
    const double base = std::min(30.0, 0.25 * (1 << attempt));
    const double wait = static_cast<double>(retry_backoff(1, 42, attempt, 0)) / 1e9;
    EXPECT_GE(wait, base / 2) << attempt;
    EXPECT_LE(wait, base) << attempt;
    EXPECT_EQ(retry_backoff(1, 42, attempt, 0), retry_backoff(1, 42, attempt, 0));
  }
  EXPECT_NE(retry_backoff(1, 42, 3, 0), retry_backoff(1, 43, 3, 0));  // jitter spreads requests
  EXPECT_EQ(retry_backoff(1, 42, 0, 5.0), 5'000'000'000);             // Retry-After wins
  EXPECT_EQ(retry_backoff(1, 42, 0, 1e6), 120'000'000'000);           // but is capped
}

}  // namespace
}  // namespace tokenbench::client
