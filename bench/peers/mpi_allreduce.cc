// Open MPI peer: MPI_Allreduce (float, sum), out of place, one launch per
// plan (sweep.h). Its settings (algorithm, single-copy mechanism, malloc
// tunables) come from the environment bench/compare.sh sets.
//   mpi_allreduce PLAN [fresh]
// fresh: as `hnprecheck bench --fresh-inputs`: before every call each rank
// writes its whole input anew (unique per call), the ranks meet in a
// barrier, only the call is timed, the ranks meet again (a rank done first
// must not check and refill on a CPU a peer still needs for its timed call),
// and the whole output is read and checked.
#include <mpi.h>

#include "sweep.h"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  if (argc < 2 || (argc > 2 && std::strcmp(argv[2], "fresh") != 0)) {
    std::fprintf(stderr, "usage: mpi_allreduce PLAN [fresh]\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const bool fresh = argc > 2;
  int rank, n;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  for (const SweepStep& s : parse_plan(argv[1])) {
    size_t count = s.bytes / sizeof(float);
    Floats in = page_floats(count), out = page_floats(count);
    if (fresh) {
      double timed = 0;
      long long wrong = 0, total = 0;
      for (int call = 0; call < s.warmup + s.iters; ++call) {
        fill_inputs(in.get(), count, rank, call);
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        MPI_Allreduce(in.get(), out.get(), (int)count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
        if (call >= s.warmup) timed += MPI_Wtime() - t0;
        MPI_Barrier(MPI_COMM_WORLD);
        wrong += count_wrong(out.get(), count, n, call);
      }
      double us = timed * 1e6 / s.iters, worst = 0;
      MPI_Reduce(&us, &worst, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
      MPI_Reduce(&wrong, &total, 1, MPI_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
      if (rank == 0) print_row(count * sizeof(float), worst, n, total);
      continue;
    }
    for (size_t i = 0; i < count; ++i) in[i] = input_value(rank, i);
    for (int i = 0; i < s.warmup; ++i)
      MPI_Allreduce(in.get(), out.get(), (int)count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int i = 0; i < s.iters; ++i)
      MPI_Allreduce(in.get(), out.get(), (int)count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    double us = (MPI_Wtime() - t0) * 1e6 / s.iters, worst = 0;
    MPI_Reduce(&us, &worst, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    long long wrong = 0, total = 0;
    for (size_t i = 0; i < count; ++i) wrong += out[i] != expected_sum(n, i);
    MPI_Reduce(&wrong, &total, 1, MPI_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) print_row(count * sizeof(float), worst, n, total);
  }
  MPI_Finalize();
  return 0;
}
