#!/usr/bin/env bash
# How long `hnprecheck node` takes, end to end (process start to exit), on
# this machine with the embedded default profile and, when given, a profile
# of your own. Prints a table and a JSON line; nothing is asserted.
#   bench/node_latency.sh [RUNS] [PROFILE...]
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-50}
shift || true
bin=build/bin/hnprecheck
[ -x "$bin" ] || { echo "build first: scripts/build.sh" >&2; exit 2; }

measure() {  # label, args...
  local label=$1; shift
  local times=()
  "$bin" node "$@" >/dev/null 2>&1 || true   # warm the page cache
  for _ in $(seq "$runs"); do
    local t0 t1
    t0=$(date +%s%N)
    "$bin" node "$@" >/dev/null 2>&1 || true
    t1=$(date +%s%N)
    times+=($(( (t1 - t0) / 1000 )))
  done
  printf '%s\n' "${times[@]}" | sort -n | awk -v label="$label" -v runs="$runs" -v jsonfile="$json" '
    { v[NR] = $1 }
    END {
      p50 = v[int((NR + 1) * 0.50)]; p90 = v[int((NR + 1) * 0.90)]; mx = v[NR]; mn = v[1]
      printf "%-28s %6d %10.2f %10.2f %10.2f %10.2f\n", label, runs, mn/1000, p50/1000, p90/1000, mx/1000
      printf "{\"bench\":\"node_latency\",\"case\":\"%s\",\"runs\":%d,\"min_ms\":%.2f,\"p50_ms\":%.2f,\"p90_ms\":%.2f,\"max_ms\":%.2f}\n", label, runs, mn/1000, p50/1000, p90/1000, mx/1000 >> jsonfile
    }'
}

json=$(mktemp)
trap 'rm -f "$json"' EXIT
printf '%-28s %6s %10s %10s %10s %10s\n' case runs min_ms p50_ms p90_ms max_ms
measure "embedded default" 
for p in "$@"; do measure "$(basename "$p")" --profile "$p"; done
echo
echo "# JSON"
cat "$json"
