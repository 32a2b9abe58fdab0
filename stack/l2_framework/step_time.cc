#include "stack/l2_framework/step_time.h"

#include <algorithm>

namespace hn::stack::framework {

namespace {

TimeRow& row(std::vector<TimeRow>& rows, const std::string& layer, const std::string& what) {
  for (auto& r : rows)
    if (r.layer == layer && r.what == what) return r;
  rows.push_back(TimeRow{layer, what, 0, 0, 0});
  return rows.back();
}

}  // namespace

const TimeRow* StepTime::find(const std::string& layer, const std::string& what) const {
  for (const auto& r : rows)
    if (r.layer == layer && r.what == what) return &r;
  return nullptr;
}

void StepTimer::begin_step() {
  rows_.clear();
  start_ = Clock::now();
}

void StepTimer::add(const std::string& layer, const std::string& what, double ms,
                    std::uint64_t bytes) {
  TimeRow& r = row(rows_, layer, what);
  r.ms += ms;
  r.bytes += bytes;
  ++r.calls;
}

StepTime StepTimer::end_step() {
  StepTime s;
  s.total_ms = std::chrono::duration<double, std::milli>(Clock::now() - start_).count();
  s.rows = std::move(rows_);
  rows_.clear();
  double timed = 0;
  for (const auto& r : s.rows) timed += r.ms;
  s.rows.push_back(TimeRow{"L2", "other", std::max(0.0, s.total_ms - timed), 0, 1});
  return s;
}

StepTime sum_steps(const std::vector<StepTime>& steps) {
  StepTime out;
  for (const auto& s : steps) {
    out.total_ms += s.total_ms;
    for (const auto& r : s.rows) {
      TimeRow& o = row(out.rows, r.layer, r.what);
      o.ms += r.ms;
      o.bytes += r.bytes;
      o.calls += r.calls;
    }
  }
  return out;
}

}  // namespace hn::stack::framework
