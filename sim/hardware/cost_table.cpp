#include "sim/hardware/cost_table.hpp"

#include <charconv>
#include <cstdio>
#include <istream>
#include <ostream>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "sim/core/error.hpp"

namespace cs {
namespace {

std::vector<std::string> cells(const std::string& line) {
  std::vector<std::string> out(1);
  for (char c : line) {
    if (c == ',') out.emplace_back();
    else if (c != '\r' && c != ' ' && c != '\t') out.back() += c;
  }
  return out;
}

}  // namespace

void write_cost_csv(std::istream& in, const std::string& name, std::ostream& out, const ComputeCostModel& model) {
  std::ostringstream buffered;  // written only once every row is valid
  const Provenance& p = model.provenance();
  buffered << "# profile: " << p.profile << " (" << p.kind << ": " << p.description << ")\n";
  buffered << "op,dtype,m,n,k,predicted_s\n";
  std::string line;
  int lineno = 0;
  bool header = false;
  while (std::getline(in, line)) {
    ++lineno;
    if (line.empty() || line == "\r" || line[0] == '#') continue;
    const auto c = cells(line);
    if (!header) {
      if (c != std::vector<std::string>{"op", "dtype", "m", "n", "k"}) {
        throw InputError({name, lineno, 1}, "", "expected the header \"op,dtype,m,n,k\"");
      }
      header = true;
      continue;
    }
    if (c.size() != 5) {
      throw InputError({name, lineno, 1}, "", "expected 5 columns (op,dtype,m,n,k), found " + std::to_string(c.size()));
    }
    if (c[0] != "gemm") throw InputError({name, lineno, 1}, "op", "unknown op \"" + c[0] + "\" (supported: gemm)");
    GemmShape s;
    if (!parse_dtype(c[1], s.dtype)) {
      throw InputError({name, lineno, 2}, "dtype", "unknown dtype \"" + c[1] + "\" (fp32, tf32, bf16, fp16, fp8)");
    }
    std::int64_t* dims[3] = {&s.m, &s.n, &s.k};
    for (int i = 0; i < 3; ++i) {
      const std::string& v = c[static_cast<std::size_t>(2 + i)];
      const auto r = std::from_chars(v.data(), v.data() + v.size(), *dims[i]);
      if (r.ec != std::errc{} || r.ptr != v.data() + v.size() || *dims[i] <= 0) {
        throw InputError({name, lineno, 3 + i}, std::string(1, "mnk"[i]), "\"" + v + "\" is not a positive integer");
      }
    }
    double seconds = 0;
    try {
      seconds = model.gemm(s).seconds();
    } catch (const std::out_of_range& e) {  // the GPU has no such format (e.g. fp8 on an A100)
      throw InputError({name, lineno, 2}, "dtype", e.what());
    }
    char t[32];
    std::snprintf(t, sizeof t, "%.9g", seconds);
    buffered << c[0] << ',' << c[1] << ',' << s.m << ',' << s.n << ',' << s.k << ',' << t << '\n';
  }
  if (!header) throw InputError({name, lineno, 0}, "", "empty input: expected the header \"op,dtype,m,n,k\"");
  out << buffered.str();
}

}  // namespace cs
