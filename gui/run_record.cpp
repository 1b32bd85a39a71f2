#include "gui/run_record.hpp"

#include <cmath>

namespace cs::gui {

QString RunRecord::label() const {
  return QStringLiteral("#%1 %2 (%3 GPUs)").arg(id).arg(QString::fromStdString(scenario.name)).arg(result.gpus);
}

double RunRecord::number(const char* json_pointer) const {
  const nlohmann::ordered_json::json_pointer ptr(json_pointer);
  if (!json.contains(ptr)) return std::nan("");
  const auto& v = json.at(ptr);
  return v.is_number() ? v.get<double>() : std::nan("");
}

}  // namespace cs::gui
