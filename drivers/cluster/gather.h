#pragma once
// Rank 0 collecting one value per rank through the store with bounded
// fan-in: at most `fan_in` keys are waited on at a time, and each value is
// handed to `take` as soon as it is read, so rank 0 holds one window of raw
// payloads and never n of them (the caller parses and drops each). A rank
// that stalls occupies one slot of the window while the others flow past it.
//
// Contract: returns by `deadline` (plus one non-blocking read of each rank
// not read by then), with the
// ranks whose value never arrived, in rank order. A rank for which `lost(r)`
// turns true (the watch reported it dead) stops being waited for. Store
// failures (rank 0's store gone) propagate as comm::CommError; an exception
// from `take` propagates too.

#include <chrono>
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "stack/l3_comm/socket.h"
#include "stack/l3_comm/store.h"

namespace hn::drivers::cluster {

struct GatherOptions {
  std::size_t fan_in = 64;
  // How long one blocking wait lasts before the window is polled again.
  std::chrono::milliseconds slice{200};
};

std::vector<int> gather(stack::comm::Store& store, const std::string& prefix,
                        const std::vector<int>& ranks, stack::comm::Deadline deadline,
                        const std::function<bool(int)>& lost,
                        const std::function<void(int, std::string&&)>& take,
                        const GatherOptions& options = {});

// The key gather() reads for rank r: "<prefix>/<r>".
std::string gather_key(const std::string& prefix, int rank);

}  // namespace hn::drivers::cluster
