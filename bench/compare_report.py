#!/usr/bin/env python3
"""Medians and ratios for bench/compare.sh.

Input lines: CONFIG TOOL REP SIZE TIME_US BUSBW_GBPS WRONG (iperf3: size 0, busbw = GB/s).
Prints one table per configuration: median busbw of each tool, ours/MPI and
ours/Gloo, and for 8 B the latency ratio; for tcp2 also ours/iperf3 at >= 16 MiB.
Floors (issue #3): busbw >= 1.0x both peers from 64 KiB to 256 MiB; TCP busbw
>= 0.9x iperf3 at >= 16 MiB; 8-byte latency <= 2x Open MPI's.
"""
import json
import statistics
import sys
from collections import defaultdict

rows = defaultdict(list)  # (cfg, tool, size) -> [(time, busbw, wrong)]
for line in open(sys.argv[1]):
    f = line.split()
    if len(f) != 7:
        continue
    cfg, tool, _rep, size, t, bw, wrong = f
    rows[(cfg, tool, int(size))].append((float(t), float(bw), int(float(wrong))))


def med(cfg, tool, size, idx):
    v = [r[idx] for r in rows.get((cfg, tool, size), [])]
    return statistics.median(v) if v else None


def ratio(a, b):
    return a / b if a is not None and b else None


def fmt(x, spec="{:.3f}"):
    return "-" if x is None else spec.format(x)


report = {"configs": {}}
for cfg in ("shm2", "shm4", "tcp2"):
    sizes = sorted({s for (c, t, s) in rows if c == cfg and t != "iperf3"})
    iperf = med(cfg, "iperf3", 0, 1)
    print(f"\n== {cfg} ==  (medians over repeats; busbw GB/s, latency us)")
    hdr = f"{'size':>10} {'ours':>9} {'mpi':>9} {'gloo':>9} {'ours/mpi':>9} {'ours/gloo':>9}"
    if iperf:
        hdr += f" {'ours/iperf3':>11}"
    print(hdr + "  floor")
    out = []
    for s in sizes:
        idx = 0 if s <= 8 else 1
        o, m, g = med(cfg, "ours", s, idx), med(cfg, "mpi", s, idx), med(cfg, "gloo", s, idx)
        if idx == 0:  # latency: smaller is better, ratio is peer/ours so >1 means we win
            rm, rg = ratio(m, o), ratio(g, o)
            ok = rm is not None and rm >= 0.5
            line = f"{s:>10} {fmt(o, '{:.2f}us'):>9} {fmt(m, '{:.2f}us'):>9} {fmt(g, '{:.2f}us'):>9} {fmt(rm):>9} {fmt(rg):>9}"
            floor = "latency <= 2x MPI: " + ("met" if ok else "MISSED")
        else:
            rm, rg = ratio(o, m), ratio(o, g)
            ri = ratio(o, iperf) if iperf and s >= 16 << 20 else None
            ok = (rm or 0) >= 1.0 and (rg or 0) >= 1.0 and (ri is None or ri >= 0.9)
            line = f"{s:>10} {fmt(o):>9} {fmt(m):>9} {fmt(g):>9} {fmt(rm):>9} {fmt(rg):>9}"
            if iperf:
                line += f" {fmt(ri):>11}"
            floor = "met" if ok else "MISSED"
        wrong = sum(r[2] for t in ("ours", "mpi", "gloo") for r in rows.get((cfg, t, s), []) if r[2] > 0)
        print(line + "  " + floor + (f"  WRONG ELEMENTS: {wrong}" if wrong else ""))
        out.append({"size": s, "ours": o, "mpi": m, "gloo": g, "ours_over_mpi": rm, "ours_over_gloo": rg,
                    "floor_met": ok, "metric": "latency_us" if idx == 0 else "busbw_gbps", "wrong": wrong})
    if iperf:
        print(f"iperf3 over the same veth: {iperf:.3f} GB/s ({iperf * 8:.1f} Gbit/s)")
    report["configs"][cfg] = {"rows": out, "iperf3_gbps": iperf}
json.dump(report, open(sys.argv[2], "w"), indent=2)
print(f"\nwritten: {sys.argv[2]}")
