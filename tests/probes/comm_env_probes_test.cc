#include "probes/comm_env_probes.h"

#include "tests/probes/net_context.h"

using namespace hn;
using reports::Status;
using test::addr;
using test::one;
using test::up_link;

namespace {

// lo 1, eth0 2 (mgmt), eth1 3 (param), eth2 4 (storage).
test::NetFixture node(std::map<std::string, std::string> vars, const std::string& library = "") {
  test::NetFixture f;
  f.profile_yaml =
      "version: 1\n"
      "nodes: [{name: node0, addresses: {param: 10.10.0.1, stor: 10.20.0.1, mgmt: 10.30.0.1}}]\n"
      "planes:\n"
      "  - {name: mgmt, type: management, subnet: 10.30.0.0/24, nic: eth0}\n"
      "  - {name: param, type: parameter, subnet: 10.10.0.0/24, nic: eth1}\n"
      "  - {name: stor, type: storage, subnet: 10.20.0.0/24, nic: eth2}\n";
  if (!library.empty()) f.profile_yaml += "comm: {library: " + library + "}\n";
  f.inv.links = {up_link("lo", 1), up_link("eth0", 2), up_link("eth1", 3), up_link("eth2", 4)};
  f.net.addresses = {{"lo", "127.0.0.1", 8, 4, "host"},
                     addr("eth0", "10.30.0.1"),
                     addr("eth1", "10.10.0.1"),
                     addr("eth2", "10.20.0.1")};
  for (const auto& [k, v] : vars) f.env[k] = {v, "job.env:1", ""};
  return f;
}

struct Case {
  std::map<std::string, std::string> vars;
  std::string entity;
  Status status;
  std::string nic;  // the NIC the finding names
};

}  // namespace

TEST_CASE("comm env: each variable resolved with its library's grammar") {
  const std::vector<Case> cases = {
      {{{"NCCL_SOCKET_IFNAME", "eth1"}}, "NCCL_SOCKET_IFNAME", Status::kPass, "eth1"},
      {{{"NCCL_SOCKET_IFNAME", "=eth1"}}, "NCCL_SOCKET_IFNAME", Status::kPass, "eth1"},
      {{{"NCCL_SOCKET_IFNAME", "eth0"}}, "NCCL_SOCKET_IFNAME", Status::kFail, "eth0"},
      {{{"NCCL_SOCKET_IFNAME", "eth"}}, "NCCL_SOCKET_IFNAME", Status::kFail, "eth0"},  // all three
      {{{"NCCL_SOCKET_IFNAME", "^eth0,eth2,lo"}}, "NCCL_SOCKET_IFNAME", Status::kPass, "eth1"},
      {{{"NCCL_SOCKET_IFNAME", "^=eth0"}}, "NCCL_SOCKET_IFNAME", Status::kFail, "lo"},
      {{{"NCCL_SOCKET_IFNAME", "ib"}}, "NCCL_SOCKET_IFNAME", Status::kFail, "none"},
      {{{"HCCL_SOCKET_IFNAME", "eth"}}, "HCCL_SOCKET_IFNAME", Status::kFail, "eth0"},    // first
      {{{"HCCL_SOCKET_IFNAME", "^eth0"}}, "HCCL_SOCKET_IFNAME", Status::kPass, "eth1"},  // first
      {{{"HCCL_SOCKET_IFNAME", "^eth"}}, "HCCL_SOCKET_IFNAME", Status::kFail, "lo"},
      {{{"HCCL_IF_IP", "10.10.0.1"}}, "HCCL_IF_IP", Status::kPass, "eth1"},
      {{{"HCCL_IF_IP", "10.30.0.1"}, {"HCCL_SOCKET_IFNAME", "=eth1"}},
       "HCCL_IF_IP",
       Status::kFail,
       "eth0"},
      {{{"HCCL_IF_IP", "10.99.0.1"}}, "HCCL_IF_IP", Status::kFail, "none"},
      {{{"GLOO_SOCKET_IFNAME", "eth1"}}, "GLOO_SOCKET_IFNAME", Status::kPass, "eth1"},
      {{{"GLOO_SOCKET_IFNAME", "eth1,eth2"}}, "GLOO_SOCKET_IFNAME", Status::kFail, "eth2"},
      {{{"GLOO_SOCKET_IFNAME", "eth"}}, "GLOO_SOCKET_IFNAME", Status::kFail, "none"},
      {{{"OMPI_MCA_btl_tcp_if_include", "10.10.0.0/24"}},
       "OMPI_MCA_btl_tcp_if_include",
       Status::kPass,
       "eth1"},
      {{{"OMPI_MCA_btl_tcp_if_exclude", "lo,eth0,eth2"}},
       "OMPI_MCA_btl_tcp_if_exclude",
       Status::kPass,
       "eth1"},
      {{{"OMPI_MCA_btl_tcp_if_exclude", "eth0,eth2"}},
       "OMPI_MCA_btl_tcp_if_exclude",
       Status::kFail,
       "lo"},  // the exclude list replaced the default that kept lo out
      {{{"OMPI_MCA_btl_tcp_if_include", "eth1"}, {"OMPI_MCA_btl_tcp_if_exclude", "lo"}},
       "OMPI_MCA_btl_tcp_if_include+exclude",
       Status::kFail,
       "none"},
  };
  for (const auto& c : cases) {
    std::string vars;
    for (const auto& [k, v] : c.vars) vars += k + "=" + v + " ";
    CAPTURE(vars);
    auto fs = probes::check_comm_env(node(c.vars).context());
    const auto& f = one(fs, "NET-COMM-IFNAME", c.entity);
    CHECK(f.status == c.status);
    CHECK(f.evidence.at("nic") == c.nic);
    CHECK(f.evidence.at("origin") == "job.env:1");
  }
}

TEST_CASE("comm env: messages name the library, what it picks and the fix") {
  auto fs = probes::check_comm_env(node({{"NCCL_SOCKET_IFNAME", "eth0"}}).context());
  const auto& f = one(fs, "NET-COMM-IFNAME", "NCCL_SOCKET_IFNAME");
  CHECK(f.message ==
        "NCCL_SOCKET_IFNAME=eth0: NCCL would use eth0 (plane mgmt), not the "
        "parameter-plane NIC(s) eth1");
  CHECK(f.remediation ==
        "Set NCCL_SOCKET_IFNAME so that NCCL selects only eth1, for example "
        "NCCL_SOCKET_IFNAME==eth1, in the job's environment (job.env:1).");
  fs = probes::check_comm_env(
      node({{"HCCL_IF_IP", "10.10.0.1"}, {"HCCL_SOCKET_IFNAME", "eth0"}}).context());
  CHECK(one(fs, "NET-COMM-IFNAME", "HCCL_SOCKET_IFNAME").status == Status::kSkip);
  // Several NICs: each with its plane.
  fs = probes::check_comm_env(node({{"NCCL_SOCKET_IFNAME", "eth"}}).context());
  CHECK(one(fs, "NET-COMM-IFNAME", "NCCL_SOCKET_IFNAME").message ==
        "NCCL_SOCKET_IFNAME=eth: NCCL would use eth0 (plane mgmt), eth1 (plane param), eth2 "
        "(plane stor), not the parameter-plane NIC(s) eth1");
  // No NIC at all: the reason, said once.
  fs = probes::check_comm_env(node({{"NCCL_SOCKET_IFNAME", "ib"}}).context());
  const auto& none = one(fs, "NET-COMM-IFNAME", "NCCL_SOCKET_IFNAME");
  CHECK(none.message.find("NCCL_SOCKET_IFNAME=ib: NCCL would use no NIC (") == 0);
  CHECK(none.message.find("), not the parameter-plane NIC(s) eth1") != std::string::npos);
  CHECK(none.message.find("(nothing)") == std::string::npos);
  CHECK(none.message.find(") (") == std::string::npos);
}

TEST_CASE("comm env: unset variables are judged only for the profile's library, as WARN") {
  CHECK(probes::check_comm_env(node({}).context()).empty());
  auto fs = probes::check_comm_env(node({}, "hccl").context());
  const auto& h = one(fs, "NET-COMM-IFNAME", "HCCL_SOCKET_IFNAME");
  CHECK(h.status == Status::kWarn);  // lexicographic first: eth0
  CHECK(h.evidence.at("nic") == "eth0");
  CHECK(h.evidence.at("value") == "(unset)");
  fs = probes::check_comm_env(node({}, "nccl").context());
  CHECK(one(fs, "NET-COMM-IFNAME", "NCCL_SOCKET_IFNAME").status == Status::kWarn);
  fs = probes::check_comm_env(node({}, "gloo").context());
  CHECK(one(fs, "NET-COMM-IFNAME", "GLOO_SOCKET_IFNAME").status == Status::kSkip);
  fs = probes::check_comm_env(node({}, "mpi").context());
  CHECK(one(fs, "NET-COMM-IFNAME", "OMPI_MCA_btl_tcp_if_include").evidence.at("selected") ==
        "eth0, eth1, eth2");
}

TEST_CASE("comm env: NCCL_IB_HCA against the parameter plane's RDMA port") {
  auto with_rdma = [](std::map<std::string, std::string> vars) {
    auto f = node(std::move(vars));
    f.inv.rdma.supported = true;
    for (auto [dev, nic] :
         {std::pair{"mlx5_0", "eth1"}, std::pair{"mlx5_1", "eth2"}, std::pair{"mlx5_10", "eth0"}}) {
      stack::physical::RdmaDevice d;
      d.name = dev;
      stack::physical::RdmaPort p;
      p.state = "ACTIVE";
      p.link_layer = "Ethernet";
      p.netdev = nic;
      d.ports = {p};
      f.inv.rdma.devices.push_back(d);
    }
    return f;
  };
  struct HcaCase {
    std::string value;
    Status status;
  };
  for (const auto& c : std::vector<HcaCase>{{"=mlx5_0", Status::kPass},
                                            {"mlx5_0:1", Status::kPass},
                                            {"mlx5_1", Status::kFail},  // mlx5_1 and mlx5_10
                                            {"^mlx5_1", Status::kPass},
                                            {"mlx5", Status::kFail},
                                            {"mlx5_9", Status::kFail}}) {
    CAPTURE(c.value);
    auto fs = probes::check_comm_env(with_rdma({{"NCCL_IB_HCA", c.value}}).context());
    const auto& f = one(fs, "NET-COMM-IB-HCA", "NCCL_IB_HCA");
    CHECK(f.status == c.status);
    CHECK(f.evidence.at("expected") == "mlx5_0:1");
  }
  auto fs = probes::check_comm_env(with_rdma({{"NCCL_IB_HCA", "mlx5_1"}}).context());
  CHECK(one(fs, "NET-COMM-IB-HCA", "NCCL_IB_HCA").message ==
        "NCCL_IB_HCA=mlx5_1: NCCL would use mlx5_1:1, mlx5_10:1, not the parameter plane's RDMA "
        "port(s) mlx5_0:1");
  fs = probes::check_comm_env(node({{"NCCL_IB_HCA", "mlx5_0"}}).context());  // no RDMA
  CHECK(one(fs, "NET-COMM-IB-HCA", "NCCL_IB_HCA").status == Status::kSkip);
}

TEST_CASE("comm env: without a parameter plane the variables are skipped") {
  auto f = node({{"NCCL_SOCKET_IFNAME", "eth1"}});
  f.profile_yaml = "version: 1\nplanes: [{name: m, type: management, nic: eth0}]\n";
  auto fs = probes::check_comm_env(f.context());
  CHECK(one(fs, "NET-COMM-IFNAME", "NCCL_SOCKET_IFNAME").status == Status::kSkip);
}
