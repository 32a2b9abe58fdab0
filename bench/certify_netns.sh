#!/usr/bin/env bash
# certify across N network namespaces on this machine, one rank per host,
# the way tests/preflight/certify_netns_test.cc builds them (a parameter
# plane eth1 and a storage plane eth2 that carries the rendezvous, each on
# its own bridge in a switch namespace), with optional faults, and the wall
# time of each run. Prints one line per run and the verdict's slow-link and
# traffic findings; never asserts. Needs root, iproute2 and unshare.
#
#   bench/certify_netns.sh [--hosts N] [--runs R] [--shape SPEC]... [--hogs K]
#                          [--keep] [-- extra certify options]
#
#   --shape HOST:RATE[:both]   tbf on HOST's eth1 egress (and, with :both, on
#                              the switch side of its cable, its ingress)
#   --shape-all RATE           the same on every host, both ways
#   --pair-slow A:B:RATE       only A -> B's packets shaped (htb + u32 on A)
#   --misroute A:B             on A, a policy rule sends TCP to B's parameter
#                              address through eth2 (the switch routes it on)
#   --hogs K                   K busy loops beside the ranks for the whole run
#   --only PHASES              certify --only (default: every phase)
#
# Output: "run i: exit E, W s wall (rank 0: T s), slow: ..., traffic: ...".
# With --json PATH, one JSON object per run (exit, wall_s, findings of
# COMM-LINK-SLOW, COMM-LINK-LINE-RATE, NET-TRAFFIC-PAIR) is appended.
set -euo pipefail
cd "$(dirname "$0")/.."
hosts=3
runs=1
hogs=0
only=""
json=""
shapes=()
shape_all=""
pair_slow=()
misroute=()
extra=()
while [ $# -gt 0 ]; do
  case "$1" in
    --hosts) hosts="$2"; shift 2 ;;
    --runs) runs="$2"; shift 2 ;;
    --hogs) hogs="$2"; shift 2 ;;
    --only) only="$2"; shift 2 ;;
    --json) json="$2"; shift 2 ;;
    --shape) shapes+=("$2"); shift 2 ;;
    --shape-all) shape_all="$2"; shift 2 ;;
    --pair-slow) pair_slow+=("$2"); shift 2 ;;
    --misroute) misroute+=("$2"); shift 2 ;;
    --) shift; extra=("$@"); break ;;
    *) echo "certify_netns.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
[ "$(id -u)" -eq 0 ] || { echo "certify_netns.sh: needs root (network namespaces)" >&2; exit 2; }
bin="${HN_BINARY:-build/bin/hnprecheck}"
[ -x "$bin" ] || { echo "certify_netns.sh: $bin is missing (scripts/build.sh --target hnprecheck)" >&2; exit 2; }

p="hnb$$"
sw="$p-sw"
work=$(mktemp -d)
hog_pids=()
cleanup() {
  for h in "${hog_pids[@]}"; do kill "$h" 2>/dev/null || true; done
  for ((i = 0; i < hosts; i++)); do ip netns del "$p-h$i" 2>/dev/null || true; done
  ip netns del "$sw" 2>/dev/null || true
  if [ -z "${HN_KEEP:-}" ]; then rm -rf "$work"; else echo "kept $work" >&2; fi
}
trap cleanup EXIT

ip netns add "$sw"
ip -n "$sw" link set lo up
for br in br1 br2; do
  ip -n "$sw" link add "$br" type bridge
  ip -n "$sw" link set "$br" up
done
# The switch routes between the planes, so a misrouted packet still arrives.
ip -n "$sw" addr add 10.10.255.254/16 dev br1
ip -n "$sw" addr add 10.20.255.254/16 dev br2
ip netns exec "$sw" sh -c 'echo 1 > /proc/sys/net/ipv4/ip_forward'
for ((i = 0; i < hosts; i++)); do
  ns="$p-h$i"
  ip netns add "$ns"
  ip -n "$ns" link set lo up
  # A multi-homed host's ARP settings, as tests/support/netns_cluster.cc sets them.
  ip netns exec "$ns" sh -c 'for c in all default; do
    echo 2 > /proc/sys/net/ipv4/conf/$c/rp_filter
    echo 1 > /proc/sys/net/ipv4/conf/$c/arp_ignore
    echo 2 > /proc/sys/net/ipv4/conf/$c/arp_announce
  done'
  for k in 1 2; do
    ip link add "$p-$i-$k" type veth peer name "eth$k" netns "$ns"
    ip link set "$p-$i-$k" netns "$sw"
    ip -n "$sw" link set "$p-$i-$k" master "br$k" up
    ip -n "$ns" addr add "10.$((k * 10)).$((i / 250)).$((i % 250 + 1))/16" dev "eth$k"
    ip -n "$ns" link set "eth$k" up
  done
done
addr() { echo "10.$(($2 * 10)).$(($1 / 250)).$(($1 % 250 + 1))"; }

tbf() {  # namespace device rate
  ip netns exec "$1" tc qdisc replace dev "$2" root tbf rate "$3" burst 32kb latency 5ms
}
if [ -n "$shape_all" ]; then
  for ((i = 0; i < hosts; i++)); do tbf "$p-h$i" eth1 "$shape_all"; tbf "$sw" "$p-$i-1" "$shape_all"; done
fi
for s in "${shapes[@]}"; do
  IFS=: read -r h rate both <<<"$s"
  tbf "$p-h$h" eth1 "$rate"
  if [ "$both" = both ]; then tbf "$sw" "$p-$h-1" "$rate"; fi
done
for s in "${pair_slow[@]}"; do
  IFS=: read -r a b rate <<<"$s"
  ns="$p-h$a"
  ip netns exec "$ns" tc qdisc replace dev eth1 root handle 1: htb default 20
  ip netns exec "$ns" tc class replace dev eth1 parent 1: classid 1:10 htb rate "$rate" quantum 60000
  ip netns exec "$ns" tc class replace dev eth1 parent 1: classid 1:20 htb rate 100gbit quantum 60000
  ip netns exec "$ns" tc filter replace dev eth1 parent 1: protocol ip prio 1 u32 \
    match ip dst "$(addr "$b" 1)/32" flowid 1:10
done

for s in "${misroute[@]}"; do
  IFS=: read -r a b <<<"$s"
  ip -n "$p-h$a" route add default via 10.20.255.254 dev eth2 table 100
  ip -n "$p-h$a" rule add ipproto tcp to "$(addr "$b" 1)" lookup 100
done

{
  echo "version: 1"
  echo "cluster: netns-bench"
  echo "nodes:"
  for ((i = 0; i < hosts; i++)); do
    echo "  - {name: host$i, addresses: {param: $(addr $i 1), stor: $(addr $i 2)}}"
  done
  echo "planes:"
  echo "  - {name: param, type: parameter, subnet: 10.10.0.0/16, nic: eth1, link_line_fraction: ${HN_LINE_FRACTION:-0.01}}"
  echo "  - {name: stor, type: storage, subnet: 10.20.0.0/16, nic: eth2}"
} >"$work/cluster.yaml"

for ((k = 0; k < hogs; k++)); do
  (while :; do :; done) &
  hog_pids+=($!)
done

for ((run = 1; run <= runs; run++)); do
  port=$((30000 + RANDOM % 20000))
  t0=$(date +%s.%N)
  pids=()
  for ((i = 0; i < hosts; i++)); do
    args=(certify --profile "$work/cluster.yaml" --no-color --sizes 64K --iters 2)
    [ -n "$only" ] && args+=(--only "$only")
    [ "$i" -eq 0 ] && args+=(--json "$work/report.json")
    args+=("${extra[@]}")
    RANK=$i WORLD_SIZE=$hosts MASTER_ADDR=$(addr 0 2) MASTER_PORT=$port \
      HN_TOKEN=certify-netns-bench-token-0123456789abcdef \
      ip netns exec "$p-h$i" unshare -u sh -c "hostname host$i && exec \"\$@\"" sh \
      "$PWD/$bin" "${args[@]}" >"$work/out$i" 2>"$work/err$i" &
    pids+=($!)
  done
  rc=0
  for ((i = 0; i < hosts; i++)); do
    if [ "$i" -eq 0 ]; then wait "${pids[$i]}" || rc=$?; else wait "${pids[$i]}" || true; fi
  done
  t1=$(date +%s.%N)
  python3 - "$work/report.json" "$rc" "$t0" "$t1" "$run" "$json" <<'EOF'
import json, sys
path, rc, t0, t1, run, out = sys.argv[1:7]
wall = float(t1) - float(t0)
try:
    rep = json.load(open(path))
except Exception as e:
    print(f"run {run}: exit {rc}, {wall:.1f} s wall, no report ({e})")
    sys.exit(0)
codes = ("COMM-LINK-SLOW", "COMM-LINK-LINE-RATE", "NET-TRAFFIC-PAIR", "COMM-LINK-FAILED")
fs = [f for f in rep.get("findings", []) if f["code"] in codes]
bad = [f for f in fs if f["status"] != "PASS"]
phases = {p["name"]: p.get("duration_ms", 0) for p in rep.get("extra", {}).get("certify", {}).get("phases", [])}
bw = phases.get("bandwidth")
timing = next((f["evidence"].get("rounds", "") for f in fs if f["code"] == "COMM-LINK-SLOW"), "")
print(f"run {run}: exit {rc}, {wall:.1f} s wall" + (f", bandwidth phase {bw/1000:.1f} s" if bw else "")
      + (f" ({timing})" if timing else ""))
for f in bad:
    print(f"   {f['status']:5} {f['code']:20} {f['entity']}: {f['message']}")
order = {"FAIL": 0, "ERROR": 1, "WARN": 2}
others = sorted((f for f in rep.get("findings", []) if f["code"] not in codes and f["status"] in order),
                key=lambda f: order[f["status"]])
for f in others[:10]:
    print(f"   {f['status']:5} {f['code']:20} {f['entity']}: {f['message'][:300]}")
if not bad:
    for f in fs:
        if f["code"] in ("COMM-LINK-SLOW", "COMM-LINK-LINE-RATE"):
            print(f"   {f['status']:5} {f['code']:20} {f['message']}")
            if "dismissed" in f.get("evidence", {}):
                print(f"         dismissed: {f['evidence']['dismissed']}")
if out:
    with open(out, "a") as o:
        o.write(json.dumps({"run": int(run), "exit": int(rc), "wall_s": round(wall, 2),
                            "bandwidth_ms": bw, "findings": fs}) + "\n")
EOF
  if [ "$rc" -ne 0 ] && [ "$rc" -ne 1 ]; then
    echo "--- rank 0 stderr"; tail -20 "$work/err0"
  fi
done
