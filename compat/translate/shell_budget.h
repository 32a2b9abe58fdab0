#pragma once
// What one read of an env file or a launch script may cost. The file belongs
// to the job's owner and `hnprecheck node --env` reads it as root in every
// Prolog, so its cost must be set by us, not by the file: 1.3 KB of
// `X_n=${X_(n-1)}${X_(n-1)}` would otherwise double a value per line (2^60
// bytes), and sixteen million `A=1` lines or a case with ten thousand
// branches over ten thousand variables would each keep gigabytes of state.
//
// The limits, each far above any real job and each from a fact of Linux:
//  * one word (an argument or a value, after expansion) is at most
//    kMaxShellWordBytes, MAX_ARG_STRLEN: execve refuses a longer string, so
//    no launch line and no environment can hold one;
//  * $-expansion and the scripts nested in `bash -c "..."` / $(...) produce
//    at most kMaxShellExpansionBytes in one read, nested scripts included;
//  * at most kMaxShellAssignments assignments, kMaxShellWordsPerCommand words
//    in one command and kMaxShellNesting open if/case/loop/function frames:
//    execve's 6 MiB cap on arguments and environment together already
//    bounds a real job far below the first two;
//  * at most kMaxShellWork units of bookkeeping (one unit: a variable's state
//    copied or merged when a branch opens or closes).
// Within them the worst file of kMaxLaunchFileBytes stays inside the memory budget
// stated in docs/security.md (measured by tests/preflight/reader_memory_test).
//
// Contract: each charge throws compat::InputError(file, line) naming the
// limit and the line where it was passed, before the cost is paid; a read
// that stays within every limit is never affected. One budget serves one
// read, shared by the nested scripts that read spawns.
#include <cstddef>
#include <string>

namespace hn::compat::translate {

inline constexpr std::size_t kMaxShellWordBytes = std::size_t{128} << 10;
inline constexpr std::size_t kMaxShellExpansionBytes = std::size_t{4} << 20;
inline constexpr std::size_t kMaxShellAssignments = 20000;
inline constexpr std::size_t kMaxShellWordsPerCommand = 20000;
inline constexpr std::size_t kMaxShellNesting = 256;
inline constexpr std::size_t kMaxShellWork = 4000000;

class ShellBudget {
 public:
  explicit ShellBudget(std::string file) : file_(std::move(file)) {}

  // A word has grown to `size` bytes (text after expansion, or as written).
  void word(std::size_t size, int line) const;
  // `bytes` more produced by $-expansion or handed to a nested script.
  void expansion(std::size_t bytes, int line);
  void assignment(int line);
  void words_in_command(std::size_t count, int line) const;
  void nesting(std::size_t open_frames, int line) const;
  void work(std::size_t units, int line);

 private:
  [[noreturn]] void fail(int line, const std::string& what) const;
  std::string file_;
  std::size_t expanded_ = 0;
  std::size_t assignments_ = 0;
  std::size_t work_ = 0;
};

}  // namespace hn::compat::translate
