// Writing output files so that a failure never leaves a partial file: write a temporary file beside the
// target, flush it, then rename it over the target (rename is atomic within one file system).
#pragma once

#include <string>

namespace cs {

/// Writes `content` to `path` atomically, or to standard output when `path` is "-".
/// Throws std::runtime_error naming the path on failure; the target is then untouched.
void write_file_atomically(const std::string& path, const std::string& content);

}  // namespace cs
