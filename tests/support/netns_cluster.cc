#include "tests/support/netns_cluster.h"

#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <sstream>
#include <stdexcept>

#include "tests/support/skip.h"

namespace hn::test {

namespace {

std::vector<std::string> split_words(const std::string& s) {
  std::istringstream in(s);
  std::vector<std::string> out;
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

void run_checked(std::vector<std::string> argv) {
  std::string cmd;
  for (const auto& a : argv) cmd += (cmd.empty() ? "" : " ") + a;
  argv[0] = find_program(argv[0]);
  if (argv[0].empty()) throw std::runtime_error("not installed: " + cmd);
  ProcessResult r = run_process(argv, 20);
  if (r.exit_code != 0)
    throw std::runtime_error("`" + cmd + "` failed (exit " + std::to_string(r.exit_code) +
                             "): " + r.err);
}

int run_quiet(std::vector<std::string> argv) {
  argv[0] = find_program(argv[0]);
  if (argv[0].empty()) return -1;
  return run_process(argv, 20).exit_code;
}

std::vector<std::string> with(std::vector<std::string> head, const std::string& tail) {
  for (auto& w : split_words(tail)) head.push_back(w);
  return head;
}

// Deletes namespaces of earlier runs whose process is gone.
void remove_stale_namespaces() {
  std::string ip = find_program("ip");
  if (ip.empty()) return;
  ProcessResult r = run_process({ip, "netns", "list"}, 10);
  std::istringstream in(r.out);
  for (std::string line; std::getline(in, line);) {
    std::string name = line.substr(0, line.find(' '));
    if (name.rfind("hnc", 0) != 0) continue;
    long pid = std::strtol(name.c_str() + 3, nullptr, 10);
    if (pid <= 0 || pid == getpid()) continue;
    if (kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH) continue;
    run_quiet({"ip", "netns", "del", name});
  }
}

}  // namespace

std::string find_program(const std::string& name) {
  std::string path = std::getenv("PATH") ? std::getenv("PATH") : "";
  path += ":/usr/sbin:/sbin:/usr/bin:/bin";
  std::istringstream dirs(path);
  for (std::string d; std::getline(dirs, d, ':');)
    if (!d.empty() && access((d + "/" + name).c_str(), X_OK) == 0) return d + "/" + name;
  return "";
}

Netns::Netns(std::string name) : name_(std::move(name)) {
  run_quiet({"ip", "netns", "del", name_});
  run_checked({"ip", "netns", "add", name_});
}

Netns::~Netns() {
  run_quiet({"ip", "netns", "del", name_});
}

void Netns::ip(const std::string& args) const {
  run_checked(with({"ip", "-n", name_}, args));
}

void Netns::tc(const std::string& args) const {
  run_checked(with({"tc", "-n", name_}, args));
}

void Netns::sysctl(const std::string& key, const std::string& value) const {
  NetnsEnter in(name_);
  std::ofstream out("/proc/sys/" + key);
  out << value << "\n";
  out.flush();
  if (!out) throw std::runtime_error("cannot write /proc/sys/" + key + " in " + name_);
}

NetnsEnter::NetnsEnter(const std::string& name) {
  original_ = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
  int fd = open(("/run/netns/" + name).c_str(), O_RDONLY | O_CLOEXEC);
  if (original_ < 0 || fd < 0 || setns(fd, CLONE_NEWNET) != 0) {
    if (fd >= 0) close(fd);
    if (original_ >= 0) close(original_);
    throw std::runtime_error("cannot enter network namespace " + name);
  }
  close(fd);
}

NetnsEnter::~NetnsEnter() {
  if (setns(original_, CLONE_NEWNET) != 0) std::abort();  // never run on in the wrong namespace
  close(original_);
}

std::string NetnsCluster::unavailable_reason() {
  if (std::string why = netns_unavailable_reason(); !why.empty()) return why;
  if (find_program("tc").empty()) return "tc (iproute2) is not installed";
  return "";
}

NetnsCluster::NetnsCluster(NetnsClusterOptions options) : options_(std::move(options)) {
  static std::atomic<int> counter{0};
  prefix_ = "hnc" + std::to_string(getpid()) + "-" + std::to_string(counter++);
  remove_stale_namespaces();
  switch_ = std::make_unique<Netns>(prefix_ + "-sw");
  const Netns& sw = *switch_;
  sw.ip("link set lo up");
  for (const auto& p : options_.planes) {
    std::string br = "br-" + p.name;
    sw.ip("link add " + br + " type bridge");
    sw.ip("link set " + br + " mtu " + std::to_string(p.mtu) + " up");
    sw.ip("addr add " + gateway(p.name) + "/24 dev " + br);
  }
  for (int i = 0; i < options_.hosts; ++i) {
    hosts_.push_back(std::make_unique<Netns>(prefix_ + "-h" + std::to_string(i)));
    const Netns& h = *hosts_.back();
    h.ip("link set lo up");
    for (const auto& p : options_.planes) {
      // The switch side is named after host and NIC; the host side is the NIC.
      std::string port = "h" + std::to_string(i) + "-" + p.nic;
      std::string mtu = std::to_string(p.mtu);
      sw.ip("link add " + port + " mtu " + mtu + " type veth peer name " + p.nic + " netns " +
            h.name());
      sw.ip("link set " + port + " master br-" + p.name + " up");
      h.ip("link set " + p.nic + " mtu " + mtu + " up");
      h.ip("addr add " + address(i, p.name) + "/24 dev " + p.nic);
      if (p.type == "management" && !options_.management_rate.empty())
        h.tc("qdisc add dev " + p.nic + " root tbf rate " + options_.management_rate +
             " burst 32kbit latency 50ms");
    }
    for (const std::string conf : {"all", "default"}) {
      h.sysctl("net/ipv4/conf/" + conf + "/rp_filter", "2");
      h.sysctl("net/ipv4/conf/" + conf + "/arp_ignore", "1");
      h.sysctl("net/ipv4/conf/" + conf + "/arp_announce", "2");
    }
    for (const auto& p : options_.planes) {
      h.sysctl("net/ipv4/conf/" + p.nic + "/rp_filter", "2");
      h.sysctl("net/ipv4/conf/" + p.nic + "/arp_ignore", "1");
      h.sysctl("net/ipv4/conf/" + p.nic + "/arp_announce", "2");
    }
    if (options_.default_route)
      for (const auto& p : options_.planes)
        if (p.type == "management")
          h.ip("route add default via " + gateway(p.name) + " dev " + p.nic);
  }
}

NetnsCluster::~NetnsCluster() {
  hosts_.clear();
  switch_.reset();
}

const ClusterPlane& NetnsCluster::plane(const std::string& name) const {
  for (const auto& p : options_.planes)
    if (p.name == name) return p;
  throw std::out_of_range("no plane " + name + " in the cluster");
}

std::string NetnsCluster::address(int host, const std::string& plane_name) const {
  return plane(plane_name).prefix + "." + std::to_string(host + 1);
}

std::string NetnsCluster::gateway(const std::string& plane_name) const {
  return plane(plane_name).prefix + ".254";
}

std::string NetnsCluster::profile_yaml() const {
  std::string y = "version: 1\ncluster: netns\nnodes:\n";
  for (int i = 0; i < size(); ++i) {
    y += "  - name: " + node_name(i) + "\n    addresses: {";
    for (size_t k = 0; k < options_.planes.size(); ++k)
      y += (k ? ", " : "") + options_.planes[k].name + ": " + address(i, options_.planes[k].name);
    y += "}\n";
  }
  y += "planes:\n";
  for (const auto& p : options_.planes)
    y += "  - {name: " + p.name + ", type: " + p.type + ", subnet: " + p.prefix +
         ".0/24, nic: " + p.nic + ", mtu: " + std::to_string(p.mtu) + "}\n";
  return y;
}

ProcessResult NetnsCluster::hnprecheck(int host, const std::vector<std::string>& args,
                                       const std::vector<std::string>& env) const {
  std::vector<std::string> argv = {find_program("ip"), "netns", "exec", this->host(host).name(),
                                   HN_BINARY};
  argv.insert(argv.end(), args.begin(), args.end());
  return run_process(argv, 60, env);
}

}  // namespace hn::test
