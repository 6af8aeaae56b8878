#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""e2e_findings.py: the findings on the real samples, against what
samples/nfsgen.c did (its expect files and its workload code):

- stable-writes: the stable_writes finding counts equal the generator's
  record (FILE_SYNC 160 to journal-a.log, DATA_SYNC 160 to journal-b.log);
- unstable-writes: no stable-write finding;
- ls-storm: redundant GETATTR and ACCESS, and a directory fan-out of lsdir
  matching wl_ls_storm(): 3 listings of 5 READDIRPLUS each, 1000 LOOKUP,
  3000 GETATTR (1000 per listing), 1000 ACCESS (first listing only);
- bulk-io and all-ops-udp (no call repeated): no redundancy, no fan-out;
- the what-if estimate predicts fewer ACCESS and GETATTR calls on ls-storm
  (defaults) and cms-page (ACCESS with the access cache, GETATTR with nocto),
  and says it is an estimate;
- nfsscope diff stable-writes unstable-writes shows the stable_how and
  latency change.

usage: e2e_findings.py NFSSCOPE SAMPLES_DIR [PUBLIC_PCAPS_DIR]
"""
import json
import os
import re
import shutil
import subprocess
import sys

from checks import check, finish, skip_part


def report(nfsscope, path, *args):
    p = subprocess.run([nfsscope, "-o", "json", "-r", path, *args], capture_output=True,
                       timeout=300)
    check(p.returncode == 0, f"{path}: exit {p.returncode} {p.stderr!r}")
    return json.loads(p.stdout)


def findings(rep):
    return {f["kind"]: f for f in rep["findings"]}


def common_shape(name, rep):
    for f in rep["findings"]:
        for k in ("kind", "count", "summary"):
            check(k in f, f"{name}: finding {f.get('kind')} has {k}")
        check(isinstance(f["count"], int), f"{name}: {f['kind']} count is an integer")
        if f["kind"] not in ("mount_option_whatif", "capture_quality"):
            for k in ("share", "cost_us", "top_files", "top_clients", "evidence"):
                check(k in f, f"{name}: {f['kind']} has {k}")


def main():
    nfsscope, samples = sys.argv[1], sys.argv[2]
    public = sys.argv[3] if len(sys.argv) > 3 else ""
    S = lambda n: os.path.join(samples, n)

    # stable-writes: equal to the generator's record.
    expect = json.load(open(S("stable-writes.expect.json")))
    rep = report(nfsscope, S("stable-writes.pcap"))
    common_shape("stable-writes", rep)
    fs = findings(rep)
    sw = fs.get("stable_writes")
    check(sw is not None, "stable-writes: stable_writes finding")
    if sw:
        want = expect["nfs3"]["write"]["stable"]
        ev = sw["evidence"]
        check(sw["count"] == want["DATA_SYNC"] + want["FILE_SYNC"],
              f"stable-writes: count {sw['count']}")
        for how in ("UNSTABLE", "DATA_SYNC", "FILE_SYNC"):
            check(ev["stable"][how] == want[how], f"stable-writes: {how} {ev['stable'][how]}")
        check(ev["writes"] == expect["nfs3"]["ops"]["write"]["calls"], "stable-writes: writes")
        check(ev["stable_bytes"] == expect["nfs3"]["write"]["bytes"], "stable-writes: bytes")
        check(ev["size_histogram"] == [{"ge": 1024, "lt": 2048, "count": 320}],
              f"stable-writes: sizes {ev['size_histogram']}")
        check(ev["commits"] == 0 and ev["writes_per_commit"] is None, "stable-writes: no COMMIT")
        check(ev["latency_us"]["stable"]["count"] == 320, "stable-writes: stable latency count")
        files = {os.path.basename(f["path"]): f for f in sw["top_files"]}
        check(files.get("journal-a.log", {}).get("stable") == {"DATA_SYNC": 0, "FILE_SYNC": 160},
              f"stable-writes: journal-a.log {files.get('journal-a.log')}")
        check(files.get("journal-b.log", {}).get("stable") == {"DATA_SYNC": 160, "FILE_SYNC": 0},
              f"stable-writes: journal-b.log {files.get('journal-b.log')}")
        check(sw["top_clients"] and sw["top_clients"][0]["count"] == 320,
              "stable-writes: one client")
        check(0.9 < sw["share"] <= 1.0, f"stable-writes: share {sw['share']}")

    # unstable-writes: no stable-write problem.
    rep = report(nfsscope, S("unstable-writes.pcap"))
    common_shape("unstable-writes", rep)
    fs = findings(rep)
    check("stable_writes" not in fs, "unstable-writes: no stable_writes finding")
    check("write_verifier_changed" not in fs, "unstable-writes: verifier stable")

    # --no-findings: the same counts, no findings.
    off = report(nfsscope, S("ls-storm.pcap"), "--no-findings")
    check(off["findings"] == [], "ls-storm --no-findings: findings empty")

    # ls-storm: redundancy and the fan-out the generator made.
    rep = report(nfsscope, S("ls-storm.pcap"))
    check(off["rpc"] == rep["rpc"] and off["nfs3"]["ops"] == rep["nfs3"]["ops"],
          "ls-storm --no-findings: counts unchanged")
    common_shape("ls-storm", rep)
    fs = findings(rep)
    g, a, fo = fs.get("redundant_getattr"), fs.get("redundant_access"), fs.get("directory_fanout")
    check(g is not None and a is not None and fo is not None,
          f"ls-storm: findings {sorted(fs)}")
    if g:
        # every GETATTR but the root's at mount time: 1000 after LOOKUP, 2000
        # revalidations, 3 of the directory (held from LOOKUP/ACCESS/READDIRPLUS)
        check(g["count"] == 3003, f"ls-storm: redundant GETATTR {g['count']}")
        check(g["evidence"]["getattr_replies"] == 3004, "ls-storm: GETATTRs considered")
        check(g["cost_us"] > 0, "ls-storm: redundant GETATTR cost")
    if a:
        # the directory's ACCESS in listings 2 and 3 (entries are asked once)
        check(a["count"] == 2, f"ls-storm: redundant ACCESS {a['count']}")
    if fo:
        dirs = fo["directories"]
        check(len(dirs) == 1, f"ls-storm: {len(dirs)} fan-out directories")
        d = dirs[0] if dirs else {}
        check(d.get("path", "").endswith("/lsdir"), f"ls-storm: fan-out path {d.get('path')}")
        want = {"listings": 3, "readdirplus": 15, "readdir": 0, "lookup": 1000,
                "getattr": 3000, "access": 1000}
        for k, v in want.items():
            check(d.get(k) == v, f"ls-storm: fan-out {k} {d.get(k)} != {v}")
        ls = d.get("listing", [])
        check([(x["readdirplus"], x["lookup"], x["getattr"], x["access"]) for x in ls] ==
              [(5, 1000, 1000, 1000), (5, 0, 1000, 0), (5, 0, 1000, 0)],
              f"ls-storm: per listing {ls}")
        # Every entry of every 32 KB READDIRPLUS reply: 1000 files, "." and "..".
        check([x["entries_seen"] for x in ls] == [1002, 1002, 1002],
              f"ls-storm: entries seen per listing {[x['entries_seen'] for x in ls]}")
        check(d.get("getattr_after_readdirplus") == 3000, "ls-storm: GETATTRs after READDIRPLUS")
        check(fo["count"] == 5000, f"ls-storm: fan-out count {fo['count']}")
        # Its tops name the directory and the one client (the generator's
        # 1000 LOOKUP + 3000 GETATTR + 1000 ACCESS from 127.0.0.1).
        tf, tc = fo["top_files"], fo["top_clients"]
        check(len(tf) == 1 and tf[0]["path"].endswith("/lsdir") and tf[0]["count"] == 5000
              and tf[0]["cost_us"] == fo["cost_us"], f"ls-storm: fan-out top_files {tf}")
        check(tc == [{"client": "127.0.0.1", "count": 5000, "cost_us": fo["cost_us"]}],
              f"ls-storm: fan-out top_clients {tc}")

    def whatif(rep):
        w = findings(rep).get("mount_option_whatif")
        check(w is not None and w.get("estimate") is True, "what-if present, marked estimate")
        check(w and len(w.get("assumptions", [])) >= 5, "what-if states its assumptions")
        return {s["name"]: s for s in w["scenarios"]} if w else {}

    sc = whatif(rep)
    if sc:
        d = sc["defaults"]["procs"]
        check(d["getattr"]["estimated"] < d["getattr"]["now"] / 10,
              f"ls-storm what-if: GETATTR {d['getattr']}")
        check(d["access"]["estimated"] < d["access"]["now"], f"ls-storm what-if: ACCESS {d['access']}")
        check(d["lookup"]["estimated"] < d["lookup"]["now"], "ls-storm what-if: LOOKUP")
        check(sc["defaults"]["calls_estimated"] < rep["nfs3"]["ops"]["getattr"]["calls"],
              "ls-storm what-if: total")
        n = sc["noac"]["procs"]
        check(n["getattr"]["estimated"] == n["getattr"]["now"], "ls-storm what-if: noac GETATTR")
        nr = sc["nordirplus"]["procs"]
        check(nr["readdir"]["estimated"] == 5 and nr["lookup"]["estimated"] > 1000,
              "ls-storm what-if: nordirplus lists with READDIR and LOOKUPs each entry")

    rep = report(nfsscope, S("cms-page.pcap"))
    common_shape("cms-page", rep)
    fs = findings(rep)
    check("redundant_getattr" in fs and "redundant_access" in fs,
          f"cms-page: redundancy {sorted(fs)}")
    sc = whatif(rep)
    if sc:
        d = sc["defaults"]["procs"]
        # per request one site ACCESS + 16 file ACCESS, 10 requests: 17 remain
        check(d["access"]["now"] == 170 and d["access"]["estimated"] == 17,
              f"cms-page what-if: ACCESS {d['access']}")
        # close-to-open keeps the open() GETATTRs; nocto drops them
        check(d["getattr"]["estimated"] == d["getattr"]["now"], "cms-page what-if: cto GETATTR")
        n = sc["nocto"]["procs"]
        check(n["getattr"]["estimated"] < n["getattr"]["now"] / 10,
              f"cms-page what-if: nocto GETATTR {n['getattr']}")
        check(sc["actimeo=60"]["procs"]["access"]["estimated"] < 170, "cms-page: actimeo ACCESS")
        lp = sc["lookupcache=positive"]["procs"]["lookup"]["estimated"]
        check(lp > d["lookup"]["estimated"], "cms-page: lookupcache=positive sends NOENT LOOKUPs")

    # Directory listings longer than the part kept of a reply (a listing's
    # reply keeps up to 65535 bytes) are said, not hidden: equal to tshark's
    # count of READDIR(PLUS) NFS3_OK replies whose record is longer (none in
    # the samples: ls-storm's are 32 KB and every entry is seen, below).
    for name in ("ls-storm.pcap", "all-ops.pcap", "cms-page.pcap"):
        rep = report(nfsscope, S(name))
        q = findings(rep).get("capture_quality", {}).get("evidence", {})
        ok = sum(d["replies"] - d["errors"] for k, d in rep["nfs3"]["ops"].items()
                 if k in ("readdir", "readdirplus"))
        if shutil.which("tshark"):
            p = subprocess.run(["tshark", "-n", "-r", S(name), "-Y",
                                "rpc.msgtyp == 1 && (nfs.procedure_v3 == 16 || "
                                "nfs.procedure_v3 == 17) && nfs.status == 0",
                                "-T", "fields", "-e", "rpc.fraglen"],
                               capture_output=True, text=True, timeout=300)
            lens = [int(x) for x in p.stdout.split()]
            want_cut = sum(1 for n in lens if n > 65535)
            check(q.get("dir_replies_cut", 0) == want_cut,
                  f"{name}: listings cut {q.get('dir_replies_cut', 0)} != tshark's {want_cut}")
            if want_cut:
                check(q.get("dir_replies") == len(lens) == ok,
                      f"{name}: listings {q.get('dir_replies')}, tshark {len(lens)}, ops {ok}")
                check("directory listings" in findings(rep)["capture_quality"]["summary"],
                      f"{name}: the cut listings are said in the summary")
        else:
            skip_part(f"no tshark: {name} listing cuts not compared")

    # No call repeated: no redundancy, no fan-out (no false alarms).
    for name in ("bulk-io.pcap", "all-ops-udp.pcap", "all-ops.pcap"):
        rep = report(nfsscope, S(name))
        common_shape(name, rep)
        fs = findings(rep)
        for k in ("redundant_getattr", "redundant_access", "directory_fanout",
                  "write_verifier_changed"):
            check(k not in fs, f"{name}: no {k} ({fs.get(k, {}).get('summary')})")
    check("stable_writes" not in findings(report(nfsscope, S("bulk-io.pcap"))),
          "bulk-io: only UNSTABLE writes")

    # The stable_writes sentence says its counts as tshark counts them, in
    # the number they have: all-ops has one COMMIT, stable-writes none.
    for name in ("all-ops", "stable-writes"):
        truth = json.load(open(S(name + ".truth.json")))
        commits = truth["nfs3"]["ops"].get("commit", {}).get("calls", 0)
        summ = findings(report(nfsscope, S(name + ".pcap"))).get("stable_writes", {})
        summ = summ.get("summary", "")
        m = re.search(r"; (\d+) (COMMITs?)\.", summ)
        check(m is not None and int(m.group(1)) == commits and
              (m.group(2) == "COMMIT") == (commits == 1),
              f"{name}: {commits} COMMIT(s) in {summ!r}")
        m = re.search(r"; (\d+) (was|were) smaller than the largest write before (it|them) on "
                      r"(its|their) connection", summ)
        if m:
            one = int(m.group(1)) == 1
            check((m.groups()[1:] == ("was", "it", "its")) == one and
                  (m.groups()[1:] == ("were", "them", "their")) == (not one),
                  f"{name}: number agrees in {m.group(0)!r}")

    # The text report has the paragraphs, labelled as an estimate.
    p = subprocess.run([nfsscope, "-r", S("ls-storm.pcap")], capture_output=True, timeout=300)
    out = p.stdout.decode()
    check("Findings" in out and "directory_fanout" in out and "ESTIMATE" in out,
          "ls-storm: text findings")

    # diff: stable_how and latency change.
    p = subprocess.run([nfsscope, "diff", S("stable-writes.pcap"), S("unstable-writes.pcap")],
                       capture_output=True, timeout=300)
    check(p.returncode == 0, f"diff: exit {p.returncode} {p.stderr!r}")
    out = p.stdout.decode()
    stable_part = out.split("WRITE stable_how")[-1].split("WRITE committed")[0]
    lines = {ln.split()[0]: ln.split() for ln in stable_part.splitlines() if ln.strip()}
    check(lines.get("UNSTABLE", [])[1:3] == ["0", "320"], f"diff text: {lines.get('UNSTABLE')}")
    check(lines.get("FILE_SYNC", [])[1:3] == ["160", "0"], f"diff text: {lines.get('FILE_SYNC')}")
    check(lines.get("DATA_SYNC", [])[1:3] == ["160", "0"], f"diff text: {lines.get('DATA_SYNC')}")
    lines = {ln.split()[0]: ln.split() for ln in out.splitlines() if ln.strip()}
    check("stable_writes" in out and "(gone)" in out, "diff text: stable_writes gone")
    check(lines.get("write", [])[1:3] == ["320", "320"] and "p50" in lines.get("write", []),
          f"diff text: write row {lines.get('write')}")
    p = subprocess.run([nfsscope, "diff", "-o", "json", S("stable-writes.pcap"),
                        S("unstable-writes.pcap")], capture_output=True, timeout=300)
    check(p.returncode == 0, "diff -o json: exit")
    d = json.loads(p.stdout)
    check(d["nfs3"]["write_stable"]["DATA_SYNC"] == [160, 0], "diff json: DATA_SYNC")
    check(d["nfs3"]["write_stable"]["UNSTABLE"] == [0, 320], "diff json: UNSTABLE")
    check(d["nfs3"]["write"]["calls"] == [320, 320], "diff json: write calls")
    pa, pb = d["nfs3"]["write"]["p50"]
    check(pa is not None and pb is not None and pb < pa,
          f"diff json: UNSTABLE writes are faster here ({pa} -> {pb} us)")
    check(d["findings"]["stable_writes"] == [320, None], "diff json: stable_writes")
    # a saved report works as an input too
    saved = subprocess.run([nfsscope, "-o", "json", "-r", S("stable-writes.pcap")],
                           capture_output=True, timeout=300).stdout
    tmp = os.path.join(os.environ.get("TMPDIR", "/tmp"), f"e2e_findings_{os.getpid()}.json")
    with open(tmp, "wb") as fp:
        fp.write(saved)
    p = subprocess.run([nfsscope, "diff", "-o", "json", tmp, S("unstable-writes.pcap")],
                       capture_output=True, timeout=300)
    os.unlink(tmp)
    check(p.returncode == 0 and json.loads(p.stdout)["nfs3"]["write_stable"]["FILE_SYNC"] ==
          [160, 0], "diff: saved JSON report as A")
    p = subprocess.run([nfsscope, "diff", S("stable-writes.pcap")], capture_output=True)
    check(p.returncode == 2, "diff: one input is a usage error")

    # Every finding's sentence on every sample and public capture: a count
    # of one takes the singular ("1 call could not be matched", "1 was").
    caps = [S(n) for n in sorted(os.listdir(samples)) if n.endswith((".pcap", ".pcapng"))]
    if os.path.isdir(public):
        caps += [os.path.join(public, n) for n in sorted(os.listdir(public))
                 if n.endswith((".pcap", ".pcapng", ".bz2"))]
    else:
        skip_part("no public captures: the findings' wording checked on samples only",
                  ci_required=True)
    one = re.compile(r"(?<![\d.,])1 (were|calls|replies|packets|holes|resyncs|denials|listings|"
                     r"COMMITs|reads|WRITEs (were|smaller))\b|(?<![\d.,])1 of 1 [A-Z]+s\b|"
                     r"(?<![\d.,])1 of \d+ WRITEs? \([^)]*\) were\b")
    bad = []
    for path in caps:
        for f in report(nfsscope, path)["findings"]:
            m = one.search(f["summary"])
            if m:
                bad.append(f"{os.path.basename(path)} {f['kind']}: {m.group(0)!r}")
    check(not bad and len(caps) > 20, f"singular for one, {len(caps)} captures: {bad[:5]}")

    return finish()


if __name__ == "__main__":
    sys.exit(main())
