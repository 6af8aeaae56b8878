# SPDX-License-Identifier: BSD-3-Clause
"""deleg_delays.py: which OPENs answered NFS4ERR_DELAY waited for a
delegation recall, by the rule of nfsscope(1) (delegation_recalls) applied
to tshark's decoding of a capture, never to nfsscope's output.

A client holds a delegation of a file from the OPEN reply that granted it
(nfs.open.delegation_type READ or WRITE; the file is the reply's GETFH
handle, or the current handle of an OPEN by handle, claim type CLAIM_FH) or
from the answer to a CB_RECALL of it (the CB_RECALL's nfs.fh.hash, the
client the callback was sent to), until the reply to its DELEGRETURN of the
file (the call's PUTFH handle). An OPEN by name names a file through a
(directory handle, name) that granting OPEN used, or that an OPEN or LOOKUP
(its GETFH) resolved while the file was held. An OPEN whose COMPOUND status
is NFS4ERR_DELAY waited for a recall when a client other than the opener
(addresses) held a delegation of its file at its reply. Messages are taken
in the order of their replies; a call and its reply are paired by
(sender, receiver, XID) of the call, so that a callback reusing a fore
channel XID on the same connection is told apart.

recall_delays(pcap, extra) -> dict:
  delayed     [(reply frame, latency us)] of those OPENs
  cost_us     their latencies summed (reply time - call time, us)
  delay_other the other COMPOUNDs answered NFS4ERR_DELAY or NFS4ERR_GRACE
  waits       per opener and (directory, name) or handle: its first such
              try's call to the reply granting its OPEN, us
"""
import subprocess

OP_DELEGRETURN, OP_GETFH, OP_LOOKUP, OP_OPEN, OP_PUTFH = 8, 10, 15, 18, 22
CB_RECALL = 4
DELAY, GRACE = 10008, 10013
CLAIM_FH = 4

FIELDS = ["frame.number", "frame.time_epoch", "rpc.msgtyp", "rpc.xid", "ip.src", "ip.dst",
          "nfs.opcode", "nfs.nfsstat4", "nfs.fh.hash", "nfs.pathname.component",
          "nfs.open.delegation_type", "nfs.open.claim_type", "nfs.cb.operation"]


def ns(t):
    """frame.time_epoch ("1764656279.501568000") as integer nanoseconds."""
    s, _, frac = t.partition(".")
    return int(s) * 10**9 + int((frac + "000000000")[:9])


def messages(pcap, extra=()):
    cmd = ["tshark", "-n", "-r", pcap, "-o", "rpc.desegment_rpc_over_tcp:TRUE"] + list(extra) + \
          ["-Y", "rpc.msgtyp == 0 || rpc.msgtyp == 1", "-T", "fields", "-E", "separator=|",
           "-E", "occurrence=a", "-E", "aggregator=,"]
    for f in FIELDS:
        cmd += ["-e", f]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    ints = lambda s: [int(x, 0) for x in s.split(",") if x]
    for line in out.splitlines():
        fr, t, typ, xid, src, dst, ops, st, fh, name, deleg, claim, cbops = line.split("|")
        yield {"frame": int(fr), "ns": ns(t), "reply": typ == "1", "xid": xid, "src": src,
               "dst": dst, "ops": ints(ops), "st": ints(st), "fh": [x for x in fh.split(",") if x],
               "name": name, "deleg": ints(deleg), "claim": ints(claim), "cbops": ints(cbops)}


def recall_delays(pcap, extra=()):
    calls, pairs = {}, []
    for m in messages(pcap, extra):
        if not m["reply"]:
            calls[(m["src"], m["dst"], m["xid"])] = m
            continue
        c = calls.pop((m["dst"], m["src"], m["xid"]), None)
        if c:
            pairs.append((c, m))
    held = {}   # file handle hash -> {"holders": set of addresses, "names": set}
    names = {}  # (directory handle hash, name) -> file, while held
    out = {"delayed": [], "cost_us": 0, "delay_other": 0, "waits": []}
    waiting = {}  # (opener, directory or handle, name) -> first delayed call, ns
    for c, r in sorted(pairs, key=lambda p: p[1]["frame"]):
        if c["cbops"]:  # a callback: its client is the receiver of the call
            if CB_RECALL in c["cbops"] and c["fh"]:
                held.setdefault(c["fh"][-1], {"holders": set(), "names": set()})[
                    "holders"].add(c["dst"])
            continue
        client, ops = c["src"], c["ops"]
        status = r["st"][0] if r["st"] else None
        putfh = c["fh"][-1] if OP_PUTFH in ops and c["fh"] else None
        res = dict(zip(r["ops"], r["st"][1:]))
        if OP_OPEN in ops:
            by_fh = c["claim"][:1] == [CLAIM_FH]
            key = (client, putfh, "" if by_fh else c["name"])
            if status in (DELAY, GRACE):
                if by_fh:
                    h = held.get(putfh)
                else:
                    h = held.get(names.get((putfh, c["name"])))
                lat = (r["ns"] - c["ns"] + 500) // 1000
                if status == DELAY and h and h["holders"] - {client}:
                    out["delayed"].append((r["frame"], lat))
                    out["cost_us"] += lat
                    waiting.setdefault(key, c["ns"])
                else:
                    out["delay_other"] += 1
                continue
            if res.get(OP_OPEN) != 0:
                continue
            if key in waiting:
                out["waits"].append((r["ns"] - waiting.pop(key) + 500) // 1000)
            getfh = r["fh"][-1] if res.get(OP_GETFH) == 0 and r["fh"] else None
            file = getfh or (putfh if by_fh else None)
            if file and r["deleg"] and r["deleg"][0] in (1, 2):
                h = held.setdefault(file, {"holders": set(), "names": set()})
                h["holders"].add(client)
                if not by_fh:
                    names[(putfh, c["name"])] = file
            if getfh in held and not by_fh:
                names[(putfh, c["name"])] = getfh
        elif OP_LOOKUP in ops and res.get(OP_LOOKUP) == 0 and res.get(OP_GETFH) == 0:
            if r["fh"] and r["fh"][-1] in held:
                names[(putfh, c["name"])] = r["fh"][-1]
        elif status in (DELAY, GRACE):
            out["delay_other"] += 1
        if OP_DELEGRETURN in ops and OP_DELEGRETURN in res and putfh in held:
            held[putfh]["holders"].discard(client)
            if not held[putfh]["holders"]:
                del held[putfh]
                for k in [k for k, v in names.items() if v == putfh]:
                    del names[k]
    return out
