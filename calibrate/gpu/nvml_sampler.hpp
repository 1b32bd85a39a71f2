// A background thread that reads the SM clock, board power, temperature and clock-event reasons through NVML
// every few milliseconds, so every timed sample can carry the clock and power it ran at: the window's
// readings are summarised per sample (median clock and power, highest temperature, reasons OR'ed).
#pragma once

#include <atomic>
#include <chrono>
#include <iosfwd>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "calibrate/gpu/nvml_power.hpp"

namespace cs::calib {

struct NvmlReading {
  std::chrono::steady_clock::time_point at;
  double sm_mhz = 0, watts = 0, temp_c = 0;
  unsigned long long reasons = 0;
};

struct NvmlWindow {
  double sm_mhz = 0, watts = 0, temp_c = 0;  ///< median clock and power, highest temperature
  unsigned long long reasons = 0;            ///< OR over the window
  int readings = 0;                          ///< 0: the window was shorter than the period (nearest reading used)
};

class NvmlSampler {
 public:
  /// Starts polling `nvml` every `period`; does nothing when NVML is unavailable.
  NvmlSampler(const Nvml& nvml, std::chrono::milliseconds period);
  ~NvmlSampler();
  NvmlSampler(const NvmlSampler&) = delete;
  NvmlSampler& operator=(const NvmlSampler&) = delete;

  [[nodiscard]] bool active() const noexcept { return thread_.joinable(); }
  /// Summary of the readings taken in [from, to]; the nearest reading when none fell inside.
  [[nodiscard]] NvmlWindow window(std::chrono::steady_clock::time_point from,
                                  std::chrono::steady_clock::time_point to) const;
  /// The readings as CSV (seconds since `origin`, MHz, W, degC, reasons), one every `every` seconds.
  void write_trace(std::ostream& out, std::chrono::steady_clock::time_point origin, double every) const;
  /// Throws GpuError if the polling thread stopped on an NVML error.
  void check() const;

 private:
  const Nvml& nvml_;
  std::chrono::milliseconds period_;
  mutable std::mutex mu_;
  std::vector<NvmlReading> readings_;
  std::string error_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

}  // namespace cs::calib
