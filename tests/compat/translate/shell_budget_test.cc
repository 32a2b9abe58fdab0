// The limits of one shell read (compat/translate/shell_budget.h): each hostile
// shape is refused with its file:line, and a file just inside each limit reads.
#include "compat/translate/shell_budget.h"

#include <catch2/catch.hpp>
#include <string>

#include "compat/input_error.h"
#include "compat/translate/shell_input.h"

using namespace hn::compat::translate;
using hn::compat::InputError;

namespace {

std::vector<EnvEntry> read(const std::string& text, ShellMode mode = ShellMode::kScript) {
  return parse_shell_text(text, "job.sh", mode);
}

// The InputError's text, or "" when the read succeeded.
std::string error_of(const std::string& text, ShellMode mode = ShellMode::kScript) {
  try {
    read(text, mode);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

std::string doubling(int lines, bool env_file) {
  std::string s = "X_0=abcdefghij\n";
  for (int i = 1; i < lines; ++i)
    s += std::string(env_file ? "" : "export ") + "X_" + std::to_string(i) + "=${X_" +
         std::to_string(i - 1) + "}${X_" + std::to_string(i - 1) + "}\n";
  return s;
}

}  // namespace

TEST_CASE("shell budget: a value doubled line after line stops at the word limit, with its line") {
  for (ShellMode mode : {ShellMode::kEnvFile, ShellMode::kScript}) {
    // 10 * 2^13 = 80 KiB fits; line 15 would make 160 KiB.
    CHECK(error_of(doubling(14, mode == ShellMode::kEnvFile), mode).empty());
    const std::string e = error_of(doubling(60, mode == ShellMode::kEnvFile), mode);
    CHECK_THAT(e, Catch::StartsWith("job.sh:15: "));
    CHECK_THAT(e, Catch::Contains("128 KiB"));
  }
}

TEST_CASE("shell budget: a literal word past MAX_ARG_STRLEN is refused, one at it reads") {
  CHECK(error_of("export NCCL_DEBUG=" + std::string(kMaxShellWordBytes - 20, 'a') + "\n").empty());
  for (const std::string quote : {"", "'", "\""})
    CHECK_THAT(error_of("A=1\nexport NCCL_DEBUG=" + quote + std::string(kMaxShellWordBytes, 'a') +
                        quote + "\n"),
               Catch::StartsWith("job.sh:2: "));
}

TEST_CASE("shell budget: expansion is counted over the whole read, nested scripts included") {
  // 64 KiB expanded 60 times is 3.75 MiB: inside the 4 MiB budget.
  const std::string big = "A=" + std::string(64 << 10, 'x') + "\n";
  std::string ok = big, bad = big;
  for (int i = 0; i < 60; ++i) ok += "export NCCL_V" + std::to_string(i) + "=$A\n";
  CHECK(error_of(ok).empty());
  for (int i = 0; i < 70; ++i) bad += "export NCCL_V" + std::to_string(i) + "=$A\n";
  CHECK_THAT(error_of(bad), Catch::Contains("$-expansion") && Catch::StartsWith("job.sh:6"));
  // The same bytes reached through bash -c bodies count too.
  std::string nested = big;
  for (int i = 0; i < 70; ++i) nested += "bash -c \"export NCCL_V" + std::to_string(i) + "=$A\"\n";
  CHECK_THAT(error_of(nested), Catch::Contains("$-expansion"));
}

TEST_CASE("shell budget: assignments, words per command and nesting have caps") {
  std::string many;
  for (std::size_t i = 0; i < kMaxShellAssignments; ++i) many += "A=1\n";
  CHECK(error_of(many, ShellMode::kEnvFile).empty());
  CHECK_THAT(error_of(many + "A=1\n", ShellMode::kEnvFile),
             Catch::StartsWith("job.sh:" + std::to_string(kMaxShellAssignments + 1) + ": ") &&
                 Catch::Contains("assignments"));

  std::string words = "echo";
  for (std::size_t i = 1; i < kMaxShellWordsPerCommand; ++i) words += " w";
  CHECK(error_of(words + "\n").empty());
  CHECK_THAT(error_of(words + " w w\n"), Catch::Contains("words"));

  std::string deep;
  for (std::size_t i = 0; i < kMaxShellNesting - 1; ++i) deep += "if true; then\n";
  CHECK(error_of(deep + "export NCCL_DEBUG=INFO\n").empty());
  CHECK_THAT(error_of(deep + "if true; then\nif true; then\n"),
             Catch::Contains("nested more than 256"));
}

TEST_CASE("shell budget: many branches over many variables stop at the work cap, with a line") {
  auto case_bomb = [](int vars, int branches) {
    std::string s;
    for (int i = 0; i < vars; ++i) s += "export NCCL_V" + std::to_string(i) + "=x\n";
    s += "case $1 in\n";
    for (int i = 0; i < branches; ++i) s += "  p" + std::to_string(i) + ") NCCL_V1=$i ;;\n";
    return s + "esac\n";
  };
  CHECK(error_of(case_bomb(100, 100)).empty());
  const std::string e = error_of(case_bomb(2000, 2000));
  CHECK_THAT(e, Catch::Contains("copy the state") && Catch::StartsWith("job.sh:"));
}
