# Sourced by the bench scripts that stand two nodes up as two network
# namespaces joined by a veth pair (compare.sh, gate_noise.sh,
# tcp_exchange.sh):
#   veth_pair NS_A NS_B IF_A IF_B NET   NS_A gets NET.1/24 on IF_A, NS_B NET.2
# Deletes both namespaces first (a run killed earlier leaves them behind) and
# on exit (an EXIT trap; the caller's own trap, if any, must call
# veth_pair_cleanup itself).
veth_pair_cleanup() {
  ip netns del "$VETH_NS_A" 2>/dev/null || true
  ip netns del "$VETH_NS_B" 2>/dev/null || true
}
veth_pair() {
  VETH_NS_A=$1 VETH_NS_B=$2
  local if_a=$3 if_b=$4 net=$5
  trap veth_pair_cleanup EXIT
  veth_pair_cleanup
  ip netns add "$VETH_NS_A" && ip netns add "$VETH_NS_B"
  ip link add "$if_a" netns "$VETH_NS_A" type veth peer name "$if_b" netns "$VETH_NS_B"
  ip -n "$VETH_NS_A" addr add "$net.1/24" dev "$if_a" && ip -n "$VETH_NS_B" addr add "$net.2/24" dev "$if_b"
  local ns
  for ns in "$VETH_NS_A" "$VETH_NS_B"; do ip -n "$ns" link set lo up; done
  ip -n "$VETH_NS_A" link set "$if_a" up && ip -n "$VETH_NS_B" link set "$if_b" up
}
