#include "stack/l3_comm/auth.h"

#include <arpa/inet.h>
#include <openssl/crypto.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

#include <cstring>
#include <vector>

namespace hn::stack::comm {

namespace {

constexpr char kMagic[8] = {'H', 'N', 'P', 'R', 'E', 'C', 'K', '1'};
constexpr std::size_t kNonce = 32;
constexpr std::size_t kMac = 32;
constexpr std::size_t kMaxText = 1024;

struct Hello {
  std::uint32_t world = 0;
  std::int32_t rank = -1;
  std::string channel, job;
  unsigned char nonce[kNonce];
};

void put_u32(std::vector<unsigned char>& b, std::uint32_t v) {
  v = htonl(v);
  auto* p = reinterpret_cast<unsigned char*>(&v);
  b.insert(b.end(), p, p + 4);
}

void put_text(std::vector<unsigned char>& b, std::string_view s) {
  put_u32(b, static_cast<std::uint32_t>(s.size()));
  b.insert(b.end(), s.begin(), s.end());
}

std::uint32_t read_u32(int fd, Deadline d, const ErrorContext& ctx) {
  std::uint32_t v;
  read_full(fd, &v, 4, d, ctx);
  return ntohl(v);
}

std::string read_text(int fd, Deadline d, const ErrorContext& ctx, const char* what) {
  std::uint32_t n = read_u32(fd, d, ctx);
  if (n > kMaxText) throw AuthError(std::string("malformed hello: ") + what + " too long", ctx);
  std::string s(n, '\0');
  read_full(fd, s.data(), n, d, ctx);
  return s;
}

std::vector<unsigned char> mac_of(const Credentials& c, std::string_view label,
                                  const unsigned char* own_nonce, const unsigned char* peer_nonce,
                                  int own_rank, int peer_rank, std::string_view channel) {
  std::vector<unsigned char> msg;
  put_text(msg, "hnprecheck-auth-v1");
  put_text(msg, label);
  msg.insert(msg.end(), own_nonce, own_nonce + kNonce);
  msg.insert(msg.end(), peer_nonce, peer_nonce + kNonce);
  put_text(msg, c.job_id);
  put_u32(msg, static_cast<std::uint32_t>(c.world));
  put_u32(msg, static_cast<std::uint32_t>(own_rank));
  put_u32(msg, static_cast<std::uint32_t>(peer_rank));
  put_text(msg, channel);
  std::vector<unsigned char> out(kMac);
  unsigned int len = 0;
  HMAC(EVP_sha256(), c.token.data(), static_cast<int>(c.token.size()), msg.data(), msg.size(),
       out.data(), &len);
  return out;
}

std::string printable(const char* p, std::size_t n) {
  std::string s;
  for (std::size_t i = 0; i < n; ++i) s += (p[i] >= 32 && p[i] < 127) ? p[i] : '.';
  return s;
}

}  // namespace

PeerHello authenticate(int fd, const Credentials& creds, std::string_view channel, int my_rank,
                       int expected_peer, Deadline deadline, ErrorContext ctx) {
  if (ctx.peer_address.empty()) ctx.peer_address = peer_address_of(fd);
  const auto t0 = Clock::now();
  auto fail = [&](const std::string& what) -> AuthError {
    ErrorContext c = ctx;
    c.elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - t0);
    return AuthError(what, c);
  };
  Hello mine;
  if (RAND_bytes(mine.nonce, kNonce) != 1) throw fail("cannot draw a random nonce");
  std::vector<unsigned char> out(kMagic, kMagic + 8);
  put_u32(out, static_cast<std::uint32_t>(creds.world));
  put_u32(out, static_cast<std::uint32_t>(my_rank));
  put_text(out, channel);
  put_text(out, creds.job_id);
  out.insert(out.end(), mine.nonce, mine.nonce + kNonce);
  write_full(fd, out.data(), out.size(), deadline, ctx);

  char magic[8];
  read_full(fd, magic, 8, deadline, ctx);
  if (std::memcmp(magic, kMagic, 8) != 0)
    throw fail("the other end is not an hnprecheck rank (it sent '" + printable(magic, 8) + "')");
  Hello peer;
  peer.world = read_u32(fd, deadline, ctx);
  peer.rank = static_cast<std::int32_t>(read_u32(fd, deadline, ctx));
  peer.channel = read_text(fd, deadline, ctx, "channel");
  peer.job = read_text(fd, deadline, ctx, "job id");
  read_full(fd, peer.nonce, kNonce, deadline, ctx);
  ctx.peer_rank = peer.rank;

  if (peer.job != creds.job_id)
    throw fail("job id mismatch: this rank belongs to job '" + creds.job_id +
               "', the other end to job '" + peer.job + "' (two jobs on one rendezvous port?)");
  if (static_cast<int>(peer.world) != creds.world)
    throw fail("world size mismatch: we have " + std::to_string(creds.world) +
               " ranks, the other end " + std::to_string(peer.world));
  if (peer.channel != channel)
    throw fail("channel mismatch: we expected '" + std::string(channel) +
               "', the other end speaks '" + peer.channel + "'");
  if (peer.rank < 0 || peer.rank >= creds.world ||
      (expected_peer >= 0 && peer.rank != expected_peer))
    throw fail(
        "unexpected rank " + std::to_string(peer.rank) +
        (expected_peer >= 0 ? " (expected rank " + std::to_string(expected_peer) + ")" : ""));

  auto my_mac = mac_of(creds, "mac", mine.nonce, peer.nonce, my_rank, peer.rank, channel);
  write_full(fd, my_mac.data(), my_mac.size(), deadline, ctx);
  unsigned char their_mac[kMac];
  read_full(fd, their_mac, kMac, deadline, ctx);
  auto want = mac_of(creds, "mac", peer.nonce, mine.nonce, peer.rank, my_rank, channel);
  bool ok = CRYPTO_memcmp(their_mac, want.data(), kMac) == 0;
  unsigned char verdict = ok ? 1 : 0, their_verdict = 0;
  write_full(fd, &verdict, 1, deadline, ctx);
  try {
    read_full(fd, &their_verdict, 1, deadline, ctx);
  } catch (const LinkError&) {
    if (ok) throw;
  }
  if (!ok)
    throw fail("rank " + std::to_string(peer.rank) +
               " presented a wrong job token (HMAC mismatch): check HN_TOKEN / --token-file on "
               "every rank");
  if (their_verdict != 1)
    throw fail(
        "rank " + std::to_string(peer.rank) +
        " rejected our job token (HMAC mismatch): check HN_TOKEN / --token-file on every rank");
  return PeerHello{peer.rank, peer.channel};
}

}  // namespace hn::stack::comm
