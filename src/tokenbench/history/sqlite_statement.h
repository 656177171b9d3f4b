#pragma once

// A prepared SQLite statement that finalizes itself, for store.cpp: bind by position, step,
// read columns. Every failure is a StoreError naming the database's message.

#include <sqlite3.h>

#include <cstdint>
#include <string>
#include <string_view>

#include "tokenbench/history/store.h"

namespace tokenbench::history {

class Statement {
 public:
  Statement(sqlite3* db, std::string_view sql) : db_(db) {
    if (sqlite3_prepare_v2(db, sql.data(), static_cast<int>(sql.size()), &stmt_, nullptr) !=
        SQLITE_OK) {
      throw StoreError(std::string("the history: ") + sqlite3_errmsg(db));
    }
  }
  ~Statement() { sqlite3_finalize(stmt_); }
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  Statement& bind(int i, std::string_view text) {
    check(
        sqlite3_bind_text(stmt_, i, text.data(), static_cast<int>(text.size()), SQLITE_TRANSIENT));
    return *this;
  }
  Statement& bind(int i, std::int64_t v) {
    check(sqlite3_bind_int64(stmt_, i, v));
    return *this;
  }
  Statement& bind(int i, double v) {
    check(sqlite3_bind_double(stmt_, i, v));
    return *this;
  }

  /// True while there is a row to read; false at the end.
  bool step() {
    const int rc = sqlite3_step(stmt_);
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) return false;
    throw StoreError(std::string("the history: ") + sqlite3_errmsg(db_));
  }
  /// Runs a statement that returns no rows.
  void run() { step(); }
  /// Ready to run again with new bindings.
  void reset() {
    sqlite3_reset(stmt_);
    sqlite3_clear_bindings(stmt_);
  }

  std::int64_t integer(int col) const { return sqlite3_column_int64(stmt_, col); }
  double real(int col) const { return sqlite3_column_double(stmt_, col); }
  std::string text(int col) const {
    const auto* p = sqlite3_column_text(stmt_, col);
    return p == nullptr ? std::string()
                        : std::string(reinterpret_cast<const char*>(p),
                                      static_cast<std::size_t>(sqlite3_column_bytes(stmt_, col)));
  }

 private:
  void check(int rc) const {
    if (rc != SQLITE_OK) throw StoreError(std::string("the history: ") + sqlite3_errmsg(db_));
  }
  sqlite3* db_;
  sqlite3_stmt* stmt_ = nullptr;
};

}  // namespace tokenbench::history
