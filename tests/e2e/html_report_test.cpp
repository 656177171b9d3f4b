// End to end: every results directory gets a self-contained report.html, `report DIR` rebuilds
// it, and it renders in headless Chromium (Debian's `chromium`, installed by `make deps`) with
// every chart drawn, no script error, and nothing a server sent ever run as script.

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <regex>

#include "../client/fake_server.h"
#include "process.h"

namespace tokenbench::e2e {
namespace {

namespace fs = std::filesystem;

const char* const kPayloads =
    "<script>window.__pwned=1</script><img src=x onerror=\\\"window.__pwned=2\\\">";

std::string chromium_path() {
  for (const char* p : {"/usr/bin/chromium", "/usr/bin/chromium-browser"}) {
    if (fs::exists(p)) return p;
  }
  return "";
}

// The page's own self-check element, as the browser left it after running the scripts.
struct Rendered {
  std::string done, charts, drawn, errors, pwned, dom;
};

std::string attribute(const std::string& tag, const std::string& name) {
  std::smatch m;
  if (std::regex_search(tag, m, std::regex(name + "=\"([^\"]*)\""))) return m[1];
  return "<absent>";
}

Rendered render(const std::string& html, const std::string& screenshot) {
  const std::string chromium = chromium_path();
  Rendered out;
  if (chromium.empty()) {
    ADD_FAILURE() << "chromium is not installed: run `make deps` (scripts/install-deps.sh)";
    return out;
  }
  const std::string profile = make_temp_dir("chromium-profile");
  const std::vector<std::string> common = {chromium,
                                           "--headless=new",
                                           "--disable-gpu",
                                           "--no-sandbox",
                                           "--no-first-run",
                                           "--user-data-dir=" + profile,
                                           "--virtual-time-budget=5000",
                                           "--hide-scrollbars"};
  const std::string url = "file://" + fs::absolute(html).string();
  const auto dom = run_process(with(common, {"--dump-dom", url}), std::chrono::seconds(90));
  EXPECT_EQ(dom.exit_code, 0) << dom.err;
  out.dom = dom.out;
  std::smatch m;
  if (std::regex_search(dom.out, m, std::regex("<div id=\"selfcheck\"[^>]*>"))) {
    const std::string tag = m[0];
    out.done = attribute(tag, "data-done");
    out.charts = attribute(tag, "data-charts");
    out.drawn = attribute(tag, "data-charts-drawn");
    out.errors = attribute(tag, "data-errors");
    out.pwned = attribute(tag, "data-pwned");
  }
  if (!screenshot.empty()) {
    const auto shot =
        run_process(with(common, {"--screenshot=" + screenshot, "--window-size=1400,3000", url}),
                    std::chrono::seconds(90));
    EXPECT_EQ(shot.exit_code, 0) << shot.err;
    EXPECT_TRUE(fs::exists(screenshot)) << shot.err;
  }
  return out;
}

// Screenshots go beside the binary, in the build folder.
std::string build_path(const std::string& name) {
  return (fs::path(TOKENBENCH_BINARY).parent_path() / name).string();
}

TEST(EndToEndHtmlReport, RunWritesSelfContainedReportAndReportRebuildsIt) {
  SimProcess sim({"--time-scale", "10"});
  const std::string dir = make_temp_dir("html-report");
  const auto r =
      run_process(run_args(sim.url(), dir,
                           {"--num-prompts", "80", "--max-concurrency", "8", "--input-len", "64",
                            "--output-len", "24", "--metrics-interval", "0.2"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string html = slurp(dir + "/report.html");
  ASSERT_FALSE(html.empty());
  EXPECT_NE(html.find("id=\"tokenbench-data\""), std::string::npos);
  EXPECT_NE(html.find("uPlot"), std::string::npos);  // the library is in the file
  EXPECT_FALSE(std::regex_search(html, std::regex(R"((src|href)\s*=\s*["']?(https?:)?//)")));

  fs::remove(dir + "/report.html");
  const auto rep = run_process({TOKENBENCH_BINARY, "report", dir});
  ASSERT_EQ(rep.exit_code, 0) << rep.err;
  EXPECT_EQ(slurp(dir + "/report.html"), html);  // the same page, from the stored files

  const Rendered page = render(dir + "/report.html", build_path("report-screenshot.png"));
  EXPECT_EQ(page.done, "1") << page.dom.substr(0, 2000);
  EXPECT_EQ(page.errors, "");
  EXPECT_GE(std::atoi(page.charts.c_str()), 12);  // 8 distributions, timeline, 4 over time, ...
  EXPECT_EQ(page.drawn, page.charts);
  EXPECT_EQ(page.pwned, "");
}

TEST(EndToEndHtmlReport, ServerTextIsNeverRunAsScript) {
  const std::string body =
      std::string("{\"error\":{\"message\":\"") + kPayloads + "\",\"type\":\"server_error\"}}";
  testing::FakeServer server(
      {{"HTTP/1.1 500 Internal Server Error\r\n"
        "Content-Type: application/json\r\nContent-Length: " +
        std::to_string(body.size()) + "\r\nConnection: close\r\n\r\n" + body}});
  const std::string dir = make_temp_dir("html-report-xss");
  const auto r =
      run_process(run_args(server.url(), dir,
                           {"--num-prompts", "3", "--output-len", "4", "--no-preflight", "--model",
                            "m", "--server-metrics", "off", "--gpu-metrics", "off"}));
  const std::string html = slurp(dir + "/report.html");
  ASSERT_FALSE(html.empty()) << r.err;
  EXPECT_EQ(html.find("<script>window.__pwned"), std::string::npos);
  EXPECT_EQ(html.find("<img src=x"), std::string::npos);
  EXPECT_NE(html.find("\\u003cscript\\u003ewindow.__pwned=1"), std::string::npos)
      << "the error example should carry the server's text, escaped";

  const Rendered page = render(dir + "/report.html", build_path("report-xss-screenshot.png"));
  EXPECT_EQ(page.done, "1") << page.dom.substr(0, 2000);
  EXPECT_EQ(page.pwned, "");
  EXPECT_EQ(page.errors, "");
  EXPECT_EQ(page.drawn, page.charts);
  // The text is on the page, as text.
  EXPECT_NE(page.dom.find("&lt;script&gt;window.__pwned=1&lt;/script&gt;"), std::string::npos);
}

// The page of each kind of experiment root renders, every chart drawn; `report ROOT` rebuilds it.
TEST(EndToEndHtmlReport, SweepSearchAndComparisonRootsHaveTheirOwnPage) {
  SimProcess sim({"--time-scale", "10", "--seed", "1"});
  const std::vector<std::string> small = {"--num-prompts", "24", "--input-len", "64",
                                          "--output-len",  "16", "--seed",      "3"};

  const std::string sweep = make_temp_dir("html-sweep");
  auto r = run_process(run_args(
      sim.url(), sweep, with(small, {"--max-concurrency", "1,4,8", "--slo", "p95_ttft_ms<=1000"})));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string sweep_html = slurp(sweep + "/report.html");
  ASSERT_FALSE(sweep_html.empty());
  EXPECT_NE(sweep_html.find("\"kind\":\"sweep\""), std::string::npos);
  EXPECT_NE(sweep_html.find("\"href\":\"c4/report.html\""), std::string::npos);
  fs::remove(sweep + "/report.html");
  const auto rep = run_process({TOKENBENCH_BINARY, "report", sweep});
  ASSERT_EQ(rep.exit_code, 0) << rep.err;
  EXPECT_EQ(slurp(sweep + "/report.html"), sweep_html);
  Rendered page = render(sweep + "/report.html", build_path("report-sweep-screenshot.png"));
  EXPECT_EQ(page.done, "1") << page.dom.substr(0, 2000);
  EXPECT_EQ(page.errors, "");
  // 2 curves + throughput by level, 4 percentiles against load, 4 overlays.
  EXPECT_EQ(page.charts, "11");
  EXPECT_EQ(page.drawn, page.charts);
  EXPECT_NE(page.dom.find("Best under the SLOs (p95_ttft_ms&lt;=1000)"), std::string::npos);

  const std::string search = make_temp_dir("html-search");
  r = run_process(
      with({TOKENBENCH_BINARY, "search", "--base-url", sim.url(), "--output-dir", search, "--quiet",
            "--slo", "p95_ttft_ms<=1000", "--vary", "max-concurrency", "--min", "1", "--max", "2"},
           small),
      std::chrono::seconds(120));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  page = render(search + "/report.html", "");
  EXPECT_EQ(page.done, "1") << page.dom.substr(0, 2000);
  EXPECT_EQ(page.errors, "");
  EXPECT_EQ(page.charts, "2");  // throughput and the SLO's figure against the value varied
  EXPECT_EQ(page.drawn, page.charts);

  const std::string compare = make_temp_dir("html-compare");
  r = run_process(
      with({TOKENBENCH_BINARY, "run", "--output-dir", compare, "--quiet", "--target",
            "model=sim-model,url=" + sim.url() + ",name=first", "--target",
            "model=sim-model,url=" + sim.url() + ",name=second", "--max-concurrency", "4"},
           small));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  page = render(compare + "/report.html", build_path("report-compare-screenshot.png"));
  EXPECT_EQ(page.done, "1") << page.dom.substr(0, 2000);
  EXPECT_EQ(page.errors, "");
  EXPECT_EQ(page.charts, "4");  // TTFT, TPOT, ITL and E2EL overlaid
  EXPECT_EQ(page.drawn, page.charts);
  EXPECT_NE(page.dom.find("href=\"second/report.html\""), std::string::npos);
}

}  // namespace
}  // namespace tokenbench::e2e
