#include "compat/ib_hca_grammar.h"

#include <set>

#include "compat/ifname_grammar.h"

namespace hn::compat {

namespace {
constexpr size_t kNcclMaxIbDevices = 32;  // MAX_IB_DEVS
}  // namespace

HcaSelection resolve_nccl_ib_hca(const std::optional<std::string>& value,
                                 const std::vector<HcaPortCandidate>& ports) {
  HcaSelection sel;
  IfList list;
  if (value && !value->empty())
    list = parse_if_list(*value);
  else
    sel.automatic = true;
  std::set<std::string> devices;
  for (const auto& p : ports) {
    if (!p.active || (p.link_layer != "InfiniBand" && p.link_layer != "Ethernet")) continue;
    if (!if_list_selects(list, p.device, p.port)) continue;
    if (!devices.count(p.device) && devices.size() == kNcclMaxIbDevices) continue;
    devices.insert(p.device);
    sel.ports.push_back({p.device, p.port});
  }
  if (sel.ports.empty())
    sel.error = sel.automatic ? "no ACTIVE RDMA port"
                              : "NCCL_IB_HCA=" + *value + " matches no ACTIVE RDMA port";
  return sel;
}

}  // namespace hn::compat
