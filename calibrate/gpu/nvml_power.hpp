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
  /// Instantaneous board power (NVML field 186, NVML_FI_DEV_POWER_INSTANT); the 1 s average where the driver
  /// lacks the field.
  [[nodiscard]] double instant_power_watts() const;
  [[nodiscard]] bool has_instant_power() const noexcept { return instant_ok_; }
  /// GPU die temperature in degrees Celsius.
  [[nodiscard]] double temperature_c() const;
  /// Why the clocks are below their maximum now (NVML clock-event reasons bitmask; 0x4: software power cap,
  /// 0x20/0x40: thermal slowdown, 0x80: power brake); 0 where the driver does not say.
  [[nodiscard]] unsigned long long clock_event_reasons() const;
  /// The board power limit the driver enforces (read only: the calibrator never changes it).
  [[nodiscard]] double enforced_power_limit_watts() const;

 private:
  struct Api;
  std::unique_ptr<Api> api_;
  void* lib_ = nullptr;
  void* device_ = nullptr;
  bool instant_ok_ = false;
  std::string why_;
};

}  // namespace cs::calib
