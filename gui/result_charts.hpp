// Builds the Qt Charts of a run and its baseline from their RunResult / JSON. Each function returns a new
// chart the caller owns (a QChartView takes it); `runs` lists the bars, baseline first.
#pragma once

#include <QString>

#include <vector>

#include "gui/run_record.hpp"

class QAbstractAxis;
class QChart;
class QColor;
class QLineSeries;

namespace cs::gui {

struct ChartRun {
  QString label;  ///< "baseline", "current"
  const RunRecord* run = nullptr;
};

/// Adds `line` to `chart` on axes `x` and `y`, 2 px in `color`; a baseline's line is dashed and left out of the
/// legend (the current run's line of the same name stands for both).
void add_run_line(QChart* chart, QLineSeries* line, const QColor& color, bool baseline, QAbstractAxis* x,
                  QAbstractAxis* y);

/// Where the critical stage's step goes: compute, memory-bound kernels, exposed TP/CP/EP/DP communication,
/// pipeline bubble and waits, optimizer, exposed parameter gathers (seconds); where a run's busiest stage is
/// another one, idle for a tenth of the step less, a second bar for it ("stage 15 (busiest)", with the run's label where there are several).
[[nodiscard]] QChart* breakdown_chart(const std::vector<ChartRun>& runs);
/// Memory of the most loaded GPU by kind (GB), the GPU's capacity and 90% of it.
[[nodiscard]] QChart* memory_chart(const std::vector<ChartRun>& runs);
/// Average power by part (GPUs, rest of the servers, switches, transceivers, other) and the PUE's share, adding
/// up to the power at the meter (kW).
[[nodiscard]] QChart* power_chart(const std::vector<ChartRun>& runs);
/// The yearly cost by line of the TCO ($M/yr).
[[nodiscard]] QChart* cost_chart(const std::vector<ChartRun>& runs);
/// Owning (F + E_idle + u (E_busy - E_idle)) against renting (u x GPU-hours x rate) over utilisation u, with the
/// break-even points, from the same TCO terms the model uses ($M/yr).
[[nodiscard]] QChart* rent_chart(const std::vector<ChartRun>& runs);

}  // namespace cs::gui
