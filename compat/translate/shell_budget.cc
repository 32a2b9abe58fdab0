// The limits of one shell read (shell_budget.h).
#include "compat/translate/shell_budget.h"

#include "compat/input_error.h"

namespace hn::compat::translate {

namespace {
std::string kib(std::size_t bytes) {
  return std::to_string(bytes >> 10) + " KiB";
}
std::string mib(std::size_t bytes) {
  return std::to_string(bytes >> 20) + " MiB";
}
}  // namespace

void ShellBudget::fail(int line, const std::string& what) const {
  throw InputError(file_, line, 0, "", what);
}

void ShellBudget::word(std::size_t size, int line) const {
  if (size > kMaxShellWordBytes)
    fail(line, "a word longer than " + kib(kMaxShellWordBytes) +
                   " (after expansion): Linux refuses an argument or environment string longer "
                   "than MAX_ARG_STRLEN, so no job can be launched with it");
}

void ShellBudget::expansion(std::size_t bytes, int line) {
  expanded_ += bytes;
  if (expanded_ > kMaxShellExpansionBytes)
    fail(line, "$-expansion here brings what this file expands to past " +
                   mib(kMaxShellExpansionBytes) +
                   " (a variable doubled line after line?); no real job's settings come near it");
}

void ShellBudget::assignment(int line) {
  if (++assignments_ > kMaxShellAssignments)
    fail(line, "more than " + std::to_string(kMaxShellAssignments) +
                   " assignments in one file; no real job sets that many variables (Linux "
                   "caps a command's arguments and environment together at 6 MiB)");
}

void ShellBudget::words_in_command(std::size_t count, int line) const {
  if (count > kMaxShellWordsPerCommand)
    fail(line, "a command of more than " + std::to_string(kMaxShellWordsPerCommand) +
                   " words; Linux caps a command's arguments and environment together at 6 MiB");
}

void ShellBudget::nesting(std::size_t open_frames, int line) const {
  if (open_frames >= kMaxShellNesting)
    fail(line, "if/case/loop/function blocks nested more than " + std::to_string(kMaxShellNesting) +
                   " deep");
}

void ShellBudget::work(std::size_t units, int line) {
  work_ += units;
  if (work_ > kMaxShellWork)
    fail(line, "this file's branches copy the state of its variables more than " +
                   std::to_string(kMaxShellWork) +
                   " times (many variables times many if/case branches); split the file");
}

}  // namespace hn::compat::translate
