// Every structured reader goes through its one entry point, which runs the
// pre-parse guard (compat/input_guard.h): a third-party parser called
// anywhere else in product code fails this test, so a new reader cannot
// forget the depth, size and alias limits. Calls on text the program made
// itself (a child probe's result pipe, our own report JSON) are listed below
// with the reason they need no guard.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <string>

namespace fs = std::filesystem;

namespace {

// file -> why it may call a parser directly.
const std::map<std::string, std::string> kAllowed = {
    {"compat/yaml_input.cc", "the YAML entry point (load_yaml_documents)"},
    {"compat/json_input.cc",
     "the JSON entry point (parse_json_text, parse_ordered_json_text, sax_parse_json_text)"},
    {"compat/toml_input.cc", "the TOML entry point (parse_toml_text)"},
    {"drivers/supervised_worker.cc", "reads its own worker's findings from a pipe"},
    {"preflight/runner.cc", "reads its own child probe's result from a pipe"},
    {"reports/json_report.cc",
     "render_json parses extra JSON the program made; report_from_json's callers pass text "
     "that compat::guard_structured_text checked (reports/ cannot include compat/)"},
};

}  // namespace

TEST_CASE("parsers are called only from the guarded entry points") {
  static const std::regex kCall(
      R"re(\b((?:ordered_)?json::parse|(?:ordered_)?json::sax_parse|toml::parse|YAML::Load\w*|YAML::Parser)\b)re");
  const fs::path root = HN_SOURCE_DIR;
  int scanned = 0;
  for (const char* dir : {"compat", "formats", "drivers", "probes", "preflight", "stack", "reports",
                          "migrate", "gate"}) {
    if (!fs::exists(root / dir)) continue;
    for (const auto& e : fs::recursive_directory_iterator(root / dir)) {
      const std::string ext = e.path().extension();
      if (!e.is_regular_file() || (ext != ".cc" && ext != ".h")) continue;
      const std::string rel = fs::relative(e.path(), root).string();
      ++scanned;
      std::ifstream in(e.path());
      std::string line;
      int n = 0;
      while (std::getline(in, line)) {
        ++n;
        auto c = line.find("//");
        std::string code = c == std::string::npos ? line : line.substr(0, c);
        std::smatch m;
        if (!std::regex_search(code, m, kCall) || kAllowed.count(rel)) continue;
        FAIL(rel << ":" << n << ": calls " << m[1]
                 << " directly; use compat::load_yaml_documents / load_yaml_text, "
                    "parse_json_text or parse_toml_text, which run the input guard");
      }
    }
  }
  CHECK(scanned > 100);
}
