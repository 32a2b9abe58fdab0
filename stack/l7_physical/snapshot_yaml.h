#pragma once
// An Inventory as YAML, for snapshots: `hnprecheck snapshot` writes it under
// the document's `physical:` key and the snapshot source reads it back. Keys
// are the struct field names; the layout is
//
//   links:                       # list, one map per Link
//     - name: ens1f0             # required
//       ifindex: 4
//       admin_up: true
//       oper_state: up
//       carrier: true
//       mtu: 9000
//       mac: "b8:ce:f6:00:00:01"
//       kind: ""                 # vlan, veth, bridge, bond, ... ("" plain)
//       master: ""
//       parent: ""
//       vlan_id: 100             # optional: only when kind is vlan
//       rx_bytes: 0              # and tx_bytes, rx_packets, tx_packets
//       speed_mbps: 100000       # optional: absent when sysfs had none
//       duplex: full
//       driver: mlx5_core
//       pci_address: "0000:3b:00.0"
//       numa_node: 0             # optional
//   rdma:
//     supported: true
//     unsupported_reason: ""
//     devices:
//       - name: mlx5_0           # required
//         node_guid: "b8ce:f603:0000:0001"
//         fw_ver: 22.36.1010
//         ports:
//           - port: 1            # required
//             state: ACTIVE
//             link_layer: Ethernet
//             active_mtu: 4096
//             rate: 100 Gb/sec (4X EDR)
//             netdev: ens1f0
//             gids:
//               - {index: 3, gid: "0000:...:0a0a:0001", type: RoCE v2, netdev: ens1f0}
//   accelerators:
//     pci:                       # vendor and pci_address required
//       - {vendor: nvidia, pci_address: "0000:18:00.0", vendor_id: "0x10de",
//          device_id: "0x20b0", pci_class: "0x030200", numa_node: 0}
//     device_nodes: [/dev/nvidia0]
//   cpu: {logical_cpus: 64, model: ..., numa_nodes: [{id: 0, cpulist: 0-31, mem_total_kib: 1}]}
//   memory: {total_kib: 1, available_kib: 1}
//   thermal:                     # name and temp_c required
//     - {name: thermal_zone0 (x86_pkg_temp), source: /sys/..., temp_c: 45.5}
//
// to_yaml writes every field (optional ones only when set). The reader takes
// a missing non-required field as the struct's default, so hand-written
// fixtures stay short; unknown keys and wrong types are InputErrors.

#include <yaml-cpp/yaml.h>

#include <string>

#include "stack/l7_physical/inventory.h"

namespace hn::stack::physical {

// The inventory as a YAML map; inventory_from_yaml(to_yaml(x)) == x.
YAML::Node to_yaml(const Inventory& inventory);

// Reads the map written by to_yaml. source_name is the file named in errors,
// path the dotted prefix of field names ("physical" -> physical.links[0].mtu).
// Throws compat::InputError naming file:line and the field.
Inventory inventory_from_yaml(const YAML::Node& node, const std::string& source_name,
                              const std::string& path);

}  // namespace hn::stack::physical
