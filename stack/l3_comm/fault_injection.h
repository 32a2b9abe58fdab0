#pragma once
// Test-only faults in the collectives' data path. They exist to prove that a
// verifier (the bench's #wrong) catches a broken collective: each one breaks
// every later collective of one communicator in a deterministic way that
// keeps the byte streams consistent, so the collective completes (no hang)
// and delivers wrong data.
//
// Nothing in the product can turn one on: there is no option and no
// environment variable, only set_fault() from C++, and
// tests/stack/l3_comm/fault_injection_test.cc fails if any source outside
// tests/ calls it. When no fault is set the cost is one branch per collective
// call, outside the progress engine's loop (Communicator::run).
//
// A fault rewrites the collective's schedule before it runs, or its output
// after; receives it "discards" land in a scratch buffer instead of their
// destination, so a send that forwards that destination forwards stale bytes.

#include <string_view>

#include "stack/l3_comm/communicator.h"

namespace hn::stack::comm::testing {

enum class Fault : int {
  kNone = 0,
  // The schedule's last receive lands one element late: element k at k+1;
  // its first element keeps what the buffer held, its last is lost.
  kOffByOneChunk,
  // Every receive is discarded: the output keeps the previous call's content.
  kStaleBuffer,
  // Reductions use max instead of the requested op (min when it is max).
  kWrongReduceOp,
  // The schedule's last receive is discarded.
  kDroppedSlice,
  // Every receive's destination is zeroed once the collective is done.
  kZeroedOutput,
};

inline constexpr Fault kAllFaults[] = {Fault::kOffByOneChunk, Fault::kStaleBuffer,
                                       Fault::kWrongReduceOp, Fault::kDroppedSlice,
                                       Fault::kZeroedOutput};
std::string_view to_string(Fault f);

// Arms f on every later collective of c (kNone disarms). Test code only.
void set_fault(Communicator& c, Fault f);

// The fault c's next collective runs with (kNone while paused): for data
// paths that move bytes without a schedule (direct_allreduce.cc).
Fault active_fault(const Communicator& c);

// The reduction a data path applies under fault f: kWrongReduceOp turns
// every op into max (max into min), so the result is wrong for any input
// the bench uses; other faults leave it.
op::ReduceOp reduce_op_under(Fault f, op::ReduceOp o);

// While one exists, c's collectives run without the fault: a verifier's own
// bookkeeping (barriers, the sum of wrong elements over ranks) must not be
// corrupted by the fault it is looking for. Free when no fault is set.
class FaultPause {
 public:
  explicit FaultPause(Communicator& c);
  ~FaultPause();
  FaultPause(const FaultPause&) = delete;
  FaultPause& operator=(const FaultPause&) = delete;

 private:
  Communicator& c_;
};

// Communicator::run's faulty path: runs s with fault f.
void run_with_fault(Fault f, Device& device, Schedule& s, std::chrono::milliseconds timeout,
                    const AbortState& abort, const ErrorContext& ctx,
                    std::vector<std::byte>& scratch);

}  // namespace hn::stack::comm::testing
