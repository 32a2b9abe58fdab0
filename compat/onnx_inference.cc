// Shape inference in a child under limits (onnx_inference.h).
#include "compat/onnx_inference.h"

#include <onnx/defs/schema.h>
#include <onnx/onnx_pb.h>
#include <onnx/shape_inference/implementation.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fcntl.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

namespace hn::compat {

namespace {

// ASan reserves terabytes of shadow memory, so an address-space limit would
// fail every allocation of the fuzz build; there the fuzzer's own
// -rss_limit_mb stands in.
#if defined(__SANITIZE_ADDRESS__)
constexpr bool kLimitAddressSpace = false;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kLimitAddressSpace = false;
#else
constexpr bool kLimitAddressSpace = true;
#endif
#else
constexpr bool kLimitAddressSpace = true;
#endif

std::size_t address_space_now() {
  unsigned long pages = 0;
  if (FILE* f = std::fopen("/proc/self/statm", "r")) {
    if (std::fscanf(f, "%lu", &pages) != 1) pages = 0;
    std::fclose(f);
  }
  return static_cast<std::size_t>(pages) * static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
}

[[noreturn]] void child(onnx::ModelProto model, int out) {
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  // A crash here is the answer "no inference", not a crash of ours: no
  // handler inherited from the parent (a sanitizer's, a fuzzer's) reports it.
  for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT}) ::signal(sig, SIG_DFL);
  if (kLimitAddressSpace) {
    const rlim_t cap = address_space_now() + kInferenceMemoryBytes;
    struct rlimit rl {
      cap, cap
    };
    ::setrlimit(RLIMIT_AS, &rl);
  }
  std::string reply;
  try {
    onnx::shape_inference::InferShapes(model);
    reply = "M" + model.SerializeAsString();
  } catch (const std::bad_alloc&) {
    reply = "Eover its " + std::to_string(kInferenceMemoryBytes >> 20) + " MiB memory limit";
  } catch (const std::exception& e) {
    reply = std::string("E") + e.what();
  }
  for (std::size_t at = 0; at < reply.size();) {
    ssize_t n = ::write(out, reply.data() + at, reply.size() - at);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) ::_exit(1);
    at += static_cast<std::size_t>(n);
  }
  ::_exit(0);
}

}  // namespace

std::optional<onnx::ModelProto> infer_shapes_isolated(const onnx::ModelProto& model,
                                                      std::string& why,
                                                      std::chrono::milliseconds limit) {
  // The operator schemas are built on first use (a few thousand of them):
  // built here once, every child inherits them instead of building its own
  // (that was 20 ms of each model's 24 over libonnx-testdata).
  static const bool schemas_ready = onnx::OpSchemaRegistry::Schema("Add") != nullptr;
  (void)schemas_ready;
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) {
    why = std::string("pipe: ") + std::strerror(errno);
    return std::nullopt;
  }
  const pid_t pid = ::fork();
  if (pid < 0) {
    why = std::string("fork: ") + std::strerror(errno);
    ::close(fds[0]);
    ::close(fds[1]);
    return std::nullopt;
  }
  if (pid == 0) {
    ::close(fds[0]);
    child(model, fds[1]);
  }
  ::close(fds[1]);
  // The answer is the model without its weights, so it is bounded by what
  // was sent plus the value_info inference adds; more is not an answer.
  const std::size_t max_reply = 2 * model.ByteSizeLong() + (std::size_t{64} << 20);
  std::string reply;
  const auto end = std::chrono::steady_clock::now() + limit;
  bool timed_out = false, too_big = false;
  char buf[65536];
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        end - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      timed_out = true;
      break;
    }
    struct pollfd p {
      fds[0], POLLIN, 0
    };
    int r = ::poll(&p, 1, static_cast<int>(std::min<long long>(left.count(), 1000)));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) continue;
    ssize_t n = ::read(fds[0], buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    reply.append(buf, static_cast<std::size_t>(n));
    if (reply.size() > max_reply) {
      too_big = true;
      break;
    }
  }
  ::close(fds[0]);
  if (timed_out || too_big) ::kill(pid, SIGKILL);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (timed_out) {
    why = "no result within " + std::to_string(limit.count() / 1000) + " s";
    return std::nullopt;
  }
  if (too_big) {
    why = "its answer grew past " + std::to_string(max_reply >> 20) + " MiB";
    return std::nullopt;
  }
  if (WIFSIGNALED(status)) {
    why = "killed by signal " + std::to_string(WTERMSIG(status));
    return std::nullopt;
  }
  if (reply.empty() || (reply[0] != 'M' && reply[0] != 'E')) {
    why = "it ended without an answer (exit " + std::to_string(WEXITSTATUS(status)) + ")";
    return std::nullopt;
  }
  if (reply[0] == 'E') {
    why = reply.substr(1);
    return std::nullopt;
  }
  onnx::ModelProto out;
  if (!out.ParseFromArray(reply.data() + 1, static_cast<int>(reply.size() - 1))) {
    why = "its answer did not parse";
    return std::nullopt;
  }
  return out;
}

}  // namespace hn::compat
