#include "tests/support/faultfs/faultfs_mount.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

namespace hn::test {

namespace {

using Clock = std::chrono::steady_clock;

std::string read_all(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// "major:minor" of the fuse mount at `point`, from mountinfo; empty if absent.
// Reading mountinfo never blocks on the (possibly hung) mount itself.
std::string fuse_device(const std::string& point) {
  std::istringstream in(read_all("/proc/self/mountinfo"));
  std::string line;
  std::string found;
  while (std::getline(in, line)) {
    std::istringstream f(line);
    std::string id, parent, dev, root, mp;
    f >> id >> parent >> dev >> root >> mp;
    std::string rest, fstype;
    while (f >> rest && rest != "-") {
    }
    f >> fstype;
    if (mp == point && fstype.rfind("fuse", 0) == 0) found = dev;
  }
  return found;
}

std::string faultfs_binary() {
  return HN_FAULTFS_BINARY;
}

}  // namespace

std::string FaultFsMount::unavailable_reason() {
  if (geteuid() != 0) return "needs root to mount a FUSE file system";
  if (access("/dev/fuse", R_OK | W_OK) != 0) return "/dev/fuse is missing or not accessible";
  if (access(faultfs_binary().c_str(), X_OK) != 0)
    return "the faultfs test file system was not built (" + faultfs_binary() + ")";
  return "";
}

FaultFsMount::FaultFsMount(const std::vector<std::string>& options) {
  const char* base = std::getenv("TMPDIR");
  std::string templ = std::string(base && *base ? base : "/tmp") + "/hn-faultfs-XXXXXX";
  if (!mkdtemp(templ.data())) throw std::runtime_error("mkdtemp failed for " + templ);
  dir_ = templ;
  mount_point_ = dir_ + "/mnt";
  socket_ = dir_ + "/ctl.sock";
  log_ = dir_ + "/faultfs.log";
  mkdir(mount_point_.c_str(), 0755);
  std::string opts = "fsname=faultfs,subtype=faultfs";
  for (const auto& o : options) opts += "," + o;
  std::vector<std::string> argv = {faultfs_binary(), "--control", socket_,
                                   mount_point_,     "-o",        opts};
  pid_ = fork();
  if (pid_ < 0) throw std::runtime_error("fork failed");
  if (pid_ == 0) {
    int fd = open(log_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
      dup2(fd, 1);
      dup2(fd, 2);
    }
    std::vector<char*> args;
    for (auto& a : argv) args.push_back(a.data());
    args.push_back(nullptr);
    execv(args[0], args.data());
    _exit(127);
  }
  auto deadline = Clock::now() + std::chrono::seconds(10);
  std::string why;
  while (Clock::now() < deadline) {
    int status = 0;
    if (waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      why = "faultfs exited: " + read_all(log_);
      break;
    }
    device_ = fuse_device(mount_point_);
    if (!device_.empty()) {
      try {
        control("ping");
        return;
      } catch (const std::exception& e) {
        why = e.what();
      }
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  teardown();
  throw std::runtime_error("faultfs did not come up on " + mount_point_ + ": " +
                           (why.empty() ? "timed out" : why));
}

FaultFsMount::~FaultFsMount() {
  teardown();
}

std::string FaultFsMount::control(const std::string& command) const {
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::strncpy(addr.sun_path, socket_.c_str(), sizeof addr.sun_path - 1);
  if (fd < 0 || connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    if (fd >= 0) close(fd);
    throw std::runtime_error("faultfs control socket " + socket_ + ": " + std::strerror(errno));
  }
  timeval tv{5, 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  std::string line = command + "\n";
  ssize_t ignored = write(fd, line.data(), line.size());
  (void)ignored;
  std::string reply;
  char c;
  while (read(fd, &c, 1) == 1 && c != '\n') reply += c;
  close(fd);
  if (reply.rfind("ok", 0) != 0)
    throw std::runtime_error("faultfs '" + command + "' failed: " + reply);
  return reply;
}

void FaultFsMount::teardown() {
  if (dir_.empty()) return;
  if (!device_.empty()) {
    // Fail every pending request so processes stuck in the mount wake up.
    std::string id = device_.substr(device_.find(':') + 1);
    std::string conn = "/sys/fs/fuse/connections/" + id;
    if (access(conn.c_str(), F_OK) != 0)
      mount("fusectl", "/sys/fs/fuse/connections", "fusectl", 0, nullptr);
    int fd = open((conn + "/abort").c_str(), O_WRONLY | O_CLOEXEC);
    if (fd >= 0) {
      ssize_t ignored = write(fd, "1", 1);
      (void)ignored;
      close(fd);
    }
  }
  if (pid_ > 0) {
    kill(pid_, SIGKILL);
    auto deadline = Clock::now() + std::chrono::seconds(5);
    while (waitpid(pid_, nullptr, WNOHANG) == 0 && Clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    pid_ = -1;
  }
  umount2(mount_point_.c_str(), MNT_DETACH);
  rmdir(mount_point_.c_str());
  unlink(socket_.c_str());
  unlink(log_.c_str());
  rmdir(dir_.c_str());
  dir_.clear();
}

}  // namespace hn::test
