// report.html's building blocks: the data blob's escaping, the downsampling, the page itself.

#include "tokenbench/report/html_report.h"

#include <gtest/gtest.h>

#include <regex>

namespace tokenbench::report {
namespace {

TEST(HtmlReport, EscapesWhatCouldEndTheScriptElement) {
  const nlohmann::json value = {{"m", "</script><script>alert(1)</script> & <!-- \u2028\u2029 é"}};
  const std::string escaped = escape_json_for_html(value.dump());
  EXPECT_EQ(escaped.find('<'), std::string::npos);
  EXPECT_EQ(escaped.find('>'), std::string::npos);
  EXPECT_EQ(escaped.find('&'), std::string::npos);
  EXPECT_EQ(escaped.find("\u2028"), std::string::npos);
  EXPECT_EQ(escaped.find("\u2029"), std::string::npos);
  EXPECT_NE(escaped.find("\\u003c/script\\u003e"), std::string::npos);
  EXPECT_NE(escaped.find("\\u0026"), std::string::npos);
  EXPECT_NE(escaped.find("\\u2028\\u2029"), std::string::npos);
  EXPECT_NE(escaped.find("é"), std::string::npos);   // other UTF-8 is left alone
  EXPECT_EQ(nlohmann::json::parse(escaped), value);  // still the same JSON
}

TEST(HtmlReport, EvenSampleKeepsEndsAndOrder) {
  EXPECT_TRUE(even_sample(0, 10).empty());
  EXPECT_EQ(even_sample(3, 10), (std::vector<std::size_t>{0, 1, 2}));
  EXPECT_EQ(even_sample(5, 1), (std::vector<std::size_t>{0}));
  const auto s = even_sample(100000, kMaxTimelineRequests);
  ASSERT_EQ(s.size(), kMaxTimelineRequests);
  EXPECT_EQ(s.front(), 0u);
  EXPECT_EQ(s.back(), 99999u);
  for (std::size_t i = 1; i < s.size(); ++i) ASSERT_LT(s[i - 1], s[i]);
}

TEST(HtmlReport, HistogramCountsEveryValue) {
  std::vector<double> v;
  for (int i = 1; i <= 1000; ++i) v.push_back(i);
  v.push_back(0);  // a log histogram puts it in the first bin
  for (bool log : {false, true}) {
    const Histogram h = make_histogram(v, 20, log);
    ASSERT_EQ(h.edges.size(), 21u);
    double sum = 0;
    for (double c : h.counts) sum += c;
    EXPECT_EQ(sum, 1001);
    EXPECT_DOUBLE_EQ(h.edges.back(), 1000);
    for (std::size_t i = 1; i < h.edges.size(); ++i) EXPECT_LT(h.edges[i - 1], h.edges[i]);
  }
  EXPECT_TRUE(make_histogram({}, 20, true).edges.empty());
  EXPECT_EQ(make_histogram({5, 5, 5}, 4, true).counts.size(), 4u);  // one value: still bins
}

TEST(HtmlReport, HistogramBinsAreThoseOfEachValueAlone) {
  // make_histogram finds each bin's first value by binary search over the sorted values; every
  // value must land where binning it alone puts it, at the edges' rounding included.
  std::vector<double> v;
  std::uint64_t x = 88172645463325252ull;
  for (int i = 0; i < 5000; ++i) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    v.push_back(static_cast<double>(x % 100000) / 997.0 - (i % 50 == 0 ? 3.0 : 0.0));
  }
  v.push_back(std::nan(""));  // not counted
  for (bool log : {false, true}) {
    const std::size_t bins = 37;
    const Histogram h = make_histogram(v, bins, log);
    double lo = 1e300, hi = -1e300, min_pos = 1e300;
    for (double d : v) {
      if (!std::isfinite(d)) continue;
      lo = std::min(lo, d);
      hi = std::max(hi, d);
      if (d > 0) min_pos = std::min(min_pos, d);
    }
    if (log) lo = min_pos;
    const double a = log ? std::log(lo) : lo;
    const double b = log ? std::log(hi) : hi;
    std::vector<double> expect(bins, 0);
    for (double d : v) {
      if (!std::isfinite(d)) continue;
      const double y = log ? (d > 0 ? std::log(d) : a) : d;
      auto bin = static_cast<std::ptrdiff_t>((y - a) / (b - a) * static_cast<double>(bins));
      bin = std::clamp<std::ptrdiff_t>(bin, 0, static_cast<std::ptrdiff_t>(bins) - 1);
      expect[static_cast<std::size_t>(bin)] += 1;
    }
    EXPECT_EQ(h.counts, expect) << (log ? "log" : "linear");
  }
}

TEST(HtmlReport, CdfIsDownsampledToItsBound) {
  std::vector<double> v;
  for (int i = 100000; i > 0; --i) v.push_back(i);
  const Cdf c = make_cdf(v, kMaxSeriesPoints);
  ASSERT_EQ(c.x.size(), kMaxSeriesPoints);
  EXPECT_EQ(c.x.front(), 1);
  EXPECT_EQ(c.x.back(), 100000);
  EXPECT_DOUBLE_EQ(c.y.back(), 1.0);
  for (std::size_t i = 1; i < c.x.size(); ++i) ASSERT_LE(c.x[i - 1], c.x[i]);
}

TEST(HtmlReport, PageEmbedsLibraryAndEscapedData) {
  nlohmann::json data = {{"console", "</script><script>window.__pwned=1</script>"},
                         {"config_yaml", "/*@REPORT_JS@*/"}};
  const std::string page = render_html_report(data);
  EXPECT_EQ(page.find("<script>window.__pwned"), std::string::npos);
  EXPECT_NE(page.find("\\u003cscript\\u003ewindow.__pwned=1"), std::string::npos);
  EXPECT_NE(page.find("uPlot"), std::string::npos);
  EXPECT_NE(page.find("id=\"selfcheck\""), std::string::npos);
  EXPECT_EQ(page.find("/*@"), page.find("/*@REPORT_JS@*/"));  // only the data's own text
  EXPECT_FALSE(std::regex_search(page, std::regex(R"((src|href)\s*=\s*["']?(https?:)?//)")));
}

TEST(HtmlReport, DataOfManyRequestsIsBounded) {
  std::vector<core::RequestRecord> records(100000);
  for (std::size_t i = 0; i < records.size(); ++i) {
    auto& r = records[i];
    r.id = i;
    r.scheduled = static_cast<core::Nanos>(i) * 36'000'000;  // one hour
    r.sent = r.scheduled + 1'000'000;
    r.first_token = r.sent + 50'000'000;
    r.last_token = r.first_token + 200'000'000;
    r.done = r.last_token + 1'000'000;
    r.output_tokens = 10;
    if (i % 1000 == 0) {
      r.error = core::ErrorClass::kHttp5xx;
      r.http_status = 503;
      r.error_message = "overloaded <b>";
    }
  }
  const auto data =
      html_report_data(records, nlohmann::json::object(), "", "", records::RunNotes{});
  EXPECT_EQ(data["timeline"]["index"].size(), kMaxTimelineRequests);
  EXPECT_EQ(data["timeline"]["total"], 100000);
  EXPECT_LE(data["series"]["t"].size(), kMaxSeriesPoints + 1);
  EXPECT_EQ(data["series"]["bin_s"], 2.0);  // 3600 s in 2 s bins
  EXPECT_EQ(data["distributions"]["TTFT"]["n"], 99900);
  EXPECT_LE(data["distributions"]["TTFT"]["cdf_x"].size(), kMaxSeriesPoints);
  ASSERT_EQ(data["errors"].size(), 1u);
  EXPECT_EQ(data["errors"][0]["count"], 100);
  EXPECT_EQ(data["errors"][0]["example"], "overloaded <b>");
  EXPECT_LT(render_html_report(data).size(), 8u << 20);
}

// A request of the series tests: sent and done at these seconds since the run's origin.
core::RequestRecord sent_done(double sent_s, double done_s) {
  core::RequestRecord r;
  r.scheduled = r.sent = static_cast<core::Nanos>(sent_s * 1e9);
  r.done = static_cast<core::Nanos>(done_s * 1e9);
  r.first_token = r.last_token = r.done;
  r.output_tokens = 1;
  return r;
}

TEST(HtmlReport, InFlightIsTheMostAtOnceInEachBin) {
  // One slot used back to back: three requests touch the first second, never two at once (the
  // one that ends at 1.0 s and the one sent then are not both in flight). Then three overlap in
  // the second second, and one spans the third and fourth; nothing is in flight in the fifth.
  const std::vector<core::RequestRecord> records = {
      sent_done(0.0, 0.3), sent_done(0.3, 0.6), sent_done(0.6, 1.0), sent_done(1.0, 1.5),
      sent_done(1.2, 1.6), sent_done(1.4, 1.7), sent_done(2.5, 3.9),
  };
  const auto data =
      html_report_data(records, nlohmann::json::object(), "", "", records::RunNotes{});
  const auto& series = data["series"];
  ASSERT_EQ(series["bin_s"], 1.0);
  EXPECT_EQ(series["in_flight"], nlohmann::json::parse("[1, 3, 1, 1, 0]"));
  // Bins where nothing starts or ends carry the level: a long request shows in each.
  const std::vector<core::RequestRecord> spanning = {sent_done(0.5, 3.5), sent_done(3.6, 4.0)};
  EXPECT_EQ(html_report_data(spanning, nlohmann::json::object(), "", "",
                             records::RunNotes{})["series"]["in_flight"],
            nlohmann::json::parse("[1, 1, 1, 1, 0]"));
}

// The same with the engine's own count at each send (RequestRecord::in_flight): no stamps kept.
TEST(HtmlReport, InFlightFromTheEnginesCountMatchesTheSweep) {
  const auto counted = [](double sent_s, double done_s, std::int64_t in_flight) {
    core::RequestRecord r = sent_done(sent_s, done_s);
    r.in_flight = in_flight;
    return r;
  };
  const std::vector<core::RequestRecord> records = {
      counted(0.0, 0.3, 1), counted(0.3, 0.6, 1), counted(0.6, 1.0, 1), counted(1.0, 1.5, 1),
      counted(1.2, 1.6, 2), counted(1.4, 1.7, 3), counted(2.5, 3.9, 1),
  };
  EXPECT_EQ(html_report_data(records, nlohmann::json::object(), "", "",
                             records::RunNotes{})["series"]["in_flight"],
            nlohmann::json::parse("[1, 3, 1, 1, 0]"));
  const std::vector<core::RequestRecord> spanning = {counted(0.5, 3.5, 1), counted(3.6, 4.0, 1)};
  EXPECT_EQ(html_report_data(spanning, nlohmann::json::object(), "", "",
                             records::RunNotes{})["series"]["in_flight"],
            nlohmann::json::parse("[1, 1, 1, 1, 0]"));
}

TEST(HtmlReport, SimTimeSaysSoAndPutsTelemetryOnTheModelsClock) {
  nlohmann::json summary = {
      {"tokenbench", {{"config", {{"sim_time", true}, {"sim_time_scale", 10.0}}}}}};
  records::RunNotes notes;
  telemetry::Scrape scrape;
  scrape.ok = true;
  scrape.t = 300'000'000;  // 0.3 s of real time: 3 s of model time
  notes.scrape_sources.push_back({"h", "http://h/metrics", "replica", {scrape}});
  // The records are already in model time (write_run_outputs passes metrics::in_model_time's).
  const std::vector<core::RequestRecord> records = {sent_done(1.0, 5.0)};
  auto data = html_report_data(records, summary, "", "", notes);
  EXPECT_EQ(data["time"], nlohmann::json::parse(R"({"model":true,"scale":10.0,"sim_scale":10.0})"));
  EXPECT_DOUBLE_EQ(data["telemetry"]["server"]["t"][0].get<double>(), 2.0);  // 3 s - first 1 s
  // A sped-up simulator without --sim-time: real time, and the page says what the scale was.
  summary["tokenbench"]["config"]["sim_time"] = false;
  data = html_report_data(records, summary, "", "", notes);
  EXPECT_EQ(data["time"], nlohmann::json::parse(R"({"model":false,"scale":1.0,"sim_scale":10.0})"));
  EXPECT_DOUBLE_EQ(data["telemetry"]["server"]["t"][0].get<double>(), -0.7);
}

}  // namespace
}  // namespace tokenbench::report
