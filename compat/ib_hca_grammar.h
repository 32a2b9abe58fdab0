#pragma once
// Which RDMA device ports NCCL uses for a value of NCCL_IB_HCA, as NCCL
// documents it (https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/env.html):
// "<hca>[:port[:rail[:plane]]]" items,
// comma-separated; a leading '^' excludes, then '=' makes names exact
// (without it "mlx5_1" also matches "mlx5_10"). Unset or empty: every port.
// NCCL only considers ports that are ACTIVE with an InfiniBand or Ethernet
// link layer, and keeps at most 32 devices. Pure function, no I/O; the same
// list grammar as the socket variables (compat/ifname_grammar.h).

#include <optional>
#include <string>
#include <vector>

namespace hn::compat {

struct HcaPortCandidate {
  std::string device;  // mlx5_0
  int port = 1;
  bool active = true;                   // IBV_PORT_ACTIVE
  std::string link_layer = "Ethernet";  // "InfiniBand" or "Ethernet" count
};

struct HcaPort {
  std::string device;
  int port = 1;
  bool operator==(const HcaPort&) const = default;
  std::string str() const { return device + ":" + std::to_string(port); }
};

struct HcaSelection {
  std::vector<HcaPort> ports;  // in device order, as NCCL enumerates them
  bool automatic = false;      // unset: every usable port
  std::string error;           // non-empty: NCCL finds no IB device and falls back to sockets
};

HcaSelection resolve_nccl_ib_hca(const std::optional<std::string>& value,
                                 const std::vector<HcaPortCandidate>& ports);

}  // namespace hn::compat
