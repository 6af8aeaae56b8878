#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""e2e_interval.py: --interval with -r: reports by capture time.

    e2e_interval.py NFSSCOPE SAMPLES_DIR

On cms-page and lossy-cms, against tshark's frame times and RPC messages:
- -o json --interval S prints one JSON line per interval of capture time
  that has a packet at or after its boundary (boundaries at the first
  packet's time + k*S), dated with the boundary, then the final report
  (pretty-printed, as without --interval);
- each line counts the NFS calls tshark sees in the frames before its
  boundary (calls are counted when they are sent);
- the final report is the report without --interval;
- -o text prints a "--- date" line per interval, dated in capture time;
- -o csv refuses --interval (no periodic report), exit 2.
"""
import json
import os
import subprocess
import sys
import time

from checks import check, finish


def tshark_calls(path):
    """[(frame time, NFS calls in the frame)] from tshark."""
    out = subprocess.run(["tshark", "-n", "-r", path, "-o", "tcp.reassemble_out_of_order:TRUE",
                          "-d", "tcp.port==2049,rpc", "-T", "fields",
                          "-e", "frame.time_epoch", "-e", "rpc.msgtyp", "-e", "rpc.program",
                          "-E", "occurrence=a", "-E", "aggregator=,"],
                         capture_output=True, check=True, text=True).stdout
    rows = []
    for line in out.splitlines():
        parts = (line.split("\t") + ["", ""])[:3]
        typ = parts[1].split(",") if parts[1] else []
        prog = parts[2].split(",") if parts[2] else []
        # the program is only in calls: the i-th program belongs to the i-th call
        calls = [p for p in prog if p == "100003"]
        n = min(len(calls), typ.count("0"))
        rows.append((float(parts[0]), n))
    return rows


def nfs_calls(rep):
    return sum(op["calls"] for op in rep["nfs3"]["ops"].values())


def check_sample(nfsscope, path, every):
    name = os.path.basename(path)
    rows = tshark_calls(path)
    t0 = rows[0][0]
    # boundaries that get a report: the first k*every at or before some packet
    want, nxt = [], t0 + every
    for t, _ in rows:
        if t >= nxt - 1e-9:
            want.append(nxt)
            while nxt <= t + 1e-9:
                nxt += every
    p = subprocess.run([nfsscope, "-o", "json", "--interval", str(every), "-r", path],
                       capture_output=True, timeout=600)
    check(p.returncode == 0, f"{name}: exit {p.returncode} {p.stderr!r}")
    lines = p.stdout.decode().splitlines()
    cut = lines.index("{") if "{" in lines else len(lines)  # the final report, pretty-printed
    ticks = [json.loads(l) for l in lines[:cut]]
    check(len(ticks) == len(want), f"{name}: {len(ticks)} interval reports, tshark's frames "
                                   f"cross {len(want)} boundaries")
    for rep, b in zip(ticks, want):
        check(abs(rep["time"] - b) < 2e-6, f"{name}: report dated {rep['time']}, boundary {b}")
        before = sum(n for t, n in rows if t < b - 1e-9)
        check(nfs_calls(rep) == before, f"{name}: at +{b - t0:.3f} s {nfs_calls(rep)} NFS calls, "
                                        f"tshark {before} in the frames before")
    final = json.loads("\n".join(lines[cut:])) if cut < len(lines) else {}
    plain = json.loads(subprocess.run([nfsscope, "-o", "json", "-r", path], capture_output=True,
                                      timeout=600).stdout)
    final.pop("time", None)
    check(final == plain, f"{name}: the final report is the report without --interval")
    p = subprocess.run([nfsscope, "--interval", str(every), "-r", path], capture_output=True,
                       timeout=600)
    heads = [l for l in p.stdout.decode().splitlines() if l.startswith("--- ")]
    exp = [time.strftime("--- %Y-%m-%d %H:%M:%S", time.localtime(int(b))) for b in want]
    check(heads == exp, f"{name}: text heads {heads[:3]} != {exp[:3]}")


def main():
    nfsscope, samples = sys.argv[1], sys.argv[2]
    check_sample(nfsscope, os.path.join(samples, "cms-page.pcap"), 0.01)
    check_sample(nfsscope, os.path.join(samples, "lossy-cms.pcap"), 1)
    p = subprocess.run([nfsscope, "-o", "csv", "--interval", "1", "-r",
                        os.path.join(samples, "cms-page.pcap")], capture_output=True)
    check(p.returncode == 2, f"-o csv --interval: exit {p.returncode}")
    return finish()


if __name__ == "__main__":
    sys.exit(main())
