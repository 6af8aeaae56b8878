#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""e2e_findings_nfs4.py: the NFSv4 findings on the NFSv4 samples, against
the generating client's own record (NAME.expect.json) and against tshark's
decoding of the same capture (its per-operation fields, the rule applied
here in Python):

- stable_writes: WRITEs sent DATA_SYNC4 or FILE_SYNC4 (never UNSTABLE4);
- negative_lookups: LOOKUPs and OPENs answered NFS4ERR_NOENT by that op;
- lock_contention: LOCKs answered NFS4ERR_DENIED (LOCKTs as evidence);
- delay_grace_storms: COMPOUNDs answered NFS4ERR_DELAY or NFS4ERR_GRACE
  but the OPENs a delegation held by another client delayed (tshark's
  decoding, deleg_delays.py), and the time from the first try to the
  success against the client's wait;
- stale_state / session_limits: COMPOUNDs by status; REP_TOO_BIG against
  the session's ca_maxresponsesize (the client's record of the fore channel
  the server granted, tshark's nfs.maxrespsize4) and the READ counts
  (tshark's nfs.count4 of the READs answered so, and of those that went
  through);
- open_close_storm: short opens without a delegation (nfs41-state opens
  one file nine times), the delegations and why_no_delegation the client saw;
- redundant_getattr on nfs41-ls: only GETATTR COMPOUNDs, with the change
  attribute the client already held (tshark's nfs.changeid4);
- mount_option_whatif for NFSv4: the COMPOUNDs by kind are tshark's by
  nfs.main_opcode; read delegations would remove the later OPENs and CLOSEs
  of each file and the GETATTR COMPOUNDs of an opened file (the rule on
  tshark's fields: OPEN's GETFH handle, CLOSE's and GETATTR's PUTFH);
- NLM (nlm-locks): denied LOCKs in lock_contention, denied TESTs as evidence;
- lock_contention's conflicting locks: holder (clientid and owner, NLM svid
  and owner handle), range and type as tshark decodes LOCK4denied and
  nlm4_holder, and as the client recorded them;
- one call's time in one finding only: on a capture built here where two
  NFSv4 findings count the same COMPOUNDs (a DESTROY_SESSION answered
  NFS4ERR_DELAY while recovering from NFS4ERR_BAD_STATEID is a delay and a
  recovery COMPOUND), the findings' costs add up to tshark's rpc.time of the
  COMPOUNDs they count, each once, and the rest is unexplained.

usage: e2e_findings_nfs4.py NFSSCOPE SAMPLES_DIR
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

import pcapsyn as P
from checks import check, finish, skip_part
from deleg_delays import recall_delays

SAMPLES = ["nfs40-ops", "nfs41-deleg", "nfs41-grace", "nfs41-ls", "nfs41-rep-too-big",
           "nfs41-session", "nfs41-state", "nfs42-ops"]
STALE = {"NFS4ERR_BAD_STATEID", "NFS4ERR_OLD_STATEID", "NFS4ERR_STALE_STATEID",
         "NFS4ERR_STALE_CLIENTID", "NFS4ERR_EXPIRED", "NFS4ERR_BADSESSION",
         "NFS4ERR_DEADSESSION", "NFS4ERR_BAD_SEQID", "NFS4ERR_ADMIN_REVOKED",
         "NFS4ERR_DELEG_REVOKED"}
LIMITS = {"NFS4ERR_BADSLOT", "NFS4ERR_SEQ_MISORDERED", "NFS4ERR_RETRY_UNCACHED_REP",
          "NFS4ERR_SEQ_FALSE_RETRY", "NFS4ERR_BAD_HIGH_SLOT", "NFS4ERR_REP_TOO_BIG",
          "NFS4ERR_REP_TOO_BIG_TO_CACHE", "NFS4ERR_REQ_TOO_BIG", "NFS4ERR_TOO_MANY_OPS"}
OP_LOCK, OP_LOCKT, OP_LOOKUP, OP_OPEN, OP_GETATTR, OP_WRITE = 12, 13, 15, 18, 9, 38


def findings(nfsscope, path):
    p = subprocess.run([nfsscope, "-o", "json", "-r", path], capture_output=True, timeout=300)
    check(p.returncode == 0, f"{path}: exit {p.returncode} {p.stderr!r}")
    return {f["kind"]: f for f in json.loads(p.stdout)["findings"]}


def count(fs, kind):
    return fs[kind]["count"] if kind in fs else 0


def tshark_rows(path):
    """Per RPC message: time, type, xid (with the client: a call's source, a
    reply's destination; two clients may use one XID), ops, statuses (the
    COMPOUND's first, then each op's), PUTFH handle hashes (calls) or
    GETFH's (replies), the change attributes, stable_how4."""
    p = subprocess.run(["tshark", "-n", "-r", path, "-Y", "nfs", "-T", "fields",
                        "-E", "separator=|", "-e", "frame.time_epoch", "-e", "rpc.msgtyp",
                        "-e", "rpc.xid", "-e", "nfs.opcode", "-e", "nfs.nfsstat4",
                        "-e", "nfs.fh.hash", "-e", "nfs.changeid4", "-e", "nfs.stable_how4",
                        "-e", "nfs.main_opcode", "-e", "nfs.open.delegation_type",
                        "-e", "ip.src", "-e", "ip.dst"],
                       capture_output=True, text=True, timeout=300)
    check(p.returncode == 0, f"tshark {path}: {p.stderr[-300:]}")
    rows = []
    for line in p.stdout.splitlines():
        t, typ, xid, ops, st, fh, chg, stable, main, deleg, src, dst = line.split("|")
        ints = lambda s: [int(x, 0) for x in s.split(",") if x]
        client = dst if typ == "1" else src
        rows.append({"t": float(t), "reply": typ == "1", "xid": (client, xid), "ops": ints(ops),
                     "st": ints(st), "fh": [x for x in fh.split(",") if x],
                     "chg": ints(chg), "stable": ints(stable), "main": ints(main),
                     "deleg": (ints(deleg) or [None])[0]})
    return rows


def op_status(r, op):
    """Statuses of op in a reply (nfs.nfsstat4: the COMPOUND's, then per op)."""
    return [s for o, s in zip(r["ops"], r["st"][1:]) if o == op]


def redundant_getattrs(rows, window=3.0):
    """The rule on tshark's fields: a GETATTR COMPOUND whose change attribute
    the client already held for that handle from a reply less than window s
    old, with no WRITE COMPOUND on it since."""
    calls = {r["xid"]: r for r in rows if not r["reply"]}
    held, n = {}, 0
    for r in rows:
        c = calls.get(r["xid"])
        if not r["reply"] or not c or OP_GETATTR not in r["ops"] or 26 in r["ops"]:
            if r["reply"] and c and OP_WRITE in c["ops"] and c["fh"]:
                held.pop(c["fh"][-1], None)
            continue
        fh = r["fh"][-1] if r["fh"] else (c["fh"][-1] if c["fh"] else None)
        if fh is None or not r["chg"]:
            continue
        if c["main"] == [OP_GETATTR]:
            h = held.get(fh)
            if h and c["t"] - h[0] <= window and h[1] == r["chg"][-1]:
                n += 1
        held[fh] = (r["t"], r["chg"][-1])
    return n


def check_holders(name, path, conflicts):
    """The conflicting locks (holder clientid and owner, range, type) are the
    LOCK4denied tshark decodes from the LOCK/LOCKT replies answered
    NFS4ERR_DENIED, each with as many denials."""
    p = subprocess.run(["tshark", "-n", "-r", path, "-Y", "rpc.msgtyp==1 && nfs.nfsstat4==10010",
                        "-T", "fields", "-e", "nfs.clientid", "-e", "nfs.lock_owner4", "-e",
                        "nfs.offset4", "-e", "nfs.length4", "-e", "nfs.locktype4"],
                       capture_output=True, text=True, timeout=300)
    types = {1: "READ_LT", 2: "WRITE_LT", 3: "READW_LT", 4: "WRITEW_LT"}
    want = {}
    for line in p.stdout.splitlines():
        cid, owner, off, ln, typ = line.split("\t")
        k = ("%016x" % int(cid, 16), bytes.fromhex(owner).decode(), int(off), int(ln),
             types[int(typ)])
        want[k] = want.get(k, 0) + 1
    got = {(c["holder"]["clientid"], c["holder"]["owner"], c["offset"], c["length"], c["type"]):
           c["denials"] for c in conflicts}
    check(want and got == want, f"{name}: conflicting locks {got} == tshark's {want}")


# the kinds of the man page's per-kind rows, by operation number (RFC 8881
# §16.2, RFC 7530 §16 OPEN_CONFIRM, RFC 7862 §15 READ_PLUS, WRITE_SAME)
KIND_OF_MAIN = {"getattr": (9,), "open": (18, 20, 21), "close": (4,), "lookup": (15, 16, 19),
                "read": (25, 68), "write": (38, 64), "access": (3,), "readdir": (26,)}


def check_whatif4(name, path, rows):
    """The NFSv4 what-if's COMPOUNDs now by kind, and the read-delegation
    estimate (a delegation is one client's: a client's opens of a file), on
    tshark's fields."""
    p = subprocess.run([sys.argv[1], "-o", "json", "-r", path], capture_output=True, timeout=300)
    fs = {f["kind"]: f for f in json.loads(p.stdout)["findings"]}
    wi = fs.get("mount_option_whatif", {}).get("nfs4")
    # each COMPOUND call's main operation; a frame may carry several calls
    q = subprocess.run(["tshark", "-n", "-r", path, "-Y", "rpc.msgtyp==0 && nfs", "-T", "fields",
                        "-e", "rpc.xid", "-e", "rpc.procedure", "-e", "nfs.main_opcode"],
                       capture_output=True, text=True, timeout=300)
    mains = []
    for line in q.stdout.splitlines():
        xids, procs, main = (x.split(",") for x in line.split("\t"))
        if len(xids) > 1:
            check(len(main) == len(xids), f"{name}: one main operation per batched call")
            mains += [[int(m)] for m, pr in zip(main, procs) if pr == "1"]
        elif procs == ["1"]:
            mains.append([int(m) for m in main if m])
    check(wi is not None and wi["compounds_now"] == len(mains),
          f"{name}: what-if COMPOUNDs {wi and wi['compounds_now']} == tshark's {len(mains)}")
    if not wi:
        return
    calls = {r["xid"]: r for r in rows if not r["reply"]}
    procs = {s["name"]: s for s in wi["scenarios"]}["defaults"]["procs"]
    for kind, ops in KIND_OF_MAIN.items():
        n = sum(1 for m in mains if m[:1] and m[0] in ops)
        check(procs.get(kind, {}).get("now", 0) == n,
              f"{name}: what-if {kind} COMPOUNDs now {procs.get(kind, {}).get('now', 0)} == {n}")
    opens, closes, want = {}, {}, {"open": 0, "close": 0, "getattr": 0}
    for r in rows:
        c = calls.get(r["xid"])
        if not r["reply"] or not c or not c["main"]:
            continue
        if c["main"][0] == OP_OPEN and op_status(r, OP_OPEN) == [0] and r["fh"]:
            fh = (r["xid"][0], r["fh"][-1])
            want["open"] += opens.get(fh, 0) > 0
            opens[fh] = opens.get(fh, 0) + 1
        elif c["main"][0] == 4 and op_status(r, 4) == [0] and c["fh"]:
            fh = (r["xid"][0], c["fh"][-1])
            if fh in opens:
                want["close"] += closes.get(fh, 0) > 0
                closes[fh] = closes.get(fh, 0) + 1
        elif c["main"] == [OP_GETATTR] and r["st"][:1] == [0] and c["fh"]:
            want["getattr"] += (r["xid"][0], c["fh"][-1]) in opens
    d = wi["read_delegations"]
    got = {"open": d["open_saved"], "close": d["close_saved"], "getattr": d["getattr_saved"]}
    check(got == want, f"{name}: read delegations would save {got} == tshark's {want}")
    check(d["compounds_estimated"] == len(mains) - sum(want.values()),
          f"{name}: read delegations' COMPOUNDs {d['compounds_estimated']}")


def check_rep_too_big(name, fs, exp, path, have_tshark):
    """session_limits' rep_too_big evidence against the client's record and
    tshark: the session's maximum reply size, the READ counts."""
    st = exp["nfs4"]["compound"]["status"]
    want = st.get("NFS4ERR_REP_TOO_BIG", 0) + st.get("NFS4ERR_REP_TOO_BIG_TO_CACHE", 0)
    rtb = fs.get("session_limits", {}).get("evidence", {}).get("rep_too_big")
    if not want:
        check(rtb is None, f"{name}: no rep_too_big evidence without REP_TOO_BIG")
        return
    check(rtb is not None and rtb["compounds"] == want,
          f"{name}: rep_too_big compounds {rtb and rtb['compounds']} == client's {want}")
    if not rtb:
        return
    fore = exp["nfs4"].get("fore_channels", [])
    check(len(fore) == 1 and rtb["max_response_size"] == fore[0]["maxresponsesize"],
          f"{name}: max_response_size {rtb['max_response_size']} == the client's fore channel "
          f"{fore}")
    check(rtb["session_unseen"] == 0, f"{name}: the session's CREATE_SESSION is in the capture")
    if not have_tshark:
        return
    p = subprocess.run(["tshark", "-n", "-r", path, "-Y", "nfs.maxrespsize4 || nfs.opcode==25",
                        "-T", "fields", "-e", "rpc.msgtyp", "-e", "rpc.xid", "-e", "nfs.opcode",
                        "-e", "nfs.maxrespsize4", "-e", "nfs.count4", "-e", "nfs.nfsstat4"],
                       capture_output=True, text=True, timeout=300)
    count, status, maxresp = {}, {}, None
    for line in p.stdout.splitlines():
        typ, xids, ops, mrs, counts, sts = line.split("\t")
        xids = xids.split(",")
        if typ.split(",")[0] == "0" and counts:
            for x, c in zip(xids, counts.split(",")):  # one READ per COMPOUND here
                count[x] = int(c)
        elif typ == "1":
            if mrs and maxresp is None:
                maxresp = int(mrs.split(",")[0])  # CREATE_SESSION's fore channel first
            if sts:
                status[xids[0]] = int(sts.split(",")[0])
    big = [count[x] for x, s in status.items() if s in (10066, 10067) and x in count]
    ok = [count[x] for x, s in status.items() if s == 0 and x in count]
    check(rtb["max_response_size"] == maxresp,
          f"{name}: max_response_size == tshark's ca_maxresponsesize {maxresp}")
    check(rtb["reads"] == len(big) and rtb["read_count_max"] == max(big, default=0),
          f"{name}: REP_TOO_BIG READs {rtb['reads']}, up to {rtb['read_count_max']} == tshark's "
          f"{big}")
    check(rtb["reads_over_max"] == sum(1 for c in big if c > maxresp),
          f"{name}: READs over the maximum {rtb['reads_over_max']}")
    check(rtb["read_ok_max"] == max(ok, default=0),
          f"{name}: largest READ that went through {rtb['read_ok_max']} == tshark's "
          f"{max(ok, default=0)}")


# ---- one call's time in one finding -----------------------------------------
OP_SEQUENCE, OP_PUTFH, OP_READ, OP_DESTROY_SESSION = 53, 22, 25, 44
DELAY, BAD_STATEID = 10008, 10025
SID = b"S" * 16


def compound(ops, minor=1):
    return P.opaque(b"") + P.u32(minor) + P.u32(len(ops)) + b"".join(ops)


def compound_res(results, status):
    return P.u32(status) + P.opaque(b"") + P.u32(len(results)) + b"".join(results)


def seq_arg(seqid):  # RFC 8881 §18.46.1: sessionid, seqid, slot, highest slot, cachethis
    return P.u32(OP_SEQUENCE) + SID + P.u32(seqid) + P.u32(0) + P.u32(0) + P.u32(0)


def seq_res(seqid):  # §18.46.2: ... target highest slot, status flags
    return (P.u32(OP_SEQUENCE) + P.u32(0) + SID + P.u32(seqid) + P.u32(0) + P.u32(0) +
            P.u32(0) + P.u32(0))


def overlap_capture(path):
    """(call offset ms, reply offset ms, call args, reply) per COMPOUND: a
    READ answered NFS4ERR_BAD_STATEID, DESTROY_SESSION answered
    NFS4ERR_DELAY twice then done (recovery COMPOUNDs within 3 s), a plain
    SEQUENCE no finding claims."""
    read = compound([seq_arg(1), P.u32(OP_PUTFH) + P.opaque(b"F" * 16),
                     P.u32(OP_READ) + P.u32(1) + b"\0" * 12 + b"\0" * 8 + P.u32(4096)])
    destroy = compound([P.u32(OP_DESTROY_SESSION) + SID])
    msgs = [(0, 0.4, read, compound_res([seq_res(1), P.u32(OP_PUTFH) + P.u32(0),
                                        P.u32(OP_READ) + P.u32(BAD_STATEID)], BAD_STATEID)),
            (10, 11.3, destroy, compound_res([P.u32(OP_DESTROY_SESSION) + P.u32(DELAY)], DELAY)),
            (120, 122.7, destroy, compound_res([P.u32(OP_DESTROY_SESSION) + P.u32(DELAY)], DELAY)),
            (300, 300.9, destroy, compound_res([P.u32(OP_DESTROY_SESSION) + P.u32(0)], 0)),
            (400, 405.0, compound([seq_arg(2)]), compound_res([seq_res(2)], 0))]
    fr, times = [], []
    c = P.TcpConn(fr)
    times += [0.0] * len(fr)
    for i, (tc, tr, args, res) in enumerate(msgs):
        for d, t, body in ((0, tc, P.rpc_call(0x700 + i, P.NFS_PROG, 4, 1, args)),
                           (1, tr, P.rpc_reply(0x700 + i, res))):
            n = len(fr)
            c.send(d, P.record(body))
            times += [t] * (len(fr) - n)
    t0 = 1700000000 * 1000000
    P.write_pcap(path, [{"data": f, "sec": (t0 + round(t * 1000)) // 1000000,
                         "usec": (t0 + round(t * 1000)) % 1000000} for f, t in zip(fr, times)])


def check_single_claim(nfsscope, have_tshark):
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "overlap.pcap")
        overlap_capture(path)
        p = subprocess.run([nfsscope, "-o", "json", "-r", path], capture_output=True,
                           timeout=300)
        check(p.returncode == 0, f"overlap: exit {p.returncode} {p.stderr!r}")
        rep = json.loads(p.stdout)
        if not have_tshark:
            return
        rows = tshark_rows(path)
        q = subprocess.run(["tshark", "-n", "-r", path, "-Y", "rpc.msgtyp==1", "-T", "fields",
                            "-e", "rpc.xid", "-e", "rpc.time"], capture_output=True, text=True,
                           timeout=300)
        lat = {x: round(float(t) * 1e6) for x, t in (l.split("\t") for l in q.stdout.split("\n")
                                                    if l)}
    fs = {f["kind"]: f for f in rep["findings"]}
    replies = [r for r in rows if r["reply"]]
    calls = {r["xid"]: r for r in rows if not r["reply"]}
    check(len(replies) == 5 and len(lat) == 5, f"overlap: tshark sees {len(replies)} replies")
    # the rules on tshark's fields: DELAY answers; the stale error, then the
    # recovery COMPOUNDs within 3 s of it (DESTROY_SESSION)
    delay = [r["xid"] for r in replies if r["st"][:1] == [DELAY]]
    stale = [r["xid"] for r in replies if r["st"][:1] == [BAD_STATEID]]
    t_stale = [r["t"] for r in replies if r["xid"] in stale]
    recov = [r["xid"] for r in replies if calls[r["xid"]]["main"] == [OP_DESTROY_SESSION]
             and any(0 <= calls[r["xid"]]["t"] - t <= 3.0 for t in t_stale)]
    check(len(delay) == 2 and len(stale) == 1 and len(recov) == 3,
          f"overlap: tshark: {len(delay)} DELAY, {len(stale)} stale, {len(recov)} recovery")
    check(count(fs, "delay_grace_storms") == len(delay), "overlap: delay_grace_storms count")
    check(count(fs, "stale_state") == len(stale), "overlap: stale_state count")
    st = fs.get("stale_state", {}).get("evidence", {})
    check(st.get("recovery_compounds") == len(recov),
          f"overlap: recovery COMPOUNDs {st.get('recovery_compounds')} == tshark's {len(recov)}")
    claimed = set(delay) | set(stale) | set(recov)
    want = sum(lat[x] for _, x in claimed)
    costs = sum(f["cost_us"] for f in rep["findings"] if "cost_us" in f)
    check(abs(costs - want) <= len(claimed),
          f"overlap: findings cost {costs} us == tshark's {want} us, each COMPOUND once")
    check(abs(fs["delay_grace_storms"]["cost_us"] - sum(lat[x] for _, x in delay)) <= len(delay),
          "overlap: the DELAY answers' time is delay_grace_storms' (it claims first)")
    t = rep["time_by_cause"]
    check(abs(t["total_us"] - sum(lat.values())) <= len(lat),
          f"overlap: time in calls {t['total_us']} == tshark's {sum(lat.values())}")
    check(t["client_us"] == costs, "overlap: client time is the findings' cost")
    check(abs(t["unexplained_us"] - (sum(lat.values()) - want)) <= len(lat),
          f"overlap: unexplained {t['unexplained_us']} us is the unclaimed COMPOUNDs' time")


def main():
    nfsscope, samples = sys.argv[1], sys.argv[2]
    have_tshark = shutil.which("tshark") is not None
    if not have_tshark:
        skip_part("tshark not installed: the checks against tshark's decoding", ci_required=True)
    for name in SAMPLES:
        path = os.path.join(samples, name + ".pcap")
        exp = json.load(open(os.path.join(samples, name + ".expect.json")))
        n4 = exp["nfs4"]
        fs = findings(nfsscope, path)
        st = n4["compound"]["status"]

        # stable_writes: the client's stable_how, UNSTABLE4 never counted
        sw = n4["write_stable_how"]
        want = sw.get("DATA_SYNC4", 0) + sw.get("FILE_SYNC4", 0)
        check(count(fs, "stable_writes") == want,
              f"{name}: stable_writes {count(fs, 'stable_writes')} == client's {want}")
        if want:
            ev = fs["stable_writes"]["evidence"]
            check(ev["stable"]["UNSTABLE"] == sw.get("UNSTABLE4", 0),
                  f"{name}: UNSTABLE4 writes {ev['stable']['UNSTABLE']} apart")
        # negative_lookups: LOOKUP and OPEN answered NFS4ERR_NOENT
        noent = n4["noent_names"]
        want = sum(noent.get("LOOKUP", {}).values()) + sum(noent.get("OPEN", {}).values())
        check(count(fs, "negative_lookups") == (want if want >= 2 else 0),
              f"{name}: negative_lookups {count(fs, 'negative_lookups')} == client's {want}")
        if want >= 2:
            names = {g["name"]: g["count"] for g in fs["negative_lookups"]["evidence"]["names"]}
            for op in ("LOOKUP", "OPEN"):
                for nm, c in noent.get(op, {}).items():
                    check(names.get(nm) == c, f"{name}: missing {nm} probed {names.get(nm)}x == {c}")
        # lock_contention: LOCK denied is the count, LOCKT denials evidence
        ld = n4["lock_denied"]
        want, want_t = sum(ld.get("LOCK", {}).values()), sum(ld.get("LOCKT", {}).values())
        check(count(fs, "lock_contention") == want,
              f"{name}: lock_contention {count(fs, 'lock_contention')} == client's {want}")
        if want or want_t:
            ev = fs["lock_contention"]["evidence"]
            check(ev["lockt_denied"] == want_t, f"{name}: LOCKT denials {ev['lockt_denied']}")
            c = ev["conflicts"][0]
            desc = f"{c['holder']['owner']} {c['type']} {c['offset']}+{c['length']}"
            check(desc in list(ld.get("LOCK", {})) + list(ld.get("LOCKT", {})),
                  f"{name}: the conflicting lock, its holder and range {desc} are the client's")
            if have_tshark:
                check_holders(name, path, ev["conflicts"])
        # delay_grace_storms: but for the OPENs delayed by a delegation
        # another client held (delegation_recalls', by tshark's decoding)
        want = st.get("NFS4ERR_GRACE", 0) + st.get("NFS4ERR_DELAY", 0)
        if have_tshark:
            want -= len(recall_delays(path)["delayed"])
        if have_tshark or not {"OPEN_DELEGATE_READ", "OPEN_DELEGATE_WRITE"} & set(
                n4["delegations_granted"]):
            check(count(fs, "delay_grace_storms") == want,
                  f"{name}: delay_grace_storms {count(fs, 'delay_grace_storms')} == {want}")
        if "grace" in exp:
            ev = fs["delay_grace_storms"]["evidence"]
            check(exp["grace"]["grace_answers"] == ev["grace"], f"{name}: grace answers")
            wait = exp["grace"]["wait_ms"] * 1000
            check(abs(ev["lost_us"] - wait) <= 0.02 * wait,
                  f"{name}: time lost {ev['lost_us']} us ~ the client's wait {wait} us")
        # stale_state, session_limits: by status
        want = sum(v for k, v in st.items() if k in STALE)
        check(count(fs, "stale_state") == want, f"{name}: stale_state {count(fs, 'stale_state')} == {want}")
        want = sum(v for k, v in st.items() if k in LIMITS)
        check(count(fs, "session_limits") == want,
              f"{name}: session_limits {count(fs, 'session_limits')} == {want}")
        check_rep_too_big(name, fs, exp, path, have_tshark)

        if not have_tshark:
            continue
        rows = tshark_rows(path)
        replies = [r for r in rows if r["reply"]]
        tw = sum(1 for r in rows if not r["reply"] for s in r["stable"] if s in (1, 2))
        check(count(fs, "stable_writes") == tw, f"{name}: stable_writes == tshark's {tw}")
        calls = {r["xid"]: r for r in rows if not r["reply"]}
        neg = 0
        for r in replies:
            c = calls.get(r["xid"])
            if c and c["main"] and c["main"][0] in (OP_LOOKUP, OP_OPEN):
                s = op_status(r, c["main"][0])
                neg += bool(s) and s[0] == 2
        check(count(fs, "negative_lookups") == (neg if neg >= 2 else 0),
              f"{name}: negative_lookups == tshark's {neg}")
        if count(fs, "negative_lookups"):
            # "N of T name lookups (L LOOKUPs, O NFSv4 OPENs by name; ..."
            # with T = L + O and L, O the calls tshark sees with that main op
            m = re.search(r"(\d+) of (\d+) name lookups \((\d+) LOOKUPs, (\d+) NFSv4 OPENs by name;",
                          fs["negative_lookups"]["summary"])
            tl = sum(1 for r in calls.values() if r["main"] and r["main"][0] == OP_LOOKUP)
            check(m is not None and int(m.group(1)) == neg and
                  int(m.group(2)) == int(m.group(3)) + int(m.group(4)) and int(m.group(3)) == tl,
                  f"{name}: negative_lookups summary {fs['negative_lookups']['summary'][:120]!r},"
                  f" tshark: {neg} NOENT, {tl} LOOKUP calls")
        tl = sum(op_status(r, OP_LOCK).count(10010) for r in replies)
        check(count(fs, "lock_contention") == tl, f"{name}: lock_contention == tshark's {tl}")
        # open_close_storm: OPEN (the file of its GETFH) then CLOSE of that
        # handle within 3 s with no delegation granted, from the third per file
        delegs = {"OPEN_DELEGATE_NONE": 0, "OPEN_DELEGATE_NONE_EXT": 3}
        dg = n4["delegations_granted"]
        if dg:
            ev = fs.get("open_close_storm", {}).get("evidence")
            if ev:
                check(ev["delegations"] == dg, f"{name}: delegations {ev['delegations']} == {dg}")
                check(ev["why_no_delegation"] == n4["why_no_delegation"],
                      f"{name}: why_no_delegation {ev['why_no_delegation']}")
        opened, short = {}, {}
        for r in rows:
            c = calls.get(r["xid"])
            if not r["reply"] or not c or not c["main"]:
                continue
            if c["main"][0] == OP_OPEN and op_status(r, OP_OPEN) == [0] and r["fh"]:
                opened[r["fh"][-1]] = (c["t"], r["deleg"])
            elif c["main"][0] == 4 and op_status(r, 4) == [0] and c["fh"]:
                o = opened.pop(c["fh"][-1], None)
                if o and r["t"] - o[0] <= 3.0 and o[1] in delegs.values():
                    short[c["fh"][-1]] = short.get(c["fh"][-1], 0) + 1
        want = sum(n for n in short.values() if n >= 3)
        check(count(fs, "open_close_storm") == want,
              f"{name}: open_close_storm {count(fs, 'open_close_storm')} == tshark's {want}")
        check_whatif4(name, path, rows)
        if name == "nfs41-ls":
            want = redundant_getattrs(rows)
            check(want > 0 and count(fs, "redundant_getattr") == want,
                  f"{name}: redundant_getattr {count(fs, 'redundant_getattr')} == tshark's {want}")
            ga = sum(1 for r in replies if calls.get(r["xid"], {}).get("main") == [OP_GETATTR])
            check(fs["redundant_getattr"]["evidence"]["getattr_replies"] == ga,
                  f"{name}: only the {ga} GETATTR COMPOUNDs are considered, not the GETATTRs "
                  "riding in LOOKUP, OPEN and WRITE COMPOUNDs")
    # NLM (nlm-locks): denied LOCKs are lock_contention's count, denied
    # TESTs its evidence; tshark's nlm.stat / nlm.test_stat.stat agree
    path = os.path.join(samples, "nlm-locks.pcap")
    exp = json.load(open(os.path.join(samples, "nlm-locks.expect.json")))["nlm4"]["ops"]
    fs = findings(nfsscope, path)
    want = exp["lock"]["status"].get("NLM4_DENIED", 0)
    want_t = exp["test"]["status"].get("NLM4_DENIED", 0)
    check(want > 0 and count(fs, "lock_contention") == want,
          f"nlm-locks: lock_contention {count(fs, 'lock_contention')} == client's {want}")
    if "lock_contention" in fs:
        ev = fs["lock_contention"]["evidence"]
        check(ev["nlm_test_denied"] == want_t, f"nlm-locks: denied TESTs {ev['nlm_test_denied']}")
    if have_tshark:
        p = subprocess.run(["tshark", "-n", "-r", path, "-Y", "nlm && rpc.msgtyp==1", "-T",
                            "fields", "-e", "rpc.procedure", "-e", "nlm.stat", "-e",
                            "nlm.test_stat.stat"], capture_output=True, text=True, timeout=300)
        rows = [l.split("\t") for l in p.stdout.splitlines()]
        tl = sum(1 for r in rows if r[0] == "2" and r[1] == "1")
        tt = sum(1 for r in rows if r[0] == "1" and r[2] == "1")
        check(count(fs, "lock_contention") == tl, f"nlm-locks: lock_contention == tshark's {tl}")
        check(fs.get("lock_contention", {}).get("evidence", {}).get("nlm_test_denied") == tt,
              f"nlm-locks: denied TESTs == tshark's {tt}")
        # the holders the denied TESTs named (nlm4_holder)
        p = subprocess.run(["tshark", "-n", "-r", path, "-Y", "nlm.test_stat.stat==1", "-T",
                            "fields", "-e", "nlm.lock.svid", "-e", "nlm.lock.owner", "-e",
                            "nlm.lock.l_offset64", "-e", "nlm.lock.l_len64", "-e",
                            "nlm.exclusive"], capture_output=True, text=True, timeout=300)
        want = {}
        for line in p.stdout.splitlines():
            svid, oh, off, ln, excl = line.split("\t")
            k = (int(svid), bytes.fromhex(oh).decode(), int(off), int(ln),
                 "WRITE_LT" if excl == "1" else "READ_LT")
            want[k] = want.get(k, 0) + 1
        got = {(c["holder"]["svid"], c["holder"]["owner"], c["offset"], c["length"], c["type"]):
               c["denials"] for c in fs.get("lock_contention", {}).get("evidence", {})
               .get("conflicts", []) if c["holder"]["program"] == "nlm"}
        check(len(want) == tt and got == want,
              f"nlm-locks: the denied TESTs' holders {got} == tshark's {want}")
    check_single_claim(nfsscope, have_tshark)
    return finish()


if __name__ == "__main__":
    sys.exit(main())
