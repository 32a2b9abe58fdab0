#pragma once
// Framing shared by the store client and server: one opcode byte, then
// length-prefixed strings and 32-bit integers. Internal to l3_comm.
// Replies: kOk; kValue text; kFatal text; kMissing u32 n, n x text, then a
// text note (what the rendezvous refused, "" when nothing).

#include <arpa/inet.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "stack/l3_comm/socket.h"

namespace hn::stack::comm::wire {

enum Op : std::uint8_t {
  kSet = 'S',
  kGet = 'G',
  kWait = 'W',  // requests on the store channel
  kOk = 'o',
  kValue = 'v',
  kMissing = 'm',
  kFatal = 'f',  // replies
  kWatch = 'w',
  kRequests = 'r',  // first byte: which channel this is
  kBye = 'b',       // watch: clean departure
  kDead = 'd',
  kAbort = 'a',  // watch notices: rank died / job failed
};

inline constexpr std::size_t kMaxValue = 64u << 20;

class Writer {
 public:
  explicit Writer(std::uint8_t op) { b_.push_back(op); }
  Writer& u32(std::uint32_t v) {
    v = htonl(v);
    auto* p = reinterpret_cast<std::uint8_t*>(&v);
    b_.insert(b_.end(), p, p + 4);
    return *this;
  }
  Writer& text(const std::string& s) {
    u32(static_cast<std::uint32_t>(s.size()));
    b_.insert(b_.end(), s.begin(), s.end());
    return *this;
  }
  void send(int fd, Deadline d, const ErrorContext& ctx) const {
    write_full(fd, b_.data(), b_.size(), d, ctx);
  }
  const std::vector<std::uint8_t>& bytes() const { return b_; }

 private:
  std::vector<std::uint8_t> b_;
};

inline std::uint8_t read_op(int fd, Deadline d, const ErrorContext& ctx) {
  std::uint8_t op;
  read_full(fd, &op, 1, d, ctx);
  return op;
}
inline std::uint32_t read_u32(int fd, Deadline d, const ErrorContext& ctx) {
  std::uint32_t v;
  read_full(fd, &v, 4, d, ctx);
  return ntohl(v);
}
inline std::string read_text(int fd, Deadline d, const ErrorContext& ctx) {
  std::uint32_t n = read_u32(fd, d, ctx);
  if (n > kMaxValue) throw LinkError(LinkError::Kind::kOther, "store frame too large", ctx);
  std::string s(n, '\0');
  read_full(fd, s.data(), n, d, ctx);
  return s;
}

// Decodes a frame from bytes already received, without blocking (the
// server's event loop): each call returns false when the buffer ends before
// the field does; consumed() is how far a complete frame reached.
class BufferReader {
 public:
  explicit BufferReader(const std::string& buf) : b_(buf) {}
  bool op(std::uint8_t& v) {
    if (at_ + 1 > b_.size()) return false;
    v = static_cast<std::uint8_t>(b_[at_++]);
    return true;
  }
  bool u32(std::uint32_t& v) {
    if (at_ + 4 > b_.size()) return false;
    std::memcpy(&v, b_.data() + at_, 4);
    v = ntohl(v);
    at_ += 4;
    return true;
  }
  // Throws LinkError for a length past kMaxValue.
  bool text(std::string& s) {
    std::uint32_t n;
    const std::size_t start = at_;
    if (!u32(n)) return false;
    if (n > kMaxValue) throw LinkError(LinkError::Kind::kOther, "store frame too large", {});
    if (at_ + n > b_.size()) {
      at_ = start;
      return false;
    }
    s.assign(b_, at_, n);
    at_ += n;
    return true;
  }
  std::size_t consumed() const { return at_; }

 private:
  const std::string& b_;
  std::size_t at_ = 0;
};

}  // namespace hn::stack::comm::wire
