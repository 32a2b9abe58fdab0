// Catalog entries for L7 physical checks: NICs, RDMA, accelerators, CPU,
// memory and temperatures.
#include "reports/catalog.h"

namespace hn::reports::catalog_parts {

namespace {
constexpr CatalogEntry kPhysicalEntries[] = {
    {"HW-INVENTORY", Layer::kL7, "hardware inventory readable", "read {what} from {source}",
     "could not read {what}: {reason}",
     "Check that {source} is readable by this user; run `hnprecheck snapshot` for the raw state."},
    {"HW-NIC-PRESENT", Layer::kL7, "plane NIC present", "NIC {nic} of plane {plane} is present",
     "no NIC matching '{pattern}' (plane {plane}) exists on this node; NICs here: {found}",
     "Check the NIC name or glob of plane {plane} in the profile against `ip link`; if the "
     "NIC is really absent, check its driver (dmesg) and the PCI slot."},
    {"HW-NIC-STATE", Layer::kL7, "plane NIC up with carrier",
     "{nic} is admin-up, oper {oper_state}, carrier on",
     "{nic} (plane {plane}) is not usable: admin {admin}, oper {oper_state}, carrier {carrier}",
     "Bring the link up (`ip link set {nic} up`); with no carrier, check the cable, the "
     "transceiver and the switch port."},
    {"HW-NIC-MTU", Layer::kL7, "plane NIC MTU", "{nic} MTU is {mtu} as plane {plane} expects",
     "{nic} MTU is {mtu}, plane {plane} expects {expected}",
     "Set it with `ip link set {nic} mtu {expected}` and persist it in the network "
     "configuration; every node of the plane and the switch ports must agree."},
    {"HW-NIC-SPEED", Layer::kL7, "plane NIC link speed",
     "{nic} runs at {speed_mbps} Mb/s (plane {plane} expects at least {expected_mbps})",
     "{nic} runs at {speed_mbps} Mb/s, plane {plane} expects at least {expected_mbps} Mb/s",
     "Check autonegotiation and the link partner with `ethtool {nic}`; reseat or replace the "
     "cable or transceiver."},
    {"HW-RDMA-INVENTORY", Layer::kL7, "RDMA devices", "{count} RDMA device(s): {devices}",
     "no RDMA devices: {devices}",
     "Load the RDMA driver or check the HCA; `ibv_devices` lists what the kernel sees."},
    {"HW-RDMA-DEVICE", Layer::kL7, "expected RDMA device present",
     "RDMA device {device} of plane {plane} is present",
     "RDMA device {device} expected by plane {plane} is not present; devices here: {found}",
     "Check the driver (`rdma link`, `ibv_devices`) and the profile's device name."},
    {"HW-RDMA-PORT", Layer::kL7, "RDMA port active",
     "{device} port {port} is ACTIVE ({link_layer}, MTU {active_mtu})",
     "{device} port {port} is {state}, expected ACTIVE",
     "Check the cable and the switch port; `ibv_devinfo -d {device}` shows the port state."},
    {"HW-ACCEL-COUNT", Layer::kL7, "accelerator count",
     "{count} {vendor} accelerator(s) present as expected",
     "{count} {vendor} accelerator(s) on PCI and {nodes} device node(s), expected {expected}",
     "Compare `lspci -d {vendor_id}:` with the expected count; a missing device usually needs "
     "a reset, a driver reload or a hardware ticket."},
    {"HW-TEMP", Layer::kL7, "temperature below limit",
     "{sensor} at {temp_c} °C (limit {limit_c} °C)",
     "{sensor} at {temp_c} °C exceeds the limit of {limit_c} °C",
     "Check fans, airflow and inlet temperature; keep jobs off this node until it cools down."},
    {"HW-MEMORY", Layer::kL7, "memory available",
     "{available_gib} GiB available of {total_gib} GiB",
     "{available_gib} GiB available of {total_gib} GiB, the profile needs {min_gib} GiB",
     "Find what holds the memory (leftover processes of an earlier job, page cache pinned by "
     "a hung mount) and free it before the next job starts."},
    {"HW-CPU", Layer::kL7, "CPUs online", "{cpus} CPUs online ({numa} NUMA node(s))",
     "{cpus} CPUs online, the profile expects at least {expected}",
     "Check for offlined CPUs in /sys/devices/system/cpu/*/online and BIOS settings."},
};
}  // namespace

std::span<const CatalogEntry> physical() {
  return kPhysicalEntries;
}

}  // namespace hn::reports::catalog_parts
