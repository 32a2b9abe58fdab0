#pragma once
// The cluster profile (version 1; docs/profile.md): the contract
// that says what a healthy node of this cluster looks like. Every section is
// optional except `version`; absent sections mean "not checked", never a
// guessed default. Unknown keys are rejected by name.
//
// load_profile_file()/parse_profile() throw compat::InputError naming the
// file, line and field for anything malformed or semantically invalid
// (duplicate plane names, a subnet with host bits, an unknown plane type).

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "formats/model_spec.h"
#include "stack/l6_netplane/plane.h"

namespace hn::formats {

struct NodeSpec {
  std::string name;
  std::map<std::string, std::string> addresses;  // plane -> address
  std::map<std::string, std::string> nics;       // plane -> NIC override for this node
  int line = 0;
};

struct MountSpec {
  std::string path;
  std::vector<std::string> fstypes;  // accepted; globs allowed ("fuse.*"); empty = any
  std::vector<std::string> require_options;
  std::vector<std::string> forbid_options;
  std::string source;  // expected server:export or device; empty = any
  std::optional<double> min_free_gib;
  std::optional<std::uint64_t> min_free_inodes;
  std::string probe_dir;   // where test I/O goes; default <path>
  bool jitter = true;      // run the jitter workload on this mount
  bool mountpoint = true;  // path must be a mount point (false: any directory;
                           // the file system holding it is checked)
  double timeout_s = 5;    // deadline of the mount checks (a hung mount FAILs then)
  int line = 0;
};

struct LatencyLimits {
  std::optional<double> p50_ms, p90_ms, p99_ms, p999_ms, max_ms, tail_ratio;
  // Minimum checkpoint throughput, MB/s (10^6 bytes): below is the problem.
  std::optional<double> write_mbps, read_mbps;

  static LatencyLimits tail(double p99_ms, double p999_ms) {
    LatencyLimits l;
    l.p99_ms = p99_ms;
    l.p999_ms = p999_ms;
    return l;
  }
};

struct JitterSpec {
  std::uint64_t block_bytes = 4096;
  double duration_s = 3;
  std::uint64_t max_bytes = 256ull << 20;
  int threads = 1;
  std::string sync = "fsync";  // fsync | dsync
  std::vector<std::string> workloads = {"sync_write", "random_read", "metadata", "checkpoint"};
  std::uint64_t checkpoint_bytes = 64ull << 20;   // sequential write/read size
  std::optional<double> checkpoint_estimate_gib;  // report save/load time for this size
  std::uint64_t read_file_bytes = 16ull << 20;    // file the random reads address
  LatencyLimits warn = LatencyLimits::tail(20, 50);
  LatencyLimits fail = LatencyLimits::tail(100, 500);
  // Not a profile key: certify sets it so that each latency workload's
  // STOR-JITTER-LATENCY carries its histogram (evidence "histogram",
  // LatencyHistogram::encode) and the hosts' samples merge exactly.
  bool with_histograms = false;
};

// storage.interference: how much the storage workload and a plane's
// collectives may slow each other (certify runs them alone, then together).
// Ratios: p99 under load / alone (a maximum), busbw under load / alone (a
// minimum). Unset limits are reported, not judged.
struct InterferenceLimits {
  std::optional<double> p99_ratio, busbw_ratio;
};

struct StorageSpec {
  std::vector<MountSpec> mounts;
  JitterSpec jitter;
  bool jitter_declared = false;
  InterferenceLimits interference_warn, interference_fail;
};

// Certify's thresholds for a plane's collectives and links (planes[] keys):
// the busbw of the largest size must reach min_busbw_gbps, or the fraction
// min_busbw_fraction of speed_mbps; a host, pair or group whose links run
// below slow_link_fraction of the plane's healthy level is slow (found at
// 0.6 of its peers with the default); the healthy links must reach
// link_line_fraction of the NICs' line rate (counted up to 100 Gbit/s: one
// TCP stream per direction is what is measured; 0 turns the check off).
struct PlaneThresholds {
  std::optional<double> min_busbw_gbps, min_busbw_fraction;
  double slow_link_fraction = 0.75;
  double link_line_fraction = 0.15;
};

struct AcceleratorSpec {
  std::string vendor;  // nvidia | huawei | amd
  int count = 0;
};

struct PhysicalSpec {
  std::optional<AcceleratorSpec> accelerators;
  std::optional<double> max_temp_c;
  std::optional<double> min_memory_gib;
  std::optional<int> min_cpus;
};

struct CommSpec {
  std::string library;  // hccl, nccl, gloo, mpi; empty = unspecified
  std::optional<int> pfc_priority;
};

struct DomainSpec {
  std::string name;
  std::string link;  // hccs, nvlink, ...
  std::vector<std::string> nodes;
};

struct Profile {
  int version = 1;
  std::string cluster;
  std::string source;  // file path, or "embedded:default"
  std::vector<NodeSpec> nodes;
  std::vector<stack::netplane::Plane> planes;
  std::map<std::string, PlaneThresholds> thresholds;  // plane name -> its certify thresholds
  StorageSpec storage;
  PhysicalSpec physical;
  CommSpec comm;
  std::vector<DomainSpec> domains;
  std::optional<ModelSpec> model;  // the model phase of certify; absent: its defaults

  const stack::netplane::Plane* find_plane(const std::string& name) const;
  // The plane's thresholds (defaults when it sets none).
  PlaneThresholds thresholds_of(const std::string& plane) const;
  const NodeSpec* find_node(const std::string& name) const;
};

Profile parse_profile(const std::string& text, const std::string& source_name);
Profile load_profile_file(const std::string& path);
// The profile compiled into the binary: checks that hold on any healthy
// Linux machine (the default-route NIC is up, temperatures, memory).
Profile default_profile();
const std::string& default_profile_text();

}  // namespace hn::formats
