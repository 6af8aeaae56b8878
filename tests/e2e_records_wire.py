#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""e2e_records_wire.py: the --records columns that point back at the wire.

    e2e_records_wire.py NFSSCOPE SAMPLES_DIR PUBLIC_DIR WORK_DIR

On every sample and every public capture (bz2 ones through `bzcat | -r -`):

- community_id: recomputed for every row from its client, server, ports
  and transport with Python's hashlib, as the Community ID v1 spec says
  (seed 0; the smaller address, or for equal addresses the smaller port,
  first), must equal the column.
- call_frame / reply_frame: tshark, reading the same input, must show an
  RPC call (rpc.msgtyp 0) with the row's XID in frame call_frame, and a
  reply with it in frame reply_frame (`tshark -Y frame.number==N` finds the
  packet). Rows whose frame nfsscope leaves empty (a message completed by
  no frame: flushed at the end, or rebuilt from a lost datagram's first
  fragment) are counted and must be rare; on the samples there are none.
- name: for NFSv3 calls that carry a name (LOOKUP CREATE MKDIR SYMLINK
  MKNOD REMOVE RMDIR RENAME LINK) and MOUNT MNT, the column is one of the
  names (nfs.name, mount.path) tshark decodes in the call's frame (its
  first 255 bytes).
- retransmissions: the calls tshark sees with the row's XID on the same
  connection after call_frame and before reply_frame (any time for an
  unanswered call) is the column.

Then: several -r files number their frames as `mergecap -w` merges them
(time order), checked with tshark on the merged file; a BPF filter does not
renumber (frames as in the unfiltered file); and doc/records.sql's SQLite
section loads the CSV into sqlite3 with every row, SUM(latency_us) equal to
the JSON report's latency_sum_us summed, and SUM(count) of NFSv3 READ rows
equal to nfs3.read.bytes.

Exit 0 pass, 1 fail, 77 skip (no tshark).
"""
import base64
import collections
import csv
import hashlib
import io
import ipaddress
import json
import os
import re
import shutil
import struct
import subprocess
import sys

import pcapsyn
from checks import check, finish

NAMED_NFS3 = {"lookup", "create", "mkdir", "symlink", "mknod", "remove", "rmdir", "rename",
              "link"}


def community_id(saddr, daddr, sport, dport, proto, seed=0):
    a = ipaddress.ip_address(saddr).packed
    b = ipaddress.ip_address(daddr).packed
    if (a, sport) > (b, dport):
        a, b, sport, dport = b, a, dport, sport
    data = struct.pack("!H", seed) + a + b + struct.pack("!BBHH", proto, 0, sport, dport)
    return "1:" + base64.b64encode(hashlib.sha1(data).digest()).decode()


def source(path):
    """(argv for nfsscope's -r, bytes for stdin or None)."""
    if path.endswith(".bz2"):
        return ["-r", "-"], subprocess.run(["bzcat", path], capture_output=True,
                                           check=True).stdout
    return ["-r", path], None


def nfsscope_rows(nfsscope, files, work, extra=()):
    """(report, rows as dicts) of `nfsscope FILES --records CSV -o json`."""
    out = os.path.join(work, "rows.csv")
    args, data = [nfsscope], None
    for f in files:
        a, d = source(f)
        args += a
        data = d if d is not None else data
    p = subprocess.run(args + ["-o", "json", "--records", out] + list(extra), input=data,
                       capture_output=True, timeout=600)
    if p.returncode != 0:
        raise SystemExit("nfsscope %s: %s" % (files, p.stderr.decode(errors="replace")))
    with open(out, newline="") as f:
        rows = list(csv.DictReader(f, strict=True))
    return json.loads(p.stdout), rows, out


def tshark_frames(path, data=None, ports=()):
    """{frame: ([(xid, msgtyp)], names)} of every frame tshark decodes RPC in,
    and {(xid, endpoints sorted): [call frames]}. `ports`: servers' ports to
    decode as RPC (Wireshark's Decode As): tshark knows 111 and 2049, and
    learns others (mountd, NLM) only from portmap replies it may not see."""
    dec = []
    for port in sorted({int(p) for p in ports} | {20048}):
        dec += ["-d", "tcp.port==%s,rpc" % port, "-d", "udp.port==%s,rpc" % port]
    cmd = ["tshark", "-n", "-r", path if data is None else "-"] + dec + ["-Y", "rpc", "-T", "fields",
           "-E", "occurrence=a", "-E", "aggregator=|", "-e", "frame.number", "-e", "rpc.xid",
           "-e", "rpc.msgtyp", "-e", "nfs.name", "-e", "mount.path", "-e", "ip.src", "-e",
           "ipv6.src", "-e", "ip.dst", "-e", "ipv6.dst", "-e", "tcp.srcport", "-e",
           "udp.srcport", "-e", "tcp.dstport", "-e", "udp.dstport"]
    p = subprocess.run(cmd, input=data, capture_output=True, timeout=600)
    frames, calls = {}, collections.defaultdict(list)
    for line in p.stdout.decode(errors="replace").splitlines():
        f = line.split("\t")
        if len(f) < 13 or not f[0]:
            continue
        n = int(f[0])
        xids = [int(x, 16) for x in f[1].split("|") if x]
        types = [int(x) for x in f[2].split("|") if x]
        names = set(x for x in f[3].split("|") + f[4].split("|") if x)
        frames[n] = (list(zip(xids, types)), names)
        src = (f[5] or f[6]).split("|")[-1]  # the innermost header
        dst = (f[7] or f[8]).split("|")[-1]
        sp = (f[9] or f[10]).split("|")[0]
        dp = (f[11] or f[12]).split("|")[0]
        if src and sp:
            ends = tuple(sorted([(src, sp), (dst, dp)]))
            for x, t in zip(xids, types):
                if t == 0:
                    calls[(x, ends)].append(n)
    return frames, calls


def canon(addr):
    return str(ipaddress.ip_address(addr))


def check_capture(nfsscope, path, work, clean):
    name = os.path.basename(path)
    rep, rows, csvp = nfsscope_rows(nfsscope, [path], work)
    _, data = source(path)
    # Decode As RPC both ends' ports: Wireshark tries the lower port first,
    # and a client's reserved port may belong to another protocol (854: DLEP)
    frames, calls = tshark_frames(path, data, {r[k] for r in rows for k in
                                               ("server_port", "client_port") if r[k]})
    bad_cid, bad_call, bad_reply, bad_name, bad_rt, blind = [], [], [], [], [], []
    unknown, named, rtsum = 0, 0, 0

    def at(frame, xid, typ, bad):
        """tshark decodes (xid, typ) in frame: True; another RPC message
        only: a mismatch; no RPC with an XID (tshark would not dissect the
        segment: it took it for a retransmission, or lost the record
        boundaries): counted as unverifiable."""
        fr = frames.get(int(frame))
        if fr and (xid, typ) in fr[0]:
            return fr
        if fr and fr[0]:
            bad.append((xid, frame, fr[0]))
        else:
            blind.append((xid, frame))
        return None
    for r in rows:
        if r["client"]:
            proto = 17 if r["transport"] == "udp" else 6
            want = community_id(r["client"], r["server"], int(r["client_port"]),
                                int(r["server_port"]), proto)
            if r["community_id"] != want:
                bad_cid.append((r["xid"], r["community_id"], want))
        elif r["community_id"]:
            bad_cid.append((r["xid"], r["community_id"], "(no connection)"))
        xid = int(r["xid"])
        if not r["call_frame"] or (r["outcome"] != "no_reply" and not r["reply_frame"]):
            unknown += 1
        if r["call_frame"]:
            fr = at(r["call_frame"], xid, 0, bad_call)
            if fr and r["name"] and fr[1] and (r["procedure"] in NAMED_NFS3 or
                                               r["procedure"] == "mnt"):
                named += 1
                # tshark prints names raw; nfsscope escapes bytes that are not
                # printable: compare where the name is plain printable ASCII
                # (names longer than 255 bytes are cut to their first 255)
                if re.fullmatch(r"[ -~]*", r["name"]) and "\\" not in r["name"] \
                        and r["name"] not in {n[:255] for n in fr[1]}:
                    bad_name.append((r["xid"], r["name"], sorted(fr[1])))
        if r["reply_frame"]:
            at(r["reply_frame"], xid, 1, bad_reply)
        if r["call_frame"] and r["client"]:
            ends = tuple(sorted([(canon(r["client"]), r["client_port"]),
                                 (canon(r["server"]), r["server_port"])]))
            c0 = int(r["call_frame"])
            c1 = int(r["reply_frame"]) if r["reply_frame"] else float("inf")
            want = sum(1 for n in calls.get((xid, ends), []) if c0 < n < c1)
            rtsum += int(r["retransmissions"])
            if int(r["retransmissions"]) != want:
                bad_rt.append((r["xid"], r["retransmissions"], want))
    n = len(rows)
    # Frames nfsscope cannot name: messages completed past a TCP hole or
    # from a lost datagram's first fragment. None where nothing was lost.
    lost = sum(rep["anomalies"].get(k, 0) for k in ("tcp_gap", "ipfrag_expired",
                                                     "ipfrag_evicted"))
    damaged = lost + rep["anomalies"].get("rpc_resync", 0)
    # Past a hole nfsscope and tshark may not cut the stream into the same
    # records: there, at most 1 % of the rows may disagree.
    most = 0 if not damaged else n // 100
    check(not bad_cid, "%s: community_id of %d rows = hashlib's %s" % (name, n, bad_cid[:3]))
    check(len(bad_call) <= most, "%s: call_frame: tshark shows the call there (%d disagree) %s"
          % (name, len(bad_call), bad_call[:3]))
    check(len(bad_reply) <= most, "%s: reply_frame: tshark shows the reply there (%d disagree)"
          " %s" % (name, len(bad_reply), bad_reply[:3]))
    check(not bad_name, "%s: name = tshark's in the call frame (%d rows) %s"
          % (name, named, bad_name[:3]))
    check(not bad_rt, "%s: retransmissions per row = tshark's resends before the reply "
          "(%d in all, report %d) %s" % (name, rtsum, rep["rpc"]["retransmissions"], bad_rt[:3]))
    check(unknown == 0 or (not clean and lost > 0),
          "%s: rows without a frame: %d of %d (%d TCP gaps or lost fragments)"
          % (name, unknown, n, lost))
    # tshark does not dissect what it takes for a TCP retransmission (the
    # only copy, when the first was not captured), nor records after it
    # lost their boundaries (nfsscope resynchronises): where the capture has
    # holes or resyncs those frames are counted, not judged.
    check(len(blind) <= (0 if clean else 2 + n // 100) or (not clean and damaged > 0),
          "%s: frames tshark decodes no RPC in: %d of %d (%d holes and resyncs) %s"
          % (name, len(blind), n, damaged, blind[:3]))
    return n, named, rtsum


def retransmissions_capture(path):
    """UDP NFSv3 LOOKUPs: xid 1 sent three times, answered, then sent once
    more (a resend after the reply: the report's, not the row's); xid 2 once
    and answered; xid 3 sent twice and never answered; over TCP, xid 4 once."""
    c, s = ("10.1.0.1", 801), ("10.1.0.2", 2049)
    fh = b"\x01" * 32

    def call(xid, name):
        return pcapsyn.udp_frame(c[0], c[1], s[0], s[1], pcapsyn.rpc_call(
            xid, pcapsyn.NFS_PROG, 3, 3, pcapsyn.nfs3_lookup_args(fh, name)), ident=xid)

    def reply(xid):
        return pcapsyn.udp_frame(s[0], s[1], c[0], c[1], pcapsyn.rpc_reply(
            xid, pcapsyn.nfs3_lookup_res(b"\x02" * 32)), ident=100 + xid)
    frames = [call(1, b"one"), call(1, b"one"), call(1, b"one"), reply(1), call(2, b"two"),
              reply(2), call(1, b"one"), call(3, b"three"), call(3, b"three")]
    conn = pcapsyn.TcpConn(frames, cli=("10.1.0.1", 802))
    conn.send(0, pcapsyn.record(pcapsyn.rpc_call(4, pcapsyn.NFS_PROG, 3, 3,
                                                 pcapsyn.nfs3_lookup_args(fh, b"four"))))
    conn.send(1, pcapsyn.record(pcapsyn.rpc_reply(4, pcapsyn.nfs3_lookup_res(b"\x03" * 32))))
    pcapsyn.write_pcap(path, frames)


def check_merged(nfsscope, samples, work):
    a, b = os.path.join(samples, "all-ops.pcap"), os.path.join(samples, "all-ops-udp.pcap")
    merged = os.path.join(work, "merged.pcapng")
    subprocess.run(["mergecap", "-w", merged, b, a], check=True, capture_output=True)
    _, rows, _ = nfsscope_rows(nfsscope, [b, a], work)
    frames, _ = tshark_frames(merged)
    bad = [r["xid"] for r in rows if not (
        r["call_frame"] and (int(r["xid"]), 0) in frames.get(int(r["call_frame"]), ([],))[0]
        and (not r["reply_frame"] or
             (int(r["xid"]), 1) in frames.get(int(r["reply_frame"]), ([],))[0]))]
    check(rows and not bad, "two -r files: frames as in `mergecap -w` of both (%d rows) %s"
          % (len(rows), bad[:3]))


def check_filtered(nfsscope, samples, work):
    pcap = os.path.join(samples, "all-ops.pcap")
    _, full, _ = nfsscope_rows(nfsscope, [pcap], work)
    _, part, _ = nfsscope_rows(nfsscope, [pcap], work, ["port", "2049"])
    keyf = {(r["xid"], r["client_port"]): (r["call_frame"], r["reply_frame"]) for r in full}
    bad = [r["xid"] for r in part if keyf.get((r["xid"], r["client_port"])) !=
           (r["call_frame"], r["reply_frame"])]
    check(part and len(part) < len(full) and not bad,
          "a BPF filter keeps the file's frame numbers (%d of %d rows) %s"
          % (len(part), len(full), bad[:3]))


def check_sqlite(nfsscope, samples, src, work):
    if not shutil.which("sqlite3"):
        check(False, "sqlite3 is installed (scripts/install-deps)")
        return
    with open(os.path.join(src, "doc", "records.sql")) as f:
        sql = f.read()
    m = re.search(r"^-- ==== SQLite.*?^-- ==== end", sql, re.S | re.M)
    check(m is not None, "doc/records.sql has a SQLite section")
    if not m:
        return
    for s in ("all-ops.pcap", "bulk-io.pcap", "multi-client.pcapng"):
        rep, rows, csvp = nfsscope_rows(nfsscope, [os.path.join(samples, s)], work)
        db = os.path.join(work, "calls.db")
        if os.path.exists(db):
            os.remove(db)
        script = m.group(0).replace(".import --csv --skip 1 calls.csv",
                                    ".import --csv --skip 1 '%s'" % csvp)
        script += ("\nSELECT count(*), coalesce(sum(latency_us), 0),"
                   " coalesce(sum(CASE WHEN program_name = 'nfs3' AND procedure = 'read'"
                   " THEN count END), 0), sum(typeof(latency_us) = 'text')"
                   " + sum(typeof(call_frame) = 'text') FROM calls;\n")
        p = subprocess.run(["sqlite3", "-bail", db], input=script.encode(), capture_output=True,
                           timeout=120)
        out = p.stdout.decode().strip().split("|")
        lat = sum(o.get("latency_sum_us", 0) for v in rep.values()
                  if isinstance(v, dict) and isinstance(v.get("ops"), dict)
                  for o in v["ops"].values())
        want = [str(rep["rpc"]["calls"]), str(lat), str(rep["nfs3"]["read"]["bytes"]), "0"]
        check(p.returncode == 0 and out == want,
              "%s: sqlite3 with doc/records.sql: rows, SUM(latency_us), READ bytes, text cells"
              " %s, report %s %s" % (s, out, want, p.stderr.decode().strip()[:200]))


def main():
    if len(sys.argv) != 5:
        print(__doc__)
        return 2
    nfsscope, samples, public, work = sys.argv[1:]
    if not shutil.which("tshark") or not shutil.which("mergecap"):
        print("SKIP: tshark and mergecap are needed (Debian tshark)")
        return 77
    os.makedirs(work, exist_ok=True)
    src = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    total = [0, 0, 0]
    syn = os.path.join(work, "retransmissions.pcap")
    retransmissions_capture(syn)
    rep, rows, _ = nfsscope_rows(nfsscope, [syn], work)
    got = {int(r["xid"]): (int(r["retransmissions"]), r["name"], r["call_frame"],
                           r["reply_frame"]) for r in rows}
    want = {1: (2, "one", "1", "4"), 2: (0, "two", "5", "6"), 3: (1, "three", "8", ""),
            4: (0, "four", "13", "14")}
    check(got == want and rep["rpc"]["retransmissions"] == 4,
          "synthetic: retransmissions, names and frames per row %s (report %d resends)"
          % (got, rep["rpc"]["retransmissions"]))
    for i, v in enumerate(check_capture(nfsscope, syn, work, True)):
        total[i] += v
    for d, clean in ((samples, True), (public, False)):
        for f in sorted(os.listdir(d)):
            if re.search(r"\.(pcap|pcapng)(\.bz2)?$", f):
                for i, v in enumerate(check_capture(nfsscope, os.path.join(d, f), work, clean)):
                    total[i] += v
    print("rows %d, names compared %d, retransmissions %d" % tuple(total))
    check(total[1] > 100 and total[2] > 0, "names and retransmissions were compared (%d, %d)"
          % (total[1], total[2]))
    check_merged(nfsscope, samples, work)
    check_filtered(nfsscope, samples, work)
    check_sqlite(nfsscope, samples, src, work)
    return finish()


if __name__ == "__main__":
    sys.exit(main())
