#include "tests/support/faultfs/faults.h"

#include <cerrno>
#include <cmath>
#include <sstream>
#include <thread>
#include <vector>

namespace hn::test::faultfs {

const char* op_name(Op op) {
  static const char* kNames[] = {"getattr", "readdir",  "mkdir",  "rmdir",   "create",  "open",
                                 "read",    "write",    "fsync",  "flush",   "release", "unlink",
                                 "rename",  "truncate", "statfs", "utimens", "other"};
  return kNames[static_cast<size_t>(op)];
}

int Faults::gate(Op op) {
  ++ops_;
  const size_t bit = static_cast<size_t>(op);
  std::uint64_t sleep_us = 0;
  int error = 0;
  {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] { return !hang_; });
    if (error_ && error_ops_.test(bit)) error = error_;
    if (delay_ops_.test(bit)) {
      sleep_us = base_us_;
      std::uint64_t k = delay_seq_++;
      if (slow_fraction_ > 0 &&
          std::floor((k + 1) * slow_fraction_) > std::floor(k * slow_fraction_)) {
        sleep_us += slow_us_;
        ++slow_;
      }
    }
  }
  if (sleep_us) std::this_thread::sleep_for(std::chrono::microseconds(sleep_us));
  if (error) {
    ++failed_;
    return -error;
  }
  return 0;
}

bool Faults::parse_ops(const std::string& text, OpSet& out) const {
  out.reset();
  if (text == "all") {
    out.set();
    return true;
  }
  std::stringstream ss(text);
  std::string name;
  while (std::getline(ss, name, ',')) {
    bool found = false;
    for (size_t i = 0; i < static_cast<size_t>(Op::kCount); ++i)
      if (name == op_name(static_cast<Op>(i))) {
        out.set(i);
        found = true;
      }
    if (!found) return false;
  }
  return true;
}

std::string Faults::command(const std::string& line) {
  std::stringstream ss(line);
  std::string verb;
  ss >> verb;
  std::vector<std::string> args;
  for (std::string a; ss >> a;) args.push_back(a);
  std::lock_guard<std::mutex> lock(mu_);
  if (verb == "ping") return "ok";
  if (verb == "stats")
    return "ok ops=" + std::to_string(ops_.load()) + " slow=" + std::to_string(slow_.load()) +
           " failed=" + std::to_string(failed_.load());
  if (verb == "hang" && args.size() == 1 && (args[0] == "on" || args[0] == "off")) {
    hang_ = args[0] == "on";
    cv_.notify_all();
    return "ok";
  }
  if (verb == "error" && !args.empty()) {
    if (args[0] == "none") {
      error_ = 0;
      return "ok";
    }
    int err = args[0] == "eio" ? EIO : args[0] == "estale" ? ESTALE : 0;
    if (!err) return "error unknown error '" + args[0] + "' (expected none, eio or estale)";
    OpSet ops;
    ops.set();
    if (args.size() > 1 && (args[1].rfind("ops=", 0) != 0 || !parse_ops(args[1].substr(4), ops)))
      return "error bad ops list '" + args[1] + "'";
    error_ = err;
    error_ops_ = ops;
    return "ok";
  }
  if (verb == "delay") {
    std::uint64_t base = 0, slow = 0;
    double fraction = 0;
    OpSet ops;
    ops.set();
    for (const auto& a : args) {
      auto eq = a.find('=');
      if (eq == std::string::npos) return "error expected key=value, got '" + a + "'";
      std::string k = a.substr(0, eq), v = a.substr(eq + 1);
      try {
        if (k == "base_us")
          base = std::stoull(v);
        else if (k == "slow_us")
          slow = std::stoull(v);
        else if (k == "slow_fraction")
          fraction = std::stod(v);
        else if (k == "ops") {
          if (!parse_ops(v, ops)) return "error bad ops list '" + v + "'";
        } else {
          return "error unknown key '" + k + "'";
        }
      } catch (const std::exception&) {
        return "error bad value '" + v + "' for " + k;
      }
    }
    if (fraction < 0 || fraction > 1) return "error slow_fraction must be in [0, 1]";
    base_us_ = base;
    slow_us_ = slow;
    slow_fraction_ = fraction;
    delay_ops_ = ops;
    delay_seq_ = 0;
    return "ok";
  }
  return "error unknown command '" + line + "'";
}

}  // namespace hn::test::faultfs
