#include "sim/facility/facility_config.hpp"


namespace cs {
namespace {

// Failure rates of the Llama 3 405B pre-training run (Dubey et al. 2024, Table 5): 16,384 H100 GPUs in 2,048
// nodes over a 54-day snapshot = 1,296 h, that is 21,233,664 GPU-hours and 2,654,208 node-hours.
constexpr double kLlamaGpuHours = 16384.0 * 1296.0;
constexpr double kLlamaNodeHours = 2048.0 * 1296.0;
// GPU: faulty GPU 148 + HBM3 72 + SRAM 19 + GPU system processor 17 + thermal 6 + silent data corruption 6.
constexpr double kLlamaGpuFailures = 268.0;
// Host: unplanned host maintenance 32 + SSD 3 + PSU 3 + chassis 2 + IO board 2 + CPU 2 + DRAM 2.
constexpr double kLlamaNodeFailures = 46.0;
// Network switch and cable 35 + NIC 7, spread over one 400G NIC link per GPU.
constexpr double kLlamaLinkFailures = 42.0;
// Software bug 54 + NCCL watchdog timeout 7.
constexpr double kLlamaSoftwareFailures = 61.0;

Time hours(double h) { return Time::from_seconds(h * 3600.0); }

}  // namespace

std::string_view to_string(Cooling c) noexcept { return c == Cooling::air ? "air" : "liquid"; }
std::string_view to_string(Site s) noexcept { return s == Site::colocation ? "colocation" : "build"; }

ReliabilityConfig::ReliabilityConfig()
    : gpu_mtbf(hours(kLlamaGpuHours / kLlamaGpuFailures)),
      node_mtbf(hours(kLlamaNodeHours / kLlamaNodeFailures)),
      link_mtbf(hours(kLlamaGpuHours / kLlamaLinkFailures)),
      software_mtbf(hours(kLlamaNodeHours / kLlamaSoftwareFailures)) {}

}  // namespace cs
