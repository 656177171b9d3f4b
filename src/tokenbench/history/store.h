#pragma once

// The run history: a SQLite database (docs/HISTORY.md) that every run adds itself to when it
// ends, and that `tokenbench history` and `compare --baseline` read. One transaction per run, so
// a run lands whole or not at all; WAL mode and a busy timeout, so that runs ending together all
// land; a schema version (PRAGMA user_version) with ordered migrations.

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "tokenbench/history/run_entry.h"

struct sqlite3;

namespace tokenbench::history {

/// The history cannot be opened, read or written: locked past the timeout, corrupt, not a
/// database, or a newer schema than this tokenbench knows. The message names the file.
class StoreError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// The schema version this tokenbench writes.
inline constexpr int kSchemaVersion = 2;

/// The default location: $XDG_DATA_HOME/tokenbench/history.sqlite, else
/// $HOME/.local/share/tokenbench/history.sqlite; "" when neither variable is set.
std::string default_history_path();

/// Which runs a query selects. `where` items are KEY=VALUE, all of which must hold: model,
/// identity (a prefix is enough), base_url, dir, label.KEY and env.KEY (an environment field as
/// `history show` names it). `since` is an ISO-8601 time: runs that started at or after it.
struct Filter {
  std::vector<std::pair<std::string, std::string>> where;
  std::string since;
};

/// Parses "model=X,label.gpu=H100" into Filter::where items; throws std::invalid_argument naming
/// an item that is not KEY=VALUE or a key that is not one of the above.
std::vector<std::pair<std::string, std::string>> parse_where(const std::string& text);

/// "30d", "12h", "90m" or an ISO-8601 date or time, as the ISO-8601 time it starts at, from
/// `now` (ISO-8601 UTC). Throws std::invalid_argument on anything else.
std::string parse_since(const std::string& text, const std::string& now);

class Store {
 public:
  /// Opens (creating it and its folder when missing) and migrates the database at `path`.
  /// `busy_timeout_ms`: how long a write waits for another process's. Throws StoreError.
  explicit Store(const std::string& path, int busy_timeout_ms = 10000);
  ~Store();
  Store(const Store&) = delete;
  Store& operator=(const Store&) = delete;

  const std::string& path() const { return path_; }
  int schema_version() const;

  /// Adds a run in one transaction and returns its id. A run of the same results directory
  /// already there is replaced (an import of a directory recorded before). Throws StoreError.
  std::int64_t add(const RunEntry& entry);

  /// The runs `filter` selects, oldest first (by start, then id), with their labels,
  /// environment and figures, but not their summary text. Throws StoreError.
  std::vector<RunEntry> find(const Filter& filter) const;

  /// One run, with its workload settings and summary text; nullopt when there is no such id.
  std::optional<RunEntry> get(std::int64_t id) const;

  /// The id of the run recorded from results directory `dir` (absolute), if any.
  std::optional<std::int64_t> id_of_dir(const std::string& dir) const;

 private:
  void exec(const char* sql) const;
  void migrate();
  std::string path_;
  sqlite3* db_ = nullptr;
};

/// The migrations, in order: migration i takes the schema from version i to i + 1. Kept as data
/// so that a test can build a database of any older version.
const std::vector<const char*>& migrations();

/// Adds DIR's run to the history at `path` ("" means default_history_path()), or says on stderr
/// in one warning why it could not (the run's results are never affected). Returns the id, or
/// 0 when not recorded.
std::int64_t record_or_warn(const std::string& path, const std::string& dir) noexcept;

}  // namespace tokenbench::history
