#include "probes/netplane_view.h"

#include "tests/probes/net_context.h"

using namespace hn;
using test::addr;
using test::up_link;

namespace {
const char* kProfile =
    "version: 1\n"
    "nodes:\n"
    "  - {name: node0, addresses: {param: 10.10.0.1}}\n"
    "  - {name: node1, addresses: {param: 10.10.0.2, stor: 10.20.0.2}}\n"
    "  - {name: node2, addresses: {param: 10.10.0.3}}\n"
    "planes:\n"
    "  - {name: param, type: parameter, subnet: 10.10.0.0/24, nic: 'ens*'}\n"
    "  - {name: stor, type: storage, subnet: 10.20.0.0/24}\n"
    "  - {name: mgmt, type: management, subnet: 10.30.0.0/24, nic: eth0, peers: [10.30.0.9, "
    "10.30.0.1]}\n";
}  // namespace

TEST_CASE("view: NICs by glob or by subnet, addresses declared or found, peers") {
  auto profile = formats::parse_profile(kProfile, "p.yaml");
  std::vector<stack::physical::Link> links = {up_link("eth0", 2), up_link("ens1", 3),
                                              up_link("ens2", 4), up_link("eth9", 5)};
  std::vector<stack::netplane::InterfaceAddress> addrs = {addr("eth0", "10.30.0.1"),
                                                          addr("ens2", "10.10.0.1"),
                                                          addr("eth9", "10.20.0.1"),
                                                          {"ens1", "fe80::1", 64, 6, "link"}};
  auto view = probes::build_netplane_view(profile, profile.find_node("node0"), links, addrs, {});
  const auto& param = view.planes[0];
  CHECK(param.nics == std::vector<std::string>{"ens1", "ens2"});
  CHECK(param.address == "10.10.0.1");
  CHECK(param.address_declared);
  CHECK(param.address_prefix_len == 24);
  CHECK(param.peers == std::vector<std::string>{"10.10.0.2", "10.10.0.3"});
  const auto& stor = view.planes[1];  // no nic: the NIC with an address in the subnet
  CHECK(stor.nics == std::vector<std::string>{"eth9"});
  CHECK(stor.address == "10.20.0.1");
  CHECK_FALSE(stor.address_declared);
  CHECK(stor.peers == std::vector<std::string>{"10.20.0.2"});
  const auto& mgmt = view.planes[2];  // profile peers win; our own address is dropped
  CHECK(mgmt.peers == std::vector<std::string>{"10.30.0.9"});
  CHECK(view.planes_of("ens1") == "plane param");
  CHECK(view.planes_of("lo") == "no plane");
  CHECK(view.of_type(stack::netplane::PlaneType::kManagement).size() == 1);

  // Unknown node: every node's address is a peer, the address is found on the NIC.
  view = probes::build_netplane_view(profile, nullptr, links, addrs, {});
  CHECK(view.planes[0].address == "10.10.0.1");
  CHECK_FALSE(view.planes[0].address_declared);
  CHECK(view.planes[0].peers == std::vector<std::string>{"10.10.0.2", "10.10.0.3"});

  // No NIC for a plane: the reason says why.
  view = probes::build_netplane_view(profile, nullptr, {up_link("eth0", 2)}, {}, {});
  CHECK(view.planes[0].nics.empty());
  CHECK_THAT(view.planes[0].unresolved_reason, Catch::Contains("ens*"));
  CHECK_THAT(view.planes[1].unresolved_reason, Catch::Contains("no NIC here has an address"));
}

TEST_CASE("view: a missing plane address is named and planes_of can leave the plane out") {
  auto profile = formats::parse_profile(kProfile, "p.yaml");
  std::vector<stack::physical::Link> links = {up_link("eth0", 2), up_link("ens1", 3),
                                              up_link("eth9", 5)};
  // node0 declares 10.10.0.1 for param, but ens1 carries another address;
  // eth0 (mgmt) has none in 10.30.0.0/24; eth9 serves stor.
  std::vector<stack::netplane::InterfaceAddress> addrs = {
      addr("eth0", "192.0.2.2"), addr("ens1", "10.10.0.7"), addr("eth9", "10.20.0.1")};
  auto view = probes::build_netplane_view(profile, profile.find_node("node0"), links, addrs, {});
  const auto& param = view.planes[0];
  CHECK(param.named);
  CHECK_FALSE(param.address_here);
  CHECK(param.address_missing == "address 10.10.0.1 of plane param is on no NIC of this node");
  CHECK_FALSE(view.planes[1].named);
  CHECK(view.planes[1].address_missing.empty());  // found on eth9
  CHECK(view.planes[2].address_missing ==
        "no NIC of plane mgmt (eth0) has an address in its subnet");
  // The declared address on a NIC of no plane is here, only misbound.
  addrs.push_back(addr("eth9", "10.10.0.1"));
  view = probes::build_netplane_view(profile, profile.find_node("node0"), links, addrs, {});
  CHECK(view.planes[0].address_here);
  CHECK(view.planes[0].address_missing.empty());

  CHECK(view.planes_of("eth0", &view.planes[2]) == "no other plane");
  CHECK(view.planes_of("eth0", &view.planes[0]) == "plane mgmt");
  CHECK(view.planes_of("eth9", &view.planes[1]) == "no other plane");
  CHECK(view.planes_of("lo", &view.planes[1]) == "no plane");
}
