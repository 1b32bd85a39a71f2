#include "calibrate/gpu/nvml_power.hpp"

#include <dlfcn.h>

#include "calibrate/gpu/gpu_check.hpp"

namespace cs::calib {
namespace {
// The few NVML entry points used, declared from the NVML API reference (nvml.h is not installed here).
using NvmlReturn = int;  // NVML_SUCCESS == 0
using Device = void*;
constexpr int kClockSm = 1, kClockMem = 2;  // nvmlClockType_t: NVML_CLOCK_SM, NVML_CLOCK_MEM
constexpr unsigned kFieldPowerInstant = 186;  // NVML_FI_DEV_POWER_INSTANT (milliwatts, unsigned int)

// nvmlFieldValue_t as the NVML API reference declares it (40 bytes: the value is an 8-byte union).
struct FieldValue {
  unsigned field_id = 0;
  unsigned scope_id = 0;
  long long timestamp = 0;
  long long latency_us = 0;
  int value_type = 0;
  NvmlReturn status = 0;
  union {
    double d;
    unsigned ui;
    unsigned long long ull;
  } value{};
};
static_assert(sizeof(FieldValue) == 40, "nvmlFieldValue_t layout");
}  // namespace

struct Nvml::Api {
  NvmlReturn (*init)() = nullptr;
  NvmlReturn (*shutdown)() = nullptr;
  const char* (*error_string)(NvmlReturn) = nullptr;
  NvmlReturn (*by_pci)(const char*, Device*) = nullptr;
  NvmlReturn (*power)(Device, unsigned*) = nullptr;
  NvmlReturn (*driver)(char*, unsigned) = nullptr;
  NvmlReturn (*max_clock)(Device, int, unsigned*) = nullptr;
  NvmlReturn (*clock)(Device, int, unsigned*) = nullptr;
  NvmlReturn (*temperature)(Device, int, unsigned*) = nullptr;
  NvmlReturn (*reasons)(Device, unsigned long long*) = nullptr;
  NvmlReturn (*limit)(Device, unsigned*) = nullptr;
  NvmlReturn (*fields)(Device, int, FieldValue*) = nullptr;

  void check(NvmlReturn r, const char* what) const {
    if (r != 0) throw GpuError(std::string("NVML error \"") + error_string(r) + "\" in " + what);
  }
};

namespace {
template <class F>
bool load(void* lib, const char* name, F& fn) {
  fn = reinterpret_cast<F>(dlsym(lib, name));
  return fn != nullptr;
}
}  // namespace

Nvml::Nvml(const std::string& pci_bus_id) : api_(std::make_unique<Api>()) {
  lib_ = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (lib_ == nullptr) {
    why_ = std::string("libnvidia-ml.so.1 not loadable: ") + dlerror();
    return;
  }
  Api& a = *api_;
  if (!load(lib_, "nvmlInit_v2", a.init) || !load(lib_, "nvmlShutdown", a.shutdown) ||
      !load(lib_, "nvmlErrorString", a.error_string) || !load(lib_, "nvmlDeviceGetHandleByPciBusId_v2", a.by_pci) ||
      !load(lib_, "nvmlDeviceGetPowerUsage", a.power) || !load(lib_, "nvmlSystemGetDriverVersion", a.driver) ||
      !load(lib_, "nvmlDeviceGetMaxClockInfo", a.max_clock) || !load(lib_, "nvmlDeviceGetClockInfo", a.clock)) {
    why_ = "libnvidia-ml.so.1 lacks an expected entry point";
    return;
  }
  // Optional entry points: recorded where the driver has them.
  load(lib_, "nvmlDeviceGetTemperature", a.temperature);
  if (!load(lib_, "nvmlDeviceGetCurrentClocksEventReasons", a.reasons)) {
    load(lib_, "nvmlDeviceGetCurrentClocksThrottleReasons", a.reasons);
  }
  load(lib_, "nvmlDeviceGetEnforcedPowerLimit", a.limit);
  load(lib_, "nvmlDeviceGetFieldValues", a.fields);
  if (const NvmlReturn r = a.init(); r != 0) {
    why_ = std::string("nvmlInit_v2 failed: ") + a.error_string(r);
    return;
  }
  Device d = nullptr;
  if (const NvmlReturn r = a.by_pci(pci_bus_id.c_str(), &d); r != 0) {
    why_ = "nvmlDeviceGetHandleByPciBusId_v2(" + pci_bus_id + ") failed: " + a.error_string(r);
    a.shutdown();
    return;
  }
  device_ = d;
  if (a.fields != nullptr) {
    FieldValue f;
    f.field_id = kFieldPowerInstant;
    instant_ok_ = a.fields(d, 1, &f) == 0 && f.status == 0 && f.value.ui > 0;
  }
}

Nvml::~Nvml() {
  if (device_ != nullptr) api_->shutdown();
  if (lib_ != nullptr) dlclose(lib_);
}

std::string Nvml::driver_version() const {
  char buf[96] = {};
  api_->check(api_->driver(buf, sizeof buf), "nvmlSystemGetDriverVersion");
  return buf;
}

unsigned Nvml::max_clock_mhz(bool memory) const {
  unsigned v = 0;
  api_->check(api_->max_clock(device_, memory ? kClockMem : kClockSm, &v), "nvmlDeviceGetMaxClockInfo");
  return v;
}

unsigned Nvml::current_clock_mhz(bool memory) const {
  unsigned v = 0;
  api_->check(api_->clock(device_, memory ? kClockMem : kClockSm, &v), "nvmlDeviceGetClockInfo");
  return v;
}

double Nvml::power_watts() const {
  unsigned mw = 0;
  api_->check(api_->power(device_, &mw), "nvmlDeviceGetPowerUsage");
  return static_cast<double>(mw) * 1e-3;
}

}  // namespace cs::calib

namespace cs::calib {

double Nvml::instant_power_watts() const {
  if (!instant_ok_) return power_watts();
  FieldValue f;
  f.field_id = kFieldPowerInstant;
  api_->check(api_->fields(device_, 1, &f), "nvmlDeviceGetFieldValues");
  api_->check(f.status, "nvmlDeviceGetFieldValues(NVML_FI_DEV_POWER_INSTANT)");
  return static_cast<double>(f.value.ui) * 1e-3;
}

double Nvml::temperature_c() const {
  if (api_->temperature == nullptr) return 0.0;
  unsigned t = 0;
  api_->check(api_->temperature(device_, 0, &t), "nvmlDeviceGetTemperature");  // NVML_TEMPERATURE_GPU
  return t;
}

unsigned long long Nvml::clock_event_reasons() const {
  if (api_->reasons == nullptr) return 0;
  unsigned long long r = 0;
  api_->check(api_->reasons(device_, &r), "nvmlDeviceGetCurrentClocksEventReasons");
  return r;
}

double Nvml::enforced_power_limit_watts() const {
  if (api_->limit == nullptr) return 0.0;
  unsigned mw = 0;
  api_->check(api_->limit(device_, &mw), "nvmlDeviceGetEnforcedPowerLimit");
  return static_cast<double>(mw) * 1e-3;
}

}  // namespace cs::calib
