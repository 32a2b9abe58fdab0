// Gloo peer: gloo::allreduce (ring, float sum) over Gloo's TCP transport,
// FileStore rendezvous. Rank and size come from GLOO_RANK/GLOO_SIZE or from
// Open MPI's variables (mpirun used as a plain launcher).
//   gloo_allreduce MIN MAX FACTOR ITERS WARMUP STORE_DIR HOST_IP
#include <gloo/allreduce.h>
#include <gloo/math.h>
#include <gloo/rendezvous/context.h>
#include <gloo/rendezvous/file_store.h>
#include <gloo/rendezvous/prefix_store.h>
#include <gloo/transport/tcp/device.h>

#include <chrono>
#include <memory>

#include "sweep.h"

static int env_int(const char* a, const char* b) {
  const char* v = std::getenv(a);
  if (!v) v = std::getenv(b);
  if (!v) {
    std::fprintf(stderr, "gloo_allreduce: set %s or %s\n", a, b);
    std::exit(2);
  }
  return std::atoi(v);
}

int main(int argc, char** argv) {
  Sweep s = parse_sweep(argc, argv);
  if (argc < 8) {
    std::fprintf(stderr, "gloo_allreduce: needs STORE_DIR HOST_IP\n");
    return 2;
  }
  const int rank = env_int("GLOO_RANK", "OMPI_COMM_WORLD_RANK"),
            n = env_int("GLOO_SIZE", "OMPI_COMM_WORLD_SIZE");
  gloo::transport::tcp::attr attr;
  attr.hostname = argv[7];
  auto dev = gloo::transport::tcp::CreateDevice(attr);
  gloo::rendezvous::FileStore file_store(argv[6]);
  gloo::rendezvous::PrefixStore store("bench", file_store);
  auto ctx = std::make_shared<gloo::rendezvous::Context>(rank, n);
  ctx->setTimeout(std::chrono::seconds(120));
  ctx->connectFullMesh(store, dev);
  for (size_t bytes : sizes(s)) {
    size_t count = bytes / sizeof(float);
    std::vector<float> in(count), out(count);
    for (size_t i = 0; i < count; ++i) in[i] = input_value(rank, i);
    auto once = [&] {
      gloo::AllreduceOptions o(ctx);
      o.setInput(in.data(), count);
      o.setOutput(out.data(), count);
      o.setReduceFunction(
          static_cast<void (*)(void*, const void*, const void*, size_t)>(&gloo::sum<float>));
      gloo::allreduce(o);
    };
    for (int i = 0; i < s.warmup; ++i) once();
    auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < s.iters; ++i) once();
    double us =
        std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count() /
        s.iters;
    double worst = us;
    {
      gloo::AllreduceOptions o(ctx);
      o.setInput(&us, 1);
      o.setOutput(&worst, 1);
      o.setReduceFunction(
          static_cast<void (*)(void*, const void*, const void*, size_t)>(&gloo::max<double>));
      gloo::allreduce(o);
    }
    long long wrong = 0;
    for (size_t i = 0; i < count; ++i) wrong += out[i] != expected_sum(n, i);
    if (rank == 0)
      std::printf("%zu %.3f %.4f %lld\n", count * sizeof(float), worst,
                  worst > 0 ? count * sizeof(float) / (worst * 1e3) * 2.0 * (n - 1) / n : 0.0,
                  wrong);
    std::fflush(stdout);
  }
  return 0;
}
