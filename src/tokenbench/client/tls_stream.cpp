#include "tokenbench/client/tls_stream.h"

#include <arpa/inet.h>
#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "tokenbench/client/rx_stamps.h"
#include "tokenbench/client/tls_options.h"

namespace tokenbench::client {
namespace {

// A socket BIO whose reads are recvmsg calls that keep the kernel's receive stamp.
int bio_read(BIO* bio, char* buf, std::size_t len, std::size_t* read) {
  auto* io = static_cast<TlsSession::SocketIo*>(BIO_get_data(bio));
  BIO_clear_retry_flags(bio);
  std::int64_t stamp = 0;
  const ssize_t n = recv_stamped(io->fd, buf, len, stamp);
  if (n > 0) {
    if (stamp != 0) io->realtime = stamp;
    *read = static_cast<std::size_t>(n);
    return 1;
  }
  if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) {
    BIO_set_retry_read(bio);
  }
  *read = 0;
  return n == 0 ? 0 : -1;
}

int bio_write(BIO* bio, const char* buf, std::size_t len, std::size_t* written) {
  auto* io = static_cast<TlsSession::SocketIo*>(BIO_get_data(bio));
  BIO_clear_retry_flags(bio);
  const ssize_t n = send(io->fd, buf, len, MSG_NOSIGNAL | MSG_DONTWAIT);
  if (n >= 0) {
    *written = static_cast<std::size_t>(n);
    return 1;
  }
  if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) BIO_set_retry_write(bio);
  *written = 0;
  return -1;
}

long bio_ctrl(BIO*, int cmd, long, void*) { return cmd == BIO_CTRL_FLUSH ? 1 : 0; }

BIO_METHOD* stamped_socket_method() {
  static BIO_METHOD* method = [] {
    BIO_METHOD* m =
        BIO_meth_new(BIO_get_new_index() | BIO_TYPE_SOURCE_SINK, "tokenbench stamped socket");
    BIO_meth_set_read_ex(m, bio_read);
    BIO_meth_set_write_ex(m, bio_write);
    BIO_meth_set_ctrl(m, bio_ctrl);
    return m;
  }();
  return method;
}

// OpenSSL's queued errors as one line, emptying the queue.
std::string openssl_errors() {
  std::string out;
  while (const unsigned long e = ERR_get_error()) {
    char buf[256];
    ERR_error_string_n(e, buf, sizeof buf);
    if (!out.empty()) out += "; ";
    out += buf;
  }
  return out;
}

}  // namespace

TlsContext::TlsContext(const TlsOptions& options, bool http2) {
  ctx_ = SSL_CTX_new(TLS_client_method());
  if (ctx_ == nullptr) throw std::runtime_error("cannot create a TLS context: " + openssl_errors());
  SSL_CTX_set_min_proto_version(ctx_, TLS1_2_VERSION);
  static const unsigned char kHttp1[] = {8, 'h', 't', 't', 'p', '/', '1', '.', '1'};
  static const unsigned char kHttp2[] = {2, 'h', '2'};
  if (http2) {
    SSL_CTX_set_alpn_protos(ctx_, kHttp2, sizeof kHttp2);
  } else {
    SSL_CTX_set_alpn_protos(ctx_, kHttp1, sizeof kHttp1);
  }
  if (options.insecure) {
    SSL_CTX_set_verify(ctx_, SSL_VERIFY_NONE, nullptr);
    return;
  }
  SSL_CTX_set_verify(ctx_, SSL_VERIFY_PEER, nullptr);
  const int ok = options.ca_file.empty()
                     ? SSL_CTX_set_default_verify_paths(ctx_)
                     : SSL_CTX_load_verify_locations(ctx_, options.ca_file.c_str(), nullptr);
  if (ok != 1) {
    const std::string why = openssl_errors();
    SSL_CTX_free(ctx_);
    throw std::runtime_error(options.ca_file.empty()
                                 ? "cannot load the system's CA certificates: " + why
                                 : "--cacert " + options.ca_file +
                                       " holds no usable PEM certificate: " + why);
  }
}

TlsContext::~TlsContext() { SSL_CTX_free(ctx_); }

std::string TlsSession::alpn() const {
  const unsigned char* p = nullptr;
  unsigned int n = 0;
  SSL_get0_alpn_selected(ssl_, &p, &n);
  return std::string(reinterpret_cast<const char*>(p), p == nullptr ? 0 : n);
}

TlsSession::TlsSession(const TlsContext& context, int fd, const std::string& host) {
  io_.fd = fd;
  ssl_ = SSL_new(context.get());
  BIO* bio = BIO_new(stamped_socket_method());
  BIO_set_data(bio, &io_);
  BIO_set_init(bio, 1);
  SSL_set_bio(ssl_, bio, bio);
  SSL_set_mode(ssl_, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
  in6_addr addr6{};
  in_addr addr4{};
  const bool ip = inet_pton(AF_INET, host.c_str(), &addr4) == 1 ||
                  inet_pton(AF_INET6, host.c_str(), &addr6) == 1;
  if (ip) {
    X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl_), host.c_str());
  } else {
    SSL_set_tlsext_host_name(ssl_, host.c_str());
    SSL_set1_host(ssl_, host.c_str());
  }
  SSL_set_connect_state(ssl_);
}

TlsSession::~TlsSession() { SSL_free(ssl_); }

TlsSession::Io TlsSession::outcome(int rc, const char* step) {
  const int code = SSL_get_error(ssl_, rc);
  switch (code) {
    case SSL_ERROR_WANT_READ:
      return Io::kWantRead;
    case SSL_ERROR_WANT_WRITE:
      return Io::kWantWrite;
    case SSL_ERROR_ZERO_RETURN:
      return Io::kClosed;
    case SSL_ERROR_SYSCALL:
      if (ERR_peek_error() == 0) {
        // The peer closed the socket without close_notify, or the socket failed.
        if (errno == 0 || rc == 0) return Io::kClosed;
        error_ = std::string(step) + ": " + std::strerror(errno);
        return Io::kError;
      }
      [[fallthrough]];
    default: {
      error_ = std::string(step) + ": " + openssl_errors();
      const long verify = SSL_get_verify_result(ssl_);
      if (verify != X509_V_OK) {
        error_ += std::string(" (certificate: ") + X509_verify_cert_error_string(verify) + ")";
      }
      return Io::kError;
    }
  }
}

TlsSession::Io TlsSession::handshake() {
  ERR_clear_error();
  errno = 0;
  const int rc = SSL_do_handshake(ssl_);
  return rc == 1 ? Io::kDone : outcome(rc, "TLS handshake failed");
}

TlsSession::Io TlsSession::read(char* buf, std::size_t len, std::size_t& n) {
  ERR_clear_error();
  errno = 0;
  n = 0;
  const int rc = SSL_read_ex(ssl_, buf, len, &n);
  return rc == 1 ? Io::kDone : outcome(rc, "TLS read failed");
}

TlsSession::Io TlsSession::write(const char* buf, std::size_t len, std::size_t& n) {
  ERR_clear_error();
  errno = 0;
  n = 0;
  const int rc = SSL_write_ex(ssl_, buf, len, &n);
  return rc == 1 ? Io::kDone : outcome(rc, "TLS write failed");
}

bool TlsSession::pending() const { return SSL_pending(ssl_) > 0; }

}  // namespace tokenbench::client
