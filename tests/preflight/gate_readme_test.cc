// The `hnprecheck gate` example of docs/commands/gate.md (the command's
// reference page, moved there from the README) against a live run of the same
// commands on the same files (real runs of bench/gate_noise.sh, kept in
// tests/fixtures/gate/readme/), so the documented output cannot drift from
// the binary. Only what differs by construction is normalised: the baseline's
// random id, timestamps, the host name and the run time.
#include <catch2/catch.hpp>
#include <filesystem>
#include <regex>

#include "tests/support/process.h"
#include "tests/support/readme_blocks.h"
#include "tests/support/temp_dir.h"

namespace fs = std::filesystem;

namespace {

std::string normalised(std::string s) {
  s = std::regex_replace(
      s, std::regex("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"), "<id>");
  s = std::regex_replace(s, std::regex("[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]+Z"), "<time>");
  s = std::regex_replace(s, std::regex("host \\S+"), "host <host>");
  s = std::regex_replace(s, std::regex(" in [0-9]+ ms"), " in <n> ms");
  return s;
}

// "$ <command>" then what it printed, for each command, as the page shows it.
std::string transcript(const std::string& dir, const std::vector<std::string>& commands) {
  const std::string bin = fs::path(HN_BINARY).parent_path().string();
  std::string out;
  for (const auto& c : commands) {
    auto r = hn::test::run_process({"/bin/bash", "-c", "cd \"$WORK\" && " + c + " 2>&1"}, 60,
                                   {"WORK=" + dir, "PATH=" + bin + ":/usr/bin:/bin"});
    out += "$ " + c + "\n" + r.out;
  }
  return out;
}

}  // namespace

TEST_CASE("readme: the gate example is the output of its commands") {
  std::string example;
  const std::string page = std::string(HN_SOURCE_DIR) + "/docs/commands/gate.md";
  for (const auto& b : hn::test::fenced_blocks(page, "text"))
    if (b.text.rfind("$ hnprecheck gate baseline", 0) == 0) example = b.text;
  REQUIRE_FALSE(example.empty());
  std::vector<std::string> commands;
  static const std::regex kCommand("^\\$ (.*)$");
  std::istringstream in(example);
  std::string line;
  std::smatch m;
  while (std::getline(in, line))
    if (std::regex_match(line, m, kCommand)) commands.push_back(m[1]);
  REQUIRE(commands.size() == 2);

  hn::test::TempDir dir;
  fs::copy(std::string(HN_FIXTURE_DIR) + "/gate/readme", dir.path() + "/runs");
  CHECK(normalised(transcript(dir.path(), commands)) == normalised(example));
}
