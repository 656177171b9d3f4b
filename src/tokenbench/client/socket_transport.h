#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tokenbench/client/http1_reader.h"
#include "tokenbench/client/http_target.h"
#include "tokenbench/client/rx_stamps.h"
#include "tokenbench/client/tls_stream.h"
#include "tokenbench/client/transport.h"

namespace tokenbench::client {

/// One connection of a native transport: a non-blocking socket with kernel receive stamps, TLS
/// over it for https, kept alive across requests. What a protocol keeps per connection is in
/// its subclass. Owned by a SocketTransport, which reuses it after a close.
struct Connection {
  virtual ~Connection() = default;
  /// Back to the state of a fresh connection (the protocol's part; the transport resets its own).
  virtual void clear() {}
  /// Set up: the TCP handshake completed, and TLS's too for https.
  bool ready() const { return connected && (tls == nullptr || secured); }

  int fd = -1;
  std::uint32_t endpoint = 0;
  bool connected = false;           // the TCP handshake completed
  bool reused = false;              // it carried a complete reply before
  bool pre_opened = false;          // opened before the requests (HttpEngine::preopen)
  std::uint32_t watched = 0;        // the epoll events registered
  std::unique_ptr<TlsSession> tls;  // https: the session over fd
  bool secured = false;             // https: the handshake completed
};

/// What the native transports (HTTP/1.1, HTTP/2) share: their connections (non-blocking
/// connect, TLS over a stamped socket, opened ahead), on the worker's epoll, and reads stamped
/// with the kernel's receive time. A protocol subclass decides what a connection carries: it
/// hears when one is set up (on_connected), readiness once it is (on_ready), its failure
/// (on_failed) and its close (forget), and reads through read_stamped, whose every read carries
/// its stamp (read_at).
class SocketTransport : public Transport {
 public:
  /// `targets`: per endpoint, where the native transport sends it (nullopt: not this transport's).
  SocketTransport(const TransportContext& context, std::vector<std::optional<HttpTarget>> targets);
  ~SocketTransport() override;

  void on_events(std::uint64_t key, std::uint32_t events) final;
  Stage stage(const Transfer& t) const override;
  void preopen(std::size_t per_endpoint, core::Nanos deadline) final;

  /// Handshakes in progress at once while connections are opened ahead of a phase, so that a
  /// listen backlog does not overflow.
  static constexpr std::size_t kConnectWindow = 256;

 protected:
  /// The reply of one request as a protocol's parser reports it (status, fields, end of header,
  /// body), passed on to the worker with the stamp of the read being parsed.
  struct ReplySink : ResponseSink {
    SocketTransport* owner = nullptr;
    Transfer* transfer = nullptr;
    bool got_bytes = false;  // a byte of the reply arrived in this attempt

    /// The stamp of the read being parsed, noting that reply bytes arrived and whether the
    /// kernel stamped them.
    core::Nanos stamp();
    void on_status(int code, int version) override;
    void on_field(std::string_view name, std::string_view value) override;
    void on_header_end() override;
    bool on_body(std::string_view data) override;
  };

  /// The stamp of the read being parsed (the kernel's receive time when it gave one), and
  /// whether the kernel gave it: the reply callbacks stamp with it.
  core::Nanos read_at() const { return read_at_; }
  bool read_kernel() const { return read_kernel_; }

  /// A new connection to `endpoint`, registered with epoll (for the end of its connect); null
  /// with `error` set on failure.
  Connection* open_connection(std::uint32_t endpoint, std::string& error);
  /// Closes `c` (forget() first) and keeps it for reuse.
  void close_connection(Connection* c);
  /// Registers `events` for `c` (a syscall only when they change).
  void watch(Connection* c, std::uint32_t events);
  const HttpTarget& target(std::uint32_t endpoint) const { return *targets_[endpoint]; }
  const std::vector<std::optional<HttpTarget>>& targets() const { return targets_; }
  /// The connection that carries the attempt of `t` now (null: none).
  virtual const Connection* connection_of(const Transfer& t) const = 0;

  /// How a read_stamped call ended.
  enum class ReadEnd {
    kWouldBlock,  ///< no byte this time
    kDrained,     ///< bytes were read and passed on; the socket has no more for now
    kStopped,     ///< on_read returned false
    kClosed,      ///< the server ended the connection (error: "")
    kFailed,      ///< the connection failed (error: why)
  };
  /// Reads what `c` holds (plain: one read; TLS: until the session holds no more), each read
  /// stamped (read_at) before its bytes go to on_read. At the connection's end the stamp is the
  /// clock's, and `error` says why it failed.
  ReadEnd read_stamped(Connection* c, std::string& error);
  /// A read's bytes on `c`, stamped; false when nothing more is to be read from `c` now.
  virtual bool on_read(Connection* c, std::string_view bytes) = 0;
  /// The read buffer (shared by all connections), for reads outside read_stamped.
  char* read_buffer() { return read_buffer_.data(); }
  std::size_t read_buffer_size() const { return read_buffer_.size(); }

  /// A fresh connection object of the protocol's kind.
  virtual std::unique_ptr<Connection> make_connection() const = 0;
  /// `c` is set up (connected, and secured for https): it can carry requests.
  virtual void on_connected(Connection* c) = 0;
  /// epoll reported `events` on `c`, which is set up.
  virtual void on_ready(Connection* c, std::uint32_t events) = 0;
  /// `c` could not be set up (`error`, `message`).
  virtual void on_failed(Connection* c, core::ErrorClass error, const std::string& message) = 0;
  /// `c` is closing: the protocol lets go of what it carries.
  virtual void forget(Connection* c) = 0;
  /// HTTP/2 needs the server to choose h2 in ALPN.
  virtual bool needs_h2() const { return false; }

  // Opening ahead (preopen): how many connections `per_endpoint` requests need, how many are
  // open already, opening one, and one set up (its connect ended).
  virtual std::size_t connections_for(std::size_t per_endpoint) const { return per_endpoint; }
  virtual std::size_t open_count(std::uint32_t endpoint) const = 0;
  virtual Connection* open_ahead(std::uint32_t endpoint, std::string& error) = 0;
  virtual void opened_ahead(Connection* c) = 0;
  /// `c` carries a request (so it is not dropped at the preopen deadline).
  virtual bool busy(const Connection* c) const = 0;

 private:
  /// The TCP handshake of `c` finished (EPOLLOUT): 0, or the errno it failed with.
  int connect_result(const Connection* c, std::uint32_t events) const;
  /// https: moves the handshake of `c` on; on success (and ALPN h2 when needed), on_connected.
  void continue_handshake(Connection* c);
  /// Sets read_at_ from a read's kernel stamp `realtime` (0: none) and the clock's `now`.
  void stamp_read(std::int64_t realtime, core::Nanos now);
  void stamp_end(core::Nanos now);

  std::vector<std::optional<HttpTarget>> targets_;
  std::vector<std::unique_ptr<Connection>> connections_;
  std::vector<Connection*> free_connections_;
  std::vector<char> read_buffer_;
  std::unique_ptr<TlsContext> tls_context_;  // when some endpoint is https
  RealtimeToRun realtime_;
  core::Nanos read_at_ = 0;
  bool read_kernel_ = false;
  std::string field_line_;  // a header field as a line, for TransferHost::header_line
};

}  // namespace tokenbench::client
