#include "migrate/placement.h"

#include <algorithm>

#include "stack/l6_netplane/ip_address.h"
#include "stack/l7_physical/mountinfo.h"

namespace hn::migrate {

namespace {

namespace phys = stack::physical;
namespace np = stack::netplane;

// Mount points that are node-local by convention on HPC and GPU clusters.
constexpr const char* kLocalPrefixes[] = {
    "/local",    "/nvme", "/mnt/nvme", "/mnt/local", "/scratch/local", "/localscratch",
    "/lscratch", "/raid", "/mnt/ssd",  "/ssd",       "/mnt/resource",  "/var/lib/docker"};
// File systems that live on the node itself.
constexpr const char* kLocalFstypes[] = {"ext2",    "ext3", "ext4", "xfs", "btrfs", "tmpfs",
                                         "overlay", "vfat", "f2fs", "zfs", "ramfs", "devtmpfs"};

// The part of a path fixed before run time: "/ckpt/$SLURM_JOB_ID/x" -> "/ckpt".
std::string fixed_prefix(const std::string& path) {
  size_t cut = path.find_first_of("$`");
  if (cut == std::string::npos) return path;
  std::string p = path.substr(0, cut);
  size_t slash = p.rfind('/');
  if (slash == std::string::npos) return "";
  return slash == 0 ? "/" : p.substr(0, slash);
}

std::string local_kind(const std::string& path) {
  if (phys::path_has_prefix(path, "/dev/shm")) return "in memory (/dev/shm, a tmpfs of each node)";
  if (phys::path_has_prefix(path, "/tmp") || phys::path_has_prefix(path, "/var/tmp"))
    return "in the temp directory of each node";
  for (const char* p : kLocalPrefixes)
    if (phys::path_has_prefix(path, p)) return std::string("on node-local disk (") + p + ")";
  return "not under any shared mount of the profile";
}

bool local_fstype(const std::string& fstype) {
  for (const char* f : kLocalFstypes)
    if (fstype == f) return true;
  return false;
}

}  // namespace

PathPlacement place_path(const std::string& path, bool dynamic, const formats::Profile& profile,
                         const Evidence& evidence) {
  PathPlacement out;
  std::string p = dynamic ? fixed_prefix(path) : path;
  if (path.rfind("~", 0) == 0) {
    out.why = "it is in the home directory, which differs between users and clusters";
    return out;
  }
  if (p.empty() || p[0] != '/') {
    out.why = dynamic && !path.empty() && path[0] == '/' ? "its directory is only known at run time"
              : dynamic                                  ? "it is only known at run time"
                        : "it is relative to the job's working directory, which is not known";
    return out;
  }
  if (dynamic && p == "/") {
    out.why = "everything below / is only known at run time";
    return out;
  }
  out.checked = phys::normalize_path(p);
  const formats::MountSpec* best = nullptr;
  for (const auto& m : profile.storage.mounts)
    if (phys::path_has_prefix(out.checked, phys::normalize_path(m.path)) &&
        (!best || m.path.size() > best->path.size()))
      best = &m;

  // What the nodes' snapshots show for this path.
  std::vector<std::string> off_mount;
  bool any_local_fs = false;
  for (size_t i = 0; i < evidence.snapshots.size(); ++i) {
    const auto& snap = evidence.snapshots[i];
    const phys::MountEntry* m = phys::covering_mount(snap.mounts, out.checked);
    if (!m) continue;
    bool on_profile_mount =
        best && phys::normalize_path(m->mount_point) == phys::normalize_path(best->path);
    if (best && on_profile_mount) continue;
    any_local_fs = any_local_fs || local_fstype(m->fstype);
    off_mount.push_back(snap.hostname + ": " + m->fstype + " " + m->source + " at " +
                        m->mount_point);
  }
  std::string seen;
  for (const auto& s : off_mount) seen += (seen.empty() ? "" : "; ") + s;
  if (!seen.empty()) out.seen = " (" + seen + ")";

  if (best && off_mount.empty()) {
    out.kind = PathPlacement::kShared;
    out.mount = best;
    return out;
  }
  out.kind = PathPlacement::kNotShared;
  if (best)
    out.what = "not on the shared mount " + best->path + " on every node";
  else if (any_local_fs && local_kind(out.checked) == "not under any shared mount of the profile")
    out.what = "on node-local storage";
  else
    out.what = local_kind(out.checked);
  return out;
}

std::string mount_list(const formats::Profile& profile) {
  std::string out;
  for (const auto& m : profile.storage.mounts) out += (out.empty() ? "" : ", ") + m.path;
  return out.empty() ? "none" : out;
}

const np::Plane* plane_of_address(const formats::Profile& profile, const std::string& ip) {
  auto addr = np::try_parse_ip(ip);
  if (!addr) return nullptr;
  for (const auto& plane : profile.planes)
    for (const auto& s : plane.subnets)
      if (s.contains(*addr)) return &plane;
  return nullptr;
}

const np::Plane* plane_of_nic(const formats::Profile& profile, const std::string& nic) {
  for (const auto& plane : profile.planes) {
    if (!plane.nic.empty() && plane.nic != "auto" && np::nic_matches(plane.nic, nic)) return &plane;
    for (const auto& node : profile.nodes) {
      auto it = node.nics.find(plane.name);
      if (it != node.nics.end() && np::nic_matches(it->second, nic)) return &plane;
    }
  }
  return nullptr;
}

std::string plane_text(const np::Plane& p) {
  return p.name + " (" + std::string(np::to_string(p.type)) + ")";
}

}  // namespace hn::migrate
