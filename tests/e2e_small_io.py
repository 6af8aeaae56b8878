#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""e2e_small_io.py: small_io against tshark on the real bulk-io sample.

    e2e_small_io.py NFSSCOPE SAMPLES_DIR

bulk-io (libnfs against nfs-ganesha over a veth, samples/generate) reads a
file in 8 KiB READs after one 1 MiB READ, and writes 256 KiB WRITEs; the
server's FSINFO says rtmax and wtmax. From tshark alone: the FSINFO reply's
rtmax and wtmax, each READ call's count (the bytes asked for) with its
reply's eof and rpc.time, each WRITE call's count with its rpc.time. A
READ is small when count x 4 <= rtmax and its reply is not at end of file,
a WRITE when count x 4 <= wtmax; each small call costs
latency - latency x count / max (whole microseconds). Then small_io's
count, cost, evidence (reads, writes, small ones, bytes, rtmax, wtmax) and
time_by_cause.client_us (the only client finding there) agree, and the
text report's diagnosis ranks small_io first.
"""
import json
import os
import subprocess
import sys

from checks import check, finish


def oracle(path):
    cmd = ["tshark", "-n", "-r", path, "-d", "tcp.port==2049,rpc", "-Y", "nfs", "-T", "fields",
           "-e", "rpc.msgtyp", "-e", "rpc.xid", "-e", "nfs.procedure_v3", "-e", "nfs.count3",
           "-e", "nfs.read.eof", "-e", "rpc.time", "-e", "nfs.fsinfo.rtmax",
           "-e", "nfs.fsinfo.wtmax", "-E", "occurrence=a", "-E", "aggregator=,"]
    out = subprocess.run(cmd, capture_output=True, check=True, text=True).stdout
    calls, done, rtmax, wtmax = {}, [], 0, 0
    for line in out.splitlines():
        f = (line.split("\t") + [""] * 8)[:8]
        typ, xid, proc, count = (x.split(",") for x in f[:4])
        if f[6]:
            rtmax, wtmax = int(f[6]), int(f[7])
        if typ == ["1"]:
            c = calls.pop(xid[0], None)
            if c:
                done.append((c[0], c[1], f[4] == "1", round(float(f[5]) * 1e6)))
            continue
        for t, x, p, n in zip(typ, xid, proc, count):
            if t == "0" and p in ("6", "7"):
                calls[x] = (p, int(n))
    small, cost = {"6": [], "7": []}, 0
    for proc, n, eof, lat in done:
        ref = rtmax if proc == "6" else wtmax
        if n * 4 <= ref and not (proc == "6" and eof):
            small[proc].append(n)
            cost += lat - lat * n // ref
    reads = sum(1 for d in done if d[0] == "6")
    writes = sum(1 for d in done if d[0] == "7")
    return rtmax, wtmax, reads, writes, small, cost


def main():
    nfsscope, samples = sys.argv[1], sys.argv[2]
    path = os.path.join(samples, "bulk-io.pcap")
    rtmax, wtmax, reads, writes, small, cost = oracle(path)
    print(f"tshark: rtmax {rtmax}, wtmax {wtmax}, {len(small['6'])} of {reads} READs and "
          f"{len(small['7'])} of {writes} WRITEs small, {cost} us")
    check(rtmax > 0 and small["6"], "tshark: FSINFO and small READs in bulk-io")
    rep = json.loads(subprocess.run([nfsscope, "-o", "json", "-r", path], capture_output=True,
                                    check=True, timeout=300).stdout)
    fs = {f["kind"]: f for f in rep["findings"]}
    si = fs.get("small_io")
    check(si is not None, "small_io finding")
    if si:
        ev = si["evidence"]
        check(si["count"] == len(small["6"]) + len(small["7"]), f"count {si['count']}")
        check(si["cost_us"] == cost, f"cost {si['cost_us']} != tshark's {cost}")
        check(ev["reads"] == reads and ev["writes"] == writes, f"reads {ev['reads']}, writes "
                                                                f"{ev['writes']}")
        check(ev["small_reads"] == len(small["6"]) and
              ev["small_read_bytes"] == sum(small["6"]), "small reads and their bytes")
        check(ev["small_writes"] == len(small["7"]) and
              ev["small_write_bytes"] == sum(small["7"]), "small writes and their bytes")
        check([(s["rtmax"], s["wtmax"]) for s in ev["servers"]] == [(rtmax, wtmax)],
              f"servers {ev['servers']}")
        check(rep["time_by_cause"]["client_us"] == cost, "client time is small_io's")
    head = subprocess.run([nfsscope, "-r", path], capture_output=True, timeout=300,
                          text=True).stdout.splitlines()[:15]
    rows = [l.split() for l in head if l.startswith("  ") and len(l.split()) > 1
            and l.split()[1].endswith("%")]
    check(rows and rows[0][0] == "small_io", f"text: first ranked {rows[:1]}")
    return finish()


if __name__ == "__main__":
    sys.exit(main())
