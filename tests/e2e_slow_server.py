#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""e2e_slow_server.py: slow_server names the server that was slow, the
operation and when, against the generator's own record.

    e2e_slow_server.py NFSSCOPE WORKDIR

A synthetic capture (tests/pcapsyn.py), NFSv3 over UDP from one client:
server A (10.0.0.2) answers a LOOKUP every 10 ms in 1 ms, except for the
calls made in [SLOW_FROM, SLOW_TO), which it answers in 80 ms; server B
(10.0.0.3) answers every LOOKUP in 3 ms, steadily. The generator keeps
each call's server, call time and latency: its record says which calls
were slow, by how much beyond A's usual 1 ms, and when the slow period
began and ended. tshark's rpc.time of every reply checks that the capture
says what the record says. Then slow_server:

- is the top finding, with the record's slow calls as its count and their
  latency beyond the median (80 ms - 1 ms each) as its cost_us (the median
  read from a histogram of 12.5 % buckets: within 12.5 % of 1 ms);
- names server A and LOOKUP (calls, slow calls, p50 1 ms), not server B;
- has one slow period, from the first slow call to the last slow reply;
- is time_by_cause's server time, and the text report's diagnosis names it
  within its first 15 lines;
- the report validates against doc/nfsscope-report.schema.json (with
  python3-jsonschema; skipped without it).
"""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pcapsyn as P  # noqa: E402
from checks import check, finish, skip_part  # noqa: E402

SCHEMA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "doc",
                      "nfsscope-report.schema.json")

T0 = 1700000000
CLI, SRV_A, SRV_B = "10.0.0.1", "10.0.0.2", "10.0.0.3"
SLOW_FROM, SLOW_TO = 1.0, 1.5  # seconds into the capture
FAST_US, SLOW_US, B_US = 1000, 80000, 3000
CALLS = 300


def build(path):
    """The capture, and the generator's record: (server, t_call_s, lat_us)."""
    events, record = [], []
    xid = 0x1000
    dirfh, objfh = b"D" * 32, b"F" * 32
    for i in range(CALLS):
        for srv, base, port in ((SRV_A, 0.0, 800), (SRV_B, 0.003, 801)):
            t = 0.010 * i + base
            if srv == SRV_A:
                lat = SLOW_US if SLOW_FROM <= t < SLOW_TO else FAST_US
            else:
                lat = B_US
            xid += 1
            call = P.rpc_call(xid, P.NFS_PROG, 3, 3, P.nfs3_lookup_args(dirfh, b"name%d" % i))
            reply = P.rpc_reply(xid, P.nfs3_lookup_res(objfh))
            events.append((round(t * 1e6), P.udp_frame(CLI, port, srv, 2049, call, ident=xid)))
            events.append((round(t * 1e6) + lat,
                           P.udp_frame(srv, 2049, CLI, port, reply, ident=xid)))
            record.append((srv, t, lat))
    events.sort(key=lambda e: e[0])
    frames = [{"data": d, "sec": T0 + us // 1000000, "usec": us % 1000000} for us, d in events]
    P.write_pcap(path, frames)
    return record


def tshark_times(path):
    """Every reply's rpc.time in us, by server, from tshark."""
    out = subprocess.run(["tshark", "-n", "-r", path, "-d", "udp.port==2049,rpc", "-Y",
                          "rpc.msgtyp == 1", "-T", "fields", "-e", "ip.src", "-e", "rpc.time"],
                         capture_output=True, check=True, text=True).stdout
    got = {}
    for line in out.splitlines():
        src, t = line.split("\t")
        got.setdefault(src, []).append(round(float(t) * 1e6))
    return got


def main():
    nfsscope, work = sys.argv[1], sys.argv[2]
    os.makedirs(work, exist_ok=True)
    path = os.path.join(work, "slow-server.pcap")
    record = build(path)
    slow = [(t, lat) for srv, t, lat in record if srv == SRV_A and lat == SLOW_US]
    check(len(slow) == 50, f"generator: {len(slow)} slow calls")

    # the capture says what the record says
    ts = tshark_times(path)
    check(sorted(ts.get(SRV_A, [])) == sorted(lat for srv, _, lat in record if srv == SRV_A),
          "tshark's rpc.time of server A's replies equal the record's latencies")
    check(ts.get(SRV_B) == [B_US] * CALLS, "tshark: server B steady")

    p = subprocess.run([nfsscope, "-o", "json", "-r", path], capture_output=True, timeout=300)
    check(p.returncode == 0, f"exit {p.returncode} {p.stderr!r}")
    rep = json.loads(p.stdout)
    try:
        import jsonschema
        errs = list(jsonschema.Draft202012Validator(json.load(open(SCHEMA))).iter_errors(rep))
        check(not errs, f"schema: {[e.message for e in errs[:3]]}")
    except ImportError:
        skip_part("python3-jsonschema is not installed")
    ranked = [f for f in rep["findings"] if "cost_us" in f]
    check(ranked and ranked[0]["kind"] == "slow_server",
          f"top finding {ranked[0]['kind'] if ranked else None}, not slow_server")
    ss = {f["kind"]: f for f in ranked}.get("slow_server")
    check(ss is not None, "slow_server finding")
    if not ss:
        return finish()
    excess = sum(lat - FAST_US for _, lat in slow)
    slack = len(slow) * FAST_US // 8  # the median within 12.5 % (src/histo.h, histo_small)
    check(ss["count"] == len(slow), f"slow calls {ss['count']} != record {len(slow)}")
    check(abs(ss["cost_us"] - excess) <= slack, f"cost {ss['cost_us']} != record {excess}")
    servers = ss["evidence"]["servers"]
    check([s["server"] for s in servers] == [SRV_A], f"servers {[s['server'] for s in servers]}")
    if servers:
        a = servers[0]
        ops = {o["op"]: o for o in a["ops"]}
        check(list(ops) == ["lookup"], f"ops {list(ops)}")
        lk = ops.get("lookup", {})
        check(lk.get("calls") == CALLS and lk.get("slow_calls") == len(slow),
              f"lookup calls {lk.get('calls')}, slow {lk.get('slow_calls')}")
        check(abs(lk.get("p50_us", 0) - FAST_US) <= FAST_US // 8 and
              abs(lk.get("slow_p50_us", 0) - SLOW_US) <= SLOW_US // 8,
              f"p50 {lk.get('p50_us')}, slow p50 {lk.get('slow_p50_us')}")
        check(len(a["periods"]) == 1, f"periods {a['periods']}")
        if a["periods"]:
            per = a["periods"][0]
            first, last = min(t for t, _ in slow), max(t + lat / 1e6 for t, lat in slow)
            check(abs(per["start"] - (T0 + first)) < 1e-6 and abs(per["end"] - (T0 + last)) < 1e-6,
                  f"period {per['start'] - T0:.6f}..{per['end'] - T0:.6f} s, record "
                  f"{first:.6f}..{last:.6f} s")
            check(per["slow_calls"] == len(slow), f"period calls {per['slow_calls']}")
    t = rep.get("time_by_cause", {})
    check(t.get("server_us") == ss["cost_us"], f"time_by_cause.server_us {t.get('server_us')}")
    check(t.get("total_us") == sum(lat for _, _, lat in record),
          f"total_us {t.get('total_us')} != record {sum(lat for _, _, lat in record)}")

    txt = subprocess.run([nfsscope, "-r", path], capture_output=True, timeout=300).stdout.decode()
    head = txt.splitlines()[:15]
    rows = [l.split() for l in head if l.startswith("  ") and len(l.split()) > 1
            and l.split()[1].endswith("%")]
    check(rows and rows[0][0] == "slow_server", f"text: first ranked line {rows[:1]}")
    return finish()


if __name__ == "__main__":
    sys.exit(main())
