#pragma once
// The transport interface every transport folder implements (tcp/, shm/;
// an RDMA verbs transport would add verbs/ with the same two files):
//
//   <transport>/pair.h    Pair: an ordered, reliable byte stream to one peer in
//                         each direction. Non-blocking: try_send/try_recv move
//                         what they can now and return the byte count (0 = would
//                         block). A closed or dead peer throws PeerDiedError.
//   <transport>/device.h  Device: owns the pairs to every peer, and wait(), the
//                         one place a rank sleeps: until one of the given pairs
//                         can make progress, the deadline, or interrupt().
//
// Collectives never see sockets or rings: they build a Schedule (progress.h)
// that the engine runs over a Device. Message boundaries are not transmitted;
// both sides of a stream agree on sizes because they run the same schedule.

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "stack/l3_comm/auth.h"
#include "stack/l3_comm/handshake_queue.h"
#include "stack/l3_comm/link_params.h"
#include "stack/l3_comm/store.h"

namespace hn::stack::comm {

// Receives bytes in stream order; called with contiguous pieces. A
// non-owning reference to a callable (no allocation on the hot path); the
// callable must outlive the call it is passed to.
class RecvSink {
 public:
  template <typename F>
  requires(!std::is_same_v<std::remove_cv_t<F>, RecvSink>)
      RecvSink(F& f)  // NOLINT: implicit on purpose, like std::function_ref
      : obj_(&f),
        call_([](void* o, const std::byte* d, std::size_t n) { (*static_cast<F*>(o))(d, n); }) {}
  void operator()(const std::byte* data, std::size_t len) const { call_(obj_, data, len); }

 private:
  void* obj_;
  void (*call_)(void*, const std::byte*, std::size_t);
};

class Pair {
 public:
  virtual ~Pair() = default;
  virtual int peer() const = 0;
  virtual std::string address() const = 0;  // for errors: "10.0.0.2:41000", "shm pid 1234"
  // Where this end is bound, for reports: the local socket address
  // ("10.0.0.1:41000") and its SO_BINDTODEVICE NIC. "" when the transport
  // has no socket (shm) or the socket is not bound to a NIC.
  virtual std::string local_address() const { return ""; }
  virtual std::string bound_device() const { return ""; }
  virtual std::size_t try_send(const std::byte* data, std::size_t n) = 0;
  // Hands up to n available bytes to sink (possibly as several pieces).
  virtual std::size_t try_recv(std::size_t n, const RecvSink& sink) = 0;
  // Same, copying into dst (lets sockets read straight into the user buffer).
  virtual std::size_t try_recv_into(std::byte* dst, std::size_t n) = 0;
  // Mailbox (shm only; 0 elsewhere): messages of up to mail_bytes() that
  // travel apart from the byte stream, each in one cache line. Only a
  // collective that exchanges a message with every peer on every call may
  // use it (shm/ring.h says why). mail_send never blocks; try_mail_recv
  // hands the next message (of n bytes, as its sender sent) to sink and
  // returns true, or returns false when it has not arrived. Throw
  // std::logic_error where mail_bytes() is 0.
  virtual std::size_t mail_bytes() const { return 0; }
  virtual void mail_send(const std::byte* data, std::size_t n) {
    (void)data;
    (void)n;
    throw std::logic_error("this transport has no mailbox");
  }
  virtual bool try_mail_recv(std::size_t n, const RecvSink& sink) {
    (void)n;
    (void)sink;
    throw std::logic_error("this transport has no mailbox");
  }
};

class Device {
 public:
  virtual ~Device() = default;
  virtual const char* name() const = 0;  // "tcp", "shm"
  virtual Pair& pair(int peer) = 0;
  // Returns when a pair in `senders` may accept bytes or a pair in
  // `receivers` has bytes, when interrupt() was called, or at the deadline
  // (the caller decides what a timeout means). Spurious returns are allowed.
  virtual void wait(std::span<Pair* const> senders, std::span<Pair* const> receivers,
                    Clock::time_point deadline) = 0;
  // A short busy wait without reading the clock, before the engine starts
  // timing a wait: true when one of the pairs became ready (or interrupt()).
  virtual bool spin(std::span<Pair* const> senders, std::span<Pair* const> receivers) {
    (void)senders;
    (void)receivers;
    return false;
  }
  // Thread-safe and sticky: every current and later wait() returns at once.
  virtual void interrupt() = 0;
  // Called at the start of every schedule, when every stream holds no bytes
  // of the previous one: a transport may realign its buffers here (shm
  // restarts each collective at the front of its rings, which stay in cache).
  virtual void begin_schedule() {}
  // Single copy (Linux CMA): the pid to pass to process_vm_readv/writev to
  // reach `peer`'s memory, or -1 when this device cannot (tcp; shm where any
  // rank found the kernel refusing it at setup). The same answer on every
  // rank, so collectives may choose a path by it.
  virtual int single_copy_pid(int peer) const {
    (void)peer;
    return -1;
  }
};

// What a transport needs to connect a full mesh through the rendezvous.
struct DeviceSetup {
  int rank = 0;
  int world = 1;
  Store* store = nullptr;  // scoped to the group and the transport
  Credentials creds;
  LinkParams link;
  std::string advertise_ip;  // our address as the rendezvous sees it
  std::chrono::milliseconds timeout{30000};
  std::size_t shm_ring_bytes = 0;      // 0: the transport's default
  RejectionLog* rejections = nullptr;  // where a listener records the strangers it refused
};

}  // namespace hn::stack::comm
