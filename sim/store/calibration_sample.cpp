#include "sim/store/calibration_sample.hpp"

#include <array>
#include <charconv>
#include <cstdio>
#include <fstream>
#include <istream>
#include <ostream>
#include <sstream>

#include "sim/core/error.hpp"

namespace cs {
namespace {

// Format v2 appends the last five columns; v1 files (18 columns) still read.
constexpr std::array<const char*, 23> kColumns{
    "kind", "op",       "dtype", "m",     "n",    "k",     "batch",  "heads",  "seq",    "head_dim", "bytes", "ranks",
    "algo", "median_s", "p10_s", "p90_s", "reps", "watts", "layout", "clocks", "sm_mhz", "temp_c",   "throttle"};
constexpr std::size_t kV1Columns = 18;

std::string header_line(std::size_t columns = kColumns.size()) {
  std::string h;
  for (std::size_t i = 0; i < columns; ++i) {
    if (!h.empty()) h += ',';
    h += kColumns[i];
  }
  return h;
}

std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

std::vector<std::string> split(const std::string& line) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : line) {
    if (c == ',') {
      out.push_back(cur);
      cur.clear();
    } else if (c != '\r') {
      cur += c;
    }
  }
  out.push_back(cur);
  return out;
}

void append(std::string& field, const std::string& v) {
  if (!field.empty()) field += "; ";
  field += v;
}

std::string trim(std::string s) {
  const auto b = s.find_first_not_of(" \t\r");
  const auto e = s.find_last_not_of(" \t\r");
  return b == std::string::npos ? std::string{} : s.substr(b, e - b + 1);
}

}  // namespace

void write_samples_header(std::ostream& out, const CalibrationRun& r) {
  out << "# clustersim calibration samples v2\n";
  out << "# gpu: " << r.gpu_name << "\n# sm_count: " << r.sm_count << "\n# memory_bytes: " << num(r.memory.value())
      << "\n# sm_clock_mhz: " << r.sm_clock_mhz << "\n# mem_clock_mhz: " << r.mem_clock_mhz << "\n# driver: " << r.driver
      << "\n# cuda: " << r.cuda << "\n# cublas: " << r.cublas << "\n# nccl: " << r.nccl << "\n# host: " << r.host
      << "\n# date: " << r.date << "\n# tool: " << r.tool << "\n";
  for (const auto& [k, v] : r.extra) out << "# " << k << ": " << v << "\n";
  out << header_line() << "\n";
}

void write_sample(std::ostream& out, const CalibrationSample& s) {
  out << s.kind << ',' << s.op << ',' << s.dtype << ',' << s.m << ',' << s.n << ',' << s.k << ',' << s.batch << ','
      << s.heads << ',' << s.seq << ',' << s.head_dim << ',' << num(s.bytes.value()) << ',' << s.ranks << ',' << s.algo
      << ',' << num(s.median.value()) << ',' << num(s.p10.value()) << ',' << num(s.p90.value()) << ',' << s.reps << ','
      << num(s.watts.value()) << ',' << s.layout << ',' << s.clocks << ',' << num(s.sm_mhz) << ',' << num(s.temp_c)
      << ',' << s.throttle << '\n';
}

SamplesFile read_samples(std::istream& in, const std::string& name) {
  SamplesFile f;
  std::string line;
  int lineno = 0;
  bool saw_header = false;
  std::size_t columns = kColumns.size();
  const auto fail = [&](int col, const std::string& msg) { throw InputError({name, lineno, col}, "", msg); };
  const auto set_if_empty = [](std::string& field, const std::string& v) {
    if (field.empty()) field = v;
  };
  while (std::getline(in, line)) {
    ++lineno;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (trim(line).empty()) continue;
    if (line[0] == '#') {
      const auto colon = line.find(':');
      if (colon == std::string::npos) continue;  // a comment, e.g. the format banner
      const std::string key = trim(line.substr(1, colon - 1)), value = trim(line.substr(colon + 1));
      CalibrationRun& r = f.run;
      try {
        if (key == "gpu") set_if_empty(r.gpu_name, value);
        else if (key == "sm_count") { if (r.sm_count == 0) r.sm_count = std::stoi(value); }
        else if (key == "memory_bytes") { if (r.memory.value() == 0) r.memory = Bytes{std::stod(value)}; }
        else if (key == "sm_clock_mhz") { if (r.sm_clock_mhz == 0) r.sm_clock_mhz = std::stoi(value); }
        else if (key == "mem_clock_mhz") { if (r.mem_clock_mhz == 0) r.mem_clock_mhz = std::stoi(value); }
        else if (key == "driver") set_if_empty(r.driver, value);
        else if (key == "cuda") set_if_empty(r.cuda, value);
        else if (key == "cublas") set_if_empty(r.cublas, value);
        else if (key == "nccl") set_if_empty(r.nccl, value);
        else if (key == "host") set_if_empty(r.host, value);
        else if (key == "date") set_if_empty(r.date, value);
        else if (key == "tool") append(r.tool, value);
        else append(r.extra[key], value);
      } catch (const std::exception&) {
        fail(1, "provenance value of \"" + key + "\" is not a number: \"" + value + "\"");
      }
      continue;
    }
    if (line == header_line() || line == header_line(kV1Columns)) {
      saw_header = true;
      columns = line == header_line() ? kColumns.size() : kV1Columns;
      continue;
    }
    if (!saw_header) fail(1, "expected the column header \"" + header_line() + "\"");
    const auto cells = split(line);
    if (cells.size() != columns) {
      fail(1, "expected " + std::to_string(columns) + " columns, found " + std::to_string(cells.size()));
    }
    std::size_t i = 0;
    int col = 1;
    const auto text = [&]() -> const std::string& {
      col = static_cast<int>(i) + 1;
      return cells[i++];
    };
    const auto integer = [&]() {
      const std::string& c = text();
      std::int64_t v = 0;
      const auto r = std::from_chars(c.data(), c.data() + c.size(), v);
      if (r.ec != std::errc{} || r.ptr != c.data() + c.size() || v < 0) {
        fail(col, std::string(kColumns[i - 1]) + ": \"" + c + "\" is not a non-negative integer");
      }
      return v;
    };
    const auto real = [&]() {
      const std::string& c = text();
      std::size_t used = 0;
      double v = 0;
      try {
        v = std::stod(c, &used);
      } catch (const std::exception&) {
        used = 0;
      }
      if (used != c.size() || c.empty() || !(v >= 0)) {
        fail(col, std::string(kColumns[i - 1]) + ": \"" + c + "\" is not a non-negative number");
      }
      return v;
    };
    CalibrationSample s;
    s.kind = text();
    s.op = text();
    s.dtype = text();
    s.m = integer();
    s.n = integer();
    s.k = integer();
    s.batch = integer();
    s.heads = integer();
    s.seq = integer();
    s.head_dim = integer();
    s.bytes = Bytes{real()};
    s.ranks = static_cast<int>(integer());
    s.algo = text();
    s.median = MeasuredTime{real()};
    s.p10 = MeasuredTime{real()};
    s.p90 = MeasuredTime{real()};
    s.reps = static_cast<int>(integer());
    s.watts = Watts{real()};
    if (columns > kV1Columns) {
      s.layout = text();
      s.clocks = text();
      s.sm_mhz = real();
      s.temp_c = real();
      s.throttle = integer();
    }
    if (s.kind == "gemm" && s.layout.empty()) s.layout = "tn";  // v1 measured TN only
    if (s.kind == "gemm" && s.layout != "tn" && s.layout != "nn" && s.layout != "nt") {
      fail(19, "layout: \"" + s.layout + "\" is not tn, nn or nt");
    }
    if (s.clocks != "" && s.clocks != "burst" && s.clocks != "sustained" && s.clocks != "steady") {
      fail(20, "clocks: \"" + s.clocks + "\" is not burst, sustained or steady");
    }
    if (s.kind != "gemm" && s.kind != "attention" && s.kind != "memory" && s.kind != "collective" &&
        s.kind != "power") {
      fail(1, "unknown sample kind \"" + s.kind + "\"");
    }
    if (s.kind != "power" && !(s.median.value() > 0)) fail(14, "median_s must be positive");
    f.samples.push_back(std::move(s));
  }
  if (!saw_header) throw InputError({name, 0, 0}, "", "not a clustersim samples file (no column header)");
  return f;
}

SamplesFile read_samples_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw InputError({path, 0, 0}, "", "cannot open samples file");
  return read_samples(in, path);
}

}  // namespace cs
