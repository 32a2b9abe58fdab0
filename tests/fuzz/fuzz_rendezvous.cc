// libFuzzer target for what a stranger can send to a listening rank: the
// accepting side of the handshake (stack/l3_comm/auth.h AcceptorHandshake)
// reads the bytes from a socket, and the store's frame decoder
// (store_wire.h BufferReader) decodes them as requests. The handshake must
// end (refused, or waiting for more) without crashing, and never
// authenticate: the fuzzer does not know the token.
//   build-fuzz/bin/fuzz_rendezvous -max_total_time=60 tests/fuzz/corpus/fuzz_rendezvous
#include <sys/socket.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "stack/l3_comm/auth.h"
#include "stack/l3_comm/store_wire.h"

using namespace hn::stack::comm;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > 4096) return 0;  // a socket buffer's worth: more is the same loop
  static const Credentials creds{"0f1e2d3c4b5a69788796a5b4c3d2e1f0", "fuzz", 4};
  int sv[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, sv) != 0) return 0;
  {
    AcceptorHandshake hs(sv[0], creds, 0, "store");
    hs.advance();  // sends the challenge
    if (size > 0) (void)!write(sv[1], data, size);
    shutdown(sv[1], SHUT_WR);
    for (int i = 0; i < 8 && hs.state() == AcceptorHandshake::State::kPending; ++i) hs.advance();
    if (hs.state() == AcceptorHandshake::State::kAuthenticated) std::abort();
  }
  close(sv[0]);
  close(sv[1]);
  // The same bytes as store requests after authentication.
  const std::string buf(reinterpret_cast<const char*>(data), size);
  try {
    wire::BufferReader r(buf);
    std::uint8_t op;
    std::uint32_t n;
    std::string s;
    while (r.op(op) && r.u32(n) && r.text(s)) {
    }
  } catch (const CommError&) {
  }
  return 0;
}
