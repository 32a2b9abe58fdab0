#pragma once
// One lazily read value, shared by the memoizing sources of L7
// (cached_source.cc) and L6 (stack/l6_netplane/cached_source.cc).
//
// Contract: get(read) calls read() at most once per successful read and
// returns copies of that value afterwards; concurrent callers wait for the
// first. A read that throws leaves the value empty and the exception goes to
// that caller: the next caller reads again (a transient failure is not
// cached). std::call_once would also retry after a throw, but it cannot be
// reset from a const method cleanly; a mutex per value is simpler and cheap.

#include <mutex>
#include <optional>

namespace hn::stack::physical {

template <class T>
class Once {
 public:
  template <class F>
  T get(F read) const {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!value_) value_ = read();
    return *value_;
  }

 private:
  mutable std::mutex mutex_;
  mutable std::optional<T> value_;
};

}  // namespace hn::stack::physical
