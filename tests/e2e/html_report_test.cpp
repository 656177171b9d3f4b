// End to end: every results directory gets a self-contained report.html, `report DIR` rebuilds
// it, and it renders in headless Chromium (Debian's `chromium`, installed by `make deps`) with
// every chart drawn, no script error, and nothing a server sent ever run as script.

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <regex>
#include <sstream>

#include "../client/fake_server.h"
#include "process.h"
#include "tokenbench/report/console.h"

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

// The page's own self-check element, as the browser left it after running the scripts (in a
// window of kWindowWidth x kWindowHeight px).
struct Rendered {
  std::string done, charts, drawn, errors, pwned, dom;
  std::string scroll_width, window_width, too_wide, cards_bottom;
};

constexpr int kWindowWidth = 1400;
constexpr int kWindowHeight = 1000;

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
  const std::string window = fmt::format("--window-size={},{}", kWindowWidth, kWindowHeight);
  const auto dom = run_process(with(common, {window, "--dump-dom", url}), std::chrono::seconds(90));
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
    out.scroll_width = attribute(tag, "data-scroll-width");
    out.window_width = attribute(tag, "data-window-width");
    out.too_wide = attribute(tag, "data-too-wide");
    out.cards_bottom = attribute(tag, "data-cards-bottom");
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

// The data blob a report.html embeds (report/html_report.cpp), parsed.
nlohmann::json page_data(const std::string& html) {
  const std::string open = "<script type=\"application/json\" id=\"tokenbench-data\">";
  const auto from = html.find(open);
  if (from == std::string::npos) return nullptr;
  const auto to = html.find("</script>", from);
  return nlohmann::json::parse(html.substr(from + open.size(), to - from - open.size()));
}

// The text of the element with this id in a dumped DOM.
std::string text_of(const std::string& dom, const std::string& id) {
  std::smatch m;
  if (std::regex_search(dom, m, std::regex("id=\"" + id + "\"[^>]*>([^<]*)<"))) return m[1];
  return "<absent>";
}

// The cells of a row of report.txt's grid tables, trimmed: "| 50% | 4.67 |" -> {"50%", "4.67"}.
std::vector<std::string> grid_cells(const std::string& line) {
  std::vector<std::string> cells;
  std::size_t at = 1;
  for (std::size_t bar; (bar = line.find('|', at)) != std::string::npos; at = bar + 1) {
    std::string cell = line.substr(at, bar - at);
    cell.erase(0, cell.find_first_not_of(' '));
    cell.erase(cell.find_last_not_of(' ') + 1);
    cells.push_back(cell);
  }
  return cells;
}

// The cell of report.txt in column `column` (0: the row's label) of the row labelled `label`.
std::string console_cell(const std::string& report, const std::string& label, std::size_t column) {
  std::istringstream in(report);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("| ", 0) != 0) continue;
    const auto cells = grid_cells(line);
    if (cells.size() > column && cells[0] == label) return cells[column];
  }
  return "<absent>";
}

// A figure of summary.json as the console prints its kind (report/console.cpp): a latency in ms,
// a rate with four decimals, a token count whole or with two decimals.
std::string console_text(const std::string& figure, const nlohmann::json& v) {
  if (v.is_null()) return "-";
  const double x = v.get<double>();
  if (figure.ends_with("_ms")) return report::significant_cell(x);
  if (figure.ends_with("_tps")) return fmt::format("{:.4f}", x);
  return x == std::floor(x) ? fmt::format("{:.0f}", x) : fmt::format("{:.2f}", x);
}

// The cells of the page's table rows labelled `label`, by their column's header: a table too
// wide for the window is split over several, each with the row.
std::map<std::string, std::string> dom_row(const std::string& dom, const std::string& label) {
  std::map<std::string, std::string> out;
  const std::regex head_re("<th>([^<]*)</th>");
  const std::regex row_re("<tr><td>" + label + "</td>(.*?)</tr>");
  const std::regex cell_re("<td class=\"num\">([^<]*)</td>");
  // Tables found by hand: std::regex recurses once per character a match spans.
  for (std::size_t at = dom.find("<table>"); at != std::string::npos;
       at = dom.find("<table>", at + 1)) {
    const std::string table = dom.substr(at, dom.find("</table>", at) - at);
    std::smatch row;
    if (!std::regex_search(table, row, row_re)) continue;
    std::vector<std::string> heads;
    for (auto h = std::sregex_iterator(table.begin(), table.end(), head_re);
         h != std::sregex_iterator(); ++h) {
      heads.push_back((*h)[1]);
    }
    const std::string cells = row[1];
    std::size_t i = 1;  // heads[0] is the label's column
    for (auto c = std::sregex_iterator(cells.begin(), cells.end(), cell_re);
         c != std::sregex_iterator() && i < heads.size(); ++c, ++i) {
      out[heads[i]] = (*c)[1];
    }
  }
  return out;
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

TEST(EndToEndHtmlReport, AJobRunDrawsAGanttChartOfItsSampledJobs) {
  SimProcess sim({"--preset", "zero"});
  const std::string dir = make_temp_dir("html-jobs");
  const auto r = run_process(
      run_args(sim.url(), dir,
               {"--dataset", "jobs", "--jobs", "fanout:3,tools:1,tool_ms:20", "--num-prompts", "30",
                "--max-concurrency", "4", "--output-len", "8", "--gpu-metrics", "off"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string html = slurp(dir + "/report.html");
  const nlohmann::json jobs = page_data(html)["jobs"];
  ASSERT_EQ(jobs.size(), 12U);  // an even sample of the 30 jobs
  for (const auto& job : jobs) {
    ASSERT_EQ(job["calls"].size(), 8U) << job.dump();
    EXPECT_EQ(job["calls"][0]["call"], "plan");
    EXPECT_EQ(job["calls"][0]["sent"], 0.0);
    EXPECT_EQ(job["calls"][7]["call"], "final");
    // Every call ends after its send.
    for (const auto& c : job["calls"]) EXPECT_LE(c["sent"].get<double>(), c["done"].get<double>());
  }
  const Rendered page = render(dir + "/report.html", build_path("report-jobs-screenshot.png"));
  EXPECT_EQ(page.done, "1") << page.dom.substr(0, 2000);
  EXPECT_EQ(page.errors, "");
  EXPECT_EQ(page.too_wide, "");
  // Twelve charts, two bars a call (until the first token, then to the end).
  std::ptrdiff_t charts = 0, bars = 0;
  for (std::size_t at = 0; (at = page.dom.find("<svg class=\"gantt\"", at)) != std::string::npos;
       ++at) {
    ++charts;
  }
  for (std::size_t at = 0; (at = page.dom.find("<rect", at)) != std::string::npos; ++at) ++bars;
  EXPECT_EQ(charts, 12);
  EXPECT_GE(bars, 12 * 8 * 2);
  // The job figures of summary.json, as cards and tables by depth and by call id.
  const nlohmann::json figures = page_data(html)["job_figures"];
  EXPECT_EQ(figures["completed"], 30);
  const nlohmann::json summary = read_json(dir + "/summary.json");
  const double p50 = summary["tokenbench"]["distributions"]["job_ms"]["median"].get<double>();
  const auto at = page.dom.find("id=\"card-job-ms-p50\">");
  ASSERT_NE(at, std::string::npos) << page.dom.substr(0, 2000);
  const std::string shown = page.dom.substr(at + 21, page.dom.find('<', at) - at - 21);
  EXPECT_NEAR(std::stod(shown), p50, p50 * 0.01) << shown;
  EXPECT_NE(page.dom.find("id=\"card-jobs-completed-completed\">30 of 30<"), std::string::npos);
  EXPECT_NE(page.dom.find("<h3>By call depth</h3>"), std::string::npos);
  EXPECT_NE(page.dom.find("<h3>By call id</h3>"), std::string::npos);
  EXPECT_NE(page.dom.find("<td>a1.1.t1</td>"), std::string::npos);
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

// The page opens with the headline as cards, each as report.txt prints it; every table is
// formatted as the console formats its figures, and nothing scrolls sideways in a 1400 px window.
TEST(EndToEndHtmlReport, HeadlineCardsOpenThePageAndTablesMatchTheConsole) {
  SimProcess sim({"--time-scale", "10"});
  const std::string dir = make_temp_dir("html-headline");
  // Open loop, with a percentile of its own: the widest percentile table (two more rows, from
  // the intended arrival, and a column more).
  const auto r = run_process(
      run_args(sim.url(), dir,
               {"--num-prompts", "60", "--request-rate", "400", "--max-concurrency", "8",
                "--input-len", "64", "--output-len", "24", "--percentiles", "50,90,95,99,99.9"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const Rendered page = render(dir + "/report.html", build_path("report-headline-screenshot.png"));
  ASSERT_EQ(page.done, "1") << page.dom.substr(0, 2000);
  EXPECT_EQ(page.errors, "");
  // Above the fold, not folded away.
  EXPECT_GT(std::atoi(page.cards_bottom.c_str()), 0) << page.cards_bottom;
  EXPECT_LE(std::atoi(page.cards_bottom.c_str()), kWindowHeight);
  const std::string console = slurp(dir + "/report.txt");
  EXPECT_EQ(text_of(page.dom, "card-requests-ok"), console_cell(console, "Succeed requests", 1));
  EXPECT_EQ(text_of(page.dom, "card-requests-failed"), console_cell(console, "Failed requests", 1));
  EXPECT_EQ(text_of(page.dom, "card-request-throughput-value"),
            console_cell(console, "Request throughput (req/s)", 1));
  EXPECT_EQ(text_of(page.dom, "card-output-throughput-value"),
            console_cell(console, "Output token throughput (tok/s)", 1));
  // report.txt's percentile columns: TTFT 1, ITL 2, TPOT 3, Latency (E2EL) 4.
  for (const auto& [id, column] :
       {std::pair<std::string, std::size_t>{"ttft", 1}, {"tpot", 3}, {"e2el", 4}}) {
    EXPECT_EQ(text_of(page.dom, "card-" + id + "-p50"), console_cell(console, "50%", column)) << id;
    EXPECT_EQ(text_of(page.dom, "card-" + id + "-p99"), console_cell(console, "99%", column)) << id;
  }
  const nlohmann::json summary = read_json(dir + "/summary.json");
  const auto findings = summary["tokenbench"]["checks"]["findings"].size();
  EXPECT_EQ(text_of(page.dom, "card-checks-verdict"),
            findings == 0 ? std::string("no findings")
                          : fmt::format("{} finding{}", findings, findings == 1 ? "" : "s"));
  // The verdict's headline card (issue 32): who held the run back, as summary.json says.
  const nlohmann::json& verdict = summary["tokenbench"]["verdict"];
  EXPECT_EQ(text_of(page.dom, "card-bound-value"),
            verdict["bound"].get<std::string>() +
                (verdict["kind"].is_null() ? "" : " (" + verdict["kind"].get<std::string>() + ")"));
  // Every row of the percentile table, cell by cell, as the console prints that figure.
  const nlohmann::json& dists = summary["tokenbench"]["distributions"];
  int rows = 0;
  for (const auto& [name, d] : dists.items()) {
    if (d["count"] == 0) continue;
    std::map<std::string, std::string> expect{{"count", d["count"].dump()}};
    for (const char* k : {"mean", "min", "max"}) expect[k] = console_text(name, d[k]);
    for (const auto& [p, v] : d["percentiles"].items()) expect[p] = console_text(name, v);
    EXPECT_EQ(dom_row(page.dom, name), expect) << name;
    ++rows;
  }
  EXPECT_GE(rows, 10);
  // Nothing scrolls sideways at 1400 px, every <details> opened.
  EXPECT_EQ(page.window_width, std::to_string(kWindowWidth));
  EXPECT_GT(std::atoi(page.scroll_width.c_str()), 0);
  EXPECT_LE(std::atoi(page.scroll_width.c_str()), kWindowWidth);
  EXPECT_EQ(page.too_wide, "");
}

// "Requests in flight" is the most requests at once in each bin: never above --max-concurrency.
TEST(EndToEndHtmlReport, RequestsInFlightNeverExceedTheConcurrencyLimit) {
  SimProcess sim({"--time-scale", "10"});
  const std::string dir = make_temp_dir("html-in-flight");
  const auto r = run_process(run_args(sim.url(), dir,
                                      {"--num-prompts", "160", "--max-concurrency", "4",
                                       "--input-len", "32", "--output-len", "8"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json data = page_data(slurp(dir + "/report.html"));
  const nlohmann::json& flight = data["series"]["in_flight"];
  ASSERT_FALSE(flight.empty());
  double peak = 0;
  for (const auto& v : flight) peak = std::max(peak, v.get<double>());
  EXPECT_LE(peak, 4);
  EXPECT_EQ(peak, read_json(dir + "/summary.json")["tokenbench"]["max_concurrency_observed"]);
}

// --sim-time: the charts are in model time like the tables, and say so; the client's own queue
// time is never scaled.
TEST(EndToEndHtmlReport, SimTimeChartsAgreeWithTheTablesAndTheClientsOwnCostsStayReal) {
  SimProcess sim({"--ttft-ms", "200", "--itl-ms", "20", "--time-scale", "10"});
  const std::string dir = make_temp_dir("html-sim-time");
  const auto r = run_process(run_args(
      sim.url(), dir,
      {"--num-prompts", "24", "--max-concurrency", "4", "--output-len", "8", "--sim-time"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json summary = read_json(dir + "/summary.json");
  const nlohmann::json& dists = summary["tokenbench"]["distributions"];
  const nlohmann::json data = page_data(slurp(dir + "/report.html"));
  const nlohmann::json time = data.value("time", nlohmann::json::object());
  EXPECT_EQ(time.value("model", false), true) << "the page does not say it is in model time";
  EXPECT_EQ(time.value("scale", 1.0), 10.0);
  // The charts draw the tables' values (20 ms of sped-up TTFT is 200 ms of model time), over the
  // run's span of model time.
  const nlohmann::json& ttft = data["distributions"]["TTFT"];
  EXPECT_EQ(ttft["cdf_x"].front(), dists["ttft_ms"]["min"]);
  EXPECT_EQ(ttft["cdf_x"].back(), dists["ttft_ms"]["max"]);
  EXPECT_GE(ttft["cdf_x"].front().get<double>(), 200.0);
  double last_done = 0;
  for (const auto& t : data["timeline"]["done"]) last_done = std::max(last_done, t.get<double>());
  EXPECT_NEAR(last_done, summary["duration"].get<double>(), 1e-3);
  // The client's queue time is as requests.jsonl measured it, in real time, in the table and in
  // the Checks' send lag.
  double queue_max = 0;
  for (const auto& rec : read_records(dir + "/requests.jsonl")) {
    queue_max = std::max(queue_max, static_cast<double>(rec["sent_ns"].get<std::int64_t>() -
                                                        rec["scheduled_ns"].get<std::int64_t>()) /
                                        1e6);
  }
  EXPECT_GT(queue_max, 0);
  EXPECT_NEAR(dists["queue_time_ms"]["max"].get<double>(), queue_max, 1e-9);
  EXPECT_EQ(summary["tokenbench"]["checks"]["offered_load"]["send_lag_p99_ms"],
            dists["queue_time_ms"]["percentiles"]["p99"]);
  // Every chart and card of model time says so.
  const Rendered page = render(dir + "/report.html", "");
  EXPECT_EQ(page.errors, "");
  for (const std::string text :
       {"Model time (--sim-time): serve-sim ran 10x faster", "TTFT CDF (ms, model time, log x)",
        "E2EL histogram (24 values, ms, model time, log x)", "Output tokens/s (model time)",
        "per request (s since the first stamp, model time)",
        "<div class=\"cardnote\">model time</div>", "queue_time_ms (real time)"}) {
    EXPECT_NE(page.dom.find(text), std::string::npos) << text;
  }
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
  EXPECT_NE(sweep_html.find("\"href\":\"./c4/report.html\""), std::string::npos);
  fs::remove(sweep + "/report.html");
  const auto rep = run_process({TOKENBENCH_BINARY, "report", sweep});
  ASSERT_EQ(rep.exit_code, 0) << rep.err;
  EXPECT_EQ(slurp(sweep + "/report.html"), sweep_html);
  Rendered page = render(sweep + "/report.html", build_path("report-sweep-screenshot.png"));
  EXPECT_EQ(page.done, "1") << page.dom.substr(0, 2000);
  EXPECT_EQ(page.errors, "");
  // 2 curves, the Pareto front, throughput by level, 4 percentiles against load, 4 overlays.
  EXPECT_EQ(page.charts, "12");
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
  EXPECT_NE(page.dom.find("href=\"./second/report.html\""), std::string::npos);
}

// A server-configuration sweep's root: its configurations, their curves overlaid, and the
// Pareto front across them, drawn without an error; its levels link two directories down.
TEST(EndToEndHtmlReport, ServerConfigurationSweepHasItsOwnPage) {
  const std::string dir = make_temp_dir("html-serve-sweep");
  const auto r =
      run_process({TOKENBENCH_BINARY, "run", "--serve-cmd",
                   std::string(TOKENBENCH_BINARY) +
                       " serve-sim --port {port} --time-scale 10 --seed 1 --max-num-seqs {seqs}",
                   "--serve-param", "seqs=2,8,0", "--max-concurrency", "2,8", "--num-prompts", "16",
                   "--input-len", "64", "--output-len", "16", "--output-dir", dir, "--quiet"},
                  std::chrono::seconds(90));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const Rendered page =
      render(dir + "/report.html", build_path("report-serve-sweep-screenshot.png"));
  EXPECT_EQ(page.done, "1") << page.dom.substr(0, 2000);
  EXPECT_EQ(page.errors, "");
  // TTFT and TPOT against throughput, output against concurrency, the Pareto front.
  EXPECT_EQ(page.charts, "4");
  EXPECT_EQ(page.drawn, page.charts);
  EXPECT_NE(page.dom.find("href=\"./seqs=8/c8/report.html\""), std::string::npos);
  EXPECT_NE(page.dom.find("href=\"./seqs=2/report.html\""), std::string::npos);
  EXPECT_NE(page.dom.find("Best configuration by request_throughput: seqs=8 at c8."),
            std::string::npos);
  EXPECT_NE(page.dom.find("seqs=0: failed: the server exited with status 1"), std::string::npos);
}

}  // namespace
}  // namespace tokenbench::e2e
