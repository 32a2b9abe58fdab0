// The README's order on a fresh machine: `scripts/quickstart` configures and
// builds before `scripts/test` installs the test packages (libfuse3-dev among
// them). A build configured without FUSE must not stay without it: the
// package database is a configure input (cmake/HnDependencies.cmake), so the
// test command's build reconfigures and builds what a clean build builds; and
// where that did not happen, scripts/check-build-deps fails loudly instead of
// letting the fuse tests skip.
//
// The tests simulate "libfuse3-dev not installed yet" by hiding fuse3.pc from
// pkg-config (PKG_CONFIG_LIBDIR) and "apt-get installed it" by changing a copy
// of the package database that the scratch build is configured to watch; the
// machine's packages are never touched. They build only the faultfs test file
// system (the part FUSE decides) in scratch build directories.

#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "tests/support/process.h"
#include "tests/support/skip.h"
#include "tests/support/temp_dir.h"

namespace fs = std::filesystem;
using hn::test::ProcessResult;
using hn::test::run_process;
using hn::test::TempDir;

namespace {

const std::string kSource = HN_SOURCE_DIR;

bool package_installed(const std::string& name) {
  auto r = run_process({"/usr/bin/dpkg-query", "-W", "-f=${Status}", name}, 30);
  return r.exit_code == 0 && r.out == "install ok installed";
}

void require_machine() {
  if (!package_installed("libfuse3-dev"))
    hn::test::skip("libfuse3-dev is not installed (scripts/install-deps.sh --test installs it)");
  if (!fs::exists("/var/lib/dpkg/status")) hn::test::skip("no Debian package database here");
}

// A pkg-config search directory with every .pc file of the default path but
// fuse3.pc: "libfuse3-dev is not installed yet" for this build only.
std::string pkg_config_without_fuse(const TempDir& t) {
  auto r = run_process({"/usr/bin/pkg-config", "--variable", "pc_path", "pkg-config"}, 30);
  REQUIRE(r.exit_code == 0);
  const std::string dir = t.path() + "/pc";
  fs::create_directories(dir);
  std::stringstream path(r.out.substr(0, r.out.find('\n')));
  for (std::string d; std::getline(path, d, ':');) {
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(d, ec)) {
      const std::string name = e.path().filename();
      if (e.path().extension() != ".pc" || name == "fuse3.pc") continue;
      if (!fs::exists(dir + "/" + name)) fs::create_symlink(e.path(), dir + "/" + name);
    }
  }
  return dir;
}

// scripts/build.sh into `build_dir`, building only the faultfs client (which
// pulls the faultfs binary in when FUSE was found).
ProcessResult build(const std::string& build_dir, std::vector<std::string> extra_env,
                    std::vector<std::string> defs = {}) {
  std::vector<std::string> argv = {kSource + "/scripts/build.sh", "--target", "hn_faultfs_client"};
  argv.insert(argv.end(), defs.begin(), defs.end());
  extra_env.push_back("HN_BUILD_DIR=" + build_dir);
  auto r = run_process(argv, 540, extra_env);
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  return r;
}

std::string optional_deps(const std::string& build_dir) {
  return hn::test::read_file(build_dir + "/optional-dependencies.txt");
}

ProcessResult check_build_deps(const std::string& build_dir) {
  return run_process({kSource + "/scripts/check-build-deps", build_dir}, 60);
}

// Every build output, with the build directory's own path taken out (custom
// commands name their outputs by absolute path). Phony targets are left out:
// they are CMake's own inputs, and a first configure reads more of those
// (compiler detection) than a re-run.
std::string ninja_targets(const std::string& build_dir) {
  auto r = run_process({"/usr/bin/ninja", "-C", build_dir, "-t", "targets", "all"}, 60);
  REQUIRE(r.exit_code == 0);
  std::istringstream in(r.out);
  std::string out;
  for (std::string line; std::getline(in, line);) {
    if (line.ends_with(": phony")) continue;
    for (std::size_t at; (at = line.find(build_dir)) != std::string::npos;)
      line.replace(at, build_dir.size(), "<build>");
    out += line + "\n";
  }
  return out;
}

// Quickstart's set-up: the build configured and built while fuse3 is hidden,
// against a private copy of the package database.
void quickstart_setup(const TempDir& t, const std::string& build_dir, const std::string& db) {
  fs::copy_file("/var/lib/dpkg/status", db);
  build(build_dir, {"PKG_CONFIG_LIBDIR=" + pkg_config_without_fuse(t)},
        {"-DHN_PACKAGE_DATABASE=" + db});
  // Without this the test would prove nothing: the simulation must hold.
  REQUIRE(optional_deps(build_dir) == "fuse3 libfuse3-dev missing\n");
  REQUIRE_FALSE(fs::exists(build_dir + "/tests/faultfs"));
}

// What apt-get does to the package database when it installs a package.
void record_install(const std::string& db) {
  struct stat before {};
  REQUIRE(::stat(db.c_str(), &before) == 0);
  std::ofstream(db, std::ios::app) << "\nPackage: hn-newcomer-path-test\nStatus: install ok "
                                      "installed\nVersion: 1\n";
  struct stat after {};
  REQUIRE(::stat(db.c_str(), &after) == 0);
  REQUIRE((after.st_mtim.tv_sec != before.st_mtim.tv_sec ||
           after.st_mtim.tv_nsec != before.st_mtim.tv_nsec));
}

}  // namespace

TEST_CASE("newcomer path: quickstart then test builds what a clean build builds") {
  require_machine();
  TempDir t;
  const std::string stale = t.path() + "/quickstart-build", db = t.path() + "/status";
  quickstart_setup(t, stale, db);
  // The stale build is caught before anything runs on it.
  auto early = check_build_deps(stale);
  CHECK(early.exit_code == 1);
  CHECK(early.err.find("libfuse3-dev is installed") != std::string::npos);

  record_install(db);
  build(stale, {});  // the test command's build step, fuse3 now visible
  CHECK(optional_deps(stale) == "fuse3 libfuse3-dev found\n");
  CHECK(fs::exists(stale + "/tests/faultfs"));
  auto late = check_build_deps(stale);
  INFO(late.err);
  CHECK(late.exit_code == 0);

  // A clean build of the same tree: the same optional parts and the same
  // build targets (so the same tests run, none skips for a missing part).
  const std::string clean = t.path() + "/clean-build";
  build(clean, {}, {"-DHN_PACKAGE_DATABASE=" + db});
  CHECK(optional_deps(clean) == optional_deps(stale));
  CHECK(fs::exists(clean + "/tests/faultfs"));
  const std::string targets = ninja_targets(clean);
  CHECK(targets.find("tests/faultfs: CXX_EXECUTABLE_LINKER") != std::string::npos);
  CHECK(targets == ninja_targets(stale));
}

TEST_CASE("newcomer path: a build that did not reconfigure is refused, naming the package") {
  require_machine();
  TempDir t;
  const std::string stale = t.path() + "/quickstart-build", db = t.path() + "/status";
  quickstart_setup(t, stale, db);
  // The package appears for pkg-config but the database the build watches
  // does not change: exactly the old behaviour, where nothing told CMake to
  // look again.
  build(stale, {});
  REQUIRE(optional_deps(stale) == "fuse3 libfuse3-dev missing\n");
  auto r = check_build_deps(stale);
  CHECK(r.exit_code == 1);
  CHECK(r.err.find("libfuse3-dev is installed, but the build in " + stale +
                   " was configured without fuse3") != std::string::npos);
  CHECK(r.err.find("reconfigure") != std::string::npos);
}

TEST_CASE("newcomer path: check-build-deps on a directory that was never configured is exit 2") {
  TempDir t;
  auto r = check_build_deps(t.path());
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("optional-dependencies.txt does not exist") != std::string::npos);
}
