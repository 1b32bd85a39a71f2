#include "sim/collectives/calibration.hpp"

#include <algorithm>
#include <fstream>
#include <map>
#include <stdexcept>
#include <sstream>

#include "sim/core/error.hpp"

namespace cs {

std::string_view to_string(LinkClass c) noexcept {
  switch (c) {
    case LinkClass::nvlink: return "nvlink";
    case LinkClass::pcie: return "pcie";
    case LinkClass::network: return "network";
  }
  return "?";
}

void CollectiveCalibration::set(CollectiveAlgorithm a, LinkClass c, std::vector<CalibrationPoint> points) {
  std::sort(points.begin(), points.end(),
            [](const CalibrationPoint& x, const CalibrationPoint& y) { return x.min_bytes < y.min_bytes; });
  table_[static_cast<std::size_t>(a)][static_cast<std::size_t>(c)] = std::move(points);
}

const CalibrationPoint& CollectiveCalibration::lookup(CollectiveAlgorithm a, LinkClass c, Bytes size) const {
  static const CalibrationPoint neutral{};
  const auto& points = table_[static_cast<std::size_t>(a)][static_cast<std::size_t>(c)];
  const CalibrationPoint* best = points.empty() ? &neutral : &points.front();
  for (const auto& p : points) {
    if (p.min_bytes <= size) best = &p;
  }
  return *best;
}

CollectiveCalibration CollectiveCalibration::ideal() {
  CollectiveCalibration c;
  c.source_ = "ideal (efficiency 1, link latencies only)";
  return c;
}

// NCCL's tuning model (src/graph/tuning.cc, NCCL 2.x; Simple protocol, the one used for large messages):
//   baseLat: Ring 8.4 us, Tree 0 (its chunk latency is in hwLat), CollNet 0.
//   hwLat per step: NVLink Ring 3.4, Tree 28; PCI Ring 5.7, Tree 28; NET Ring 9.6, Tree 50, CollNet 10.7 us.
//   Bandwidth: Tree busBw x 0.9; CollNet x 0.9; NVLS x nvlsEfficiency = 0.85 on Hopper (src/tuning/nvls.cc).
//   Tree size correction (treeCorrectionFactor, Simple): 0.9 up to 8 KiB, 0.8, 0.7, 0.6, 0.6, 0.5 ... 0.5 to 8 MiB,
//   0.6, 0.6, 0.7, 0.8, 0.9 to 128 MiB (one value per power of two of bytes/64).
// The link bandwidths themselves (NVLink 20.6 of 25 GB/s per link, NDR 64b/66b) live in the topology files.
// Halving-doubling and hierarchical are not NCCL algorithms: they take the ring's step latencies.
CollectiveCalibration CollectiveCalibration::datasheet_defaults() {
  CollectiveCalibration c;
  c.source_ = "datasheet defaults (NCCL 2.x tuning model constants, Simple protocol)";
  auto one = [](double eff, double base_us, double step_us) {
    return std::vector<CalibrationPoint>{{Bytes{0}, eff, Time::us(base_us), Time::us(step_us)}};
  };
  for (CollectiveAlgorithm a : {CollectiveAlgorithm::ring, CollectiveAlgorithm::halving_doubling,
                                CollectiveAlgorithm::hierarchical}) {
    c.set(a, LinkClass::nvlink, one(1.0, 8.4, 3.4));
    c.set(a, LinkClass::pcie, one(1.0, 8.4, 5.7));
    c.set(a, LinkClass::network, one(1.0, 8.4, 9.6));
  }
  const double tree_correction[] = {.9, .9, .9, .9, .9, .9, .9, .8, .7, .6, .6,
                                    .5, .5, .5, .5, .5, .5, .6, .6, .7, .8, .9};
  for (LinkClass lc : {LinkClass::nvlink, LinkClass::pcie, LinkClass::network}) {
    std::vector<CalibrationPoint> pts;
    const double step = lc == LinkClass::network ? 50.0 : 28.0;
    for (int i = 0; i < 22; ++i) {
      pts.push_back({Bytes{64.0 * static_cast<double>(1ULL << i)}, 0.9 * tree_correction[i], Time::zero(), Time::us(step)});
    }
    pts.push_back({Bytes{64.0 * static_cast<double>(1ULL << 22)}, 0.9, Time::zero(), Time::us(step)});
    pts.front().min_bytes = Bytes{0};
    c.set(CollectiveAlgorithm::tree, lc, std::move(pts));
  }
  c.set(CollectiveAlgorithm::nvls, LinkClass::nvlink, one(0.85, 0.0, 25.0));
  c.set(CollectiveAlgorithm::nvls, LinkClass::network, one(0.85, 0.0, 25.0));
  c.set(CollectiveAlgorithm::in_network, LinkClass::network, one(0.9, 0.0, 10.7));
  return c;
}

CollectiveCalibration CollectiveCalibration::load_csv(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw InputError({path, 0, 0}, "", "cannot read calibration file");
  CollectiveCalibration c = datasheet_defaults();
  c.source_ = "calibration file " + path;
  std::string line;
  int line_no = 0;
  std::map<std::pair<int, int>, std::vector<CalibrationPoint>> rows;
  while (std::getline(in, line)) {
    ++line_no;
    if (line.empty() || line[0] == '#') continue;
    if (line_no == 1 || line.rfind("algorithm,", 0) == 0) continue;  // header
    std::vector<std::string> cells;
    std::stringstream ss(line);
    for (std::string cell; std::getline(ss, cell, ',');) cells.push_back(cell);
    const SourceLocation where{path, line_no, 1};
    if (cells.size() != 6) throw InputError(where, "", "expected 6 cells, found " + std::to_string(cells.size()));
    const auto algo = parse_algorithm(cells[0]);
    if (!algo || *algo == CollectiveAlgorithm::automatic) throw InputError(where, "algorithm", "unknown \"" + cells[0] + "\"");
    int lc = -1;
    for (LinkClass k : {LinkClass::nvlink, LinkClass::pcie, LinkClass::network}) {
      if (cells[1] == to_string(k)) lc = static_cast<int>(k);
    }
    if (lc < 0) throw InputError(where, "link_class", "unknown \"" + cells[1] + "\" (nvlink, pcie or network)");
    try {
      CalibrationPoint p{parse_bytes(cells[2]), std::stod(cells[3]), parse_time(cells[4]), parse_time(cells[5])};
      if (!(p.bandwidth_efficiency > 0 && p.bandwidth_efficiency <= 1)) {
        throw InputError(where, "bandwidth_efficiency", "must be in (0, 1]");
      }
      rows[{static_cast<int>(*algo), lc}].push_back(p);
    } catch (const UnitError& e) {
      throw InputError(where, "", e.what());
    } catch (const std::invalid_argument&) {
      throw InputError(where, "bandwidth_efficiency", "not a number: " + cells[3]);
    }
  }
  for (auto& [key, pts] : rows) {
    c.set(static_cast<CollectiveAlgorithm>(key.first), static_cast<LinkClass>(key.second), std::move(pts));
  }
  return c;
}

}  // namespace cs
