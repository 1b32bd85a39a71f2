#include "sim/serving/request_trace.hpp"

#include <charconv>
#include <chrono>
#include <fstream>
#include <istream>
#include <optional>
#include <sstream>
#include <string_view>
#include <tuple>
#include <utility>

#include "sim/core/error.hpp"

namespace cs {

namespace {

constexpr const char* kKey = "serving.load.trace";

/// The three columns a trace needs, in one layout's names.
struct Layout {
  const char* arrival;
  const char* prompt;
  const char* output;
  bool wall_clock;  ///< arrival is a date and time, the first row's being time zero
};
constexpr Layout kLayouts[] = {{"arrival_s", "prompt_tokens", "output_tokens", false},
                               {"TIMESTAMP", "ContextTokens", "GeneratedTokens", true}};

struct Cell {
  std::string_view text;
  int column = 0;  ///< 1-based character column of the cell's first character
};

std::vector<Cell> split(std::string_view line) {
  std::vector<Cell> cells;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = line.find(',', start);
    const std::size_t end = comma == std::string_view::npos ? line.size() : comma;
    std::string_view t = line.substr(start, end - start);
    std::size_t lead = 0;
    while (lead < t.size() && (t[lead] == ' ' || t[lead] == '\t')) ++lead;
    t.remove_prefix(lead);
    while (!t.empty() && (t.back() == ' ' || t.back() == '\t')) t.remove_suffix(1);
    cells.push_back({t, static_cast<int>(start + lead) + 1});
    if (comma == std::string_view::npos) return cells;
    start = comma + 1;
  }
}

template <class T>
std::optional<T> number(std::string_view s) {
  T v{};
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc{} || end != s.data() + s.size()) return std::nullopt;
  return v;
}

/// "YYYY-MM-DD HH:MM:SS[.fraction]" as nanoseconds since 1970-01-01 (UTC; only differences matter).
std::optional<std::int64_t> wall_clock_ns(std::string_view s) {
  if (s.size() < 19 || s[4] != '-' || s[7] != '-' || (s[10] != ' ' && s[10] != 'T') || s[13] != ':' ||
      s[16] != ':') {
    return std::nullopt;
  }
  const auto y = number<int>(s.substr(0, 4));
  const auto mo = number<unsigned>(s.substr(5, 2));
  const auto d = number<unsigned>(s.substr(8, 2));
  const auto h = number<int>(s.substr(11, 2));
  const auto mi = number<int>(s.substr(14, 2));
  const auto sec = number<int>(s.substr(17, 2));
  if (!y || !mo || !d || !h || !mi || !sec || *h > 23 || *mi > 59 || *sec > 60) return std::nullopt;
  const std::chrono::year_month_day date{std::chrono::year{*y}, std::chrono::month{*mo}, std::chrono::day{*d}};
  if (!date.ok()) return std::nullopt;
  std::int64_t frac_ns = 0;
  if (s.size() > 19) {
    const std::string_view f = s.substr(20);
    if (s[19] != '.' || f.empty() || f.size() > 9) return std::nullopt;
    const auto digits = number<std::int64_t>(f);
    if (!digits || f.front() == '-' || f.front() == '+') return std::nullopt;
    frac_ns = *digits;
    for (std::size_t i = f.size(); i < 9; ++i) frac_ns *= 10;
  }
  const std::int64_t days = std::chrono::sys_days{date}.time_since_epoch().count();
  return ((days * 24 + *h) * 60 + *mi) * 60 * 1'000'000'000LL + static_cast<std::int64_t>(*sec) * 1'000'000'000LL +
         frac_ns;
}

[[noreturn]] void fail_at(const std::string& file, int line, int column, const std::string& message) {
  throw InputError({file, line, column}, kKey, message);
}

std::vector<TraceRequest> read(std::istream& in, const std::string& name) {
  const auto fail = [&name](int line, int column, const std::string& message) { fail_at(name, line, column, message); };
  std::string text;
  int line = 0;
  // The header: the first line that is neither blank nor a '#' comment.
  std::vector<Cell> header;
  while (std::getline(in, text)) {
    ++line;
    if (!text.empty() && text.back() == '\r') text.pop_back();
    if (text.find_first_not_of(" \t") == std::string::npos || text.front() == '#') continue;
    header = split(text);
    break;
  }
  if (header.empty()) fail(line, 0, "the trace is empty (no header)");
  const auto find = [&](const char* col) -> int {
    for (std::size_t i = 0; i < header.size(); ++i) {
      if (header[i].text == col) return static_cast<int>(i);
    }
    return -1;
  };
  const Layout* layout = nullptr;
  int col_arrival = -1, col_prompt = -1, col_output = -1;
  for (const Layout& l : kLayouts) {
    if (find(l.arrival) >= 0 || find(l.prompt) >= 0) {
      layout = &l;
      col_arrival = find(l.arrival);
      col_prompt = find(l.prompt);
      col_output = find(l.output);
      break;
    }
  }
  if (!layout) {
    fail(line, 1, "unknown trace header: needs the columns arrival_s, prompt_tokens, output_tokens or the Azure "
                  "trace's TIMESTAMP, ContextTokens, GeneratedTokens");
  }
  for (const auto& [col, label] : {std::pair{col_arrival, layout->arrival}, std::pair{col_prompt, layout->prompt},
                                   std::pair{col_output, layout->output}}) {
    if (col < 0) fail(line, 1, std::string("the header has no column ") + label);
  }
  const int header_line = line;

  std::vector<TraceRequest> rows;
  std::optional<std::int64_t> origin_ns;
  Time last = Time::zero();
  while (std::getline(in, text)) {
    ++line;
    if (!text.empty() && text.back() == '\r') text.pop_back();
    if (text.find_first_not_of(" \t") == std::string::npos) continue;
    const std::vector<Cell> cells = split(text);
    const auto cell = [&](int col, const char* label) -> const Cell& {
      if (static_cast<std::size_t>(col) >= cells.size() || cells[static_cast<std::size_t>(col)].text.empty()) {
        const int at = static_cast<std::size_t>(col) < cells.size() ? cells[static_cast<std::size_t>(col)].column
                                                                      : static_cast<int>(text.size()) + 1;
        fail(line, at, std::string("missing ") + label + " (column " + std::to_string(col + 1) + " of the header)");
      }
      return cells[static_cast<std::size_t>(col)];
    };
    TraceRequest r;
    const Cell& a = cell(col_arrival, layout->arrival);
    if (layout->wall_clock) {
      const auto ns = wall_clock_ns(a.text);
      if (!ns) fail(line, a.column, std::string(layout->arrival) + " \"" + std::string(a.text) +
                                        "\" is not a date and time YYYY-MM-DD HH:MM:SS.fffffff");
      if (!origin_ns) origin_ns = *ns;
      r.arrival = Time::ns(*ns - *origin_ns);
    } else {
      const auto s = number<double>(a.text);
      if (!s) fail(line, a.column, std::string(layout->arrival) + " \"" + std::string(a.text) + "\" is not a number");
      if (*s < 0) fail(line, a.column, std::string(layout->arrival) + " is negative");
      r.arrival = Time::from_seconds(*s);
    }
    if (!rows.empty() && r.arrival < last) {
      fail(line, a.column, "arrival goes backwards in time (" + to_string(r.arrival) + " after " + to_string(last) +
                               " on the row before)");
    }
    last = r.arrival;
    for (const auto& [col, label, out, least] :
         {std::tuple{col_prompt, layout->prompt, &r.prompt, 1}, std::tuple{col_output, layout->output, &r.output, 1}}) {
      const Cell& c = cell(col, label);
      const auto v = number<std::int64_t>(c.text);
      if (!v) fail(line, c.column, std::string(label) + " \"" + std::string(c.text) + "\" is not a whole number");
      if (*v < least) fail(line, c.column, std::string(label) + " must be at least " + std::to_string(least) +
                                               ", got " + std::to_string(*v));
      *out = *v;
    }
    rows.push_back(r);
  }
  if (rows.empty()) fail(header_line, 0, "the trace has a header but no requests");
  return rows;
}

}  // namespace

std::vector<TraceRequest> load_request_trace(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw InputError({path, 0, 0}, kKey, "cannot open the trace file (does it exist and is it readable?)");
  return read(in, path);
}

std::vector<TraceRequest> parse_request_trace(const std::string& text, const std::string& name) {
  std::istringstream in(text);
  return read(in, name);
}

}  // namespace cs
