// Sorts a run's warnings by where they belong in the window: memory (the memory chart and row), power and racks
// (the power chart), compute provenance (beside the step time), cost (the cost charts), or general.
#pragma once

#include <QStringList>

#include "gui/run_record.hpp"

namespace cs::gui {

enum class WarningTopic { memory, power, compute, cost, general };

struct ResultWarnings {
  QStringList memory, power, compute, cost, general;
  [[nodiscard]] const QStringList& of(WarningTopic t) const;
  [[nodiscard]] int count() const;
};

/// Every warning of the run (result warnings, then the power and cost report's), each under its topic.
[[nodiscard]] ResultWarnings sort_warnings(const RunRecord& r);

}  // namespace cs::gui
