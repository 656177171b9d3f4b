#include "tokenbench/history/store.h"

#include <fmt/format.h>
#include <sqlite3.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <functional>
#include <string_view>
#include <utility>

#include "tokenbench/core/clock.h"
#include "tokenbench/history/sqlite_statement.h"

namespace tokenbench::history {
namespace {

// Schema 1: the runs, and their settings, labels, environment and figures as key-value rows.
constexpr const char* kSchema1 = R"sql(
CREATE TABLE runs (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  started_at TEXT NOT NULL,
  identity TEXT NOT NULL,
  model TEXT NOT NULL DEFAULT '',
  base_url TEXT NOT NULL DEFAULT '',
  dir TEXT NOT NULL UNIQUE,
  summary TEXT NOT NULL DEFAULT ''
);
CREATE TABLE workload (run_id INTEGER NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL);
CREATE TABLE labels (run_id INTEGER NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL);
CREATE TABLE environment (run_id INTEGER NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL);
CREATE TABLE figures (run_id INTEGER NOT NULL, name TEXT NOT NULL, value REAL NOT NULL);
)sql";

// Schema 2: when each run was recorded, the repeated runs it belongs to (trends show repeats as
// one point with an interval), and the indexes a trend's query uses.
constexpr const char* kSchema2 = R"sql(
ALTER TABLE runs ADD COLUMN recorded_at TEXT NOT NULL DEFAULT '';
ALTER TABLE runs ADD COLUMN repeat_of TEXT NOT NULL DEFAULT '';
CREATE INDEX runs_by_identity ON runs (identity, started_at);
CREATE INDEX workload_by_run ON workload (run_id);
CREATE INDEX labels_by_run ON labels (run_id);
CREATE INDEX environment_by_run ON environment (run_id);
CREATE INDEX figures_by_run ON figures (run_id, name);
)sql";

constexpr std::string_view kWhereKeys = "model, identity, base_url, dir, label.KEY or env.KEY";

std::string trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return std::string(s);
}

// The ISO-8601 UTC time `seconds` before `now` ("2026-12-03T12:40:33Z").
std::string iso8601_minus(const std::string& now, long seconds) {
  std::tm tm{};
  if (strptime(now.c_str(), "%Y-%m-%dT%H:%M:%S", &tm) == nullptr) return now;
  const std::time_t t = timegm(&tm) - seconds;
  std::tm out{};
  gmtime_r(&t, &out);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &out);
  return buf;
}

bool matches(const RunEntry& e, const std::string& key, const std::string& value) {
  if (key == "model") return e.model == value;
  if (key == "identity") return e.identity.rfind(value, 0) == 0 && !value.empty();
  if (key == "base_url") return e.base_url == value;
  if (key == "dir") return e.dir == value;
  if (key.rfind("label.", 0) == 0) {
    const auto it = e.labels.find(key.substr(6));
    return it != e.labels.end() && it->second == value;
  }
  const auto it = e.environment.find(key.substr(4));  // env.KEY
  return it != e.environment.end() && it->second == value;
}

void load_pairs(sqlite3* db, const char* table, std::int64_t id,
                const std::function<void(std::string, std::string)>& put) {
  Statement q(db, fmt::format("SELECT key, value FROM {} WHERE run_id = ?", table));
  q.bind(1, id);
  while (q.step()) put(q.text(0), q.text(1));
}

}  // namespace

const std::vector<const char*>& migrations() {
  static const std::vector<const char*> steps{kSchema1, kSchema2};
  return steps;
}

std::string default_history_path() {
  const char* xdg = std::getenv("XDG_DATA_HOME");
  if (xdg != nullptr && *xdg == '/') return std::string(xdg) + "/tokenbench/history.sqlite";
  const char* home = std::getenv("HOME");
  if (home != nullptr && *home != '\0') {
    return std::string(home) + "/.local/share/tokenbench/history.sqlite";
  }
  return "";
}

std::vector<std::pair<std::string, std::string>> parse_where(const std::string& text) {
  std::vector<std::pair<std::string, std::string>> out;
  std::size_t from = 0;
  while (from <= text.size()) {
    const std::size_t comma = std::min(text.find(',', from), text.size());
    const std::string item = trim(std::string_view(text).substr(from, comma - from));
    from = comma + 1;
    if (item.empty()) continue;
    const auto eq = item.find('=');
    if (eq == std::string::npos || eq == 0) {
      throw std::invalid_argument(
          fmt::format("--where item '{}' is not KEY=VALUE (keys: {})", item, kWhereKeys));
    }
    std::string key = trim(item.substr(0, eq));
    const bool known = key == "model" || key == "identity" || key == "base_url" || key == "dir" ||
                       (key.rfind("label.", 0) == 0 && key.size() > 6) ||
                       (key.rfind("env.", 0) == 0 && key.size() > 4);
    if (!known) {
      throw std::invalid_argument(
          fmt::format("--where key '{}' is not one of {}", key, kWhereKeys));
    }
    out.emplace_back(std::move(key), trim(item.substr(eq + 1)));
  }
  return out;
}

std::string parse_since(const std::string& text, const std::string& now) {
  const std::string t = trim(text);
  if (t.size() >= 2 &&
      std::all_of(t.begin(), t.end() - 1, [](unsigned char c) { return std::isdigit(c); })) {
    const char unit = t.back();
    const long n = std::strtol(t.c_str(), nullptr, 10);
    const long seconds = unit == 'd' ? 86400 : unit == 'h' ? 3600 : unit == 'm' ? 60 : 0;
    if (seconds > 0) return iso8601_minus(now, n * seconds);
  }
  // An ISO-8601 date (2026-12-01) or time: compared as text, which orders them.
  const bool iso = t.size() >= 10 && std::isdigit(static_cast<unsigned char>(t[0])) &&
                   t[4] == '-' && t[7] == '-';
  if (!iso) {
    throw std::invalid_argument(fmt::format(
        "--since '{}' is not an age (30d, 12h, 90m) or an ISO-8601 date (2026-12-01)", text));
  }
  return t;
}

Store::Store(const std::string& path, int busy_timeout_ms) : path_(path) {
  std::error_code ec;
  const std::filesystem::path p(path);
  if (p.has_parent_path()) std::filesystem::create_directories(p.parent_path(), ec);
  if (sqlite3_open_v2(path.c_str(), &db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr) !=
      SQLITE_OK) {
    const std::string why = db_ != nullptr ? sqlite3_errmsg(db_) : "out of memory";
    sqlite3_close(db_);
    db_ = nullptr;
    throw StoreError(fmt::format("cannot open the history {}: {}", path, why));
  }
  sqlite3_busy_timeout(db_, busy_timeout_ms);
  try {
    exec("PRAGMA journal_mode = WAL");
    exec("PRAGMA foreign_keys = ON");
    migrate();
  } catch (...) {
    sqlite3_close(db_);
    db_ = nullptr;
    throw;
  }
}

Store::~Store() { sqlite3_close(db_); }

void Store::exec(const char* sql) const {
  char* message = nullptr;
  if (sqlite3_exec(db_, sql, nullptr, nullptr, &message) != SQLITE_OK) {
    const std::string why = message != nullptr ? message : sqlite3_errmsg(db_);
    sqlite3_free(message);
    throw StoreError(fmt::format("the history {}: {}", path_, why));
  }
}

int Store::schema_version() const {
  Statement q(db_, "PRAGMA user_version");
  return q.step() ? static_cast<int>(q.integer(0)) : 0;
}

void Store::migrate() {
  if (schema_version() == kSchemaVersion) return;
  // One writer migrates; another process waits for it, then finds the schema current.
  exec("BEGIN IMMEDIATE");
  try {
    const int from = schema_version();
    if (from > kSchemaVersion) {
      throw StoreError(
          fmt::format("the history {} has schema {}, newer than this tokenbench's {}: use a newer "
                      "tokenbench, or --history another file",
                      path_, from, kSchemaVersion));
    }
    for (int v = from; v < kSchemaVersion; ++v) exec(migrations()[static_cast<std::size_t>(v)]);
    exec(fmt::format("PRAGMA user_version = {}", kSchemaVersion).c_str());
    exec("COMMIT");
  } catch (...) {
    sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
    throw;
  }
}

std::int64_t Store::add(const RunEntry& e) {
  exec("BEGIN IMMEDIATE");
  try {
    const auto old = id_of_dir(e.dir);
    if (old) {
      for (const char* table : {"workload", "labels", "environment", "figures"}) {
        Statement del(db_, fmt::format("DELETE FROM {} WHERE run_id = ?", table));
        del.bind(1, *old);
        del.run();
      }
      Statement del(db_, "DELETE FROM runs WHERE id = ?");
      del.bind(1, *old);
      del.run();
    }
    // A run recorded again keeps its id (NULL: a new one).
    Statement ins(db_,
                  "INSERT INTO runs (id, started_at, recorded_at, identity, model, base_url, dir, "
                  "repeat_of, summary) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)");
    if (old) ins.bind(1, *old);
    ins.bind(2, e.started_at).bind(3, e.recorded_at).bind(4, e.identity).bind(5, e.model);
    ins.bind(6, e.base_url).bind(7, e.dir).bind(8, e.repeat_of).bind(9, e.summary);
    ins.run();
    const std::int64_t id = sqlite3_last_insert_rowid(db_);
    const auto put_pairs = [&](const char* table, const auto& pairs) {
      Statement put(db_,
                    fmt::format("INSERT INTO {} (run_id, key, value) VALUES (?, ?, ?)", table));
      for (const auto& [k, v] : pairs) {
        put.bind(1, id).bind(2, k).bind(3, v);
        put.run();
        put.reset();
      }
    };
    put_pairs("workload", e.workload);
    put_pairs("labels", e.labels);
    put_pairs("environment", e.environment);
    Statement fig(db_, "INSERT INTO figures (run_id, name, value) VALUES (?, ?, ?)");
    for (const auto& [name, value] : e.figures) {
      fig.bind(1, id).bind(2, name).bind(3, value);
      fig.run();
      fig.reset();
    }
    exec("COMMIT");
    return id;
  } catch (...) {
    sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
    throw;
  }
}

std::optional<std::int64_t> Store::id_of_dir(const std::string& dir) const {
  Statement q(db_, "SELECT id FROM runs WHERE dir = ?");
  q.bind(1, dir);
  if (!q.step()) return std::nullopt;
  return q.integer(0);
}

namespace {

// The columns of runs every query reads, in run_of's order.
constexpr std::string_view kRunColumns =
    "id, started_at, recorded_at, identity, model, base_url, dir, repeat_of";

RunEntry run_of(const Statement& q) {
  RunEntry e;
  e.id = q.integer(0);
  e.started_at = q.text(1);
  e.recorded_at = q.text(2);
  e.identity = q.text(3);
  e.model = q.text(4);
  e.base_url = q.text(5);
  e.dir = q.text(6);
  e.repeat_of = q.text(7);
  return e;
}

void load_labels_and_environment(sqlite3* db, RunEntry& e) {
  load_pairs(db, "labels", e.id,
             [&e](std::string k, std::string v) { e.labels[std::move(k)] = std::move(v); });
  load_pairs(db, "environment", e.id,
             [&e](std::string k, std::string v) { e.environment[std::move(k)] = std::move(v); });
}

// `fig`: "SELECT name, value FROM figures WHERE run_id = ?", reset for the next run.
void load_figures(Statement& fig, RunEntry& e) {
  fig.bind(1, e.id);
  while (fig.step()) e.figures[fig.text(0)] = fig.real(1);
  fig.reset();
}

constexpr std::string_view kFiguresOfRun = "SELECT name, value FROM figures WHERE run_id = ?";

}  // namespace

std::vector<RunEntry> Store::find(const Filter& filter) const {
  Statement q(db_, fmt::format("SELECT {} FROM runs WHERE started_at >= ? ORDER BY started_at, id",
                               kRunColumns));
  q.bind(1, filter.since);
  std::vector<RunEntry> out;
  while (q.step()) {
    RunEntry e = run_of(q);
    load_labels_and_environment(db_, e);
    const bool all = std::all_of(filter.where.begin(), filter.where.end(),
                                 [&e](const auto& kv) { return matches(e, kv.first, kv.second); });
    if (all) out.push_back(std::move(e));
  }
  Statement fig(db_, kFiguresOfRun);
  for (RunEntry& e : out) load_figures(fig, e);
  return out;
}

std::optional<RunEntry> Store::get(std::int64_t id) const {
  Statement q(db_, fmt::format("SELECT {}, summary FROM runs WHERE id = ?", kRunColumns));
  q.bind(1, id);
  if (!q.step()) return std::nullopt;
  RunEntry e = run_of(q);
  e.summary = q.text(8);
  load_labels_and_environment(db_, e);
  Statement fig(db_, kFiguresOfRun);
  load_figures(fig, e);
  load_pairs(db_, "workload", id, [&e](std::string k, std::string v) {
    e.workload.emplace_back(std::move(k), std::move(v));
  });
  return e;
}

std::int64_t record_or_warn(const std::string& path, const std::string& dir) noexcept {
  const std::string file = path.empty() ? default_history_path() : path;
  try {
    if (file.empty()) {
      throw StoreError("neither XDG_DATA_HOME nor HOME is set: give --history FILE");
    }
    Store store(file);
    return store.add(entry_from_results(dir));
  } catch (const std::exception& e) {
    std::fprintf(stderr,
                 "tokenbench: warning: the run was not added to the history: %s; its results "
                 "in %s are complete (add them later with `tokenbench history import %s`)\n",
                 e.what(), dir.c_str(), dir.c_str());
  }
  return 0;
}

}  // namespace tokenbench::history
