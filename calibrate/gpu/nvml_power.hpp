// NVML through dlopen("libnvidia-ml.so.1"): the build machine has no NVML stub, and a GPU machine without it
// still calibrates (power samples are then skipped, and the samples file says why). Every NVML call's
// status is checked; a failed call after a successful start throws GpuError.
#pragma once

#include <memory>
#include <string>

namespace cs::calib {

class Nvml {
 public:
  /// Loads NVML and finds the device with PCI bus id `pci_bus_id`; `available()` is false when it cannot.
  explicit Nvml(const std::string& pci_bus_id);
  ~Nvml();
  Nvml(const Nvml&) = delete;
  Nvml& operator=(const Nvml&) = delete;

  [[nodiscard]] bool available() const noexcept { return device_ != nullptr; }
  [[nodiscard]] const std::string& why_unavailable() const noexcept { return why_; }
  [[nodiscard]] std::string driver_version() const;
  [[nodiscard]] unsigned max_clock_mhz(bool memory) const;
  [[nodiscard]] unsigned current_clock_mhz(bool memory) const;
  /// Board power in watts (NVML averages it over about a second on recent GPUs).
  [[nodiscard]] double power_watts() const;

 private:
  struct Api;
  std::unique_ptr<Api> api_;
  void* lib_ = nullptr;
  void* device_ = nullptr;
  std::string why_;
};

}  // namespace cs::calib
