// Every link inside the user-facing Markdown files resolves: README.md, the
// command reference pages (docs/commands/*.md), the other pages the README
// sends users to, bench/README.md and ARCHITECTURE.md. An anchor
// ([text](#anchor), or [text](other.md#anchor) to another checked file) must
// be a heading's GitHub slug (lower case, punctuation dropped, spaces to '-',
// "-1" for a repeat); a relative path must exist, resolved from the linking
// file's own folder. Headings inside fenced code blocks are not headings.
#include <catch2/catch.hpp>

#include <cctype>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>

namespace fs = std::filesystem;

namespace {

std::string slug(const std::string& heading) {
  std::string s;
  for (unsigned char c : heading) {
    if (std::isalnum(c) || c == '-' || c == '_')
      s += static_cast<char>(std::tolower(c));
    else if (c == ' ')
      s += '-';
    else if (c >= 0x80)
      s += static_cast<char>(c);  // non-ASCII letters stay
  }
  return s;
}

std::vector<std::string> read_lines(const fs::path& file) {
  std::ifstream in(file);
  REQUIRE(in);
  std::vector<std::string> lines;
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  return lines;
}

std::set<std::string> anchors_of(const std::vector<std::string>& lines) {
  std::set<std::string> anchors;
  std::map<std::string, int> seen;
  bool fenced = false;
  for (const auto& l : lines) {
    if (l.rfind("```", 0) == 0) fenced = !fenced;
    if (fenced || l.empty() || l[0] != '#') continue;
    size_t text = l.find_first_not_of('#');
    if (text == std::string::npos || l[text] != ' ') continue;
    std::string s = slug(l.substr(text + 1));
    int n = seen[s]++;
    anchors.insert(n == 0 ? s : s + "-" + std::to_string(n));
  }
  return anchors;
}

const fs::path kRoot = HN_SOURCE_DIR;

// The files whose links are checked, relative to the repository root.
std::vector<fs::path> checked_files() {
  std::vector<fs::path> files = {"README.md",        "ARCHITECTURE.md",    "bench/README.md",
                                 "docs/profile.md",  "docs/install.md",    "docs/schedulers.md",
                                 "docs/security.md", "docs/development.md"};
  std::set<fs::path> commands;
  for (const auto& e : fs::directory_iterator(kRoot / "docs/commands"))
    if (e.path().extension() == ".md") commands.insert(fs::relative(e.path(), kRoot));
  files.insert(files.end(), commands.begin(), commands.end());
  return files;
}

// Checks every link of `file`; returns how many were checked.
int check_links(const fs::path& file, std::map<fs::path, std::set<std::string>>& anchors) {
  const auto lines = read_lines(kRoot / file);
  static const std::regex kLink(R"(\]\(([^)\s]+)\))");
  bool fenced = false;
  int checked = 0;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (lines[i].rfind("```", 0) == 0) fenced = !fenced;
    if (fenced) continue;
    for (std::sregex_iterator it(lines[i].begin(), lines[i].end(), kLink), end; it != end; ++it) {
      std::string target = (*it)[1];
      INFO(file.string() << ":" << i + 1 << ": " << target);
      if (target.rfind("http", 0) == 0 || target.rfind("mailto:", 0) == 0) continue;
      ++checked;
      const size_t hash = target.find('#');
      const std::string path = target.substr(0, hash);
      const std::string anchor = hash == std::string::npos ? "" : target.substr(hash + 1);
      // The linked file, relative to the repository root (the linking file
      // itself for "#anchor").
      fs::path linked = path.empty() ? file : (file.parent_path() / path).lexically_normal();
      REQUIRE(!linked.empty());
      CHECK(linked.string().rfind("..", 0) != 0);  // inside the repository
      CHECK(fs::exists(kRoot / linked));
      if (anchor.empty() || !fs::is_regular_file(kRoot / linked)) continue;
      if (linked.extension() != ".md") continue;
      if (!anchors.count(linked)) anchors[linked] = anchors_of(read_lines(kRoot / linked));
      CHECK(anchors[linked].count(anchor));
    }
  }
  return checked;
}

}  // namespace

TEST_CASE("README: every internal link resolves") {
  std::map<fs::path, std::set<std::string>> anchors;
  anchors["README.md"] = anchors_of(read_lines(kRoot / "README.md"));
  anchors["docs/commands/node.md"] = anchors_of(read_lines(kRoot / "docs/commands/node.md"));
  // The slug rules on headings with code and parentheses.
  REQUIRE(anchors["docs/commands/node.md"].count("network-planes-l6"));
  REQUIRE(anchors["README.md"].count("hnprecheck-consistency"));
  CHECK(check_links("README.md", anchors) > 0);
}

TEST_CASE("docs: every link of the reference pages, bench/README.md and ARCHITECTURE.md resolves") {
  std::map<fs::path, std::set<std::string>> anchors;
  int commands = 0;
  for (const auto& file : checked_files()) {
    if (file == "README.md") continue;
    INFO(file.string());
    REQUIRE(fs::exists(kRoot / file));
    if (file.parent_path() == "docs/commands") {
      ++commands;
      CHECK(check_links(file, anchors) > 0);  // each page links back to the README at least
    } else {
      check_links(file, anchors);
    }
  }
  // One page per command (snapshot and diff share one, diff.md points to it).
  for (const char* c : {"node", "consistency", "snapshot", "diff", "ops", "translate", "migrate",
                        "bench", "gate", "certify"})
    CHECK(fs::exists(kRoot / "docs/commands" / (std::string(c) + ".md")));
  CHECK(commands >= 10);
}
