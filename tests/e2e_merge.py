#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""e2e_merge.py: `nfsscope merge` equals the report of the whole.

Each sample capture is split by connection (all packets of every other
connection, in order of first appearance, into A, the rest into B; pcapng
blocks are copied as they are, so timestamps are untouched): every call stays
with its reply, so the merge of the two halves' reports must equal the report
of the whole capture: rpc totals, capture packets/bytes/first_ts/last_ts,
anomalies, and per program and procedure calls, replies, errors, status map,
unanswered, retransmissions, bytes and latency count/min/max/mean/p50/p90/p99
and histogram; breakdown rows by key (calls, replies, errors, bytes) for
client, server, pair and user (export and file rows are labelled from names
learned on other connections: a split capture knows fewer of them). Also:
merging one report gives it back, -o text and -o csv work (strict CSV),
bad input is one line and exit 1, and so are reports with negative, too
large or non-numeric counts, sums past 2^64 - 1 and unknown schemas. The
text of a merge of two NFSv4 samples' reports has the NFSv4 tables
(COMPOUNDs per minor version, by kind, operations) with the sum of
tshark's counts over both captures.

usage: e2e_merge.py NFSSCOPE SAMPLES_DIR WORKDIR
"""
import csv
import io
import json
import os
import struct
import shutil
import subprocess
import sys
from collections import Counter

from checks import check, finish, skip_part


def conn_of(linktype, data):
    """A direction-free connection key for an Ethernet/raw IP frame, or None."""
    off = 0
    if linktype == 1:  # Ethernet, with VLAN tags
        if len(data) < 14:
            return None
        et = struct.unpack(">H", data[12:14])[0]
        off = 14
        while et in (0x8100, 0x88a8) and len(data) >= off + 4:
            et = struct.unpack(">H", data[off + 2:off + 4])[0]
            off += 4
    elif linktype == 113:  # Linux cooked
        et = struct.unpack(">H", data[14:16])[0]
        off = 16
    elif linktype in (101, 12):  # raw IP
        et = 0x0800 if data[0] >> 4 == 4 else 0x86dd
    else:
        return None
    if et == 0x0800:
        ihl = (data[off] & 15) * 4
        proto = data[off + 9]
        src, dst = data[off + 12:off + 16], data[off + 16:off + 20]
        l4 = off + ihl
    elif et == 0x86dd:
        proto = data[off + 6]
        src, dst = data[off + 8:off + 24], data[off + 24:off + 40]
        l4 = off + 40
    else:
        return None
    if proto not in (6, 17) or len(data) < l4 + 4:
        return (proto, tuple(sorted((src, dst))))
    sp, dp = struct.unpack(">HH", data[l4:l4 + 4])
    return (proto, tuple(sorted(((src, sp), (dst, dp)))))


def split(path, out_a, out_b):
    raw = open(path, "rb").read()
    order = {}
    a, b = bytearray(), bytearray()

    def side(key):
        if key is None:
            return a
        if key not in order:
            order[key] = len(order)
        return a if order[key] % 2 == 0 else b

    magic = struct.unpack("<I", raw[:4])[0]
    if magic == 0x0A0D0D0A:  # pcapng: copy SHB/IDB to both, EPBs to one
        bo = "<" if raw[8:12] == b"\x4d\x3c\x2b\x1a" else ">"
        links, k = [], 0
        while k + 12 <= len(raw):
            btype, blen = struct.unpack(bo + "II", raw[k:k + 8])
            blk = raw[k:k + blen]
            if btype == 1:
                links.append(struct.unpack(bo + "H", blk[8:10])[0])
            if btype == 6:
                ifid, _, _, caplen = struct.unpack(bo + "IIII", blk[8:24])
                side(conn_of(links[ifid], blk[28:28 + caplen])).extend(blk)
            elif btype == 3:
                a.extend(blk)
            else:
                a.extend(blk)
                b.extend(blk)
            k += blen
    else:  # classic pcap
        bo = "<" if magic in (0xa1b2c3d4, 0xa1b23c4d) else ">"
        link = struct.unpack(bo + "I", raw[20:24])[0]
        a.extend(raw[:24])
        b.extend(raw[:24])
        k = 24
        while k + 16 <= len(raw):
            caplen = struct.unpack(bo + "I", raw[k + 8:k + 12])[0]
            rec = raw[k:k + 16 + caplen]
            side(conn_of(link, rec[16:])).extend(rec)
            k += 16 + caplen
    open(out_a, "wb").write(a)
    open(out_b, "wb").write(b)
    return len(order)


def run(args):
    p = subprocess.run(args, capture_output=True, timeout=300)
    if p.returncode != 0:
        raise SystemExit("%r failed: %s" % (args, p.stderr.decode(errors="replace")))
    return p.stdout


OPKEYS = ("calls", "replies", "errors", "status", "unanswered", "retransmissions", "bytes",
          "rpc_errors", "latency_us", "histogram", "latency_sum_us")
BDKEYS = ("calls", "replies", "errors", "unanswered", "read_bytes", "write_bytes",
          "latency_total_us", "nfs3_calls", "write_stable")


def compare(name, whole, merged):
    check(merged["rpc"] == whole["rpc"], "%s: rpc %r != %r" % (name, merged["rpc"], whole["rpc"]))
    for k in ("packets", "bytes", "first_ts", "last_ts", "truncated_packets"):
        check(merged["capture"][k] == whole["capture"][k],
              "%s: capture.%s %r != %r" % (name, k, merged["capture"][k], whole["capture"][k]))
    check(merged["anomalies"] == whole["anomalies"], "%s: anomalies differ" % name)
    nops = 0
    for pname, pv in whole.items():
        if not (isinstance(pv, dict) and "ops" in pv):
            continue
        for proc, o in pv["ops"].items():
            m = merged[pname]["ops"][proc]
            for k in OPKEYS:
                if m.get(k) != o.get(k):
                    check(False, "%s: %s.%s.%s merged %r whole %r" % (name, pname, proc, k,
                                                                     m.get(k), o.get(k)))
            nops += o["calls"] > 0
        for k in ("write", "read", "io_sizes", "calls", "replies"):
            if k in pv:
                check(merged[pname][k] == pv[k], "%s: %s.%s differs" % (name, pname, k))
    check(nops > 3, "%s: %d procedures compared" % (name, nops))
    check(True, "%s: per-procedure compare done" % name)
    for dim, t in whole.get("breakdowns", {}).items():
        if not isinstance(t, dict) or "rows" not in t or dim in ("export", "file"):
            continue  # names: a MOUNT or LOOKUP on one connection names handles on another
        if t["evicted"] or len(t["rows"]) >= whole["breakdowns"]["top"]:
            continue  # the top-N cut differs by half: only complete tables compare
        mrows = {r["key"]: r for r in merged["breakdowns"][dim]["rows"]}
        for r in t["rows"]:
            m = mrows.get(r["key"])
            bad = [k for k in BDKEYS if not m or m[k] != r[k]]
            check(not bad, "%s: breakdown %s row %r: %r" % (name, dim, r["key"], bad))
            if m:
                for k in ("count", "min", "max"):
                    check(m["latency_us"][k] == r["latency_us"][k],
                          "%s: breakdown %s row %r latency %s" % (name, dim, r["key"], k))


def check_refused(nfsscope, samples, work):
    """Reports merge refuses, each with one line naming the member, exit 1:
    a negative, too large or non-numeric count, a sum past 2^64 - 1, a
    schema from another version or none. The hostile text is written by
    hand so that numbers Python could not write (1e400) are in it too."""
    good = run([nfsscope, "-o", "json", "-r", os.path.join(samples, "all-ops.pcap")]).decode()
    rep = json.loads(good)
    reads = rep["nfs3"]["ops"]["read"]["calls"]
    lo = rep["nfs3"]["ops"]["read"]["histogram"][0][0]
    hostile = {
        "negative": ('"read": {\n        "calls": %d,' % reads,
                     '"read": {\n        "calls": -%d,' % reads, "nfs3.ops.read.calls"),
        "2^64": ('"read": {\n        "calls": %d,' % reads,
                 '"read": {\n        "calls": 18446744073709551616,', "nfs3.ops.read.calls"),
        "string": ('"rpc": {\n    "calls": %d,' % rep["rpc"]["calls"],
                   '"rpc": {\n    "calls": "%d",' % rep["rpc"]["calls"], "rpc.calls"),
        "boolean": ('"rpc": {\n    "calls": %d,' % rep["rpc"]["calls"],
                    '"rpc": {\n    "calls": true,', "rpc.calls"),
        "1e400": ('"rpc": {\n    "calls": %d,' % rep["rpc"]["calls"],
                  '"rpc": {\n    "calls": 1e400,', "rpc.calls"),
        "sum": ('"read": {\n        "calls": %d,' % reads,
                '"read": {\n        "calls": 18446744073709551615,', "nfs3.ops.read.calls"),
        "histogram sum": ('"histogram": [\n          [\n            %d,\n            1\n' % lo,
                          '"histogram": [\n          [\n            %d,\n'
                          '            18446744073709551615\n' % lo, "histogram[0][1]"),
        "schema 2": ('"schema": "nfsscope/1"', '"schema": "nfsscope/2"', "nfsscope/2"),
        "no schema": ('"schema": "nfsscope/1",', '', '"schema"'),
    }
    ok = os.path.join(work, "ok.json")
    open(ok, "w").write(good)
    for name, (old, new, what) in hostile.items():
        check(old in good, "refused %s: the report has %r" % (name, old))
        path = os.path.join(work, "hostile.json")
        open(path, "w").write(good.replace(old, new, 1))
        p = subprocess.run([nfsscope, "merge", ok, path], capture_output=True, timeout=60)
        err = p.stderr.decode(errors="replace")
        check(p.returncode == 1 and err.count("\n") == 1 and what in err and not p.stdout,
              "refused %s: rc %d, stdout %d bytes, stderr %r" % (name, p.returncode,
                                                                len(p.stdout), err))


def tshark_nfs4(path):
    """tshark's NFSv4 counts of one capture: COMPOUND calls and replies per
    minor version, COMPOUNDs by main operation (its name), and per operation its occurrences in calls, results
    in replies and error results."""
    names = {}
    for line in subprocess.run(["tshark", "-G", "values"], capture_output=True, text=True,
                               check=True).stdout.splitlines():
        f = line.split("\t")
        if len(f) == 4 and f[0] == "V" and f[1] == "nfs.opcode":
            names[int(f[2])] = f[3].lower()
    out = subprocess.run(["tshark", "-n", "-r", path, "-Y", "nfs && rpc.procedure==1", "-T",
                          "fields", "-e", "rpc.xid", "-e", "rpc.msgtyp", "-e", "nfs.minorversion",
                          "-e", "nfs.main_opcode", "-e", "nfs.opcode", "-e", "nfs.nfsstat4"],
                         capture_output=True, text=True, check=True).stdout
    c = Counter()
    minor = {}
    for line in out.splitlines():
        xids, typ, mv, main, ops, st = (x.split(",") for x in line.split("\t"))
        ops = [names[int(o)] for o in ops if o]
        st = [int(x) for x in st if x]
        if len(xids) > 1:  # several messages in a frame: ops add up, statuses must all be OK
            check(all(x == 0 for x in st), "%s: a frame of several replies, all NFS4_OK" % path)
        for o in ops:
            c[("count" if typ[0] == "0" else "results", o)] += 1
        if typ[0] == "0":
            mains = [int(m) for m in main if m]
            for i, xid in enumerate(xids):
                minor[xid] = mv[i]
                c[("calls", mv[i])] += 1
                if len(xids) > 1:
                    c[("kind", names[mains[i]])] += 1
                else:  # tshark names the main operation at each of its occurrences
                    check(len(set(mains)) == 1, "%s: one main operation %r" % (path, mains))
                    c[("kind", names[mains[0]])] += 1
        else:
            for xid in xids:
                c[("replies", minor.get(xid))] += 1
            if len(xids) == 1:
                for o, x in zip(ops, st[1:]):
                    c[("errors", o)] += x != 0
    return c


def merged_nfs4(text):
    """The same counts from the merge's text tables."""
    c, table = Counter(), None
    for line in text.splitlines():
        f = line.split()
        if not f:
            continue
        if line.startswith(("COMPOUNDs by kind", "operations")):
            # per minor version after the totals: only the totals are compared
            table = "skip" if " in v4." in line else None
        elif f[0] in ("COMPOUND", "kind", "op") and table != "skip":
            table = f[0]
        elif table == "COMPOUND" and f[0].startswith("v4."):
            c[("calls", f[0][3:])] += int(f[1])
            c[("replies", f[0][3:])] += int(f[2])
        elif table == "kind" and len(f) == 8:
            c[("kind", f[0])] += int(f[1])
        elif table == "op" and len(f) == 9:
            c[("count", f[0])] += int(f[1])
            c[("results", f[0])] += int(f[2])
            c[("errors", f[0])] += int(f[4])
    return c


def check_nfs4_text(nfsscope, samples, work):
    if not shutil.which("tshark"):
        skip_part("tshark not installed: the NFSv4 merge text against tshark", ci_required=True)
        return
    js, want = [], Counter()
    for s in ("nfs41-session.pcap", "nfs42-ops.pcap"):
        src = os.path.join(samples, s)
        j = os.path.join(work, s + ".json")
        open(j, "wb").write(run([nfsscope, "-o", "json", "-r", src]))
        js.append(j)
        want.update(tshark_nfs4(src))
    text = run([nfsscope, "merge", "-o", "text"] + js).decode()
    got = merged_nfs4(text)
    want = Counter({k: v for k, v in want.items() if v})
    got = Counter({k: v for k, v in got.items() if v})
    check(("calls", "2") in want and ("calls", "1") in want, "nfs4 merge: two minor versions")
    check(got == want, "nfs4 merge text: %r" % sorted(map(str, set(got.items()) ^ set(want.items()))))


def main():
    nfsscope, samples, work = sys.argv[1:4]
    os.makedirs(work, exist_ok=True)
    for s in ("multi-client.pcapng", "ls-storm.pcap", "all-ops.pcap"):
        src = os.path.join(samples, s)
        pa, pb = os.path.join(work, "A-" + s), os.path.join(work, "B-" + s)
        nconn = split(src, pa, pb)
        check(nconn >= 2, "%s: %d connections to split" % (s, nconn))
        ja, jb = pa + ".json", pb + ".json"
        for p, j in ((pa, ja), (pb, jb)):
            open(j, "wb").write(run([nfsscope, "-o", "json", "-r", p]))
        whole = json.loads(run([nfsscope, "-o", "json", "-r", src]))
        ra, rb = json.load(open(ja)), json.load(open(jb))
        check(ra["rpc"]["calls"] > 0 and rb["rpc"]["calls"] > 0,
              "%s: both halves have calls (%d, %d)" % (s, ra["rpc"]["calls"], rb["rpc"]["calls"]))
        merged = json.loads(run([nfsscope, "merge", "-o", "json", ja, jb]))
        compare(s, whole, merged)
        merged3 = json.loads(run([nfsscope, "merge", "-o", "json", jb, ja]))
        compare(s + " (B A)", whole, merged3)
        one = json.loads(run([nfsscope, "merge", "-o", "json", ja]))
        ra.pop("findings", None)
        check(one == ra, "%s: merge of one report is that report" % s)
        text = run([nfsscope, "merge", "-o", "text", ja, jb]).decode()
        check("getattr" in text or "lookup" in text, "%s: text output names procedures" % s)
        check(run([nfsscope, "merge", ja, jb]).decode() == text,
              "%s: text is the default, as for the report" % s)
        # one report merged: the report's own CSV, header and rows
        check(run([nfsscope, "merge", "-o", "csv", ja]) ==
              run([nfsscope, "-o", "csv", "-r", pa]),
              "%s: merge -o csv of one report = that capture's -o csv" % s)
        rows = list(csv.reader(io.StringIO(run([nfsscope, "merge", "-o", "csv", ja, jb]).decode(),
                                           newline=""), strict=True))
        check(rows and all(len(r) == len(rows[0]) for r in rows), "%s: csv widths" % s)
        tot = sum(int(r[2]) for r in rows[1:])
        want = sum(o["calls"] for pv in whole.values() if isinstance(pv, dict) and "ops" in pv
                   for o in pv["ops"].values())
        check(tot == want, "%s: csv calls %d, report %d" % (s, tot, want))
    check_refused(nfsscope, samples, work)
    check_nfs4_text(nfsscope, samples, work)
    bad = os.path.join(work, "bad.json")
    open(bad, "w").write("{\"schema\": ")
    p = subprocess.run([nfsscope, "merge", bad], capture_output=True, timeout=60)
    check(p.returncode == 1 and p.stderr.count(b"\n") == 1, "bad input: rc %d %r" %
          (p.returncode, p.stderr))
    p = subprocess.run([nfsscope, "merge"], capture_output=True, timeout=60)
    check(p.returncode == 2, "no input: rc %d" % p.returncode)
    p = subprocess.run([nfsscope, "merge", "-o", "xml", bad], capture_output=True, timeout=60)
    check(p.returncode == 2, "-o xml: rc %d" % p.returncode)
    return finish()


if __name__ == "__main__":
    sys.exit(main())
