// Runs the clustersim binary as a user does: the e2e tests' one way to start it and read what it printed.
#pragma once

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <string>

namespace cs::e2e {

struct Outcome {
  int status = -1;
  std::string output;  // stdout, and stderr unless dropped
};

/// `PROGRAM ARGS`; with `with_stderr` false, stderr is discarded (to parse stdout alone).
inline Outcome run_program(const std::string& program, const std::string& args, bool with_stderr = true) {
  const std::string cmd = program + " " + args + (with_stderr ? " 2>&1" : " 2>/dev/null");
  Outcome o;
  FILE* p = popen(cmd.c_str(), "r");
  if (p == nullptr) return o;
  std::array<char, 4096> buf{};
  std::size_t n = 0;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) o.output.append(buf.data(), n);
  const int st = pclose(p);
  o.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return o;
}

/// `clustersim ARGS`.
inline Outcome run_cli(const std::string& args, bool with_stderr = true) {
  return run_program(CLUSTERSIM_BIN, args, with_stderr);
}

}  // namespace cs::e2e
