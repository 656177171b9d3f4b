// https through the engine: a self-signed server is refused by default, and accepted with its
// certificate as --cacert or with --insecure (client/tls_options.h).

#include <gtest/gtest.h>

#include "run_engine.h"
#include "tls_server.h"
#include "tokenbench/client/tls_options.h"

namespace tokenbench::client {
namespace {

const std::string kReply =
    "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n"
    "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"secure\"}}]}\n\n"
    "data: [DONE]\n\n";

// One request over the native transport (OpenSSL, kernel stamps) or libcurl.
core::RequestRecord run_once(const std::string& url, bool native, const TlsOptions& tls) {
  EngineConfig config;
  config.tls = tls;
  config.endpoints = {{url + "/v1/chat/completions", {}}};
  config.native_transport = native;
  config.timeout_s = 10;
  auto records = tokenbench::testing::run_engine(config, 1);
  EXPECT_EQ(records.size(), 1u);
  return records.empty() ? core::RequestRecord{} : records[0];
}

class Tls : public ::testing::TestWithParam<bool> {};  // native transport, or libcurl

TEST_P(Tls, SelfSignedServerIsRefusedByDefault) {
  tokenbench::testing::TlsServer server(kReply);
  const auto r = run_once(server.url(), GetParam(), TlsOptions{});
  EXPECT_EQ(r.error, core::ErrorClass::kTls) << r.error_message;
  EXPECT_NE(r.error_message.find("certificate"), std::string::npos) << r.error_message;
  EXPECT_TRUE(r.chunks.empty());
}

TEST_P(Tls, ItsCertificateAsCacertIsTrusted) {
  tokenbench::testing::TlsServer server(kReply);
  const auto r = run_once(server.url(), GetParam(), {server.cert_file(), false});
  ASSERT_TRUE(r.ok()) << r.error_message;
  EXPECT_EQ(r.chunks.size(), 1u);
  EXPECT_EQ(r.output_chars, 6);
  EXPECT_EQ(server.handshakes(), 1);
  // The native transport's TLS reads keep the kernel's receive stamps.
  EXPECT_EQ(r.stamps, GetParam() ? core::StampSource::kKernel : core::StampSource::kUser);
}

TEST_P(Tls, InsecureSkipsTheCheck) {
  tokenbench::testing::TlsServer server(kReply);
  const auto r = run_once(server.url(), GetParam(), {"", true});
  ASSERT_TRUE(r.ok()) << r.error_message;
  EXPECT_EQ(r.chunks.size(), 1u);
}

TEST_P(Tls, AnotherCertificateIsStillRefused) {
  tokenbench::testing::TlsServer server(kReply);
  tokenbench::testing::TlsServer other(kReply);
  const auto r = run_once(server.url(), GetParam(), {other.cert_file(), false});
  EXPECT_EQ(r.error, core::ErrorClass::kTls) << r.error_message;
}

INSTANTIATE_TEST_SUITE_P(Transports, Tls, ::testing::Values(true, false),
                         [](const auto& info) { return info.param ? "native" : "curl"; });

}  // namespace
}  // namespace tokenbench::client
