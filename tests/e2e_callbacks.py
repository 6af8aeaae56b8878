#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""e2e_callbacks.py: NFSv4 callbacks (nfs4.callbacks in nfsscope -o json)
against tshark's decoding of the same frames.

  - the public captures with callback traffic (CB_NULL on the NFSv4.1 back
    channel): nfstrace-eth-ipv4-tcp-nfsv41.pcap and
    suricata-verify-nfs4-01-input.pcap;
  - a synthetic capture (the real sample below has only the 4.1 back
    channel: neither ganesha's VFS FSAL nor pynfs's NFSv4.0 server grants a
    delegation, so no server here calls a 4.0 client back) with both kinds
    of callback: an NFSv4.1 client whose
    server sends CB_COMPOUNDs (CB_SEQUENCE, CB_RECALL, CB_NOTIFY_LOCK) on the
    client's own connection, with XIDs that collide with the client's, and
    an NFSv4.0 client whose SETCLIENTID announces callback program
    0x40000123, called on a connection the server opens to the client; a
    READ delegation granted by OPEN, recalled by CB_RECALL and given back by
    DELEGRETURN, an OPEN of another file answered NFS4ERR_DELAY meanwhile,
    the 4.0 client's delegation recalled twice, the second CB_RECALL never
    answered, then a third client's OPENs of that file (by handle, and by
    the name the 4.0 client opened it by) answered NFS4ERR_DELAY and at last
    granted.
    tshark decodes program 0x40000000 only, so it reads a twin of the
    capture where the 4.0 client announced and is called on 0x40000000
    (same frames, same times); a third variant announces another number,
    and then the calls to 0x40000123 are calls to an unknown program.

Every expected number comes from tshark (nfs.cb_procedure, nfs.cb.operation,
nfs.status, rpc.time, nfs.opcode, nfs.stateid.other): callback calls,
replies, unanswered, CB_COMPOUND errors and latency, per callback operation
its occurrences, results and errors, and the first CB_RECALL to DELEGRETURN
time of the recalled delegation; the OPENs answered NFS4ERR_DELAY while
another client held a delegation of the file (deleg_delays.py: nfs.fh.hash,
nfs.pathname.component, nfs.open.delegation_type, frame times), whose
latency is the cost of delegation_recalls and not delay_grace_storms', and
their openers' wait until granted. A callback's client, in the breakdowns
(JSON and CSV) and the records, is the NFS client it is sent to (the
address that sends the fore channel's COMPOUNDs, as tshark shows them), its
server the NFS server, whichever end opened the connection.

The real sample samples/nfs41-deleg.pcap (pynfs's NFSv4.1 server, which
grants delegations; see samples/README.md) is checked against tshark and
against the generating client's record (nfs41-deleg.expect.json): callback
calls, replies and operations, delegations granted by type, DELEGRETURNs,
the recall to DELEGRETURN time to the microsecond of tshark's frame times,
the OPENs answered NFS4ERR_DELAY, the finding delegation_recalls (its
client the holder, 198.18.0.21; its cost B's two delayed OPENs' latency,
none left to delay_grace_storms), and the breakdowns' and records' clients
(the holder and the opener, 198.18.0.22, each from its own address).

  e2e_callbacks.py NFSSCOPE PCAPS_DIR WORKDIR SAMPLES_DIR
Exit 77 (skip) when tshark or the public captures are absent."""
import csv
import io
import json
import os
import shutil
import struct
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import check, finish, skip_part  # noqa: E402
import pcapsyn as ps  # noqa: E402
from deleg_delays import recall_delays  # noqa: E402

CB_PROG = 0x40000000
LEARNED = 0x40000123
OP_NAMES = {3: "cb_getattr", 4: "cb_recall", 11: "cb_sequence", 13: "cb_notify_lock"}
DELEG_TYPES = {0: "OPEN_DELEGATE_NONE", 1: "OPEN_DELEGATE_READ", 2: "OPEN_DELEGATE_WRITE",
               3: "OPEN_DELEGATE_NONE_EXT"}


# ---- XDR (RFC 4506) -------------------------------------------------------
def u32(v):
    return struct.pack(">I", v)


def u64(v):
    return struct.pack(">Q", v)


def opq(b):
    return ps.opaque(b)


def stateid(seqid, other):
    return u32(seqid) + other


SESSION = b"S" * 16
FH = b"\x01\x02FILE-HANDLE-0001"
DIRFH = b"\x01\x02DIR-HANDLE-00001"
DELEG = b"DELEG-OTHER1"     # 12 bytes: the delegation stateid's other
OPEN_SID = b"OPEN-OTHER01"
DELEG40 = b"DELEG-OTHER2"


def compound(minor, ops, tag=b""):
    return opq(tag) + u32(minor) + u32(len(ops)) + b"".join(ops)


def compound_res(status, res, tag=b""):
    return u32(status) + opq(tag) + u32(len(res)) + b"".join(res)


def cb_compound(minor, ident, ops, tag=b""):
    return opq(tag) + u32(minor) + u32(ident) + u32(len(ops)) + b"".join(ops)


def op_sequence(seq, slot=0):
    return u32(53) + SESSION + u32(seq) + u32(slot) + u32(0) + u32(0)


def res_sequence(seq, slot=0, flags=0):
    return u32(53) + u32(0) + SESSION + u32(seq) + u32(slot) + u32(7) + u32(7) + u32(flags)


def op_putfh(fh):
    return u32(22) + opq(fh)


def res_status(op, status=0):
    return u32(op) + u32(status)


def op_open(name, clientid=0):
    # seqid, share_access READ, share_deny NONE, open_owner4, OPEN4_NOCREATE, CLAIM_NULL name
    return (u32(18) + u32(0) + u32(1) + u32(0) + u64(clientid) + opq(b"owner1") + u32(0) +
            u32(0) + opq(name))


def op_open_fh():
    # seqid, share_access BOTH, share_deny NONE, open_owner4, OPEN4_NOCREATE, CLAIM_FH
    return (u32(18) + u32(0) + u32(3) + u32(0) + u64(0) + opq(b"owner4") + u32(0) +
            u32(4))


def res_open_none(open_other):
    # OPEN4resok: stateid, change_info4, rflags, attrset<>, OPEN_DELEGATE_NONE
    return (u32(18) + u32(0) + stateid(1, open_other) + u32(0) + u64(1) + u64(2) + u32(4) +
            u32(0) + u32(0))


def res_getfh(fh):
    return u32(10) + u32(0) + opq(fh)


def res_open_deleg(open_other, deleg_other):
    # OPEN4resok: stateid, change_info4, rflags, attrset<>, open_delegation4 READ:
    # stateid, recall, nfsace4 (type, flag, access_mask, who)
    return (u32(18) + u32(0) + stateid(1, open_other) + u32(0) + u64(1) + u64(2) + u32(4) +
            u32(0) + u32(1) + stateid(1, deleg_other) + u32(0) +
            u32(0) + u32(0) + u32(0) + opq(b"EVERYONE@"))


def op_delegreturn(other):
    return u32(8) + stateid(1, other)


def op_setclientid(cb_prog, port):
    addr = ("10.0.0.3.%d.%d" % (port >> 8, port & 255)).encode()
    # nfs_client_id4 (verifier, id), cb_client4 (program, netaddr4), callback_ident
    return (u32(35) + b"V" * 8 + opq(b"client40") + u32(cb_prog) + opq(b"tcp") +
            opq(addr) + u32(1))


def res_setclientid():
    return u32(35) + u32(0) + u64(0x1122334455667788) + b"C" * 8


def cb_op_sequence(seq):
    return u32(11) + SESSION + u32(seq) + u32(0) + u32(0) + u32(0) + u32(0)


def cb_res_sequence(seq):
    return u32(11) + u32(0) + SESSION + u32(seq) + u32(0) + u32(0) + u32(0)


def cb_op_recall(other, fh):
    return u32(4) + stateid(1, other) + u32(0) + opq(fh)


def cb_op_notify_lock(fh):
    return u32(13) + opq(fh) + u64(0x1122334455667788) + opq(b"lockowner")


# ---- the capture ------------------------------------------------------------
def build(announced, called, collide=True):
    """Frames of the synthetic capture: the 4.0 client announces `announced`
    and is called on `called`; collide: the 4.1 client's second OPEN has the
    XID of the server's CB_COMPOUND before it (tshark, which matches by XID
    alone, takes it for a retransmission: its twin has another XID)."""
    f = []
    c41 = ps.TcpConn(f, cli=("10.0.0.1", 801), srv=("10.0.0.2", 2049))
    rec = ps.record

    def call(conn, d, xid, prog, vers, proc, args):
        conn.send(d, rec(ps.rpc_call(xid, prog, vers, proc, args)))

    def reply(conn, d, xid, res):
        conn.send(d, rec(ps.rpc_reply(xid, res)))

    # 4.1: OPEN granting a READ delegation.
    call(c41, 0, 0x100, 100003, 4, 1,
         compound(1, [op_sequence(1), op_putfh(DIRFH), op_open(b"f1")]))
    reply(c41, 1, 0x100, compound_res(0, [res_sequence(1), res_status(22),
                                          res_open_deleg(OPEN_SID, DELEG)]))
    # Back channel: CB_NULL, then a CB_COMPOUND recalling it whose XID is the
    # client's next one (calls are keyed by direction).
    call(c41, 1, 0x101, CB_PROG, 1, 0, b"")
    reply(c41, 0, 0x101, b"")
    call(c41, 1, 0x102, CB_PROG, 1, 1,
         cb_compound(1, 0, [cb_op_sequence(1), cb_op_recall(DELEG, FH)]))
    xid = 0x102 if collide else 0x902
    call(c41, 0, xid, 100003, 4, 1,
         compound(1, [op_sequence(2), op_putfh(DIRFH), op_open(b"f2")]))
    reply(c41, 0, 0x102, compound_res(0, [cb_res_sequence(1), res_status(4)]))
    reply(c41, 1, xid, compound_res(10008, [res_sequence(2), res_status(22),
                                              res_status(18, 10008)]))  # NFS4ERR_DELAY
    # A CB_COMPOUND whose CB_NOTIFY_LOCK fails (NFS4ERR_BADHANDLE), one never answered.
    call(c41, 1, 0x103, CB_PROG, 1, 1,
         cb_compound(1, 0, [cb_op_sequence(2), cb_op_notify_lock(FH)]))
    reply(c41, 0, 0x103, compound_res(10001, [cb_res_sequence(2), res_status(13, 10001)]))
    # The client gives the delegation back.
    call(c41, 0, 0x104, 100003, 4, 1,
         compound(1, [op_sequence(3), op_putfh(FH), op_delegreturn(DELEG)]))
    reply(c41, 1, 0x104, compound_res(0, [res_sequence(3), res_status(22), res_status(8)]))
    call(c41, 1, 0x105, CB_PROG, 1, 1, cb_compound(1, 0, [cb_op_sequence(3)]))

    # 4.0: SETCLIENTID announcing the callback program, OPEN with a delegation.
    c40 = ps.TcpConn(f, cli=("10.0.0.3", 870), srv=("10.0.0.2", 2049), isn=(7000, 9000))
    call(c40, 0, 0x200, 100003, 4, 1, compound(0, [op_setclientid(announced, 40000)]))
    reply(c40, 1, 0x200, compound_res(0, [res_setclientid()]))
    call(c40, 0, 0x201, 100003, 4, 1,
         compound(0, [op_putfh(DIRFH), op_open(b"g1", 0x1122334455667788), u32(10)]))
    reply(c40, 1, 0x201, compound_res(0, [res_status(22), res_open_deleg(b"OPEN-OTHER02",
                                                                         DELEG40),
                                          res_getfh(FH)]))
    # The server opens the callback connection: CB_NULL, CB_COMPOUND(CB_RECALL).
    cb = ps.TcpConn(f, cli=("10.0.0.2", 1023), srv=("10.0.0.3", 40000), isn=(3000, 4000))
    call(cb, 0, 0x300, called, 1, 0, b"")
    reply(cb, 1, 0x300, b"")
    call(cb, 0, 0x301, called, 1, 1, cb_compound(0, 1, [cb_op_recall(DELEG40, FH)]))
    reply(cb, 1, 0x301, compound_res(0, [res_status(4)]))
    # The server recalls it again; the client never answers.
    call(cb, 0, 0x302, called, 1, 1, cb_compound(0, 1, [cb_op_recall(DELEG40, FH)]))

    # Another 4.1 client opens the file the 4.0 client still holds: by handle
    # and by the name the 4.0 client opened, both answered NFS4ERR_DELAY
    # (the recall); granted at last.
    c4 = ps.TcpConn(f, cli=("10.0.0.4", 801), srv=("10.0.0.2", 2049), isn=(11000, 13000))
    delay = [res_sequence(1), res_status(22), res_status(18, 10008)]
    call(c4, 0, 0x400, 100003, 4, 1, compound(1, [op_sequence(1), op_putfh(FH), op_open_fh()]))
    reply(c4, 1, 0x400, compound_res(10008, delay))
    call(c4, 0, 0x401, 100003, 4, 1,
         compound(1, [op_sequence(2), op_putfh(DIRFH), op_open(b"g1"), u32(10)]))
    reply(c4, 1, 0x401, compound_res(10008, delay))
    call(c4, 0, 0x402, 100003, 4, 1,
         compound(1, [op_sequence(3), op_putfh(DIRFH), op_open(b"g1"), u32(10)]))
    reply(c4, 1, 0x402, compound_res(0, [res_sequence(3), res_status(22),
                                         res_open_none(b"OPEN-OTHER04"), res_getfh(FH)]))
    return f


# ---- tshark's view ------------------------------------------------------------
def tshark_rows(pcap, fields, filt, extra=()):
    cmd = ["tshark", "-r", pcap, "-n", "-o", "rpc.desegment_rpc_over_tcp:TRUE"] + list(extra) + \
          ["-Y", filt, "-T", "fields", "-E", "separator=|", "-E", "occurrence=a",
           "-E", "aggregator=,"]
    for fl in fields:
        cmd += ["-e", fl]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    return [line.split("|") for line in out.splitlines() if line]


def tshark_truth(pcap, extra=()):
    """Callback calls and replies as tshark decodes them: per procedure,
    calls, replies, unanswered, CB_COMPOUND errors and latencies; per
    operation its occurrences, results and errors."""
    t = {"null": {"calls": 0, "replies": 0, "lat": []},
         "compound": {"calls": 0, "replies": 0, "errors": 0, "lat": [], "status": {}},
         "ops": {}, "calls_frames": set(), "replied": set()}
    rows = tshark_rows(pcap, ["frame.number", "rpc.msgtyp", "nfs.cb_procedure",
                              "nfs.cb.operation", "nfs.status", "rpc.time", "rpc.reqframe",
                              "rpc.repframe"],
                       "nfs.cb_procedure", extra)
    for fr, typ, proc, ops, status, rtime, reqf, repf in rows:
        proc = "null" if proc == "0" else "compound"
        p = t[proc]
        ops = [int(o) for o in ops.split(",") if o]
        stats = [int(s) for s in status.split(",") if s]
        if typ == "0":
            p["calls"] += 1
            t["calls_frames"].add(fr)
            for o in ops:
                t["ops"].setdefault(o, {"count": 0, "replies": 0, "errors": 0})["count"] += 1
            continue
        p["replies"] += 1
        t["replied"].add(reqf or repf)  # the call's frame ("Call In")
        p["lat"].append(round(float(rtime) * 1e6))
        if proc == "compound":
            # nfs.status: the CB_COMPOUND's status, then each result's
            if stats and stats[0] != 0:
                p["errors"] += 1
            for o, s in zip(ops, stats[1:]):
                r = t["ops"].setdefault(o, {"count": 0, "replies": 0, "errors": 0})
                r["replies"] += 1
                r["errors"] += s != 0
    t["unanswered"] = len(t["calls_frames"] - t["replied"])
    return t


def run_json(nfsscope, pcap):
    out = subprocess.run([nfsscope, "-r", pcap, "-o", "json"], capture_output=True, text=True,
                         check=True).stdout
    return json.loads(out)


def compare(label, cb, t, compound_unanswered=None):
    """nfsscope's callbacks object against tshark's view t."""
    for proc in ("null", "compound"):
        row, tr = cb[proc], t[proc]
        check(row["calls"] == tr["calls"],
              "%s: %s calls %s, tshark %s" % (label, proc, row["calls"], tr["calls"]))
        check(row["replies"] == tr["replies"],
              "%s: %s replies %s, tshark %s" % (label, proc, row["replies"], tr["replies"]))
        lat = row["latency_us"]
        check(lat["count"] == len(tr["lat"]), "%s: %s latency count" % (label, proc))
        if tr["lat"]:
            check(lat["min"] == min(tr["lat"]) and lat["max"] == max(tr["lat"]),
                  "%s: %s latency min/max %s/%s, tshark %s/%s" %
                  (label, proc, lat["min"], lat["max"], min(tr["lat"]), max(tr["lat"])))
    check(cb["compound"]["errors"] == t["compound"]["errors"],
          "%s: CB_COMPOUND errors %s, tshark %s" % (label, cb["compound"]["errors"],
                                                   t["compound"]["errors"]))
    unanswered = cb["compound"]["unanswered_calls"] + cb["null"].get("unanswered", 0)
    check(unanswered == t["unanswered"],
          "%s: unanswered %s, tshark %s" % (label, unanswered, t["unanswered"]))
    for op, tr in sorted(t["ops"].items()):
        name = OP_NAMES.get(op, "op%d" % op)
        row = cb["ops"].get(name, {})
        for k in ("count", "replies", "errors"):
            check(row.get(k) == tr[k], "%s: %s %s %s, tshark %s" % (label, name, k, row.get(k),
                                                                   tr[k]))
    check(set(cb["ops"]) == {OP_NAMES.get(o, "op%d" % o) for o in t["ops"]},
          "%s: operations %s, tshark %s" % (label, sorted(cb["ops"]), sorted(t["ops"])))


def recall_truth(pcap, extra):
    """First CB_RECALL call to DELEGRETURN call of each delegation, in us,
    from tshark's frame times and stateids."""
    recall, ret = {}, {}
    for fr, t, other in tshark_rows(pcap, ["frame.number", "frame.time_epoch",
                                           "nfs.stateid.other"],
                                    "nfs.cb.operation == 4 && rpc.msgtyp == 0", extra):
        recall.setdefault(other, float(t))
    for fr, t, other in tshark_rows(pcap, ["frame.number", "frame.time_epoch",
                                           "nfs.stateid.other"],
                                    "nfs.opcode == 8 && rpc.msgtyp == 0", extra):
        ret.setdefault(other, float(t))
    return recall, ret, [round((ret[o] - recall[o]) * 1e6) for o in recall if o in ret]


def finding_truth(pcap, extra=()):
    """What the finding delegation_recalls should say, from tshark:
    CB_RECALL COMPOUNDs answered and never answered, the recall to
    DELEGRETURN times, the OPENs answered NFS4ERR_DELAY while another
    client held a delegation of the file, their latency and their openers'
    wait until granted (deleg_delays.py)."""
    recall, ret, times = recall_truth(pcap, extra)
    answered = tshark_rows(pcap, ["frame.number", "rpc.reqframe", "rpc.repframe"],
                           "nfs.cb.operation == 4 && rpc.msgtyp == 1", extra)
    unanswered = {r[0] for r in tshark_rows(pcap, ["frame.number"],
                                            "nfs.cb.operation == 4 && rpc.msgtyp == 0", extra)}
    unanswered -= {r[1] or r[2] for r in answered}  # the call's frame ("Call In")
    holders = {r[0] for r in tshark_rows(pcap, ["ip.dst"],
                                         "nfs.cb.operation == 4 && rpc.msgtyp == 0", extra)}
    return {"answered": answered, "unanswered": unanswered, "times": times,
            "holders": holders, "delays": recall_delays(pcap, extra)}


def check_finding(label, rep, t):
    """The finding delegation_recalls against finding_truth t; its clients
    are the ones the CB_RECALLs were sent to."""
    fd = {x["kind"]: x for x in rep["findings"]}.get("delegation_recalls")
    answered, unanswered, times = t["answered"], t["unanswered"], t["times"]
    check(fd is not None and fd["count"] == len(answered) + len(unanswered),
          "%s: finding delegation_recalls count %s, tshark's CB_RECALLs %d answered, %d not" %
          (label, fd and fd["count"], len(answered), len(unanswered)))
    if not fd:
        return
    ev = fd["evidence"]
    check(ev["cb_recall"] == len(answered) and ev["recalls_unanswered"] == len(unanswered),
          "%s: finding: CB_RECALLs %s answered, %s not; tshark %d, %d" %
          (label, ev["cb_recall"], ev["recalls_unanswered"], len(answered), len(unanswered)))
    got = {c["client"] for c in fd["top_clients"]}
    check(got == t["holders"], "%s: finding: its clients %s, tshark's CB_RECALL receivers %s" %
          (label, sorted(got), sorted(t["holders"])))
    check(ev["returned"] == len(times) and ev["recall_to_return_max_us"] == max(times) and
          ev["recall_to_return_us"] == sum(times),
          "%s: finding: returned %s after %s us (longest %s), tshark %d, %s (%s)" %
          (label, ev["returned"], ev["recall_to_return_us"], ev["recall_to_return_max_us"],
           len(times), sum(times), max(times)))
    d = t["delays"]
    check(ev["opens_delayed"] == len(d["delayed"]),
          "%s: finding: OPENs delayed by a recall %s, tshark %d" %
          (label, ev["opens_delayed"], len(d["delayed"])))
    check(fd.get("cost_us") == d["cost_us"],
          "%s: finding: cost %s us, tshark's latency of the OPENs delayed by a recall %d us" %
          (label, fd.get("cost_us"), d["cost_us"]))
    waits = (ev.get("opens_granted_after_delay"), ev.get("open_wait_us"),
             ev.get("open_wait_max_us"))
    check(waits == (len(d["waits"]), sum(d["waits"]), max(d["waits"], default=0)),
          "%s: finding: openers granted after a delay, their wait (us), the longest %s; "
          "tshark %d, %d, %d" % (label, waits, len(d["waits"]), sum(d["waits"]),
                                 max(d["waits"], default=0)))
    dg = {x["kind"]: x for x in rep["findings"]}.get("delay_grace_storms")
    check((dg["count"] if dg else 0) == d["delay_other"],
          "%s: delay_grace_storms %s, tshark's DELAY/GRACE answers no recall explains %d" %
          (label, dg and dg["count"], d["delay_other"]))
    check(ev["deleg_revoked"] == 0 and ev["recallable_state_revoked"] == 0,
          "%s: finding: nothing revoked" % label)


def roles_truth(pcap, extra):
    """Per call frame, the NFS client and server it concerns and their
    ports, from tshark: an NFS call's (NULL, COMPOUND) sender and receiver,
    a callback's receiver and sender."""
    fields = ["frame.number", "ip.src", "ip.dst", "tcp.srcport", "tcp.dstport"]
    roles = {}
    for fr, src, dst, sp, dp in tshark_rows(pcap, fields, "rpc.program == 100003 && "
                                            "rpc.msgtyp == 0", extra):
        roles[fr] = (src, dst, sp, dp)
    for fr, src, dst, sp, dp in tshark_rows(pcap, fields, "nfs.cb_procedure && rpc.msgtyp == 0",
                                            extra):
        roles[fr] = (dst, src, dp, sp)
    return roles


def check_roles(nfsscope, pcap, roles, work):
    """Breakdown rows (JSON, CSV) and records name the NFS client and
    server of tshark's roles."""
    want = {"client": {}, "server": {}, "pair": {}}
    for c, s, _, _ in roles.values():
        for dim, key in (("client", c), ("server", s), ("pair", "%s -> %s" % (c, s))):
            want[dim][key] = want[dim].get(key, 0) + 1
    recs = os.path.join(work, "callbacks-records.csv")
    by = ["--by", "client,server,pair"]
    rep = json.loads(subprocess.run([nfsscope, "-r", pcap, "-o", "json", "--records", recs] + by,
                                    capture_output=True, text=True, check=True).stdout)
    out = subprocess.run([nfsscope, "-r", pcap, "-o", "csv"] + by, capture_output=True,
                         text=True, check=True).stdout
    csv_rows = {}
    for row in csv.reader(io.StringIO(out)):
        if len(row) > 2 and row[0] in want and row[1] != "(other)":
            csv_rows.setdefault(row[0], {})[row[1]] = int(row[2])
    for dim, rows in want.items():
        got = {r["key"]: r["calls"] for r in rep["breakdowns"][dim]["rows"]}
        check(got == rows, "roles: %s rows %s, tshark %s" % (dim, got, rows))
        check(csv_rows.get(dim) == rows, "roles: CSV %s rows %s, tshark %s" %
              (dim, csv_rows.get(dim), rows))
    with open(recs, newline="") as fh:
        recs = list(csv.DictReader(fh))
    check(len(recs) == len(roles), "roles: %d records, tshark %d calls" % (len(recs), len(roles)))
    for r in recs:
        got = (r["client"], r["server"], r["client_port"], r["server_port"])
        check(roles.get(r["call_frame"]) == got, "roles: record of frame %s %s, tshark %s" %
              (r["call_frame"], got, roles.get(r["call_frame"])))


def check_sample(nfsscope, samples, work):
    """nfs41-deleg: a read delegation recalled between two clients, against
    tshark and the client's record."""
    path = os.path.join(samples, "nfs41-deleg.pcap")
    with open(os.path.join(samples, "nfs41-deleg.expect.json")) as fh:
        exp = json.load(fh)
    label = "nfs41-deleg"
    rep = run_json(nfsscope, path)
    cb = rep["nfs4"]["callbacks"]
    compare(label, cb, tshark_truth(path))
    # the client's record of the callbacks it answered
    ecb = exp["nfs4_cb"]
    for proc, name in (("null", "CB_NULL"), ("compound", "CB_COMPOUND")):
        e = ecb["by_proc"].get(name, {"calls": 0, "replies": 0})
        check((cb[proc]["calls"], cb[proc]["replies"]) == (e["calls"], e["replies"]),
              "%s: %s calls/replies %s/%s, client's record %s/%s" %
              (label, name, cb[proc]["calls"], cb[proc]["replies"], e["calls"], e["replies"]))
    check({k.upper(): v["count"] for k, v in cb["ops"].items()} == ecb["ops"],
          "%s: callback operations %s, client's record %s" % (label, sorted(cb["ops"]),
                                                             ecb["ops"]))
    # delegations by type: the OPEN results' delegation type (tshark)
    dtypes = {}
    for (dt,) in tshark_rows(path, ["nfs.open.delegation_type"],
                             "nfs.open.delegation_type && rpc.msgtyp == 1"):
        name = DELEG_TYPES[int(dt)]
        dtypes[name] = dtypes.get(name, 0) + 1
    dl = rep["nfs4"]["delegations"]
    got = {k: v for k, v in dl["by_type"].items() if v}
    check(got == dtypes == exp["nfs4"]["delegations_granted"],
          "%s: delegations by type %s, tshark %s, client's record %s" %
          (label, got, dtypes, exp["nfs4"]["delegations_granted"]))
    granted = dtypes.get("OPEN_DELEGATE_READ", 0) + dtypes.get("OPEN_DELEGATE_WRITE", 0)
    check(dl["granted"] == granted == 1,
          "%s: delegations granted %s, tshark %d" % (label, dl["granted"], granted))
    n_ret = len(tshark_rows(path, ["frame.number"], "nfs.opcode == 8 && rpc.msgtyp == 0"))
    e_ret = exp["nfs4"]["ops"]["DELEGRETURN"]["count"]
    check(dl["delegreturn"]["calls"] == dl["delegreturn"]["returned"] == n_ret == e_ret,
          "%s: DELEGRETURN %s (returned %s), tshark %d, client's record %d" %
          (label, dl["delegreturn"]["calls"], dl["delegreturn"]["returned"], n_ret, e_ret))
    # the recall and its DELEGRETURN, to the microsecond of tshark's frame times
    recall, _, times = recall_truth(path, ())
    check(len(recall) == len(times) == 1, "%s: tshark sees one delegation recalled and "
          "returned (%d, %d)" % (label, len(recall), len(times)))
    rc = cb["recalls"]
    check(rc["cb_recall"] == len(recall) and rc["returned"] == len(times) and
          rc["pending"] == 0 and rc["latency_us"]["count"] == len(times),
          "%s: recalls %s" % (label, rc))
    if times:
        check(rc["latency_us"]["min"] == rc["latency_us"]["max"] == times[0],
              "%s: recall to DELEGRETURN %s us, tshark %s us" %
              (label, rc["latency_us"]["max"], times[0]))
    # OPENs answered NFS4ERR_DELAY, all of them: the OPEN's status
    n_delay = len([r for r in tshark_rows(path, ["nfs.status"],
                                          "nfs.opcode == 18 && rpc.msgtyp == 1")
                   if r[0].split(",")[0] == "10008"])
    e_delay = exp["nfs4"]["ops"]["OPEN"]["status"].get("NFS4ERR_DELAY", 0)
    got = rep["nfs4"]["ops"]["open"]["status"].get("NFS4ERR_DELAY", 0)
    check(got == n_delay == e_delay == 2,
          "%s: OPENs answered NFS4ERR_DELAY %s, tshark %d, client's record %d" %
          (label, got, n_delay, e_delay))
    # the finding: both of B's OPENs answered NFS4ERR_DELAY waited for A's
    # delegation (the server answers the first and sends its CB_RECALL from
    # two threads, so which reaches the wire first depends on the run): their
    # time is delegation_recalls', none is left to delay_grace_storms
    ft = finding_truth(path)
    check(len(ft["delays"]["delayed"]) == n_delay and ft["delays"]["delay_other"] == 0,
          "%s: tshark: %d NFS4ERR_DELAY OPEN replies while A held the delegation, of %d" %
          (label, len(ft["delays"]["delayed"]), n_delay))
    check(len(ft["holders"]) == 1 and len(roles_truth(path, ())) > 0,
          "%s: one delegation holder among the clients" % label)
    check_finding(label, rep, ft)
    check_roles(nfsscope, path, roles_truth(path, ()), work)


def main():
    nfsscope, pcaps, work, samples = sys.argv[1:5]
    if not shutil.which("tshark"):
        skip_part("tshark not installed")
        return finish()
    os.makedirs(work, exist_ok=True)

    # Public captures: CB_NULL on the 4.1 back channel.
    for name in ("nfstrace-eth-ipv4-tcp-nfsv41.pcap", "suricata-verify-nfs4-01-input.pcap"):
        path = os.path.join(pcaps, name)
        if not os.path.exists(path):
            skip_part("%s absent" % path, ci_required=True)
            continue
        t = tshark_truth(path)
        check(t["null"]["calls"] + t["compound"]["calls"] > 0, "%s: tshark sees callbacks" % name)
        rep = run_json(nfsscope, path)
        compare(name, rep["nfs4"]["callbacks"], t)
        check(rep["rpc"]["unknown_program_calls"] == 0,
              "%s: no calls to unknown programs left" % name)

    check_sample(nfsscope, samples, work)

    # Synthetic: nfsscope on the capture with the learned program number,
    # tshark on its twin with 0x40000000.
    real = os.path.join(work, "callbacks.pcap")
    twin = os.path.join(work, "callbacks-twin.pcap")
    other = os.path.join(work, "callbacks-unannounced.pcap")
    ps.write_pcap(real, build(LEARNED, LEARNED))
    ps.write_pcap(twin, build(CB_PROG, CB_PROG, collide=False))
    ps.write_pcap(other, build(LEARNED + 1, LEARNED))
    extra = ("-d", "tcp.port==40000,rpc")
    t = tshark_truth(twin, extra)
    check(t["compound"]["calls"] == 5 and t["null"]["calls"] == 2,
          "twin: tshark decodes the callbacks (%d CB_COMPOUND, %d CB_NULL)" %
          (t["compound"]["calls"], t["null"]["calls"]))
    rep = run_json(nfsscope, real)
    cb = rep["nfs4"]["callbacks"]
    compare("synthetic", cb, t)
    check(cb["programs"]["learned"] == 1, "synthetic: one program number learned")
    check(rep["rpc"]["unknown_program_calls"] == 0, "synthetic: no unknown program calls")
    # The client's own calls with the XIDs the callbacks reuse are intact.
    fwd = tshark_rows(twin, ["frame.number"], "nfs.main_opcode && rpc.msgtyp == 0", extra)
    check(rep["nfs4"]["compound"]["calls"] == len(fwd),
          "synthetic: COMPOUND calls %s, tshark %s" % (rep["nfs4"]["compound"]["calls"],
                                                       len(fwd)))
    recall, ret, times = recall_truth(twin, extra)
    rc = cb["recalls"]
    check(rc["cb_recall"] == len(tshark_rows(twin, ["frame.number"],
                                             "nfs.cb.operation == 4 && rpc.msgtyp == 0",
                                             extra)),
          "synthetic: CB_RECALL calls %s" % rc["cb_recall"])
    check(rc["returned"] == len(times) and rc["latency_us"]["count"] == len(times),
          "synthetic: recalled delegations returned %s, tshark %s" % (rc["returned"], len(times)))
    if times:
        check(rc["latency_us"]["max"] == max(times) and rc["latency_us"]["min"] == min(times),
              "synthetic: recall to DELEGRETURN %s..%s us, tshark %s..%s" %
              (rc["latency_us"]["min"], rc["latency_us"]["max"], min(times), max(times)))
    check(rc["pending"] == len(recall) - len(times),
          "synthetic: recalls not returned %s, tshark %s" % (rc["pending"],
                                                             len(recall) - len(times)))
    check(len(finding_truth(twin, extra)["unanswered"]) == 1,
          "tshark: one CB_RECALL never answered")
    check_finding("synthetic", rep, finding_truth(twin, extra))
    check_roles(nfsscope, real, roles_truth(twin, extra), work)
    # Negative: a number nobody announced is not taken for callbacks. tshark
    # decodes no call to an unknown program on a connection it did not see
    # open with a known one, so its count is that of the same frames in the
    # twin (the calls on the server-opened connection).
    rep = run_json(nfsscope, other)
    n_unk = len(tshark_rows(twin, ["frame.number"],
                            "tcp.srcport == 1023 && rpc.msgtyp == 0", extra))
    check(n_unk == 3, "unannounced: tshark sees 3 calls on the callback connection")
    check(rep["rpc"]["unknown_program_calls"] == n_unk,
          "unannounced: unknown program calls %s, tshark %s" %
          (rep["rpc"]["unknown_program_calls"], n_unk))
    check(rep["nfs4"]["callbacks"]["calls"] == t["null"]["calls"] + t["compound"]["calls"] - n_unk,
          "unannounced: only the back channel's callbacks")
    return finish()


if __name__ == "__main__":
    sys.exit(main())
