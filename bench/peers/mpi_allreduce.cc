// Open MPI peer: MPI_Allreduce (float, sum), out of place, same sweep.
#include <mpi.h>

#include "sweep.h"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  Sweep s = parse_sweep(argc, argv);
  int rank, n;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  for (size_t bytes : sizes(s)) {
    size_t count = bytes / sizeof(float);
    std::vector<float> in(count), out(count);
    for (size_t i = 0; i < count; ++i) in[i] = input_value(rank, i);
    for (int i = 0; i < s.warmup; ++i)
      MPI_Allreduce(in.data(), out.data(), (int)count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int i = 0; i < s.iters; ++i)
      MPI_Allreduce(in.data(), out.data(), (int)count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    double us = (MPI_Wtime() - t0) * 1e6 / s.iters, worst = 0;
    MPI_Reduce(&us, &worst, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    long long wrong = 0, total = 0;
    for (size_t i = 0; i < count; ++i) wrong += out[i] != expected_sum(n, i);
    MPI_Reduce(&wrong, &total, 1, MPI_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
      std::printf("%zu %.3f %.4f %lld\n", count * sizeof(float), worst,
                  worst > 0 ? count * sizeof(float) / (worst * 1e3) * 2.0 * (n - 1) / n : 0.0,
                  total);
    std::fflush(stdout);
  }
  MPI_Finalize();
  return 0;
}
