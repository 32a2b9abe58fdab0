#pragma once
// Fault injection state of the test file system (faultfs). Every FUSE
// operation passes gate() first, which
//   * blocks while the hang switch is on (a server that stopped answering),
//   * fails the operation with EIO or ESTALE when that error is switched on
//     for its kind,
//   * sleeps the injected latency: base_us for every operation of the
//     selected kinds, plus slow_us for a fraction slow_fraction of them,
//     spread evenly (operation k is slow when floor((k+1)f) > floor(kf)), so
//     a run of n operations has exactly floor(n f) slow ones.
// Controlled at runtime by one-line commands (command()), which faultfs
// reads from its unix control socket:
//   ping
//   hang on|off
//   error none | error eio|estale [ops=write,fsync|all]
//   delay [base_us=N] [slow_fraction=F] [slow_us=N] [ops=fsync,...|all]
//   stats        -> ok ops=N slow=N failed=N
// Replies are "ok ..." or "error <what was wrong>".

#include <atomic>
#include <bitset>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>

namespace hn::test::faultfs {

enum class Op {
  kGetattr,
  kReaddir,
  kMkdir,
  kRmdir,
  kCreate,
  kOpen,
  kRead,
  kWrite,
  kFsync,
  kFlush,
  kRelease,
  kUnlink,
  kRename,
  kTruncate,
  kStatfs,
  kUtimens,
  kOther,
  kCount
};
const char* op_name(Op op);

class Faults {
 public:
  // 0, or -errno for the operation to return.
  int gate(Op op);
  std::string command(const std::string& line);

 private:
  using OpSet = std::bitset<static_cast<size_t>(Op::kCount)>;
  bool parse_ops(const std::string& text, OpSet& out) const;

  std::mutex mu_;
  std::condition_variable cv_;
  bool hang_ = false;
  int error_ = 0;
  OpSet error_ops_;
  std::uint64_t base_us_ = 0, slow_us_ = 0;
  double slow_fraction_ = 0;
  OpSet delay_ops_;
  std::uint64_t delay_seq_ = 0;
  std::atomic<std::uint64_t> ops_{0}, slow_{0}, failed_{0};
};

}  // namespace hn::test::faultfs
