#pragma once
// Internal to hn_l7_physical: the pieces of the live source, split so that the
// sysfs/procfs parsing can be unit-tested on fixture trees while netlink and
// ibverbs (which cannot be pointed at a fixture) stay thin. Not a public API;
// probes use PhysicalSource only.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "stack/l7_physical/source.h"

namespace hn::stack::physical::detail {

// ---- file helpers -------------------------------------------------------

// Whole file with trailing whitespace removed; nullopt on any error. Drivers
// answer EINVAL/EOPNOTSUPP on reads of attributes they do not implement (speed
// on a virtual NIC), so an unreadable attribute is "absent", not a failure.
std::optional<std::string> read_text(const std::string& path);
// A decimal integer file ("-1", "4096"); nullopt when unreadable or not a number.
std::optional<long long> read_integer(const std::string& path);
// Like read_text but a failure is a SourceError naming the path: for files
// every Linux system has (/proc/meminfo), where absence means a broken root.
std::string read_required(const std::string& path);

// Number of CPUs in a kernel cpulist ("0-3,8-11" -> 8); nullopt on bad syntax.
std::optional<int> count_cpulist(std::string_view list);
// "kB" value of `key:` in a meminfo-style text (also "Node 0 MemTotal:").
std::optional<std::uint64_t> meminfo_kib(std::string_view text, std::string_view key);
// Value of the first "key<tabs>: value" line in /proc/cpuinfo text.
std::optional<std::string> cpuinfo_value(std::string_view text, std::string_view key);

// dddd:bb:dd.f, the form the kernel names PCI functions with.
bool looks_like_pci_address(std::string_view name);
// Orders "thermal_zone2" before "thermal_zone10" and "temp2" before "temp10".
bool natural_less(std::string_view a, std::string_view b);

// ---- links --------------------------------------------------------------

// Speed, duplex, driver, PCI address and NUMA node from
// <sys>/class/net/<link.name>/; leaves fields absent/empty when the files are.
void fill_link_sysfs(const std::string& sys, Link& link);
// Netlink (the current network namespace) plus fill_link_sysfs. Throws
// SourceError when the route socket or link cache cannot be created.
std::vector<Link> read_links(const LiveRoots& roots);

// ---- rdma ---------------------------------------------------------------

// 16 raw bytes as sysfs prints a GID: eight groups of four hex digits.
std::string format_gid(const std::uint8_t (&raw)[16]);
// A host-order 64-bit GUID as sysfs prints node_guid: xxxx:xxxx:xxxx:xxxx.
std::string format_guid(std::uint64_t guid);
// ibv_mtu enum value (1..5) to bytes (256..4096); 0 for anything else.
int mtu_enum_to_bytes(int mtu);
// <sys>/class/infiniband/<dev>/ports/<port>/rate, empty when unreadable.
std::string port_rate(const std::string& sys, const std::string& dev, int port);
// gid_attrs/types/<i> and gid_attrs/ndevs/<i> into gid.type / gid.netdev.
void fill_gid_attrs(const std::string& sys, const std::string& dev, int port, RdmaGid& gid);
// The netdev of the first GID that has one, empty when none does.
std::string port_netdev(const std::vector<RdmaGid>& gids);
// ibverbs device list and queries; sysfs only for rate and GID attributes.
RdmaInventory read_rdma(const LiveRoots& roots);

// ---- accelerators, cpu, memory, thermal ---------------------------------

// "nvidia", "huawei", "amd", or "" when the PCI function is not an
// accelerator we know. Ids and class as sysfs prints them (0x10de, 0x030200).
std::string classify_accelerator(std::string_view vendor_id, std::string_view device_id,
                                 std::string_view pci_class);
AcceleratorInventory read_accelerators(const LiveRoots& roots);
CpuInfo read_cpu(const LiveRoots& roots);
MemoryInfo read_memory(const LiveRoots& roots);
std::vector<ThermalSensor> read_thermal(const LiveRoots& roots);

}  // namespace hn::stack::physical::detail
