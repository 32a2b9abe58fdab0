#!/usr/bin/env bash
# Our 2-rank TCP allreduce against the same bytes on one plain socket
# (bench/tcp_exchange.cc, with and without Gloo's socket habits) and against
# Gloo's busy-polled halving-doubling, over a veth pair between two network
# namespaces, one rank per CPU, interleaved, REPS rounds; prints the median
# and p10-p90 of busbw per row (and the time inside send/recv per call for
# the plain-socket rows).
#   bench/tcp_exchange.sh [REPS] [BYTES] [ITERS]   (default 5 1048576 300; root)
set -euo pipefail
cd "$(dirname "$0")/.."
reps=${1:-5} bytes=${2:-1048576} iters=${3:-300}
[ "$(id -u)" -eq 0 ] || { echo "tcp_exchange.sh: run as root (network namespaces)" >&2; exit 2; }
for v in "$reps" "$bytes" "$iters"; do
  [[ $v =~ ^[1-9][0-9]*$ ]] || { echo "tcp_exchange.sh: REPS, BYTES and ITERS are positive integers" >&2; exit 2; }
done
scripts/build.sh >/dev/null
BIN=build/bin/hnprecheck PROBE=build/bin/tcp_exchange GLOO=build/bench-peers/gloo_allreduce
if [ ! -x "$GLOO" ]; then
  if cmake -S bench/peers -B build/bench-peers -G Ninja >/dev/null 2>&1 && cmake --build build/bench-peers >/dev/null 2>&1; then :; else GLOO=""; fi
fi
a=hnx-a b=hnx-b
. bench/veth_pair.sh
veth_pair $a $b hnxa hnxb 10.79.0
cpus=($(python3 -c 'import os; print(" ".join(map(str, sorted(os.sched_getaffinity(0)))))'))
c0=${cpus[0]} c1=${cpus[1]:-${cpus[0]}}
export HN_TOKEN=${HN_TOKEN:-$(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n')}
out=$(mktemp -d)
port=$((20000 + RANDOM % 5000))
row() { echo "$1 $2" >>"$out/rows"; }
for rep in $(seq 1 "$reps"); do
  port=$((port + 1))
  ip netns exec $b env RANK=1 WORLD_SIZE=2 MASTER_ADDR=10.79.0.1 MASTER_PORT=$port HN_JOB_ID=x \
    taskset -c "$c1" $BIN bench --op allreduce -b "$bytes" -e "$bytes" --iters "$iters" --warmup 20 --transport tcp >/dev/null 2>&1 &
  ip netns exec $a env RANK=0 WORLD_SIZE=2 MASTER_ADDR=10.79.0.1 MASTER_PORT=$port HN_JOB_ID=x \
    taskset -c "$c0" $BIN bench --op allreduce -b "$bytes" -e "$bytes" --iters "$iters" --warmup 20 --transport tcp --json "$out/ours.json" >/dev/null 2>&1
  wait
  row ours "$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['rows'][0]['busbw_gbps'])" "$out/ours.json")"
  for flags in "--offset 16" "" "--handshake --offset 16" "--handshake" "--handshake --blocking --sndbuf --recv-spin"; do
    port=$((port + 1))
    # A row that stops (exit 3: a blocking send that cannot finish at this
    # size) is reported as stopped, with its message, not dropped.
    ip netns exec $b taskset -c "$c1" $PROBE 1 10.79.0.1 $port "$bytes" "$iters" $flags --deadline 20 2>/dev/null &
    rc=0
    j=$(ip netns exec $a taskset -c "$c0" $PROBE 0 10.79.0.1 $port "$bytes" "$iters" $flags --deadline 20 2>"$out/err") || rc=$?
    wait || true
    name="socket${flags:+,}${flags// /,}"
    if [ "$rc" -eq 0 ]; then
      row "$name" "$(python3 -c "import json,sys; j=json.loads(sys.argv[1]); print(j['busbw_gbps'], j['send_us'], j['recv_us'])" "$j")"
    else
      row "$name" "stopped"
      head -c 300 "$out/err" | sed "s/^/# $name: exit $rc: /" >>"$out/notes"
    fi
  done
  if [ -n "$GLOO" ]; then
    st=$(mktemp -d)
    plan="$bytes:$bytes:2:$iters:20"
    ip netns exec $b env GLOO_RANK=1 GLOO_SIZE=2 taskset -c "$c1" $GLOO "$plan" "$st" 10.79.0.2 halving_doubling busypoll >/dev/null 2>&1 &
    g=$(ip netns exec $a env GLOO_RANK=0 GLOO_SIZE=2 taskset -c "$c0" $GLOO "$plan" "$st" 10.79.0.1 halving_doubling busypoll 2>/dev/null | awk '{print $3}')
    wait
    rm -rf "$st"
    [ -n "$g" ] && row "gloo,halving_doubling,busypoll" "$g"
  fi
done
echo "# $bytes B, 2 ranks over a veth, pinned to CPUs $c0 and $c1, $iters calls per run, $reps interleaved runs; the load after the runs is below"
python3 - "$out/rows" <<'PY'
import collections, statistics, sys
rows = collections.OrderedDict()
for line in open(sys.argv[1]):
    name, *vals = line.split()
    rows.setdefault(name, []).append([] if vals == ["stopped"] else [float(v) for v in vals])
print(f"{'row':50s} {'busbw GB/s median [p10-p90]':30s} send/recv us per call")
for name, raw in rows.items():
    vs = [v for v in raw if v]
    stopped = len(raw) - len(vs)
    if not vs:
        print(f"{name:50s} stopped in all {stopped} runs")
        continue
    bw = sorted(v[0] for v in vs)
    n = len(bw)
    extra = ""
    if len(vs[0]) == 3:
        extra = "%.0f / %.0f" % (statistics.median(v[1] for v in vs), statistics.median(v[2] for v in vs))
    print(f"{name:50s} {statistics.median(bw):.2f} [{bw[n // 10]:.2f}-{bw[min(n - 1, n * 9 // 10)]:.2f}]{'':14s} {extra}"
          + (f"  (stopped in {stopped} runs)" if stopped else ""))
PY
[ -f "$out/notes" ] && sort -u "$out/notes"
echo "# load: $(cut -d' ' -f1-3 /proc/loadavg)"
rm -rf "$out"
