// Every link inside README.md ([text](#anchor)) and every relative link to a
// file of the repository resolves: an anchor must be a heading's GitHub slug
// (lower case, punctuation dropped, spaces to '-', "-1" for a repeat), a
// path must exist. Headings inside fenced code blocks are not headings.
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

}  // namespace

TEST_CASE("README: every internal link resolves") {
  const fs::path root = HN_SOURCE_DIR;
  std::ifstream in(root / "README.md");
  REQUIRE(in);
  std::vector<std::string> lines;
  for (std::string l; std::getline(in, l);) lines.push_back(l);
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
  REQUIRE(anchors.count("network-planes-l6"));
  REQUIRE(anchors.count("hnprecheck-consistency"));
  static const std::regex kLink(R"(\]\(([^)\s]+)\))");
  fenced = false;
  int checked = 0;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (lines[i].rfind("```", 0) == 0) fenced = !fenced;
    if (fenced) continue;
    for (std::sregex_iterator it(lines[i].begin(), lines[i].end(), kLink), end; it != end; ++it) {
      std::string target = (*it)[1];
      INFO("README.md:" << i + 1 << ": " << target);
      if (target.rfind("http", 0) == 0 || target.rfind("mailto:", 0) == 0) continue;
      ++checked;
      if (target[0] == '#') {
        CHECK(anchors.count(target.substr(1)));
      } else {
        CHECK(fs::exists(root / target.substr(0, target.find('#'))));
      }
    }
  }
  CHECK(checked > 0);
}
