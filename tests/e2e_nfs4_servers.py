#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""e2e_nfs4_servers.py: two NFSv4 servers that use the same client ids,
sessionids and stateids (RFC 8881 §8.2.1: each server makes and interprets
its own) are two servers' state, not one.

samples/nfs41-deleg.pcap (a read delegation granted, recalled by CB_RECALL
on the back channel and given back by DELEGRETURN) and a copy of it with
every address moved to another /24 (tcprewrite --pnat) and its times
shifted into the first one's (editcap -t), merged in time order (mergecap):
the same identifiers from two servers at once. Expected, from tshark on the
single sample, twice over: delegations by type and granted, DELEGRETURNs,
CB_RECALLs, recalled delegations returned and none pending, the first
CB_RECALL to DELEGRETURN times (count, min, max, sum: tshark's frame times,
e2e_callbacks.recall_truth), the client ids (EXCHANGE_ID replies'
nfs.clientid) and sessions (CREATE_SESSION replies' nfs.session_id4)
tracked, SEQUENCE calls, and calls on a slot still in flight (per server,
session and slot, from nfs.session_id4 and nfs.slotid); tshark on the
merged capture sees twice the single sample's CB_RECALLs and OPENs (the
merge is whole). Each session row names its server: its SEQUENCE calls are
tshark's for that (server, sessionid), also after `nfsscope merge` of the
sample's report with the merged capture's (rows merge by key and server).

  e2e_nfs4_servers.py NFSSCOPE SAMPLES_DIR WORK_DIR
Exit 77 (skip) when tshark, tcprewrite, editcap or mergecap is absent."""
import json
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import check, finish, skip_part  # noqa: E402
from e2e_callbacks import DELEG_TYPES, recall_truth, tshark_rows  # noqa: E402

SHIFT_S = "0.3"  # the sample lasts 1.08 s: the copies overlap


def merged_capture(sample, work):
    """The sample and its copy on 198.19.0.0/24, shifted by SHIFT_S, merged."""
    moved = os.path.join(work, "moved.pcap")
    shifted = os.path.join(work, "shifted.pcap")
    merged = os.path.join(work, "two-servers.pcap")
    subprocess.run(["tcprewrite", "--pnat=198.18.0.0/24:198.19.0.0/24", "--fixcsum",
                    "--infile", sample, "--outfile", moved], check=True, capture_output=True)
    subprocess.run(["editcap", "-t", SHIFT_S, moved, shifted], check=True, capture_output=True)
    subprocess.run(["mergecap", "-F", "pcap", "-w", merged, sample, shifted], check=True,
                   capture_output=True)
    return merged


def slot_busy_truth(pcap):
    """SEQUENCE calls on a (server, session, slot) whose previous call had no
    reply yet; calls and replies paired by (client, server, XID)."""
    busy, pending, n = set(), {}, 0
    for fr, typ, src, dst, xid, sid, slot in tshark_rows(
            pcap, ["frame.number", "rpc.msgtyp", "ip.src", "ip.dst", "rpc.xid",
                   "nfs.session_id4", "nfs.slotid"], "nfs.opcode == 53 && !nfs.cb_procedure"):
        if typ == "0":
            key = (dst, sid.split(",")[0], slot.split(",")[0])
            if key in busy:
                n += 1
                continue
            busy.add(key)
            pending[(src, dst, xid)] = key
        else:
            busy.discard(pending.pop((dst, src, xid), None))
    return n


def truth(pcap):
    """What nfsscope should report on pcap, from tshark alone."""
    t = {"by_type": {}}
    for (dt,) in tshark_rows(pcap, ["nfs.open.delegation_type"],
                             "nfs.open.delegation_type && rpc.msgtyp == 1"):
        name = DELEG_TYPES[int(dt)]
        t["by_type"][name] = t["by_type"].get(name, 0) + 1
    t["granted"] = t["by_type"].get("OPEN_DELEGATE_READ", 0) + \
        t["by_type"].get("OPEN_DELEGATE_WRITE", 0)
    t["delegreturn"] = len(tshark_rows(pcap, ["frame.number"],
                                       "nfs.opcode == 8 && rpc.msgtyp == 0"))
    t["cb_recall"] = len(tshark_rows(pcap, ["frame.number"],
                                     "nfs.cb.operation == 4 && rpc.msgtyp == 0"))
    t["opens"] = len(tshark_rows(pcap, ["frame.number"], "nfs.opcode == 18 && rpc.msgtyp == 0"))
    _, _, t["times"] = recall_truth(pcap, ())
    t["clients"] = len({(r[0], r[1]) for r in tshark_rows(
        pcap, ["ip.src", "nfs.clientid"], "nfs.opcode == 42 && rpc.msgtyp == 1")})
    t["sessions"] = len({(r[0], r[1]) for r in tshark_rows(
        pcap, ["ip.src", "nfs.session_id4"], "nfs.opcode == 43 && rpc.msgtyp == 1")})
    t["sequence"] = len(tshark_rows(pcap, ["frame.number"],
                                    "nfs.opcode == 53 && rpc.msgtyp == 0 && !nfs.cb_procedure"))
    t["slot_busy"] = slot_busy_truth(pcap)
    t["per_session"] = {}
    for dst, sid in tshark_rows(pcap, ["ip.dst", "nfs.session_id4"],
                                "nfs.opcode == 53 && rpc.msgtyp == 0 && !nfs.cb_procedure"):
        k = (sid.split(",")[0], dst)
        t["per_session"][k] = t["per_session"].get(k, 0) + 1
    return t


def session_calls(rep):
    """SEQUENCE calls per (sessionid, server) of a report's session rows."""
    out = {}
    for r in rep["nfs4"]["sessions"]["rows"]:
        k = (r["key"], r["server"])
        check(k not in out, "one session row per sessionid and server: %s twice" % (k,))
        out[k] = r["sequence_calls"]
    return out


def main():
    nfsscope, samples, work = sys.argv[1:4]
    missing = [p for p in ("tshark", "tcprewrite", "editcap", "mergecap") if not shutil.which(p)]
    if missing:
        skip_part("%s not installed" % ", ".join(missing))
        return finish()
    os.makedirs(work, exist_ok=True)
    sample = os.path.join(samples, "nfs41-deleg.pcap")
    merged = merged_capture(sample, work)
    one, both = truth(sample), truth(merged)
    check(one["granted"] == 1 and one["cb_recall"] == 1 and len(one["times"]) == 1,
          "tshark: the sample's delegation granted, recalled and returned (%s)" % one)
    check(both["cb_recall"] == 2 * one["cb_recall"] and both["opens"] == 2 * one["opens"],
          "tshark: the merged capture holds both copies (CB_RECALL %d, OPEN %d)" %
          (both["cb_recall"], both["opens"]))

    full = json.loads(subprocess.run([nfsscope, "-r", merged, "-o", "json"], check=True,
                                     capture_output=True, text=True).stdout)
    rep = full["nfs4"]
    dl, rc = rep["delegations"], rep["callbacks"]["recalls"]
    got = {k: v for k, v in dl["by_type"].items() if v}
    want = {k: 2 * v for k, v in one["by_type"].items()}
    check(got == want, "delegations by type %s, twice tshark's %s" % (got, one["by_type"]))
    check(dl["granted"] == 2 * one["granted"] and dl["outstanding"] == 0,
          "delegations granted %s (outstanding %s), twice tshark's %d" %
          (dl["granted"], dl["outstanding"], one["granted"]))
    check(dl["delegreturn"]["calls"] == dl["delegreturn"]["returned"] == 2 * one["delegreturn"] and
          dl["delegreturn"]["unknown_stateid"] == 0,
          "DELEGRETURN %s, twice tshark's %d" % (dl["delegreturn"], one["delegreturn"]))
    times = one["times"] * 2
    check(rc["cb_recall"] == rc["known"] == 2 * one["cb_recall"] and
          rc["returned"] == len(times) and rc["pending"] == 0,
          "recalls %s, tshark's CB_RECALLs %d, returned %d (twice)" %
          ({k: rc[k] for k in ("cb_recall", "known", "returned", "pending")},
           one["cb_recall"], len(one["times"])))
    lat = rc["latency_us"]
    check((lat["count"], lat["min"], lat["max"], rc["latency_sum_us"]) ==
          (len(times), min(times), max(times), sum(times)),
          "recall to DELEGRETURN count/min/max/sum %s/%s/%s/%s, tshark %d/%d/%d/%d" %
          (lat["count"], lat["min"], lat["max"], rc["latency_sum_us"], len(times), min(times),
           max(times), sum(times)))
    cl, se = rep["clients"], rep["sessions"]
    check(cl["tracked"] == 2 * one["clients"] and cl["confirmed"] == 2 * one["clients"],
          "client ids tracked %s, confirmed %s, twice tshark's %d" %
          (cl["tracked"], cl["confirmed"], one["clients"]))
    check(se["tracked"] == se["created"] == 2 * one["sessions"] and
          len(se["rows"]) == 2 * one["sessions"],
          "sessions tracked %s, created %s, rows %d, twice tshark's %d" %
          (se["tracked"], se["created"], len(se["rows"]), one["sessions"]))
    check(se["sequence"]["calls"] == 2 * one["sequence"],
          "SEQUENCE calls %s, twice tshark's %d" % (se["sequence"]["calls"], one["sequence"]))
    check(se["sequence"]["slot_busy"] == both["slot_busy"] == 2 * one["slot_busy"] and
          sum(r["slot_busy"] for r in se["rows"]) == se["sequence"]["slot_busy"],
          "slot_busy %s, tshark per server %d (twice the sample's %d)" %
          (se["sequence"]["slot_busy"], both["slot_busy"], one["slot_busy"]))
    got = session_calls(full)
    check(got == both["per_session"] and len({s for _, s in got}) == 2,
          "SEQUENCE calls per session and server %s, tshark %s" % (got, both["per_session"]))

    # nfsscope merge: the sample's report and the merged capture's
    paths = [os.path.join(work, n) for n in ("sample.json", "two-servers.json", "merged.json")]
    with open(paths[1], "w") as fh:
        json.dump(full, fh)
    with open(paths[0], "w") as fh:
        subprocess.run([nfsscope, "-r", sample, "-o", "json"], check=True, stdout=fh)
    with open(paths[2], "w") as fh:
        subprocess.run([nfsscope, "merge", "-o", "json", paths[0], paths[1]], check=True,
                       stdout=fh)
    with open(paths[2]) as fh:
        got = session_calls(json.load(fh))
    want = dict(both["per_session"])
    for k, v in one["per_session"].items():
        want[k] = want.get(k, 0) + v
    check(got == want, "merged reports: SEQUENCE calls per session and server %s, tshark %s" %
          (got, want))
    return finish()


if __name__ == "__main__":
    sys.exit(main())
