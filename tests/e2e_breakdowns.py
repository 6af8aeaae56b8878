#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""e2e_breakdowns.py: per-client, per-server, per-file ... numbers on the real
samples add up exactly to the totals, each client's and each server's row of
a multi-client sample equals what that client itself recorded sending and
getting back (NAME.expect.json "per_client", written by samples/nfsgen.c),
the top files of the ls -l storm carry their real names, and a 16-row table
still adds up with a visible "other" row.

usage: e2e_breakdowns.py NFSSCOPE SAMPLES_DIR
"""
import json
import os
import subprocess
import sys

DIMS = ["client", "server", "pair", "export", "file", "user"]
from checks import check, finish


def report(nfsscope, path, *args):
    p = subprocess.run([nfsscope, "-o", "json", "-r", path, *args], capture_output=True,
                       timeout=300)
    check(p.returncode == 0, f"{path}: exit {p.returncode} {p.stderr!r}")
    return json.loads(p.stdout)


def io_bytes(rep, what):
    """READ or WRITE bytes of every program that reports them (NFSv3, NFSv4)."""
    return sum(v[what]["bytes"] for k, v in rep.items()
               if isinstance(v, dict) and isinstance(v.get(what), dict) and "bytes" in v[what])


def adds_up(name, rep):
    rpc, b = rep["rpc"], rep["breakdowns"]
    # Orphan replies have no call, so no client; every other reply has one.
    want = {"calls": rpc["calls"], "replies": rpc["replies"] - rpc["orphan_replies"],
            "unanswered": rpc["unanswered_calls"]}
    for dim in DIMS:
        t = b[dim]
        for k, v in want.items():
            got = sum(r[k] for r in t["rows"]) + t["other"][k]
            check(got == v, f"{name}: {dim} {k} add up to {got}, total {v}")
        check(len(t["rows"]) == min(t["distinct"], b["top"]), f"{name}: {dim} rows shown")
    w = sum(r["write_bytes"] for r in b["file"]["rows"]) + b["file"]["other"]["write_bytes"]
    check(w == io_bytes(rep, "write"), f"{name}: file write bytes {w}")
    rd = sum(r["read_bytes"] for r in b["client"]["rows"]) + b["client"]["other"]["read_bytes"]
    check(rd == io_bytes(rep, "read"), f"{name}: client read bytes {rd}")


def per_client(name, rep, expect):
    """Each generating client's own record against its client row and the row
    of the server address it talked to (one server address per client)."""
    b = rep["breakdowns"]
    rows = {dim: {r["key"]: r for r in b[dim]["rows"]} for dim in ("client", "server")}
    check(b["client"]["distinct"] == len(expect), f"{name}: {b['client']['distinct']} client rows,"
          f" {len(expect)} clients")
    for c in expect:
        for dim, key in (("client", c["address"]), ("server", c["server"])):
            r = rows[dim].get(key)
            if not check(r is not None, f"{name}: no {dim} row {key}"):
                continue
            for k in ("calls", "replies", "errors", "nfs3_calls", "read_bytes", "write_bytes",
                      "write_stable"):
                check(r[k] == c[k], f"{name}: {dim} {key} {k} {r[k]}, the client recorded {c[k]}")
            check(r["unanswered"] == c["calls"] - c["replies"], f"{name}: {dim} {key} unanswered")


def timeline_and_sizes(name, rep):
    """The timeline and the READ/WRITE size histograms add up to the totals."""
    tl, rpc, n3 = rep["timeline"], rep["rpc"], rep["nfs3"]
    calls = sum(b["calls"] for b in tl["buckets"])
    check(calls == rpc["calls"], f"{name}: timeline calls {calls} != {rpc['calls']}")
    rb = sum(b["read_bytes"] for b in tl["buckets"])
    check(rb == io_bytes(rep, "read"), f"{name}: timeline read bytes {rb}")
    wb = sum(b["write_bytes"] for b in tl["buckets"])
    check(wb == io_bytes(rep, "write"), f"{name}: timeline write bytes {wb}")
    check(len(tl["buckets"]) <= 512, f"{name}: timeline bounded")
    writes = sum(b["count"] for b in n3["io_sizes"]["write"])
    check(writes == sum(n3["write"]["stable"].values()), f"{name}: write sizes {writes}")
    reads = sum(b["count"] for b in n3["io_sizes"]["read"])
    ok_reads = n3["ops"]["read"]["replies"] - n3["ops"]["read"]["errors"]
    check(reads <= ok_reads, f"{name}: read sizes {reads} > {ok_reads}")


def renames(nfsscope, d):
    """all-ops: LINK f1 -> hl, RENAME hl -> hl2 (RFC 1813 §3.3.15, §3.3.14),
    then a READDIR of the file (NOTDIR). Each call's record carries the path
    its handle had when it was answered: the name follows LINK and RENAME.
    The READDIRPLUS listing after that shows hl2 then f1, so the report's file
    row ends up under the latest name seen, f1."""
    import tempfile
    with tempfile.TemporaryDirectory() as tmp:
        recf = os.path.join(tmp, "rec.jsonl")
        rep = report(nfsscope, os.path.join(d, "all-ops.pcap"), "--top", "1000000",
                     "--records", recf, "--records-format", "jsonl")
        with open(recf) as f:
            recs = [json.loads(line) for line in f]
    links = [r for r in recs if r["procedure"] == "link"]
    check(len(links) == 2, f"all-ops: 2 LINK records, got {len(links)}")
    if len(links) != 2:
        return
    fh = links[0]["fh"]
    check(links[0]["path"].endswith("/all-ops/f1"), f"all-ops: LINK of f1: {links[0]['path']}")
    # The second LINK (EXIST) acts on the same file, now known by its link name.
    check(links[1]["path"].endswith("/all-ops/hl"), f"all-ops: after LINK: {links[1]['path']}")
    notdir = [r for r in recs if r["procedure"] == "readdir" and r["fh"] == fh]
    check(len(notdir) == 1 and notdir[0]["status"] == "NFS3ERR_NOTDIR",
          f"all-ops: READDIR of the file: {notdir}")
    check(all(r["path"].endswith("/all-ops/hl2") for r in notdir),
          f"all-ops: after RENAME hl -> hl2: {[r['path'] for r in notdir]}")
    last = [r for r in recs if r["fh"] == fh][-1]
    rows = [r["key"] for r in rep["breakdowns"]["file"]["rows"]]
    check(last["path"].endswith("/all-ops/f1") and last["path"] in rows,
          f"all-ops: the file's row is under its latest name {last['path']}: {rows}")


# NLM calls the lock server sends back to the lock client (RFC 1813
# Appendix II): GRANTED, GRANTED_MSG and TEST/LOCK/CANCEL/UNLOCK_RES.
NLM_CALLBACKS = {"5", "10", "11", "12", "13", "14"}


def callback_roles(nfsscope, d):
    """On nlm-blocked, per tshark, each RPC call counts for the host that sent
    it, but an NLM callback counts for the host it was sent to: the client
    whose lock was granted, whoever opened the connection."""
    path = os.path.join(d, "nlm-blocked.pcap")
    try:
        p = subprocess.run(["tshark", "-r", path, "-Y", "rpc.msgtyp == 0", "-T", "fields",
                            "-e", "ip.src", "-e", "ip.dst", "-e", "rpc.program",
                            "-e", "rpc.procedure"], capture_output=True, text=True, timeout=300)
    except FileNotFoundError:
        check(False, "tshark is needed for the NLM callback roles")
        return
    want, callbacks = {}, 0
    for line in p.stdout.splitlines():
        src, dst, prog, proc = line.split("\t")
        cb = prog == "100021" and proc in NLM_CALLBACKS
        callbacks += cb
        key = dst if cb else src
        want[key] = want.get(key, 0) + 1
    check(callbacks >= 1, f"nlm-blocked: tshark sees {callbacks} NLM callbacks")
    rep = report(nfsscope, path, "--top", "1000")
    got = {r["key"]: r["calls"] for r in rep["breakdowns"]["client"]["rows"]}
    check(got == want, f"nlm-blocked: calls per client {got}, tshark {want}")


def main():
    nfsscope, d = sys.argv[1], sys.argv[2]
    samples = sorted(f for f in os.listdir(d)
                     if f.endswith((".pcap", ".pcapng")) and not f.startswith("."))
    clients_checked = 0
    for f in samples:
        rep = report(nfsscope, os.path.join(d, f), "--top", "1000000")
        adds_up(f, rep)
        timeline_and_sizes(f, rep)
        exp = os.path.join(d, f.rsplit(".", 1)[0] + ".expect.json")
        if os.path.exists(exp):
            with open(exp) as fp:
                pc = json.load(fp).get("per_client")
            if pc:
                per_client(f, rep, pc)
                clients_checked += len(pc)
    check(clients_checked >= 4, f"per-client records compared: {clients_checked} (multi-client has 4)")

    storm = os.path.join(d, "ls-storm.pcap")
    rep = report(nfsscope, storm, "--top", "10")
    files = rep["breakdowns"]["file"]["rows"]
    # Every handle of the top 10 has its real full path (the export is learned
    # from MNT, the entries from LOOKUP), apart from the calls with no handle;
    # most of them are the listed files.
    keyed = [r["key"] for r in files if r["key"] != "(none)"]
    check(all(k.startswith("/") for k in keyed), f"ls-storm: top files carry full paths: {keyed}")
    named = [k for k in keyed if "/lsdir/file-" in k and k.endswith(".txt")]
    check(len(named) >= 5, f"ls-storm: top files are the listed files: {keyed}")
    check(any("lsdir" in r["key"] for r in files), "ls-storm: the listed directory is named")

    renames(nfsscope, d)
    callback_roles(nfsscope, d)

    # 16 rows per table on 1,000+ files: still adds up; "other" holds the rest.
    small = report(nfsscope, storm, "--max-rows", "16", "--top", "100")
    adds_up("ls-storm --max-rows 16", small)
    t = small["breakdowns"]["file"]
    check(t["distinct"] == 16 and t["evicted"] > 900, f"16-row file table: {t['distinct']}, "
          f"evicted {t['evicted']}")
    check(t["other"]["calls"] > 0, "16-row file table: other row has calls")
    p = subprocess.run([nfsscope, "-r", storm, "--max-rows", "16", "--by", "file"],
                       capture_output=True, timeout=300)
    check(b"(other: " in p.stdout, "text report shows the other row")

    return finish()


if __name__ == "__main__":
    sys.exit(main())
