#include "sim/report/trace_writer.hpp"

#include <map>
#include <nlohmann/json.hpp>

namespace cs {

std::string TraceWriter::to_json() const {
  using J = nlohmann::ordered_json;
  J events = J::array();
  std::map<std::pair<int, std::string>, int> tids;
  std::map<int, int> stage_of_pid;
  for (const Span& s : spans_) {
    stage_of_pid[s.gpu] = s.stage;
    const auto key = std::make_pair(s.gpu, s.stream);
    if (!tids.count(key)) tids.emplace(key, static_cast<int>(tids.size()) + 1);
  }
  for (const auto& [pid, stage] : stage_of_pid) {
    events.push_back({{"name", "process_name"}, {"ph", "M"}, {"pid", pid},
                      {"args", {{"name", "GPU " + std::to_string(pid) + " (pipeline stage " + std::to_string(stage) +
                                             ", representative of its TP/CP/DP peers)"}}}});
    events.push_back({{"name", "process_sort_index"}, {"ph", "M"}, {"pid", pid}, {"args", {{"sort_index", stage}}}});
  }
  for (const auto& [key, tid] : tids) {
    events.push_back({{"name", "thread_name"}, {"ph", "M"}, {"pid", key.first}, {"tid", tid},
                      {"args", {{"name", key.second}}}});
  }
  for (const Span& s : spans_) {
    events.push_back({{"name", s.name},
                      {"cat", s.stream},
                      {"ph", "X"},
                      {"pid", s.gpu},
                      {"tid", tids.at({s.gpu, s.stream})},
                      {"ts", static_cast<double>(s.start.count_ns()) / 1000.0},
                      {"dur", static_cast<double>((s.end - s.start).count_ns()) / 1000.0}});
  }
  J doc;
  doc["displayTimeUnit"] = "ms";
  doc["traceEvents"] = std::move(events);
  return doc.dump() + "\n";
}

}  // namespace cs
