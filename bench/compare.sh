#!/usr/bin/env bash
# hnprecheck's allreduce against Open MPI and Gloo, and our TCP transport
# against iperf3: one command, fully automatic, < 10 min on 2 cores.
#   bench/compare.sh [REPEATS]        (default 3; needs root for the namespaces)
# Configurations (same sizes, ranks and transport for every tool):
#   shm2  2 ranks on this host, shared memory   (Open MPI: --mca btl self,vader;
#   shm4  4 ranks on this host, shared memory    Gloo has no shm: TCP loopback)
#   tcp2  2 ranks in two network namespaces joined by a veth pair
#         (Open MPI: --mca btl self,tcp, btl_tcp_if_include the veth subnet;
#          iperf3 over the same veth is the link's limit, measured one way
#          and --bidir; see compare_report.py for which one compares)
# Runs are interleaved (ours, MPI, Gloo, ours, ...) and the table reports
# medians over REPEATS, so load from other processes hits every tool alike.
# Prints the ratio table (ours/peer) and writes build/bench-compare.json.
set -euo pipefail
cd "$(dirname "$0")/.."
reps=${1:-3}
exec 9>/tmp/hnprecheck-compare.lock
flock -n 9 || { echo "compare.sh: another compare.sh is running" >&2; exit 2; }
[ "$(id -u)" -eq 0 ] || { echo "compare.sh: run as root (network namespaces, mpirun --allow-run-as-root)" >&2; exit 2; }
scripts/install-deps.sh --bench
scripts/build.sh >/dev/null
cmake -S bench/peers -B build/bench-peers -G Ninja >/dev/null
cmake --build build/bench-peers >/dev/null

out=build/bench-compare
rm -rf "$out"
mkdir -p "$out"
bin=$PWD/build/bin/hnprecheck
peers=$PWD/build/bench-peers
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export HN_TOKEN=${HN_TOKEN:-$(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n')}

# Size groups: one latency point, then 64 KiB .. 256 MiB by 4x, with fewer
# iterations as sizes grow so each group takes about the same time.
groups=("8 8 2 2000 200" "65536 1048576 4 50 5" "4194304 16777216 4 10 2" "67108864 268435456 4 3 1")

ns_a=hnb-a ns_b=hnb-b
# The first two CPUs we may use (the tcp2 ranks are pinned like mpirun pins MPI's).
read -r cpu0 cpu1 < <(python3 -c 'import os; c = sorted(os.sched_getaffinity(0)); print(c[0], c[1 % len(c)])')
cleanup() { ip netns del $ns_a 2>/dev/null || true; ip netns del $ns_b 2>/dev/null || true; }
trap cleanup EXIT
cleanup
ip netns add $ns_a && ip netns add $ns_b
ip link add hnva netns $ns_a type veth peer name hnvb netns $ns_b
ip -n $ns_a addr add 10.77.0.1/24 dev hnva && ip -n $ns_b addr add 10.77.0.2/24 dev hnvb
for ns in $ns_a $ns_b; do ip -n $ns link set lo up; done
ip -n $ns_a link set hnva up && ip -n $ns_b link set hnvb up

# ours CONFIG REP MIN MAX F ITERS WARMUP
ours() {
  local cfg=$1 rep=$2 json="$out/ours-$1-$2-$3.json"
  shift 2
  local args=(bench --op allreduce -b "$1" -e "$2" -f "$3" --iters "$4" --warmup "$5" --json "$json")
  case $cfg in
    shm2) "$bin" "${args[@]}" --local-ranks 2 --transport shm >/dev/null ;;
    shm4) "$bin" "${args[@]}" --local-ranks 4 --transport shm >/dev/null ;;
    tcp2)
      local port=$((29600 + RANDOM % 1000))
      # Each rank on its own core, as mpirun binds the MPI ranks by default.
      ip netns exec $ns_b env RANK=1 WORLD_SIZE=2 MASTER_ADDR=10.77.0.1 MASTER_PORT=$port HN_JOB_ID=cmp \
        taskset -c "$cpu1" "$bin" "${args[@]:0:13}" --transport tcp >/dev/null &
      ip netns exec $ns_a env RANK=0 WORLD_SIZE=2 MASTER_ADDR=10.77.0.1 MASTER_PORT=$port HN_JOB_ID=cmp \
        taskset -c "$cpu0" "$bin" "${args[@]}" --transport tcp >/dev/null
      wait ;;
  esac
  python3 -c 'import json,sys
for r in json.load(open(sys.argv[1]))["rows"]: print(r["size"], r["time_us"], r["busbw_gbps"], r["wrong"])' "$json"
}

mpi() {
  local cfg=$1; shift 2
  case $cfg in
    shm2) mpirun -np 2 --mca btl self,vader "$peers/mpi_allreduce" "$@" ;;
    shm4) mpirun -np 4 --oversubscribe --mca btl self,vader "$peers/mpi_allreduce" "$@" ;;
    # mpirun runs in namespace A; its PMIx server must listen on the veth
    # (not loopback) so the rank in namespace B can reach it.
    tcp2) ip netns exec $ns_a env PMIX_MCA_ptl_tcp_if_include=hnva PMIX_MCA_ptl_tcp_remote_connections=1 \
            mpirun --mca btl self,tcp --mca btl_tcp_if_include 10.77.0.0/24 --mca oob_tcp_if_include hnva \
            -np 1 "$peers/mpi_allreduce" "$@" : -np 1 ip netns exec $ns_b "$peers/mpi_allreduce" "$@" ;;
  esac
}

gloo() {
  local cfg=$1; shift 2
  local store
  store=$(mktemp -d)
  case $cfg in
    shm2|shm4)
      local n=${cfg#shm} pids=()
      for ((r = n - 1; r >= 0; r--)); do
        if [ $r -eq 0 ]; then GLOO_RANK=0 GLOO_SIZE=$n "$peers/gloo_allreduce" "$@" "$store" 127.0.0.1
        else GLOO_RANK=$r GLOO_SIZE=$n "$peers/gloo_allreduce" "$@" "$store" 127.0.0.1 >/dev/null & pids+=($!); fi
      done
      wait "${pids[@]}" ;;
    tcp2)
      ip netns exec $ns_b env GLOO_RANK=1 GLOO_SIZE=2 taskset -c "$cpu1" "$peers/gloo_allreduce" "$@" "$store" 10.77.0.2 >/dev/null &
      ip netns exec $ns_a env GLOO_RANK=0 GLOO_SIZE=2 taskset -c "$cpu0" "$peers/gloo_allreduce" "$@" "$store" 10.77.0.1
      wait ;;
  esac
  rm -rf "$store"
}

# iperf3 over the same veth, server in namespace A, client in B, 3 s each:
# unidirectional (B -> A), and --bidir (both directions at once, one process
# per side, like our ranks). Prints "uni_GBps bidir_per_direction_GBps"; the
# per-direction figure is the mean of the two directions' received rates.
iperf() {
  local mode
  for mode in uni bidir; do
    ip netns exec $ns_a iperf3 -s -1 -B 10.77.0.1 -p 5201 >/dev/null 2>&1 &
    sleep 0.3
    ip netns exec $ns_b iperf3 -c 10.77.0.1 -p 5201 -t 3 -J $([ $mode = bidir ] && echo --bidir) \
      >"$out/iperf-$mode-$1.json"
    wait
  done
  python3 -c 'import json,sys
uni = json.load(open(sys.argv[1]))["end"]["sum_received"]["bits_per_second"]
b = json.load(open(sys.argv[2]))["end"]
bidir = (b["sum_received"]["bits_per_second"] + b["sum_received_bidir_reverse"]["bits_per_second"]) / 2
print(uni / 8e9, bidir / 8e9)' "$out/iperf-uni-$1.json" "$out/iperf-bidir-$1.json"
}

start=$(date +%s)
for rep in $(seq "$reps"); do
  for cfg in shm2 shm4 tcp2; do
    for g in "${groups[@]}"; do
      # shellcheck disable=SC2086
      for tool in ours mpi gloo; do
        $tool $cfg $rep $g | sed "s/^/$cfg $tool $rep /" >>"$out/results.txt" ||
          echo "compare.sh: $tool $cfg $g failed (rep $rep)" >&2
      done
    done
  done
  read -r uni bidir < <(iperf "$rep")
  echo "tcp2 iperf3 $rep 0 0 $uni 0" >>"$out/results.txt"
  echo "tcp2 iperf3-bidir $rep 0 0 $bidir 0" >>"$out/results.txt"
  echo "compare.sh: repeat $rep of $reps done after $(( $(date +%s) - start )) s" >&2
done
python3 bench/compare_report.py "$out/results.txt" build/bench-compare.json
