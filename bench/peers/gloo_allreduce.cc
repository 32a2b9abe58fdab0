// Gloo peer: a float sum allreduce over Gloo's TCP transport (the only one
// Debian's Gloo has besides ibverbs: on one host it runs over loopback),
// FileStore rendezvous, one launch per plan (sweep.h).
//   gloo_allreduce PLAN STORE_DIR HOST_IP ALGO MODE [fresh]
// ALGO: what PyTorch's ProcessGroupGloo calls, gloo::allreduce with
//   `allreduce_ring` (its default) or `allreduce_bcube`; or Gloo's older
//   algorithm classes, which run in place on the buffer: `ring`,
//   `ring_chunked`, `halving_doubling`, `bcube`.
// MODE: `async`: the transport's event-loop thread reads the sockets and wakes
//   the caller through a condition variable (what gloo::allreduce always
//   does: its unbound buffers only work this way); `busypoll`: every pair in
//   sync mode, the caller reading its sockets itself with MSG_DONTWAIT in a
//   loop (the older classes only).
// fresh: as `hnprecheck bench --fresh-inputs`: before every call each rank
//   writes its whole input anew (for the in-place classes: the buffer they
//   reduce, as a framework writes a gradient), the ranks meet, only the call
//   is timed, the ranks meet again, and the whole output is checked.
// Rank and size come from GLOO_RANK/GLOO_SIZE or Open MPI's variables.
#include <gloo/allreduce.h>
#include <gloo/allreduce_bcube.h>
#include <gloo/allreduce_halving_doubling.h>
#include <gloo/allreduce_ring.h>
#include <gloo/allreduce_ring_chunked.h>
#include <gloo/math.h>
#include <gloo/rendezvous/context.h>
#include <gloo/rendezvous/file_store.h>
#include <gloo/rendezvous/prefix_store.h>
#include <gloo/transport/tcp/device.h>

#include <chrono>
#include <cstring>
#include <memory>

#include "sweep.h"

namespace {

int env_int(const char* a, const char* b) {
  const char* v = std::getenv(a);
  if (!v) v = std::getenv(b);
  if (!v) {
    std::fprintf(stderr, "gloo_allreduce: set %s or %s\n", a, b);
    std::exit(2);
  }
  return std::atoi(v);
}

using Ctx = std::shared_ptr<gloo::rendezvous::Context>;

// One allreduce of `count` floats, out of place (new API) or in place on
// `out` after copying `in` there once (older classes, see below).
class Runner {
 public:
  Runner(Ctx ctx, const std::string& algo, float* in, float* out, size_t count)
      : ctx_(std::move(ctx)), algo_(algo), in_(in), out_(out), count_(count) {
    std::vector<float*> ptrs{out_};
    const int c = static_cast<int>(count_);
    if (algo == "ring")
      old_ = std::make_unique<gloo::AllreduceRing<float>>(ctx_, ptrs, c);
    else if (algo == "ring_chunked")
      old_ = std::make_unique<gloo::AllreduceRingChunked<float>>(ctx_, ptrs, c);
    else if (algo == "halving_doubling")
      old_ = std::make_unique<gloo::AllreduceHalvingDoubling<float>>(ctx_, ptrs, c);
    else if (algo == "bcube")
      old_ = std::make_unique<gloo::AllreduceBcube<float>>(ctx_, ptrs, c);
    else if (algo != "allreduce_ring" && algo != "allreduce_bcube") {
      std::fprintf(stderr, "gloo_allreduce: unknown algorithm '%s'\n", algo.c_str());
      std::exit(2);
    }
  }

  // The older classes reduce in place: every call works on what the last
  // one left (values grow, which costs nothing in float adds); the check
  // call starts from the inputs again.
  void reset() {
    if (old_) std::memcpy(out_, in_, count_ * sizeof(float));
  }

  // Call `call`'s inputs (sweep.h), where this algorithm reads them.
  void fill(int rank, int call) { fill_inputs(old_ ? out_ : in_, count_, rank, call); }

  void run() {
    if (old_) {
      old_->run();
      return;
    }
    gloo::AllreduceOptions o(ctx_);
    o.setInput(in_, count_);
    o.setOutput(out_, count_);
    o.setAlgorithm(algo_ == "allreduce_bcube" ? gloo::AllreduceOptions::Algorithm::BCUBE
                                              : gloo::AllreduceOptions::Algorithm::RING);
    o.setReduceFunction(
        static_cast<void (*)(void*, const void*, const void*, size_t)>(&gloo::sum<float>));
    gloo::allreduce(o);
  }

 private:
  Ctx ctx_;
  std::string algo_;
  float *in_, *out_;
  size_t count_;
  std::unique_ptr<gloo::Algorithm> old_;
};

double max_over_ranks(const Ctx& ctx, double v) {
  double out = v;
  gloo::AllreduceOptions o(ctx);
  o.setInput(&v, 1);
  o.setOutput(&out, 1);
  o.setReduceFunction(
      static_cast<void (*)(void*, const void*, const void*, size_t)>(&gloo::max<double>));
  gloo::allreduce(o);
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 6 || (argc > 6 && std::strcmp(argv[6], "fresh") != 0)) {
    std::fprintf(stderr, "usage: gloo_allreduce PLAN STORE_DIR HOST_IP ALGO MODE [fresh]\n");
    return 2;
  }
  const bool fresh = argc > 6;
  const auto plan = parse_plan(argv[1]);
  const std::string algo = argv[4], mode = argv[5];
  if (mode != "async" && mode != "busypoll") {
    std::fprintf(stderr, "gloo_allreduce: unknown mode '%s' (async or busypoll)\n", mode.c_str());
    return 2;
  }
  if (mode == "busypoll" && (algo == "allreduce_ring" || algo == "allreduce_bcube")) {
    std::fprintf(stderr, "gloo_allreduce: gloo::allreduce only runs in async mode\n");
    return 2;
  }
  const int rank = env_int("GLOO_RANK", "OMPI_COMM_WORLD_RANK"),
            n = env_int("GLOO_SIZE", "OMPI_COMM_WORLD_SIZE");
  gloo::transport::tcp::attr attr;
  attr.hostname = argv[3];
  auto dev = gloo::transport::tcp::CreateDevice(attr);
  gloo::rendezvous::FileStore file_store(argv[2]);
  gloo::rendezvous::PrefixStore store("bench", file_store);
  auto ctx = std::make_shared<gloo::rendezvous::Context>(rank, n);
  ctx->setTimeout(std::chrono::seconds(120));
  ctx->connectFullMesh(store, dev);
  // Separate contexts: the bookkeeping allreduce (unbound buffers) needs the
  // event loop, busy-polled pairs leave it.
  auto work = ctx;
  if (mode == "busypoll") {
    gloo::rendezvous::PrefixStore store2("bench-busypoll", file_store);
    work = std::make_shared<gloo::rendezvous::Context>(rank, n);
    work->setTimeout(std::chrono::seconds(120));
    work->connectFullMesh(store2, dev);
    for (int i = 0; i < n; ++i)
      if (i != rank) work->getPair(i)->setSync(true, true);
  }
  for (const SweepStep& s : plan) {
    size_t count = s.bytes / sizeof(float);
    Floats in = page_floats(count), out = page_floats(count);
    for (size_t i = 0; i < count; ++i) in[i] = input_value(rank, i);
    Runner runner(work, algo, in.get(), out.get(), count);
    if (fresh) {
      double timed = 0;
      long long wrong = 0;
      for (int call = 0; call < s.warmup + s.iters; ++call) {
        runner.fill(rank, call);
        max_over_ranks(ctx, 0);  // a barrier
        auto t0 = std::chrono::steady_clock::now();
        runner.run();
        if (call >= s.warmup)
          timed += std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0)
                       .count();
        max_over_ranks(ctx, 0);  // and again, before the check and the next fill
        wrong += count_wrong(out.get(), count, n, call);
      }
      double worst = max_over_ranks(ctx, timed / s.iters);
      double total = max_over_ranks(ctx, static_cast<double>(wrong));
      if (rank == 0) print_row(count * sizeof(float), worst, n, static_cast<long long>(total));
      continue;
    }
    runner.reset();
    for (int i = 0; i < s.warmup; ++i) runner.run();
    max_over_ranks(ctx, 0);  // a barrier
    auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < s.iters; ++i) runner.run();
    double us =
        std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count() /
        s.iters;
    double worst = max_over_ranks(ctx, us);
    runner.reset();
    runner.run();
    long long wrong = 0;
    for (size_t i = 0; i < count; ++i) wrong += out[i] != expected_sum(n, i);
    double total = max_over_ranks(ctx, static_cast<double>(wrong));  // any rank's count
    if (rank == 0) print_row(count * sizeof(float), worst, n, static_cast<long long>(total));
  }
  return 0;
}
