#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""e2e_records.py: --records on real samples.

For each sample the CSV (--records-format csv) must parse with a strict
RFC 4180 reader (python csv, strict=True), every row must have the header's
width, lines must end in CRLF, no control byte may appear inside a field,
and the rows must account for every call exactly once: rows == rpc.calls
(orphan replies are not records), replied + rpc_error rows == rpc.replies,
no_reply rows == rpc.unanswered_calls, and per program and procedure the row
count equals the report's "calls". The JSON Lines output (--records-format
jsonl) must have one parseable object per call with the same keys as the CSV
header. If a DuckDB CLI is on PATH the CSV is also loaded with
read_csv_auto and counted; otherwise that part is skipped with a message.
Also: an unwritable path is refused with one line and exit 1; '-' with exit 2;
a write failure (/dev/full) is one line and exit 1, after the report.

usage: e2e_records.py NFSSCOPE SAMPLES_DIR WORKDIR
"""
import collections
import csv
import io
import json
import os
import shutil
import subprocess
import sys

from checks import check, finish


def run(nfsscope, pcap, out, fmt):
    p = subprocess.run([nfsscope, "-o", "json", "-r", pcap, "--records", out,
                        "--records-format", fmt], capture_output=True, timeout=300)
    if p.returncode != 0:
        raise SystemExit("nfsscope failed on %s: %s" % (pcap, p.stderr.decode(errors="replace")))
    return json.loads(p.stdout)


def report_calls(rep):
    """{(program_name, procedure): calls} for every procedure with calls."""
    out = {}
    for pname, pv in rep.items():
        if isinstance(pv, dict) and isinstance(pv.get("ops"), dict):
            for proc, o in pv["ops"].items():
                if o["calls"]:
                    out[(pname, proc)] = o["calls"]
    return out


def check_csv(name, path, rep):
    raw = open(path, "rb").read()
    text = raw.decode("utf-8")  # terminal-escaped output is valid UTF-8
    check(raw.endswith(b"\r\n"), "%s: file ends with CRLF" % name)
    check(b"\n" not in raw.replace(b"\r\n", b""), "%s: every line ends with CRLF" % name)
    ctl = [b for b in set(raw) if b < 0x20 and b not in (0x0d, 0x0a)] + \
        ([0x7f] if 0x7f in raw else [])
    check(not ctl, "%s: no control bytes in fields (%r)" % (name, ctl))
    rows = list(csv.reader(io.StringIO(text, newline=""), strict=True))
    header, body = rows[0], rows[1:]
    check(header[0] == "time" and "outcome" in header, "%s: header %r" % (name, header))
    bad = [i for i, r in enumerate(body) if len(r) != len(header)]
    check(not bad, "%s: rows with a width other than %d: %r" % (name, len(header), bad[:5]))
    col = {h: i for i, h in enumerate(header)}
    rpc = rep["rpc"]
    check(len(body) == rpc["calls"], "%s: %d rows, rpc.calls %d" % (name, len(body), rpc["calls"]))
    outc = collections.Counter(r[col["outcome"]] for r in body)
    check(outc["replied"] + outc["rpc_error"] == rpc["replies"],
          "%s: answered rows %r vs rpc.replies %d" % (name, outc, rpc["replies"]))
    check(outc["no_reply"] == rpc["unanswered_calls"],
          "%s: no_reply rows %d vs unanswered %d" % (name, outc["no_reply"], rpc["unanswered_calls"]))
    per = collections.Counter((r[col["program_name"]], r[col["procedure"]]) for r in body
                              if r[col["program_name"]])
    want = report_calls(rep)
    check(dict(per) == want, "%s: per-procedure rows differ from the report: %r" %
          (name, {k: (per.get(k), want.get(k)) for k in set(per) | set(want)
                  if per.get(k) != want.get(k)}))
    for r in body:
        t = r[col["time"]]
        if not (len(t.split(".")[-1]) == 9 and t.replace(".", "", 1).isdigit()):
            check(False, "%s: time %r is not seconds with 9 decimals" % (name, t))
            break
        lat, oc = r[col["latency_us"]], r[col["outcome"]]
        if (lat == "") != (oc == "no_reply"):
            check(False, "%s: latency %r with outcome %s" % (name, lat, oc))
            break
    else:
        check(True, "")
    if name.startswith("all-ops"):
        w = [r for r in body if r[col["procedure"]] == "write" and r[col["program_name"]] == "nfs3"]
        check(w and all(r[col["offset"]] != "" and r[col["count"]] != "" and
                        r[col["stable_how"]] in ("UNSTABLE", "DATA_SYNC", "FILE_SYNC") for r in w),
              "%s: WRITE rows carry offset, count and stable_how" % name)
        check(any(r[col["path"]].startswith("/") for r in body), "%s: some paths known" % name)
    return header, len(body)


def check_jsonl(name, path, header, nrows):
    lines = open(path, "rb").read().split(b"\n")
    check(lines[-1] == b"", "%s: jsonl ends with a newline" % name)
    objs = []
    for ln in lines[:-1]:
        try:
            objs.append(json.loads(ln))
        except ValueError as e:
            check(False, "%s: jsonl line does not parse: %s" % (name, e))
            return
    check(len(objs) == nrows, "%s: %d jsonl lines, %d csv rows" % (name, len(objs), nrows))
    check(all(list(o.keys()) == header for o in objs), "%s: jsonl keys = csv header" % name)


def duckdb_count(path):
    exe = shutil.which("duckdb")
    if not exe:
        return None
    p = subprocess.run([exe, "-csv", "-noheader", "-c",
                        "SELECT count(*) FROM read_csv_auto('%s')" % path],
                       capture_output=True, timeout=120)
    return int(p.stdout.strip()) if p.returncode == 0 else -1


def duckdb_main(nfsscope, samples, work):
    """--duckdb: DuckDB reads every --records CSV (a ctest of its own, which
    skips where there is no duckdb CLI: Debian 12 does not package it)."""
    if not shutil.which("duckdb"):
        print("SKIP: no duckdb CLI on PATH (not packaged in Debian 12)")
        return 77
    for s in ("all-ops.pcap", "ls-storm.pcap", "all-ops-udp.pcap", "multi-client.pcapng"):
        csvp = os.path.join(work, s + ".duck.csv")
        rep = run(nfsscope, os.path.join(samples, s), csvp, "csv")
        _, n = check_csv(s, csvp, rep)
        c = duckdb_count(csvp)
        check(c == n, "%s: duckdb counts %r rows, expected %d" % (s, c, n))
    return finish()


def main():
    if sys.argv[1] == "--duckdb":
        return duckdb_main(*sys.argv[2:5])
    nfsscope, samples, work = sys.argv[1:4]
    os.makedirs(work, exist_ok=True)
    for s in ("all-ops.pcap", "ls-storm.pcap", "all-ops-udp.pcap", "multi-client.pcapng"):
        pcap = os.path.join(samples, s)
        csvp = os.path.join(work, s + ".csv")
        jsp = os.path.join(work, s + ".jsonl")
        rep = run(nfsscope, pcap, csvp, "csv")
        header, n = check_csv(s, csvp, rep)
        rep2 = run(nfsscope, pcap, jsp, "jsonl")
        check(rep2["rpc"] == rep["rpc"], "%s: same report with jsonl records" % s)
        check_jsonl(s, jsp, header, n)
    pcap = os.path.join(samples, "ls-storm.pcap")
    p = subprocess.run([nfsscope, "-r", pcap, "--records", os.path.join(work, "no/such/dir.csv")],
                       capture_output=True, timeout=60)
    err = p.stderr.decode()
    check(p.returncode == 1 and err.count("\n") == 1 and "--records" in err and not p.stdout,
          "unwritable path: rc %d, stderr %r" % (p.returncode, err))
    if os.path.exists("/dev/full"):
        p = subprocess.run([nfsscope, "-r", pcap, "-o", "json", "--records", "/dev/full"],
                           capture_output=True, timeout=60)
        err = p.stderr.decode()
        check(p.returncode == 1 and err.count("\n") == 1 and "write failed" in err,
              "--records /dev/full: one line, exit 1 (rc %d, stderr %r)" % (p.returncode, err))
        check(p.stdout.startswith(b"{"), "--records /dev/full: the report is still printed")
    p = subprocess.run([nfsscope, "-r", pcap, "--records", "-"], capture_output=True, timeout=60)
    check(p.returncode == 2, "--records - refused with exit 2 (rc %d)" % p.returncode)
    p = subprocess.run([nfsscope, "-r", pcap, "--records", os.path.join(work, "x"),
                        "--records-format", "xml"], capture_output=True, timeout=60)
    check(p.returncode == 2, "--records-format xml refused with exit 2 (rc %d)" % p.returncode)
    return finish()


if __name__ == "__main__":
    sys.exit(main())
