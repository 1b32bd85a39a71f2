#include "sim/schedule/job_trace.hpp"

#include <algorithm>
#include <cmath>
#include <ctime>
#include <fstream>
#include <iterator>
#include <limits>
#include <optional>

#include <nlohmann/json.hpp>

#include "sim/input/csv_table.hpp"

namespace cs {

const EnumTable<TraceFormat>& trace_format_names() {
  static const EnumTable<TraceFormat> t{
      {TraceFormat::csv, "csv"}, {TraceFormat::helios, "helios"}, {TraceFormat::pai, "pai"},
      {TraceFormat::philly, "philly"}};
  return t;
}

namespace {

[[noreturn]] void bad(const CsvTable& t, const CsvTable::Row& r, const std::string& column, const std::string& why) {
  throw InputError({t.file(), r.line, 0}, column, why);
}

double number(const CsvTable& t, const CsvTable::Row& r, const std::string& column) {
  const std::string& s = t.cell(r, column);
  try {
    std::size_t used = 0;
    const double v = std::stod(s, &used);
    if (used == s.size() && std::isfinite(v)) return v;
  } catch (const std::exception&) {
  }
  bad(t, r, column, "expected a number, got \"" + s + "\"");
}

/// Epoch seconds, or "YYYY-MM-DD HH:MM:SS" read as UTC.
double when(const CsvTable& t, const CsvTable::Row& r, const std::string& column) {
  const std::string& s = t.cell(r, column);
  if (s.find('-') != std::string::npos && s.find(':') != std::string::npos) {
    std::tm tm{};
    if (std::sscanf(s.c_str(), "%d-%d-%d %d:%d:%d", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour, &tm.tm_min,
                    &tm.tm_sec) == 6) {
      tm.tm_year -= 1900;
      tm.tm_mon -= 1;
      return static_cast<double>(timegm(&tm));
    }
    bad(t, r, column, "expected epoch seconds or YYYY-MM-DD HH:MM:SS, got \"" + s + "\"");
  }
  return number(t, r, column);
}

/// "YYYY-MM-DD HH:MM:SS" as UTC epoch seconds; nullopt for anything else ("None", null: never happened).
std::optional<double> philly_time(const nlohmann::json& v) {
  if (!v.is_string()) return std::nullopt;
  std::tm tm{};
  if (std::sscanf(v.get<std::string>().c_str(), "%d-%d-%d %d:%d:%d", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour,
                  &tm.tm_min, &tm.tm_sec) != 6) {
    return std::nullopt;
  }
  tm.tm_year -= 1900;
  tm.tm_mon -= 1;
  return static_cast<double>(timegm(&tm));
}

/// Philly's cluster_job_log: one batch job per job that ran (job_trace.hpp gives the mapping).
TraceRead read_philly(const std::string& path, const std::string& tenant) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError({path, 0, 0}, "", "cannot open file");
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  nlohmann::json log;
  try {
    log = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    const auto upto = text.begin() + static_cast<std::ptrdiff_t>(std::min<std::size_t>(e.byte, text.size()));
    const auto line = 1 + std::count(text.begin(), upto, '\n');
    throw InputError({path, static_cast<int>(line), 0}, "", std::string("JSON syntax error: ") + e.what());
  }
  if (!log.is_array()) throw InputError({path, 1, 1}, "", "a Philly job log is a JSON list of jobs");
  TraceRead out;
  for (std::size_t i = 0; i < log.size(); ++i) {
    const nlohmann::json& job = log[i];
    const std::string at = "[" + std::to_string(i) + "]";
    if (!job.is_object()) throw InputError({path, 0, 0}, at, "a job is a JSON object");
    const auto attempts = job.find("attempts");
    if (attempts == job.end() || !attempts->is_array()) {
      throw InputError({path, 0, 0}, at + ".attempts", "missing, or not a list of attempts");
    }
    TraceJob j;
    j.tenant = tenant;
    if (const auto id = job.find("jobid"); id != job.end() && id->is_string()) j.name = id->get<std::string>();
    const auto submitted = philly_time(job.value("submitted_time", nlohmann::json()));
    std::optional<double> start, end;
    if (!attempts->empty()) {
      start = philly_time(attempts->front().value("start_time", nlohmann::json()));
      end = philly_time(attempts->back().value("end_time", nlohmann::json()));
      for (const auto& machine : attempts->front().value("detail", nlohmann::json::array())) {
        const auto gpus = machine.find("gpus");
        if (gpus == machine.end() || !gpus->is_array()) {
          throw InputError({path, 0, 0}, at + ".attempts[0].detail", "each machine needs a gpus list");
        }
        j.gpus += static_cast<int>(gpus->size());
      }
    }
    if (!submitted || !start || !end) {
      ++out.skipped;  // never ran, or its times are not given
      continue;
    }
    j.submit_s = *submitted;
    j.duration_s = *end - *start;
    if (j.gpus <= 0 || j.duration_s <= 0) {
      ++out.skipped;
      continue;
    }
    if (j.name.empty()) j.name = "job" + std::to_string(i + 1);
    out.jobs.push_back(std::move(j));
  }
  return out;
}

/// The CSV layouts (csv, helios, pai).
TraceRead read_csv_trace(const std::string& path, TraceFormat format, const std::string& tenant) {
  const CsvTable t = CsvTable::load(path);
  TraceRead out;
  switch (format) {
    case TraceFormat::csv: t.require_columns({"submit_s", "gpus", "duration_s"}); break;
    case TraceFormat::helios: t.require_columns({"submit_time", "gpu_num"}); break;
    case TraceFormat::pai: t.require_columns({"job_name", "inst_num", "start_time", "end_time", "plan_gpu"}); break;
    case TraceFormat::philly: break;
  }
  int n = 0;
  for (const auto& r : t.rows()) {
    TraceJob j;
    j.tenant = tenant;
    ++n;
    switch (format) {
      case TraceFormat::csv:
        j.submit_s = number(t, r, "submit_s");
        j.gpus = static_cast<int>(number(t, r, "gpus"));
        j.duration_s = number(t, r, "duration_s");
        j.name = t.cell(r, "name");
        if (!t.cell(r, "tenant").empty()) j.tenant = t.cell(r, "tenant");
        if (!t.cell(r, "priority").empty()) j.priority = static_cast<int>(number(t, r, "priority"));
        break;
      case TraceFormat::helios:
        j.submit_s = when(t, r, "submit_time");
        j.gpus = static_cast<int>(number(t, r, "gpu_num"));
        if (t.column("duration") && !t.cell(r, "duration").empty()) {
          j.duration_s = number(t, r, "duration");
        } else if (t.column("start_time") && t.column("end_time")) {
          j.duration_s = when(t, r, "end_time") - when(t, r, "start_time");
        } else {
          bad(t, r, "duration", "needs a duration column, or start_time and end_time");
        }
        j.name = t.cell(r, "job_id");
        break;
      case TraceFormat::pai: {
        // Cells may be empty for tasks that never ran: skipped.
        if (t.cell(r, "start_time").empty() || t.cell(r, "end_time").empty() || t.cell(r, "plan_gpu").empty()) {
          ++out.skipped;
          continue;
        }
        j.submit_s = number(t, r, "start_time");
        j.duration_s = number(t, r, "end_time") - j.submit_s;
        j.gpus = static_cast<int>(std::ceil(number(t, r, "inst_num") * number(t, r, "plan_gpu") / 100.0 - 1e-9));
        j.name = t.cell(r, "job_name") + (t.column("task_name") ? "/" + t.cell(r, "task_name") : "");
        break;
      }
      case TraceFormat::philly: break;
    }
    if (j.gpus <= 0 || j.duration_s <= 0) {
      ++out.skipped;
      continue;
    }
    if (j.name.empty()) j.name = "job" + std::to_string(n);
    out.jobs.push_back(std::move(j));
  }
  return out;
}

}  // namespace

TraceRead read_job_trace(const std::string& path, TraceFormat format, int limit, Time offset,
                         const std::string& tenant) {
  TraceRead out = format == TraceFormat::philly ? read_philly(path, tenant) : read_csv_trace(path, format, tenant);
  std::stable_sort(out.jobs.begin(), out.jobs.end(),
                   [](const TraceJob& a, const TraceJob& b) { return a.submit_s < b.submit_s; });
  if (limit > 0 && static_cast<int>(out.jobs.size()) > limit) out.jobs.resize(static_cast<std::size_t>(limit));
  if (!out.jobs.empty()) {
    const double first = out.jobs.front().submit_s;
    for (auto& j : out.jobs) j.submit_s = j.submit_s - first + offset.seconds();
  }
  return out;
}

}  // namespace cs
