#pragma once
// The traffic proof: did a plane's collective bytes really leave through the
// plane's NIC? Every host reads its NICs' byte counters (sysfs) before and
// after a collective whose bytes to other hosts are known in closed form;
// the plane NIC must have sent at least `min_share` (95 %) of them. When it
// did not, the finding names the NIC that carried them (the one whose
// transmit counter grew the most): a /32 route or a policy rule sending
// parameter traffic through the management NIC, for example. Counters
// include Ethernet/IP/TCP headers, so a healthy plane NIC shows a little
// more than 100 %.
//
// Pure: readings in, NET-TRAFFIC-PLANE findings (one per host, host set)
// and the bytes per NIC as figures (nic.tx_bytes, nic.rx_bytes, labels host,
// plane, nic) out. A host that sent nothing to other hosts (its ring
// neighbours are local) is not judged.

#include <cstdint>
#include <string>
#include <vector>

#include "reports/finding.h"
#include "reports/measurement.h"
#include "stack/l6_netplane/nic_counters.h"

namespace hn::probes::cluster {

struct HostTraffic {
  std::string host;
  std::vector<std::string> plane_nics;  // the plane's NICs on this host
  std::string address;                  // the host's plane address, for the remediation
  stack::netplane::NicCounters delta;   // after - before, every NIC
  std::uint64_t expected_tx = 0;        // payload bytes its ranks sent to other hosts
};

struct TrafficResult {
  std::vector<reports::Finding> findings;
  std::vector<reports::Measurement> metrics;
};

TrafficResult check_traffic(const std::string& plane, const std::vector<HostTraffic>& hosts,
                            double min_share, const std::string& phase);

// "1.23 GB", "456 MB", "12 KB", "10 B" (10^n bytes).
std::string bytes_text(std::uint64_t bytes);

}  // namespace hn::probes::cluster
