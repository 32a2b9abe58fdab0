#include "stack/l3_comm/auth.h"

#include <arpa/inet.h>
#include <openssl/crypto.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstring>
#include <set>
#include <thread>

#include "compat/printable.h"

namespace hn::stack::comm {

namespace {

constexpr unsigned char kMagic[8] = {'H', 'N', 'P', 'R', 'E', 'C', 'K', '2'};
constexpr std::size_t kNonce = 32;
constexpr std::size_t kMac = 32;
constexpr std::size_t kMaxChannel = 32;
constexpr std::size_t kMaxJob = 1024;
// The connector's hello: magic, nonce, rank, channel length, then the
// channel and the MAC.
constexpr std::size_t kHelloHead = 8 + kNonce + 4 + 1;

enum Verdict : unsigned char {
  kVerdictOk = 1,
  kVerdictJob = 2,
  kVerdictWorld = 3,
  kVerdictRank = 4,
  kVerdictMac = 5,
};

void put_u32(std::vector<unsigned char>& b, std::uint32_t v) {
  v = htonl(v);
  auto* p = reinterpret_cast<unsigned char*>(&v);
  b.insert(b.end(), p, p + 4);
}

std::uint32_t get_u32(const unsigned char* p) {
  std::uint32_t v;
  std::memcpy(&v, p, 4);
  return ntohl(v);
}

void put_text(std::vector<unsigned char>& b, std::string_view s) {
  put_u32(b, static_cast<std::uint32_t>(s.size()));
  b.insert(b.end(), s.begin(), s.end());
}

using Nonce = std::array<unsigned char, kNonce>;
using Mac = std::array<unsigned char, kMac>;

Mac hmac(const std::string& token, const std::vector<unsigned char>& msg) {
  Mac out{};
  unsigned int len = 0;
  HMAC(EVP_sha256(), token.data(), static_cast<int>(token.size()), msg.data(), msg.size(),
       out.data(), &len);
  return out;
}

// What each side signs. Labels keep one side's MAC from passing as the other's.
std::vector<unsigned char> transcript(std::string_view label, const Nonce& na, const Nonce& nc,
                                      int connector_rank, std::string_view channel) {
  std::vector<unsigned char> m;
  put_text(m, "hnprecheck-auth-v2");
  put_text(m, label);
  m.insert(m.end(), na.begin(), na.end());
  m.insert(m.end(), nc.begin(), nc.end());
  put_u32(m, static_cast<std::uint32_t>(connector_rank));
  put_text(m, channel);
  return m;
}

Mac connector_mac(const Credentials& c, const Nonce& na, const Nonce& nc, int rank,
                  std::string_view channel) {
  return hmac(c.token, transcript("connector", na, nc, rank, channel));
}

Mac acceptor_mac(const Credentials& c, const Nonce& na, const Nonce& nc, int connector_rank,
                 std::string_view channel, int acceptor_rank) {
  auto m = transcript("acceptor", na, nc, connector_rank, channel);
  put_u32(m, static_cast<std::uint32_t>(acceptor_rank));
  put_u32(m, static_cast<std::uint32_t>(c.world));
  put_text(m, c.job_id);
  return hmac(c.token, m);
}

bool draw(Nonce& n) {
  return RAND_bytes(n.data(), static_cast<int>(n.size())) == 1;
}

std::string shown(const unsigned char* p, std::size_t n) {
  return compat::printable(std::string_view(reinterpret_cast<const char*>(p), n), 40);
}

std::string mismatch_text(unsigned char verdict, const std::string& job, std::uint32_t world,
                          const Credentials& mine) {
  switch (verdict) {
    case kVerdictJob:
      return "job id mismatch: this rank belongs to job '" + compat::printable(mine.job_id) +
             "', the other end to job '" + compat::printable(job) +
             "' (two jobs on one rendezvous port, sharing a token?)";
    case kVerdictWorld:
      return "world size mismatch: we have " + std::to_string(mine.world) +
             " ranks, the other end " + std::to_string(world);
    case kVerdictRank:
      return "the other end is not the rank we expected";
    default:
      return "the other end could not prove the job token";
  }
}

}  // namespace

std::string token_problem(const std::string& token) {
  std::set<char> distinct(token.begin(), token.end());
  if (token.size() >= kMinTokenChars && distinct.size() >= kMinTokenDistinct) return "";
  return "the job token is too weak: " + std::to_string(token.size()) + " characters, " +
         std::to_string(distinct.size()) + " distinct; the rule is at least " +
         std::to_string(kMinTokenChars) + " characters with at least " +
         std::to_string(kMinTokenDistinct) +
         " distinct ones, since anyone who can reach the rendezvous port may guess it "
         "(make one with: openssl rand -hex 32)";
}

PeerHello authenticate(int fd, const Credentials& creds, std::string_view channel, int my_rank,
                       int expected_peer, Deadline deadline, ErrorContext ctx) {
  if (ctx.peer_address.empty()) ctx.peer_address = peer_address_of(fd);
  const auto t0 = Clock::now();
  auto fail = [&](const std::string& what) -> AuthError {
    ErrorContext c = ctx;
    c.elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - t0);
    return AuthError(what, c);
  };
  if (channel.size() > kMaxChannel) throw fail("channel name too long");

  unsigned char challenge[8 + kNonce];
  read_full(fd, challenge, sizeof challenge, deadline, ctx);
  if (std::memcmp(challenge, kMagic, 8) != 0)
    throw fail("the other end is not an hnprecheck rank of this version (it sent '" +
               shown(challenge, 8) + "')");
  Nonce na, nc;
  std::memcpy(na.data(), challenge + 8, kNonce);
  if (!draw(nc)) throw fail("cannot draw a random nonce");

  std::vector<unsigned char> hello(kMagic, kMagic + 8);
  hello.insert(hello.end(), nc.begin(), nc.end());
  put_u32(hello, static_cast<std::uint32_t>(my_rank));
  hello.push_back(static_cast<unsigned char>(channel.size()));
  hello.insert(hello.end(), channel.begin(), channel.end());
  Mac mine = connector_mac(creds, na, nc, my_rank, channel);
  hello.insert(hello.end(), mine.begin(), mine.end());
  write_full(fd, hello.data(), hello.size(), deadline, ctx);

  unsigned char accepted = 0;
  try {
    read_full(fd, &accepted, 1, deadline, ctx);
  } catch (const PeerDiedError& e) {
    // No answer at all: the acceptor dropped us before it checked the token
    // (it sheds the oldest handshakes under a flood of strangers). Not a
    // refusal: connect_authenticated() tries again.
    throw PeerDiedError(ctx.peer_rank,
                        "the other end closed the connection before it answered our handshake",
                        e.context());
  }
  if (accepted != 1)
    throw fail(
        "the other end refused our job token (HMAC mismatch): this rank's HN_TOKEN / "
        "--token-file differs from the job's, or this address belongs to another job");
  unsigned char proof[kMac + 4 + 4 + 4];
  read_full(fd, proof, sizeof proof, deadline, ctx);
  const int peer_rank = static_cast<int>(get_u32(proof + kMac));
  const std::uint32_t peer_world = get_u32(proof + kMac + 4);
  const std::uint32_t job_len = get_u32(proof + kMac + 8);
  if (job_len > kMaxJob) throw fail("malformed reply: job id too long");
  std::string peer_job(job_len, '\0');
  read_full(fd, peer_job.data(), job_len, deadline, ctx);

  Credentials theirs{creds.token, peer_job, static_cast<int>(peer_world)};
  Mac want = acceptor_mac(theirs, na, nc, my_rank, channel, peer_rank);
  unsigned char verdict = kVerdictOk;
  if (CRYPTO_memcmp(want.data(), proof, kMac) != 0)
    verdict = kVerdictMac;
  else if (peer_job != creds.job_id)
    verdict = kVerdictJob;
  else if (static_cast<int>(peer_world) != creds.world)
    verdict = kVerdictWorld;
  else if (peer_rank < 0 || peer_rank >= creds.world ||
           (expected_peer >= 0 && peer_rank != expected_peer))
    verdict = kVerdictRank;
  if (verdict != kVerdictMac) ctx.peer_rank = peer_rank;

  std::vector<unsigned char> reply{verdict};
  // Our job id and world go only to an end that proved the token.
  put_text(reply, verdict == kVerdictMac ? "" : creds.job_id);
  put_u32(reply, static_cast<std::uint32_t>(verdict == kVerdictMac ? 0 : creds.world));
  try {
    write_full(fd, reply.data(), reply.size(), deadline, ctx);
  } catch (const LinkError&) {
    if (verdict == kVerdictOk) throw;
  }
  if (verdict == kVerdictRank)
    throw fail(
        "unexpected rank " + std::to_string(peer_rank) +
        (expected_peer >= 0 ? " (expected rank " + std::to_string(expected_peer) + ")" : ""));
  if (verdict != kVerdictOk) throw fail(mismatch_text(verdict, peer_job, peer_world, creds));
  return PeerHello{peer_rank, std::string(channel)};
}

Fd connect_authenticated(const std::string& host, int port, const LinkParams& params,
                         const Credentials& creds, std::string_view channel, int my_rank,
                         int expected_peer, ErrorContext ctx, PeerHello* hello) {
  const Deadline end = Clock::now() + params.connect_timeout;
  for (int attempt = 1;; ++attempt) {
    LinkParams p = params;
    p.connect_timeout =
        std::max(std::chrono::duration_cast<std::chrono::milliseconds>(end - Clock::now()),
                 std::chrono::milliseconds(100));
    Fd fd = connect_with_retry(host, port, p, ctx);
    ErrorContext c = ctx;
    c.peer_address = peer_address_of(fd.get());
    try {
      PeerHello h = authenticate(fd.get(), creds, channel, my_rank, expected_peer,
                                 std::max(end, Clock::now() + std::chrono::milliseconds(100)), c);
      if (hello) *hello = h;
      return fd;
    } catch (const AuthError&) {
      throw;  // an answer: our token, job, world or rank is wrong
    } catch (const CommError&) {
      const auto pause = std::chrono::milliseconds(std::min(100 * attempt, 1000));
      if (Clock::now() + pause >= end) throw;
      std::this_thread::sleep_for(pause);
    }
  }
}

AcceptorHandshake::AcceptorHandshake(int fd, const Credentials& creds, int my_rank,
                                     std::string channel)
    : fd_(fd), creds_(creds), my_rank_(my_rank), channel_(std::move(channel)) {
  if (!draw(na_)) {
    fail(State::kRefused, "cannot draw a random nonce");
    return;
  }
  out_.assign(kMagic, kMagic + 8);
  out_.insert(out_.end(), na_.begin(), na_.end());
}

AcceptorHandshake::State AcceptorHandshake::fail(State s, std::string why) {
  state_ = s;
  reason_ = std::move(why);
  return state_;
}

bool AcceptorHandshake::flush() {
  while (sent_ < out_.size()) {
    ssize_t n = send(fd_, out_.data() + sent_, out_.size() - sent_, MSG_DONTWAIT | MSG_NOSIGNAL);
    if (n > 0) {
      sent_ += static_cast<std::size_t>(n);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    return n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK);
  }
  return true;
}

bool AcceptorHandshake::fill(std::size_t total) {
  while (in_.size() < total) {
    unsigned char buf[512];
    const std::size_t want = std::min(sizeof buf, total - in_.size());
    ssize_t n = recv(fd_, buf, want, MSG_DONTWAIT);
    if (n > 0) {
      in_.insert(in_.end(), buf, buf + n);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return false;
    fail(State::kRefused, in_.empty() ? "closed the connection without a word"
                                      : "closed the connection mid-handshake after " +
                                            std::to_string(in_.size()) + " bytes");
    return false;
  }
  return true;
}

AcceptorHandshake::State AcceptorHandshake::advance() {
  while (state_ == State::kPending) {
    if (!flush()) return fail(State::kRefused, "the connection broke");
    if (wants_write()) return state_;
    if (step_ == 2) {  // the refusal byte is out
      std::string why = reason_;
      return fail(State::kRefused, why);
    }
    if (step_ == 0) {
      // The magic first, so garbage is refused (and shown) at once.
      if (!fill(8)) return state_;
      if (std::memcmp(in_.data(), kMagic, 8) != 0)
        return fail(State::kRefused, "not an hnprecheck rank of this version (it sent '" +
                                         shown(in_.data(), 8) + "')");
      if (!fill(kHelloHead)) return state_;
      const std::size_t chan = in_[kHelloHead - 1];
      if (chan > kMaxChannel) return fail(State::kRefused, "malformed hello");
      if (!fill(kHelloHead + chan + kMac)) return state_;
      on_hello();
    } else if (step_ == 1) {
      if (!fill(1 + 4)) return state_;
      const std::uint32_t job_len = get_u32(in_.data() + 1);
      if (job_len > kMaxJob) return fail(State::kRefused, "malformed verdict");
      if (!fill(1 + 4 + job_len + 4)) return state_;
      on_verdict();
    }
  }
  return state_;
}

void AcceptorHandshake::on_hello() {
  std::memcpy(nc_.data(), in_.data() + 8, kNonce);
  const int rank = static_cast<int>(get_u32(in_.data() + 8 + kNonce));
  const std::size_t chan = in_[kHelloHead - 1];
  const std::string channel(reinterpret_cast<const char*>(in_.data()) + kHelloHead, chan);
  const unsigned char* mac = in_.data() + kHelloHead + chan;
  const Mac want = connector_mac(creds_, na_, nc_, rank, channel);
  in_.clear();
  if (CRYPTO_memcmp(want.data(), mac, kMac) != 0) {
    // A stranger learns one byte: refused. No MAC, no job id, no world.
    out_.assign(1, 0);
    sent_ = 0;
    step_ = 2;
    reason_ = "wrong job token (HMAC mismatch)";
    return;
  }
  hello_ = PeerHello{rank, channel};
  const Mac proof = acceptor_mac(creds_, na_, nc_, rank, channel, my_rank_);
  out_.assign(1, 1);
  out_.insert(out_.end(), proof.begin(), proof.end());
  put_u32(out_, static_cast<std::uint32_t>(my_rank_));
  put_u32(out_, static_cast<std::uint32_t>(creds_.world));
  put_text(out_, creds_.job_id);
  sent_ = 0;
  step_ = 1;
}

void AcceptorHandshake::on_verdict() {
  const unsigned char verdict = in_[0];
  const std::uint32_t job_len = get_u32(in_.data() + 1);
  const std::string job(reinterpret_cast<const char*>(in_.data()) + 5, job_len);
  const std::uint32_t world = get_u32(in_.data() + 5 + job_len);
  const std::string who = "rank " + std::to_string(hello_.rank);
  own_job_ = verdict != kVerdictMac && job == creds_.job_id;
  if (verdict == kVerdictMac) {
    fail(State::kMismatch, who + " says we could not prove the job token");
  } else if (job != creds_.job_id) {
    fail(State::kMismatch, mismatch_text(kVerdictJob, job, world, creds_));
  } else if (static_cast<int>(world) != creds_.world) {
    fail(State::kMismatch, mismatch_text(kVerdictWorld, job, world, creds_));
  } else if (hello_.channel != channel_) {
    fail(State::kMismatch, who + " speaks channel '" + compat::printable(hello_.channel) +
                               "', we expected '" + channel_ + "'");
  } else if (hello_.rank < 0 || hello_.rank >= creds_.world) {
    fail(State::kMismatch, "unexpected rank " + std::to_string(hello_.rank) + " in a world of " +
                               std::to_string(creds_.world));
  } else if (verdict != kVerdictOk) {
    fail(State::kMismatch, who + " refused us: " + mismatch_text(verdict, job, world, creds_));
  } else {
    state_ = State::kAuthenticated;
  }
  in_.clear();
}

}  // namespace hn::stack::comm
