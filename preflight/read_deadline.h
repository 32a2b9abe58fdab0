#pragma once
// The --timeout of commands whose work is reading files (ops, migrate): a
// parser (protobuf, ONNX shape inference, a JSON trace) cannot be stopped
// half-way, so a watchdog thread ends the whole process at the deadline
// instead of letting a hostile or huge input run on.
//
// Contract: while a ReadDeadline is alive, if `limit` passes before it is
// destroyed, the process prints one line to stderr, "hnprecheck CMD: ran
// past --timeout S s while reading WHAT; nothing was written", and ends with
// _exit(3) (could not run). Nothing of the run's reports has been written at
// that point, as long as the guard is destroyed before they are. Destroying
// it in time costs nothing and joins the thread.
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

namespace hn::preflight {

class ReadDeadline {
 public:
  ReadDeadline(std::string command, std::chrono::milliseconds limit);
  ~ReadDeadline();
  ReadDeadline(const ReadDeadline&) = delete;
  ReadDeadline& operator=(const ReadDeadline&) = delete;

  // What is being read now, for the message.
  void reading(const std::string& what);

 private:
  void watch(std::chrono::steady_clock::time_point end);
  std::string command_;
  std::chrono::milliseconds limit_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool done_ = false;
  std::string reading_;
  std::thread thread_;
};

}  // namespace hn::preflight
