// "A module cannot include what it does not link" (ARCHITECTURE.md), checked:
// every CMake target of the tree is read from its CMakeLists.txt (hn_module,
// add_library, add_executable, target_link_libraries), every header and
// source file is given to the target that owns it, and each #include "..."
// of a module (hn_module) or of a bench/ program must name a file owned by
// that target or by one it names itself in DEPS or PRIVATE_DEPS
// (target_link_libraries for a program). Reaching a module only through
// another one's DEPS is not enough: CMake would link it, but the DEPS line
// would no longer be the honest list of what the module uses, and it would
// break the day that other module stops needing it. Every target exports the
// repository root as its include directory, so without this test a missing
// DEPS entry compiles unnoticed.
//
// Ownership: a file listed in a target's sources belongs to it; a header
// belongs to the target that compiles its .cc; any other file belongs to the
// library whose CMakeLists.txt folder is the longest prefix of its path
// (header-only files such as compat/translate/link_env.h).
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "tests/support/temp_dir.h"

namespace fs = std::filesystem;

namespace {

struct Target {
  std::string dir;  // folder of its CMakeLists.txt, relative to the root ("" at the top)
  bool library = false;
  bool checked = false;  // hn_module, or a program under bench/
  std::set<std::string> sources;
  std::set<std::string> public_deps, private_deps;
};

using Targets = std::map<std::string, Target>;

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string join_path(const std::string& dir, const std::string& file) {
  return dir.empty() ? file : (fs::path(dir) / file).lexically_normal().string();
}

// The arguments of every call of `command` in a CMake file, comments removed.
std::vector<std::vector<std::string>> calls(const std::string& text, const std::string& command) {
  std::string clean;
  bool in_comment = false, in_string = false;
  for (char c : text) {
    if (in_comment) {
      if (c == '\n') in_comment = false, clean += c;
      continue;
    }
    if (c == '"') in_string = !in_string;
    if (c == '#' && !in_string) {
      in_comment = true;
      continue;
    }
    clean += c;
  }
  std::vector<std::vector<std::string>> out;
  const std::regex start("(^|[^A-Za-z0-9_])" + command + R"(\s*\()");
  for (std::sregex_iterator it(clean.begin(), clean.end(), start), end; it != end; ++it) {
    size_t pos = static_cast<size_t>(it->position() + it->length());
    int depth = 1;
    std::string args;
    for (; pos < clean.size() && depth > 0; ++pos) {
      if (clean[pos] == '(') ++depth;
      if (clean[pos] == ')' && --depth == 0) break;
      args += clean[pos];
    }
    std::istringstream words(args);
    std::vector<std::string> v;
    for (std::string w; words >> w;) {
      w.erase(std::remove(w.begin(), w.end(), '"'), w.end());
      v.push_back(w);
    }
    if (!v.empty()) out.push_back(v);
  }
  return out;
}

bool skipped_dir(const fs::path& p) {
  const std::string name = p.filename().string();
  return name.empty() || name[0] == '.' || name.rfind("build", 0) == 0;
}

// Every file under root that is not in a build folder or a hidden one.
std::vector<std::string> tree_files(const fs::path& root) {
  std::vector<std::string> out;
  for (auto it = fs::recursive_directory_iterator(root); it != fs::recursive_directory_iterator();
       ++it) {
    if (it->is_directory() && skipped_dir(it->path())) {
      it.disable_recursion_pending();
      continue;
    }
    if (it->is_regular_file()) out.push_back(fs::relative(it->path(), root).string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

bool is_source(const std::string& f) {
  for (const char* ext : {".h", ".cc", ".hpp", ".cpp"})
    if (f.size() > std::strlen(ext) &&
        f.compare(f.size() - std::strlen(ext), std::string::npos, ext) == 0)
      return true;
  return false;
}

Targets read_targets(const fs::path& root, const std::vector<std::string>& files) {
  Targets t;
  static const std::set<std::string> kLibraryKinds = {"STATIC", "SHARED", "OBJECT", "INTERFACE",
                                                      "MODULE"};
  for (const auto& f : files) {
    if (fs::path(f).filename() != "CMakeLists.txt") continue;
    const std::string dir = fs::path(f).parent_path().string();
    const std::string text = slurp(root / f);
    auto add_sources = [&](Target& target, const std::string& word) {
      if (word.find("${") == std::string::npos && word.find("$<") == std::string::npos)
        target.sources.insert(join_path(dir, word));
    };
    for (const auto& a : calls(text, "hn_module")) {
      Target& target = t[a[0]];
      target.dir = dir;
      target.library = target.checked = true;
      std::string section;
      for (size_t i = 1; i < a.size(); ++i) {
        if (a[i] == "SOURCES" || a[i] == "DEPS" || a[i] == "PRIVATE_DEPS") {
          section = a[i];
        } else if (section == "SOURCES") {
          add_sources(target, a[i]);
        } else if (section == "DEPS") {
          target.public_deps.insert(a[i]);
        } else if (section == "PRIVATE_DEPS") {
          target.private_deps.insert(a[i]);
        }
      }
    }
    for (const auto& a : calls(text, "add_library")) {
      Target& target = t[a[0]];
      target.dir = dir;
      target.library = true;
      for (size_t i = 1; i < a.size(); ++i)
        if (!kLibraryKinds.count(a[i])) add_sources(target, a[i]);
    }
    for (const auto& a : calls(text, "add_executable")) {
      Target& target = t[a[0]];
      target.dir = dir;
      target.checked = dir == "bench" || dir.rfind("bench/", 0) == 0;
      for (size_t i = 1; i < a.size(); ++i) add_sources(target, a[i]);
    }
    for (const auto& a : calls(text, "target_link_libraries")) {
      Target& target = t[a[0]];
      bool is_private = false;
      for (size_t i = 1; i < a.size(); ++i) {
        if (a[i] == "PRIVATE")
          is_private = true;
        else if (a[i] == "PUBLIC" || a[i] == "INTERFACE")
          is_private = false;
        else
          (is_private ? target.private_deps : target.public_deps).insert(a[i]);
      }
    }
  }
  return t;
}

// The targets owning `file` (see the top of this file); empty when none does.
std::set<std::string> owners(const Targets& targets, const std::string& file) {
  std::set<std::string> out;
  for (const auto& [name, t] : targets)
    if (t.sources.count(file)) out.insert(name);
  if (!out.empty()) return out;
  const fs::path p(file);
  if (p.extension() == ".h" || p.extension() == ".hpp") {
    const std::string stem = (p.parent_path() / p.stem()).string();
    for (const auto& [name, t] : targets)
      if (t.sources.count(stem + ".cc") || t.sources.count(stem + ".cpp")) out.insert(name);
    if (!out.empty()) return out;
  }
  size_t best = 0;
  for (const auto& [name, t] : targets) {
    if (!t.library || t.dir.empty()) continue;
    if (file.rfind(t.dir + "/", 0) != 0 || t.dir.size() < best) continue;
    if (t.dir.size() > best) out.clear();
    best = t.dir.size();
    out.insert(name);
  }
  return out;
}

// What `name` may include: its own files and those of the targets it names.
std::set<std::string> allowed(const Targets& targets, const std::string& name) {
  const Target& self = targets.at(name);
  std::set<std::string> out = self.public_deps;
  out.insert(self.private_deps.begin(), self.private_deps.end());
  out.insert(name);
  return out;
}

struct Scan {
  std::vector<std::string> violations;  // "file:line: includes "x" (owner) ..."
  size_t checked_includes = 0;
  std::set<std::string> checked_targets;
};

Scan scan(const fs::path& root) {
  Scan out;
  const auto files = tree_files(root);
  const Targets targets = read_targets(root, files);
  std::set<std::string> present(files.begin(), files.end());
  static const std::regex kInclude(R"re(^\s*#\s*include\s*"([^"]+)")re");
  for (const auto& f : files) {
    if (!is_source(f) || f.rfind("tests/", 0) == 0) continue;
    std::vector<std::string> checked_owners;
    for (const auto& o : owners(targets, f))
      if (targets.at(o).checked) checked_owners.push_back(o);
    if (checked_owners.empty()) continue;
    std::ifstream in(root / f);
    std::string line;
    for (int n = 1; std::getline(in, line); ++n) {
      std::smatch m;
      if (!std::regex_search(line, m, kInclude)) continue;
      std::string target = m[1];
      if (!present.count(target)) {
        std::string local = join_path(fs::path(f).parent_path().string(), target);
        if (!present.count(local)) continue;  // generated or a library's header
        target = local;
      }
      const auto included_by = owners(targets, target);
      if (included_by.empty()) continue;
      for (const auto& o : checked_owners) {
        ++out.checked_includes;
        out.checked_targets.insert(o);
        const auto ok = allowed(targets, o);
        if (std::none_of(included_by.begin(), included_by.end(),
                         [&](const std::string& t) { return ok.count(t) > 0; }))
          out.violations.push_back(f + ":" + std::to_string(n) + ": includes \"" + m[1].str() +
                                   "\" of " + *included_by.begin() + ", which " + o +
                                   " does not name in its DEPS");
      }
    }
  }
  return out;
}

}  // namespace

TEST_CASE("module deps: every module includes only what it links") {
  const Scan s = scan(HN_SOURCE_DIR);
  // The scan must see the tree (an empty scan would pass anything).
  for (const char* t :
       {"hn_compat_input", "hn_compat_ops", "hn_compat_comm", "hn_translate", "hn_reports",
        "hn_isolation", "hn_l7_physical", "hn_l6_netplane", "hn_l5_sched", "hn_l4_operator",
        "hn_l3_comm", "hn_formats", "hn_drivers", "hn_probes", "hn_preflight", "storage_vs_fio"})
    CHECK(s.checked_targets.count(t) == 1);
  CHECK(s.checked_includes > 500);
  std::string report;
  for (const auto& v : s.violations) report += v + "\n";
  INFO(report);
  CHECK(s.violations.empty());
}

TEST_CASE("module deps: an include of a target not named in DEPS is found") {
  hn::test::TempDir dir;
  dir.write("CMakeLists.txt", "add_subdirectory(a)\n");
  dir.write("a/CMakeLists.txt", "hn_module(hn_a SOURCES a.cc DEPS ext::lib)\n");
  dir.write("a/a.h", "#pragma once\n");
  dir.write("a/a.cc", "#include \"a/a.h\"\n#include \"b/b.h\"\n");  // a does not name b
  dir.write("b/CMakeLists.txt", "# b names a\nhn_module(hn_b\n  SOURCES b.cc\n  DEPS hn_a)\n");
  dir.write("b/b.h", "#include \"a/a.h\"\n#include \"b/only_header.h\"\n");
  dir.write("b/only_header.h", "#pragma once\n");
  dir.write("b/b.cc", "#include \"b/b.h\"\n#include <vector>\n#include \"not/here.h\"\n");
  dir.write("c/CMakeLists.txt", "hn_module(hn_c SOURCES c.cc PRIVATE_DEPS hn_b)\n");
  // c reaches a only through b's DEPS: linked, but not named.
  dir.write("c/c.cc", "#include \"b/b.h\"\n#include \"a/a.h\"\n");
  dir.write("c/c.h", "#pragma once\n");
  dir.write("bench/CMakeLists.txt",
            "add_executable(tool tool.cc)\ntarget_link_libraries(tool PRIVATE hn_a)\n");
  dir.write("bench/tool.cc", "#include \"a/a.h\"\n#include \"c/c.h\"\n");
  const Scan s = scan(dir.path());
  std::string all;
  for (const auto& v : s.violations) all += v + "\n";
  INFO(all);
  REQUIRE(s.violations.size() == 3);
  CHECK(s.violations[0] ==
        "a/a.cc:2: includes \"b/b.h\" of hn_b, which hn_a does not name in its DEPS");
  CHECK(s.violations[1] ==
        "bench/tool.cc:2: includes \"c/c.h\" of hn_c, which tool does not name in its DEPS");
  CHECK(s.violations[2] ==
        "c/c.cc:2: includes \"a/a.h\" of hn_a, which hn_c does not name in its DEPS");
}

TEST_CASE("module deps: reading CMake calls") {
  auto v = calls(
      "# hn_module(commented SOURCES x.cc)\nhn_module(hn_x\n  SOURCES x.cc \"y.cc\" # y\n"
      "  DEPS $<TARGET_NAME:z> hn_y)\nnot_hn_module(q)\n",
      "hn_module");
  REQUIRE(v.size() == 1);
  CHECK(v[0] == std::vector<std::string>{"hn_x", "SOURCES", "x.cc", "y.cc", "DEPS",
                                         "$<TARGET_NAME:z>", "hn_y"});
}
