// Errors that carry their context. Library code throws these; only the CLI turns them into exit codes.
#pragma once

#include <stdexcept>
#include <string>

namespace cs {

/// Where a value came from: a file and a 1-based line and column (0 when unknown).
struct SourceLocation {
  std::string file;
  int line = 0;
  int column = 0;
};

/// Bad user input (a scenario, topology, price book, CSV or database): exit status 2.
/// what() reads "file:line:column: key.path: message", dropping the parts that are unknown.
class InputError : public std::runtime_error {
 public:
  InputError(SourceLocation where, std::string key_path, std::string message)
      : std::runtime_error(format(where, key_path, message)),
        where_(std::move(where)),
        key_path_(std::move(key_path)),
        message_(std::move(message)) {}

  [[nodiscard]] const SourceLocation& where() const noexcept { return where_; }
  [[nodiscard]] const std::string& key_path() const noexcept { return key_path_; }
  [[nodiscard]] const std::string& message() const noexcept { return message_; }

 private:
  static std::string format(const SourceLocation& w, const std::string& key, const std::string& msg) {
    std::string out = w.file.empty() ? std::string{} : w.file + ":";
    if (w.line > 0) out += std::to_string(w.line) + ":" + std::to_string(w.column) + ":";
    if (!out.empty()) out += " ";
    if (!key.empty()) out += key + ": ";
    return out + msg;
  }
  SourceLocation where_;
  std::string key_path_;
  std::string message_;
};

}  // namespace cs
