#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""e2e_diff.py: nfsscope diff's workload lines, verdict and warnings against
sources outside nfsscope.

    e2e_diff.py NFSSCOPE SAMPLES_DIR

On stable-writes (A) against unstable-writes (B), and bulk-io against
cms-page:
- duration: capinfos's capture duration of each file;
- NFS calls, bytes per WRITE and per READ: the generator's record
  (NAME.expect.json: calls per procedure, bytes written and read);
- ops/s and MB/s: those calls and bytes over capinfos's duration;
- time in NFS calls: the sum of tshark's rpc.time over the NFS replies
  (within 1 us per call: tshark prints microseconds);
- every change in % is (B - A) / A of those values;
- the verdict follows the time per call: UNSTABLE writes are faster than
  stable ones on the same server ("B is faster");
- a side with fewer replies than a percentile needs is warned about
  (cms-page: 1 FSINFO, bulk-io: commit).
"""
import json
import os
import re
import subprocess
import sys

from checks import check, finish


def capinfos_duration(path):
    out = subprocess.run(["capinfos", "-u", "-M", path], capture_output=True, check=True,
                         text=True).stdout
    return float(re.search(r"Capture duration:\s+([0-9.]+) seconds", out).group(1))


def tshark_time_us(path):
    out = subprocess.run(["tshark", "-n", "-r", path, "-d", "tcp.port==2049,rpc", "-Y",
                          "rpc.msgtyp == 1 && rpc.program == 100003", "-T", "fields", "-e",
                          "rpc.time", "-E", "occurrence=a", "-E", "aggregator=,"],
                         capture_output=True, check=True, text=True).stdout
    ts = [float(x) for line in out.split() for x in line.split(",") if x]
    return sum(round(t * 1e6) for t in ts), len(ts)


def expect(path):
    e = json.load(open(path))["nfs3"]
    calls = sum(op["calls"] for op in e["ops"].values())
    return {"calls": calls, "write_bytes": e["write"]["bytes"], "read_bytes": e["read"]["bytes"],
            "writes": e["ops"]["write"]["calls"], "reads": e["ops"]["read"]["calls"]}


def truth(samples, name):
    pcap = os.path.join(samples, name + ".pcap")
    dur = capinfos_duration(pcap)
    ex = expect(os.path.join(samples, name + ".expect.json"))
    t_us, n = tshark_time_us(pcap)
    return {"duration_s": dur, "calls": ex["calls"], "ops_per_s": ex["calls"] / dur,
            "mb_per_s": (ex["read_bytes"] + ex["write_bytes"]) / dur / 1e6,
            "nfs_time_us": t_us, "replies": n,
            "read_bytes_per_call": ex["read_bytes"] / ex["reads"] if ex["reads"] else None,
            "write_bytes_per_call": ex["write_bytes"] / ex["writes"] if ex["writes"] else None}


def close(a, b, rel=1e-6, abs_=0.0):
    if a is None or b is None:
        return a is None and b is None
    return abs(a - b) <= max(abs_, rel * max(abs(a), abs(b)))


def compare(nfsscope, samples, na, nb):
    ta, tb = truth(samples, na), truth(samples, nb)
    p = subprocess.run([nfsscope, "diff", "-o", "json", os.path.join(samples, na + ".pcap"),
                        os.path.join(samples, nb + ".pcap")], capture_output=True, timeout=600)
    check(p.returncode == 0, f"diff {na} {nb}: exit {p.returncode} {p.stderr!r}")
    d = json.loads(p.stdout)
    wl, ch = d["workload"], d["change_pct"]
    for key in ("duration_s", "calls", "ops_per_s", "mb_per_s", "read_bytes_per_call",
                "write_bytes_per_call", "nfs_time_us"):
        for side, t in ((0, ta), (1, tb)):
            slack = t["replies"] if key == "nfs_time_us" else 0
            # capinfos prints the duration to 1 us: ops/s and MB/s to that precision
            rel = 2e-6 / t["duration_s"] if key in ("duration_s", "ops_per_s", "mb_per_s") else 1e-9
            check(close(wl[key][side], t[key], rel=rel, abs_=slack),
                  f"{na}/{nb} {key}[{'AB'[side]}]: {wl[key][side]} != outside {t[key]}")
        a, b = wl[key]
        want = None if a in (None, 0) or b is None else round(100.0 * (b - a) / a, 1)
        check(ch[key] == want, f"{na}/{nb} change_pct.{key} {ch[key]} != {want}")
    return d


def main():
    nfsscope, samples = sys.argv[1], sys.argv[2]
    d = compare(nfsscope, samples, "stable-writes", "unstable-writes")
    check(d["verdict"].startswith("B is faster"), f"stable -> unstable verdict: {d['verdict']}")
    d = compare(nfsscope, samples, "bulk-io", "cms-page")
    warned = " ".join(d["warnings"])
    check("fsinfo in B: 1 reply, too few for p50" in warned, f"cms-page fsinfo warned: {warned}")
    # the text has the same lines
    p = subprocess.run([nfsscope, "diff", os.path.join(samples, "stable-writes.pcap"),
                        os.path.join(samples, "unstable-writes.pcap")], capture_output=True,
                       timeout=600, text=True)
    lines = p.stdout.splitlines()
    check(any(l.startswith("verdict: B is faster") for l in lines), "text verdict line")
    for label in ("duration (s)", "NFS calls", "ops/s", "MB/s read+written", "time in NFS calls",
                  "bytes per WRITE"):
        check(any(l.startswith(label + " ") and l.rstrip().endswith("%") for l in lines),
              f"text: {label} with a change in %")
    return finish()


if __name__ == "__main__":
    sys.exit(main())
