#pragma once

// A one-connection-at-a-time https server for tests: a self-signed certificate for 127.0.0.1 and
// localhost made on the spot (EC P-256, OpenSSL), written to cert_file() for --cacert; each
// request is answered with the fixed reply, then the connection is closed. No ALPN: it speaks
// HTTP/1.1 only.

#include <arpa/inet.h>
#include <netinet/in.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <filesystem>
#include <string>
#include <thread>

#include "loopback.h"

namespace tokenbench::testing {

/// A self-signed certificate for 127.0.0.1 and localhost made on the spot (EC P-256), written to
/// file() for --cacert and removed with the object.
class SelfSignedCert {
 public:
  SelfSignedCert() {
    key_ = EVP_EC_gen("P-256");
    cert_ = X509_new();
    ASN1_INTEGER_set(X509_get_serialNumber(cert_), 1);
    X509_gmtime_adj(X509_getm_notBefore(cert_), -60);
    X509_gmtime_adj(X509_getm_notAfter(cert_), 3600);
    X509_set_pubkey(cert_, key_);
    X509_NAME* name = X509_get_subject_name(cert_);
    X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC,
                               reinterpret_cast<const unsigned char*>("localhost"), -1, -1, 0);
    X509_set_issuer_name(cert_, name);
    X509V3_CTX v3;
    X509V3_set_ctx_nodb(&v3);
    X509V3_set_ctx(&v3, cert_, cert_, nullptr, nullptr, 0);
    if (X509_EXTENSION* san =
            X509V3_EXT_conf_nid(nullptr, &v3, NID_subject_alt_name, "IP:127.0.0.1,DNS:localhost")) {
      X509_add_ext(cert_, san, -1);
      X509_EXTENSION_free(san);
    }
    X509_sign(cert_, key_, EVP_sha256());
    file_ = (std::filesystem::temp_directory_path() /
             ("tokenbench-test-cert-" + std::to_string(getpid()) + "-" +
              std::to_string(reinterpret_cast<std::uintptr_t>(this)) + ".pem"))
                .string();
    if (FILE* f = std::fopen(file_.c_str(), "w")) {
      PEM_write_X509(f, cert_);
      std::fclose(f);
    }
  }
  ~SelfSignedCert() {
    X509_free(cert_);
    EVP_PKEY_free(key_);
    std::filesystem::remove(file_);
  }
  SelfSignedCert(const SelfSignedCert&) = delete;
  SelfSignedCert& operator=(const SelfSignedCert&) = delete;

  /// A server context that presents the certificate.
  SSL_CTX* server_context() const {
    SSL_CTX* ctx = SSL_CTX_new(TLS_server_method());
    SSL_CTX_use_certificate(ctx, cert_);
    SSL_CTX_use_PrivateKey(ctx, key_);
    return ctx;
  }
  const std::string& file() const { return file_; }

 private:
  EVP_PKEY* key_ = nullptr;
  X509* cert_ = nullptr;
  std::string file_;
};

class TlsServer {
 public:
  explicit TlsServer(std::string reply) : reply_(std::move(reply)) {
    // A client that hangs up first (one refusing the protocol, say) must not kill the test.
    signal(SIGPIPE, SIG_IGN);
    ctx_ = cert_.server_context();

    fd_ = listen_on_loopback(port_);
    thread_ = std::thread([this] { serve(); });
  }
  ~TlsServer() {
    stop_ = true;
    shutdown(fd_, SHUT_RDWR);
    close(fd_);
    thread_.join();
    SSL_CTX_free(ctx_);
  }
  TlsServer(const TlsServer&) = delete;
  TlsServer& operator=(const TlsServer&) = delete;

  std::string url() const { return "https://127.0.0.1:" + std::to_string(port_); }
  const std::string& cert_file() const { return cert_.file(); }
  int handshakes() const { return handshakes_.load(); }

 private:
  void serve() {
    while (!stop_) {
      const int c = accept(fd_, nullptr, nullptr);
      if (c < 0) return;
      SSL* ssl = SSL_new(ctx_);
      SSL_set_fd(ssl, c);
      if (SSL_accept(ssl) == 1) {
        ++handshakes_;
        std::string request;
        char buf[4096];
        std::size_t need = std::string::npos;
        while (need == std::string::npos || request.size() < need) {
          const int n = SSL_read(ssl, buf, sizeof buf);
          if (n <= 0) break;
          request.append(buf, static_cast<std::size_t>(n));
          const std::size_t end = request.find("\r\n\r\n");
          if (need == std::string::npos && end != std::string::npos) {
            std::size_t body = 0;
            const std::size_t cl = request.find("Content-Length: ");
            if (cl != std::string::npos) body = std::stoul(request.substr(cl + 16));
            need = end + 4 + body;
          }
        }
        SSL_write(ssl, reply_.data(), static_cast<int>(reply_.size()));
        SSL_shutdown(ssl);
      }
      SSL_free(ssl);
      close(c);
    }
  }

  std::string reply_;
  SelfSignedCert cert_;
  SSL_CTX* ctx_ = nullptr;
  int fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  std::atomic<int> handshakes_{0};
  std::thread thread_;
};

}  // namespace tokenbench::testing
