#!/usr/bin/env bash
# hnprecheck's allreduce against Open MPI and Gloo, each at its defaults and at
# its best, against the memory-bandwidth bound of this host (shm) and against
# iperf3 on the same veth (tcp): one command, everything in one run.
#   bench/compare.sh [REPEATS] [CONFIGS]   (default 5, shm2,shm4,tcp2; root)
# Configurations (same sizes, ranks, placement and transport for every tool):
#   shm2  2 ranks on this host, shared memory   (Open MPI: btl self,vader;
#   shm4  4 ranks on this host, shared memory    Gloo has no shared memory:
#                                                 its TCP transport on loopback)
#   tcp2  2 ranks in two network namespaces joined by a veth pair
#         (Open MPI: btl self,tcp on the veth; iperf3 over the same veth)
# Ranks are pinned one per CPU where there are enough CPUs, as `bench
# --local-ranks` and mpirun do. bench/compare_run.py screens every peer
# setting once, then runs REPEATS interleaved rounds of ours, the bound, and
# each peer's defaults and finalists; bench/compare_report.py prints medians
# with their p10-p90 spread, the settings of every peer row, the ratios, and
# the load average before, during and after. Writes build/bench-compare.json
# and build/bench-compare.md, and (unless COMPARE_QUICK=1, a smoke test) puts
# that Markdown table between the "compare:begin/end" markers of
# bench/README.md, so the README holds the last full run as it was measured.
set -euo pipefail
cd "$(dirname "$0")/.."
reps=${1:-5}
configs=${2:-shm2,shm4,tcp2}
exec 9>/tmp/hnprecheck-compare.lock
flock -n 9 || { echo "compare.sh: another compare.sh is running" >&2; exit 2; }
[ "$(id -u)" -eq 0 ] || { echo "compare.sh: run as root (network namespaces, mpirun --allow-run-as-root)" >&2; exit 2; }
[[ $reps =~ ^[1-9][0-9]*$ ]] || { echo "compare.sh: REPEATS must be a positive integer" >&2; exit 2; }
scripts/install-deps.sh --bench
scripts/build.sh >/dev/null
cmake -S bench/peers -B build/bench-peers -G Ninja >/dev/null
cmake --build build/bench-peers >/dev/null

out=build/bench-compare
rm -rf "$out"
mkdir -p "$out"
export HN_TOKEN=${HN_TOKEN:-$(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n')}

ns_a=hnb-a ns_b=hnb-b
. bench/veth_pair.sh
veth_pair $ns_a $ns_b hnva hnvb 10.77.0

python3 bench/compare_run.py --repeats "$reps" --configs "$configs" --out "$out" \
  --ns-a $ns_a --ns-b $ns_b
COMPARE_CMD="bench/compare.sh $reps $configs" python3 bench/compare_report.py \
  "$out/results.jsonl" build/bench-compare.json build/bench-compare.md
if [ -z "${COMPARE_QUICK:-}" ]; then
  python3 - bench/README.md build/bench-compare.md <<'PY'
import os, sys
readme, table = sys.argv[1], open(sys.argv[2]).read()
begin, end = "<!-- compare:begin -->", "<!-- compare:end -->"
text = open(readme).read()
if text.count(begin) != 1 or text.count(end) != 1:
    sys.exit(f"compare.sh: {readme} needs one '{begin}' and one '{end}' line")
head, rest = text.split(begin)
tmp = readme + ".tmp"
open(tmp, "w").write(head + begin + "\n" + table + rest[rest.index(end):])
os.replace(tmp, readme)
print(f"written: {readme} (between the compare markers)")
PY
fi
