#pragma once
// TCP pair: one authenticated, non-blocking socket to one peer. Sends go
// straight from the caller's buffer to the kernel; plain receives go straight
// into the caller's buffer; reducing receives pass through a small staging
// buffer that stays in cache. EOF, ECONNRESET and EPIPE throw PeerDiedError
// naming the peer, its address and the plane.


#include "stack/l3_comm/aligned_buffer.h"
#include "stack/l3_comm/socket.h"
#include "stack/l3_comm/transport.h"

namespace hn::stack::comm::tcp {

class TcpPair : public Pair {
 public:
  TcpPair(int local_rank, int peer, Fd fd, std::string plane);
  int peer() const override { return peer_; }
  std::string address() const override { return address_; }
  std::string local_address() const override { return local_address_of(fd_.get()); }
  std::string bound_device() const override { return bound_device_of(fd_.get()); }
  std::size_t try_send(const std::byte* data, std::size_t n) override;
  std::size_t try_recv(std::size_t n, const RecvSink& sink) override;
  std::size_t try_recv_into(std::byte* dst, std::size_t n) override;
  int fd() const { return fd_.get(); }

 private:
  [[noreturn]] void died(const std::string& what) const;
  int local_rank_, peer_;
  Fd fd_;
  std::string plane_, address_;
  AlignedBuffer staging_;  // page-aligned: see aligned_buffer.h
};

}  // namespace hn::stack::comm::tcp
