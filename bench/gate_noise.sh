#!/usr/bin/env bash
# Does `hnprecheck gate` tell noise from a regression? Two network namespaces
# joined by a veth pair stand for two nodes on a parameter link; both ends are
# rate-limited with tc tbf to RATE (a NIC's line rate: a bare veth runs at the
# speed of the CPU, which other work on the machine changes from one second to
# the next). Then:
#   1. RUNS x 2 runs of `hnprecheck bench` (allreduce over TCP, one rank per
#      namespace); a baseline from the first RUNS (`gate baseline`);
#   2. each of the other RUNS gated alone against it: every exit 1 is a false
#      alarm (nothing changed);
#   3. the link slowed by 20 % (tbf at 0.8 x RATE on both ends), RUNS more
#      runs, each gated alone: every exit 1 is a detection.
# RATE=none leaves the veth unshaped for the baseline and slows it with tbf at
# 80 % of the baseline's busbw at the largest size instead.
#
# The measurement is only meaningful while the shaper is the bottleneck: on a
# loaded machine the ranks may not get the CPU to fill even RATE, and then
# the "20 % slower link" changes nothing, or a run is starved outright. So
# every run's busbw at the largest size is compared with its tbf rate, and a
# session where any run reached less than 85 % of it is printed and marked
# "valid": false (the default 100mbit held at a load average near 30 on the
# 2-core VM, but not when something starved the whole machine).
#
# Prints a table and the load average, writes every run, the baseline and the
# gate reports under build/gate-noise/, and the summary as JSON to
# build/gate-noise.json; asserts nothing. Needs root; always deletes what it
# made. Default rules unless RULES=FILE. The same runs are also gated again
# under rule variants ([defaults] lines, below), so one session shows what
# each part of the rule trades: false alarms against detections.
#   bench/gate_noise.sh [RUNS] [RATE]          e.g. bench/gate_noise.sh 10 100mbit
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-10}
rate=${2:-100mbit}
bin=${BIN:-build/bin/hnprecheck}
sizes=(-b 256K -e 4M -f 4)
iters=(--iters 10 --warmup 2)
[ -x "$bin" ] || { echo "build first: scripts/build.sh" >&2; exit 2; }
[ "$(id -u)" -eq 0 ] || { echo "needs root for network namespaces and tc" >&2; exit 2; }
command -v tc >/dev/null || { echo "needs tc (iproute2)" >&2; exit 2; }
rules=()
[ -n "${RULES:-}" ] && rules=(--rules "$RULES")

out=build/gate-noise
rm -rf "$out" && mkdir -p "$out/runs" "$out/gate"
# A private copy: a rebuild during the session must not swap the binary.
cp "$bin" "$out/hnprecheck" && bin=$out/hnprecheck
ns_a=hngate$$-a ns_b=hngate$$-b
. bench/veth_pair.sh
veth_pair "$ns_a" "$ns_b" hnga hngb 10.78.0
read -r cpu0 cpu1 < <(python3 -c 'import os; c = sorted(os.sched_getaffinity(0)); print(c[0], c[1 % len(c)])')
export HN_TOKEN=${HN_TOKEN:-$(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n')}

# Bits per second of a tc rate ("2gbit", "500mbit").
bits() { python3 -c 'import re,sys
m = re.fullmatch(r"([0-9.]+)([kmg]?)bit", sys.argv[1].lower())
if not m: sys.exit("RATE must look like 2gbit, 500mbit or none")
print(int(float(m[1]) * {"": 1, "k": 1e3, "m": 1e6, "g": 1e9}[m[2]]))' "$1"; }

# shape BITS_PER_S: tbf on both ends (each direction is shaped where it leaves).
# The burst covers one timer tick at that rate (at least 1 MB), so the shaper
# keeps up with the kernel's clock; sizes below it pass at line speed.
shape() {
  local rate=$1 burst=$(( $1 / 8 / 250 ))
  (( burst < 1048576 )) && burst=1048576
  ip netns exec "$ns_a" tc qdisc replace dev hnga root tbf rate "${rate}bit" burst "$burst" latency 100ms
  ip netns exec "$ns_b" tc qdisc replace dev hngb root tbf rate "${rate}bit" burst "$burst" latency 100ms
}

# run NAME: one bench sweep, rank 0 in A (the store), rank 1 in B.
run() {
  local port=$((30000 + RANDOM % 2000))
  local args=(bench --op allreduce "${sizes[@]}" "${iters[@]}" --transport tcp --timeout 120)
  ip netns exec "$ns_b" env RANK=1 WORLD_SIZE=2 MASTER_ADDR=10.78.0.1 MASTER_PORT=$port HN_JOB_ID=gate \
    taskset -c "$cpu1" "$bin" "${args[@]}" >/dev/null &
  ip netns exec "$ns_a" env RANK=0 WORLD_SIZE=2 MASTER_ADDR=10.78.0.1 MASTER_PORT=$port HN_JOB_ID=gate \
    taskset -c "$cpu0" "$bin" "${args[@]}" --json "$out/runs/$1.json" >/dev/null
  wait
}

# gate NAME: the run gated alone; prints the exit code and the regressed figures.
gate() {
  local code=0
  "$bin" gate --baseline "$out/baseline.json" "${rules[@]}" --json "$out/gate/$1.json" --quiet \
    "$out/runs/$1.json" >/dev/null 2>&1 || code=$?
  echo "$code"
}

load_before=$(cut -d' ' -f1-3 /proc/loadavg)
start=$(date +%s)
[ "$rate" != none ] && shape "$(bits "$rate")"
for i in $(seq -w 1 $((2 * runs))); do run "base-$i"; done
"$bin" gate baseline --out "$out/baseline.json" $(for i in $(seq -w 1 "$runs"); do echo "$out/runs/base-$i.json"; done) \
  >"$out/baseline.txt"
codes_same=()
for i in $(seq -w $((runs + 1)) $((2 * runs))); do codes_same+=("$(gate "base-$i")"); done

if [ "$rate" != none ]; then
  slowed=$(( $(bits "$rate") * 8 / 10 ))
else
  # 80 % of the unshaped link's throughput: busbw is what each direction carries for 2 ranks.
  slowed=$(python3 -c 'import json,sys
b = json.load(open(sys.argv[1]))
m = max((x for x in b["metrics"] if x["name"] == "bench.busbw"), key=lambda x: int(x["labels"]["bytes"]))
print(int(m["centre"] * 1e9 * 8 * 0.8))' "$out/baseline.json")
fi
shape "$slowed"
codes_slow=()
for i in $(seq -w 1 "$runs"); do run "slow-$i"; codes_slow+=("$(gate "slow-$i")"); done
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

# The same runs under other rules: "variant;alarms;detections".
variants=("k = 3" "k = 6" "min_change = 0.10" "beyond_range = false"
          "min_change = 0.10, beyond_range = false" "min_change = 0.20")
sensitivity=()
for v in "${variants[@]}"; do
  printf 'version = 1\n[defaults]\n%s\n' "${v//, /$'\n'}" >"$out/variant.toml"
  alarms=0 hits=0
  for i in $(seq -w $((runs + 1)) $((2 * runs))); do
    "$bin" gate --baseline "$out/baseline.json" --rules "$out/variant.toml" "$out/runs/base-$i.json" \
      >/dev/null 2>&1 || alarms=$((alarms + 1))
  done
  for i in $(seq -w 1 "$runs"); do
    "$bin" gate --baseline "$out/baseline.json" --rules "$out/variant.toml" "$out/runs/slow-$i.json" \
      >/dev/null 2>&1 || hits=$((hits + 1))
  done
  sensitivity+=("$v;$alarms;$hits")
done

rate_bits=0
[ "$rate" != none ] && rate_bits=$(bits "$rate")
python3 - "$out" "$runs" "$rate" "$slowed" "$load_before" "$load_after" "$(( $(date +%s) - start ))" "$rate_bits" \
  "${codes_same[*]}" "${codes_slow[*]}" "${sensitivity[@]}" <<'EOF'
import json, sys
out, runs, rate, slowed, lb, la, secs, rate_bits, same, slow = sys.argv[1:11]
sens = sys.argv[11:]
runs = int(runs)
same, slow = [int(c) for c in same.split()], [int(c) for c in slow.split()]
base = json.load(open(out + "/baseline.json"))

def regressed(name):
    try:
        g = json.load(open(f"{out}/gate/{name}.json"))["extra"]["gate"]["metrics"]
    except OSError:
        return ["(no gate report: see the exit code)"]
    return [f'{m["name"]}@{m["labels"].get("bytes")}' for m in g if m.get("outcome") == "regressed"]

rows = []
for m in base["metrics"]:
    if m["name"] not in ("bench.busbw", "bench.time"): continue
    rel = m["spread"] / m["centre"] if m["centre"] else 0
    rows.append({"figure": m["name"], "bytes": int(m["labels"]["bytes"]), "centre": m["centre"],
                 "spread": m["spread"], "spread_rel": rel, "n": m["n"]})
slow_runs = []
for i in range(1, runs + 1):
    r = json.load(open(f"{out}/runs/slow-{i:0{len(str(runs))}d}.json"))
    slow_runs.append({x["size"]: x["busbw_gbps"] for x in r["rows"]})
print(f"\nbaseline: {runs} runs, link {rate} (tbf on both ends); slowed: {int(slowed)/1e9:.3f} Gbit/s")
print(f"{'figure':12} {'bytes':>9} {'centre':>10} {'spread':>9} {'spread %':>9} {'slowed median':>14} {'change':>8}")
for r in sorted(rows, key=lambda r: (r["figure"], r["bytes"])):
    line = f'{r["figure"]:12} {r["bytes"]:>9} {r["centre"]:>10.4g} {r["spread"]:>9.3g} {100*r["spread_rel"]:>8.2f}%'
    if r["figure"] == "bench.busbw":
        vals = sorted(s[r["bytes"]] for s in slow_runs)
        med = vals[len(vals) // 2] if len(vals) % 2 else (vals[len(vals)//2 - 1] + vals[len(vals)//2]) / 2
        line += f' {med:>14.4g} {100*(med/r["centre"]-1):>+7.1f}%'
    print(line)
# Was the shaper the bottleneck, in every run? busbw (GB/s) of 2 ranks is
# what each direction carries; tbf counts headers too, so ~96 % is full.
def largest_busbw(name):
    rows = json.load(open(f"{out}/runs/{name}.json"))["rows"]
    return max(rows, key=lambda r: r["size"])["busbw_gbps"]
w, ws = len(str(2 * runs)), len(str(runs))
phases = (("baseline", [f"base-{i:0{w}d}" for i in range(1, runs + 1)], int(rate_bits)),
          ("unchanged", [f"base-{i:0{w}d}" for i in range(runs + 1, 2 * runs + 1)], int(rate_bits)),
          ("slowed", [f"slow-{i:0{ws}d}" for i in range(1, runs + 1)], int(slowed)))
valid = True
if rate != "none":
    for phase, names, bps in phases:
        shares = [largest_busbw(n) * 8e9 / bps for n in names]
        starved = [n for n, x in zip(names, shares) if x < 0.85]
        valid = valid and not starved
        print(f"{phase:9} runs: busbw at the largest size {100 * min(shares):.0f}-{100 * max(shares):.0f} % of the "
              f"tbf rate {bps / 1e6:.0f} Mbit/s" +
              (f"  <- {len(starved)} run(s) under 85 %: the CPU, not the link, set their pace ({', '.join(starved)})"
               if starved else ""))
if not valid:
    print("INVALID SESSION: the shaper did not limit every run, so these rates measure the machine's "
          "load, not the gate; lower RATE or re-run on a quieter machine")
alarms = [i for i, c in enumerate(same) if c != 0]
hits = [i for i, c in enumerate(slow) if c == 1]
print(f"\nunchanged runs gated: {len(same)}, false alarms: {len(alarms)} ({100*len(alarms)/len(same):.0f} %)")
for i in alarms:
    print(f"  base-{runs + 1 + i}: exit {same[i]}: {', '.join(regressed(f'base-{runs + 1 + i:0{len(str(2*runs))}d}'))}")
print(f"runs on the 20 % slower link: {len(slow)}, detected: {len(hits)} ({100*len(hits)/len(slow):.0f} %)")
for i, c in enumerate(slow):
    name = f"slow-{i + 1:0{len(str(runs))}d}"
    print(f"  {name}: exit {c}: {', '.join(regressed(name)) or '-'}")
sensitivity = []
print("the same runs under other rules (the defaults, with this changed):")
for item in sens:
    v, a, d = item.split(";")
    sensitivity.append({"rules": v, "false_alarms": int(a), "detections": int(d)})
    print(f"  {v:40}: false alarms {a}/{len(same)}, detections {d}/{len(slow)}")
print(f"load average before {lb}, after {la}; {secs} s")
summary = {"runs_per_phase": runs, "rate": rate, "slowed_bits_per_s": int(slowed), "valid": valid,
           "false_alarms": len(alarms), "false_alarm_rate": len(alarms) / len(same),
           "detections": len(hits), "detection_rate": len(hits) / len(slow),
           "unchanged_exit_codes": same, "slowed_exit_codes": slow, "baseline": rows,
           "variants": sensitivity,
           "load_before": lb, "load_after": la, "seconds": int(secs)}
json.dump(summary, open("build/gate-noise.json", "w"), indent=2)
print(json.dumps({k: summary[k] for k in ("valid", "false_alarm_rate", "detection_rate", "rate", "load_before", "load_after")}))
EOF
