// Calibration hooks of the collective models: per algorithm and link class, a bandwidth-efficiency factor and
// latencies, which may depend on the message size. Calibration is data: the defaults below come from NCCL's own
// tuning model (constants in NCCL's src/graph/tuning.cc, Simple protocol), and a measured table replaces them
// when given (a CSV exported from the calibration database; see docs/network.md). The result always says which.
#pragma once

#include <array>
#include <string>
#include <vector>

#include "sim/collectives/collective.hpp"
#include "sim/core/units.hpp"

namespace cs {

/// Which links a collective's steps cross: NVLink (one node, NVSwitch), PCIe (one node, no NVLink) or the
/// scale-out network (more than one node).
enum class LinkClass { nvlink, pcie, network };
[[nodiscard]] std::string_view to_string(LinkClass c) noexcept;

/// Applies to messages of at least `min_bytes` (until the next point of the same algorithm and link class).
struct CalibrationPoint {
  Bytes min_bytes;
  double bandwidth_efficiency = 1.0;  ///< achieved / modelled bandwidth, in (0, 1]
  Time base_latency;                  ///< once per collective (kernel launch, setup)
  Time step_latency;                  ///< per algorithm step, on top of the path latency of the links
};

class CollectiveCalibration {
 public:
  /// NCCL's tuning constants (see calibration.cpp for each number and its source).
  [[nodiscard]] static CollectiveCalibration datasheet_defaults();
  /// Efficiency 1, no latency beyond the links': the pure alpha-beta model (for tests and bounds).
  [[nodiscard]] static CollectiveCalibration ideal();
  /// Reads "algorithm,link_class,min_bytes,bandwidth_efficiency,base_latency,step_latency" rows (header
  /// first; units in the cells, e.g. "1MiB", "8.4us"), replacing the defaults of every (algorithm, link class)
  /// the file mentions. Throws InputError with the line.
  [[nodiscard]] static CollectiveCalibration load_csv(const std::string& path);

  /// Replaces the points of (algorithm, link class) by `points` (sorted by min_bytes here).
  void set(CollectiveAlgorithm a, LinkClass c, std::vector<CalibrationPoint> points);
  [[nodiscard]] const CalibrationPoint& lookup(CollectiveAlgorithm a, LinkClass c, Bytes size) const;
  /// "datasheet defaults (NCCL tuning model)", "calibration file <path>", "ideal (no calibration)".
  [[nodiscard]] const std::string& source() const noexcept { return source_; }

 private:
  static constexpr std::size_t kAlgorithms = 7, kClasses = 3;
  std::array<std::array<std::vector<CalibrationPoint>, kClasses>, kAlgorithms> table_{};
  std::string source_;
};

}  // namespace cs
