#include "drivers/cluster/gather.h"

#include <algorithm>
#include <deque>

#include "stack/l3_comm/errors.h"

namespace hn::drivers::cluster {

namespace comm = stack::comm;
using std::chrono::milliseconds;

std::string gather_key(const std::string& prefix, int rank) {
  return prefix + "/" + std::to_string(rank);
}

std::vector<int> gather(comm::Store& store, const std::string& prefix,
                        const std::vector<int>& ranks, comm::Deadline deadline,
                        const std::function<bool(int)>& lost,
                        const std::function<void(int, std::string&&)>& take,
                        const GatherOptions& options) {
  std::deque<int> queue(ranks.begin(), ranks.end());
  std::vector<int> window, missing;
  const std::size_t fan_in = std::max<std::size_t>(1, options.fan_in);
  // Reads r's value if it is there within `wait`; false when it is not yet.
  auto try_take = [&](int r, milliseconds wait) {
    try {
      std::string v = store.get(gather_key(prefix, r), wait);
      take(r, std::move(v));
      return true;
    } catch (const comm::TimeoutError&) {
      return false;
    }
  };
  for (;;) {
    while (window.size() < fan_in && !queue.empty()) {
      window.push_back(queue.front());
      queue.pop_front();
    }
    if (window.empty()) break;
    bool progressed = false;
    std::vector<int> still;
    for (int r : window) {
      if (lost && lost(r)) {
        missing.push_back(r);
        progressed = true;
      } else if (try_take(r, milliseconds(0))) {
        progressed = true;
      } else {
        still.push_back(r);
      }
    }
    window.swap(still);
    if (progressed || window.empty()) continue;
    const auto now = comm::Clock::now();
    if (now >= deadline) {
      // Out of time: one last non-blocking read of every rank not read yet
      // (the stalled window kept them from being looked at).
      std::vector<int> rest(window.begin(), window.end());
      rest.insert(rest.end(), queue.begin(), queue.end());
      window.clear();
      queue.clear();
      for (int r : rest)
        if ((lost && lost(r)) || !try_take(r, milliseconds(0))) missing.push_back(r);
      break;
    }
    // Nothing arrived: sleep in the store on the oldest key, not in a loop.
    auto wait = std::min(options.slice, std::chrono::ceil<milliseconds>(deadline - now));
    if (try_take(window.front(), wait)) window.erase(window.begin());
  }
  missing.insert(missing.end(), window.begin(), window.end());
  missing.insert(missing.end(), queue.begin(), queue.end());
  std::sort(missing.begin(), missing.end());
  return missing;
}

}  // namespace hn::drivers::cluster
