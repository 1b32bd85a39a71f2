// Small RAII helpers over the SQLite C API for the store layer (calibration and results databases): a prepared
// statement finalized on scope exit, and a BEGIN IMMEDIATE transaction rolled back unless committed. Errors
// throw SqlError, a StoreError.
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>

#include "sim/store/store_error.hpp"

namespace cs::sql {

class SqlError : public StoreError {
 public:
  using StoreError::StoreError;
};

class Statement {
 public:
  Statement(sqlite3* db, const char* sql) : db_(db) {
    if (sqlite3_prepare_v2(db, sql, -1, &st_, nullptr) != SQLITE_OK) {
      throw SqlError(std::string("SQLite: ") + sqlite3_errmsg(db) + " in: " + sql);
    }
  }
  ~Statement() { sqlite3_finalize(st_); }
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  Statement& bind(int i, std::int64_t v) { return check(sqlite3_bind_int64(st_, i, v)); }
  Statement& bind(int i, double v) { return check(sqlite3_bind_double(st_, i, v)); }
  Statement& bind(int i, const std::string& v) {
    return check(sqlite3_bind_text(st_, i, v.c_str(), static_cast<int>(v.size()), SQLITE_TRANSIENT));
  }
  Statement& bind(int i, const std::optional<double>& v) {
    return v ? bind(i, *v) : check(sqlite3_bind_null(st_, i));
  }
  /// Steps once; true while a row is available.
  bool step() {
    const int rc = sqlite3_step(st_);
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) return false;
    throw SqlError(std::string("SQLite: ") + sqlite3_errmsg(db_));
  }
  void reset() {
    sqlite3_reset(st_);
    sqlite3_clear_bindings(st_);
  }
  [[nodiscard]] std::int64_t integer(int c) const { return sqlite3_column_int64(st_, c); }
  [[nodiscard]] double real(int c) const { return sqlite3_column_double(st_, c); }
  [[nodiscard]] bool is_null(int c) const { return sqlite3_column_type(st_, c) == SQLITE_NULL; }
  [[nodiscard]] std::string text(int c) const {
    const auto* p = sqlite3_column_text(st_, c);
    return p ? reinterpret_cast<const char*>(p) : "";
  }

 private:
  Statement& check(int rc) {
    if (rc != SQLITE_OK) throw SqlError(std::string("SQLite bind: ") + sqlite3_errmsg(db_));
    return *this;
  }
  sqlite3* db_;
  sqlite3_stmt* st_ = nullptr;
};

inline void exec(sqlite3* db, const std::string& sql) {
  char* err = nullptr;
  if (sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err) != SQLITE_OK) {
    const std::string msg = err ? err : "unknown error";
    sqlite3_free(err);
    throw SqlError("SQLite: " + msg + " in: " + sql);
  }
}

/// The integer a one-value query (a PRAGMA, a count) returns; 0 when it returns no row.
inline std::int64_t pragma_int(sqlite3* db, const char* sql) {
  Statement st(db, sql);
  return st.step() ? st.integer(0) : 0;
}

/// BEGIN IMMEDIATE ... COMMIT; rolled back unless commit() is reached.
class Transaction {
 public:
  explicit Transaction(sqlite3* db) : db_(db) { exec(db_, "BEGIN IMMEDIATE"); }
  ~Transaction() {
    if (!done_) sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
  }
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;
  void commit() {
    exec(db_, "COMMIT");
    done_ = true;
  }

 private:
  sqlite3* db_;
  bool done_ = false;
};

}  // namespace cs::sql
