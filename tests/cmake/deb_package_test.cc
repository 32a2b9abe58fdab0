// The .deb that `cpack -G DEB` makes (cmake/HnPackaging.cmake), installed with
// `dpkg --root` into a clean root that holds only what its Depends field
// pulls in: the closure of those packages over this machine's installed
// ones, copied file by file from `dpkg -L`, with their dpkg status. Then
// `hnprecheck --help` and `hnprecheck node` run chrooted in it, with /proc,
// /sys and /dev bound in a private mount namespace. A library the package
// forgets to depend on is then missing from the root and the run fails: the
// second test removes one dependency from the package and shows exactly that.

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <deque>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "tests/support/process.h"
#include "tests/support/skip.h"
#include "tests/support/temp_dir.h"

namespace fs = std::filesystem;
using hn::test::ProcessResult;
using hn::test::read_file;
using hn::test::run_process;
using hn::test::TempDir;

namespace {

ProcessResult sh(const std::string& script, double timeout_s = 300) {
  return run_process({"/bin/sh", "-c", script}, timeout_s);
}

void require_machine() {
  if (::geteuid() != 0) hn::test::skip("needs root (dpkg --root, chroot, mount namespaces)");
  for (const char* tool : {"/usr/bin/dpkg-shlibdeps", "/usr/bin/unshare", "/usr/sbin/chroot"})
    if (::access(tool, X_OK) != 0)
      hn::test::skip(std::string(tool) +
                     " is missing (scripts/install-deps.sh --test installs dpkg-dev)");
  if (sh("unshare --mount true", 30).exit_code != 0)
    hn::test::skip("cannot make a private mount namespace here (unshare --mount)");
}

// cpack into `dir`; returns the .deb's path.
std::string make_package(const std::string& dir) {
  auto r = run_process({"/usr/bin/cpack", "-G", "DEB", "--config",
                        std::string(HN_BUILD_DIR) + "/CPackConfig.cmake", "-B", dir},
                       600);
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().extension() == ".deb") return e.path();
  FAIL("cpack made no .deb in " << dir);
  return "";
}

bool installed(const std::string& pkg) {
  auto r = run_process({"/usr/bin/dpkg-query", "-W", "-f=${Status}", pkg}, 30);
  return r.exit_code == 0 && r.out == "install ok installed";
}

// "a (>= 1), b | c, d:any" -> for each clause the first alternative installed here.
std::vector<std::string> depends_of(const std::string& field) {
  std::vector<std::string> out;
  std::stringstream clauses(field);
  for (std::string clause; std::getline(clauses, clause, ',');) {
    std::stringstream alts(clause);
    std::string chosen;
    for (std::string alt; std::getline(alts, alt, '|');) {
      std::stringstream words(alt);
      std::string name;
      words >> name;
      name = name.substr(0, name.find(':'));
      if (!name.empty() && installed(name)) {
        chosen = name;
        break;
      }
    }
    INFO("no alternative of '" << clause << "' is installed on this machine");
    if (clause.find_first_not_of(" \n") != std::string::npos) REQUIRE(!chosen.empty());
    if (!chosen.empty()) out.push_back(chosen);
  }
  return out;
}

std::set<std::string> closure(const std::vector<std::string>& roots) {
  std::set<std::string> seen;
  std::deque<std::string> todo(roots.begin(), roots.end());
  while (!todo.empty()) {
    std::string p = todo.front();
    todo.pop_front();
    if (!seen.insert(p).second) continue;
    auto r = run_process({"/usr/bin/dpkg-query", "-W", "-f=${Pre-Depends}, ${Depends}", p}, 30);
    REQUIRE(r.exit_code == 0);
    for (const auto& d : depends_of(r.out)) todo.push_back(d);
  }
  return seen;
}

// The host's dpkg status stanza of each package.
std::string status_of(const std::set<std::string>& pkgs) {
  std::istringstream in(read_file("/var/lib/dpkg/status"));
  std::string out, stanza, line, name;
  auto flush = [&] {
    if (pkgs.count(name) && stanza.find("\nStatus: install ok installed") != std::string::npos)
      out += stanza + "\n\n";
    stanza.clear();
    name.clear();
  };
  while (std::getline(in, line)) {
    if (line.empty()) {
      flush();
      continue;
    }
    if (line.rfind("Package: ", 0) == 0) name = line.substr(9);
    stanza += (stanza.empty() ? "" : "\n") + line;
  }
  flush();
  return out;
}

// A root with merged /usr (as Debian 12 has), the files of `pkgs` and their
// dpkg status: nothing else.
void make_root(const std::string& root, const std::set<std::string>& pkgs) {
  for (const char* d :
       {"usr/bin", "usr/sbin", "usr/lib", "usr/lib64", "etc", "proc", "sys", "dev", "tmp", "run",
        "var/lib/dpkg/info", "var/lib/dpkg/updates", "var/lib/dpkg/triggers"})
    fs::create_directories(root + "/" + d);
  for (const char* l : {"bin", "sbin", "lib", "lib64"})
    fs::create_directory_symlink(std::string("usr/") + l, root + "/" + l);
  ::chmod((root + "/tmp").c_str(), 01777);
  for (const auto& p : pkgs) {
    auto r = run_process({"/usr/bin/dpkg", "-L", p}, 60);
    REQUIRE(r.exit_code == 0);
    std::istringstream files(r.out);
    for (std::string f; std::getline(files, f);) {
      struct stat st {};
      if (f.empty() || f[0] != '/' || ::lstat(f.c_str(), &st) != 0 || S_ISDIR(st.st_mode))
        continue;  // diversions, removed conffiles, directories
      const fs::path to = root + f;
      fs::create_directories(to.parent_path());
      if (fs::exists(fs::symlink_status(to))) continue;
      if (S_ISLNK(st.st_mode))
        fs::copy_symlink(f, to);
      else
        fs::copy_file(f, to);
    }
  }
  std::ofstream(root + "/var/lib/dpkg/status") << status_of(pkgs);
  std::ofstream(root + "/var/lib/dpkg/available");
  std::ofstream(root + "/etc/hostname") << "deb-test\n";
}

// Runs argv in the root, with /proc, /sys and /dev of this machine.
ProcessResult in_root(const std::string& root, const std::string& command) {
  return sh("unshare --mount --propagation private sh -c 'mount --bind /proc " + root +
                "/proc && mount --rbind /sys " + root + "/sys && mount --bind /dev " + root +
                "/dev && exec chroot " + root + " " + command + "'",
            120);
}

std::vector<std::string> package_depends(const std::string& deb) {
  auto r = run_process({"/usr/bin/dpkg-deb", "-f", deb, "Depends"}, 30);
  REQUIRE(r.exit_code == 0);
  return depends_of(r.out);
}

}  // namespace

TEST_CASE("deb: installs into a clean root with only its dependencies and runs there") {
  require_machine();
  TempDir t;
  const std::string deb = make_package(t.path() + "/pkg");
  // What the package must carry.
  auto contents = run_process({"/usr/bin/dpkg-deb", "-c", deb}, 30);
  REQUIRE(contents.exit_code == 0);
  for (const char* f :
       {"./usr/bin/hnprecheck", "./usr/share/man/man1/hnprecheck.1.gz",
        "./usr/share/bash-completion/completions/hnprecheck",
        "./usr/share/doc/hnprecheck/examples/profiles/roce-cluster.yaml",
        "./usr/libexec/hnprecheck/slurm-prolog", "./usr/libexec/hnprecheck/slurm-healthcheck",
        "./usr/libexec/hnprecheck/run-every"})
    CHECK(contents.out.find(f) != std::string::npos);
  auto maintainer = run_process({"/usr/bin/dpkg-deb", "-f", deb, "Maintainer"}, 30);
  CHECK(maintainer.out.find('@') != std::string::npos);

  const auto deps = package_depends(deb);
  CHECK(std::find(deps.begin(), deps.end(), "libyaml-cpp0.7") != deps.end());
  const std::string root = t.path() + "/root";
  make_root(root, closure(deps));
  auto inst = run_process({"/usr/bin/dpkg", "--root=" + root, "-i", deb}, 300);
  INFO(inst.out << inst.err);
  REQUIRE(inst.exit_code == 0);
  auto listed = run_process({"/usr/bin/dpkg", "--root=" + root, "-s", "hnprecheck"}, 30);
  CHECK(listed.out.find("Status: install ok installed") != std::string::npos);

  auto help = in_root(root, "/usr/bin/hnprecheck --help");
  INFO(help.out << help.err);
  CHECK(help.exit_code == 0);
  CHECK(help.out.find("Commands:") != std::string::npos);
  auto node = in_root(root, "/usr/bin/hnprecheck node --no-color");
  INFO(node.out << node.err);
  CHECK((node.exit_code == 0 || node.exit_code == 1));
  CHECK(node.out.find(" checks: ") != std::string::npos);
  // The example profile it ships is one the binary accepts.
  auto example = in_root(root,
                         "/usr/bin/hnprecheck node --no-color --profile "
                         "/usr/share/doc/hnprecheck/examples/profiles/roce-cluster.yaml");
  INFO(example.out << example.err);
  CHECK((example.exit_code == 0 || example.exit_code == 1));
}

TEST_CASE("deb: a package that forgets a dependency fails to run in the clean root") {
  require_machine();
  TempDir t;
  const std::string deb = make_package(t.path() + "/pkg");
  // Unpack, drop libyaml-cpp from Depends, pack again.
  const std::string tree = t.path() + "/tree", bad = t.path() + "/bad.deb";
  REQUIRE(run_process({"/usr/bin/dpkg-deb", "-R", deb, tree}, 60).exit_code == 0);
  std::string control = read_file(tree + "/DEBIAN/control");
  const auto at = control.find("libyaml-cpp0.7");
  REQUIRE(at != std::string::npos);
  auto end = control.find_first_of(",\n", at);
  if (control[end] == ',') ++end;  // the clause and its comma, or the comma before it
  const auto begin = control[end - 1] == ',' ? at : control.rfind(',', at);
  control.erase(begin, end - begin);
  REQUIRE(control.find("libyaml-cpp") == std::string::npos);
  std::ofstream(tree + "/DEBIAN/control") << control;
  REQUIRE(run_process({"/usr/bin/dpkg-deb", "-b", tree, bad}, 120).exit_code == 0);

  const auto deps = closure(package_depends(bad));
  REQUIRE(deps.count("libyaml-cpp0.7") == 0);  // nothing else pulls it in
  const std::string root = t.path() + "/root";
  make_root(root, deps);
  REQUIRE(run_process({"/usr/bin/dpkg", "--root=" + root, "-i", bad}, 300).exit_code == 0);
  auto help = in_root(root, "/usr/bin/hnprecheck --help");
  CHECK(help.exit_code != 0);
  CHECK(help.err.find("libyaml-cpp.so") != std::string::npos);
}
