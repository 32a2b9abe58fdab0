#include "reports/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>

#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <stdexcept>

#include "tests/support/skip.h"
#include "tests/support/temp_dir.h"

using namespace hn::reports;
namespace fs = std::filesystem;

namespace {
// Everything in dir except the names given: a leftover temp file shows up here.
std::vector<std::string> entries(const std::string& dir) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename());
  std::sort(names.begin(), names.end());
  return names;
}
}  // namespace

TEST_CASE("write_output creates a file with the content and no leftovers") {
  hn::test::TempDir dir;
  std::string path = dir.path() + "/report.json";
  write_output(path, "{\"a\":1}\n");
  CHECK(hn::test::read_file(path) == "{\"a\":1}\n");
  CHECK(entries(dir.path()) == std::vector<std::string>{"report.json"});

  // Mode follows the umask like any new file, not mkstemp's 0600.
  mode_t old = ::umask(027);
  write_output(dir.path() + "/masked", "x");
  ::umask(old);
  struct stat st {};
  REQUIRE(::stat((dir.path() + "/masked").c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0640);
}

TEST_CASE("write_output replaces an existing file whole and keeps its mode") {
  hn::test::TempDir dir;
  std::string path = dir.write("out.xml", std::string(10000, 'o'));
  REQUIRE(::chmod(path.c_str(), 0604) == 0);
  write_output(path, "short");
  CHECK(hn::test::read_file(path) == "short");
  struct stat st {};
  REQUIRE(::stat(path.c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0604);
  CHECK(entries(dir.path()) == std::vector<std::string>{"out.xml"});
}

TEST_CASE("write_output of empty content and to a relative path") {
  hn::test::TempDir dir;
  std::string cwd = fs::current_path();
  REQUIRE(::chdir(dir.path().c_str()) == 0);
  write_output("rel.txt", "");
  REQUIRE(::chdir(cwd.c_str()) == 0);
  CHECK(fs::file_size(dir.path() + "/rel.txt") == 0);
}

TEST_CASE("write_output into a missing directory names the path and the error") {
  hn::test::TempDir dir;
  std::string path = dir.path() + "/no/such/dir/report.json";
  CHECK_THROWS_WITH(write_output(path, "x"),
                    Catch::Contains(path) && Catch::Contains("No such file or directory"));
}

TEST_CASE("a directory at the path is refused, leaving it and no temp file behind") {
  hn::test::TempDir dir;
  dir.write("target/keep", "precious");
  std::string path = dir.path() + "/target";
  CHECK_THROWS_WITH(write_output(path, "new"),
                    Catch::Contains(path) && Catch::Contains("is a directory"));
  CHECK(entries(dir.path()) == std::vector<std::string>{"target"});
  CHECK(hn::test::read_file(path + "/keep") == "precious");
}

TEST_CASE("write_output writes through a symlink to the file it names") {
  hn::test::TempDir dir;
  std::string real = dir.write("data/real.json", "old\n");
  REQUIRE(::chmod(real.c_str(), 0640) == 0);
  std::string link = dir.path() + "/link.json";
  REQUIRE(::symlink("data/real.json", link.c_str()) == 0);  // relative, into a subdir
  write_output(link, "new\n");
  struct stat st {};
  REQUIRE(::lstat(link.c_str(), &st) == 0);
  CHECK(S_ISLNK(st.st_mode));                   // was replaced by a regular file before the fix
  CHECK(hn::test::read_file(real) == "new\n");  // kept "old" before the fix
  REQUIRE(::stat(real.c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0640);
  // The temp file was made next to the real file; nothing is left anywhere.
  CHECK(entries(dir.path()) == std::vector<std::string>{"data", "link.json"});
  CHECK(entries(dir.path() + "/data") == std::vector<std::string>{"real.json"});

  // A chain of links, and a dangling one: the name it points at is created.
  std::string link2 = dir.path() + "/link2.json";
  REQUIRE(::symlink(link.c_str(), link2.c_str()) == 0);
  write_output(link2, "newer\n");
  CHECK(hn::test::read_file(real) == "newer\n");
  std::string dangling = dir.path() + "/dangling.json";
  REQUIRE(::symlink("data/created.json", dangling.c_str()) == 0);
  write_output(dangling, "made\n");
  CHECK(hn::test::read_file(dir.path() + "/data/created.json") == "made\n");
  REQUIRE(::lstat(dangling.c_str(), &st) == 0);
  CHECK(S_ISLNK(st.st_mode));
}

TEST_CASE("output_path_problem says why a path cannot be written, before any work") {
  hn::test::TempDir dir;
  CHECK(output_path_problem("-").empty());
  CHECK(output_path_problem(dir.path() + "/new.json").empty());
  CHECK(output_path_problem(dir.write("old.json", "x")).empty());
  CHECK(output_path_problem("/dev/null").empty());
  CHECK_THAT(output_path_problem(""), Catch::Contains("needs a file path"));
  CHECK_THAT(output_path_problem(dir.path()), Catch::Contains("is a directory"));
  CHECK_THAT(output_path_problem(dir.path() + "/sub/"), Catch::Contains("names a directory"));
  CHECK_THAT(output_path_problem(dir.path() + "/no/x.json"),
             Catch::Contains("directory " + dir.path() + "/no") &&
                 Catch::Contains("No such file or directory"));
  std::string file = dir.write("file", "x");
  CHECK_THAT(output_path_problem(file + "/x.json"), Catch::Contains("is not a directory"));
  std::string dangling = dir.path() + "/dangling";
  REQUIRE(::symlink("missing-dir/x.json", dangling.c_str()) == 0);
  CHECK_THAT(output_path_problem(dangling), Catch::Contains("missing-dir"));
}

TEST_CASE("write_output rejects a path that names a directory") {
  CHECK_THROWS_AS(write_output("", "x"), std::runtime_error);
  CHECK_THROWS_AS(write_output("/tmp/", "x"), std::runtime_error);
}

TEST_CASE("write_output \"-\" writes to stdout") {
  hn::test::TempDir dir;
  std::string captured = dir.path() + "/stdout";
  std::fflush(stdout);
  int saved = ::dup(STDOUT_FILENO);
  int fd = ::open(captured.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  REQUIRE(saved >= 0);
  REQUIRE(fd >= 0);
  ::dup2(fd, STDOUT_FILENO);
  ::close(fd);
  write_output("-", "to stdout\n");
  ::dup2(saved, STDOUT_FILENO);
  ::close(saved);
  CHECK(hn::test::read_file(captured) == "to stdout\n");
  CHECK_FALSE(fs::exists("-"));
}

TEST_CASE("write_output writes through to a device instead of replacing it") {
  // Through a symlink in a temp dir: should this regress, only the symlink is
  // replaced, never /dev/null itself.
  hn::test::TempDir dir;
  std::string link = dir.path() + "/out";
  REQUIRE(::symlink("/dev/null", link.c_str()) == 0);
  write_output(link, "discarded\n");
  struct stat st {};
  REQUIRE(::lstat(link.c_str(), &st) == 0);
  CHECK(S_ISLNK(st.st_mode));
  REQUIRE(::stat("/dev/null", &st) == 0);
  CHECK(S_ISCHR(st.st_mode));
}

TEST_CASE("a symlink that is neither ours nor root's is never followed") {
  // As root: a directory like /tmp (1777) and a job owner's own directory,
  // each with a link owned by nobody that points at a file of ours.
  if (::geteuid() != 0) hn::test::skip("needs root to plant a link owned by another user");
  hn::test::TempDir dir;
  const std::string victim = dir.write("victim", "precious\n");
  for (mode_t mode : {mode_t{01777}, mode_t{0755}}) {
    const std::string pub = dir.path() + (mode == 01777 ? "/sticky" : "/owned");
    REQUIRE(::mkdir(pub.c_str(), 0700) == 0);
    REQUIRE(::chmod(pub.c_str(), mode) == 0);
    if (mode == 0755) REQUIRE(::chown(pub.c_str(), 65534, 65534) == 0);
    const std::string link = pub + "/report.json";
    REQUIRE(::symlink(victim.c_str(), link.c_str()) == 0);
    REQUIRE(::lchown(link.c_str(), 65534, 65534) == 0);
    CHECK_THAT(
        output_path_problem(link),
        Catch::Contains("refusing to follow the symlink " + link) && Catch::Contains("uid 65534"));
    CHECK_THROWS_WITH(write_output(link, "overwritten\n"), Catch::Contains("uid 65534"));
    CHECK_FALSE(read_existing_output(link, 100).has_value());
    // The same link as a directory on the way.
    const std::string via = pub + "/sub";
    REQUIRE(::symlink(dir.path().c_str(), via.c_str()) == 0);
    REQUIRE(::lchown(via.c_str(), 65534, 65534) == 0);
    CHECK_THROWS_WITH(write_output(via + "/victim", "overwritten\n"),
                      Catch::Contains("refusing to follow the symlink " + via));
    CHECK(hn::test::read_file(victim) == "precious\n");
    // Our own link there is followed.
    REQUIRE(::lchown(link.c_str(), 0, 0) == 0);
    CHECK(output_path_problem(link).empty());
    write_output(link, "ours\n");
    CHECK(hn::test::read_file(victim) == "ours\n");
    write_output(victim, "precious\n");
  }
}

TEST_CASE("a replaced file keeps its mode only when it is ours, and never 07000") {
  hn::test::TempDir dir;
  const std::string own = dir.write("own.json", "old");
  REQUIRE(::chmod(own.c_str(), 04755) == 0);
  write_output(own, "new");
  struct stat st {};
  REQUIRE(::stat(own.c_str(), &st) == 0);
  CHECK((st.st_mode & 07777) == 0755);
  if (::geteuid() != 0) hn::test::skip("needs root to make a file owned by another user");
  const std::string theirs = dir.write("theirs.json", "planted");
  REQUIRE(::chown(theirs.c_str(), 65534, 65534) == 0);
  REQUIRE(::chmod(theirs.c_str(), 06777) == 0);
  mode_t old = ::umask(022);
  write_output(theirs, "root's report");
  ::umask(old);
  REQUIRE(::stat(theirs.c_str(), &st) == 0);
  CHECK((st.st_mode & 07777) == 0644);
  CHECK(st.st_uid == 0);
}

// The attack the handles defeat: another user flips a link at the output's
// name for the whole run, so any write made by name after a check lands in
// the victim now and then. Run as root with a child that drops to nobody.
TEST_CASE("a link flipped at the output's name during the writes is never written through") {
  if (::geteuid() != 0) hn::test::skip("needs root to run the attacker as another user");
  hn::test::TempDir dir;
  const std::string victim = dir.write("victim", "precious\n");
  REQUIRE(::chmod(victim.c_str(), 0600) == 0);
  REQUIRE(::chmod(dir.path().c_str(), 0755) == 0);
  const std::string pub = dir.path() + "/pub";
  REQUIRE(::mkdir(pub.c_str(), 0700) == 0);
  REQUIRE(::chmod(pub.c_str(), 01777) == 0);
  const std::string out = pub + "/out.json";
  const std::string sub = pub + "/sub";  // a parent directory flipped too
  REQUIRE(::mkdir(sub.c_str(), 0700) == 0);
  REQUIRE(::chown(sub.c_str(), 65534, 65534) == 0);
  pid_t attacker = ::fork();
  REQUIRE(attacker >= 0);
  if (attacker == 0) {
    if (::setgid(65534) != 0 || ::setuid(65534) != 0) ::_exit(1);
    const std::string tmp = pub + "/.flip";
    for (;;) {
      ::symlink(victim.c_str(), tmp.c_str());
      ::rename(tmp.c_str(), out.c_str());  // atomically a link, held a moment...
      ::usleep(50);
      ::unlink(out.c_str());  // ...then nothing
      ::rmdir(sub.c_str());
      ::symlink(dir.path().c_str(), tmp.c_str());
      ::rename(tmp.c_str(), sub.c_str());
      ::unlink(sub.c_str());
      ::mkdir(sub.c_str(), 0755);
    }
  }
  int written = 0, refused = 0, met_link = 0;
  for (int i = 0; i < 3000; ++i) {
    const std::string& target = i % 2 == 0 ? out : sub + "/victim";
    try {
      write_output(target, "report " + std::to_string(i) + "\n");
      ++written;
      // Our file would pin the name (the attacker cannot replace root's
      // file in a sticky directory): remove it so every write races.
      if (i % 2 == 0) ::unlink(out.c_str());
    } catch (const std::runtime_error& e) {
      CHECK_THAT(e.what(), Catch::Contains("uid 65534") || Catch::Contains("No such file") ||
                               Catch::Contains("not a directory") ||
                               Catch::Contains("Permission denied"));
      ++refused;
      if (std::string(e.what()).find("uid 65534") != std::string::npos) ++met_link;
    }
  }
  ::kill(attacker, SIGKILL);
  ::waitpid(attacker, nullptr, 0);
  CHECK(hn::test::read_file(victim) == "precious\n");
  struct stat st {};
  REQUIRE(::stat(victim.c_str(), &st) == 0);
  CHECK((st.st_mode & 07777) == 0600);
  WARN("written " << written << ", refused " << refused << ", of which at the attacker's link "
                  << met_link);
  CHECK(written > 0);   // the race was run, not refused wholesale
  CHECK(met_link > 0);  // and the writes did meet the attacker's links
}

TEST_CASE("files written together are replaced together or not at all") {
  hn::test::TempDir dir;
  const std::string a = dir.write("a/job.env", "old env\n");
  const std::string b = dir.write("b/job.migrated.sh", "old script\n");
  write_outputs_together({{a, "new env\n"}, {b, "new script\n"}});
  CHECK(hn::test::read_file(a) == "new env\n");
  CHECK(hn::test::read_file(b) == "new script\n");
  // The second directory disappears under it: the first is not replaced.
  CHECK_THROWS_WITH(write_outputs_together({{a, "newer env\n"}, {dir.path() + "/gone/x", "y"}}),
                    Catch::Contains(dir.path() + "/gone"));
  CHECK(hn::test::read_file(a) == "new env\n");
  CHECK(entries(dir.path() + "/a") == std::vector<std::string>{"job.env"});
  CHECK_THROWS(write_outputs_together({{"-", "x"}}));
}

TEST_CASE("/dev/stdout redirected to a file is appended to, as the shell's descriptor") {
  hn::test::TempDir dir;
  const std::string captured = dir.write("log", "earlier line\n");
  std::fflush(stdout);
  int saved = ::dup(STDOUT_FILENO);
  int fd = ::open(captured.c_str(), O_WRONLY | O_APPEND);
  REQUIRE(saved >= 0);
  REQUIRE(fd >= 0);
  ::dup2(fd, STDOUT_FILENO);
  ::close(fd);
  CHECK(output_path_problem("/dev/stdout").empty());
  write_output("/dev/stdout", "report\n");
  ::dup2(saved, STDOUT_FILENO);
  ::close(saved);
  CHECK(hn::test::read_file(captured) == "earlier line\nreport\n");
  CHECK(read_existing_output(captured, 7) == std::optional<std::string>("earlier"));
}

TEST_CASE("a FIFO nobody reads fails at the deadline instead of blocking") {
  hn::test::TempDir dir;
  const std::string fifo = dir.path() + "/out.fifo";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  const auto t0 = std::chrono::steady_clock::now();
  CHECK_THROWS_WITH(write_output(fifo, "x\n", t0 + std::chrono::milliseconds(300)),
                    Catch::Contains("timed out") && Catch::Contains("no process opened the FIFO"));
  // A reader that never reads: the pipe fills, and the write stops at the deadline.
  int reader = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK);
  REQUIRE(reader >= 0);
  CHECK_THROWS_WITH(write_output(fifo, std::string(1 << 20, 'x'),
                                 std::chrono::steady_clock::now() + std::chrono::milliseconds(300)),
                    Catch::Contains("the reader stopped reading"));
  ::close(reader);
}
