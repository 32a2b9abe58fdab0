// Every HTML report in a real browser: headless Chromium (Debian's chromium)
// renders each page of tests/fixtures/html/pages.txt, written by the real
// binary, with tests/reports/browser/page_check.js injected at the top of its
// <head>. The page must log no error (script, resource, console), and every
// chart must follow docs/html-charts.md: a non-empty drawing area, each
// series in a colour of its own with a legend entry whose swatch has that
// colour. The pages under tests/fixtures/html/bad/ each carry one such fault
// and must be caught with the words their "expect:" comment gives.

#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>

#include "tests/support/process.h"
#include "tests/support/skip.h"
#include "tests/support/temp_dir.h"

namespace fs = std::filesystem;
using hn::test::read_file;
using hn::test::run_process;
using hn::test::TempDir;

namespace {

const std::string kFixtures = HN_FIXTURE_DIR;
const std::string kSource = HN_SOURCE_DIR;

std::string chromium() {
  for (const char* p : {"/usr/bin/chromium", "/usr/lib/chromium/chromium"})
    if (::access(p, X_OK) == 0) return p;
  hn::test::skip("chromium is not installed (scripts/install-deps.sh --test installs it)");
}

struct Verdict {
  int charts = 0, series = 0;
  std::vector<std::string> errors;    // script, resource and console errors
  std::vector<std::string> problems;  // the chart contract
  std::string all() const {
    std::string s;
    for (const auto& e : errors) s += "  error: " + e + "\n";
    for (const auto& p : problems) s += "  chart: " + p + "\n";
    return s;
  }
};

std::string unescape(std::string s) {
  static const std::pair<const char*, const char*> kEntities[] = {
      {"&lt;", "<"},  {"&gt;", ">"},        {"&quot;", "\""},
      {"&#39;", "'"}, {"&nbsp;", "\u00a0"}, {"&amp;", "&"}};
  for (const auto& [from, to] : kEntities)
    for (std::size_t at; (at = s.find(from)) != std::string::npos;)
      s.replace(at, std::string(from).size(), to);
  return s;
}

// Renders `page` (a file) in Chromium with the checker and returns its verdict.
Verdict render(const std::string& page, const TempDir& t, const std::string& name) {
  std::string html = read_file(page);
  static const std::regex head("<head(\\s[^>]*)?>", std::regex::icase);
  std::smatch m;
  INFO(page);
  REQUIRE(std::regex_search(html, m, head));
  const std::string checker = read_file(kSource + "/tests/reports/browser/page_check.js");
  const auto at = static_cast<std::size_t>(m.position(0) + m.length(0));
  html.insert(at, "\n<script>\n" + checker + "\n</script>\n");
  // Next to the page, so that what it refers to relatively resolves as it would.
  const std::string checked = (fs::path(page).parent_path() /
                               ("hn-checked-" + std::to_string(::getpid()) + "-" + name + ".html"))
                                  .string();
  std::ofstream(checked) << html;
  auto r = run_process(
      {chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
       "--no-first-run", "--disable-background-networking", "--disable-component-update",
       "--disable-sync", "--user-data-dir=" + t.path() + "/chromium-" + name,
       "--enable-logging=stderr", "--v=0", "--dump-dom", "file://" + checked},
      180);
  fs::remove(checked);
  INFO("chromium exit " << r.exit_code << "\n"
                        << r.err.substr(r.err.size() - std::min<std::size_t>(r.err.size(), 2000)));
  REQUIRE(r.exit_code == 0);
  Verdict v;
  // The last one: the checker's own source, injected above, names it too.
  const std::string open = "<pre id=\"hn-page-check\">";
  const auto from = r.out.rfind(open);
  if (from == std::string::npos) {
    v.problems.push_back("the page never finished loading (the checker left no verdict)");
    return v;
  }
  const auto to = r.out.find("</pre>", from);
  auto j =
      nlohmann::json::parse(unescape(r.out.substr(from + open.size(), to - from - open.size())));
  v.charts = j.at("charts").get<int>();
  v.series = j.at("series").get<int>();
  v.errors = j.at("errors").get<std::vector<std::string>>();
  v.problems = j.at("problems").get<std::vector<std::string>>();
  // What the browser itself logged to the page's console (a refused
  // resource, a parse problem): a report page logs nothing at all.
  std::istringstream err(r.err);
  for (std::string line; std::getline(err, line);)
    if (line.find(":CONSOLE") != std::string::npos) v.errors.push_back(line);
  return v;
}

struct Page {
  int line = 0;
  std::string name;
  int min_charts = 0;
  std::vector<std::string> args;
};

std::vector<Page> page_list() {
  std::ifstream in(kFixtures + "/html/pages.txt");
  REQUIRE(in);
  std::vector<Page> out;
  int n = 0;
  for (std::string line; std::getline(in, line);) {
    ++n;
    if (line.empty() || line[0] == '#') continue;
    std::istringstream words(line);
    Page p;
    p.line = n;
    std::string charts;
    words >> p.name >> charts;
    INFO("pages.txt:" << n << ": " << line);
    REQUIRE(!charts.empty());
    REQUIRE(charts.find_first_not_of("0123456789") == std::string::npos);
    p.min_charts = std::stoi(charts);
    for (std::string w; words >> w;) p.args.push_back(w);
    REQUIRE(!p.args.empty());
    out.push_back(p);
  }
  return out;
}

std::string expand(std::string arg, const std::string& out, const std::string& tmp) {
  const std::pair<std::string, std::string> vars[] = {
      {"{out}", out}, {"{fixtures}", kFixtures}, {"{tmp}", tmp}};
  for (const auto& [k, v] : vars)
    for (std::size_t at; (at = arg.find(k)) != std::string::npos;) arg.replace(at, k.size(), v);
  return arg;
}

}  // namespace

TEST_CASE(
    "browser: every page of the fixture list loads cleanly and its charts keep the contract") {
  chromium();
  TempDir t;
  const auto pages = page_list();
  REQUIRE(pages.size() >= 3);
  for (const auto& p : pages) {
    const std::string out = t.path() + "/" + p.name + ".html";
    std::vector<std::string> args;
    for (const auto& a : p.args) args.push_back(expand(a, out, t.path()));
    auto r = hn::test::run_hnprecheck(args, 180);
    INFO("pages.txt:" << p.line << " " << p.name << ": exit " << r.exit_code << "\n"
                      << r.err.substr(0, 2000));
    REQUIRE((r.exit_code == 0 || r.exit_code == 1));
    REQUIRE(fs::exists(out));
    Verdict v = render(out, t, p.name);
    INFO(v.all());
    CHECK(v.errors.empty());
    CHECK(v.problems.empty());
    CHECK(v.charts >= p.min_charts);
    CHECK(v.series >= v.charts);
  }
}

TEST_CASE("browser: each fault of the bad pages is caught, in its own words") {
  chromium();
  TempDir t;
  int n = 0;
  for (const auto& e : fs::directory_iterator(kFixtures + "/html/bad")) {
    if (e.path().extension() != ".html") continue;
    ++n;
    const std::string html = read_file(e.path());
    static const std::regex expect("<!-- expect: (.*?) -->");
    std::smatch m;
    INFO(e.path().string());
    REQUIRE(std::regex_search(html, m, expect));
    // A copy in the scratch directory, so the fixture folder stays as it is.
    const std::string copy = t.path() + "/" + e.path().filename().string();
    fs::copy_file(e.path(), copy);
    Verdict v = render(copy, t, e.path().stem());
    INFO("expected: " << m[1] << "\ngot:\n" << v.all());
    CHECK(v.all().find(m[1].str()) != std::string::npos);
  }
  CHECK(n >= 9);
}
