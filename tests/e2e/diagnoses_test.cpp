// End to end: `check` and `run`'s preflight say what a server did wrong, not something else:
// an HTTP/1.1 server asked with --http2, a server that ignores "stream": true, a redirect or a web
// page on /v1/models, and a /v1/models that never answers on a connection that was made.

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <regex>
#include <thread>

#include "../client/fake_server.h"
#include "process.h"

namespace tokenbench::e2e {
namespace {

using namespace std::chrono_literals;
using testing::FakeServer;
using testing::Piece;

ProcessResult check(const FakeServer& server, std::vector<std::string> extra = {}) {
  std::vector<std::string> args{TOKENBENCH_BINARY, "check", "--base-url", server.url()};
  args.insert(args.end(), extra.begin(), extra.end());
  return run_process(args);
}

ProcessResult run(const FakeServer& server, const std::string& name,
                  std::vector<std::string> extra = {}) {
  extra.insert(extra.end(), {"--num-prompts", "1", "--input-len", "8", "--output-len", "4"});
  return run_process(run_args(server.url(), make_temp_dir(name), extra));
}

// What a plain HTTP/1.1 server answers to the h2 preface ("PRI * HTTP/2.0").
std::vector<Piece> http11_only() {
  return {{"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n", 200ms}};
}

TEST(Diagnoses, CheckWithHttp2AgainstAnHttp11ServerSaysToDropTheFlag) {
  FakeServer server(http11_only());
  const auto r = check(server, {"--http2"});
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.out.find("  connect  ok "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("  auth     FAIL"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("the server answered in HTTP/1.1: it does not speak h2c; drop --http2"),
            std::string::npos)
      << r.out;
  EXPECT_EQ(r.out.find("stream_cut"), std::string::npos) << r.out;
}

TEST(Diagnoses, RunWithHttp2AgainstAnHttp11ServerSaysToDropTheFlag) {
  FakeServer server(http11_only());
  const auto r = run(server, "diag-h2-run", {"--http2", "--model", "m"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("the server answered in HTTP/1.1: it does not speak h2c; drop --http2"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(r.err.find("Empty reply"), std::string::npos) << r.err;
}

// An HTTP/1.1 server that answers the first bytes it reads at once and closes with the rest of
// the client's bytes unread (a reset): libcurl and the engine may still be sending, and see a
// broken pipe; the answer waiting in the socket is what says why.
class AnswerAtOnceServer {
 public:
  AnswerAtOnceServer() {
    fd_ = testing::listen_on_loopback(port_);
    thread_ = std::thread([this] {
      while (true) {
        const int c = accept(fd_, nullptr, nullptr);
        if (c < 0) return;
        char first[16];
        if (recv(c, first, sizeof first, 0) > 0) {
          const std::string_view answer =
              "HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n";
          (void)!send(c, answer.data(), answer.size(), MSG_NOSIGNAL);
        }
        close(c);
      }
    });
  }
  ~AnswerAtOnceServer() {
    shutdown(fd_, SHUT_RDWR);
    close(fd_);
    thread_.join();
  }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }

 private:
  int fd_ = -1;
  int port_ = 0;
  std::thread thread_;
};

TEST(Diagnoses, Http2AgainstAnHttp11ServerThatClosesAtOnceSaysToDropTheFlag) {
  AnswerAtOnceServer server;
  for (const bool preflight : {true, false}) {
    std::vector<std::string> args =
        run_args(server.url(), make_temp_dir(preflight ? "diag-h2-close" : "diag-h2-close-np"),
                 {"--http2", "--model", "m", "--num-prompts", "1", "--input-len", "8",
                  "--output-len", "4", "--fail-fast", "1"});
    if (!preflight) args.push_back("--no-preflight");
    const auto r = run_process(args);
    const std::string all = r.out + r.err;
    EXPECT_EQ(r.exit_code, 2) << all;
    EXPECT_NE(all.find("it does not speak h2c; drop --http2"), std::string::npos) << all;
    EXPECT_EQ(all.find("Send failure"), std::string::npos) << all;
  }
}

TEST(Diagnoses, CheckFailsTheStreamStepOfAServerThatDoesNotStream) {
  const std::string json =
      R"({"object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant",)"
      R"("content":"Hello."},"finish_reason":"stop"}],)"
      R"("usage":{"prompt_tokens":5,"completion_tokens":2,"total_tokens":7}})";
  FakeServer server({{"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: " +
                      std::to_string(json.size()) + "\r\nConnection: close\r\n\r\n" + json}});
  const auto r = check(server, {"--model", "m"});
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.out.find("  stream   FAIL"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("the server does not stream (one JSON reply)"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("first token after"), std::string::npos) << r.out;
  EXPECT_FALSE(std::regex_search(r.out, std::regex(" -[0-9]"))) << r.out;  // no negative time
  EXPECT_EQ(r.out.find("Ready:"), std::string::npos) << r.out;
}

TEST(Diagnoses, ARedirectOnModelsNamesItsLocation) {
  FakeServer server(
      {{"HTTP/1.1 302 Found\r\nLocation: https://login.example/sso\r\n"
        "Content-Length: 0\r\nConnection: close\r\n\r\n"}});
  const auto c = check(server);
  EXPECT_EQ(c.exit_code, 2) << c.out;
  EXPECT_NE(c.out.find("  models   FAIL"), std::string::npos) << c.out;
  EXPECT_NE(c.out.find("answered HTTP 302, a redirect to https://login.example/sso"),
            std::string::npos)
      << c.out;
  EXPECT_EQ(c.out.find("names no model"), std::string::npos) << c.out;
  EXPECT_EQ(c.out.find("it accepted"), std::string::npos) << c.out;  // the key was not judged
  const auto r = run(server, "diag-redirect");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("answered HTTP 302, a redirect to https://login.example/sso"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(r.err.find("names no model"), std::string::npos) << r.err;
}

TEST(Diagnoses, AWebPageOnModelsNamesItsContentType) {
  const std::string page = "<!doctype html><html><title>Sign in</title></html>";
  FakeServer server(
      {{"HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\n"
        "Content-Length: " +
        std::to_string(page.size()) + "\r\nConnection: close\r\n\r\n" + page}});
  const auto c = check(server);
  EXPECT_EQ(c.exit_code, 2) << c.out;
  EXPECT_NE(c.out.find("  models   FAIL"), std::string::npos) << c.out;
  EXPECT_NE(c.out.find("answered HTTP 200 with text/html, not JSON"), std::string::npos) << c.out;
  EXPECT_EQ(c.out.find("names no model"), std::string::npos) << c.out;
  const auto r = run(server, "diag-html");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("answered HTTP 200 with text/html, not JSON"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("names no model"), std::string::npos) << r.err;
}

// The server takes the connection and the request, and never answers.
TEST(Diagnoses, AModelsRequestWithoutAnswerFailsAfterTheConnectStep) {
  FakeServer server({{"", 100ms, Piece::kForever}});
  const auto c = check(server, {"--timeout", "1"});
  EXPECT_EQ(c.exit_code, 2) << c.out;
  EXPECT_NE(c.out.find("  connect  ok "), std::string::npos) << c.out;
  EXPECT_NE(c.out.find("  auth     FAIL"), std::string::npos) << c.out;
  EXPECT_NE(c.out.find("GET /v1/models: no answer within 1 s"), std::string::npos) << c.out;
}

TEST(Diagnoses, RunsPreflightSaysTheConnectionWasMadeButModelsDidNotAnswer) {
  FakeServer server({{"", 100ms, Piece::kForever}});
  const auto r = run(server, "diag-hang");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("accepted the connection, but GET " + server.url() +
                       "/v1/models got no answer within 10 s"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(r.err.find("cannot reach"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace tokenbench::e2e
