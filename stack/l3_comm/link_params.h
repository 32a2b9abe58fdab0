#pragma once
// Link setup (建链) parameters: how a connection to a peer or to the
// rendezvous is made. These are exactly the knobs the parameter-translation
// layer maps from NCCL/HCCL settings; link_env_params.h fills them from the
// environment (the contract in compat/translate/link_env.h), so each field
// names its sources:
//
//   field           default  maps from
//   connect_timeout  60 s    HCCL_CONNECT_TIMEOUT (seconds; HCCL waits value + 20 s), or
//                            the NCCL retry schedule's total sleep, whichever is smaller.
//                            The total budget for one link, all attempts and sleeps included.
//   retry_count      34      NCCL_SOCKET_RETRY_CNT: retries after the first attempt, so at
//                            most retry_count + 1 attempts; kNoRetryLimit: only the budget
//                            ends the retries (HCCL_CONNECT_TIMEOUT alone).
//   retry_sleep      100 ms  NCCL_SOCKET_RETRY_SLEEP_MSEC: linear backoff, after failed
//                            attempt k sleep k * retry_sleep (N retries: N(N+1)/2 * sleep).
//   bind_address     ""      HCCL_IF_IP, or the address of the NIC the interface spec
//                            selected: the local IP peer-link sockets bind to and publish.
//   bind_interface   ""      HCCL_SOCKET_IFNAME / NCCL_SOCKET_IFNAME resolved to one NIC
//                            (the first match in name order): SO_BINDTODEVICE.
//   family           0       HCCL_SOCKET_FAMILY / NCCL_SOCKET_FAMILY: AF_INET, AF_INET6
//                            (0: any).
//   plane            "default"  the plane name used in errors and reports.
//   *_source                 where a value came from ("HCCL_CONNECT_TIMEOUT=120 + 20 s",
//                            "--timeout", "default"), named in errors and bench output.
//
// How connect_with_retry (socket.h) honours them: attempts end at whichever
// limit comes first, the attempt count or the budget. Every attempt waits at
// most for the time left in the budget; a sleep is cut short at the end of
// the budget and followed by one last attempt, which still gets
// kLastAttemptWindow to hear a refusal (a LAN round trip). So a link fails no
// earlier than the limit that ended it and at most kLastAttemptWindow plus
// scheduling delay after the budget.

#include <sys/socket.h>

#include <chrono>
#include <string>

namespace hn::stack::comm {

struct LinkParams {
  static constexpr int kNoRetryLimit = -1;
  static constexpr std::chrono::milliseconds kLastAttemptWindow{100};

  std::chrono::milliseconds connect_timeout{60000};
  int retry_count = 34;
  std::chrono::milliseconds retry_sleep{100};
  std::string bind_address;
  std::string bind_interface;
  int family = AF_UNSPEC;
  std::string plane = "default";
  std::string budget_source = "default";
  std::string retry_source = "default";
  std::string bind_source;  // "" when nothing asked for a binding

  // At most this many connect attempts per link; -1: no limit but the budget.
  int max_attempts() const { return retry_count < 0 ? -1 : retry_count + 1; }
};

}  // namespace hn::stack::comm
