// The floor a 2-rank TCP allreduce competes with: the same bytes as a
// halving-doubling allreduce (send half, receive and reduce the other half,
// send the reduced half, receive the rest), on one plain socket, with no
// library around it. Variants show which socket-level habits change the
// speed on a link (bench/tcp_exchange.sh runs them over a veth pair).
//   tcp_exchange ROLE HOST PORT BYTES ITERS [--handshake] [--blocking]
//                [--sndbuf] [--recv-spin] [--offset K] [--deadline S] [--fault]
// ROLE 0 listens on HOST:PORT, ROLE 1 connects to it. BYTES is the
// allreduce's size (each half is BYTES/2 of floats).
//   --handshake  after each half is received, both send and await a 52-byte
//                note before sending again (what Gloo's halving-doubling
//                does between its phases);
//   --blocking   a blocking socket for sends (Gloo's sync mode);
//   --sndbuf     SO_SNDBUF set to the half (Gloo sets it to the message);
//   --recv-spin  wait by calling recv(MSG_DONTWAIT) again instead of
//                poll() (Gloo's busy-poll);
//   --offset K   the buffers start K bytes (0-63) past a page boundary (a
//                std::vector's large block starts at 16): the kernel's
//                copies slow down when source and destination are 16-48
//                bytes apart modulo 64;
//   --deadline S the connection and each exchange must finish within S
//                seconds (default 30), or the probe stops with exit 3;
//   --fault      (tests only) this rank leaves the last element of its half
//                unreduced, which the check must count.
// Each exchange sends and receives at once, as an allreduce's ranks do.
// Role 0 prints one JSON line: the mean time per call, busbw (= bytes/time
// for 2 ranks), the time inside send and recv calls per call, and the
// elements wrong in one more call into a poisoned output (exit 1 if any).
// Bad arguments: a message and exit 2. A deadline missed: a message naming
// what was left, and exit 3.
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

struct Options {
  int role = 0;
  std::string host;
  int port = 0;
  std::size_t bytes = 0;
  int iters = 0;
  bool handshake = false, blocking = false, sndbuf = false, recv_spin = false;
  std::size_t offset = 0;
  double deadline_s = 30;
  bool fault = false;
};

[[noreturn]] void die(const std::string& what) {
  std::fprintf(stderr, "tcp_exchange: %s: %s\n", what.c_str(), std::strerror(errno));
  std::exit(1);
}

// Each call's exchanges must finish within o.deadline_s: a probe that stalls
// (a dead peer, or --blocking at a size beyond the socket buffers, where
// both sides block in send) stops with a message and exit 3 instead of
// hanging.
class Link {
 public:
  Link(const Options& o) : o_(o) {
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(static_cast<std::uint16_t>(o.port));
    if (inet_pton(AF_INET, o.host.c_str(), &a.sin_addr) != 1) die("bad address " + o.host);
    const auto until = Clock::now() + std::chrono::duration<double>(o.deadline_s);
    if (o.role == 0) {
      int l = socket(AF_INET, SOCK_STREAM, 0);
      int one = 1;
      setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
      if (bind(l, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || listen(l, 1) != 0)
        die("listen on " + o.host);
      pollfd q{l, POLLIN, 0};
      if (poll(&q, 1, static_cast<int>(o.deadline_s * 1000)) != 1)
        timed_out("no peer connected to " + o.host + ":" + std::to_string(o.port));
      fd_ = accept(l, nullptr, nullptr);
      close(l);
    } else {
      while (Clock::now() < until) {  // role 0 may not listen yet
        fd_ = socket(AF_INET, SOCK_STREAM, 0);
        if (connect(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0) break;
        close(fd_);
        fd_ = -1;
        usleep(10000);
      }
      if (fd_ < 0) timed_out("could not connect to " + o.host + ":" + std::to_string(o.port));
    }
    if (fd_ < 0) die("accept on " + o.host);
    int one = 1;
    setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    if (o.sndbuf) {
      int v = static_cast<int>(o.bytes / 2);
      setsockopt(fd_, SOL_SOCKET, SO_SNDBUF, &v, sizeof v);
    }
    if (o.blocking) {
      // A blocking send returns what it sent when this expires, so the
      // deadline below still gets its turn.
      timeval tv{static_cast<time_t>(o.deadline_s),
                 static_cast<suseconds_t>((o.deadline_s - static_cast<long>(o.deadline_s)) * 1e6)};
      setsockopt(fd_, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    } else {
      fcntl(fd_, F_SETFL, fcntl(fd_, F_GETFL) | O_NONBLOCK);
    }
  }
  ~Link() { close(fd_); }

  // Sends sn bytes from src while receiving rn bytes into dst, both at once
  // (each side sends before it has received, so sending first and receiving
  // after deadlocks once a half exceeds what the two socket buffers hold).
  // After each received piece, sink(bytes received so far).
  template <typename Sink>
  void exchange(const char* src, std::size_t sn, char* dst, std::size_t rn, Sink&& sink) {
    const auto until = Clock::now() + std::chrono::duration<double>(o_.deadline_s);
    std::size_t got = 0;
    while (sn || got < rn) {
      bool moved = false;
      if (sn) {
        const auto t0 = Clock::now();
        ssize_t r = ::send(fd_, src, sn, MSG_NOSIGNAL);
        if (r > 0) {
          send_s_ += std::chrono::duration<double>(Clock::now() - t0).count();
          src += r;
          sn -= static_cast<std::size_t>(r);
          moved = true;
        } else if (!(r < 0 && (errno == EAGAIN || errno == EINTR))) {
          die("send");
        }
      }
      if (got < rn) {
        const auto t0 = Clock::now();
        ssize_t r = ::recv(fd_, dst + got, rn - got, MSG_DONTWAIT);
        if (r > 0) {
          recv_s_ += std::chrono::duration<double>(Clock::now() - t0).count();
          got += static_cast<std::size_t>(r);
          sink(got);
          moved = true;
        } else if (r == 0) {
          errno = ECONNRESET;
          die("peer closed");
        } else if (errno != EAGAIN && errno != EINTR) {
          die("recv");
        }
      }
      // Checked on every pass: a blocking send that timed out after sending
      // part still "moved".
      if (Clock::now() > until)
        timed_out("an exchange did not finish (" + std::to_string(sn) + " bytes left to send, " +
                  std::to_string(rn - got) + " to receive)");
      if (moved) continue;
      if (!o_.recv_spin || sn) {  // wait busily in poll() (Gloo's busy-poll retries recv)
        pollfd q{fd_, static_cast<short>((sn ? POLLOUT : 0) | (got < rn ? POLLIN : 0)), 0};
        poll(&q, 1, 0);
      }
    }
  }
  double send_s_ = 0, recv_s_ = 0;

 private:
  [[noreturn]] void timed_out(const std::string& what) {
    std::fprintf(stderr, "tcp_exchange: timeout after %g s: %s%s\n", o_.deadline_s, what.c_str(),
                 o_.blocking ? " (--blocking: both sides block in send once a half exceeds what "
                               "the socket buffers hold; net.core.wmem_max caps --sndbuf)"
                             : "");
    std::exit(3);
  }
  const Options& o_;
  int fd_ = -1;
};

Options parse(int argc, char** argv) {
  if (argc < 6) {
    std::fprintf(stderr,
                 "usage: tcp_exchange ROLE HOST PORT BYTES ITERS [--handshake] [--blocking] "
                 "[--sndbuf] [--recv-spin] [--offset K] [--deadline S] [--fault]\n");
    std::exit(2);
  }
  Options o;
  o.role = std::string(argv[1]) == "0" ? 0 : std::string(argv[1]) == "1" ? 1 : -1;
  o.host = argv[2];
  o.port = std::atoi(argv[3]);
  o.bytes = std::strtoull(argv[4], nullptr, 10) / 8 * 8;
  o.iters = std::atoi(argv[5]);
  for (int i = 6; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--handshake")
      o.handshake = true;
    else if (a == "--blocking")
      o.blocking = true;
    else if (a == "--sndbuf")
      o.sndbuf = true;
    else if (a == "--recv-spin")
      o.recv_spin = true;
    else if (a == "--offset") {
      char* end = nullptr;
      const long k = i + 1 < argc ? std::strtol(argv[i + 1], &end, 10) : -1;
      if (i + 1 >= argc || *end != '\0' || k < 0 || k > 63) {
        std::fprintf(stderr, "tcp_exchange: --offset takes a byte count from 0 to 63\n");
        std::exit(2);
      }
      o.offset = static_cast<std::size_t>(k);
      ++i;
    } else if (a == "--fault") {
      o.fault = true;
    } else if (a == "--deadline") {
      char* end = nullptr;
      const double d = i + 1 < argc ? std::strtod(argv[i + 1], &end) : -1;
      if (i + 1 >= argc || *end != '\0' || !(d > 0 && d <= 3600)) {
        std::fprintf(stderr, "tcp_exchange: --deadline takes seconds, above 0 and up to 3600\n");
        std::exit(2);
      }
      o.deadline_s = d;
      ++i;
    } else {
      std::fprintf(stderr, "tcp_exchange: unknown option %s\n", a.c_str());
      std::exit(2);
    }
  }
  if ((o.role != 0 && o.role != 1) || o.port <= 0 || o.bytes == 0 || o.iters <= 0) {
    std::fprintf(stderr, "tcp_exchange: ROLE 0|1, PORT > 0, BYTES >= 8, ITERS > 0\n");
    std::exit(2);
  }
  return o;
}

}  // namespace

int main(int argc, char** argv) {
  const Options o = parse(argc, argv);
  Link link(o);
  const std::size_t half = o.bytes / 2, n = half / sizeof(float);
  // Page-aligned blocks, each used from `offset` on.
  std::vector<std::unique_ptr<char, decltype(&std::free)>> blocks;
  auto alloc = [&](std::size_t elems) {
    const std::size_t len = (elems * sizeof(float) + 2 * 4096) / 4096 * 4096;
    blocks.emplace_back(static_cast<char*>(std::aligned_alloc(4096, len)), &std::free);
    if (!blocks.back()) die("out of memory");
    std::memset(blocks.back().get(), 0, len);
    return reinterpret_cast<float*>(blocks.back().get() + o.offset);
  };
  float* in = alloc(2 * n);
  float* out = alloc(2 * n);
  float* peer = alloc(n);  // the peer's half, reduced piece by piece as it arrives
  for (std::size_t i = 0; i < 2 * n; ++i) in[i] = 1.0f + static_cast<float>(o.role);
  char note[52] = {}, got_note[52];
  const std::size_t mine = o.role == 0 ? 0 : n, theirs = o.role == 0 ? n : 0;
  auto nothing = [](std::size_t) {};
  auto handshake = [&] {
    if (!o.handshake) return;
    link.exchange(note, sizeof note, got_note, sizeof got_note, nothing);
  };
  auto call = [&] {
    std::size_t done = 0;  // elements reduced
    link.exchange(reinterpret_cast<const char*>(in + theirs), half, reinterpret_cast<char*>(peer),
                  half, [&](std::size_t got) {
                    const std::size_t upto = got / sizeof(float);
                    for (; done < upto; ++done) out[mine + done] = in[mine + done] + peer[done];
                    if (o.fault && done == n) out[mine + n - 1] = in[mine + n - 1];
                  });
    handshake();
    link.exchange(reinterpret_cast<const char*>(out + mine), half,
                  reinterpret_cast<char*>(out + theirs), half, nothing);
    handshake();
  };
  for (int i = 0; i < 20; ++i) call();
  link.send_s_ = link.recv_s_ = 0;
  const auto t0 = Clock::now();
  for (int i = 0; i < o.iters; ++i) call();
  const double us = std::chrono::duration<double, std::micro>(Clock::now() - t0).count() / o.iters;
  // One more call into a poisoned output, checked whole: 1 + 2 everywhere.
  std::memset(out, 0, 2 * n * sizeof(float));
  call();
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < 2 * n; ++i) wrong += out[i] != 3.0f;
  if (o.role == 0)
    std::printf(
        "{\"bytes\": %zu, \"time_us\": %.1f, \"busbw_gbps\": %.3f, \"send_us\": %.1f, "
        "\"recv_us\": %.1f, \"handshake\": %s, \"blocking\": %s, \"sndbuf\": %s, "
        "\"recv_spin\": %s, \"offset\": %zu, \"wrong\": %zu}\n",
        o.bytes, us, static_cast<double>(o.bytes) / (us * 1e3), link.send_s_ * 1e6 / o.iters,
        link.recv_s_ * 1e6 / o.iters, o.handshake ? "true" : "false", o.blocking ? "true" : "false",
        o.sndbuf ? "true" : "false", o.recv_spin ? "true" : "false", o.offset, wrong);
  return wrong == 0 ? 0 : 1;
}
