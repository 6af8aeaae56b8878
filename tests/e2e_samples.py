#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""e2e_samples.py: nfsscope on every real-traffic sample in samples/.

Each sample NAME.pcap[ng] has beside it
  NAME.expect.json  what the generating client recorded that it sent and got
                    back (samples/nfsgen.c; nfs4gen.c and pynfsgen for NFSv4), and
  NAME.truth.json   tshark's decoding (tests/truth-from-tshark).
nfsscope's NFSv3 per-procedure calls, replies and error statuses, WRITE
stable_how and committed counts, READ/WRITE bytes must equal both; its
latency count, min and max must equal tshark's rpc.time (rounded to the microsecond),
its mean to rounding, and its p50/p90/p99 must lie within the histogram's
error (3.2 %) of tshark's exact nearest-rank percentiles.
An NFSv4 sample (its expect file has an "nfs4" object and no "nfs3": made by
samples/nfs4gen.c or samples/pynfsgen) must show no NFSv3 at all and the
same RPC totals as tshark and the generator; its per-operation NFSv4 view
is not compared here (each such sample says so in the output).
The other programs are checked the same way: the MOUNT, portmap/rpcbind and
NLM calls the generator recorded ("mount" -> mount3, "portmap" version 2 ->
portmap2, version 3 -> rpcbind3, "nlm4" -> nlm4) and every program tshark lists that
nfsscope decodes (calls, replies, error statuses, latency; a program tshark
does not list must have no calls).

usage: e2e_samples.py NFSSCOPE SAMPLES_DIR [NFSSCOPE_OPTION...]
  NFSSCOPE_OPTION: added to every run (--threads 3 --no-findings: the
  connections on three decoding threads)
"""
import hashlib
import json
import math
import os
import subprocess
import sys

failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL " + msg)


def errors_only(status):
    return {k: v for k, v in (status or {}).items() if k != "NFS3_OK"}


def compare_counts(name, who, rep, ref):
    ops, rops = rep["nfs3"]["ops"], ref["nfs3"]["ops"]
    for proc, o in ops.items():
        r = rops.get(proc, {"calls": 0, "replies": 0, "status": {}})
        for k in ("calls", "replies"):
            if o[k] != r[k]:
                fail(f"{name}: {proc} {k} {o[k]} != {who} {r[k]}")
        if o["status"] != errors_only(r.get("status")):
            fail(f"{name}: {proc} statuses {o['status']} != {who} {errors_only(r.get('status'))}")
    rw, ow = ref["nfs3"].get("write"), rep["nfs3"]["write"]
    if rw:
        for k in ("stable", "committed", "bytes"):
            if k in rw and ow[k] != rw[k]:
                fail(f"{name}: write {k} {ow[k]} != {who} {rw[k]}")
    rr = ref["nfs3"].get("read")
    if rr and "bytes" in rr and rep["nfs3"]["read"]["bytes"] != rr["bytes"]:
        fail(f"{name}: read bytes {rep['nfs3']['read']['bytes']} != {who} {rr['bytes']}")


def compare_no_nfs3(name, rep):
    """An NFSv4-only sample: nfsscope must count no NFSv3 call or reply."""
    for proc, o in rep["nfs3"]["ops"].items():
        if o["calls"] or o["replies"]:
            fail(f"{name}: NFSv4 sample, yet nfsscope counts {o['calls']} NFSv3 {proc} calls")


def us(t):
    """tshark's rpc.time in microseconds (fractional on nanosecond captures),
    rounded half up to the whole microsecond nfsscope reports."""
    return math.floor(t + 0.5)


def compare_latency(name, rep, truth):
    for proc, o in rep["nfs3"]["ops"].items():
        t = truth["nfs3"]["ops"].get(proc)
        lat = o["latency_us"]
        if not t or not t.get("latency_us") or not t["latency_us"].get("count"):
            if lat["count"]:
                fail(f"{name}: {proc} has {lat['count']} latencies, tshark none")
            continue
        tl = t["latency_us"]
        if lat["count"] != tl["count"]:
            fail(f"{name}: {proc} latency count {lat['count']} != tshark {tl['count']}")
            continue
        for k in ("min", "max"):  # exact values: the same microsecond
            if lat[k] != us(tl[k]):
                fail(f"{name}: {proc} latency {k} {lat[k]} != tshark {tl[k]}")
        if abs(lat["mean"] - tl["mean"]) > 1:
            fail(f"{name}: {proc} latency mean {lat['mean']} != tshark {tl['mean']}")
        for k in ("p50", "p90", "p99"):
            if abs(lat[k] - tl[k]) > 1 + 0.032 * tl[k]:
                fail(f"{name}: {proc} latency {k} {lat[k]} not within 3.2% of tshark {tl[k]}")


# truth-from-tshark's label and version of a program -> nfsscope's program.
OTHER_PROGRAMS = {
    ("100003", "2"): "nfs2",
    ("mount", "1"): "mount1", ("mount", "2"): "mount2", ("mount", "3"): "mount3",
    ("portmap", "2"): "portmap2", ("portmap", "3"): "rpcbind3", ("portmap", "4"): "rpcbind4",
    ("100021", "1"): "nlm1", ("100021", "3"): "nlm3", ("100021", "4"): "nlm4",
    ("100024", "1"): "nsm1", ("100227", "2"): "nfsacl2", ("100227", "3"): "nfsacl3",
}
# The generator's record: "mount" is MOUNT v3; portmap ops carry their version;
# "nlm4" is NLM v4.
GEN_PORTMAP = {2: "portmap2", 3: "rpcbind3", 4: "rpcbind4"}
GEN_PROGRAMS = {"nlm4": "nlm4"}
# success statuses, which nfsscope does not list among a procedure's statuses
SUCCESS = ("MNT3_OK", "NFS_OK", "NFS3_OK", "NLM4_GRANTED", "LCK_GRANTED")


def other_errors_only(status):
    return {k: v for k, v in (status or {}).items() if k not in SUCCESS}


def compare_other_generator(name, rep, expect):
    want = {}
    for proc, r in ((expect.get("mount") or {}).get("ops") or {}).items():
        want.setdefault("mount3", {})[proc] = r
    for proc, r in ((expect.get("portmap") or {}).get("ops") or {}).items():
        prog = GEN_PORTMAP.get(r.get("version"))
        if not prog:
            fail(f"{name}: generator portmap {proc} version {r.get('version')} is not decoded")
            continue
        want.setdefault(prog, {})[proc] = r
    for sect, prog in GEN_PROGRAMS.items():
        for proc, r in ((expect.get(sect) or {}).get("ops") or {}).items():
            want.setdefault(prog, {})[proc] = r
    for prog, procs in want.items():
        ops = rep[prog]["ops"]
        for proc, r in procs.items():
            o = ops.get(proc)
            if o is None:
                fail(f"{name}: {prog} has no procedure {proc}")
                continue
            for k in ("calls", "replies"):
                if o[k] != r[k]:
                    fail(f"{name}: {prog} {proc} {k} {o[k]} != generator {r[k]}")
            if "status" in r and o["status"] != other_errors_only(r["status"]):
                fail(f"{name}: {prog} {proc} statuses {o['status']} != generator"
                     f" {other_errors_only(r['status'])}")


def compare_other_truth(name, rep, truth):
    tables = {}
    for label, entry in (truth.get("other_programs") or {}).items():
        for vers, v in entry["versions"].items():
            prog = OTHER_PROGRAMS.get((label, vers))
            if prog:
                tables[prog] = v["ops"]
    for prog in sorted(set(OTHER_PROGRAMS.values())):
        ops = rep[prog]["ops"]
        names = list(ops)  # in procedure order; truth-from-tshark names others procN
        table = {}
        for proc, t in (tables.get(prog) or {}).items():
            if proc.startswith("proc") and proc[4:].isdigit() and int(proc[4:]) < len(names):
                proc = names[int(proc[4:])]
            table[proc] = t
        for proc in sorted(set(table) - set(ops)):
            fail(f"{name}: {prog}: tshark lists {proc}, which nfsscope does not name")
        for proc, o in ops.items():
            t = table.get(proc) or {"calls": 0, "replies": 0, "status": {}, "latency_us": None}
            for k in ("calls", "replies"):
                if o[k] != t[k]:
                    fail(f"{name}: {prog} {proc} {k} {o[k]} != tshark {t[k]}")
            if o["status"] != other_errors_only(t.get("status")):
                fail(f"{name}: {prog} {proc} statuses {o['status']} != tshark"
                     f" {other_errors_only(t.get('status'))}")
            tl, lat = t.get("latency_us") or {}, o["latency_us"]
            if lat["count"] != (tl.get("count") or 0):
                fail(f"{name}: {prog} {proc} latency count {lat['count']} != tshark"
                     f" {tl.get('count') or 0}")
            elif lat["count"]:
                for k in ("min", "max"):  # exact values: the same microsecond
                    if lat[k] != us(tl[k]):
                        fail(f"{name}: {prog} {proc} latency {k} {lat[k]} != tshark {tl[k]}")
                if abs(lat["mean"] - tl["mean"]) > 1:
                    fail(f"{name}: {prog} {proc} latency mean {lat['mean']} != tshark {tl['mean']}")


def main():
    nfsscope, d, extra = sys.argv[1], sys.argv[2], sys.argv[3:]
    names = sorted(f for f in os.listdir(d)
                   if f.endswith((".pcap", ".pcapng")) and not f.startswith("."))
    if not names:
        print(f"FAIL no samples in {d}")
        return 1
    for f in names:
        name = f.rsplit(".", 1)[0]
        p = subprocess.run([nfsscope, "-o", "json", "-r", os.path.join(d, f), *extra],
                           capture_output=True, timeout=300)
        if p.returncode != 0:
            fail(f"{name}: exit {p.returncode}: {p.stderr.decode(errors='replace').strip()}")
            continue
        rep = json.loads(p.stdout)
        expect = json.load(open(os.path.join(d, name + ".expect.json")))
        truth = json.load(open(os.path.join(d, name + ".truth.json")))
        sha = hashlib.sha256(open(os.path.join(d, f), "rb").read()).hexdigest()
        if truth.get("sha256") != sha:
            fail(f"{name}: {name}.truth.json was made from another capture (sha256 differs):"
                 " rerun tests/truth-from-tshark")
            continue
        if "nfs3" in expect:
            compare_counts(name, "generator", rep, expect)
        elif "nfs4" in expect:
            compare_no_nfs3(name, rep)
            for k in ("calls", "replies"):
                if rep["rpc"][k] != expect["rpc"][k]:
                    fail(f"{name}: rpc {k} {rep['rpc'][k]} != generator {expect['rpc'][k]}")
            print(f"{name}: NFSv4 sample: no NFSv3 and the RPC totals checked; its NFSv4"
                  " operations are not compared here")
        else:
            fail(f"{name}: {name}.expect.json has neither an nfs3 nor an nfs4 record")
            continue
        compare_counts(name, "tshark", rep, truth)
        compare_latency(name, rep, truth)
        compare_other_generator(name, rep, expect)
        compare_other_truth(name, rep, truth)
        for k in ("calls", "replies"):
            if rep["rpc"][k] != truth["rpc"][k]:
                fail(f"{name}: rpc {k} {rep['rpc'][k]} != tshark {truth['rpc'][k]}")
        if rep["rpc"]["orphan_replies"] or rep["rpc"]["unanswered_calls"]:
            fail(f"{name}: clean capture has orphans or unanswered calls: {rep['rpc']}")
    bad = {f.split(":")[0] for f in failures}
    print(f"{len(names) - len(bad)} passed, {len(bad)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
