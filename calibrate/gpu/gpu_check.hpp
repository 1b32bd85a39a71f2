// Every CUDA, cuBLAS, NCCL and NVML call of the calibrator goes through one of these checks; a failure
// throws GpuError naming the call and where it was made, and the calibrator stops with that message.
#pragma once

#include <cublasLt.h>
#include <cuda_runtime.h>
#include <nccl.h>

#include <stdexcept>
#include <string>

namespace cs::calib {

class GpuError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

[[noreturn]] inline void gpu_fail(const char* api, const std::string& what, const char* expr, const char* file,
                                  int line) {
  throw GpuError(std::string(api) + " error \"" + what + "\" in " + expr + " at " + file + ":" + std::to_string(line));
}

inline void check_cuda(cudaError_t e, const char* expr, const char* file, int line) {
  if (e != cudaSuccess) gpu_fail("CUDA", cudaGetErrorString(e), expr, file, line);
}
inline void check_cublas(cublasStatus_t s, const char* expr, const char* file, int line) {
  if (s != CUBLAS_STATUS_SUCCESS) gpu_fail("cuBLAS", std::to_string(static_cast<int>(s)), expr, file, line);
}
inline void check_nccl(ncclResult_t r, const char* expr, const char* file, int line) {
  if (r != ncclSuccess) gpu_fail("NCCL", ncclGetErrorString(r), expr, file, line);
}

}  // namespace cs::calib

#define CS_CUDA(expr) ::cs::calib::check_cuda((expr), #expr, __FILE__, __LINE__)
#define CS_CUBLAS(expr) ::cs::calib::check_cublas((expr), #expr, __FILE__, __LINE__)
#define CS_NCCL(expr) ::cs::calib::check_nccl((expr), #expr, __FILE__, __LINE__)
