#!/usr/bin/env python3
"""Does `hnprecheck gate` tell noise from change, on this machine, while it is busy?

Measures the recommended protocol (docs/gate-rules.md): a baseline of B runs
of `hnprecheck bench`, then gate calls of M new runs each.

  1. shm, 2 ranks (`bench --local-ranks 2`): B baseline runs, then CALLS x M
     healthy runs. Every gate call with an exit 1 is a false alarm; so is
     every single run gated alone (the 1-run protocol), counted separately.
  2. Synthetic losses: each healthy call again, with busbw at one size class
     multiplied by (1 - L) in all M runs, for L = 10 %, 20 %, 50 %: detected
     when the call exits 1 with that figure regressed.
  3. Real slowdowns: (a) a CPU hog pinned beside rank 1 for HOG_CALLS calls;
     (b) TCP between two network namespaces over a tbf-shaped veth: a
     baseline at RATE, HOG_CALLS healthy calls, then HOG_CALLS calls with the
     link at half RATE.

Background load (--load): `intermittent` (the default: bursts of one or two
busy loops of 0.2-2 s with pauses of 0.5-3 s, what a shared CI runner
looks like), `hogs:N` (N busy loops all the time) or `none`. The load
average is printed. Prints tables, writes every run and gate report under
build/gate-noise/ and the summary as JSON to build/gate-noise.json; asserts
nothing. Needs root for the namespaces (stage 3b is skipped without it).
"""
import argparse
import json
import os
import random
import shutil
import signal
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "build", "gate-noise")
SIZES = ["-b", "64K", "-e", "4M", "-f", "4"]  # 64K, 256K, 1M, 4M: four size classes
ITERS = ["--iters", "20", "--warmup", "5"]
LOSSES = [0.1, 0.2, 0.5]


def sh(args, **kw):
    return subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kw)


class Load:
    """Background CPU load, started and stopped by this script."""

    def __init__(self, kind, seed):
        self.kind, self.procs, self.rng = kind, [], random.Random(seed)
        self.driver = None

    def _spin(self):
        return subprocess.Popen([sys.executable, "-c", "while True: pass"])

    def start(self):
        if self.kind.startswith("hogs:"):
            self.procs = [self._spin() for _ in range(int(self.kind[5:]))]
        elif self.kind == "intermittent":
            # A child process drives the bursts so the measurements run freely.
            code = (
                "import random, subprocess, sys, time\n"
                f"r = random.Random({self.rng.randint(0, 1 << 30)})\n"
                "while True:\n"
                "    ps = [subprocess.Popen([sys.executable, '-c', 'while True: pass'])"
                " for _ in range(r.choice([1, 1, 2]))]\n"
                "    time.sleep(r.uniform(0.2, 2.0))\n"
                "    for p in ps: p.kill(); p.wait()\n"
                "    time.sleep(r.uniform(0.5, 3.0))\n")
            self.driver = subprocess.Popen([sys.executable, "-c", code], start_new_session=True)

    def stop(self):
        for p in self.procs:
            p.kill()
            p.wait()
        self.procs = []
        if self.driver:
            os.killpg(self.driver.pid, signal.SIGKILL)
            self.driver.wait()
            self.driver = None


REUSE = False


def bench_shm(binary, path, pin=None):
    if REUSE and os.path.exists(path):
        return
    args = [binary, "bench", "--local-ranks", "2", "--op", "allreduce", *SIZES, *ITERS,
            "--json", path]
    if pin:
        args = ["taskset", "-c", pin, *args]
    r = sh(args)
    if r.returncode != 0:
        raise SystemExit(f"bench failed ({r.returncode}): {r.stderr[-500:]}")


def gate(binary, baseline, runs, name):
    report = os.path.join(OUT, "gate", name + ".json")
    r = sh([binary, "gate", "--baseline", baseline, "--json", report, "--quiet", *runs])
    try:
        metrics = json.load(open(report))["extra"]["gate"]["metrics"]
    except (OSError, ValueError, KeyError):
        metrics = []
    regressed = {m["labels"].get("bytes") for m in metrics
                 if m.get("outcome") == "regressed" and m["name"] == "bench.busbw"}
    detectable = {m["labels"].get("bytes"): m.get("detectable") for m in metrics
                  if m["name"] == "bench.busbw" and m.get("state") == "judged"}
    return r.returncode, regressed, detectable


def scaled(src, dst, size, factor):
    doc = json.load(open(src))
    for row in doc["rows"]:
        if row["size"] == size:
            row["busbw_gbps"] *= factor
            row["algbw_gbps"] *= factor
            row["time_us"] /= factor
    json.dump(doc, open(dst, "w"))


def loadavg():
    return open("/proc/loadavg").read().split()[:3]


def netns_stage(binary, args, log):
    """A baseline over a tbf-shaped veth, healthy calls, then the link at half rate."""
    if os.geteuid() != 0 or not shutil.which("tc"):
        log("stage 3b skipped: needs root and tc for network namespaces")
        return None
    a, b = f"hngn{os.getpid()}a", f"hngn{os.getpid()}b"

    def ns(*cmd):
        subprocess.run(["ip", *cmd], check=True)

    def cleanup():
        for n in (a, b):
            subprocess.run(["ip", "netns", "del", n], stderr=subprocess.DEVNULL)

    cleanup()
    try:
        ns("netns", "add", a)
        ns("netns", "add", b)
        ns("link", "add", "gna", "netns", a, "type", "veth", "peer", "name", "gnb", "netns", b)
        ns("-n", a, "addr", "add", "10.79.0.1/24", "dev", "gna")
        ns("-n", b, "addr", "add", "10.79.0.2/24", "dev", "gnb")
        for n, dev in ((a, "gna"), (b, "gnb")):
            ns("-n", n, "link", "set", "lo", "up")
            ns("-n", n, "link", "set", dev, "up")

        def shape(mbit):
            burst = max(1048576, int(mbit * 1e6 / 8 / 250))
            for n, dev in ((a, "gna"), (b, "gnb")):
                ns("netns", "exec", n, "tc", "qdisc", "replace", "dev", dev, "root", "tbf", "rate",
                   f"{mbit}mbit", "burst", str(burst), "latency", "100ms")

        token = os.urandom(32).hex()

        def run(path):
            if REUSE and os.path.exists(path):
                return
            port = str(30000 + random.randrange(2000))
            common = ["bench", "--op", "allreduce", *SIZES, "--iters", "10", "--warmup", "2",
                      "--transport", "tcp", "--timeout", "120"]
            env = dict(os.environ, WORLD_SIZE="2", MASTER_ADDR="10.79.0.1", MASTER_PORT=port,
                       HN_JOB_ID="gn", HN_TOKEN=token)
            p1 = subprocess.Popen(["ip", "netns", "exec", b, binary, *common],
                                  env=dict(env, RANK="1"), stdout=subprocess.DEVNULL,
                                  stderr=subprocess.DEVNULL)
            r0 = sh(["ip", "netns", "exec", a, binary, *common, "--json", path],
                    env=dict(env, RANK="0"))
            p1.wait()
            if r0.returncode != 0:
                raise SystemExit(f"tcp bench failed: {r0.stderr[-400:]}")

        shape(args.rate)
        base = [os.path.join(OUT, "runs", f"tcp-base-{i:02d}.json") for i in range(args.baseline)]
        for p in base:
            run(p)
        baseline = os.path.join(OUT, "tcp-baseline.json")
        sh([binary, "gate", "baseline", "--out", baseline, *base])
        out = {"rate_mbit": args.rate, "healthy": [], "halved": []}
        for phase, mbit in (("healthy", args.rate), ("halved", args.rate // 2)):
            shape(mbit)
            for c in range(args.hog_calls):
                runs = [os.path.join(OUT, "runs", f"tcp-{phase}-{c:02d}-{k}.json")
                        for k in range(args.new)]
                for p in runs:
                    run(p)
                code, reg, _ = gate(binary, baseline, runs, f"tcp-{phase}-{c:02d}")
                out[phase].append({"exit": code, "regressed": sorted(reg, key=int)})
            log(f"  tcp {phase} ({mbit} Mbit/s): exits {[x['exit'] for x in out[phase]]}")
        return out
    finally:
        cleanup()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--calls", type=int, default=50, help="healthy gate calls (default 50)")
    ap.add_argument("--baseline", type=int, default=10, help="baseline runs (default 10)")
    ap.add_argument("--new", type=int, default=3, help="new runs per gate call (default 3)")
    ap.add_argument("--hog-calls", type=int, default=10, help="calls per real slowdown (10)")
    ap.add_argument("--rate", type=int, default=400, help="tbf rate in Mbit/s for stage 3b")
    ap.add_argument("--load", default="intermittent", help="intermittent | hogs:N | none")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--bin", default=os.path.join(ROOT, "build", "bin", "hnprecheck"))
    ap.add_argument("--reuse", action="store_true",
                    help="gate the runs of the last session again (a changed gate, same data)")
    args = ap.parse_args()
    global REUSE
    REUSE = args.reuse
    if not os.access(args.bin, os.X_OK):
        raise SystemExit(f"build first: {args.bin} is missing (scripts/build.sh)")
    if args.reuse:
        for d in ("gate", "synthetic"):
            shutil.rmtree(os.path.join(OUT, d), ignore_errors=True)
            os.makedirs(os.path.join(OUT, d))
        args.load = "none (reused runs)"
    else:
        shutil.rmtree(OUT, ignore_errors=True)
        for d in ("runs", "gate", "synthetic"):
            os.makedirs(os.path.join(OUT, d))
    # A private copy: a rebuild during the session must not swap the binary.
    binary = os.path.join(OUT, "hnprecheck")
    shutil.copy2(args.bin, binary)
    lines = []

    def log(s):
        print(s, flush=True)
        lines.append(s)

    load = Load(args.load if not args.reuse else "none", args.seed)
    started, load_before = time.time(), loadavg()
    load.start()
    try:
        log(f"stage 1: {args.baseline} baseline runs and {args.calls} calls x {args.new} "
            f"healthy runs (shm, 2 ranks), load {args.load}")
        base = [os.path.join(OUT, "runs", f"base-{i:02d}.json") for i in range(args.baseline)]
        for p in base:
            bench_shm(binary, p)
        baseline = os.path.join(OUT, "baseline.json")
        sh([binary, "gate", "baseline", "--out", baseline, *base])
        calls = []
        if REUSE:
            log("  (reusing the runs of the last session)")
        for c in range(args.calls):
            runs = [os.path.join(OUT, "runs", f"call-{c:02d}-{k}.json") for k in range(args.new)]
            for p in runs:
                bench_shm(binary, p)
            code, reg, det = gate(binary, baseline, runs, f"call-{c:02d}")
            singles = [gate(binary, baseline, [p], f"call-{c:02d}-single-{k}")
                       for k, p in enumerate(runs)]
            calls.append({"runs": runs, "exit": code, "regressed": sorted(reg, key=int),
                          "detectable": det, "single_exits": [s[0] for s in singles],
                          "single_regressed": [sorted(s[1], key=int) for s in singles]})
            if (c + 1) % 10 == 0:
                log(f"  {c + 1} calls, load average {' '.join(loadavg())}")

        log("stage 3a: a CPU hog pinned beside rank 1")
        hog = subprocess.Popen(["taskset", "-c", "1", sys.executable, "-c",
                                "while True: pass" if not REUSE else "pass"])
        hogged = []
        try:
            for c in range(args.hog_calls):
                runs = [os.path.join(OUT, "runs", f"hog-{c:02d}-{k}.json") for k in range(args.new)]
                for p in runs:
                    bench_shm(binary, p, pin="0,1")
                code, reg, _ = gate(binary, baseline, runs, f"hog-{c:02d}")
                hogged.append({"exit": code, "regressed": sorted(reg, key=int)})
        finally:
            hog.kill()
            hog.wait()
        log("stage 3b: TCP over a shaped veth, healthy and at half rate")
        tcp = netns_stage(binary, args, log)
    finally:
        load.stop()
    load_after = loadavg()

    log("stage 2: synthetic losses on every healthy call")
    sizes = sorted({r["size"] for r in json.load(open(base[0]))["rows"]})
    detect = {}
    for loss in LOSSES:
        for size in sizes:
            hits = 0
            for c, call in enumerate(calls):
                runs = []
                for k, p in enumerate(call["runs"]):
                    q = os.path.join(OUT, "synthetic", f"l{int(loss * 100)}-s{size}-c{c}-{k}.json")
                    scaled(p, q, size, 1 - loss)
                    runs.append(q)
                code, reg, _ = gate(binary, baseline, runs, f"syn-l{int(loss * 100)}-s{size}-c{c}")
                hits += code == 1 and str(size) in reg
            detect[(loss, size)] = hits

    # Report.
    n = len(calls)
    alarms = [c for c in calls if c["exit"] != 0]
    singles = [e for c in calls for e in c["single_exits"]]
    single_alarms = sum(e != 0 for e in singles)
    base_doc = json.load(open(baseline))
    log("")
    log(f"baseline: {args.baseline} runs; load average before {' '.join(load_before)}, "
        f"after {' '.join(load_after)}; {int(time.time() - started)} s")
    log(f"false alarms, {args.new}-run protocol: {len(alarms)} of {n} gate calls"
        + "".join(f"\n  call {calls.index(c)}: exit {c['exit']}, regressed at {c['regressed']}"
                  for c in alarms))
    log(f"false alarms, 1-run protocol: {single_alarms} of {len(singles)} gate calls")
    # Confirm on rerun: gate the first run; on exit 1, gate it with two more.
    confirmed = sum(c["single_exits"][0] == 1 and c["exit"] == 1 for c in calls)
    log(f"false alarms, 1 run confirmed by {args.new}: {confirmed} of {n} gate calls "
        f"({sum(c['single_exits'][0] == 1 for c in calls)} reruns)")
    log("")
    log(f"{'size':>9} {'baseline busbw':>15} {'noise (MAD %)':>14} {'detectable (median)':>20} "
        + " ".join(f"{'loss ' + str(int(l * 100)) + '%':>9}" for l in LOSSES))
    table = []
    for size in sizes:
        m = next(x for x in base_doc["metrics"] if x["name"] == "bench.busbw"
                 and x["labels"]["bytes"] == str(size))
        vals = m["values"]
        centre = statistics.median(vals)
        mad = statistics.median(abs(v - centre) for v in vals) * 1.4826
        dets = [c["detectable"].get(str(size)) for c in calls if c["detectable"].get(str(size))]
        det = statistics.median(dets) if dets else None
        row = {"bytes": size, "centre_gbps": centre, "mad_rel": mad / centre if centre else None,
               "detectable": det,
               "detected": {f"{int(l * 100)}%": detect[(l, size)] for l in LOSSES}, "calls": n}
        table.append(row)
        log(f"{size:>9} {centre:>15.4g} {100 * mad / centre:>13.1f}% "
            f"{(f'{100 * det:.1f}%' if det is not None else '-'):>20} "
            + " ".join(f"{str(detect[(l, size)]) + '/' + str(n):>9}" for l in LOSSES))
    hog_hits = sum(h["exit"] == 1 for h in hogged)
    log(f"\nreal slowdown, CPU hog beside rank 1: detected in {hog_hits} of {len(hogged)} calls "
        + str([h["regressed"] for h in hogged]))
    if tcp:
        th = sum(x["exit"] != 0 for x in tcp["healthy"])
        tl = sum(x["exit"] == 1 for x in tcp["halved"])
        log(f"real slowdown, TCP link at half of {tcp['rate_mbit']} Mbit/s: detected in {tl} of "
            f"{len(tcp['halved'])} calls; healthy TCP calls with an alarm: {th} of {len(tcp['healthy'])}")
    summary = {"baseline_runs": args.baseline, "new_runs_per_call": args.new, "load": args.load,
               "load_before": load_before, "load_after": load_after,
               "false_alarms": len(alarms), "calls": n,
               "false_alarms_single_run": single_alarms, "single_run_calls": len(singles),
               "false_alarms_confirmed": confirmed,
               "sizes": table, "hog": hogged, "tcp": tcp,
               "seconds": int(time.time() - started)}
    json.dump(summary, open(os.path.join(ROOT, "build", "gate-noise.json"), "w"), indent=2)
    open(os.path.join(OUT, "summary.txt"), "w").write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
