#!/usr/bin/env bash
# How long `hnprecheck node` takes with the L6 plane checks on a node with
# many NICs: a network namespace with NICS veth NICs (default 64), each with
# its own /24, and a profile of PLANES planes (default 16, one NIC each) on a
# cluster of NODES nodes (default 32), so every plane has NODES-1 peers whose
# routes are looked up (RTM_GETROUTE, bound and unbound, plus fibmatch), and
# NCCL_SOCKET_IFNAME/HCCL_SOCKET_IFNAME set so the comm-library probe runs.
# A second case is a typical node: 3 planes, 2 nodes.
#
# Prints a table (wall time of the whole process, as a Prolog sees it, and the
# run time the report records) and one JSON line per case on stderr; asserts
# nothing. Needs root (network namespaces); always deletes what it made.
#   bench/netplane_many_nics.sh [RUNS] [NICS] [PLANES] [NODES]
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-30}
nics=${2:-64}
planes=${3:-16}
nodes=${4:-32}
bin=${BIN:-build/bin/hnprecheck}
[ -x "$bin" ] || { echo "build first: scripts/build.sh" >&2; exit 2; }
[ "$(id -u)" -eq 0 ] || { echo "needs root for network namespaces" >&2; exit 2; }
(( planes <= nics )) || { echo "PLANES must not exceed NICS" >&2; exit 2; }
(( nodes <= 253 )) || { echo "NODES must be at most 253 (one /24 per plane)" >&2; exit 2; }

ns=hnbench$$
peer=hnbench$$-peer
work=$(mktemp -d)
cleanup() { ip netns del "$ns" 2>/dev/null || true; ip netns del "$peer" 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT

ip netns add "$ns"
ip netns add "$peer"
{
  echo "link set lo up"
  for i in $(seq 0 $((nics - 1))); do
    echo "link add n$i type veth peer name p$i netns $peer"
    echo "link set n$i up"
    echo "addr add 10.$((100 + i / 250)).$((i % 250)).1/24 dev n$i"
  done
  echo "route add default via 10.100.0.254 dev n0"
} | ip -n "$ns" -batch -
{ for i in $(seq 0 $((nics - 1))); do echo "link set p$i up"; done; } | ip -n "$peer" -batch -
for f in all default; do
  ip netns exec "$ns" sh -c "echo 2 > /proc/sys/net/ipv4/conf/$f/rp_filter; echo 1 > /proc/sys/net/ipv4/conf/$f/arp_ignore; echo 2 > /proc/sys/net/ipv4/conf/$f/arp_announce"
done

# profile NAME PLANES NODES: plane k is NIC nk, subnet 10.(100+k/250).(k%250).0/24;
# node j has host address j+1 on every plane; node0 is this namespace.
profile() {
  local out=$work/$1.yaml np=$2 nn=$3
  {
    echo "version: 1"
    echo "cluster: bench"
    echo "nodes:"
    for j in $(seq 0 $((nn - 1))); do
      printf '  - name: node%d\n    addresses: {' "$j"
      for k in $(seq 0 $((np - 1))); do
        printf '%sp%d: 10.%d.%d.%d' "$([ "$k" -gt 0 ] && echo ', ')" "$k" $((100 + k / 250)) $((k % 250)) $((j + 1))
      done
      echo "}"
    done
    echo "planes:"
    for k in $(seq 0 $((np - 1))); do
      local type=storage
      [ "$k" -eq 0 ] && type=management
      [ "$k" -eq 1 ] && type=parameter
      echo "  - {name: p$k, type: $type, subnet: 10.$((100 + k / 250)).$((k % 250)).0/24, nic: n$k, mtu: 1500}"
    done
  } >"$out"
  echo "$out"
}

measure() {  # label profile
  local label=$1 prof=$2 wall=() inner=() cpu=()
  local env=(NCCL_SOCKET_IFNAME==n1 HCCL_SOCKET_IFNAME=n1)
  env "${env[@]}" ip netns exec "$ns" "$bin" node --profile "$prof" --node node0 --json "$work/r.json" >/dev/null 2>"$work/err" || true
  [ -s "$work/r.json" ] || { echo "hnprecheck wrote no report:" >&2; cat "$work/err" >&2; exit 1; }
  local checks
  checks=$(grep -c '"code"' "$work/r.json")
  for _ in $(seq "$runs"); do
    local t0 t1 times
    t0=$(date +%s%N)
    times=$( { TIMEFORMAT='%3U %3S'; time env "${env[@]}" ip netns exec "$ns" "$bin" node \
      --profile "$prof" --node node0 --json "$work/r.json" >/dev/null 2>&1 || true; } 2>&1 )
    t1=$(date +%s%N)
    wall+=($(( (t1 - t0) / 1000 )))
    inner+=($(sed -n 's/^  "duration_ms": \([0-9]*\),*$/\1/p' "$work/r.json"))
    cpu+=($(awk '{printf "%d", ($1 + $2) * 1000}' <<<"$times"))
  done
  local w i
  w=$(printf '%s\n' "${wall[@]}" | sort -n | awk '{v[NR]=$1} END {printf "%.1f %.1f %.1f", v[int((NR+1)*0.5)]/1000, v[int((NR+1)*0.9)]/1000, v[NR]/1000}')
  i=$(printf '%s\n' "${inner[@]}" | sort -n | awk '{v[NR]=$1} END {printf "%d %d", v[int((NR+1)*0.5)], v[NR]}')
  read -r wp50 wp90 wmax <<<"$w"
  read -r ip50 imax <<<"$i"
  local cp50
  cp50=$(printf '%s\n' "${cpu[@]}" | sort -n | awk '{v[NR]=$1} END {print v[int((NR+1)*0.5)]}')
  printf '%-34s %5d %7d %9s %9s %9s %9s %9s %9s\n' "$label" "$runs" "$checks" "$wp50" "$wp90" "$wmax" "$ip50" "$imax" "$cp50"
  printf '{"bench":"netplane_many_nics","case":"%s","nics":%d,"runs":%d,"checks":%d,"wall_p50_ms":%s,"wall_p90_ms":%s,"wall_max_ms":%s,"run_p50_ms":%s,"run_max_ms":%s,"cpu_p50_ms":%s,"load1":%s}\n' \
    "$label" "$nics" "$runs" "$checks" "$wp50" "$wp90" "$wmax" "$ip50" "$imax" "$cp50" "$(cut -d' ' -f1 /proc/loadavg)" >&2
}

big=$(profile big "$planes" "$nodes")
small=$(profile small 3 2)
echo "namespace with $nics veth NICs (+ lo); $(nproc) CPUs"
printf '%-34s %5s %7s %9s %9s %9s %9s %9s %9s\n' case runs checks wall_p50 wall_p90 wall_max run_p50 run_max cpu_p50
measure "$planes planes x $nodes nodes" "$big"
measure "3 planes x 2 nodes" "$small"
echo "(ms; wall = process start to exit incl. ip netns exec; run = the report's duration_ms;"
echo " cpu = user+sys of the whole process; load average now: $(cut -d' ' -f1-3 /proc/loadavg))"
