#include "stack/l3_comm/fault_injection.h"

#include <algorithm>
#include <cstring>

#include "stack/l4_operator/reduce.h"

namespace hn::stack::comm::testing {

std::string_view to_string(Fault f) {
  switch (f) {
    case Fault::kNone:
      return "none";
    case Fault::kOffByOneChunk:
      return "off-by-one chunk";
    case Fault::kStaleBuffer:
      return "stale buffer";
    case Fault::kWrongReduceOp:
      return "wrong reduction op";
    case Fault::kDroppedSlice:
      return "dropped slice";
    case Fault::kZeroedOutput:
      return "zeroed output";
  }
  return "?";
}

void set_fault(Communicator& c, Fault f) {
  c.fault_ = static_cast<int>(f);
}

Fault active_fault(const Communicator& c) {
  return c.fault_paused_ ? Fault::kNone : static_cast<Fault>(c.fault_);
}

FaultPause::FaultPause(Communicator& c) : c_(c) {
  ++c_.fault_paused_;
}
FaultPause::~FaultPause() {
  --c_.fault_paused_;
}

namespace {

int last_receive(const Schedule& s) {
  for (int i = static_cast<int>(s.transfers.size()) - 1; i >= 0; --i)
    if (!s.transfers[i].send && s.transfers[i].bytes > 0) return i;
  return -1;
}

// The transfer's bytes go to `scratch` (plain copy) instead of its buffer.
void discard(Transfer& t, std::byte* scratch) {
  t.buf = scratch;
  t.reduce = false;
  t.finish_avg = false;
}

}  // namespace

op::ReduceOp reduce_op_under(Fault f, op::ReduceOp o) {
  if (f != Fault::kWrongReduceOp) return o;
  return o == op::ReduceOp::kMax ? op::ReduceOp::kMin : op::ReduceOp::kMax;
}

void run_with_fault(Fault f, Device& device, Schedule& s, std::chrono::milliseconds timeout,
                    const AbortState& abort, const ErrorContext& ctx,
                    std::vector<std::byte>& scratch) {
  std::size_t biggest = 0;
  for (const auto& t : s.transfers)
    if (!t.send) biggest = std::max(biggest, t.bytes);
  if (scratch.size() < biggest) scratch.resize(biggest);
  const int last = last_receive(s);
  switch (f) {
    case Fault::kNone:
      break;
    case Fault::kWrongReduceOp:
      s.op = reduce_op_under(f, s.op);
      break;
    case Fault::kStaleBuffer:
      for (auto& t : s.transfers)
        if (!t.send) discard(t, scratch.data());
      break;
    case Fault::kDroppedSlice:
      if (last >= 0) discard(s.transfers[last], scratch.data());
      break;
    case Fault::kOffByOneChunk:
      if (last >= 0) {
        const Transfer orig = s.transfers[last];
        discard(s.transfers[last], scratch.data());
        run_schedule(device, s, timeout, abort, ctx);
        const std::size_t esz = op::dtype_size(s.dtype);
        if (orig.bytes <= esz) return;  // one element: it only keeps its stale value
        const std::size_t n = orig.bytes / esz - 1;
        if (orig.reduce) {
          op::reduce_to(s.dtype, s.op, orig.buf + esz, orig.accum + esz, scratch.data(), n);
          if (orig.finish_avg) op::finalize_avg(s.dtype, orig.buf + esz, n, s.avg_divisor);
        } else {
          std::memmove(orig.buf + esz, scratch.data(), n * esz);
        }
        return;
      }
      break;
    case Fault::kZeroedOutput:
      run_schedule(device, s, timeout, abort, ctx);
      for (const auto& t : s.transfers)
        if (!t.send && t.bytes) std::memset(t.buf, 0, t.bytes);
      return;
  }
  run_schedule(device, s, timeout, abort, ctx);
}

}  // namespace hn::stack::comm::testing
