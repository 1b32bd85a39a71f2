#include "sim/sweep/mpi_session.hpp"

#include <algorithm>
#include <cstdlib>
#include <stdexcept>

#ifdef CS_HAVE_MPI
#include <mpi.h>
#endif

namespace cs {

int MpiSession::launcher_size() {
  for (const char* var : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE"}) {
    if (const char* v = std::getenv(var)) return std::max(1, std::atoi(v));
  }
  return 1;
}

bool MpiSession::available() noexcept {
#ifdef CS_HAVE_MPI
  return true;
#else
  return false;
#endif
}

MpiSession::MpiSession() {
  if (launcher_size() <= 1) return;
#ifdef CS_HAVE_MPI
  int provided = 0;
  MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided);
  initialised_ = true;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
#else
  throw std::runtime_error("started by mpirun with " + std::to_string(launcher_size()) +
                           " ranks, but this clustersim was built without MPI (install libopenmpi-dev and rebuild)");
#endif
}

MpiSession::~MpiSession() {
#ifdef CS_HAVE_MPI
  if (initialised_) MPI_Finalize();
#endif
}

void MpiSession::barrier() const {
#ifdef CS_HAVE_MPI
  if (initialised_) MPI_Barrier(MPI_COMM_WORLD);
#endif
}

bool MpiSession::all(bool ok) const {
#ifdef CS_HAVE_MPI
  if (initialised_) {
    int mine = ok ? 1 : 0, every = 0;
    MPI_Allreduce(&mine, &every, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    return every != 0;
  }
#endif
  return ok;
}

}  // namespace cs
