// Sending an OTLP export: the endpoint rule, the headers, and a collector that is not there.

#include "tokenbench/client/otlp_post.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include "loopback.h"

namespace tokenbench::client {
namespace {

TEST(OtlpPost, AnEndpointWithoutAPathGetsTheMetricsPath) {
  EXPECT_EQ(otlp_metrics_url("http://otel:4318"), "http://otel:4318/v1/metrics");
  EXPECT_EQ(otlp_metrics_url("http://otel:4318/"), "http://otel:4318/v1/metrics");
  EXPECT_EQ(otlp_metrics_url("https://otel/?tenant=a"), "https://otel/v1/metrics?tenant=a");
  EXPECT_EQ(otlp_metrics_url("http://otel:4318/v1/metrics"), "http://otel:4318/v1/metrics");
  EXPECT_EQ(otlp_metrics_url("https://gw.example/otlp/v1/metrics"),
            "https://gw.example/otlp/v1/metrics");
  EXPECT_EQ(otlp_metrics_url("https://gw.example/custom"), "https://gw.example/custom");
}

TEST(OtlpPost, HeadersAreNameValueItems) {
  EXPECT_EQ(otlp_header_lines({"Authorization=Bearer a=b", "x-tenant=t1", "bad"}),
            (std::vector<std::string>{"Authorization: Bearer a=b", "x-tenant: t1"}));
}

TEST(OtlpPost, ARefusedConnectionIsOneLineNamingTheUrlNeverAHeader) {
  unsigned short port = 0;
  const int fd = testing::listen_on_loopback(port);
  close(fd);  // nothing listens there now
  const std::string endpoint = "http://user:pw@127.0.0.1:" + std::to_string(port);
  const std::string why = post_otlp_metrics(endpoint, {"Authorization=Bearer s3cret"}, "{}", {}, 5);
  EXPECT_NE(why.find("the OTLP export to http://127.0.0.1:" + std::to_string(port) +
                     "/v1/metrics failed: "),
            std::string::npos)
      << why;
  EXPECT_EQ(why.find("s3cret"), std::string::npos);
  EXPECT_EQ(why.find("pw"), std::string::npos);
  EXPECT_EQ(why.find('\n'), std::string::npos);
}

}  // namespace
}  // namespace tokenbench::client
