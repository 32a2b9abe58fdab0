// Catalog entries for shared storage: mounts (present, type, options,
// source, writable, capacity), faults (hung, stale, I/O error) and the I/O
// jitter workload (latency percentiles, checkpoint throughput).
#include "reports/catalog.h"

namespace hn::reports::catalog_parts {

namespace {

constexpr std::string_view kTailRemedy =
    "I/O tail latency on {path} stalls every rank that waits for it. Compare with other nodes "
    "on the same profile to tell a node problem from a server problem; look for a busy or "
    "degraded server, a congested storage plane, or noisy neighbours.";

constexpr CatalogEntry kStorageEntries[] = {
    {"STOR-PATH-MISSING", Layer::kL7, "mount path resolves", "{path} resolves to {resolved}",
     "{path} cannot be resolved: {error}",
     "Create the mount point or fix the path in the profile; if it should be mounted by an "
     "automounter, check it (`systemctl status autofs`) and `findmnt {path}`."},
    {"STOR-MOUNT-PRESENT", Layer::kL7, "shared mount present",
     "{path} is on the {fstype} mount of {source} at {mount_point}",
     "{path} is not a mount point: it lies on {mount_point} ({fstype} from {source})",
     "Mount it (`mount {path}`; check /etc/fstab or the automounter map) and make sure nothing "
     "is mounted over it; `findmnt {path}` shows what is there now. Jobs writing to {path} now "
     "fill the local disk instead of shared storage."},
    {"STOR-MOUNT-FSTYPE", Layer::kL7, "mount file system type",
     "{path} is {fstype} (accepted: {accepted})",
     "{path} is {fstype}, the profile accepts {accepted}",
     "A different file system is mounted at {path} than the cluster expects; remount the "
     "expected one and check /etc/fstab or the automounter map."},
    {"STOR-MOUNT-OPTIONS", Layer::kL7, "mount options",
     "{path} has the required options ({required}) and none of the forbidden ones ({forbidden})",
     "{path} mount options are wrong: missing {missing}; forbidden but present {present}",
     "Remount {path} with the cluster's options (fix /etc/fstab or the automounter map, then "
     "`umount {path} && mount {path}`); the options now are {options}."},
    {"STOR-MOUNT-SOURCE", Layer::kL7, "mount source", "{path} is mounted from {source}",
     "{path} is mounted from {source}, the profile expects {expected}",
     "The wrong server or export is mounted at {path}; check /etc/fstab or the automounter "
     "map and remount from {expected}."},
    {"STOR-PROBE-DIR", Layer::kL7, "probe directory on the mount",
     "{probe_dir} is on the mount at {mount_point}",
     "{probe_dir} is not on the mount at {mount_point}: it is on {other_mount} ({other_fstype})",
     "Point storage.mounts[].probe_dir of {path} at a directory inside {path}, so the test I/O "
     "reaches the shared file system."},
    {"STOR-MOUNT-RW", Layer::kL7, "mount writable (real round trip)",
     "{path}: create, write, fsync, read back and unlink of {bytes} bytes in {probe_dir} took "
     "{ms} ms",
     "{path}: the write-read round trip in {probe_dir} failed at {op}: {error} (mount flagged "
     "{flag})",
     "If the mount is read-only, remount it read-write; otherwise check that this user may "
     "write to {probe_dir} and the server's export options (ro, root_squash) and quota."},
    {"STOR-MOUNT-FREE-SPACE", Layer::kL7, "free space on the mount",
     "{free_gib} GiB free of {total_gib} GiB on {path} (the profile needs {min_gib} GiB)",
     "only {free_gib} GiB free of {total_gib} GiB on {path}, the profile needs {min_gib} GiB",
     "Free space on {path} (old checkpoints, datasets of finished jobs) or raise the quota "
     "before jobs start writing checkpoints."},
    {"STOR-MOUNT-FREE-INODES", Layer::kL7, "free inodes on the mount",
     "{free_inodes} inodes free of {total_inodes} on {path} (the profile needs {min_inodes})",
     "only {free_inodes} inodes free of {total_inodes} on {path}, the profile needs "
     "{min_inodes}",
     "Remove small files on {path} (logs, shards of finished jobs) or raise the inode quota."},
    {"STOR-MOUNT-HUNG", Layer::kL7, "mount answers", "{path} answered within {deadline_ms} ms",
     "{path} is hung: {op} did not finish; the check was killed after {deadline_ms} ms and "
     "ended, clean-up included, after {elapsed_ms} ms",
     "The server behind {path} does not answer. Check it (NFS server, FUSE daemon, network of "
     "the storage plane) and keep jobs off this node until it does; `umount -l {path}` "
     "detaches a dead mount, and /proc/<pid>/stack of stuck processes shows where they wait."},
    {"STOR-MOUNT-STALE", Layer::kL7, "no stale file handle", "no stale file handle on {path}",
     "{path}: {op} failed with ESTALE (stale file handle): the server no longer knows the "
     "file or export this node holds",
     "Remount {path} (`umount -l {path} && mount {path}`); the export was probably re-created, "
     "moved or failed over on the server."},
    {"STOR-MOUNT-IO-ERROR", Layer::kL7, "no I/O error", "no I/O error on {path}",
     "{path}: {op} failed with EIO (input/output error)",
     "Check the server and the storage plane (`dmesg` on this node shows the mount's errors); "
     "repeated EIO means the storage or the path to it is failing."},
    {"STOR-MOUNT-ACCESS", Layer::kL7, "mount accessible", "{path} is accessible",
     "{path}: {op} failed: {error}",
     "Check permissions and ownership along {path} for this user, and the server's export "
     "options; the error name says what the kernel refused."},
    {"STOR-CLEANUP", Layer::kL7, "test files removed", "removed the test files {leftover}",
     "could not remove {leftover}: {error}",
     "Remove it by hand once {path} answers again; a later hnprecheck run on this node removes "
     "it too once it is 10 minutes old."},
    {"STOR-JITTER-LATENCY", Layer::kL7, "storage I/O latency measured",
     "{workload} on {path}: {samples} samples in {seconds} s, p50 {p50_ms} ms, p90 {p90_ms} ms, "
     "p99 {p99_ms} ms, p99.9 {p999_ms} ms, max {max_ms} ms, tail ratio {tail_ratio}",
     "{workload} on {path}: not one operation completed in {seconds} s",
     "The storage did not complete a single {workload} operation in its time share; check the "
     "server, or raise storage.jitter.duration_s."},
    {"STOR-JITTER-P50", Layer::kL7, "storage I/O median latency",
     "{workload} on {path}: p50 {value_ms} ms (warn above {warn_ms}, fail above {fail_ms})",
     "{workload} on {path}: p50 {value_ms} ms exceeds the {level} limit of {limit_ms} ms "
     "({samples} samples)",
     kTailRemedy},
    {"STOR-JITTER-P90", Layer::kL7, "storage I/O p90 latency",
     "{workload} on {path}: p90 {value_ms} ms (warn above {warn_ms}, fail above {fail_ms})",
     "{workload} on {path}: p90 {value_ms} ms exceeds the {level} limit of {limit_ms} ms "
     "({samples} samples)",
     kTailRemedy},
    {"STOR-JITTER-P99", Layer::kL7, "storage I/O p99 latency",
     "{workload} on {path}: p99 {value_ms} ms (warn above {warn_ms}, fail above {fail_ms})",
     "{workload} on {path}: p99 {value_ms} ms exceeds the {level} limit of {limit_ms} ms "
     "({samples} samples)",
     kTailRemedy},
    {"STOR-JITTER-P999", Layer::kL7, "storage I/O p99.9 latency",
     "{workload} on {path}: p99.9 {value_ms} ms (warn above {warn_ms}, fail above {fail_ms})",
     "{workload} on {path}: p99.9 {value_ms} ms exceeds the {level} limit of {limit_ms} ms "
     "({samples} samples)",
     kTailRemedy},
    {"STOR-JITTER-MAX", Layer::kL7, "storage I/O worst latency",
     "{workload} on {path}: max {value_ms} ms (warn above {warn_ms}, fail above {fail_ms})",
     "{workload} on {path}: max {value_ms} ms exceeds the {level} limit of {limit_ms} ms "
     "({samples} samples)",
     kTailRemedy},
    {"STOR-JITTER-TAIL", Layer::kL7, "storage I/O tail ratio",
     "{workload} on {path}: tail ratio p99.9/p50 {value} (warn above {warn}, fail above {fail})",
     "{workload} on {path}: tail ratio p99.9/p50 {value} exceeds the {level} limit of {limit}",
     kTailRemedy},
    {"STOR-CHECKPOINT-WRITE", Layer::kL7, "checkpoint write throughput",
     "checkpoint on {path}: wrote {mib} MiB{of_requested} at {mbps} MB/s including fsync "
     "(warn below {warn_mbps}, fail below {fail_mbps})",
     "checkpoint on {path}: wrote {mib} MiB{of_requested} at {mbps} MB/s, below the {level} "
     "minimum of {limit_mbps} MB/s",
     "Checkpoints to {path} will take long and stall training; check the server's load, the "
     "storage plane's bandwidth (NIC speed, MTU) and the mount's rsize/wsize options."},
    {"STOR-CHECKPOINT-READ", Layer::kL7, "checkpoint read throughput",
     "checkpoint on {path}: read {mib} MiB at {mbps} MB/s ({mode}; warn below {warn_mbps}, "
     "fail below {fail_mbps})",
     "checkpoint on {path}: read {mib} MiB at {mbps} MB/s ({mode}), below the {level} minimum "
     "of {limit_mbps} MB/s",
     "Loading checkpoints and datasets from {path} will be slow; check the server's load, the "
     "storage plane's bandwidth and the mount's rsize option."},
    {"STOR-CHECKPOINT-ESTIMATE", Layer::kL7, "checkpoint time estimate",
     "a {size_gib} GiB checkpoint on {path} would save in about {save_s} s and load in about "
     "{load_s} s (measured {write_mbps} MB/s write, {read_mbps} MB/s read)",
     "a {size_gib} GiB checkpoint on {path} would take about {save_s} s to save and {load_s} s "
     "to load",
     "Plan checkpoint intervals with these times, or shard checkpoints across more nodes."},
};
}  // namespace

std::span<const CatalogEntry> storage() {
  return kStorageEntries;
}

}  // namespace hn::reports::catalog_parts
