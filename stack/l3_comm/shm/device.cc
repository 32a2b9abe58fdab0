#include "stack/l3_comm/shm/device.h"

#include <fcntl.h>
#include <immintrin.h>
#include <linux/futex.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include <climits>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>
#include <vector>

#include "compat/input_error.h"
#include "stack/l3_comm/shm/pair.h"
#include "stack/l3_comm/socket.h"
#include "stack/l3_comm/spin_policy.h"

namespace hn::stack::comm::shm {

namespace {

struct Mapping {
  void* addr = MAP_FAILED;
  std::size_t bytes = 0;
  ~Mapping() {
    if (addr != MAP_FAILED) munmap(addr, bytes);
  }
};

std::string read_line(const char* path) {
  std::ifstream f(path);
  std::string s;
  std::getline(f, s);
  return s;
}

class ShmDevice : public Device {
 public:
  ShmDevice(int rank, int world, std::size_t capacity)
      : rank_(rank), world_(world), cap_(capacity), maps_(world) {
    // bench/README.md "Tuning": 200 us hard spin when bound (2 ms lost to a
    // busy loop sharing the CPU: the spin spent the rank's slice and the
    // sleep that follows came too late), yield-spin otherwise; and a short
    // slice, so that the message that wakes a sleeping rank also gets it
    // its CPU back from whatever else runs there.
    policy_ = choose_spin_policy(world, std::chrono::microseconds(200),
                                 std::chrono::microseconds(200), std::chrono::microseconds(50));
    request_short_slice(std::chrono::microseconds(300));
    pairs_.resize(world);
  }
  const char* name() const override { return "shm"; }
  Pair& pair(int peer) override { return *pairs_.at(peer); }

  void create_own(ErrorContext ctx) {
    std::size_t bytes = segment_bytes(world_, cap_);
    fd_.reset(static_cast<int>(syscall(SYS_memfd_create, "hnprecheck-shm", MFD_CLOEXEC)));
    if (!fd_ || ftruncate(fd_.get(), static_cast<off_t>(bytes)) != 0)
      throw LinkError(LinkError::Kind::kOther, std::string("memfd segment: ") + strerror(errno),
                      ctx);
    map(rank_, fd_.get(), bytes, ctx);
    bell_ = doorbell_of(maps_[rank_].addr);
  }

  void map(int r, int fd, std::size_t bytes, const ErrorContext& ctx) {
    void* a = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (a == MAP_FAILED)
      throw LinkError(LinkError::Kind::kOther,
                      std::string("mmap of the shm segment: ") + strerror(errno), ctx);
    maps_[r].addr = a;
    maps_[r].bytes = bytes;
  }

  void connect(int peer, int pid, ErrorContext ctx) {
    pids_.resize(world_);
    pids_[peer] = pid;
    void* mine = maps_[rank_].addr;
    void* theirs = maps_[peer].addr;
    pairs_[peer] = std::make_unique<ShmPair>(
        peer, pid, ring_of(mine, world_, peer, cap_), bell_, ring_of(theirs, world_, rank_, cap_),
        doorbell_of(theirs), cap_, std::min(kPieceBytes, cap_ / 4), mail_of(mine, peer),
        mail_of(theirs, rank_));
    (void)ctx;
  }

  int own_fd() const { return fd_.get(); }

  bool ready(std::span<Pair* const> senders, std::span<Pair* const> receivers) const {
    if (aborted_.load(std::memory_order_acquire)) return true;
    for (Pair* p : senders)
      if (static_cast<ShmPair*>(p)->can_send()) return true;
    for (Pair* p : receivers)
      if (static_cast<ShmPair*>(p)->can_recv()) return true;
    return false;
  }

  // The common case (the peer is a few hundred ns behind on another core)
  // never reads the clock; oversubscribed ranks skip this and yield.
  bool spin(std::span<Pair* const> senders, std::span<Pair* const> receivers) override {
    for (int i = 0; i < policy_.pauses; ++i) {
      if (ready(senders, receivers)) return true;
      _mm_pause();
    }
    return false;
  }

  void wait(std::span<Pair* const> senders, std::span<Pair* const> receivers,
            Clock::time_point deadline) override {
    auto ready = [&] { return this->ready(senders, receivers); };
    const auto spin_until = Clock::now() + policy_.spin;
    for (unsigned i = 0;; ++i) {
      if (ready()) return;
      if (policy_.yield) {
        // Hand the core to a rank that shares it: a yield is a direct
        // switch, a futex wake-up is a trip through the scheduler.
        sched_yield();
        if (Clock::now() >= spin_until) break;
        continue;
      }
      if ((i & 63) == 63 && Clock::now() >= spin_until) break;
      _mm_pause();
    }
    bell_->sleepers.fetch_add(1, std::memory_order_seq_cst);
    std::uint32_t seq = bell_->bell.load(std::memory_order_seq_cst);
    if (!ready()) {
      int ms = ms_left(deadline);
      ms = std::min(ms, 200);  // re-check the deadline and the abort flag regularly
      timespec ts{ms / 1000, (ms % 1000) * 1000000L};
      syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(&bell_->bell), FUTEX_WAIT, seq, &ts,
              nullptr, 0);
    }
    bell_->sleepers.fetch_sub(1, std::memory_order_seq_cst);
  }

  int single_copy_pid(int peer) const override {
    return cma_ && peer >= 0 && peer < world_ ? pids_.at(peer) : -1;
  }
  void set_single_copy(bool on) { cma_ = on; }

  // Whether process_vm_readv reaches `pid`: 8 bytes from its own mapping of
  // its segment (published at `addr` in its address space).
  static bool can_read(int pid, std::uintptr_t addr) {
    std::uint64_t v = 0;
    iovec local{&v, sizeof v}, remote{reinterpret_cast<void*>(addr), sizeof v};
    return process_vm_readv(pid, &local, 1, &remote, 1, 0) == static_cast<ssize_t>(sizeof v);
  }
  std::uintptr_t own_addr() const { return reinterpret_cast<std::uintptr_t>(maps_[rank_].addr); }

  void begin_schedule() override {
    for (auto& p : pairs_)
      if (p) p->realign();
  }

  void interrupt() override {
    aborted_.store(true, std::memory_order_release);
    if (bell_) ring_bell(bell_);
  }

 private:
  int rank_, world_;
  std::size_t cap_;
  std::vector<Mapping> maps_;
  std::vector<std::unique_ptr<ShmPair>> pairs_;
  std::vector<int> pids_;
  Fd fd_;
  Doorbell* bell_ = nullptr;
  SpinPolicy policy_;
  bool cma_ = false;
  std::atomic<bool> aborted_{false};
};

}  // namespace

std::string same_host_key() {
  struct stat st {};
  std::string pidns = stat("/proc/self/ns/pid", &st) == 0 ? std::to_string(st.st_ino) : "?";
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  return read_line("/proc/sys/kernel/random/boot_id") + "/" + pidns + "/" + host;
}

std::unique_ptr<Device> create_device(const DeviceSetup& s) {
  // Every rank of the host computes the same default (same CPU count).
  const bool oversubscribed = s.world > sysconf(_SC_NPROCESSORS_ONLN);
  std::size_t cap = s.shm_ring_bytes ? s.shm_ring_bytes
                    : oversubscribed ? kOversubscribedRingBytes
                                     : kDefaultRingBytes;
  if (cap & (cap - 1))
    throw LinkError(LinkError::Kind::kOther, "shm ring size must be a power of two", {});
  auto dev = std::make_unique<ShmDevice>(s.rank, s.world, cap);
  ErrorContext ctx;
  ctx.local_rank = s.rank;
  ctx.plane = "shm";
  ctx.operation = "shm link setup";
  bool cma_ok = true;
  dev->create_own(ctx);
  // Single copy needs ptrace-level access to the peers; under Yama's
  // ptrace_scope 1 only a process's declared tracers have it, so every rank
  // declares any process of its user one (as Open MPI's vader does).
  // HN_SHM_SINGLE_COPY=0 keeps it off (no prctl, the copies through shared
  // memory only).
  const char* sc = std::getenv("HN_SHM_SINGLE_COPY");
  if (sc && std::string(sc) != "0" && std::string(sc) != "1")
    throw compat::InputError(
        "environment", 0, 0, "HN_SHM_SINGLE_COPY",
        std::string("expected 0 (off) or 1 (on, the default), got '") + sc + "'");
  const bool want_cma = !(sc && std::string(sc) == "0");
  if (want_cma) prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0);
  s.store->set("seg/" + std::to_string(s.rank), std::to_string(getpid()) + " " +
                                                    std::to_string(dev->own_fd()) + " " +
                                                    std::to_string(dev->own_addr()));
  for (int peer = 0; peer < s.world; ++peer) {
    if (peer == s.rank) continue;
    ErrorContext c = ctx;
    c.peer_rank = peer;
    std::istringstream in(s.store->get("seg/" + std::to_string(peer), s.timeout));
    int pid = -1, fd = -1;
    std::uintptr_t addr = 0;
    in >> pid >> fd >> addr;
    c.peer_address = "shm pid " + std::to_string(pid);
    std::string path = "/proc/" + std::to_string(pid) + "/fd/" + std::to_string(fd);
    Fd peer_fd(open(path.c_str(), O_RDWR | O_CLOEXEC));
    if (!peer_fd)
      throw LinkError(LinkError::Kind::kOther,
                      "cannot open rank " + std::to_string(peer) + "'s segment " + path + ": " +
                          strerror(errno) +
                          " (different user or pid namespace? use --transport tcp)",
                      c);
    dev->map(peer, peer_fd.get(), segment_bytes(s.world, cap), c);
    dev->connect(peer, pid, c);
    cma_ok = cma_ok && want_cma && addr && ShmDevice::can_read(pid, addr);
  }
  // Nobody may leave (and unmap/close) before everyone has mapped. Each
  // rank also says whether it reached every peer with a single copy: the
  // device offers it only if all did, so every rank takes the same path.
  s.store->set("mapped/" + std::to_string(s.rank), cma_ok ? "cma" : "copy");
  std::vector<std::string> keys;
  for (int r = 0; r < s.world; ++r) keys.push_back("mapped/" + std::to_string(r));
  s.store->wait(keys, s.timeout);
  for (const auto& k : keys) cma_ok = cma_ok && s.store->get(k, s.timeout) == "cma";
  dev->set_single_copy(cma_ok);
  return dev;
}

}  // namespace hn::stack::comm::shm
