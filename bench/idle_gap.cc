// What the work between two calls does to the next call: two processes,
// pinned one per CPU, run our single-copy allreduce's data movement (each
// reads its half of the peer's input into an L2-sized scratch with
// process_vm_readv, reduces it with its own, writes the result into the
// peer's output with process_vm_writev and into its own) on freshly written
// inputs, with a gap of G ms before every call: computing (no memory
// traffic) or asleep. The gap is what a bench harness spends writing and
// checking a call's buffers; on this VM a long gap halves the next call's
// speed, so harnesses compared side by side must spend about the same.
//   idle_gap [BYTES] [CALLS] [compute|sleep] [GAPS_MS...]
// BYTES 262144 to 1 GiB, CALLS 1 to 100000, a gap 0 to 10000 ms.
// Defaults: 16 MiB, 50 timed calls (plus 5 untimed), compute, gaps 0 2 5 10
// 20 50 100. Prints a table (gap, us per call, busbw = bytes / time for 2
// ranks) and, last, one JSON line with the rows. Every call's output is
// checked (exit 1 if any element is wrong; HN_IDLE_GAP_FAULT=1, for tests,
// makes rank 1 skip its last write into the peer's output, which the check
// must count); bad arguments: a message and exit 2; a refused cross-process
// copy (Yama ptrace_scope 2-3, seccomp) or a rank that is gone (a waiting
// rank looks every few ms; HN_IDLE_GAP_FAULT=2 makes rank 1 exit at once):
// a message and exit 3. A rank whose peer is gone never waits for it.
#include <sched.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/uio.h>
#include <sys/wait.h>

#include <csignal>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

namespace {

using Clock = std::chrono::steady_clock;
constexpr std::size_t kPiece = 128u << 10;  // as stack/l3_comm/cma_allreduce.cc
// Each rank holds its input and output: 2 x 1 GiB at most.
constexpr std::size_t kMaxBytes = std::size_t{1} << 30;
constexpr std::size_t kSeqPeriod = 4000000;

// What the two processes share: where each one's buffers are, a sense-free
// barrier (a counter both add to), and the elements each found wrong.
struct Shared {
  std::atomic<long> arrived{0};
  pid_t pid[2];
  std::uintptr_t in[2], out[2];
  std::atomic<long> wrong{0};
};

// Waits for the peer; `peer_gone` says whether it has exited (it is asked
// every 4096 spins: a rank that died mid-run must not leave us waiting).
template <typename PeerGone>
void barrier(Shared& s, long& generation, PeerGone peer_gone) {
  generation += 2;
  s.arrived.fetch_add(1);
  for (unsigned i = 1; s.arrived.load() < generation; ++i) {
    // Gone, and had not arrived: a peer that arrived and then exited (after
    // the last barrier) is done, not lost.
    if (i % 4096 == 0 && peer_gone() && s.arrived.load() < generation) {
      std::fprintf(stderr, "idle_gap: the other rank exited mid-run\n");
      std::_Exit(3);
    }
    std::this_thread::yield();
  }
}

void copy_remote(pid_t pid, void* local, std::uintptr_t remote, std::size_t len, bool write) {
  iovec l{local, len}, r{reinterpret_cast<void*>(remote), len};
  const ssize_t got =
      write ? process_vm_writev(pid, &l, 1, &r, 1, 0) : process_vm_readv(pid, &l, 1, &r, 1, 0);
  if (got != static_cast<ssize_t>(len)) {
    std::fprintf(stderr, "idle_gap: %s pid %d: %s\n", write ? "writing to" : "reading from",
                 static_cast<int>(pid), std::strerror(got < 0 ? errno : EFAULT));
    std::_Exit(3);
  }
}

// G ms of work that touches no memory, or of sleep.
void gap(double ms, bool sleep) {
  if (ms <= 0) return;
  if (sleep) {
    std::this_thread::sleep_for(std::chrono::duration<double, std::milli>(ms));
    return;
  }
  volatile double x = 1;
  const auto until = Clock::now() + std::chrono::duration<double, std::milli>(ms);
  while (Clock::now() < until)
    for (int k = 0; k < 1000; ++k) x = x * 1.0000001 + 1e-9;
}

// One rank's run over every gap; returns us per call per gap (rank 0's).
template <typename PeerGone>
std::vector<double> run_rank(Shared& s, int r, std::size_t bytes, int calls, bool sleep,
                             const std::vector<double>& gaps, PeerGone peer_gone) {
  cpu_set_t cpus;
  CPU_ZERO(&cpus);
  CPU_SET(r % static_cast<int>(std::thread::hardware_concurrency()), &cpus);
  sched_setaffinity(0, sizeof cpus, &cpus);
  prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY);  // Yama ptrace_scope 1: the peer may copy
  const std::size_t count = bytes / sizeof(float), half = count / 2;
  std::vector<float> in(count), out(count), tmp(kPiece / sizeof(float));
  s.pid[r] = getpid();
  s.in[r] = reinterpret_cast<std::uintptr_t>(in.data());
  s.out[r] = reinterpret_cast<std::uintptr_t>(out.data());
  long generation = 0;
  barrier(s, generation, peer_gone);
  const int q = 1 - r;
  const std::size_t lo = r == 0 ? 0 : half, hi = r == 0 ? half : count;
  const char* fault_env = std::getenv("HN_IDLE_GAP_FAULT");
  const bool fault = r == 1 && fault_env && std::strcmp(fault_env, "1") == 0;
  std::vector<double> us;
  // Every call's inputs differ from those of the last 4 million calls (seq
  // runs across the gaps; the sums stay below 2^24, exact in float), so an
  // output left from an earlier call is wrong.
  std::size_t seq = 0;
  for (double g : gaps) {
    double timed = 0;
    for (int call = 0; call < calls + 5; ++call, ++seq) {
      gap(g, sleep);
      for (std::size_t i = 0; i < count; ++i)
        in[i] = static_cast<float>((i & 1023) + static_cast<std::size_t>(r) + seq % kSeqPeriod);
      barrier(s, generation, peer_gone);
      const auto t0 = Clock::now();
      for (std::size_t e = lo; e < hi; e += kPiece / sizeof(float)) {
        const std::size_t n = std::min(kPiece / sizeof(float), hi - e), b = n * sizeof(float);
        copy_remote(s.pid[q], tmp.data(), s.in[q] + e * sizeof(float), b, false);
        for (std::size_t i = 0; i < n; ++i) out[e + i] = in[e + i] + tmp[i];
        if (!(fault && e + n == hi))
          copy_remote(s.pid[q], &out[e], s.out[q] + e * sizeof(float), b, true);
      }
      barrier(s, generation, peer_gone);  // the peer's half is in our output
      if (call >= 5) timed += std::chrono::duration<double, std::micro>(Clock::now() - t0).count();
      long wrong = 0;
      for (std::size_t i = 0; i < count; ++i)
        wrong += out[i] != static_cast<float>(2 * (i & 1023) + 1 + 2 * (seq % kSeqPeriod));
      s.wrong.fetch_add(wrong);
    }
    us.push_back(timed / calls);
  }
  return us;
}

}  // namespace

int main(int argc, char** argv) {
  std::size_t bytes = std::size_t{16} << 20;
  int calls = 50;
  bool sleep = false;
  std::vector<double> gaps;
  // An integer in [lo, hi], digits only (strtoull alone takes "-5" as a
  // huge count and "2x" as 2).
  auto integer = [](const char* text, unsigned long long lo, unsigned long long hi,
                    unsigned long long& v) {
    char* end = nullptr;
    errno = 0;
    v = std::strtoull(text, &end, 10);
    return *text >= '0' && *text <= '9' && !*end && errno == 0 && v >= lo && v <= hi;
  };
  unsigned long long v = 0;
  if (argc > 1) {
    if (!integer(argv[1], 2 * kPiece, kMaxBytes, v)) {
      std::fprintf(stderr, "idle_gap: BYTES is an integer from %zu to %zu, not '%s'\n", 2 * kPiece,
                   kMaxBytes, argv[1]);
      return 2;
    }
    bytes = v;
  }
  if (argc > 2) {
    if (!integer(argv[2], 1, 100000, v)) {
      std::fprintf(stderr, "idle_gap: CALLS is an integer from 1 to 100000, not '%s'\n", argv[2]);
      return 2;
    }
    calls = static_cast<int>(v);
  }
  if (argc > 3) {
    if (std::strcmp(argv[3], "sleep") != 0 && std::strcmp(argv[3], "compute") != 0) {
      std::fprintf(stderr, "idle_gap: the gap is 'compute' or 'sleep', not '%s'\n", argv[3]);
      return 2;
    }
    sleep = std::strcmp(argv[3], "sleep") == 0;
  }
  for (int i = 4; i < argc; ++i) {
    char* end = nullptr;
    const double g = std::strtod(argv[i], &end);
    if (end == argv[i] || *end || !(g >= 0 && g <= 10000)) {  // NaN fails the range
      std::fprintf(stderr, "idle_gap: a gap is 0-10000 ms, not '%s'\n", argv[i]);
      return 2;
    }
    gaps.push_back(g);
  }
  if (gaps.empty()) gaps = {0, 2, 5, 10, 20, 50, 100};
  bytes = bytes / (2 * sizeof(float)) * 2 * sizeof(float);

  void* page =
      mmap(nullptr, sizeof(Shared), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (page == MAP_FAILED) {
    std::perror("idle_gap: mmap");
    return 3;
  }
  auto* s = new (page) Shared;
  const pid_t child = fork();
  if (child < 0) {
    std::perror("idle_gap: fork");
    return 3;
  }
  if (child == 0) {
    const pid_t parent = getppid();
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) std::_Exit(3);  // the parent went before the line above
    const char* f = std::getenv("HN_IDLE_GAP_FAULT");
    if (f && std::strcmp(f, "2") == 0) std::_Exit(0);
    run_rank(*s, 1, bytes, calls, sleep, gaps, [parent] { return getppid() != parent; });
    std::_Exit(0);
  }
  int status = 0;
  bool reaped = false;
  const std::vector<double> us = run_rank(*s, 0, bytes, calls, sleep, gaps, [&] {
    reaped = reaped || waitpid(child, &status, WNOHANG) == child;
    return reaped;
  });
  if (!reaped) waitpid(child, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return 3;

  std::printf("# idle_gap: %zu bytes, 2 ranks, %d calls per gap, gap = %s\n", bytes, calls,
              sleep ? "sleep" : "compute");
  std::printf("%10s %12s %12s\n", "gap_ms", "us/call", "busbw_GB/s");
  nlohmann::json rows = nlohmann::json::array();
  for (std::size_t i = 0; i < gaps.size(); ++i) {
    const double busbw = static_cast<double>(bytes) / (us[i] * 1e3);
    std::printf("%10.1f %12.1f %12.2f\n", gaps[i], us[i], busbw);
    rows.push_back({{"gap_ms", gaps[i]}, {"us", us[i]}, {"busbw_gbps", busbw}});
  }
  const long wrong = s->wrong.load();
  std::printf("%s\n", nlohmann::json{{"bytes", bytes},
                                     {"calls", calls},
                                     {"gap", sleep ? "sleep" : "compute"},
                                     {"wrong", wrong},
                                     {"rows", rows}}
                          .dump()
                          .c_str());
  if (wrong) std::fprintf(stderr, "idle_gap: %ld wrong elements\n", wrong);
  return wrong ? 1 : 0;
}
