// faultfs: a FUSE file system for tests only. An in-memory tree whose every
// operation can be delayed, failed (EIO, ESTALE) or hung on command, so the
// storage probes are tested on a real mount that misbehaves on purpose.
//
//   faultfs --control SOCKET [--max-bytes N] MOUNTPOINT [-o fsname=...,subtype=...,ro]
//
// Runs in the foreground until unmounted or killed. Commands arrive on the
// unix stream socket SOCKET, one line per connection (see faults.h).
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "tests/support/faultfs/faults.h"
#include "tests/support/faultfs/mem_fs.h"

#include <fuse3/fuse_lowlevel.h>  // fuse_parse_cmdline

namespace {

using hn::test::faultfs::Faults;

int listen_on(const std::string& path) {
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (fd < 0 || path.size() >= sizeof addr.sun_path) return -1;
  std::strcpy(addr.sun_path, path.c_str());
  unlink(path.c_str());
  if (bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 || listen(fd, 8) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

void serve_control(int listener, Faults* faults) {
  for (;;) {
    int c = accept4(listener, nullptr, nullptr, SOCK_CLOEXEC);
    if (c < 0) continue;
    std::string line;
    char ch;
    while (read(c, &ch, 1) == 1 && ch != '\n') line += ch;
    std::string reply = faults->command(line) + "\n";
    ssize_t ignored = write(c, reply.data(), reply.size());
    (void)ignored;
    close(c);
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::string control;
  std::uint64_t max_bytes = 1ull << 30;
  std::vector<char*> rest = {argv[0]};
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--control" && i + 1 < argc) {
      control = argv[++i];
    } else if (a == "--max-bytes" && i + 1 < argc) {
      max_bytes = std::strtoull(argv[++i], nullptr, 10);
    } else {
      rest.push_back(argv[i]);
    }
  }
  if (control.empty()) {
    std::fprintf(stderr, "faultfs: --control SOCKET is required\n");
    return 2;
  }
  static Faults faults;
  hn::test::faultfs::mem_fs_configure(&faults, max_bytes);
  int listener = listen_on(control);
  if (listener < 0) {
    std::fprintf(stderr, "faultfs: cannot listen on %s: %s\n", control.c_str(),
                 std::strerror(errno));
    return 1;
  }

  fuse_args args = FUSE_ARGS_INIT(static_cast<int>(rest.size()), rest.data());
  fuse_cmdline_opts opts{};
  if (fuse_parse_cmdline(&args, &opts) != 0 || !opts.mountpoint) {
    std::fprintf(stderr, "faultfs: usage: faultfs --control SOCKET MOUNTPOINT [-o options]\n");
    return 2;
  }
  fuse_operations ops = hn::test::faultfs::mem_fs_operations();
  fuse* f = fuse_new(&args, &ops, sizeof ops, nullptr);
  if (!f) return 1;
  if (fuse_mount(f, opts.mountpoint) != 0) {
    fuse_destroy(f);
    return 1;
  }
  fuse_set_signal_handlers(fuse_get_session(f));
  std::thread(serve_control, listener, &faults).detach();
  fuse_loop_config* cfg = fuse_loop_cfg_create();
  fuse_loop_cfg_set_max_threads(cfg, 64);
  int rc = fuse_loop_mt(f, cfg);
  fuse_loop_cfg_destroy(cfg);
  fuse_remove_signal_handlers(fuse_get_session(f));
  fuse_unmount(f);
  fuse_destroy(f);
  free(opts.mountpoint);
  fuse_opt_free_args(&args);
  unlink(control.c_str());
  return rc == 0 ? 0 : 1;
}
