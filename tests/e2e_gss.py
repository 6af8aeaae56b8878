#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""e2e_gss.py: RPCSEC_GSS (RFC 2203) and RPC-over-TLS (RFC 9289), against tshark.

    e2e_gss.py NFSSCOPE WORKDIR

There is no Kerberos realm here, so the captures are built with
tests/pcapsyn.py, and every number nfsscope gives is checked against tshark's
decoding of the same capture (rpc.authgss.procedure, rpc.authgss.service,
rpc.authgss.seqnum, rpc.time, nfs.status3, nfs.opcode, tls.record.length),
not against nfsscope itself:

1. krb5 on NFSv3: a context set up (INIT, CONTINUE_INIT), DATA calls with
   every service (none: krb5, integrity: krb5i, privacy: krb5p), DESTROY,
   and a plain AUTH_NONE NULL. Per procedure: calls, replies and latency as
   tshark's; control messages counted apart (as tshark's authgss.procedure
   says), not as NULL calls; krb5i statuses as tshark reads them inside the
   integrity wrapping; krb5p calls "encrypted", never decode errors.
2. krb5 on NFSv4: COMPOUNDs with each service; the operations tshark sees
   (none, integrity) are nfsscope's, the privacy COMPOUNDs are counted,
   timed and said to be encrypted.
3. RPC-over-TLS: the AUTH_TLS probe, "STARTTLS", then TLS records both ways
   (several per segment, one split over segments): the connection is
   reported as TLS with the bytes and records tshark finds (decoding the
   same stream as TLS), and no RPC anomaly at all.
4. The same captures cut by a 120-byte snapshot length: no crash, nothing on
   stderr, no decode error (cut messages are partial, not malformed).
Every report validates against doc/nfsscope-report.schema.json (when
python3-jsonschema is installed). Skips (exit 77) when tshark is not
installed. The synthetic checksums and tokens are not real Kerberos tokens:
tshark flags them "Malformed Packet: GSS-API" after decoding every field
compared here.
"""
import json
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pcapsyn as P  # noqa: E402
from checks import check, finish, skip_part  # noqa: E402

NFSSCOPE, WORK = sys.argv[1], sys.argv[2]
SCHEMA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "doc",
                      "nfsscope-report.schema.json")
os.makedirs(WORK, exist_ok=True)
try:
    import jsonschema
except ImportError:
    jsonschema = None
FH = b"\x01" * 16
CTX = b"ctx1"


def report(path, *extra):
    r = subprocess.run([NFSSCOPE, "-r", path, "-o", "json"] + list(extra), capture_output=True,
                       timeout=120)
    check(r.returncode == 0, "%s: exit %d" % (path, r.returncode))
    check(r.stderr == b"", "%s: stderr %r" % (path, r.stderr[:200]))
    rep = json.loads(r.stdout)
    if jsonschema:
        try:
            jsonschema.validate(rep, json.load(open(SCHEMA)))
            check(True, "schema")
        except jsonschema.ValidationError as e:
            check(False, "%s: schema: %s at %s" % (path, e.message, list(e.absolute_path)))
    return rep


def text(path):
    r = subprocess.run([NFSSCOPE, "-r", path], capture_output=True, timeout=120)
    check(r.returncode == 0, "%s: text exit %d" % (path, r.returncode))
    return r.stdout.decode()


def tshark(path, fields, extra=()):
    """One row per frame (a frame with several RPC messages gives
    comma-separated values): a list of dicts field -> list of values."""
    cmd = ["tshark", "-n", "-r", path, "-T", "fields", "-E", "occurrence=a",
           "-E", "aggregator=,"] + list(extra)
    for f in fields:
        cmd += ["-e", f]
    out = subprocess.run(cmd, capture_output=True, timeout=120, check=True).stdout.decode()
    rows = []
    for line in out.splitlines():
        cells = line.split("\t")
        rows.append({f: (c.split(",") if c else []) for f, c in zip(fields, cells)})
    return rows


# ---- 1. krb5 on NFSv3 -----------------------------------------------------
def nfs3_capture(path, snaplen=262144):
    fr = []
    c = P.TcpConn(fr)
    xid = [0x100]

    def call(body, d=0):
        c.send(d, P.record(body))

    def nx():
        xid[0] += 1
        return xid[0]

    # Context set up (RFC 2203 §5.2): INIT -> CONTINUE_NEEDED, CONTINUE_INIT -> COMPLETE.
    x = nx()
    call(P.gss_call(x, P.NFS_PROG, 3, 0, P.gss_init_arg(b"\x60\x82" + b"\x11" * 40),
                    gss_proc=P.GSS_INIT))
    call(P.rpc_reply(x, P.gss_init_res(CTX, major=1, token=b"\x22" * 30)), 1)
    x = nx()
    call(P.gss_call(x, P.NFS_PROG, 3, 0, P.gss_init_arg(b"\x33" * 20),
                    gss_proc=P.GSS_CONTINUE_INIT))
    call(P.gss_reply(x, P.gss_init_res(CTX, major=0)), 1)
    seq = 0
    # krb5: plain GETATTR x2.
    for _ in range(2):
        seq += 1
        x = nx()
        call(P.gss_call(x, P.NFS_PROG, 3, 1, P.fh3(FH), seq=seq, service=P.SVC_NONE))
        call(P.gss_reply(x, P.u32(0) + b"\0" * 84), 1)
    # krb5i: LOOKUP "foo" NOENT, "bar" OK, GETATTR STALE.
    for name, res in ((b"foo", P.u32(2) + P.u32(0)), (b"bar", P.nfs3_lookup_res(b"\x02" * 16))):
        seq += 1
        x = nx()
        call(P.gss_call(x, P.NFS_PROG, 3, 3,
                        P.integ_data(seq, P.nfs3_lookup_args(FH, name)), seq=seq,
                        service=P.SVC_INTEGRITY))
        call(P.gss_reply(x, P.integ_data(seq, res)), 1)
    seq += 1
    x = nx()
    call(P.gss_call(x, P.NFS_PROG, 3, 1, P.integ_data(seq, P.fh3(FH)), seq=seq,
                    service=P.SVC_INTEGRITY))
    call(P.gss_reply(x, P.integ_data(seq, P.u32(70))), 1)  # NFS3ERR_STALE
    # krb5p: 3 GETATTR, 1 LOOKUP, one unanswered READ.
    for proc in (1, 1, 3, 1, 6):
        seq += 1
        x = nx()
        call(P.gss_call(x, P.NFS_PROG, 3, proc, P.priv_data(bytes(range(proc, proc + 60))),
                        seq=seq, service=P.SVC_PRIVACY))
        if proc != 6:
            call(P.gss_reply(x, P.priv_data(b"\x05" * 44)), 1)
    # A plain NULL call, AUTH_NONE.
    x = nx()
    call(P.rpc_call(x, P.NFS_PROG, 3, 0, cred=b"", cred_flavor=P.AUTH_NONE))
    call(P.rpc_reply(x), 1)
    # DESTROY (RFC 2203 §5.4), answered.
    seq += 1
    x = nx()
    call(P.gss_call(x, P.NFS_PROG, 3, 0, b"", gss_proc=P.GSS_DESTROY, seq=seq))
    call(P.gss_reply(x), 1)
    P.write_pcap(path, [{"data": f, "caplen": min(len(f), snaplen), "wirelen": len(f)}
                        for f in fr] if snaplen < 262144 else fr, snaplen=snaplen)


GSS_PROCS = {0: None, 1: "init", 2: "continue_init", 3: "destroy"}
V3_PROCS = {0: "null", 1: "getattr", 3: "lookup", 6: "read"}


def part_nfs3(path):
    rep = report(path)
    nfs3 = rep["nfs3"]
    fields = ["frame.number", "rpc.msgtyp", "rpc.program", "rpc.procedure", "rpc.auth.flavor",
              "rpc.authgss.procedure", "rpc.authgss.service", "rpc.authgss.seqnum", "rpc.time",
              "nfs.status3", "rpc.xid"]
    rows = tshark(path, fields)
    calls, replies, lat, status, enc, ctl, svc = {}, {}, {}, {}, {}, {}, {}
    call_of = {}
    for r in rows:
        for i, mt in enumerate(r["rpc.msgtyp"]):
            xid = r["rpc.xid"][i]
            if mt == "0":
                proc = int(r["rpc.procedure"][0])
                gp = int(r["rpc.authgss.procedure"][0]) if r["rpc.authgss.procedure"] else 0
                sv = int(r["rpc.authgss.service"][0]) if r["rpc.authgss.service"] else 0
                key = GSS_PROCS[gp] or V3_PROCS[proc]
                call_of[xid] = (key, gp, sv)
                if gp:
                    ctl[key] = ctl.get(key, 0) + 1
                else:
                    calls[key] = calls.get(key, 0) + 1
                if gp == 0 and sv:
                    svc[sv] = svc.get(sv, 0) + 1
                if gp == 0 and sv == 3:
                    enc[key] = enc.get(key, 0) + 1
            else:
                key = call_of[xid][0]
                replies[key] = replies.get(key, 0) + 1
                if r["rpc.time"]:
                    lat.setdefault(key, []).append(round(float(r["rpc.time"][0]) * 1e6))
                for st in r["nfs.status3"]:
                    if st != "0":
                        status[key] = status.get(key, 0) + 1
    check(sum(ctl.values()) == 3, "tshark sees 3 GSS control messages: %r" % ctl)
    for key in ("null", "getattr", "lookup", "read"):
        op = nfs3["ops"][key]
        check(op["calls"] == calls.get(key, 0),
              "nfs3 %s calls %d, tshark %d" % (key, op["calls"], calls.get(key, 0)))
        check(op["replies"] == replies.get(key, 0),
              "nfs3 %s replies %d, tshark %d" % (key, op["replies"], replies.get(key, 0)))
        check(op.get("encrypted", 0) == enc.get(key, 0),
              "nfs3 %s encrypted %d, tshark privacy calls %d" % (key, op.get("encrypted", 0),
                                                                 enc.get(key, 0)))
        check(op["errors"] == status.get(key, 0),
              "nfs3 %s errors %d, tshark nfs.status3 != 0: %d" % (key, op["errors"],
                                                                  status.get(key, 0)))
        ls = lat.get(key, [])
        if ls:
            check(op["latency_us"]["min"] == min(ls) and op["latency_us"]["max"] == max(ls),
                  "nfs3 %s latency %r, tshark rpc.time %r" % (key, op["latency_us"], ls))
    g = nfs3.get("gss", {})
    for k, sv in (("none", 1), ("integrity", 2), ("privacy", 3)):
        check(g.get(k) == svc.get(sv, 0), "nfs3 gss %s %r, tshark %r" % (k, g.get(k), svc))
    check(g.get("encrypted_calls") == svc.get(3, 0), "nfs3 gss encrypted_calls")
    for k in ("init", "continue_init", "destroy"):
        row = g.get("control", {}).get(k, {})
        check(g.get(k) == ctl.get(k, 0) and row.get("calls") == ctl.get(k, 0),
              "nfs3 gss %s %r / %r, tshark %r" % (k, g.get(k), row, ctl))
        check(row.get("replies") == replies.get(k, 0), "nfs3 gss %s replies" % k)
        ls = lat.get(k, [])
        check(ls and row["latency_us"]["max"] == max(ls),
              "nfs3 gss %s latency %r, tshark %r" % (k, row.get("latency_us"), ls))
    ntshark_calls = sum(calls.values()) + sum(ctl.values())
    check(rep["rpc"]["calls"] == ntshark_calls,
          "rpc calls %d, tshark %d" % (rep["rpc"]["calls"], ntshark_calls))
    check(nfs3["calls"] == ntshark_calls, "nfs3 calls (control messages included)")
    check(rep["rpc"]["unanswered_calls"] == 1, "the krb5p READ is unanswered")
    check(rep["rpc"]["auth"]["gss"] == ntshark_calls - 1, "auth gss: every call but the NULL")
    check(rep["rpc"]["gss"]["privacy"] == svc.get(3, 0), "rpc gss privacy")
    bad = {k: v for k, v in rep["anomalies"].items() if v}
    check(not bad, "no anomalies on a clean krb5 capture: %r" % bad)
    rec = os.path.join(WORK, "krb5-nfs3.records.jsonl")
    r = subprocess.run([NFSSCOPE, "-r", path, "-o", "json", "--records", rec,
                        "--records-format", "jsonl"], capture_output=True, timeout=120)
    check(r.returncode == 0, "--records exit %d" % r.returncode)
    procs = [json.loads(line)["procedure"] for line in open(rec)]
    check(len(procs) == ntshark_calls, "one record per call: %d, tshark %d" % (len(procs),
                                                                             ntshark_calls))
    for k in ("init", "continue_init", "destroy"):
        check(procs.count("rpcsec_gss_" + k) == ctl.get(k, 0), "records: rpcsec_gss_" + k)
    check(procs.count("null") == calls.get("null", 0), "records: the plain NULL only")
    t = text(path)
    check("RPCSEC_GSS:" in t and "privacy (encrypted)" in t, "text: the RPCSEC_GSS line")
    check("encrypted, operations not seen: getattr 3, lookup 1, read 1" in t,
          "text: encrypted calls by procedure")
    check("context control (not in null): init 1" in t, "text: the control messages")


# ---- 2. krb5 on NFSv4 -----------------------------------------------------
def compound4(ops, tag=b"", minor=0):
    return P.opaque(tag) + P.u32(minor) + P.u32(len(ops)) + b"".join(ops)


def compound4_res(results, status=0, tag=b""):
    return P.u32(status) + P.opaque(tag) + P.u32(len(results)) + b"".join(results)


PUTROOTFH, GETFH, OP_GETATTR = 24, 10, 9


def nfs4_capture(path):
    fr = []
    c = P.TcpConn(fr, cli=("10.0.0.3", 801))
    args = compound4([P.u32(PUTROOTFH), P.u32(GETFH)], minor=1)
    res = compound4_res([P.u32(PUTROOTFH) + P.u32(0), P.u32(GETFH) + P.u32(0) + P.opaque(FH)])
    seq = 0
    for i, service in enumerate([1, 2, 3, 3, 2, 3]):
        seq += 1
        x = 0x400 + i
        body = P.integ_data(seq, args) if service == 2 else (
            P.priv_data(b"\x99" * 72) if service == 3 else args)
        c.send(0, P.record(P.gss_call(x, P.NFS_PROG, 4, 1, body, seq=seq, service=service)))
        rb = P.integ_data(seq, res) if service == 2 else (
            P.priv_data(b"\x98" * 56) if service == 3 else res)
        c.send(1, P.record(P.gss_reply(x, rb)))
    P.write_pcap(path, fr)


def part_nfs4(path):
    rep = report(path)
    v4 = rep["nfs4"]
    rows = tshark(path, ["rpc.msgtyp", "rpc.authgss.service", "nfs.opcode", "rpc.time"])
    calls = priv = 0
    ops = {}
    lat = []
    for r in rows:
        if r["rpc.msgtyp"] == ["0"]:
            calls += 1
            priv += r["rpc.authgss.service"] == ["3"]
            for op in r["nfs.opcode"]:
                ops[op] = ops.get(op, 0) + 1
        elif r["rpc.time"]:
            lat.append(round(float(r["rpc.time"][0]) * 1e6))
    check(v4["compound"]["calls"] == calls, "nfs4 compound calls %d, tshark %d" % (
        v4["compound"]["calls"], calls))
    check(v4["compound"]["replies"] == len(lat), "nfs4 compound replies")
    check(v4["compound"]["latency_us"]["count"] == len(lat) and
          v4["compound"]["latency_us"]["max"] == max(lat), "nfs4 compound latency vs rpc.time")
    check(v4["compound"].get("encrypted") == priv,
          "nfs4 compound encrypted %r, tshark privacy %d" % (v4["compound"].get("encrypted"), priv))
    check(v4.get("gss", {}).get("encrypted_calls") == priv, "nfs4 gss encrypted_calls")
    for op, name in ((str(PUTROOTFH), "putrootfh"), (str(GETFH), "getfh")):
        got = v4["ops"].get(name, {}).get("count", 0)
        check(got == ops.get(op, 0), "nfs4 %s count %d, tshark nfs.opcode %d" % (
            name, got, ops.get(op, 0)))
    check(rep["anomalies"]["nfs_decode_error"] == 0, "no decode error on krb5p COMPOUNDs")
    # The privacy COMPOUNDs have no minor version in sight: in the totals only.
    m1 = v4["minor_versions"].get("1", {}).get("compound", {}).get("calls", 0)
    check(m1 == calls - priv, "minor version 1 holds the COMPOUNDs that were not encrypted")


# ---- 3. RPC-over-TLS ------------------------------------------------------
def tls_capture(path):
    fr = []
    c = P.TcpConn(fr, cli=("10.0.0.4", 802))
    c.send(0, P.record(P.tls_probe_call(0x77)))
    c.send(1, P.record(P.tls_probe_reply(0x77)))
    probe_frames = len(fr)
    ch = P.tls_record(22, P.TLS_CLIENT_HELLO, version=0x0301)
    sh = P.tls_record(22, P.TLS_SERVER_HELLO) + P.tls_record(20, b"\x01") + \
        P.tls_record(23, b"\xee" * 1500)  # ServerHello, ChangeCipherSpec, encrypted
    c.send(0, ch)
    c.send(1, sh)  # three records in segments of 1448: one split
    for i in range(5):
        c.send(0, P.tls_record(23, bytes([i]) * (100 + 300 * i)) + P.tls_record(23, b"\x01" * 40))
        c.send(1, P.tls_record(23, b"\x02" * 3000))
    P.write_pcap(path, fr)
    return probe_frames


def part_tls(path, probe_frames):
    rep = report(path)
    # tshark: the TLS records after the probe, decoding port 2049 as TLS.
    rows = tshark(path, ["frame.number", "tcp.srcport", "tls.record.length"],
                  ["-d", "tcp.port==2049,tls", "-Y", "frame.number > %d" % probe_frames])
    recs = {0: 0, 1: 0}
    byts = {0: 0, 1: 0}
    for r in rows:
        d = 0 if r["tcp.srcport"] == ["802"] else 1
        for n in r["tls.record.length"]:
            recs[d] += 1
            byts[d] += int(n) + 5
    check(recs[0] and recs[1], "tshark finds TLS records both ways: %r" % recs)
    t = rep["rpc"].get("tls", {})
    check(t.get("connections") == 1, "rpc.tls.connections %r" % t.get("connections"))
    check(t.get("records") == recs[0] + recs[1],
          "rpc.tls.records %r, tshark %r" % (t.get("records"), recs))
    check(t.get("bytes") == byts[0] + byts[1], "rpc.tls.bytes %r, tshark %r" % (t.get("bytes"),
                                                                             byts))
    lst = t.get("listed", [{}])
    c0 = lst[0] if lst else {}
    check(c0.get("client") == "10.0.0.4" and c0.get("client_port") == 802 and
          c0.get("server_port") == 2049, "the TLS connection's ends: %r" % c0)
    check(c0.get("bytes_to_server") == byts[0] and c0.get("bytes_to_client") == byts[1],
          "bytes per direction %r, tshark %r" % (c0, byts))
    check(c0.get("records_to_server") == recs[0] and c0.get("records_to_client") == recs[1],
          "records per direction")
    check(rep["rpc"]["auth"].get("tls") == 1, "auth tls: the probe")
    check(rep["nfs4"]["null"]["calls"] == 1 and rep["nfs4"]["null"]["replies"] == 1,
          "the probe is an answered NULL call")
    bad = {k: v for k, v in rep["anomalies"].items() if v}
    check(not bad, "TLS bytes are no RPC anomaly: %r" % bad)
    q = [f for f in rep["findings"] if f["kind"] == "capture_quality"]
    check(q and q[0]["evidence"].get("tls_connections") == 1 and
          q[0]["evidence"].get("tls_bytes") == byts[0] + byts[1],
          "capture_quality evidence: the TLS connection")
    check(q and "RFC 9289" in q[0]["summary"], "capture_quality summary names the TLS bytes")
    # merge adds the counts and lists both reports' connections.
    a = os.path.join(WORK, "tls-a.json")
    with open(a, "w") as f:
        json.dump(rep, f)
    r = subprocess.run([NFSSCOPE, "merge", "-o", "json", a, a], capture_output=True, timeout=60)
    check(r.returncode == 0, "merge of TLS reports: exit %d %r" % (r.returncode, r.stderr[:200]))
    if r.returncode == 0:
        m = json.loads(r.stdout)["rpc"].get("tls", {})
        check(m.get("connections") == 2 and m.get("bytes") == 2 * t.get("bytes", 0) and
              len(m.get("listed", [])) == 2, "merged rpc.tls %r" % m)
    tx = text(path)
    check("tls_connections" in tx and "10.0.0.4:802 -> 10.0.0.2:2049" in tx,
          "text capture quality lists the TLS connection")


# ---- 5. The view's quality line says what it cannot see into -----------------
def tui_quality(path, tag):
    """The view's "quality:" line at the end of a replay of path (tmux)."""
    import time
    sock = "nfsscope-gss-%d-%s" % (os.getpid(), tag)
    base = ["tmux", "-L", sock, "-f", "/dev/null"]
    subprocess.run(base + ["new-session", "-d", "-s", "t", "-x", "200", "-y", "40",
                           "env TERM=xterm-256color NO_COLOR=1 %s --tui --speed 0 -r %s; sleep 30"
                           % (NFSSCOPE, path)], check=True)
    try:
        end, screen = time.time() + 30, ""
        while time.time() < end:
            screen = subprocess.run(base + ["capture-pane", "-p", "-t", "t"], capture_output=True,
                                    text=True).stdout
            if "END OF CAPTURE" in screen:
                break
            time.sleep(0.2)
        check("END OF CAPTURE" in screen, "%s: the view reached the end" % tag)
        return [l for l in screen.splitlines() if l.startswith("quality:")]
    finally:
        subprocess.run(base + ["kill-server"], capture_output=True)


def part_tui(p4, pt):
    if not shutil.which("tmux"):
        skip_part("tmux not installed: the view's quality line is not checked")
        return
    priv = sum(1 for r in tshark(p4, ["rpc.msgtyp", "rpc.authgss.service"])
               if r["rpc.msgtyp"] == ["0"] and r["rpc.authgss.service"] == ["3"])
    q = tui_quality(p4, "krb5p")
    check(priv > 0 and q and ("%d encrypted calls (krb5p)" % priv) in q[0],
          "view: krb5p calls in the quality line %r, tshark %d" % (q, priv))
    q = tui_quality(pt, "tls")
    check(q and "1 TLS connections (" in q[0], "view: the TLS connection in the quality line %r"
          % q)


def main():
    if not shutil.which("tshark"):
        skip_part("tshark not installed: no outside source")
        return finish()
    p3 = os.path.join(WORK, "krb5-nfs3.pcap")
    nfs3_capture(p3)
    part_nfs3(p3)
    p4 = os.path.join(WORK, "krb5-nfs4.pcap")
    nfs4_capture(p4)
    part_nfs4(p4)
    pt = os.path.join(WORK, "rpc-tls.pcap")
    part_tls(pt, tls_capture(pt))
    part_tui(p4, pt)
    # 4. Cut by the snapshot length: partial, never malformed, never a crash.
    pc = os.path.join(WORK, "krb5-nfs3-cut.pcap")
    nfs3_capture(pc, snaplen=120)
    rep = report(pc)
    check(rep["anomalies"]["nfs_decode_error"] == 0, "cut krb5 capture: no decode error")
    return finish()


if __name__ == "__main__":
    sys.exit(main())
