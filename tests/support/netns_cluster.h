#pragma once
// A virtual multi-host cluster made of network namespaces (the `netns` tests):
// N host namespaces, each with one veth NIC per plane, every plane on its own
// bridge in a separate "switch" namespace, one subnet per plane, optionally a
// tbf rate limit on the management NICs. Built with `ip` and `tc` from
// iproute2; needs root (unavailable_reason() says why not).
//
// Everything is named "hnc<pid>-<n>-..." so parallel test processes never
// collide, and the destructor deletes every namespace it made (which deletes
// the veths and bridges in them) whatever the test did. Namespaces left by a
// killed run (their pid is gone) are removed by the next construction.
//
// Defaults describe a correct cluster: host i has 10.30.0.(i+1) on eth0
// (management, default route via 10.30.0.254 on the switch), 10.10.0.(i+1)
// on eth1 (parameter, MTU 9000) and 10.20.0.(i+1) on eth2 (storage); lo is
// up; rp_filter 2, arp_ignore 1 and arp_announce 2 on all and every NIC.

#include <memory>
#include <string>
#include <vector>

#include "tests/support/process.h"

namespace hn::test {

// One named network namespace, deleted when the object goes.
class Netns {
 public:
  explicit Netns(std::string name);
  ~Netns();
  Netns(const Netns&) = delete;
  Netns& operator=(const Netns&) = delete;
  const std::string& name() const { return name_; }
  // `ip -n <name> <args>`; throws std::runtime_error with the command and its stderr.
  void ip(const std::string& args) const;
  // `tc -n <name> <args>`; throws like ip().
  void tc(const std::string& args) const;
  // Writes /proc/sys/<key with '/'> inside the namespace, e.g.
  // sysctl("net/ipv4/conf/eth1/rp_filter", "1"). Throws on failure.
  void sysctl(const std::string& key, const std::string& value) const;

 private:
  std::string name_;
};

// Moves the calling thread into a namespace until destroyed (then back).
class NetnsEnter {
 public:
  explicit NetnsEnter(const std::string& name);
  ~NetnsEnter();
  NetnsEnter(const NetnsEnter&) = delete;
  NetnsEnter& operator=(const NetnsEnter&) = delete;

 private:
  int original_ = -1;
};

struct ClusterPlane {
  std::string name;    // plane name in the profile
  std::string type;    // parameter, storage, management, ...
  std::string prefix;  // first three octets of the /24: "10.10.0"
  std::string nic;     // NIC name inside every host
  int mtu = 1500;
};

struct NetnsClusterOptions {
  int hosts = 2;
  std::vector<ClusterPlane> planes = {
      {"mgmt", "management", "10.30.0", "eth0", 1500},
      {"param", "parameter", "10.10.0", "eth1", 9000},
      {"stor", "storage", "10.20.0", "eth2", 1500},
  };
  std::string management_rate;  // tbf rate on each host's management NIC ("100mbit"); "" = none
  bool default_route = true;    // default via <management prefix>.254 (the bridge address)
};

class NetnsCluster {
 public:
  explicit NetnsCluster(NetnsClusterOptions options = {});
  ~NetnsCluster();
  NetnsCluster(const NetnsCluster&) = delete;
  NetnsCluster& operator=(const NetnsCluster&) = delete;

  // Empty when this machine can build a cluster; otherwise why not.
  static std::string unavailable_reason();

  const Netns& host(int i) const { return *hosts_.at(static_cast<size_t>(i)); }
  const Netns& switch_ns() const { return *switch_; }
  int size() const { return static_cast<int>(hosts_.size()); }
  const ClusterPlane& plane(const std::string& name) const;
  std::string nic(const std::string& plane_name) const { return plane(plane_name).nic; }
  std::string address(int host, const std::string& plane_name) const;
  std::string gateway(const std::string& plane_name) const;  // the bridge address, .254
  std::string node_name(int host) const { return "host" + std::to_string(host); }
  // A version-1 profile describing this cluster: nodes host0.. with their
  // addresses, one plane per ClusterPlane with subnet, NIC and MTU.
  std::string profile_yaml() const;
  // Runs build/bin/hnprecheck inside host i (`ip netns exec`), with extra
  // environment entries ("KEY=value").
  ProcessResult hnprecheck(int host, const std::vector<std::string>& args,
                           const std::vector<std::string>& env = {}) const;

 private:
  NetnsClusterOptions options_;
  std::string prefix_;
  std::unique_ptr<Netns> switch_;
  std::vector<std::unique_ptr<Netns>> hosts_;
};

// The absolute path of a program found on PATH (or in /usr/sbin, /sbin);
// empty when absent.
std::string find_program(const std::string& name);

}  // namespace hn::test
