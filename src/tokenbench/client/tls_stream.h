#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "tokenbench/client/tls_options.h"

typedef struct ssl_ctx_st SSL_CTX;
typedef struct ssl_st SSL;

namespace tokenbench::client {

/// The native transport's TLS client context, made from the engine's TlsOptions
/// (client/tls_options.h): servers verified against the system's store or --cacert, or not at
/// all with --insecure; TLS 1.2 at least; ALPN offers http/1.1, or h2 alone for --http2.
class TlsContext {
 public:
  /// Throws std::runtime_error with a one-line reason (an unreadable --cacert, say).
  explicit TlsContext(const TlsOptions& options, bool http2 = false);
  ~TlsContext();
  TlsContext(const TlsContext&) = delete;
  TlsContext& operator=(const TlsContext&) = delete;
  SSL_CTX* get() const { return ctx_; }

 private:
  SSL_CTX* ctx_ = nullptr;
};

/// TLS over one non-blocking socket, whose reads go through recv_stamped: every read reports
/// the kernel's receive time of the bytes that completed it, as plain connections do.
class TlsSession {
 public:
  /// `host` names the server for SNI and is checked against its certificate (an IP address
  /// against the certificate's IP entries).
  TlsSession(const TlsContext& context, int fd, const std::string& host);
  ~TlsSession();
  TlsSession(const TlsSession&) = delete;
  TlsSession& operator=(const TlsSession&) = delete;

  enum class Io {
    kDone,       ///< the step completed (bytes moved, or the handshake finished)
    kWantRead,   ///< wait until the socket is readable, then call again
    kWantWrite,  ///< wait until the socket is writable, then call again
    kClosed,     ///< the peer ended the connection
    kError,      ///< failed: error() says why
  };
  Io handshake();
  /// Reads decrypted bytes into `buf`; `n` is how many.
  Io read(char* buf, std::size_t len, std::size_t& n);
  /// Writes from `buf`; `n` is how many were taken (partial writes happen).
  Io write(const char* buf, std::size_t len, std::size_t& n);
  /// Decrypted bytes held inside the session, readable without a socket event.
  bool pending() const;
  /// The kernel's CLOCK_REALTIME receive stamp of the newest socket read (0: none).
  std::int64_t realtime() const { return io_.realtime; }
  /// Why the last kError happened: OpenSSL's reason, with the certificate check's verdict.
  const std::string& error() const { return error_; }
  /// The protocol the server chose in ALPN ("h2", "http/1.1"); "" when it chose none.
  std::string alpn() const;

  /// What the socket BIO keeps: the descriptor and the latest read's stamp.
  struct SocketIo {
    int fd = -1;
    std::int64_t realtime = 0;
  };

 private:
  Io outcome(int rc, const char* step);

  SSL* ssl_ = nullptr;
  SocketIo io_;
  std::string error_;
};

}  // namespace tokenbench::client
