#pragma once
// Link setup (建链) parameters: how a connection to a peer or to the
// rendezvous is made. These are exactly the knobs the parameter-translation
// layer maps from NCCL/HCCL settings, so each field names its sources:
//
//   field           default  maps from
//   connect_timeout  60 s    HCCL_CONNECT_TIMEOUT (seconds; HCCL waits value + 20 s).
//                            The total budget for one link, all retries included.
//   retry_count      34      NCCL_SOCKET_RETRY_CNT: extra attempts after a refused or
//                            unreachable connect (the peer may not listen yet).
//   retry_sleep      100 ms  NCCL_SOCKET_RETRY_SLEEP_MSEC: linear backoff, attempt k
//                            sleeps k * retry_sleep (NCCL: total (N+1)N/2 * sleep ~ 60 s).
//   bind_address     ""      HCCL_IF_IP: the local IP our sockets bind to, so the
//                            plane's traffic leaves through that plane's NIC.
//   bind_interface   ""      NCCL_SOCKET_IFNAME / HCCL_SOCKET_IFNAME (after their
//                            grammar is resolved to one name): SO_BINDTODEVICE.
//   plane            "default"  the plane name used in errors and reports.
//
// A connect attempt that gets no answer (a blackholed address) is not retried:
// it waits for whatever remains of connect_timeout and fails as kTimeout.

#include <chrono>
#include <string>

namespace hn::stack::comm {

struct LinkParams {
  std::chrono::milliseconds connect_timeout{60000};
  int retry_count = 34;
  std::chrono::milliseconds retry_sleep{100};
  std::string bind_address;
  std::string bind_interface;
  std::string plane = "default";
};

}  // namespace hn::stack::comm
