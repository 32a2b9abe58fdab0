#pragma once
// The four jitter workloads of io_workload.h, one function per workload and
// thread. Internal to stack/l7_physical: io_workload.cc runs them on its
// threads, merges what they measured and owns the contract.

#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>

#include "stack/l7_physical/io_workload.h"

namespace hn::stack::physical::detail {

using Clock = std::chrono::steady_clock;

// What one thread of one workload measured.
struct ThreadOut {
  LatencyHistogram latency;
  std::uint64_t ops = 0, written = 0, read = 0;
  bool direct = false, by_bytes = false;
  double write_seconds = 0, read_seconds = 0;
};

// One workload's bounds, shared by its threads.
struct Phase {
  const WorkloadConfig& cfg;
  std::string dir;
  Clock::time_point deadline;
  std::uint64_t bytes_per_thread;
  std::atomic<bool>& stop;

  bool running() const { return !stop.load(std::memory_order_relaxed) && Clock::now() < deadline; }
  std::string file(const char* what, int t) const {
    return dir + "/" + what + "-" + std::to_string(t);
  }
};

// Each throws IoError on the first failing call; `t` is the thread index.
void sync_write(const Phase& ph, int t, ThreadOut& out);
void random_read(const Phase& ph, int t, ThreadOut& out);
void metadata(const Phase& ph, int t, ThreadOut& out);
void checkpoint(const Phase& ph, int t, ThreadOut& out, Clock::time_point write_deadline);

}  // namespace hn::stack::physical::detail
