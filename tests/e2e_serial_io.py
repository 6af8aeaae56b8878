#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""e2e_serial_io.py: serialized_io against tshark on real samples.

    e2e_serial_io.py NFSSCOPE SAMPLES_DIR

serial-io (libnfs against nfs-ganesha over a veth, samples/generate) copies a
3 MiB file in 512 KiB WRITEs and reads it back in 512 KiB READs, each call
sent when the one before it is answered; bulk-io keeps 2 WRITEs and 4 READs
in flight. From tshark alone, per client and server: each READ and WRITE
reply's time (frame.time_epoch) and rpc.time, so each call's interval
[reply - rpc.time, reply], its bytes (the READ reply's count, the WRITE
call's count), and from the intervals how many calls were outstanding at
once. On serial-io tshark sees one call outstanding at a time; a call
counts when it moved at least 32 KiB, no other READ or WRITE of the pair
overlapped it, and it was sent at most its latency or 10 ms after the
reply before it; each costs latency - latency / 4 (whole microseconds).
serialized_io's count, cost, evidence (reads, writes, bytes, latency,
throughput, the pair) and time_by_cause.client_us (the only client finding
there) agree, and the text report's diagnosis ranks it first. On bulk-io
tshark sees calls in flight together, and there is no serialized_io.
"""
import collections
import json
import os
import subprocess
import sys
from decimal import Decimal

from checks import check, finish


def ns(text):
    return int(Decimal(text) * 1000000000)


def oracle(path):
    cmd = ["tshark", "-n", "-r", path, "-d", "tcp.port==2049,rpc", "-Y", "nfs", "-T", "fields",
           "-e", "frame.time_epoch", "-e", "ip.src", "-e", "ip.dst", "-e", "rpc.msgtyp",
           "-e", "rpc.xid", "-e", "nfs.procedure_v3", "-e", "nfs.count3", "-e", "rpc.time",
           "-e", "nfs.status", "-E", "occurrence=a", "-E", "aggregator=,"]
    out = subprocess.run(cmd, capture_output=True, check=True, text=True).stdout
    calls, pairs = {}, collections.defaultdict(list)
    for line in out.splitlines():
        f = (line.split("\t") + [""] * 9)[:9]
        typ, xid, proc, count, rtime = (x.split(",") for x in f[3:8])
        for i, (t, x, p) in enumerate(zip(typ, xid, proc)):
            if p not in ("6", "7"):
                continue
            n = int(count[i]) if i < len(count) and count[i] else 0
            if t == "0":
                calls[x] = n
            elif x in calls and f[8].split(",")[0] == "0":
                sent = calls.pop(x)
                reply = ns(f[0])
                lat = ns(rtime[0])
                pairs[(f[2], f[1])].append({"proc": p, "bytes": n if p == "6" else sent,
                                            "call": reply - lat, "reply": reply,
                                            "lat_us": (lat + 500) // 1000})
    return pairs


def expected(pairs):
    counted, most = [], 1
    for calls in pairs.values():
        last = None
        for c in calls:  # in order of reply
            others = [o for o in calls if o is not c and o["call"] < c["reply"]
                      and o["reply"] > c["call"]]
            most = max(most, 1 + len(others))
            gap_ok = last is not None and c["call"] - last <= max(c["reply"] - c["call"],
                                                                    10000000)
            if c["bytes"] >= 32768 and not others and gap_ok:
                counted.append(c)
            last = c["reply"] if last is None else max(last, c["reply"])
    return counted, most


def main():
    nfsscope, samples = sys.argv[1], sys.argv[2]

    path = os.path.join(samples, "serial-io.pcap")
    pairs = oracle(path)
    counted, most = expected(pairs)
    reads = [c for c in counted if c["proc"] == "6"]
    writes = [c for c in counted if c["proc"] == "7"]
    cost = sum(c["lat_us"] - c["lat_us"] // 4 for c in counted)
    lat = sum(c["lat_us"] for c in counted)
    nbytes = sum(c["bytes"] for c in counted)
    print(f"tshark: {sum(len(v) for v in pairs.values())} READs/WRITEs, at most {most} calls "
          f"overlapping one call, {len(reads)} READs and {len(writes)} WRITEs counted, {nbytes} bytes, "
          f"{lat} us waiting, cost {cost} us")
    check(most == 1, "tshark: one call outstanding at a time in serial-io")
    check(len(counted) >= 8 and nbytes >= 1 << 20, "tshark: a bulk serialized transfer")
    rep = json.loads(subprocess.run([nfsscope, "-o", "json", "-r", path], capture_output=True,
                                    check=True, timeout=300).stdout)
    fs = {f["kind"]: f for f in rep["findings"]}
    se = fs.get("serialized_io")
    check(se is not None, "serialized_io finding")
    if se:
        ev = se["evidence"]
        check(se["count"] == len(counted), f"count {se['count']} (tshark {len(counted)})")
        check(se["cost_us"] == cost, f"cost {se['cost_us']} (tshark {cost})")
        check(ev["reads"] == len(reads) and ev["writes"] == len(writes),
              f"reads {ev['reads']}, writes {ev['writes']}")
        check(ev["bytes"] == nbytes and ev["latency_us"] == lat,
              f"bytes {ev['bytes']}, latency {ev['latency_us']}")
        rate = nbytes * 1000000 // lat
        check(abs(ev["throughput_Bps"] - rate) <= 1 and
              abs(ev["possible_Bps"] - 4 * rate) <= 4,
              f"throughput {ev['throughput_Bps']} (tshark {rate}), possible {ev['possible_Bps']}")
        (cli, srv), = pairs.keys()
        check([(p["client"], p["server"], p["calls"]) for p in ev["pairs"]] ==
              [(cli, srv, len(counted))], f"pairs {ev['pairs']}")
        check(rep["time_by_cause"]["client_us"] == cost, "client time is serialized_io's")
    head = subprocess.run([nfsscope, "-r", path], capture_output=True, timeout=300,
                          text=True).stdout.splitlines()[:15]
    rows = [l.split() for l in head if l.startswith("  ") and len(l.split()) > 1
            and l.split()[1].endswith("%")]
    check(rows and rows[0][0] == "serialized_io", f"text: first ranked {rows[:1]}")

    # parallel transfers are not serialized
    path = os.path.join(samples, "bulk-io.pcap")
    counted, most = expected(oracle(path))
    print(f"tshark bulk-io: at most {most} calls overlapping one, {len(counted)} calls alone")
    check(most >= 2 and len(counted) < 8, "tshark: bulk-io keeps calls in flight together")
    rep = json.loads(subprocess.run([nfsscope, "-o", "json", "-r", path], capture_output=True,
                                    check=True, timeout=300).stdout)
    check("serialized_io" not in [f["kind"] for f in rep["findings"]],
          "bulk-io: no serialized_io")
    return finish()


if __name__ == "__main__":
    sys.exit(main())
