#pragma once

#include <curl/curl.h>

#include <memory>
#include <vector>

#include "tokenbench/client/transport.h"

namespace tokenbench::client {

/// libcurl's transport: a multi handle driven by the worker's epoll loop (multi-socket API), one
/// easy handle per request slot, reused across requests. It carries what the native transports
/// cannot (proxies, other schemes) and everything with --transport curl. Its reply bytes are
/// stamped from the run's clock first thing in the callback that sees them.
class CurlTransport final : public Transport {
 public:
  explicit CurlTransport(const TransportContext& context);
  ~CurlTransport() override;

  void submit(Transfer& t) override;
  void on_events(std::uint64_t key, std::uint32_t events) override;
  void close(Transfer& t) override;
  AttemptFacts facts(Transfer& t) override;
  Stage stage(const Transfer& t) const override;
  bool times_itself() const override { return true; }
  bool run_due() override;
  void after_events() override;
  core::Nanos wake_at() const override { return deadline_; }

 private:
  /// What the transport keeps per request slot: its easy handle and the attempt's state.
  struct Attempt {
    CurlTransport* owner = nullptr;
    Transfer* transfer = nullptr;
    CURL* easy = nullptr;
    std::uint32_t endpoint = 0;  // whose URL the handle carries now
    bool in_multi = false;       // its handle is added to the multi
    char error[CURL_ERROR_SIZE] = {};
    // The request's identity headers: two list nodes of its own in front of the endpoint's
    // shared header list, filled at each launch without allocating.
    curl_slist id_nodes[2] = {};
  };

  Attempt& attempt(Transfer& t);
  /// A new easy handle for `a`, set up for the engine's settings.
  void set_up(Attempt& a);
  void socket_action(curl_socket_t fd, int mask);
  void drain_completed();

  static int on_socket(CURL* easy, curl_socket_t fd, int what, void* userp, void* socketp);
  static int on_timer(CURLM* multi, long timeout_ms, void* userp);
  static std::size_t on_header(char* data, std::size_t size, std::size_t n, void* userp);
  static std::size_t on_write(char* data, std::size_t size, std::size_t n, void* userp);

  CURLM* multi_ = nullptr;
  std::vector<curl_slist*> headers_;        // per endpoint
  std::vector<curl_slist*> whole_headers_;  // per endpoint, for non-streamed requests
  AttemptSlots<Attempt> attempts_;
  core::Nanos deadline_ = core::kNever;  // libcurl's next timeout
  bool timeout_now_ = false;
};

}  // namespace tokenbench::client
