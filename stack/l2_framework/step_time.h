#pragma once
// Where a training step's time went, by layer of the stack: compute in L4
// kernels, each kind of collective in L3 (per process group, with the bytes
// this rank sent), the optimizer and the rest of L2 (scheduling, copies,
// routing), and I/O. The rows are what the model phase prints as its
// step-time table and writes as model.step_time figures.
//
// A StepTimer is owned by one rank's training loop (one thread). Scope
// objects add their wall time to a row when they end; rows keep their first
// insertion order. "L2 other" is never timed directly: it is the step's
// wall time minus every timed row, so the rows always add up to the step.

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

namespace hn::stack::framework {

struct TimeRow {
  std::string layer;  // "L4", "L3", "L2", "I/O"
  std::string what;   // "compute", "allreduce dp", "send/recv pp", "optimizer", "other"
  double ms = 0;
  std::uint64_t bytes = 0;  // L3: bytes this rank sent; I/O: bytes written or read
  std::uint64_t calls = 0;
};

struct StepTime {
  double total_ms = 0;
  std::vector<TimeRow> rows;  // timed rows, then "L2 other"
  const TimeRow* find(const std::string& layer, const std::string& what) const;
};

class StepTimer {
 public:
  using Clock = std::chrono::steady_clock;

  void begin_step();
  // Closes the step: adds the "L2 other" row and returns the step's rows.
  StepTime end_step();

  // Adds to a row directly (a caller that timed something itself).
  void add(const std::string& layer, const std::string& what, double ms, std::uint64_t bytes = 0);

  class Scope {
   public:
    Scope(StepTimer* t, std::string layer, std::string what, std::uint64_t bytes)
        : t_(t),
          layer_(std::move(layer)),
          what_(std::move(what)),
          bytes_(bytes),
          start_(Clock::now()) {}
    ~Scope() {
      if (t_)
        t_->add(layer_, what_,
                std::chrono::duration<double, std::milli>(Clock::now() - start_).count(), bytes_);
    }
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;

   private:
    StepTimer* t_;
    std::string layer_, what_;
    std::uint64_t bytes_;
    Clock::time_point start_;
  };
  // A null timer times nothing (the single-rank reference run).
  static Scope time(StepTimer* t, std::string layer, std::string what, std::uint64_t bytes = 0) {
    return Scope(t, std::move(layer), std::move(what), bytes);
  }

 private:
  Clock::time_point start_{};
  std::vector<TimeRow> rows_;
};

// Rows of several steps summed row by row (same order as first seen), and
// total_ms summed: divide by the step count for a mean.
StepTime sum_steps(const std::vector<StepTime>& steps);

}  // namespace hn::stack::framework
