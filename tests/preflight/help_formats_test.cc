// The man page and the bash completion the build generates
// (preflight/man_page.h, preflight/bash_completion.h) against what the real
// binary's --help prints: the same commands, and for every command the same
// options, in all three. The completion is exercised in a real bash.

#include <catch2/catch.hpp>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "tests/support/process.h"
#include "tests/support/skip.h"
#include "tests/support/temp_dir.h"

using hn::test::read_file;
using hn::test::run_hnprecheck;
using hn::test::run_process;

namespace {

using Names = std::set<std::string>;

Names help_commands() {
  auto r = run_hnprecheck({"--help"});
  REQUIRE(r.exit_code == 0);
  std::istringstream in(r.out.substr(r.out.find("Commands:\n") + 10));
  Names out;
  for (std::string line; std::getline(in, line) && !line.empty();)
    out.insert(line.substr(2, line.find(' ', 2) - 2));
  return out;
}

// "--profile", "-v", ... from the Options block of `hnprecheck <cmd> --help`.
Names help_options(const std::string& cmd) {
  auto r = run_hnprecheck({cmd, "--help"});
  REQUIRE(r.exit_code == 0);
  static const std::regex short_long("^  -(\\w) \\[ --([\\w-]+) \\]"), long_only("^  --([\\w-]+)");
  std::istringstream in(r.out);
  Names out;
  for (std::string line; std::getline(in, line);) {
    std::smatch m;
    if (std::regex_search(line, m, short_long))
      out.insert({"-" + m[1].str(), "--" + m[2].str()});
    else if (std::regex_search(line, m, long_only))
      out.insert("--" + m[1].str());
  }
  return out;
}

std::string unroff(std::string s) {
  for (std::size_t at; (at = s.find("\\-")) != std::string::npos;) s.replace(at, 2, "-");
  return s;
}

// The man page's section of each command.
std::map<std::string, std::string> man_sections(const std::string& man) {
  static const std::regex heading("^\\.SH \"HNPRECHECK (\\S+)\"$", std::regex::multiline);
  std::map<std::string, std::string> out;
  for (auto it = std::sregex_iterator(man.begin(), man.end(), heading);
       it != std::sregex_iterator(); ++it) {
    const auto start = static_cast<std::size_t>(it->position(0) + it->length(0));
    out[unroff((*it)[1].str())] = man.substr(start, man.find("\n.SH ", start) - start);
  }
  return out;
}

Names man_options(const std::string& section) {
  static const std::regex opt("\\\\fB(\\\\-\\\\-[\\w\\\\-]+|\\\\-\\w)\\\\fR");
  Names out;
  std::istringstream in(section);
  bool item = false;
  for (std::string line; std::getline(in, line);) {
    if (line == ".TP") {
      item = true;
      continue;
    }
    if (item)
      for (auto it = std::sregex_iterator(line.begin(), line.end(), opt);
           it != std::sregex_iterator(); ++it)
        out.insert(unroff((*it)[1].str()));
    item = false;
  }
  return out;
}

// What bash offers for `hnprecheck <words...>` with the cursor on the last word.
Names complete(const std::vector<std::string>& words) {
  std::string script = "source '" + std::string(HN_BASH_COMPLETION) + "'; COMP_WORDS=(hnprecheck";
  for (const auto& w : words) script += " '" + w + "'";
  script += "); COMP_CWORD=" + std::to_string(words.size()) +
            "; _hnprecheck; printf '%s\\n' \"${COMPREPLY[@]}\"";
  auto r = run_process({"/bin/bash", "--norc", "-c", script}, 30);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  Names out;
  std::istringstream in(r.out);
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) out.insert(line);
  return out;
}

// Empty when `other` lists exactly what --help lists; else each difference.
std::vector<std::string> disagreements(const Names& help, const Names& other,
                                       const std::string& where) {
  std::vector<std::string> out;
  for (const auto& n : help)
    if (!other.count(n)) out.push_back(where + " lacks " + n);
  for (const auto& n : other)
    if (!help.count(n)) out.push_back(where + " has " + n + ", which --help does not");
  return out;
}

}  // namespace

TEST_CASE("help formats: the man page and the completion list every command of --help") {
  const Names commands = help_commands();
  REQUIRE(commands.size() >= 7);
  const auto sections = man_sections(read_file(HN_MAN_PAGE));
  Names in_man;
  for (const auto& [name, text] : sections) in_man.insert(name);
  CHECK(disagreements(commands, in_man, "the man page").empty());
  Names offered = complete({""});
  offered.erase("--help");
  offered.erase("--version");
  CHECK(disagreements(commands, offered, "the completion").empty());
}

TEST_CASE("help formats: every command's options agree between --help, man page and completion") {
  const auto sections = man_sections(read_file(HN_MAN_PAGE));
  for (const auto& cmd : help_commands()) {
    const Names help = help_options(cmd);
    INFO(cmd);
    REQUIRE(help.count("--help"));
    REQUIRE(sections.count(cmd));
    CHECK(disagreements(help, man_options(sections.at(cmd)), "man page, " + cmd).empty());
    CHECK(disagreements(help, complete({cmd, "-"}), "completion, " + cmd).empty());
  }
}

TEST_CASE("help formats: an option missing from the man page is a disagreement") {
  const auto sections = man_sections(read_file(HN_MAN_PAGE));
  std::string node = sections.at("node");
  const auto at = node.find("\\fB\\-\\-profile\\fR");
  REQUIRE(at != std::string::npos);
  node.erase(at, node.find('\n', at) - at);
  auto d = disagreements(help_options("node"), man_options(node), "man page, node");
  CHECK(d == std::vector<std::string>{"man page, node lacks --profile"});
}

TEST_CASE("help formats: the completion offers files after a FILE option, nothing after a number") {
  hn::test::TempDir t;
  t.write("cluster.yaml", "x");
  CHECK(complete({"node", "--profile", t.path() + "/clu"}) == Names{t.path() + "/cluster.yaml"});
  CHECK(complete({"node", "--timeout", ""}).empty());
  CHECK(complete({"node", "--pro"}) == Names{"--profile", "--prometheus"});
}

TEST_CASE("help formats: the man page renders without a groff warning") {
  if (run_process({"/usr/bin/which", "groff"}, 10).exit_code != 0)
    hn::test::skip("groff is not installed (scripts/install-deps.sh --test installs groff-base)");
  auto r = run_process({"/usr/bin/groff", "-man", "-Tutf8", "-ww", "-z", HN_MAN_PAGE}, 60);
  INFO(r.err);
  CHECK(r.exit_code == 0);
  CHECK(r.err.empty());
}
