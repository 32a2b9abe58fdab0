#include "preflight/snapshot_capture.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

#include "formats/snapshot.h"
#include "preflight/command.h"
#include "preflight/node_sources.h"
#include "probes/snapshot_sources.h"

namespace hn::preflight {

namespace {

std::string read_all_fd(int fd) {
  std::string text;
  char buf[65536];
  off_t at = 0;
  for (;;) {
    ssize_t n = pread(fd, buf, sizeof buf, at);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0)
      throw std::runtime_error(std::string("reading the capture: ") + std::strerror(errno));
    if (n == 0) return text;
    text.append(buf, static_cast<std::size_t>(n));
    at += n;
  }
}

}  // namespace

SnapshotCapture capture_live_snapshot(
    drivers::Clock::time_point deadline,
    const std::function<void(drivers::WorkerChannel&, const std::string& yaml)>& then) {
  const char* tmpdir = std::getenv("TMPDIR");
  std::string hand_back =
      std::string(tmpdir && *tmpdir ? tmpdir : "/tmp") + "/hnprecheck-snapshot-XXXXXX";
  int hand_fd = mkostemp(hand_back.data(), O_CLOEXEC);
  if (hand_fd < 0)
    throw std::runtime_error("cannot create a temporary file " + hand_back + ": " +
                             std::strerror(errno));
  struct Cleanup {
    int fd;
    std::string path;
    ~Cleanup() {
      close(fd);
      unlink(path.c_str());
    }
  } cleanup{hand_fd, hand_back};
  auto work = [&hand_back, &then](drivers::WorkerChannel& ch) {
    ch.step("opening the live sources");
    probes::NodeSources sources = open_live_sources();
    ch.step("reading links, RDMA devices, accelerators, sensors, routes and mounts");
    std::string yaml = formats::snapshot_to_yaml(probes::capture_snapshot(sources, tool_version()));
    int fd = open(hand_back.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC);
    if (fd < 0) throw std::runtime_error("open " + hand_back + ": " + std::strerror(errno));
    for (std::size_t done = 0; done < yaml.size();) {
      ssize_t n = write(fd, yaml.data() + done, yaml.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) throw std::runtime_error("write " + hand_back + ": " + std::strerror(errno));
      done += static_cast<std::size_t>(n);
    }
    close(fd);
    if (then) then(ch, yaml);
  };
  SnapshotCapture c;
  c.run = drivers::run_supervised(work, deadline);
  if (c.run.end == drivers::SupervisedRun::End::kCompleted) c.yaml = read_all_fd(hand_fd);
  return c;
}

}  // namespace hn::preflight
