// What a communication kernel running beside a GEMM costs the GEMM: an overlapped collective (Transformer Engine
// userbuffers, NCCL on a side stream) stays resident on some SMs and moves data through HBM while the GEMM runs.
// Measured on the H200 at its 700 W limit (calibrate/studies/overlap_contention.py, profiles/h200-calibration/
// run11-overlap-contention): back-to-back 8192^3 bf16 GEMMs beside a copy kernel of 8, 16, 32 and 66 CTAs of 512
// threads took 9.8%, 24.4%, 37.6% and 50.6% longer (the wall time, the clock's response to the lower power
// included); a kernel that holds the SMs without memory traffic cost -0.7%, 15.1%, 29.8% and 36.3%. The copy is
// the stand-in for a collective, which reads and writes HBM at NVLink rate.
#pragma once

namespace cs {

/// The fraction by which a GEMM slows while a communication kernel holds `sms` of the GPU's `sm_count` SMs:
/// piecewise linear in sms / sm_count through the H200 measurements above (0 at 0; beyond the largest
/// measured share, the last point's slope continues).
[[nodiscard]] double overlap_gemm_slowdown(int sms, int sm_count) noexcept;

}  // namespace cs
