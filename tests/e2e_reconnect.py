#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""e2e_reconnect.py NFSSCOPE SAMPLES_DIR WORKDIR

Connections that end and start again on the same addresses and ports, RPC
record fragments of every legal size, and calls from the server to the
client, in captures built here at test time (samples/derive's reader for the
real samples, tests/pcapsyn.py for the crafted ones). The oracles are
outside nfsscope: the generating client's record (NAME.expect.json), the
bytes the test put on the wire, and tshark where it is right.

  replay    every TCP sample replayed three times on the same addresses and
            ports, times shifted: (a) new ISNs, FIN/RST kept; (b) new ISNs,
            every FIN and RST between the replays removed; (c) the same
            ISNs (a capture replayed as it was). Each must count exactly 3x
            the expect file's RPC calls and replies and NFSv3 per-procedure
            calls, replies and error statuses, with no orphan replies and no
            unanswered calls, and 2 reconnects per connection of the sample
            (capture quality and per client). tshark (4.0) sees 3x the
            sample's TCP streams and RPC calls in (a) and (b) for all-ops
            and cms-page.
  rst       a call cut by an RST in the middle of its record, then a SYN on
            the same 4-tuple with a new ISN (far from the old stream, and
            close to it): the new connection's call and reply are counted,
            no phantom call, the cut record counted (rpc_record_cut); tshark
            counts the same one call and reply.
  resend    a call left unanswered on a connection that is reset, resent with
            its XID on the new connection (the Linux client keeps its port
            and XIDs so the server's duplicate request cache knows them):
            one call, one retransmission, latency from the first
            transmission. tshark differs here, and the test pins how: it
            sees two calls (a new conversation, tcp.stream 1), the first
            unanswered, and times the reply from the resend.
  frags     calls whose records are cut into fragments of 1, 4 and 8 bytes
            (RFC 5531 §11 sets no minimum), at the start of a stream (with
            and without its SYN) and after a resync (a lost segment): every
            call and reply counted. tshark (4.0) decodes none of them: the
            oracle is the wire the test built, and the test pins tshark's
            miss.
  callback  the server calls the client on the client's connection with the
            XID of a pending client call (an NLM GRANTED, as an NFSv4.1
            back channel would): both answered, no orphan, both attributed
            to the connection's client and server in the breakdowns. tshark
            (which keys calls by conversation and XID only) is not the
            oracle here: the test pins that it matches one reply to the
            wrong call.
Without tshark the other checks run, and the test exits 77 (skipped) if
they pass.
"""
import importlib.machinery
import importlib.util
import json
import os
import random
import struct
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pcapsyn as P  # noqa: E402
from checks import check, finish  # noqa: E402

NFS, WORK, SAMPLES = None, None, None
ORIG = {}  # sample name -> nfsscope's report on the sample itself
CLI, SRV = ("10.0.0.1", 800), ("10.0.0.2", 2049)
FH = bytes(range(32))


def load_derive(samples):
    path = os.path.join(samples, "derive")
    ld = importlib.machinery.SourceFileLoader("derive", path)
    spec = importlib.util.spec_from_loader("derive", ld)
    mod = importlib.util.module_from_spec(spec)
    ld.exec_module(mod)
    return mod


def report(path, *args):
    r = subprocess.run([NFS, "-r", path, "-o", "json"] + list(args), capture_output=True,
                       timeout=300)
    check(r.returncode == 0, f"{path}: exit {r.returncode}: {r.stderr[:200]!r}")
    try:
        return json.loads(r.stdout)
    except ValueError:
        check(False, f"{path}: JSON report does not parse")
        return None


def text(path, *args):
    r = subprocess.run([NFS, "-r", path] + list(args), capture_output=True, timeout=300)
    return r.stdout.decode(errors="replace")


def tshark(path, fields, filt="rpc"):
    """tshark's RPC view: one row per message, the fields asked for."""
    cmd = ["tshark", "-n", "-r", path, "-o", "tcp.desegment_tcp_streams:TRUE",
           "-o", "rpc.desegment_rpc_over_tcp:TRUE", "-o", "rpc.defragment_rpc_over_tcp:TRUE",
           "-Y", filt, "-T", "fields"]
    for f in fields:
        cmd += ["-e", f]
    r = subprocess.run(cmd, capture_output=True, timeout=300)
    return [ln.split("\t") for ln in r.stdout.decode().splitlines() if ln]


def have_tshark():
    try:
        return subprocess.run(["tshark", "--version"], capture_output=True).returncode == 0
    except OSError:
        return False


# ---- replay ------------------------------------------------------------------
def tcp_header_at(D, lt, d):
    """Offset of the TCP header in frame d, or None."""
    s = D.parse(lt, d)
    if s.kind != "tcp":
        return None, s
    for off in range(0, s.payload_off - 19):
        if struct.unpack_from(">I", d, off + 4)[0] == s.seq and \
                (d[off + 12] >> 4) * 4 == s.payload_off - off:
            return off, s
    return None, s


def replay(D, inp, outp, mode, rng):
    """Three copies of inp on the same addresses and ports; mode: 'fin' (new
    ISNs), 'nofin' (new ISNs, no FIN or RST before the last copy), 'same'
    (the same ISNs)."""
    lt, snap, nano, frames = D.read_capture(inp)
    span = frames[-1].ts_ns - frames[0].ts_ns
    out = []
    for k in range(3):
        shift = k * (span + 2_000_000_000)
        # A new ISN per connection and direction, far from the old one.
        offs = {}
        for f in frames:
            d = bytearray(f.data)
            l4, s = tcp_header_at(D, lt, d)
            if l4 is not None:
                fl = d[l4 + 13]
                if mode == "nofin" and k < 2 and fl & (D.TCP_FIN | D.TCP_RST):
                    if s.data_len == 0:
                        continue
                    d[l4 + 13] = fl & ~(D.TCP_FIN | D.TCP_RST)
                if mode != "same" and k > 0:
                    a, b = s.dir
                    for e in (s.dir, (b, a)):
                        offs.setdefault(e, rng.randrange(1 << 28, 1 << 31))
                    seq, ack = struct.unpack_from(">II", d, l4 + 4)
                    struct.pack_into(">I", d, l4 + 4, (seq + offs[s.dir]) & 0xFFFFFFFF)
                    if fl & 0x10:
                        struct.pack_into(">I", d, l4 + 8, (ack + offs[(b, a)]) & 0xFFFFFFFF)
            out.append(D.Frame(f.ts_ns + shift, bytes(d), f.wirelen))
    D.write_pcap(outp, lt, snap, nano, out)
    return lt, frames


def errors_only(status):
    return {k: v for k, v in (status or {}).items() if k != "NFS3_OK"}


def syn_openers(D, lt, frames):
    """The connections opened in the capture (a SYN without ACK) and their
    clients: {(client endpoint, server endpoint)}."""
    conns = set()
    for f in frames:
        s = D.parse(lt, f.data)
        if s.kind == "tcp" and s.flags & D.TCP_SYN and not s.flags & 0x10:
            conns.add(s.dir)
    return conns


def addr_str(raw):
    import ipaddress
    return str(ipaddress.ip_address(raw))


def test_replay():
    D = load_derive(SAMPLES)
    rng = random.Random(19)
    names = sorted(n[:-len(".expect.json")] for n in os.listdir(SAMPLES)
                   if n.endswith(".expect.json"))
    done = 0
    for name in names:
        exp = json.load(open(os.path.join(SAMPLES, name + ".expect.json")))
        if exp.get("transport") != "tcp":
            continue
        src = [os.path.join(SAMPLES, name + e) for e in (".pcap", ".pcapng")
               if os.path.exists(os.path.join(SAMPLES, name + e))][0]
        for mode in ("fin", "nofin", "same"):
            outp = os.path.join(WORK, f"{name}-replay-{mode}.pcap")
            lt, frames = replay(D, src, outp, mode, rng)
            rep = report(outp)
            if not rep:
                continue
            tag = f"replay {name} {mode}"
            for k in ("calls", "replies"):
                check(rep["rpc"][k] == 3 * exp["rpc"][k],
                      f"{tag}: rpc {k} {rep['rpc'][k]} != 3 x {exp['rpc'][k]}")
            for k in ("orphan_replies", "unanswered_calls", "retransmissions"):
                check(rep["rpc"][k] == 0, f"{tag}: rpc {k} {rep['rpc'][k]} != 0")
            # NFSv4 is not decoded yet: its samples are held to the RPC totals.
            for proc, o in exp.get("nfs3", {"ops": {}})["ops"].items():
                got = rep["nfs3"]["ops"][proc]
                for k in ("calls", "replies"):
                    check(got[k] == 3 * o[k], f"{tag}: {proc} {k} {got[k]} != 3 x {o[k]}")
                want = {s: 3 * n for s, n in errors_only(o.get("status")).items()}
                check(got["status"] == want, f"{tag}: {proc} statuses {got['status']} != {want}")
            conns = syn_openers(D, lt, frames)
            per = {}
            for cli, _ in conns:
                per[addr_str(cli[0])] = per.get(addr_str(cli[0]), 0) + 2
            check(rep["anomalies"].get("tcp_reconnect") == 2 * len(conns),
                  f"{tag}: tcp_reconnect {rep['anomalies'].get('tcp_reconnect')} != 2 x {len(conns)}")
            check(rep.get("reconnects", {}).get("total") == 2 * len(conns) and
                  rep.get("reconnects", {}).get("clients") == per,
                  f"{tag}: reconnects {rep.get('reconnects')} != {per}")
            one = ORIG.setdefault(name, report(src))
            check(one and rep["anomalies"]["tcp_retransmit"] ==
                  3 * one["anomalies"]["tcp_retransmit"] and rep["anomalies"]["rpc_resync"] == 0,
                  f"{tag}: the copies are new connections, not retransmissions "
                  f"({rep['anomalies']['tcp_retransmit']} tcp_retransmit)")
            if mode in ("fin", "nofin") and name in ("all-ops", "cms-page") and have_tshark():
                streams = {r[0] for r in tshark(outp, ["tcp.stream"], "tcp")}
                one = {r[0] for r in tshark(src, ["tcp.stream"], "tcp")}
                check(len(streams) == 3 * len(one),
                      f"{tag}: tshark sees {len(streams)} TCP streams, not 3 x {len(one)}")
                # one row per frame, one value per RPC message in it
                calls = sum(r[0].split(",").count("0") for r in tshark(outp, ["rpc.msgtyp"]))
                calls1 = sum(r[0].split(",").count("0") for r in tshark(src, ["rpc.msgtyp"]))
                check(calls == 3 * calls1, f"{tag}: tshark {calls} RPC calls, not 3 x {calls1}")
            done += 1
    check(done >= 3 * 5, f"replay: only {done} sample variants ran")
    # The per-client count is in the text report too.
    t = text(os.path.join(WORK, "all-ops-replay-fin.pcap"))
    check("reconnects: 8 (127.0.0.1 8)" in t and "tcp_reconnect" in t,
          "replay: the text report lacks the reconnect line or the capture-quality row")


# ---- crafted connections -------------------------------------------------------
def getattr_call(xid):
    return P.record(P.rpc_call(xid, P.NFS_PROG, 3, 1, P.fh3(FH)))


def getattr_reply(xid):
    attrs = P.u32(1) + P.u32(0o644) + P.u32(1) + P.u32(0) * 2 + b"\0" * 8 * 3 + \
        b"\0" * 8 * 2 + b"\0" * 8 * 3
    return P.record(P.rpc_reply(xid, P.u32(0) + attrs))


def rst(frames, c, d):
    a, b = (c.cli, c.srv) if d == 0 else (c.srv, c.cli)
    frames.append(P.tcp_frame(a[0], a[1], b[0], b[1], c.seq[d], 0, P.TH_RST))


def test_rst():
    for name, isn2 in (("far", (0x70000000, 0x50000000)), ("near", (1000 + 40, 5000 + 40))):
        fr = []
        c = P.TcpConn(fr, cli=CLI, srv=SRV, isn=(1000, 5000))
        call = getattr_call(0x111)
        c.send(0, call[:30])          # half the record
        rst(fr, c, 0)                 # the client resets the connection
        c2 = P.TcpConn(fr, cli=CLI, srv=SRV, isn=isn2)
        c2.send(0, getattr_call(0x222))
        c2.send(1, getattr_reply(0x222))
        path = os.path.join(WORK, f"rst-{name}.pcap")
        P.write_pcap(path, fr)
        rep = report(path)
        if not rep:
            continue
        r, a = rep["rpc"], rep["anomalies"]
        check(r["calls"] == 1 and r["replies"] == 1 and r["orphan_replies"] == 0 and
              r["unanswered_calls"] == 0 and r["retransmissions"] == 0,
              f"rst {name}: {r} (want the new connection's one call and reply)")
        check(rep["nfs3"]["ops"]["getattr"]["calls"] == 1, f"rst {name}: getattr calls")
        check(a.get("rpc_record_cut") == 1, f"rst {name}: rpc_record_cut {a.get('rpc_record_cut')} != 1")
        check(a.get("tcp_reconnect") == 1 and rep.get("reconnects", {}).get("clients") == {CLI[0]: 1},
              f"rst {name}: reconnects {rep.get('reconnects')}")
        check(a["rpc_malformed"] == 0 and a["rpc_truncated"] == 0,
              f"rst {name}: no phantom message ({a['rpc_malformed']} malformed, "
              f"{a['rpc_truncated']} truncated)")
        if have_tshark():
            msgs = tshark(path, ["rpc.xid", "rpc.msgtyp"])
            check(msgs == [["0x00000222", "0"], ["0x00000222", "1"]],
                  f"rst {name}: tshark sees {msgs}")


def test_resend():
    fr = []
    c = P.TcpConn(fr, cli=CLI, srv=SRV, isn=(1000, 5000))
    c.send(0, getattr_call(0x333))                    # at frame 4: t0 + 3 steps
    rst(fr, c, 0)
    c2 = P.TcpConn(fr, cli=CLI, srv=SRV, isn=(0x40000000, 0x20000000))
    c2.send(0, getattr_call(0x333))                   # resent with its XID
    c2.send(1, getattr_reply(0x333))
    path = os.path.join(WORK, "resend.pcap")
    P.write_pcap(path, fr, step_us=100000)            # 100 ms between frames
    rep = report(path)
    if rep:
        r = rep["rpc"]
        lat = rep["nfs3"]["ops"]["getattr"]["latency_us"]
        check(r["calls"] == 1 and r["retransmissions"] == 1 and r["replies"] == 1 and
              r["unanswered_calls"] == 0 and r["orphan_replies"] == 0,
              f"resend: {r} (want one call, resent once, answered)")
        # first transmission frame 4 (index 3), reply frame 10 (index 9): 600 ms
        check(lat["count"] == 1 and lat["min"] == 600000 and lat["max"] == 600000,
              f"resend: latency {lat}, want 600000 us from the first transmission")
    if have_tshark():
        rows = tshark(path, ["frame.number", "tcp.stream", "rpc.msgtyp", "rpc.time",
                             "rpc.repframe"])
        check([r[:3] for r in rows] == [["4", "0", "0"], ["9", "1", "0"], ["10", "1", "1"]],
              f"resend: tshark rows {rows}")
        check(len(rows) == 3 and rows[2][3] == "0.100000000" and rows[0][4] == "",
              f"resend: tshark times the reply from the resend, the first call unanswered: {rows}")


def frag_record(msg, size):
    out = b""
    for i in range(0, len(msg), size):
        piece = msg[i:i + size]
        last = i + size >= len(msg)
        out += P.u32((0x80000000 if last else 0) | len(piece)) + piece
    return out


def test_frags():
    fr = []
    c = P.TcpConn(fr, cli=CLI, srv=SRV, isn=(1000, 5000))
    xid = 0x500
    want = 0
    for size in (1, 4, 8):          # at the start of the stream
        c.send(0, frag_record(P.rpc_call(xid, P.NFS_PROG, 3, 1, P.fh3(FH)), size))
        c.send(1, frag_record(getattr_reply(xid)[4:], size))
        xid += 1
        want += 1
    # A lost client segment: the stream resynchronises on the next record.
    c.seq[0] += 100
    for size in (1, 4, 8):
        c.send(0, frag_record(P.rpc_call(xid, P.NFS_PROG, 3, 1, P.fh3(FH)), size))
        c.send(1, frag_record(getattr_reply(xid)[4:], size))
        xid += 1
        want += 1
    path = os.path.join(WORK, "frags.pcap")
    P.write_pcap(path, fr)
    rep = report(path)
    if rep:
        g = rep["nfs3"]["ops"]["getattr"]
        check(g["calls"] == want and g["replies"] == want and rep["rpc"]["orphan_replies"] == 0,
              f"frags: getattr {g['calls']} calls, {g['replies']} replies, want {want}")
        check(rep["anomalies"]["rpc_resync"] == 1, "frags: one resync after the loss")
    # A stream whose capture begins mid-connection (no SYN), 1-byte fragments first.
    fr = []
    c = P.TcpConn([], cli=CLI, srv=SRV, isn=(1000, 5000))
    c.f = fr
    for size in (1, 4, 8):
        c.send(0, frag_record(P.rpc_call(xid, P.NFS_PROG, 3, 1, P.fh3(FH)), size))
        c.send(1, frag_record(getattr_reply(xid)[4:], size))
        xid += 1
    path2 = os.path.join(WORK, "frags-nosyn.pcap")
    P.write_pcap(path2, fr)
    rep = report(path2)
    if rep:
        g = rep["nfs3"]["ops"]["getattr"]
        check(g["calls"] == 3 and g["replies"] == 3, f"frags without SYN: {g['calls']} calls")
    if have_tshark():
        # tshark (4.0) decodes no record whose first fragment is shorter than
        # the RPC header, with or without "decode as RPC": the oracle is the
        # wire built above. Pinned, so that a tshark that learns it is seen.
        for p in (path, path2):
            msgs = [v for r in tshark(p, ["rpc.msgtyp"]) for v in r[0].split(",") if v]
            check(msgs == [], f"frags: tshark now decodes {len(msgs)} messages in {p}: "
                  "make it the oracle here")


def test_callback():
    fr = []
    c = P.TcpConn(fr, cli=CLI, srv=SRV, isn=(1000, 5000))
    xid = 0x777
    c.send(0, getattr_call(xid))                      # client -> server, pending
    lock = P.u32(0) + P.opaque(b"") + P.u32(0) + P.opaque(b"host") + P.opaque(FH) + \
        P.opaque(b"owner") + P.u32(42) + struct.pack(">QQ", 0, 100)
    granted = P.rpc_call(xid, 100021, 4, 5, lock)     # server -> client, same XID
    c.send(1, P.record(granted))
    c.send(0, P.record(P.rpc_reply(xid, P.opaque(b"") + P.u32(0))))  # the client's answer
    c.send(1, getattr_reply(xid))                     # the server's answer
    path = os.path.join(WORK, "callback.pcap")
    P.write_pcap(path, fr)
    rep = report(path, "--by", "client,server,pair")
    if rep:
        r = rep["rpc"]
        check(r["calls"] == 2 and r["replies"] == 2 and r["orphan_replies"] == 0 and
              r["unanswered_calls"] == 0 and r["retransmissions"] == 0,
              f"callback: {r} (want both calls answered)")
        check(rep["nfs3"]["ops"]["getattr"]["replies"] == 1 and
              rep["nlm4"]["ops"]["granted"]["replies"] == 1,
              "callback: the GETATTR and the GRANTED each answered")
        bd = rep["breakdowns"]
        rows = {d: [(x["key"], x["calls"]) for x in bd[d]["rows"]] for d in ("client", "server")}
        check(rows == {"client": [(CLI[0], 2)], "server": [(SRV[0], 2)]},
              f"callback: breakdowns {rows} (want both calls under the connection's roles)")
    if have_tshark():
        rows = tshark(path, ["frame.number", "rpc.msgtyp", "rpc.program", "rpc.repframe",
                             "rpc.reqframe"])
        # tshark keys calls by conversation and XID: the callback takes the
        # client call's place, and the GETATTR reply is matched to it.
        calls = [r for r in rows if r[1] == "0"]
        check(len(calls) == 2, f"callback: tshark calls {rows}")
        tsk_ok = all(r[3] != "" for r in calls) and len({r[3] for r in calls}) == 2
        check(not tsk_ok, f"callback: tshark now matches both calls right {rows}: "
              "make it the oracle here")


def main():
    global NFS, SAMPLES, WORK
    if len(sys.argv) != 4:
        print(__doc__)
        return 2
    NFS, SAMPLES, WORK = sys.argv[1:]
    os.makedirs(WORK, exist_ok=True)
    test_replay()
    test_rst()
    test_resend()
    test_frags()
    test_callback()
    rc = finish()
    if rc == 0 and not have_tshark():
        print("SKIP: tshark is not installed: its cross-checks did not run")
        return 77
    return rc


if __name__ == "__main__":
    sys.exit(main())
