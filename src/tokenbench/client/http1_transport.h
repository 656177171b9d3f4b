#pragma once

#include <memory>
#include <string>
#include <vector>

#include "tokenbench/client/http1_reader.h"
#include "tokenbench/client/socket_transport.h"

namespace tokenbench::client {

/// The native HTTP/1.1 transport: http:// and https:// endpoints without a proxy, one request
/// at a time per connection, connections kept alive in an idle pool per endpoint (or one per
/// request with --connection-mode per-request). Replies are parsed by Http1Reader as each
/// stamped read arrives.
class Http1Transport final : public SocketTransport {
 public:
  Http1Transport(const TransportContext& context, std::vector<std::optional<HttpTarget>> targets);
  ~Http1Transport() override;

  void submit(Transfer& t) override;
  void close(Transfer& t) override;
  AttemptFacts facts(Transfer& t) override;
  std::size_t idle_connections() const override;

 private:
  struct Attempt;
  struct Link;

  const Connection* connection_of(const Transfer& t) const override;
  std::unique_ptr<Connection> make_connection() const override;
  void on_connected(Connection* c) override;
  void on_ready(Connection* c, std::uint32_t events) override;
  void on_failed(Connection* c, core::ErrorClass error, const std::string& message) override;
  void forget(Connection* c) override;
  bool on_read(Connection* c, std::string_view bytes) override;
  std::size_t open_count(std::uint32_t endpoint) const override;
  Connection* open_ahead(std::uint32_t endpoint, std::string& error) override;
  void opened_ahead(Connection* c) override;
  bool busy(const Connection* c) const override;

  Attempt& attempt(Transfer& t);
  /// Hands `a` to connection `c` and writes the request when `c` is set up.
  void attach(Attempt& a, Link* c);
  void write_request(Attempt& a);
  /// The connection of `a` ended or failed (`error`, "" for a clean end) while its reply was
  /// read.
  void reply_ended(Attempt& a, const std::string& error);
  /// Parses the bytes of the reply of `a` held in `data` (the read buffer or the carry).
  void parse_reply(Link* c, Attempt& a, std::string_view data, bool from_carry);
  /// The reply of `a` ended complete: finishes it and keeps or closes the connection.
  void end_reply(Attempt& a);
  /// An attempt failed at the transport: `error` with `message`. A reused connection that failed
  /// before any byte of the reply is replaced by a fresh one once (the server closed an idle
  /// keep-alive connection), as libcurl does.
  void fail(Attempt& a, core::ErrorClass error, std::string message);

  // Per endpoint: its idle connections, and the fixed part of the request head (streamed, then
  // non-streamed).
  std::vector<std::vector<Link*>> idle_;
  std::vector<std::string> head_prefix_[2];
  AttemptSlots<Attempt> attempts_;
};

}  // namespace tokenbench::client
