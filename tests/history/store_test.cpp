#include "tokenbench/history/store.h"

#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

namespace tokenbench::history {
namespace {

namespace fs = std::filesystem;

class StoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("tokenbench-history-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string db() const { return (dir_ / "sub" / "history.sqlite").string(); }
  fs::path dir_;
};

RunEntry entry(const std::string& dir, const std::string& started, double ttft) {
  RunEntry e;
  e.started_at = started;
  e.recorded_at = started;
  e.workload = {{"target.model", "m"}, {"load.max_concurrency", "8"}};
  e.identity = workload_identity(e.workload);
  e.model = "m";
  e.base_url = "http://127.0.0.1:8000";
  e.dir = dir;
  e.labels = {{"gpu", "H100"}};
  e.environment = {{"server.software", "vllm 0.9.1"}, {"gpus.driver", "550.54"}};
  e.figures = {{"p95_ttft_ms", ttft}, {"request_throughput", 12.5}};
  e.summary = R"({"p95_ttft_ms": 1})";
  return e;
}

TEST_F(StoreTest, AddsFindsAndShowsRuns) {
  Store store(db());
  EXPECT_EQ(store.schema_version(), kSchemaVersion);
  const auto a = store.add(entry("/r/a", "2026-12-01T10:00:00Z", 100));
  const auto b = store.add(entry("/r/b", "2026-12-02T10:00:00Z", 110));
  RunEntry other = entry("/r/c", "2026-12-03T10:00:00Z", 90);
  other.model = "other";
  other.labels["gpu"] = "A100";
  store.add(other);
  EXPECT_EQ(store.find({}).size(), 3u);
  const auto h100 = store.find({parse_where("label.gpu=H100"), ""});
  ASSERT_EQ(h100.size(), 2u);
  EXPECT_EQ(h100[0].id, a);  // oldest first
  EXPECT_EQ(h100[1].id, b);
  EXPECT_EQ(h100[1].figures.at("p95_ttft_ms"), 110);
  EXPECT_EQ(h100[1].environment.at("server.software"), "vllm 0.9.1");
  EXPECT_TRUE(h100[1].summary.empty());  // find leaves the summary text out
  EXPECT_EQ(store.find({parse_where("model=other"), ""}).size(), 1u);
  EXPECT_EQ(store.find({parse_where("env.gpus.driver=550.54"), ""}).size(), 3u);
  EXPECT_EQ(store.find({{}, "2026-12-02"}).size(), 2u);
  EXPECT_EQ(store.find({parse_where("identity=" + h100[0].identity.substr(0, 6)), ""}).size(), 3u);
  const auto shown = store.get(b);
  ASSERT_TRUE(shown.has_value());
  EXPECT_EQ(shown->summary, R"({"p95_ttft_ms": 1})");
  ASSERT_EQ(shown->workload.size(), 2u);
  EXPECT_EQ(shown->workload[1].first, "load.max_concurrency");
  EXPECT_FALSE(store.get(999).has_value());
}

TEST_F(StoreTest, TheSameResultsDirectoryIsReplacedNotDoubled) {
  Store store(db());
  const auto first = store.add(entry("/r/a", "2026-12-01T10:00:00Z", 100));
  store.add(entry("/r/b", "2026-12-01T10:00:00Z", 100));
  const auto again = store.add(entry("/r/a", "2026-12-01T10:00:00Z", 105));
  EXPECT_EQ(again, first);  // it keeps its id, and its place among runs of the same second
  const auto runs = store.find({});
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[0].id, again);
  EXPECT_EQ(runs[0].figures.at("p95_ttft_ms"), 105);
}

TEST_F(StoreTest, ADatabaseOfSchemaOneMigrates) {
  // A database as tokenbench's first schema wrote it, with one run.
  fs::create_directories(fs::path(db()).parent_path());
  sqlite3* raw = nullptr;
  ASSERT_EQ(sqlite3_open(db().c_str(), &raw), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(raw, migrations()[0], nullptr, nullptr, nullptr), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(raw,
                         "PRAGMA user_version = 1;"
                         "INSERT INTO runs (started_at, identity, model, base_url, dir, summary) "
                         "VALUES ('2026-11-01T00:00:00Z', 'abc', 'm', 'u', '/old', '{}');"
                         "INSERT INTO figures VALUES (1, 'p95_ttft_ms', 123.0);"
                         "INSERT INTO labels VALUES (1, 'gpu', 'L4');",
                         nullptr, nullptr, nullptr),
            SQLITE_OK);
  sqlite3_close(raw);

  Store store(db());
  EXPECT_EQ(store.schema_version(), 2);
  const auto runs = store.find({});
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].dir, "/old");
  EXPECT_EQ(runs[0].repeat_of, "");
  EXPECT_EQ(runs[0].figures.at("p95_ttft_ms"), 123.0);
  EXPECT_EQ(runs[0].labels.at("gpu"), "L4");
  store.add(entry("/new", "2026-12-01T00:00:00Z", 1));  // and takes new runs
  EXPECT_EQ(store.find({}).size(), 2u);
}

TEST_F(StoreTest, ANewerSchemaIsRefusedByName) {
  { Store store(db()); }
  sqlite3* raw = nullptr;
  ASSERT_EQ(sqlite3_open(db().c_str(), &raw), SQLITE_OK);
  sqlite3_exec(raw, "PRAGMA user_version = 99", nullptr, nullptr, nullptr);
  sqlite3_close(raw);
  try {
    Store store(db());
    FAIL() << "opened a schema from the future";
  } catch (const StoreError& e) {
    EXPECT_NE(std::string(e.what()).find("schema 99, newer"), std::string::npos) << e.what();
  }
}

TEST_F(StoreTest, TwoProcessesWritingAtOnceBothLand) {
  { Store create(db()); }
  constexpr int kEach = 25;
  std::vector<pid_t> children;
  for (int p = 0; p < 2; ++p) {
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      int code = 0;
      try {
        Store store(db());
        for (int i = 0; i < kEach; ++i) {
          store.add(entry("/r/" + std::to_string(p) + "-" + std::to_string(i),
                          "2026-12-01T10:00:00Z", i));
        }
      } catch (...) {
        code = 1;
      }
      ::_exit(code);
    }
    children.push_back(pid);
  }
  for (const pid_t pid : children) {
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  Store store(db());
  const auto runs = store.find({});
  EXPECT_EQ(runs.size(), 2u * kEach);
  for (const auto& r : runs) EXPECT_EQ(r.figures.size(), 2u) << r.dir;  // each run whole
}

TEST_F(StoreTest, ALockedOrCorruptHistoryIsAnErrorNamingIt) {
  Store store(db());
  sqlite3* holder = nullptr;
  ASSERT_EQ(sqlite3_open(db().c_str(), &holder), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(holder, "BEGIN EXCLUSIVE", nullptr, nullptr, nullptr), SQLITE_OK);
  Store waiting(db(), 50);
  EXPECT_THROW(waiting.add(entry("/r/x", "2026-12-01T10:00:00Z", 1)), StoreError);
  sqlite3_exec(holder, "ROLLBACK", nullptr, nullptr, nullptr);
  sqlite3_close(holder);
  waiting.add(entry("/r/x", "2026-12-01T10:00:00Z", 1));  // free again: it lands

  const std::string bad = (dir_ / "corrupt.sqlite").string();
  std::ofstream(bad) << std::string(4096, 'x');
  try {
    Store corrupt(bad);
    FAIL() << "opened a file that is not a database";
  } catch (const StoreError& e) {
    EXPECT_NE(std::string(e.what()).find(bad), std::string::npos) << e.what();
  }
  // A run's recording only warns, and records nothing.
  EXPECT_EQ(record_or_warn(bad, dir_.string()), 0);
}

TEST(HistoryQuery, WhereAndSinceAreCheckedOnTheWay) {
  const auto w = parse_where("model=llama, label.gpu=H100,env.server.software=vllm 0.9");
  ASSERT_EQ(w.size(), 3u);
  EXPECT_EQ(w[1].first, "label.gpu");
  EXPECT_EQ(w[2].second, "vllm 0.9");
  EXPECT_THROW(parse_where("gpu=H100"), std::invalid_argument);
  EXPECT_THROW(parse_where("model"), std::invalid_argument);
  EXPECT_EQ(parse_since("30d", "2026-12-31T12:00:00Z"), "2026-12-01T12:00:00Z");
  EXPECT_EQ(parse_since("90m", "2026-12-31T12:00:00Z"), "2026-12-31T10:30:00Z");
  EXPECT_EQ(parse_since("2026-11-05", "2026-12-31T12:00:00Z"), "2026-11-05");
  EXPECT_THROW(parse_since("last week", "2026-12-31T12:00:00Z"), std::invalid_argument);
}

}  // namespace
}  // namespace tokenbench::history
