#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""e2e_metrics: `--metrics ADDR:PORT` scraped by real HTTP clients.

    e2e_metrics.py NFSSCOPE SAMPLES_DIR WORK_DIR

1. Replayed runs (no privileges needed): `nfsscope -r SAMPLE --metrics
   127.0.0.1:0 --speed X -o json`. While the file plays, /metrics is scraped
   with urllib (and curl when installed) and every scrape is parsed strictly
   (each line HELP, TYPE or a sample of a typed family; valid names; label
   values with only the three escapes; counters never go down between
   scrapes). A client that sends half a request and stops, and one that
   connects and says nothing, must not stall the replay; 404, 405 and a
   malformed request get their status. Once nfsscope_input_done is 1 the last
   scrape is kept, SIGINT ends the run, and its counters must equal the final
   JSON report: RPC totals (each the sum of its per-procedure family, none
   of the families renamed away still served), per procedure calls,
   replies, errors (by status), retransmissions, unanswered calls, latency
   count and sum, all 121 fixed latency buckets against the report's
   histogram, bytes, WRITE stable_how, findings, anomalies, packets. `/` is
   an HTML page linking to /metrics. A 16-connection slowloris (half
   requests trickled, silent connections, each reopened when closed) cannot
   keep the scrapes out: every one of 12 scrapes during it is answered.
2. Every sample replayed at full speed and scraped once it has ended: p50,
   p90 and p99 of each procedure computed from the buckets exactly as
   Prometheus's histogram_quantile does are within 10 % of the JSON report's
   percentiles, for every procedure with at least 100 timed replies.
3. Command-line errors: a bad ADDR:PORT is exit 2 with one line; a port in
   use is exit 1 with one line; --metrics with --tui is exit 2.
4. Live (root with tcpreplay and tcprewrite; else that part is skipped): a
   sample rewritten to a subnet of its own is replayed onto `lo` while
   `nfsscope -i lo --metrics 127.0.0.1:PORT` runs (PORT below 1024 when one
   is free: bound before privileges are dropped); the scrape taken once all
   packets are in equals the final report after SIGINT.

Exit 0 pass, 1 fail.
"""
import json
import os
import random
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request

import checks

FAILS = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        FAILS.append(what)
    return cond


# ---- a strict reader of the text exposition format (0.0.4) ----------------

NAME = re.compile(r"[a-zA-Z_:][a-zA-Z0-9_:]*\Z")
LABEL = re.compile(r"[a-zA-Z_][a-zA-Z0-9_]*\Z")
VALUE = re.compile(r"([+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?|[+-]Inf|NaN)\Z")


def parse_labels(s):
    """'a="x",b="y\\"z"' -> (('a','x'),('b','y"z')); raises on bad syntax."""
    out, i = [], 0
    while i < len(s):
        eq = s.index("=", i)
        name = s[i:eq]
        if not LABEL.match(name) or s[eq + 1] != '"':
            raise ValueError("bad label name %r" % name)
        j, val = eq + 2, []
        while s[j] != '"':
            if s[j] == "\\":
                esc = s[j + 1]
                if esc not in '\\"n':
                    raise ValueError("bad escape \\%s" % esc)
                val.append("\n" if esc == "n" else esc)
                j += 2
            else:
                if s[j] == "\n":
                    raise ValueError("raw newline in a label value")
                val.append(s[j])
                j += 1
        out.append((name, "".join(val)))
        i = j + 1
        if i < len(s):
            if s[i] != ",":
                raise ValueError("expected , at %r" % s[i:])
            i += 1
    if len({n for n, _ in out}) != len(out):
        raise ValueError("label repeated")
    return tuple(out)


def split_sample(line):
    """name{labels} value -> (name, labels string, value string)."""
    if "{" in line:
        name, rest = line.split("{", 1)
        # the label block ends at the last '} ' (values cannot hold '} ')
        k = rest.rindex("} ")
        return name, rest[:k], rest[k + 2:]
    name, val = line.split(" ", 1)
    return name, "", val


def parse_exposition(text):
    """{(name, labels): float}, {family: type}; raises ValueError on any bad line."""
    types, helps, samples, seen_families = {}, set(), {}, []
    if not text.endswith("\n"):
        raise ValueError("no final newline")
    for line in text[:-1].split("\n"):
        if line.startswith("# HELP ") or line.startswith("# TYPE "):
            parts = line[7:].split(" ", 1)
            if len(parts) != 2 or not NAME.match(parts[0]):
                raise ValueError("bad comment line %r" % line)
            if line[2] == "T":
                if parts[0] in types:
                    raise ValueError("TYPE twice for %s" % parts[0])
                if parts[1] not in ("counter", "gauge", "histogram", "summary", "untyped"):
                    raise ValueError("bad type %r" % line)
                types[parts[0]] = parts[1]
                seen_families.append(parts[0])
            else:
                if parts[0] in helps:
                    raise ValueError("HELP twice for %s" % parts[0])
                helps.add(parts[0])
            continue
        if line.startswith("#") or not line:
            raise ValueError("stray line %r" % line)
        name, lab, val = split_sample(line)
        if not NAME.match(name) or not VALUE.match(val):
            raise ValueError("bad sample %r" % line)
        fam = name
        for sfx in ("_bucket", "_sum", "_count"):
            if name.endswith(sfx) and types.get(name[:-len(sfx)]) == "histogram":
                fam = name[:-len(sfx)]
        if fam not in types:
            raise ValueError("sample of an untyped family %r" % line)
        if seen_families[-1] != fam:
            raise ValueError("family %s not together" % fam)
        if types[fam] == "counter" and not name.endswith("_total"):
            raise ValueError("counter without _total: %s" % name)
        key = (name, parse_labels(lab))
        if key in samples:
            raise ValueError("series twice: %r" % line)
        samples[key] = float(val)
    return samples, types


def scrape(url, timeout=5):
    with urllib.request.urlopen(url, timeout=timeout) as r:
        ctype = r.headers.get("Content-Type", "")
        return r.status, ctype, r.read().decode("utf-8")


def raw_request(host, port, data, timeout=5):
    s = socket.create_connection((host, port), timeout=timeout)
    try:
        s.sendall(data)
        buf = b""
        while True:
            b = s.recv(65536)
            if not b:
                break
            buf += b
        return buf
    finally:
        s.close()


def wait_for(path, pattern, timeout, proc=None):
    end = time.time() + timeout
    while time.time() < end:
        try:
            with open(path) as f:
                m = re.search(pattern, f.read())
            if m:
                return m
        except OSError:
            pass
        if proc is not None and proc.poll() is not None:
            return None
        time.sleep(0.05)
    return None


def final_report(path):
    with open(path) as f:
        text = f.read()
    i = text.find("{\n")
    return json.loads(text[i:]) if i >= 0 else None


# ---- comparison with the JSON report --------------------------------------

def histo_hi(lo):
    """Upper end of the histo.h bucket starting at lo (32 sub-buckets per 2^k)."""
    if lo < 32:
        return lo
    msb = lo.bit_length() - 1
    return lo + (1 << (msb - 5)) - 1


# 10 us .. 10 s, the R20 numbers (ISO 3) in each decade, in nanoseconds.
R20 = [100, 112, 125, 140, 160, 180, 200, 224, 250, 280, 315, 355, 400, 450, 500, 560, 630,
       710, 800, 900]
BOUNDS_NS = [m * 100 * 10 ** d for d in range(6) for m in R20] + [10 ** 10]


def le_label(ns):
    return ("%d.%09d" % (ns // 10 ** 9, ns % 10 ** 9)).rstrip("0").rstrip(".")


def labels_of(prog, op=None, **extra):
    lab = [("program", prog)]
    if op is not None:
        lab.append(("proc", op))
    lab.extend(extra.items())
    return tuple(lab)


def compare(samples, rep, live=False):
    """Every counter the report also has. Returns the number of mismatches."""
    bad = []

    def eq(what, got, want):
        if got != want:
            bad.append("%s: metrics %s, report %s" % (what, got, want))

    def get(name, labels=()):
        return samples.get((name, tuple(labels)))

    eq("packets", get("nfsscope_packets_total"), rep["capture"]["packets"])
    eq("wire bytes", get("nfsscope_wire_bytes_total"), rep["capture"]["bytes"])
    eq("rpc.orphan_replies", get("nfsscope_rpc_orphan_replies_total"),
       rep["rpc"]["orphan_replies"])

    def total(name, **want):
        return sum(v for (n, l), v in samples.items()
                   if n == name and all(dict(l).get(k) == x for k, x in want.items()))
    # one family per concept: summed over its series, it is the RPC total
    keys = [("calls", "nfsscope_calls_total"), ("replies", "nfsscope_replies_total"),
            ("retransmissions", "nfsscope_retransmissions_total")]
    if not live:  # live: the end flushes pending calls as unanswered after the scrape
        keys.append(("unanswered_calls", "nfsscope_unanswered_calls_total"))
    for k, name in keys:
        eq("rpc.%s = sum(%s)" % (k, name), total(name), rep["rpc"][k])
    eq("rpc.rpc_errors = sum(errors{status=RPC_ERROR})",
       total("nfsscope_errors_total", status="RPC_ERROR"), rep["rpc"]["rpc_errors"])
    if rep["rpc"]["unknown_program_calls"]:
        eq("rpc.unknown_program_calls <= calls{program=other}",
           min(total("nfsscope_calls_total", program="other"),
               rep["rpc"]["unknown_program_calls"]), rep["rpc"]["unknown_program_calls"])
    old = [n for (n, _) in samples if n in OLD_NAMES]
    if old:
        bad.append("families renamed away still served: %s" % sorted(set(old)))
    buckets = {l for (n, l) in samples if n == "nfsscope_latency_seconds_bucket"}
    want_n = len(BOUNDS_NS) + 1
    per = {}
    for l in buckets:
        per[l[:-1]] = per.get(l[:-1], 0) + 1
    if any(n != want_n for n in per.values()):
        bad.append("a histogram without the %d buckets: %s" % (want_n, per))
    nproc = 0
    for prog, body in rep.items():
        if not (isinstance(body, dict) and "ops" in body):
            continue
        for op, v in body["ops"].items():
            lab = labels_of(prog, op)
            seen = v["calls"] or v["replies"] or v.get("retransmissions") or v.get("unanswered")
            if not seen:
                if get("nfsscope_calls_total", lab) is not None:
                    bad.append("%s.%s: a series for a procedure never seen" % (prog, op))
                continue
            nproc += 1
            eq("%s.%s calls" % (prog, op), get("nfsscope_calls_total", lab), v["calls"])
            eq("%s.%s replies" % (prog, op), get("nfsscope_replies_total", lab), v["replies"])
            eq("%s.%s retransmissions" % (prog, op), get("nfsscope_retransmissions_total", lab),
               v["retransmissions"])
            if not live:
                eq("%s.%s unanswered" % (prog, op), get("nfsscope_unanswered_calls_total", lab),
                   v["unanswered"])
            errs = {dict(l)["status"]: val for (n, l), val in samples.items()
                    if n == "nfsscope_errors_total" and l[:2] == lab}
            eq("%s.%s errors" % (prog, op), sum(errs.values()), v["errors"])
            # Every named error status as the report counts it (the report
            # also lists statuses that are not failures, e.g. NLM4_BLOCKED);
            # "other" only for statuses the report could not name either.
            jst = v.get("status", {})
            for st, n in errs.items():
                if st not in ("RPC_ERROR", "other"):
                    eq("%s.%s status %s" % (prog, op, st), n, jst.get(st))
            if errs.get("other") and not any(k.startswith("unknown(") for k in jst):
                bad.append("%s.%s: status other %s, none unknown in the report"
                           % (prog, op, errs["other"]))
            eq("%s.%s RPC errors" % (prog, op), errs.get("RPC_ERROR", 0), v["rpc_errors"])
            lat = v["latency_us"]
            eq("%s.%s latency count" % (prog, op), get("nfsscope_latency_seconds_count", lab),
               lat["count"])
            s = get("nfsscope_latency_seconds_sum", lab)
            if s is None or abs(s * 1e6 - v["latency_sum_us"]) > 0.5:
                bad.append("%s.%s latency sum %s s vs %s us" % (prog, op, s, v["latency_sum_us"]))
            eq("%s.%s +Inf" % (prog, op),
               get("nfsscope_latency_seconds_bucket", lab + (("le", "+Inf"),)), lat["count"])
            prev = 0
            for bns in BOUNDS_NS:
                b = bns // 1000  # latencies are whole microseconds
                le = le_label(bns)
                got = get("nfsscope_latency_seconds_bucket", lab + (("le", le),))
                # The report's histogram brackets the exact count: buckets
                # wholly at or below the bound, and those starting at or below it.
                lo_n = sum(c for lo, c in v["histogram"] if histo_hi(lo) <= b)
                hi_n = sum(c for lo, c in v["histogram"] if lo <= b)
                if got is None or not (lo_n <= got <= hi_n) or got < prev:
                    bad.append("%s.%s le=%s: %s not in [%d, %d] or below %s"
                               % (prog, op, le, got, lo_n, hi_n, prev))
                prev = got or 0
            if op in ("read", "write"):
                eq("%s.%s bytes" % (prog, op), get("nfsscope_bytes_total", lab + (
                    ("direction", "to_client" if op == "read" else "to_server"),)), v["bytes"])
        if "write" in body and any(body["write"]["stable"].values()):
            for st, n in body["write"]["stable"].items():
                eq("%s write stable %s" % (prog, st),
                   get("nfsscope_write_stable_total", labels_of(prog) + (("stable", st),)), n)
        if "read" in body:
            eq("%s read bytes" % prog, get("nfsscope_bytes_total", labels_of(prog, "read") + (
                ("direction", "to_client"),)) or 0, body["read"]["bytes"])
    kinds = {dict(l)["kind"] for (n, l) in samples if n == "nfsscope_findings_total"}
    nfind = 0
    for f in rep.get("findings", []):
        if f["kind"] in kinds:
            nfind += 1
            eq("finding " + f["kind"], get("nfsscope_findings_total", (("kind", f["kind"]),)),
               f["count"])
    for k, n in rep.get("anomalies", {}).items():
        if live and k in ("tcp_gap", "rpc_resync", "rpc_skipped_bytes"):
            continue  # the end of a live run may flush streams after the scrape
        eq("anomaly " + k, get("nfsscope_anomalies_total", (("kind", k),)), n)
    for b in bad[:40]:
        print("     " + b)
    return bad, nproc, nfind


# Families earlier versions served, folded into the per-procedure families.
OLD_NAMES = {"nfsscope_rpc_calls_total", "nfsscope_rpc_replies_total",
             "nfsscope_rpc_retransmissions_total", "nfsscope_rpc_unanswered_calls_total",
             "nfsscope_rpc_errors_total", "nfsscope_rpc_unknown_program_calls_total",
             "nfsscope_program_calls_total", "nfsscope_program_replies_total"}


def histogram_quantile(q, buckets):
    """Prometheus's bucketQuantile (promql/quantile.go): `buckets` is
    [(upper bound, cumulative count)] ending with +Inf; linear interpolation
    inside the bucket that holds the rank, the first bucket starting at 0."""
    buckets = sorted(buckets)
    if len(buckets) < 2 or buckets[-1][0] != float("inf"):
        return float("nan")
    obs = buckets[-1][1]
    if obs == 0:
        return float("nan")
    rank = q * obs
    b = next((i for i in range(len(buckets) - 1) if buckets[i][1] >= rank), len(buckets) - 1)
    if b == len(buckets) - 1:
        return buckets[-2][0]
    if b == 0 and buckets[0][0] <= 0:
        return buckets[0][0]
    start, end, count = 0.0, buckets[b][0], buckets[b][1]
    if b > 0:
        start = buckets[b - 1][0]
        count -= buckets[b - 1][1]
        rank -= buckets[b - 1][1]
    return start + (end - start) * (rank / count)


# A quantile from the buckets is compared with the report's percentile when
# the procedure has at least this many timed replies: with fewer, the 99th
# percentile is the largest value or next to it, and one sample moves it.
QUANTILE_MIN_COUNT = 100
QUANTILE_TOLERANCE = 0.10


def quantiles(samples, rep):
    """(compared, [mismatches], worst relative error) of p50/p90/p99."""
    hist = {}
    for (n, l), v in samples.items():
        if n == "nfsscope_latency_seconds_bucket":
            d = dict(l)
            le = float("inf") if d["le"] == "+Inf" else float(d["le"])
            hist.setdefault((d["program"], d["proc"]), []).append((le, v))
    done, bad, worst = 0, [], 0.0
    for prog, body in rep.items():
        if not (isinstance(body, dict) and "ops" in body):
            continue
        for op, v in body["ops"].items():
            lat = v["latency_us"]
            if lat["count"] < QUANTILE_MIN_COUNT:
                continue
            for q, key in ((0.5, "p50"), (0.9, "p90"), (0.99, "p99")):
                got = histogram_quantile(q, hist.get((prog, op), [])) * 1e6
                err = abs(got - lat[key]) / lat[key] if lat[key] else float("inf")
                worst = max(worst, err)
                done += 1
                if not err <= QUANTILE_TOLERANCE:
                    bad.append("%s.%s %s: buckets %.1f us, report %s us (%.1f %%)"
                               % (prog, op, key, got, lat[key], 100 * err))
    return done, bad, worst


def every_sample_quantiles(nfsscope, samples, work):
    """Each sample replayed at full speed: the last scrape's quantiles
    against the report's percentiles."""
    done, bad, worst, files = 0, [], 0.0, 0
    for f in sorted(os.listdir(samples)):
        if not f.endswith((".pcap", ".pcapng")):
            continue
        out, err = os.path.join(work, "q.json"), os.path.join(work, "q.err")
        with open(out, "w") as o, open(err, "w") as e:
            ns = subprocess.Popen([nfsscope, "-r", os.path.join(samples, f), "--metrics",
                                   "127.0.0.1:0", "--speed", "0", "-o", "json"],
                                  stdout=o, stderr=e)
        try:
            m = wait_for(err, r"until interrupted", 60, ns)
            m = m and wait_for(err, r"metrics at (http://\S+/metrics)", 1, ns)
            if not m:
                bad.append("%s: no metrics" % f)
                continue
            cur, _ = parse_exposition(scrape(m.group(1))[2])
            ns.send_signal(signal.SIGINT)
            ns.wait(timeout=30)
        finally:
            if ns.poll() is None:
                ns.kill()
                ns.wait()
        rep = final_report(out)
        files += 1
        d, b, w = quantiles(cur, rep)
        done += d
        bad += ["%s: %s" % (f, x) for x in b]
        worst = max(worst, w)
    for b in bad[:20]:
        print("     " + b)
    check(not bad and done >= 20,
          "every sample (%d): p50/p90/p99 from the buckets as histogram_quantile computes them "
          "within %d %% of the report's where count >= %d (%d compared, worst %.1f %%)"
          % (files, 100 * QUANTILE_TOLERANCE, QUANTILE_MIN_COUNT, done, 100 * worst))


def counters_monotone(prev, cur, types):
    """Counters and histogram series never go down between scrapes."""
    down = []
    for key, v in cur.items():
        name = key[0]
        fam = re.sub(r"_(bucket|sum|count)$", "", name)
        if types.get(name) == "counter" or types.get(fam) == "histogram":
            if key in prev and v < prev[key]:
                down.append("%s%s: %s -> %s" % (name, dict(key[1]), prev[key], v))
    return down


# ---- 1. replayed runs ------------------------------------------------------

def replay_run(nfsscope, work, tag, files, speed, extra_checks):
    out, err = os.path.join(work, tag + ".json"), os.path.join(work, tag + ".err")
    args = [nfsscope]
    for f in files:
        args += ["-r", f]
    args += ["--metrics", "127.0.0.1:0", "--speed", str(speed), "-o", "json"]
    with open(out, "w") as o, open(err, "w") as e:
        ns = subprocess.Popen(args, stdout=o, stderr=e)
    try:
        m = wait_for(err, r"metrics at (http://127\.0\.0\.1:(\d+)/metrics)", 20, ns)
        if not check(m is not None, "%s: says where the metrics are" % tag):
            return
        url, port = m.group(1), int(m.group(2))
        if extra_checks:
            misc_http(url, port)
            slow = slow_clients(port)
        prev, types, scrapes, mid, bad_lines, down = {}, {}, 0, 0, [], []
        last = None
        end = time.time() + 120
        while time.time() < end:
            try:
                status, ctype, text = scrape(url)
            except (OSError, urllib.error.URLError) as x:
                bad_lines.append("scrape failed: %s" % x)
                break
            scrapes += 1
            if status != 200 or not ctype.startswith("text/plain; version=0.0.4"):
                bad_lines.append("status %s, Content-Type %r" % (status, ctype))
            try:
                cur, types = parse_exposition(text)
            except ValueError as x:
                bad_lines.append(str(x))
                break
            down += counters_monotone(prev, cur, types)
            prev = cur
            done = cur.get(("nfsscope_input_done", ()))
            if done == 0 and cur.get(("nfsscope_packets_total", ()), 0) > 0:
                mid += 1
            if done == 1:
                last = cur
                break
            time.sleep(0.05)
        check(not bad_lines, "%s: %d scrapes, every one 200 and strictly valid %s"
              % (tag, scrapes, bad_lines[:3]))
        check(not down, "%s: counters never go down between scrapes %s" % (tag, down[:3]))
        if extra_checks:
            check(mid >= 3, "%s: scraped while the file played (%d scrapes mid-run), with a "
                  "half request and a silent client connected" % (tag, mid))
            for s in slow:
                s.close()
        if shutil.which("curl"):
            r = subprocess.run(["curl", "-sS", "-f", "--max-time", "10", url],
                               capture_output=True, text=True)
            ok = r.returncode == 0
            if ok:
                try:
                    cs, _ = parse_exposition(r.stdout)
                    ok = all(cs.get(k) == v for k, v in (last or {}).items()
                             if not k[0].startswith("nfsscope_metrics_"))
                except ValueError:
                    ok = False
            check(ok, "%s: curl gets the same final counters" % tag)
        # the final counters are still served until the signal
        time.sleep(0.3)
        check(ns.poll() is None, "%s: still serving after the input ended" % tag)
        ns.send_signal(signal.SIGINT)
        ns.wait(timeout=30)
    finally:
        if ns.poll() is None:
            ns.kill()
            ns.wait()
    check(ns.returncode == 0, "%s: SIGINT ends it, exit 0" % tag)
    rep = final_report(out)
    if not check(rep is not None and last is not None, "%s: final report and last scrape" % tag):
        return
    bad, nproc, nfind = compare(last, rep)
    check(not bad and nproc > 5, "%s: last scrape == final report (%d procedures, %d findings, "
          "%d calls)" % (tag, nproc, nfind, rep["rpc"]["calls"]))
    # the same counters as a plain run of the same files
    args = [nfsscope] + sum((["-r", f] for f in files), []) + ["-o", "json"]
    plain = json.loads(subprocess.run(args, capture_output=True, text=True).stdout)
    check(plain["nfs3"]["ops"] == rep["nfs3"]["ops"] and plain["rpc"] == rep["rpc"],
          "%s: the paced replay counts what a plain -r run counts" % tag)
    # label values come from fixed tables only: no address, no path
    labels = {v for (_, l) in last for _, v in l}
    check(not any(re.search(r"\d+\.\d+\.\d+\.\d+|/", v) for v in labels if v not in ()),
          "%s: no address or path in any label (%d distinct values)" % (tag, len(labels)))


def misc_http(url, port):
    try:
        scrape(url.replace("/metrics", "/nope"))
        code = 200
    except urllib.error.HTTPError as x:
        code = x.code
    check(code == 404, "404 for another path (%s)" % code)
    status, ctype, text = scrape(url.replace("/metrics", "/"))
    check(status == 200 and ctype.startswith("text/html") and 'href="/metrics"' in text,
          "/ is a page that links to /metrics (%s, %s)" % (status, ctype))
    r = raw_request("127.0.0.1", port, b"POST /metrics HTTP/1.1\r\nContent-Length: 0\r\n\r\n")
    check(r.startswith(b"HTTP/1.1 405 ") and b"Allow: GET, HEAD\r\n" in r, "405 for POST")
    r = raw_request("127.0.0.1", port, b"GET /metrics SPDY/3\r\n\r\n")
    check(r.startswith(b"HTTP/1.1 400 "), "400 for a malformed request line")
    r = raw_request("127.0.0.1", port, b"GET /metrics HTTP/1.1\r\nX: " + b"a" * 9000 + b"\r\n\r\n")
    check(r.startswith(b"HTTP/1.1 431 "), "431 for an oversized header section")
    r = raw_request("127.0.0.1", port, b"HEAD /metrics HTTP/1.0\r\n\r\n")
    check(r.startswith(b"HTTP/1.1 200 ") and r.endswith(b"\r\n\r\n"), "HEAD: headers only")


def slow_clients(port):
    """A slowloris (half a request line) and a client that never speaks."""
    a = socket.create_connection(("127.0.0.1", port))
    a.sendall(b"GET /metr")
    b = socket.create_connection(("127.0.0.1", port))
    return [a, b]


SLOWLORIS_SCRAPES = 12


def slowloris(nfsscope, samples, work):
    """16 hostile connections against the 8 client slots: 8 send half a
    request line and then a byte every 0.3 s, 8 connect and say nothing;
    each reconnects as soon as it finds itself closed. Meanwhile 12 scrapes,
    0.4 s apart (about 5 s, within the 10 s a connection may live, so
    without the 2 s head deadline and the eviction of the longest idle the
    hostile connections would hold every slot throughout), must each get
    their 200 within 5 s."""
    import threading
    out, err = os.path.join(work, "slowloris.json"), os.path.join(work, "slowloris.err")
    with open(out, "w") as o, open(err, "w") as e:
        ns = subprocess.Popen([nfsscope, "-r", os.path.join(samples, "ls-storm.pcap"),
                               "--metrics", "127.0.0.1:0", "--speed", "0", "-o", "json"],
                              stdout=o, stderr=e)
    stop = threading.Event()
    opened = [0]

    def attacker(k):
        sock = None
        while not stop.is_set():
            try:
                if sock is None:
                    sock = socket.create_connection(("127.0.0.1", port), timeout=2)
                    opened[0] += 1
                    if k % 2 == 0:
                        sock.sendall(b"GET /metrics HTTP/1.1\r\nX-Slow: ")
                if k % 2 == 0:
                    sock.sendall(b"a")
                else:  # silent: only notice the close
                    sock.setblocking(False)
                    try:
                        if sock.recv(1) == b"":
                            raise OSError("closed")
                    except BlockingIOError:
                        pass
                    sock.setblocking(True)
            except OSError:
                if sock is not None:
                    sock.close()
                sock = None
                stop.wait(0.01)
                continue
            stop.wait(0.3)
        if sock is not None:
            sock.close()

    threads = []
    try:
        m = wait_for(err, r"final counters stay at (http://127\.0\.0\.1:(\d+)/metrics)", 30, ns)
        if not check(m is not None, "slowloris: the replay ended and the counters are served"):
            return
        url, port = m.group(1), int(m.group(2))
        threads = [threading.Thread(target=attacker, args=(k,), daemon=True) for k in range(16)]
        for t in threads:
            t.start()
        time.sleep(1.0)  # every slot taken, the rest waiting to get in
        ok, failed, last = 0, [], None
        for _ in range(SLOWLORIS_SCRAPES):
            t0 = time.time()
            try:
                status, _, text = scrape(url, timeout=5)
                if status == 200:
                    ok += 1
                    last = text
                else:
                    failed.append("status %s" % status)
            except (OSError, urllib.error.URLError) as x:
                failed.append("%.1fs: %s" % (time.time() - t0, x))
            time.sleep(0.4)
        check(ok == SLOWLORIS_SCRAPES, "slowloris: %d of %d scrapes answered, %d failed %s (%d "
              "hostile connections opened)" % (ok, SLOWLORIS_SCRAPES, len(failed), failed[:3],
                                               opened[0]))
        dropped = re.search(r"^nfsscope_metrics_idle_dropped_total (\d+)$", last or "", re.M)
        check(dropped is not None and int(dropped.group(1)) > 0,
              "slowloris: idle connections dropped for the scrapes, and counted (%s)"
              % (dropped.group(1) if dropped else None))
    finally:
        stop.set()
        for t in threads:
            t.join(timeout=5)
        if ns.poll() is None:
            ns.send_signal(signal.SIGINT)
            try:
                ns.wait(timeout=20)
            except subprocess.TimeoutExpired:
                ns.kill()
                ns.wait()
    check(ns.returncode == 0, "slowloris: SIGINT ends it, exit 0 (rc %s)" % ns.returncode)


# ---- 2. command-line errors ------------------------------------------------

def cli_errors(nfsscope, samples):
    sample = os.path.join(samples, "all-ops.pcap")
    for spec, why in (("127.0.0.1", "no port"), ("::1:9100", "IPv6 without brackets"),
                      ("127.0.0.1:70000", "port out of range"), ("host.example:80", "a name"),
                      ("[::1]9100", "bracket without colon")):
        r = subprocess.run([nfsscope, "-r", sample, "--metrics", spec], capture_output=True,
                           text=True, timeout=30)
        lines = r.stderr.strip().splitlines()
        check(r.returncode == 2 and len(lines) <= 2 and "--metrics" in lines[0],
              "--metrics %s (%s): exit 2, one line (%r)" % (spec, why, lines[:1]))
    r = subprocess.run([nfsscope, "--metrics", "127.0.0.1:0"], capture_output=True, text=True)
    check(r.returncode == 2, "--metrics without -r or -i: exit 2")
    r = subprocess.run([nfsscope, "-r", sample, "--tui", "--metrics", "127.0.0.1:0"],
                       capture_output=True, text=True)
    check(r.returncode == 2 and "--metrics" in r.stderr, "--metrics with --tui: exit 2")
    busy = socket.socket()
    busy.bind(("127.0.0.1", 0))
    busy.listen(1)
    port = busy.getsockname()[1]
    r = subprocess.run([nfsscope, "-r", sample, "--metrics", "127.0.0.1:%d" % port],
                       capture_output=True, text=True, timeout=30)
    busy.close()
    check(r.returncode == 1 and len(r.stderr.strip().splitlines()) == 1 and "in use" in r.stderr,
          "port in use: exit 1, one line (%r)" % r.stderr.strip())
    # IPv6 loopback, when the host has it
    try:
        s6 = socket.socket(socket.AF_INET6)
        s6.bind(("::1", 0))
        s6.close()
    except OSError:
        checks.skip_part("no IPv6 loopback")
        return
    err = os.path.join(WORK, "v6.err")
    with open(err, "w") as e:
        ns = subprocess.Popen([nfsscope, "-r", sample, "--speed", "0", "--metrics", "[::1]:0"],
                              stdout=subprocess.DEVNULL, stderr=e)
    try:
        m = wait_for(err, r"(http://\[::1\]:\d+/metrics) until", 20, ns)
        ok = False
        if m:
            _, _, text = scrape(m.group(1))
            cur, _ = parse_exposition(text)
            ok = cur.get(("nfsscope_input_done", ())) == 1
        check(ok, "[::1]:0 serves over IPv6")
    finally:
        ns.send_signal(signal.SIGINT)
        ns.wait(timeout=20)


# ---- 3. live on lo ------------------------------------------------------------

def free_low_port():
    for p in random.sample(range(600, 1000), 60):
        s = socket.socket()
        try:
            s.bind(("127.0.0.1", p))
            return p
        except OSError:
            continue
        finally:
            s.close()
    return 0


def live(nfsscope, samples, work):
    if os.geteuid() != 0:
        checks.skip_part("live capture needs root")
        return
    for tool in ("tcpreplay", "tcprewrite"):
        if not shutil.which(tool):
            checks.skip_part("%s is not installed" % tool)
            return
    net = "198.18.%d" % random.randint(20, 250)
    bpf = "net %s.0/24" % net
    pcap = os.path.join(work, "live.pcap")
    r = subprocess.run(["tcprewrite", "--pnat=198.18.0.0/24:%s.0/24" % net,
                        "--infile=" + os.path.join(samples, "multi-client.pcapng"),
                        "--outfile=" + pcap], capture_output=True, text=True)
    if r.returncode != 0:
        checks.skip_part("tcprewrite failed: " + r.stderr.strip())
        return
    want = json.loads(subprocess.run([nfsscope, "-r", pcap, "-o", "json"], capture_output=True,
                                     text=True).stdout)
    port = free_low_port()
    spec = "127.0.0.1:%d" % port
    out, err = os.path.join(work, "live.json"), os.path.join(work, "live.err")
    with open(out, "w") as o, open(err, "w") as e:
        ns = subprocess.Popen([nfsscope, "-i", "lo", "--no-tui", "-o", "json", "-B", "16384",
                               "--metrics", spec, bpf], stdout=o, stderr=e)
    last = None
    try:
        m = wait_for(err, r"metrics at (http://127\.0\.0\.1:(\d+)/metrics)", 20, ns)
        if not m:
            with open(err) as f:
                msg = f.read().strip()
            if "permission" in msg:
                checks.skip_part("no permission to capture: " + msg)
                return
            check(False, "live: starts and serves (%s)" % msg)
            return
        url = m.group(1)
        check(int(m.group(2)) == port, "live: port %d (below 1024: bound before -Z)" % port)
        time.sleep(0.5)
        with open("/proc/%d/status" % ns.pid) as f:
            uid = [l for l in f if l.startswith("Uid:")][0].split()[1:]
        check(uid[1] == "65534", "live: runs as nobody once open (euid %s)" % uid[1])
        slow = slow_clients(int(m.group(2)))
        r = subprocess.run(["tcpreplay", "-q", "-i", "lo", "--pps", "500", pcap],
                           capture_output=True, text=True)
        check(r.returncode == 0, "live: tcpreplay")
        end, stable, prevp = time.time() + 30, 0, -1
        while time.time() < end and stable < 4:
            _, _, text = scrape(url)
            last, _ = parse_exposition(text)
            p = last.get(("nfsscope_packets_total", ()))
            stable = stable + 1 if p == prevp and p >= want["capture"]["packets"] else 0
            prevp = p
            time.sleep(0.25)
        for s in slow:
            s.close()
        check(last is not None and last.get(("nfsscope_input_done", ())) == 0,
              "live: input_done is 0 while capturing")
        check(("nfsscope_kernel_drops_total", ()) in (last or {}), "live: kernel drops served")
        ns.send_signal(signal.SIGINT)
        ns.wait(timeout=20)
    finally:
        if ns.poll() is None:
            ns.kill()
            ns.wait()
    check(ns.returncode == 0, "live: SIGINT, exit 0")
    rep = final_report(out)
    if not check(rep is not None and last is not None, "live: final report and last scrape"):
        return
    bad, nproc, _ = compare(last, rep, live=True)
    check(not bad and nproc > 5, "live: last scrape == final report (%d procedures, %d calls)"
          % (nproc, rep["rpc"]["calls"]))
    check(rep["rpc"]["calls"] == want["rpc"]["calls"],
          "live: every call captured (%d of %d)" % (rep["rpc"]["calls"], want["rpc"]["calls"]))


WORK = None


def main():
    global WORK
    if len(sys.argv) != 4:
        print(__doc__)
        return 2
    nfsscope, samples, work = sys.argv[1:]
    WORK = work
    os.makedirs(work, exist_ok=True)
    cli_errors(nfsscope, samples)
    # ls-storm lasts 0.43 s: at 0.15x the replay takes about 3 s
    replay_run(nfsscope, work, "ls-storm", [os.path.join(samples, "ls-storm.pcap")], 0.15, True)
    replay_run(nfsscope, work, "writes+udp",
               [os.path.join(samples, "stable-writes.pcap"),
                os.path.join(samples, "all-ops-udp.pcap"),
                os.path.join(samples, "nlm-locks.pcap")], 0, False)
    every_sample_quantiles(nfsscope, samples, work)
    slowloris(nfsscope, samples, work)
    live(nfsscope, samples, work)
    print("%d failed" % len(FAILS))
    return checks.status(len(FAILS))


if __name__ == "__main__":
    sys.exit(main())
