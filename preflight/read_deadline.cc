// The watchdog of read_deadline.h.
#include "preflight/read_deadline.h"

#include <unistd.h>

#include <sstream>

#include "compat/printable.h"

namespace hn::preflight {

ReadDeadline::ReadDeadline(std::string command, std::chrono::milliseconds limit)
    : command_(std::move(command)), limit_(limit) {
  thread_ = std::thread(&ReadDeadline::watch, this, std::chrono::steady_clock::now() + limit);
}

ReadDeadline::~ReadDeadline() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    done_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

void ReadDeadline::reading(const std::string& what) {
  std::lock_guard<std::mutex> lock(mu_);
  reading_ = what;
}

void ReadDeadline::watch(std::chrono::steady_clock::time_point end) {
  std::unique_lock<std::mutex> lock(mu_);
  if (cv_.wait_until(lock, end, [this] { return done_; })) return;
  std::ostringstream os;
  os << "hnprecheck " << command_ << ": ran past --timeout " << limit_.count() / 1000.0
     << " s while reading " << (reading_.empty() ? "its inputs" : compat::printable(reading_))
     << "; nothing was written\n";
  const std::string msg = os.str();
  // The reading thread is in a parser that cannot be interrupted: end here,
  // without destructors or exit handlers that could wait on it.
  [[maybe_unused]] ssize_t n = ::write(STDERR_FILENO, msg.data(), msg.size());
  ::_exit(3);
}

}  // namespace hn::preflight
