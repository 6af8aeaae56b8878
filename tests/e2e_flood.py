#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""e2e_flood.py: resource floods: memory stays bounded, evictions are reported.

    e2e_flood.py NFSSCOPE FLOODGEN RSSRUN [--scale X] [KIND ...]

Each KIND (see tests/flood/floodgen.c) fills one or more of nfsscope's bounded
tables far past its configured limit. The capture is generated at test time
and streamed into `nfsscope -r -` (nothing is written to disk). nfsscope runs
three times with the same small limits (LIMITS below):

  empty  a capture with no packets: the fixed cost (program, libraries,
         tables allocated but untouched);
  small  N/10 units of the flood: enough to fill every table it touches;
  big    N units (1 million SYNs, calls, fragments, ...).

and the test asserts, from each run's own peak RSS (ru_maxrss, taken by
tests/flood/rssrun.c: see there why not from Python):
  - flat:    big <= small + max(2 MiB, 3 %): memory does not grow with N;
  - bounded: big - empty <= BUDGET(kind): the tables the flood fills, at their
             configured capacity, at a generous upper bound per entry
             (ENTRY below; sizes measured: struct flow 432 B, struct
             pending_call 752 B, struct bd_row 1,312 B; the findings'
             tables 1,163 B per --max-findings entry and about 2 MB of
             fixed-size ones), plus slack. Reading untouched calloc memory
             is not free either: some kernels (6.18 here) give a read fault
             a page of its own, not the shared zero page, so a table a
             flood only looks things up in counts whole;
  - the report counts what was dropped: flow_evicted, xid_evicted,
    ipfrag_evicted, rpc_bad_mark, tcp_ooo_overflow, names_evicted, breakdown
    rows evicted ... with the exact numbers where they are determined.

bd16 runs the names flood with 16 rows per breakdown table and 64
names: memory is as flat, every table adds up to the totals and its "other"
row holds what was evicted.

Scale: N defaults to the issue's sizes (1 million units). Sanitizer builds
are ~10x slower, so tests.cmake passes --scale 0.2 there (set
NFSSCOPE_FLOOD_SCALE to override either way; e.g. 0.01 for a quick look).
Every run is printed with its packets, seconds and peak RSS.
"""
import json
import os
import subprocess
import sys
import tempfile
import time

KiB, MiB = 1024, 1024 * 1024

# The limits every flood runs with (small, so a full table is cheap to reach).
MAX_FLOWS, MAX_PENDING, MAX_NAMES, MAX_ROWS, MAX_FRAGS = 1024, 1024, 1024, 64, 64
MAX_FINDINGS = 1024
LIMITS = ["--max-flows", str(MAX_FLOWS), "--max-pending", str(MAX_PENDING),
          "--max-names", str(MAX_NAMES), "--max-rows", str(MAX_ROWS),
          "--max-frags", str(MAX_FRAGS), "--max-findings", str(MAX_FINDINGS)]

# Upper bounds per table entry, index included (about twice the sizes measured).
ENTRY = {
    "flow": 512,
    "pending": 1 * KiB,
    "name": 512,
    "bd_rows": 6 * 2 * KiB,       # one row in each of the six breakdown tables
    "frag": 64 * KiB + 4 * KiB,   # a 65,535-byte buffer while in progress + slot
    "findings": 2 * KiB,          # every findings table's entry for one key
}
FINDINGS_FIXED = 4 * MiB          # the findings' tables of fixed size (connections, servers,
                                  # listings, top files, slow servers, small and serialized I/O)
TCP_OOO_POOL = 8 * MiB            # config.c tcp_ooo_pool (no option yet)
SLACK = 6 * MiB                   # allocator, stdio, libpcap buffers
ASAN_FACTOR = 1.5                 # redzones and shadow memory in sanitizer builds

TABLES = {
    "flows": MAX_FLOWS * ENTRY["flow"],
    "pending": MAX_PENDING * ENTRY["pending"],
    "names": MAX_NAMES * ENTRY["name"],
    "rows": MAX_ROWS * ENTRY["bd_rows"],
    "frags": MAX_FRAGS * ENTRY["frag"],
    "ooo": TCP_OOO_POOL,
    "findings": MAX_FINDINGS * ENTRY["findings"] + FINDINGS_FIXED,
}

passed = failed = 0


def check(cond, what):
    global passed, failed
    if cond:
        passed += 1
    else:
        failed += 1
        print("FAIL " + what, flush=True)


def run(tools, kind, n, work, extra=()):
    """floodgen KIND N | rssrun nfsscope -r - -o json; returns (report, peak RSS bytes, seconds)."""
    nfsscope, floodgen, rssrun = tools
    gen_kind, more = GEN.get(kind, (kind, []))
    extra = list(more) + list(extra)
    out_path = os.path.join(work, "out.json")
    err_path = os.path.join(work, "err.txt")
    rss_path = os.path.join(work, "rss.txt")
    cmd = [rssrun, rss_path, nfsscope, "-r", "-", "-o", "json"] + LIMITS + list(extra)
    t0 = time.monotonic()
    with open(out_path, "wb") as out, open(err_path, "wb") as err:
        if n == 0:  # the pcap header alone: an empty capture
            gen = None
            header = subprocess.run([floodgen, gen_kind, "1"], capture_output=True).stdout[:24]
            nfs = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=out, stderr=err)
            nfs.stdin.write(header)
            nfs.stdin.close()
        else:
            gen = subprocess.Popen([floodgen, gen_kind, str(n)], stdout=subprocess.PIPE)
            nfs = subprocess.Popen(cmd, stdin=gen.stdout, stdout=out, stderr=err)
            gen.stdout.close()  # nfsscope holds the read end
        nfs.wait()
        if gen:
            gen.wait()
    secs = time.monotonic() - t0
    errtext = open(err_path, "rb").read().decode(errors="replace")
    check(nfs.returncode == 0 and (gen is None or gen.returncode == 0),
          f"{kind} {n}: exit {nfs.returncode} {errtext[-2000:]}")
    check(errtext == "", f"{kind} {n}: stderr not empty: {errtext[-2000:]}")
    try:
        rep = json.load(open(out_path))
    except ValueError as e:
        check(False, f"{kind} {n}: report is not JSON: {e}")
        rep = None
    return rep, int(open(rss_path).read()) * KiB, secs


def an(rep):
    return rep["anomalies"]


# Per kind: units at full scale, the tables it fills, and the report checks
# given N units (the report of the big run).
def check_syn(rep, n):
    check(rep["capture"]["packets"] == n, "syn: packets")
    check(an(rep)["flow_evicted"] == n - MAX_FLOWS, f"syn: flow_evicted {an(rep)['flow_evicted']} "
          f"!= {n - MAX_FLOWS}")


def check_calls(rep, n):
    check(rep["rpc"]["calls"] == n, f"calls: {rep['rpc']['calls']} calls != {n}")
    check(rep["rpc"]["unanswered_calls"] == n, "calls: every call unanswered")
    check(an(rep)["xid_evicted"] == n - MAX_PENDING,
          f"calls: xid_evicted {an(rep)['xid_evicted']} != {n - MAX_PENDING}")
    check(rep["nfs3"]["ops"]["getattr"]["calls"] == n, "calls: getattr calls")
    bd = rep["breakdowns"]["file"]
    check(bd["distinct"] <= MAX_ROWS and bd["evicted"] > 0, f"calls: file rows {bd['distinct']} "
          f"evicted {bd['evicted']}")


def check_frags(rep, n):
    a = an(rep)
    # Every datagram is given up: evicted when the table is full, the last
    # MAX_FRAGS at the end of input (counted as expired).
    check(a["ipfrag_evicted"] + a["ipfrag_expired"] == n and a["ipfrag_expired"] == MAX_FRAGS,
          f"frags: ipfrag_evicted {a['ipfrag_evicted']} + expired {a['ipfrag_expired']} != {n}")
    # The first fragment carries the RPC header: each call is still counted.
    check(rep["rpc"]["calls"] == n and rep["rpc"]["unanswered_calls"] == n,
          f"frags: calls {rep['rpc']['calls']} unanswered {rep['rpc']['unanswered_calls']}")
    check(a["xid_evicted"] == n - MAX_PENDING, f"frags: xid_evicted {a['xid_evicted']}")


def check_record(rep, n):
    a = an(rep)
    check(rep["rpc"]["calls"] == 1, f"record: the call before the 2 GB mark ({rep['rpc']['calls']})")
    check(a["rpc_bad_mark"] >= 1, "record: rpc_bad_mark counted")
    check(a["rpc_skipped_bytes"] >= n * 1448 - 64 * KiB,
          f"record: rpc_skipped_bytes {a['rpc_skipped_bytes']} < {n * 1448}")


def check_recfrag(rep, n):
    a = an(rep)
    # 64 KiB fragments, never the last: the 256th would pass 16 MiB (rpc_max_msg).
    check(a["rpc_bad_mark"] >= 1, "recfrag: rpc_bad_mark counted")
    check(a["rpc_skipped_bytes"] >= (n - 256) * 65536,
          f"recfrag: rpc_skipped_bytes {a['rpc_skipped_bytes']}")
    check(rep["rpc"]["calls"] == 0, "recfrag: the endless record is never a call")


def check_conns(rep, n):
    a = an(rep)
    check(rep["rpc"]["calls"] == n and rep["rpc"]["unanswered_calls"] == n,
          f"conns: calls {rep['rpc']['calls']} unanswered {rep['rpc']['unanswered_calls']}")
    check(a["flow_evicted"] == n - MAX_FLOWS, f"conns: flow_evicted {a['flow_evicted']}")
    check(a["xid_evicted"] == n - MAX_PENDING, f"conns: xid_evicted {a['xid_evicted']}")
    bd = rep["breakdowns"]["client"]
    check(bd["distinct"] <= MAX_ROWS and bd["evicted"] > 0, f"conns: client rows {bd}")


def check_ooo(rep, n):
    a = an(rep)
    # 64 connections, each 1000 bytes ahead of the last: nothing is ever in
    # order. Each direction may hold 256 KiB (262 segments), the pool 8 MiB.
    check(a["tcp_ooo_overflow"] > 0, "ooo: tcp_ooo_overflow counted")
    check(a["tcp_gap"] > 0, "ooo: gaps declared")


def check_names(rep, n):
    bd = rep["breakdowns"]
    check(rep["nfs3"]["ops"]["lookup"]["calls"] == n and rep["rpc"]["replies"] == 2 * n,
          "names: LOOKUP calls and replies")
    check(bd["names_evicted"] == n - MAX_NAMES,
          f"names: names_evicted {bd['names_evicted']} != {n - MAX_NAMES}")
    check(bd["names_known"] <= MAX_NAMES, f"names: names_known {bd['names_known']}")
    for dim in ("client", "file", "pair", "user"):
        check(bd[dim]["distinct"] <= MAX_ROWS and bd[dim]["evicted"] > 0,
              f"names: {dim} rows {bd[dim]['distinct']} evicted {bd[dim]['evicted']}")


BD16_ROWS, BD16_NAMES = 16, 64


def check_bd16(rep, n):
    """The names flood (n LOOKUP + n GETATTR, 65,536 clients, n files) with 16
    rows per breakdown table and 64 names: every table still adds up to the
    totals, and the "other" row holds exactly what was evicted from it."""
    rpc, bd = rep["rpc"], rep["breakdowns"]
    check(rpc["calls"] == 2 * n and rpc["replies"] == 2 * n, f"bd16: calls {rpc['calls']}")
    check(bd["names_known"] == BD16_NAMES and bd["names_evicted"] == n - BD16_NAMES,
          f"bd16: names known {bd['names_known']} evicted {bd['names_evicted']}")
    errors = sum(p["errors"] for p in rep["nfs3"]["ops"].values())
    want = {"calls": rpc["calls"], "replies": rpc["replies"], "unanswered": 0, "errors": errors}
    for dim in ("client", "server", "pair", "export", "file", "user"):
        t = bd[dim]
        rows = t["rows"]
        check(t["distinct"] <= BD16_ROWS, f"bd16: {dim} distinct {t['distinct']}")
        for k, v in want.items():
            shown = sum(r[k] for r in rows)
            check(shown + t["other"][k] == v,
                  f"bd16: {dim} {k}: rows {shown} + other {t['other'][k]} != {v}")
        lat = sum(r["latency_us"]["count"] for r in rows) + t["other"]["latency_us"]["count"]
        check(lat == rpc["replies"], f"bd16: {dim} latencies {lat} != {rpc['replies']}")
    # 65,536 clients and n files (n + 1 handles) through 16 rows: most are out.
    for dim, distinct in (("client", min(n, 65536)), ("file", n + 1)):
        t = bd[dim]
        check(t["distinct"] == BD16_ROWS and t["evicted"] >= distinct - BD16_ROWS,
              f"bd16: {dim} distinct {t['distinct']} evicted {t['evicted']}")
        check(t["other"]["calls"] >= rpc["calls"] - sum(r["calls"] for r in t["rows"]) > 0,
              f"bd16: {dim} other row {t['other']['calls']}")


KINDS = {
    #  kind: (units at scale 1, tables filled, report check)
    "syn": (1000000, ["flows"], check_syn),
    "calls": (1000000, ["flows", "pending", "rows"], check_calls),
    "frags": (1000000, ["frags", "flows", "pending", "rows"], check_frags),
    "record": (700000, [], check_record),          # 1 GB of stream
    "recfrag": (16000, [], check_recfrag),         # 1 GB of stream in 64 KiB fragments
    "conns": (250000, ["flows", "pending", "rows"], check_conns),   # 1M packets
    "ooo": (1000000, ["ooo", "flows"], check_ooo),
    "names": (250000, ["flows", "names", "rows", "pending", "findings"], check_names),  # 1M pkts
    # the names flood through 16-row breakdown tables and 64 names
    "bd16": (250000, ["flows", "names", "rows", "pending", "findings"], check_bd16),
}

# Kinds that reuse another's capture with their own limits (after LIMITS: the
# last value of an option wins).
GEN = {"bd16": ("names", ["--max-rows", str(BD16_ROWS), "--max-names", str(BD16_NAMES),
                          "--top", "1000"])}


# The N/10 run must already fill the tables: 64 connections x 256 KiB ahead
# exceed the 8 MiB pool only after ~8,400 segments.
MIN_SMALL = {"ooo": 20000}


def main():
    tools = sys.argv[1:4]  # nfsscope, floodgen, rssrun
    args = sys.argv[4:]
    scale = 1.0
    if len(args) >= 2 and args[0] == "--scale":
        scale = float(args[1])
        args = args[2:]
    if os.environ.get("NFSSCOPE_FLOOD_SCALE"):
        scale = float(os.environ["NFSSCOPE_FLOOD_SCALE"])
    asan = "--asan" in args
    args = [a for a in args if a != "--asan"]
    kinds = args or list(KINDS)
    with tempfile.TemporaryDirectory(prefix="nfsscope-flood-") as work:
        for kind in kinds:
            full, tables, fn = KINDS[kind]
            big = max(int(full * scale), 2000)
            small = max(big // 10, MIN_SMALL.get(kind, 1000))
            r0, rss0, s0 = run(tools, kind, 0, work)
            r1, rss1, s1 = run(tools, kind, small, work)
            r2, rss2, s2 = run(tools, kind, big, work)
            budget = sum(TABLES[t] for t in tables) + SLACK
            if asan:
                budget = int(budget * ASAN_FACTOR)
            print(f"{kind}: N={small}: {r1['capture']['packets'] if r1 else '?'} packets "
                  f"{s1:.1f}s; N={big}: {r2['capture']['packets'] if r2 else '?'} packets "
                  f"{s2:.1f}s; peak RSS empty {rss0 / MiB:.1f} MiB, N/10 {rss1 / MiB:.1f} MiB, "
                  f"N {rss2 / MiB:.1f} MiB; budget over empty {budget / MiB:.1f} MiB "
                  f"({'+'.join(tables) or 'no table'})", flush=True)
            check(rss2 <= rss1 + max(2 * MiB, rss1 * 0.03),
                  f"{kind}: memory grows with N: {rss1 / MiB:.1f} MiB at {small}, "
                  f"{rss2 / MiB:.1f} MiB at {big}")
            check(rss2 - rss0 <= budget,
                  f"{kind}: {(rss2 - rss0) / MiB:.1f} MiB over an empty run > budget "
                  f"{budget / MiB:.1f} MiB")
            if r2:
                fn(r2, big)
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
