#pragma once
// The typed errors of L3. Every one carries where it happened: the local
// rank, the peer rank and its address, the plane, the operation and the time
// spent, so a probe can turn it into a finding without parsing text.
//
//   CommError                       any communication failure
//    `- LinkError (Kind)            a link (store or peer connection) failed
//        |- TimeoutError            kTimeout: a connect or a wait ran past its deadline
//        |- AuthError               kAuthMismatch: token, job id or world size differ
//        `- PeerDiedError           kPeerClosed: the peer closed, reset or died
// Kinds without a subclass: kRefused (nobody listening), kNoRoute (no route
// to the host / network unreachable), kPortInUse (our listen port is taken),
// kNoInterface (the configured interface or address does not exist on this
// node: HCCL_IF_IP, *_SOCKET_IFNAME, --bind-*; never a silent fallback),
// kUnresolved (the host name does not resolve, retried within the budget:
// a pod's DNS record or a fresh node's entry may appear late),
// kOther (anything else, with errno text).

#include <chrono>
#include <stdexcept>
#include <string>

namespace hn::stack::comm {

struct ErrorContext {
  int local_rank = -1;
  int peer_rank = -1;        // -1: not about one peer (e.g. the store, a listen)
  std::string peer_address;  // "10.0.0.2:41000", "" when unknown
  std::string plane;         // the network plane the link belongs to
  std::string operation;     // "connect to rendezvous", "allreduce", ...
  std::chrono::milliseconds elapsed{0};
  int attempts = 0;                     // connect attempts made (link setup), 0: n/a
  std::chrono::milliseconds budget{0};  // the link-setup budget in force, 0: n/a
};

class CommError : public std::runtime_error {
 public:
  CommError(const std::string& what, ErrorContext ctx)
      : std::runtime_error(format(what, ctx)), ctx_(std::move(ctx)), detail_(what) {}
  const ErrorContext& context() const { return ctx_; }
  const std::string& detail() const { return detail_; }  // the message without the context

 private:
  static std::string format(const std::string& what, const ErrorContext& c);
  ErrorContext ctx_;
  std::string detail_;
};

class LinkError : public CommError {
 public:
  enum class Kind {
    kRefused,
    kNoRoute,
    kTimeout,
    kAuthMismatch,
    kPortInUse,
    kPeerClosed,
    kNoInterface,
    kUnresolved,
    kOther
  };
  LinkError(Kind kind, const std::string& what, ErrorContext ctx)
      : CommError(std::string(kind_name(kind)) + ": " + what, std::move(ctx)), kind_(kind) {}
  Kind kind() const { return kind_; }
  static const char* kind_name(Kind k);

 private:
  Kind kind_;
};

class TimeoutError : public LinkError {
 public:
  TimeoutError(const std::string& what, ErrorContext ctx)
      : LinkError(Kind::kTimeout, what, std::move(ctx)) {}
};

class AuthError : public LinkError {
 public:
  AuthError(const std::string& what, ErrorContext ctx)
      : LinkError(Kind::kAuthMismatch, what, std::move(ctx)) {}
};

class PeerDiedError : public LinkError {
 public:
  // dead_rank: the rank that died (may differ from ctx.peer_rank when the
  // death was reported by the rendezvous rather than seen on our own link).
  PeerDiedError(int dead_rank, const std::string& what, ErrorContext ctx)
      : LinkError(Kind::kPeerClosed, what, std::move(ctx)), dead_rank_(dead_rank) {}
  int dead_rank() const { return dead_rank_; }

 private:
  int dead_rank_;
};

}  // namespace hn::stack::comm
