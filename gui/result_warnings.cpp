#include "gui/result_warnings.hpp"

namespace cs::gui {

const QStringList& ResultWarnings::of(WarningTopic t) const {
  switch (t) {
    case WarningTopic::memory: return memory;
    case WarningTopic::power: return power;
    case WarningTopic::compute: return compute;
    case WarningTopic::cost: return cost;
    case WarningTopic::general: return general;
  }
  return general;
}

int ResultWarnings::count() const {
  return static_cast<int>(memory.size() + power.size() + compute.size() + cost.size() + general.size());
}

ResultWarnings sort_warnings(const RunRecord& r) {
  ResultWarnings w;
  for (const std::string& s : r.result.warnings) {
    const QString text = QString::fromStdString(s);
    if (text.contains("memory", Qt::CaseInsensitive)) w.memory << text;
    else if (text.startsWith("compute costs come from")) w.compute << text;
    else if (text.startsWith("no power or cost report")) w.cost << text;
    else w.general << text;
  }
  if (r.result.tco) {
    const auto& power = r.result.tco->power.warnings;
    for (const std::string& s : r.result.tco->warnings) {
      const bool is_power = std::find(power.begin(), power.end(), s) != power.end();
      (is_power ? w.power : w.cost) << QString::fromStdString(s);
    }
  }
  return w;
}

}  // namespace cs::gui
