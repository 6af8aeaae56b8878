#!/usr/bin/env python3
"""e2e_samples.py: nfsscope on every real-traffic sample in samples/.

Each sample NAME.pcap[ng] has beside it
  NAME.expect.json  what the generating client recorded that it sent and got
                    back (samples/nfsgen.c), and
  NAME.truth.json   tshark's decoding (tests/truth-from-tshark).
nfsscope's NFSv3 per-procedure calls, replies and error statuses, WRITE
stable_how and committed counts, READ/WRITE bytes must equal both; its
latency count, min and max must equal tshark's rpc.time (to the microsecond),
its mean to rounding, and its p50/p90/p99 must lie within the histogram's
error (3.2 %) of tshark's exact nearest-rank percentiles.

usage: e2e_samples.py NFSSCOPE SAMPLES_DIR
"""
import hashlib
import json
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
        for k in ("min", "max"):
            if abs(lat[k] - tl[k]) > 1:
                fail(f"{name}: {proc} latency {k} {lat[k]} != tshark {tl[k]}")
        if abs(lat["mean"] - tl["mean"]) > 1:
            fail(f"{name}: {proc} latency mean {lat['mean']} != tshark {tl['mean']}")
        for k in ("p50", "p90", "p99"):
            if abs(lat[k] - tl[k]) > 1 + 0.032 * tl[k]:
                fail(f"{name}: {proc} latency {k} {lat[k]} not within 3.2% of tshark {tl[k]}")


def main():
    nfsscope, d = sys.argv[1], sys.argv[2]
    names = sorted(f for f in os.listdir(d)
                   if f.endswith((".pcap", ".pcapng")) and not f.startswith("."))
    if not names:
        print(f"FAIL no samples in {d}")
        return 1
    for f in names:
        name = f.rsplit(".", 1)[0]
        p = subprocess.run([nfsscope, "-o", "json", "-r", os.path.join(d, f)],
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
        compare_counts(name, "generator", rep, expect)
        compare_counts(name, "tshark", rep, truth)
        compare_latency(name, rep, truth)
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
