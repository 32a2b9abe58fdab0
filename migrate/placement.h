#pragma once
// Where a job's path or a traffic endpoint lands on the target cluster, read
// from the profile (storage.mounts, planes, nodes) and, when given, the
// nodes' snapshots. Pure: nothing here touches a file system or the network.
//
// A path is on shared storage when it lies under one of the profile's
// storage.mounts (the mounts `node` checks on every node). When a snapshot of
// a node is given, the mount that really covers the path there must be that
// mount; otherwise the node would write to whatever lies below (its local
// disk). Paths outside every mount are named by kind: the temp directory,
// memory, node-local disk (by conventional mount points such as /local,
// /nvme, /scratch/local, or by the snapshot's file system type), or simply
// "not under any shared mount".

#include <string>
#include <vector>

#include "formats/profile.h"
#include "migrate/evidence.h"
#include "stack/l6_netplane/plane.h"

namespace hn::migrate {

struct PathPlacement {
  enum Kind { kShared, kNotShared, kUnresolved };
  Kind kind = kUnresolved;
  std::string checked;                        // the path judged (a dynamic path's fixed prefix)
  const formats::MountSpec* mount = nullptr;  // kShared: the profile mount that holds it
  std::string what;  // kNotShared: "in the temp directory /tmp", "on node-local disk"
  std::string seen;  // from snapshots: " (node0: ext4 /dev/nvme0n1p1 at /local)"
  std::string why;   // kUnresolved: why it cannot be placed
};

PathPlacement place_path(const std::string& path, bool dynamic, const formats::Profile& profile,
                         const Evidence& evidence);

// "/mnt/shared, /mnt/ckpt" (the profile's mounts), or "none".
std::string mount_list(const formats::Profile& profile);

// The plane whose subnets hold `ip`, or nullptr (also for text that is not an
// address).
const stack::netplane::Plane* plane_of_address(const formats::Profile& profile,
                                               const std::string& ip);
// The plane whose NIC (the plane's nic pattern, or a node's nics override)
// is `nic`, or nullptr.
const stack::netplane::Plane* plane_of_nic(const formats::Profile& profile, const std::string& nic);
// "param0 (parameter)".
std::string plane_text(const stack::netplane::Plane& p);

}  // namespace hn::migrate
