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
On nfs41-state against nfs42-ops (NFSv4): bytes per READ and per WRITE, the
read and write byte totals and WRITE stable_how4 / committed, from tshark's
decoding of every READ and WRITE operation (nfs4_io_oracle, nfs.opcode).
"""
import json
import os
import re
import subprocess
import sys

from checks import check, finish
import nfs4_io_oracle


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


def v4_truth(pcap):
    """tshark: READ/WRITE operations in calls, their bytes and stable_how4."""
    out = subprocess.run(["tshark", "-n", "-r", pcap, "-d", "tcp.port==2049,rpc", "-Y",
                          "rpc.msgtyp == 0 && nfs.procedure_v4 == 1", "-T", "fields", "-e",
                          "nfs.opcode", "-E", "occurrence=a", "-E", "aggregator=,"],
                         capture_output=True, check=True, text=True).stdout
    ops = [int(x) for x in out.replace("\n", ",").split(",") if x]
    io = nfs4_io_oracle.tshark_io(pcap)
    reads, writes = ops.count(nfs4_io_oracle.OP_READ), ops.count(nfs4_io_oracle.OP_WRITE)
    rb, wb = sum(io["read_sizes"]), sum(io["write_sizes"])
    return {"read_bytes_per_call": rb / reads if reads else None,
            "write_bytes_per_call": wb / writes if writes else None,
            "read": rb, "write": wb, "stable": io["stable"], "committed": io["committed"]}


def compare_v4(nfsscope, samples, na, nb):
    pa, pb = os.path.join(samples, na + ".pcap"), os.path.join(samples, nb + ".pcap")
    ta, tb = v4_truth(pa), v4_truth(pb)
    p = subprocess.run([nfsscope, "diff", "-o", "json", pa, pb], capture_output=True,
                       timeout=600)
    check(p.returncode == 0, f"diff {na} {nb}: exit {p.returncode} {p.stderr!r}")
    d = json.loads(p.stdout)
    for key in ("read_bytes_per_call", "write_bytes_per_call"):
        got, want = d["workload"][key], [ta[key], tb[key]]
        check(all(close(g, w, rel=1e-9) for g, w in zip(got, want)),
              f"{na}/{nb} {key}: {got} != tshark {want}")
    check(any(t["read"] for t in (ta, tb)) and any(t["write"] for t in (ta, tb)),
          f"{na}/{nb}: the pair has NFSv4 reads and writes")
    for what in ("stable", "committed"):
        got = d["nfs4"]["write_" + what]
        want = {h: [ta[what][h], tb[what][h]] for h in nfs4_io_oracle.STABLE4}
        check(got == want, f"{na}/{nb} nfs4 write_{what}: {got} != tshark {want}")
    p = subprocess.run([nfsscope, "diff", pa, pb], capture_output=True, timeout=600, text=True)
    rows = {l.split()[0] + " " + l.split()[1]: l.split()[2:4] for l in p.stdout.splitlines()
            if l.startswith(("write bytes", "read bytes"))}
    for what in ("read", "write"):
        check(rows.get(what + " bytes") == [str(ta[what]), str(tb[what])],
              f"{na}/{nb} text {what} bytes {rows.get(what + ' bytes')} != tshark "
              f"{[ta[what], tb[what]]}")
    part = p.stdout.split("NFS v4.x WRITE stable_how4")[-1].split("NFS v4.x WRITE committed")[0]
    for h in nfs4_io_oracle.STABLE4:
        check(any(l.split()[:3] == [h, str(ta["stable"][h]), str(tb["stable"][h])]
                  for l in part.splitlines()), f"{na}/{nb} text stable_how4 {h}")


def main():
    nfsscope, samples = sys.argv[1], sys.argv[2]
    compare_v4(nfsscope, samples, "nfs41-state", "nfs42-ops")
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
