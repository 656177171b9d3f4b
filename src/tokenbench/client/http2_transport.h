#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "tokenbench/client/http2_session.h"
#include "tokenbench/client/socket_transport.h"

namespace tokenbench::client {

/// The native HTTP/2 transport (--http2): h2c with prior knowledge for http://, ALPN h2 over TLS
/// for https://; each connection multiplexes up to EngineConfig::http2_streams requests as
/// streams of an Http2Session, and more connections open as needed. The session turns each
/// stamped read into its streams' header and body callbacks.
class Http2Transport final : public SocketTransport {
 public:
  Http2Transport(const TransportContext& context, std::vector<std::optional<HttpTarget>> targets);
  ~Http2Transport() override;

  void submit(Transfer& t) override;
  void close(Transfer& t) override;
  AttemptFacts facts(Transfer& t) override;
  void after_events() override;
  void drop_deferred() override { requeue_.clear(); }
  std::size_t idle_connections() const override;

 private:
  struct Attempt;
  struct Pipe;

  const Connection* connection_of(const Transfer& t) const override;
  std::unique_ptr<Connection> make_connection() const override;
  void on_connected(Connection* c) override;
  void on_ready(Connection* c, std::uint32_t events) override;
  void on_failed(Connection* c, core::ErrorClass error, const std::string& message) override;
  void forget(Connection* c) override;
  bool on_read(Connection* c, std::string_view bytes) override;
  bool needs_h2() const override { return true; }
  std::size_t connections_for(std::size_t per_endpoint) const override;
  std::size_t open_count(std::uint32_t endpoint) const override;
  Connection* open_ahead(std::uint32_t endpoint, std::string& error) override;
  void opened_ahead(Connection*) override {}
  bool busy(const Connection*) const override { return false; }

  Attempt& attempt(Transfer& t);
  /// The fixed headers of a request to endpoint `e` (pseudo-headers first), whose strings
  /// strings_ keeps.
  std::vector<Http2Session::Header> request_fields(std::uint32_t e, bool stream);
  /// A connection of the endpoint of `a` with room for a stream (a new one when none has), and
  /// the request of `a` submitted on it.
  void attach(Attempt& a);
  Pipe* open_pipe(std::uint32_t endpoint, std::string& error);
  /// Writes what the session of `c` has to send; false when that closed `c`.
  bool flush(Pipe* c);
  /// The session of `c` ended (GOAWAY with every stream ended, or a per-request connection whose
  /// request ended): `c` fails with what ended it.
  void session_ended(Pipe* c);
  /// A send on `c` failed with `send_error` (an errno).
  void send_failed(Pipe* c, int send_error);
  /// Ends the requests whose streams on `c` closed (refused ones go to requeue_).
  void settle(Pipe* c);
  /// Ends the request of `a`, whose stream `s` closed without a complete reply.
  void stream_failed(Pipe* c, Attempt& a, const Http2Stream& s);
  /// `c` failed or ended: it closes and its streams fail with `error` and `message`. Streams that
  /// got no byte on a connection that carried replies before go again on a fresh connection.
  void fail(Pipe* c, core::ErrorClass error, const std::string& message);

  // Per endpoint: its open connections (those with room for a stream first found), and its
  // request headers' fixed part (streamed, then non-streamed) with the strings they view; the
  // headers of the request being submitted; the streams a session refused, to send again after
  // this loop turn.
  std::vector<std::vector<Pipe*>> pool_;
  std::vector<std::vector<Http2Session::Header>> fields_[2];
  std::vector<std::unique_ptr<std::vector<std::pair<std::string, std::string>>>> strings_;
  std::vector<Http2Session::Header> request_;
  std::vector<Attempt*> requeue_;
  AttemptSlots<Attempt> attempts_;
};

}  // namespace tokenbench::client
