// links() inside a throw-away network namespace, checked against what
// `ip -j -d link` reports for the same namespace. The reading happens in a
// forked child that setns(2)s into the namespace, so this process (and the
// other tests) never leave the host namespace.

#include <fcntl.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>

#include "compat/yaml_input.h"
#include "stack/l7_physical/snapshot_yaml.h"
#include "stack/l7_physical/source.h"
#include "tests/support/skip.h"

using namespace hn::stack::physical;

namespace {

int sh(const std::string& cmd) {
  return std::system((cmd + " >/dev/null 2>&1").c_str());
}

std::string capture(const std::string& cmd) {
  std::string out;
  FILE* p = popen(cmd.c_str(), "r");
  REQUIRE(p != nullptr);
  char buf[4096];
  while (std::size_t n = fread(buf, 1, sizeof buf, p)) out.append(buf, n);
  REQUIRE(pclose(p) == 0);
  return out;
}

// Owns a named namespace: created in the constructor, deleted (with every
// link in it) in the destructor, whatever the test did in between.
class Netns {
 public:
  explicit Netns(std::string name) : name_(std::move(name)) {
    sh("ip netns del " + name_);  // a leftover from a killed run
    REQUIRE(sh("ip netns add " + name_) == 0);
  }
  ~Netns() { sh("ip netns del " + name_); }
  Netns(const Netns&) = delete;
  Netns& operator=(const Netns&) = delete;
  const std::string& name() const { return name_; }
  void run(const std::string& args) const {
    INFO("ip -n " << name_ << " " << args);
    REQUIRE(sh("ip -n " + name_ + " " + args) == 0);
  }

 private:
  std::string name_;
};

void write_all(int fd, const std::string& s) {
  std::size_t off = 0;
  while (off < s.size()) {
    ssize_t n = write(fd, s.data() + off, s.size() - off);
    if (n <= 0) return;
    off += static_cast<std::size_t>(n);
  }
}

// Child side: enter the namespace, give it its own sysfs view (as
// `ip netns exec` does, so class/net shows the namespace's devices), read
// links() and send them back as snapshot YAML. Never returns.
[[noreturn]] void child_read_links(const std::string& ns, int out_fd) {
  std::string result;
  int code = 0;
  try {
    int fd = open(("/run/netns/" + ns).c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0 || setns(fd, CLONE_NEWNET) != 0) throw std::runtime_error("setns failed");
    close(fd);
    // Each step named, so a test that needs the namespace sysfs can say
    // exactly why it could not have it.
    std::string sysfs_error;
    auto step = [&](const char* what, int rc) {
      if (rc != 0 && sysfs_error.empty())
        sysfs_error = std::string(what) + ": " + std::strerror(errno);
      return rc == 0;
    };
    bool own_sysfs =
        step("unshare(CLONE_NEWNS)", unshare(CLONE_NEWNS)) &&
        step("mount --make-rslave /", mount(nullptr, "/", nullptr, MS_SLAVE | MS_REC, nullptr)) &&
        step("umount /sys", umount2("/sys", MNT_DETACH)) &&
        step("mount sysfs /sys", mount("sysfs", "/sys", "sysfs", 0, nullptr));
    Inventory inv;
    inv.links = make_live_source()->links();
    YAML::Node root;
    root["own_sysfs"] = own_sysfs;
    root["sysfs_error"] = sysfs_error;
    root["physical"] = to_yaml(inv);
    YAML::Emitter e;
    e << root;
    result = e.c_str();
  } catch (const std::exception& ex) {
    result = std::string("error: ") + ex.what();
    code = 1;
  }
  write_all(out_fd, result);
  close(out_fd);
  _exit(code);
}

struct ChildResult {
  std::vector<Link> links;
  bool own_sysfs = false;
  std::string sysfs_error;  // why own_sysfs is false
};

ChildResult read_links_in(const std::string& ns) {
  int pipefd[2];
  REQUIRE(pipe(pipefd) == 0);
  pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    close(pipefd[0]);
    child_read_links(ns, pipefd[1]);
  }
  close(pipefd[1]);
  std::string text;
  char buf[4096];
  for (ssize_t n; (n = read(pipefd[0], buf, sizeof buf)) != 0;) {
    if (n < 0) {
      if (errno == EINTR) continue;
      break;
    }
    text.append(buf, static_cast<std::size_t>(n));
  }
  close(pipefd[0]);
  int status = 0;
  REQUIRE(waitpid(pid, &status, 0) == pid);
  INFO("child said: " << text);
  REQUIRE(WIFEXITED(status));
  REQUIRE(WEXITSTATUS(status) == 0);
  YAML::Node doc = hn::compat::load_yaml_text(text, "child");
  ChildResult r;
  r.own_sysfs = doc["own_sysfs"].as<bool>();
  r.sysfs_error = doc["sysfs_error"].as<std::string>();
  r.links = inventory_from_yaml(doc["physical"], "child", "physical").links;
  return r;
}

// A namespace with a veth pair (va up with MTU 1400, vb down) and vb
// enslaved to an up bridge br0.
void make_test_links(const Netns& ns) {
  ns.run("link add va type veth peer name vb");
  ns.run("link set va mtu 1400 up");
  ns.run("link add br0 type bridge");
  ns.run("link set vb master br0");
  ns.run("link set br0 up");
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

}  // namespace

TEST_CASE("links() in a network namespace agrees with ip -d link", "[netns]") {
  if (std::string why = hn::test::netns_unavailable_reason(); !why.empty()) hn::test::skip(why);

  Netns ns("hnl7-" + std::to_string(getpid()));
  make_test_links(ns);

  ChildResult child = read_links_in(ns.name());
  auto ip = nlohmann::json::parse(capture("ip -n " + ns.name() + " -j -d link show"));
  REQUIRE(ip.is_array());

  std::map<std::string, Link> by_name;
  for (const auto& l : child.links) by_name[l.name] = l;
  REQUIRE(by_name.size() == ip.size());

  for (const auto& j : ip) {
    std::string name = j.at("ifname");
    CAPTURE(name);
    REQUIRE(by_name.count(name) == 1);
    const Link& l = by_name[name];
    auto flags = j.at("flags").get<std::vector<std::string>>();
    CHECK(l.ifindex == j.at("ifindex").get<int>());
    CHECK(l.mtu == j.at("mtu").get<int>());
    CHECK(l.admin_up == (std::find(flags.begin(), flags.end(), "UP") != flags.end()));
    CHECK(l.carrier == (std::find(flags.begin(), flags.end(), "LOWER_UP") != flags.end()));
    CHECK(l.oper_state == lower(j.at("operstate").get<std::string>()));
    CHECK(l.mac == j.value("address", std::string()));
    std::string kind;
    if (j.contains("linkinfo")) kind = j["linkinfo"].value("info_kind", std::string());
    CHECK(l.kind == kind);
    CHECK(l.master == j.value("master", std::string()));
    CHECK(l.parent == j.value("link", std::string()));
  }

  const Link& va = by_name["va"];
  CHECK(va.mtu == 1400);
  CHECK(va.admin_up);
  CHECK(va.kind == "veth");
  CHECK(va.parent == "vb");
  CHECK_FALSE(va.carrier);  // its peer is down
  CHECK(va.oper_state == "lowerlayerdown");
  const Link& vb = by_name["vb"];
  CHECK_FALSE(vb.admin_up);
  CHECK(vb.oper_state == "down");
  CHECK(vb.master == "br0");
  CHECK(by_name["br0"].kind == "bridge");
  CHECK(by_name["lo"].mtu == 65536);
}

// Split from the netlink test above: these fields come from sysfs, and only
// the namespace's own sysfs shows its devices, so without one they cannot be
// checked at all (skipped, with the reason), while the netlink fields still are.
TEST_CASE("sysfs fields of links in a network namespace come from its own sysfs", "[netns]") {
  if (std::string why = hn::test::netns_unavailable_reason(); !why.empty()) hn::test::skip(why);

  Netns ns("hnl7s-" + std::to_string(getpid()));
  make_test_links(ns);
  ChildResult child = read_links_in(ns.name());
  if (!child.own_sysfs)
    hn::test::skip("could not mount a sysfs for the namespace (" + child.sysfs_error +
                   "); the sysfs link fields cannot be checked here");

  std::map<std::string, Link> by_name;
  for (const auto& l : child.links) by_name[l.name] = l;
  REQUIRE(by_name.count("va") == 1);
  const Link& va = by_name["va"];
  // The namespace's own sysfs: veth reports a nominal 10G and no device.
  CHECK(va.speed_mbps == 10000);
  CHECK(va.driver.empty());
  CHECK(va.pci_address.empty());
  CHECK(va.duplex == "full");
  REQUIRE(by_name.count("br0") == 1);
  CHECK(by_name["br0"].pci_address.empty());
}

TEST_CASE("the namespace is gone after the test", "[netns]") {
  if (std::string why = hn::test::netns_unavailable_reason(); !why.empty()) hn::test::skip(why);
  std::string name = "hnl7-gone-" + std::to_string(getpid());
  {
    Netns ns(name);
    ns.run("link add x0 type veth peer name x1");
  }
  CHECK(capture("ip netns list").find(name) == std::string::npos);
}
