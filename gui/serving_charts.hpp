// The charts of an inference service's run (a scenario with serving:): the latency distributions.
#pragma once

#include <vector>

#include "gui/result_charts.hpp"

class QChart;

namespace cs::gui {

/// The distribution of time to first token, time per output token and end-to-end latency over the finished
/// requests (ServingResult's cdf_s, 41 quantiles each), the share of requests against latency in ms on an axis
/// chosen from the data (log where it spans decades), with the SLO's targets in the title; the baseline's lines
/// dashed. A run that is not a service is left out (the title says so when none is).
[[nodiscard]] QChart* latency_cdf_chart(const std::vector<ChartRun>& runs);

}  // namespace cs::gui
