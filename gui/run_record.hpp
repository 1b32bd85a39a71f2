// One finished run of the session: the scenario text that ran, what the library made of it, and its result
// (the RunResult, its JSON as `clustersim run --json` writes it, and the spans of the replayed step).
#pragma once

#include <QDateTime>
#include <QString>

#include <memory>
#include <string>
#include <vector>

#include "sim/api/clustersim.hpp"

namespace cs::gui {

struct RunRecord {
  int id = 0;                      ///< 1, 2, ... in the session
  QDateTime finished;
  std::string yaml;                ///< the document as it ran
  std::string file;                ///< the document's file; empty when never saved
  Scenario scenario;
  RunResult result;
  nlohmann::ordered_json json;     ///< cs::to_json(scenario, result)
  std::vector<Span> spans;         ///< every span of the step, as the Perfetto trace writer receives them
  double wall_seconds = 0;         ///< how long the simulation took

  /// "#3 GPT-3 175B ... (512 GPUs)".
  [[nodiscard]] QString label() const;
  /// A number of the JSON result at a JSON pointer ("/tco/run_cost_usd"); NaN when absent or null.
  [[nodiscard]] double number(const char* json_pointer) const;
};

using RunRecordPtr = std::shared_ptr<const RunRecord>;

}  // namespace cs::gui
