#include "calibrate/gpu/nvml_sampler.hpp"

#include <algorithm>
#include <cstdio>
#include <ostream>

#include "calibrate/gpu/gpu_check.hpp"

namespace cs::calib {

NvmlSampler::NvmlSampler(const Nvml& nvml, std::chrono::milliseconds period) : nvml_(nvml), period_(period) {
  if (!nvml_.available()) return;
  readings_.reserve(1 << 17);
  thread_ = std::thread([this] {
    try {
      while (!stop_.load()) {
        NvmlReading r;
        r.at = std::chrono::steady_clock::now();
        r.sm_mhz = nvml_.current_clock_mhz(false);
        r.watts = nvml_.instant_power_watts();
        r.temp_c = nvml_.temperature_c();
        r.reasons = nvml_.clock_event_reasons();
        {
          const std::lock_guard<std::mutex> lock(mu_);
          readings_.push_back(r);
        }
        std::this_thread::sleep_for(period_);
      }
    } catch (const std::exception& e) {
      const std::lock_guard<std::mutex> lock(mu_);
      error_ = e.what();
    }
  });
}

NvmlSampler::~NvmlSampler() {
  stop_ = true;
  if (thread_.joinable()) thread_.join();
}

void NvmlSampler::check() const {
  const std::lock_guard<std::mutex> lock(mu_);
  if (!error_.empty()) throw GpuError("NVML sampler: " + error_);
}

NvmlWindow NvmlSampler::window(std::chrono::steady_clock::time_point from,
                               std::chrono::steady_clock::time_point to) const {
  NvmlWindow w;
  const std::lock_guard<std::mutex> lock(mu_);
  if (readings_.empty()) return w;
  const auto by_time = [](const NvmlReading& r, std::chrono::steady_clock::time_point t) { return r.at < t; };
  const auto lo = std::lower_bound(readings_.begin(), readings_.end(), from, by_time);
  const auto hi = std::lower_bound(lo, readings_.end(), to, by_time);
  std::vector<double> mhz, watts;
  for (auto it = lo; it != hi; ++it) {
    mhz.push_back(it->sm_mhz);
    watts.push_back(it->watts);
    w.temp_c = std::max(w.temp_c, it->temp_c);
    w.reasons |= it->reasons;
  }
  w.readings = static_cast<int>(mhz.size());
  if (mhz.empty()) {  // a window shorter than the period: the reading just after it (or the last one)
    const NvmlReading& r = lo == readings_.end() ? readings_.back() : *lo;
    w.sm_mhz = r.sm_mhz;
    w.watts = r.watts;
    w.temp_c = r.temp_c;
    w.reasons = r.reasons;
    return w;
  }
  const auto median = [](std::vector<double>& v) {
    std::sort(v.begin(), v.end());
    const std::size_t n = v.size();
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
  };
  w.sm_mhz = median(mhz);
  w.watts = median(watts);
  return w;
}

void NvmlSampler::write_trace(std::ostream& out, std::chrono::steady_clock::time_point origin, double every) const {
  const std::lock_guard<std::mutex> lock(mu_);
  out << "t_s,sm_mhz,watts,temp_c,reasons\n";
  double next = -1e9;
  for (const NvmlReading& r : readings_) {
    const double t = std::chrono::duration<double>(r.at - origin).count();
    if (t < next) continue;
    next = t + every;
    char line[96];
    std::snprintf(line, sizeof line, "%.3f,%.0f,%.1f,%.0f,0x%llx\n", t, r.sm_mhz, r.watts, r.temp_c, r.reasons);
    out << line;
  }
}

}  // namespace cs::calib
