#pragma once
// L7 physical: the node's hardware as plain data. Filled by a PhysicalSource
// (live kernel, or a YAML snapshot); judged by probes/. Optional fields are
// absent when the kernel does not expose them (a veth has no speed or PCI
// address): absence is information, never a zero that looks like a reading.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace hn::stack::physical {

struct Link {
  std::string name;
  int ifindex = 0;
  bool admin_up = false;   // IFF_UP
  std::string oper_state;  // RFC 2863 operstate: up, down, dormant, unknown, ...
  bool carrier = false;    // IFF_LOWER_UP
  int mtu = 0;
  std::string mac;     // lower-case aa:bb:..., empty when none
  std::string kind;    // rtnl link kind: "" for a plain device, veth, bridge, vlan, bond, ...
  std::string master;  // bridge/bond master name, empty when none
  std::string parent;  // IFLA_LINK device name (vlan parent), empty when none
  std::optional<int> vlan_id;  // set when kind == "vlan"
  std::uint64_t rx_bytes = 0, tx_bytes = 0, rx_packets = 0, tx_packets = 0;
  std::optional<int> speed_mbps;  // sysfs speed; absent when unknown or -1
  std::string duplex;             // sysfs duplex: full, half, or empty
  std::string driver;             // sysfs device/driver basename
  std::string pci_address;        // e.g. 0000:3b:00.0 when the device sits on PCI
  std::optional<int> numa_node;   // sysfs device/numa_node when >= 0

  bool operator==(const Link&) const = default;
};

struct RdmaGid {
  int index = 0;
  std::string gid;     // IPv6 text form as sysfs prints it (fe80:0000:...)
  std::string type;    // "RoCE v2", "RoCE v1", "IB/RoCE v1" as sysfs gid_attrs/types says
  std::string netdev;  // gid_attrs/ndevs entry, empty when none
  bool operator==(const RdmaGid&) const = default;
};

struct RdmaPort {
  int port = 1;
  std::string state;          // ibv_port_state text: ACTIVE, DOWN, INIT, ARMED, ...
  std::string link_layer;     // Ethernet or InfiniBand
  int active_mtu = 0;         // bytes (256..4096)
  std::string rate;           // e.g. "100 Gb/sec (4X EDR)" from sysfs rate, may be empty
  std::string netdev;         // the bound netdev (from the GID table or sysfs), may be empty
  std::vector<RdmaGid> gids;  // non-zero entries only
  bool operator==(const RdmaPort&) const = default;
};

struct RdmaDevice {
  std::string name;  // mlx5_0
  std::string node_guid;
  std::string fw_ver;
  std::vector<RdmaPort> ports;
  bool operator==(const RdmaDevice&) const = default;
};

struct RdmaInventory {
  bool supported = false;          // false when the kernel has no RDMA at all
  std::string unsupported_reason;  // e.g. "ibv_get_device_list: Function not implemented (ENOSYS)"
  std::vector<RdmaDevice> devices;
  bool operator==(const RdmaInventory&) const = default;
};

struct Accelerator {
  std::string vendor;       // nvidia, huawei, amd
  std::string pci_address;  // 0000:3b:00.0
  std::string vendor_id;    // 0x10de
  std::string device_id;    // 0x20b0
  std::string pci_class;    // 0x030200
  std::optional<int> numa_node;
  bool operator==(const Accelerator&) const = default;
};

struct AcceleratorInventory {
  std::vector<Accelerator> pci;           // from /sys/bus/pci/devices
  std::vector<std::string> device_nodes;  // /dev/nvidia0, /dev/davinci3, ...
  bool operator==(const AcceleratorInventory&) const = default;
};

struct NumaNode {
  int id = 0;
  std::string cpulist;  // "0-15,32-47"
  std::uint64_t mem_total_kib = 0;
  bool operator==(const NumaNode&) const = default;
};

struct CpuInfo {
  int logical_cpus = 0;  // online CPUs
  std::string model;
  std::vector<NumaNode> numa_nodes;
  bool operator==(const CpuInfo&) const = default;
};

struct MemoryInfo {
  std::uint64_t total_kib = 0;
  std::uint64_t available_kib = 0;
  bool operator==(const MemoryInfo&) const = default;
};

struct ThermalSensor {
  std::string name;    // "thermal_zone0 (x86_pkg_temp)" or "hwmon2 coretemp Package id 0"
  std::string source;  // the sysfs file read
  double temp_c = 0;
  bool operator==(const ThermalSensor&) const = default;
};

// Everything at once, as a snapshot stores it.
struct Inventory {
  std::vector<Link> links;
  RdmaInventory rdma;
  AcceleratorInventory accelerators;
  CpuInfo cpu;
  MemoryInfo memory;
  std::vector<ThermalSensor> thermal;
  bool operator==(const Inventory&) const = default;
};

}  // namespace hn::stack::physical
