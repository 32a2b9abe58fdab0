#include "probes/cluster/traffic_proof.h"

#include <algorithm>
#include <cstdio>

#include "reports/catalog.h"

namespace hn::probes::cluster {

using reports::Finding;
using reports::make_finding;
using reports::Status;

std::string bytes_text(std::uint64_t bytes) {
  char b[48];
  const double v = static_cast<double>(bytes);
  if (v >= 1e9)
    std::snprintf(b, sizeof b, "%.2f GB", v / 1e9);
  else if (v >= 1e6)
    std::snprintf(b, sizeof b, "%.1f MB", v / 1e6);
  else if (v >= 1e3)
    std::snprintf(b, sizeof b, "%.1f KB", v / 1e3);
  else
    std::snprintf(b, sizeof b, "%llu B", static_cast<unsigned long long>(bytes));
  return b;
}

TrafficResult check_traffic(const std::string& plane, const std::vector<HostTraffic>& hosts,
                            double min_share, const std::string& phase) {
  TrafficResult out;
  for (const auto& h : hosts) {
    auto is_plane = [&](const std::string& nic) {
      return std::find(h.plane_nics.begin(), h.plane_nics.end(), nic) != h.plane_nics.end();
    };
    std::uint64_t plane_tx = 0;
    std::string carrier;
    std::uint64_t carrier_tx = 0;
    for (const auto& [nic, d] : h.delta) {
      if (is_plane(nic)) plane_tx += d.tx;
      // Loopback carries only ranks on this host; bridges and other stacked
      // devices would count the same bytes twice, but a host's real NICs
      // are what the finding must name.
      else if (nic != "lo" && d.tx > carrier_tx) {
        carrier = nic;
        carrier_tx = d.tx;
      }
      if (d.tx == 0 && d.rx == 0 && !is_plane(nic)) continue;
      for (const char* dir : {"tx", "rx"}) {
        reports::Measurement m;
        m.name = std::string("nic.") + dir + "_bytes";
        m.labels = {{"host", h.host}, {"plane", plane}, {"nic", nic}};
        m.value = static_cast<double>(std::string(dir) == "tx" ? d.tx : d.rx);
        m.unit = "bytes";
        m.better = reports::Better::kNone;
        m.phase = phase;
        out.metrics.push_back(m);
      }
    }
    if (h.expected_tx == 0) continue;
    const double share = static_cast<double>(plane_tx) / static_cast<double>(h.expected_tx);
    char pct[32];
    std::snprintf(pct, sizeof pct, "%.1f", share * 100);
    std::string plane_nic;
    for (const auto& n : h.plane_nics) plane_nic += (plane_nic.empty() ? "" : ", ") + n;
    if (plane_nic.empty()) plane_nic = "no plane NIC";
    reports::Params p{{"plane", plane},
                      {"share", pct},
                      {"expected", bytes_text(h.expected_tx)},
                      {"plane_nic", plane_nic},
                      {"plane_tx", std::to_string(plane_tx)},
                      {"expected_bytes", std::to_string(h.expected_tx)},
                      {"address", h.address.empty() ? "<plane address>" : h.address},
                      {"carrier", carrier.empty() ? "no other NIC" : carrier},
                      {"carrier_bytes", bytes_text(carrier_tx)}};
    const bool ok = share >= min_share;
    Finding f = make_finding("NET-TRAFFIC-PLANE", ok ? Status::kPass : Status::kFail,
                             h.host + " " + plane_nic, p);
    f.host = h.host;
    f.metrics["plane_share"] = {share * 100, "%"};
    f.metrics["expected"] = {static_cast<double>(h.expected_tx), "bytes"};
    for (const auto& [nic, d] : h.delta)
      if (d.tx > 0 && nic != "lo") f.metrics[nic + ".tx"] = {static_cast<double>(d.tx), "bytes"};
    out.findings.push_back(std::move(f));
    reports::Measurement m;
    m.name = "traffic.plane_share";
    m.labels = {{"host", h.host}, {"plane", plane}};
    m.value = share * 100;
    m.unit = "%";
    m.better = reports::Better::kHigher;
    m.phase = phase;
    out.metrics.push_back(m);
  }
  return out;
}

}  // namespace hn::probes::cluster
