// RDMA devices through libibverbs. Port attributes come from the verbs
// queries; rate and GID type/netdev come from sysfs because verbs only
// exposes them through the newer _ex calls that older providers lack.

#include <endian.h>
#include <infiniband/verbs.h>

#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

#include "stack/l7_physical/live_readers.h"

namespace hn::stack::physical::detail {

namespace {

struct DeviceListFree {
  void operator()(ibv_device** l) const { ibv_free_device_list(l); }
};
struct ContextClose {
  void operator()(ibv_context* c) const { ibv_close_device(c); }
};

std::string errno_text(int e) {
  std::string s = std::strerror(e);
  if (const char* name = strerrorname_np(e)) s += std::string(" (") + name + ")";
  return s;
}

// ibv_port_state_str says "active"; ibv_devinfo and operators say ACTIVE.
std::string port_state_text(ibv_port_state state) {
  std::string s = ibv_port_state_str(state);
  for (char& c : s)
    c = c == ' ' ? '_' : static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

RdmaPort read_port(ibv_context* ctx, const std::string& sys, const std::string& dev, int port) {
  ibv_port_attr pa{};
  if (int err = ibv_query_port(ctx, static_cast<uint8_t>(port), &pa); err != 0)
    throw SourceError("ibv_query_port(" + dev + ", " + std::to_string(port) +
                      ") failed: " + errno_text(err));
  RdmaPort out;
  out.port = port;
  out.state = port_state_text(pa.state);
  // Providers that predate RoCE leave the link layer unspecified: that is IB.
  out.link_layer = pa.link_layer == IBV_LINK_LAYER_ETHERNET ? "Ethernet" : "InfiniBand";
  out.active_mtu = mtu_enum_to_bytes(pa.active_mtu);
  out.rate = port_rate(sys, dev, port);
  for (int i = 0; i < pa.gid_tbl_len; ++i) {
    ibv_gid gid{};
    if (ibv_query_gid(ctx, static_cast<uint8_t>(port), i, &gid) != 0) continue;
    bool zero = true;
    for (auto b : gid.raw) zero = zero && b == 0;
    if (zero) continue;
    RdmaGid g;
    g.index = i;
    g.gid = format_gid(gid.raw);
    fill_gid_attrs(sys, dev, port, g);
    out.gids.push_back(std::move(g));
  }
  out.netdev = port_netdev(out.gids);
  return out;
}

}  // namespace

std::string format_gid(const std::uint8_t (&raw)[16]) {
  char buf[40];
  std::snprintf(buf, sizeof buf,
                "%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x", raw[0],
                raw[1], raw[2], raw[3], raw[4], raw[5], raw[6], raw[7], raw[8], raw[9], raw[10],
                raw[11], raw[12], raw[13], raw[14], raw[15]);
  return buf;
}

std::string format_guid(std::uint64_t guid) {
  char buf[20];
  std::snprintf(buf, sizeof buf, "%04x:%04x:%04x:%04x", static_cast<unsigned>(guid >> 48),
                static_cast<unsigned>((guid >> 32) & 0xffff),
                static_cast<unsigned>((guid >> 16) & 0xffff), static_cast<unsigned>(guid & 0xffff));
  return buf;
}

int mtu_enum_to_bytes(int mtu) {
  // IBV_MTU_256 == 1 ... IBV_MTU_4096 == 5.
  return mtu >= IBV_MTU_256 && mtu <= IBV_MTU_4096 ? 128 << mtu : 0;
}

std::string port_rate(const std::string& sys, const std::string& dev, int port) {
  return read_text(sys + "/class/infiniband/" + dev + "/ports/" + std::to_string(port) + "/rate")
      .value_or("");
}

void fill_gid_attrs(const std::string& sys, const std::string& dev, int port, RdmaGid& gid) {
  // Unpopulated entries answer EINVAL; that reads as "no type / no netdev".
  const std::string base =
      sys + "/class/infiniband/" + dev + "/ports/" + std::to_string(port) + "/gid_attrs/";
  const std::string index = std::to_string(gid.index);
  gid.type = read_text(base + "types/" + index).value_or("");
  gid.netdev = read_text(base + "ndevs/" + index).value_or("");
}

std::string port_netdev(const std::vector<RdmaGid>& gids) {
  for (const auto& g : gids)
    if (!g.netdev.empty()) return g.netdev;
  return "";
}

RdmaInventory read_rdma(const LiveRoots& roots) {
  RdmaInventory inv;
  int count = 0;
  errno = 0;
  std::unique_ptr<ibv_device*, DeviceListFree> list(ibv_get_device_list(&count));
  if (!list) {
    int err = errno;
    if (err != ENOSYS) throw SourceError("ibv_get_device_list failed: " + errno_text(err));
    // ENOSYS is how libibverbs says there is no uverbs ABI in the kernel.
    inv.supported = false;
    inv.unsupported_reason =
        "ibv_get_device_list failed: " + errno_text(err) + ": this kernel has no RDMA support";
    return inv;
  }
  inv.supported = true;
  for (int d = 0; d < count; ++d) {
    ibv_device* dev = list.get()[d];
    RdmaDevice out;
    out.name = ibv_get_device_name(dev);
    std::unique_ptr<ibv_context, ContextClose> ctx(ibv_open_device(dev));
    if (!ctx) throw SourceError("ibv_open_device(" + out.name + ") failed: " + errno_text(errno));
    ibv_device_attr attr{};
    if (int err = ibv_query_device(ctx.get(), &attr); err != 0)
      throw SourceError("ibv_query_device(" + out.name + ") failed: " + errno_text(err));
    out.node_guid = format_guid(be64toh(attr.node_guid));
    out.fw_ver = attr.fw_ver;
    for (int p = 1; p <= attr.phys_port_cnt; ++p)
      out.ports.push_back(read_port(ctx.get(), roots.sys, out.name, p));
    inv.devices.push_back(std::move(out));
  }
  return inv;
}

}  // namespace hn::stack::physical::detail
