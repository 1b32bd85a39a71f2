// MPI for `mpirun -np N clustersim sweep ...`: initialised only when this process was started by an MPI
// launcher (Open MPI's OMPI_COMM_WORLD_SIZE, or PMI_SIZE / PMIX_RANK), so a plain run never touches MPI.
// Owns MPI_Init/MPI_Finalize for its lifetime; not a singleton: the sweep command makes one.
#pragma once

#include <string>

namespace cs {

class MpiSession {
 public:
  MpiSession();
  ~MpiSession();
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;

  /// True when started by an MPI launcher with more than one rank.
  [[nodiscard]] bool active() const noexcept { return size_ > 1; }
  [[nodiscard]] int rank() const noexcept { return rank_; }
  [[nodiscard]] int size() const noexcept { return size_; }
  /// Waits for every rank (no-op when not active).
  void barrier() const;
  /// True on every rank when `ok` is true on every rank (no-op when not active).
  [[nodiscard]] bool all(bool ok) const;

  /// Whether this build has MPI.
  [[nodiscard]] static bool available() noexcept;
  /// The launcher's world size from the environment (1 when not launched by one).
  [[nodiscard]] static int launcher_size();

 private:
  int rank_ = 0;
  int size_ = 1;
  bool initialised_ = false;
};

}  // namespace cs
