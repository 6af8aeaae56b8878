#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""e2e_prometheus.py: a real Prometheus server scrapes nfsscope and
evaluates contrib/prometheus/nfsscope-rules.yml.

The traffic is made here (tests/pcapsyn.py) so that it is steady: NFSv3
over UDP, 250 calls a second for 10 s, GETATTR and LOOKUP taking turns,
latencies drawn (seeded) from a log-normal law around 500 us, 5 % of the
GETATTRs failing with NFS3ERR_STALE and 30 % of the LOOKUPs with
NFS3ERR_NOENT. Steady, because Prometheus's rate() cannot count what a
series held at its first scrape: a series that appears with most of its
calls already in it (a burst, as in the bundled samples) is no test. For the
same reason the capture opens with one GETATTR and one LOOKUP (each failing
once, at the median latency) and LEAD_IN seconds of silence, so every
series the rules read, error series included, exists before the steady
traffic, whenever the first scrape comes: rate() then misses only those
lead-in calls, not a slow machine's first second of traffic.

Prometheus (Debian's package) starts on loopback with the rules, scraping
every 200 ms and evaluating every second; then `nfsscope -r CAPTURE
--metrics 127.0.0.1:PORT -o json` plays the capture at its own pace (10 s)
and keeps serving the final counters. Once Prometheus has seen
nfsscope_input_done 1 and the rules have run on the final counters, the
recorded series, read through the HTTP API, are compared with nfsscope's
own JSON report:

- p50, p90, p99 of GETATTR and LOOKUP within 15 % (the bucket width:
  neighbouring bounds are 14.3 % apart), the mean within 2 %;
- calls: the recorded rate times the window (5 min) within 5 % of the
  report's calls (what came before the first scrape is not counted);
- error ratios per operation and per program (with and without NOENT)
  within 0.02 of the report's errors / replies;
- every rule evaluated without an error (/api/v1/rules).

Exit 77 without the prometheus binary. Takes about 15 s.

   e2e_prometheus.py NFSSCOPE RULES_FILE WORK_DIR
"""
import json
import math
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.parse
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pcapsyn as ps  # noqa: E402
from checks import check, finish  # noqa: E402

SECONDS = 10.0
RATE = 250            # calls per second
LEAD_IN = 2.0         # seconds of silence after the first two calls
WINDOW = 300.0        # the rules' [5m]
GETATTR, LOOKUP = 1, 3
NFS3ERR_NOENT, NFS3ERR_STALE = 2, 70


def fattr3():
    """A regular file's attributes (RFC 1813 2.6, fattr3): 21 words."""
    return b"".join(ps.u32(v) for v in (1, 0o644, 1, 0, 0, 0, 4096, 0, 4096, 0, 0, 0, 1,
                                         0, 42, 0, 0, 0, 0, 0, 0))


def make_capture(path):
    """Steady GETATTR/LOOKUP traffic over UDP (see the docstring)."""
    rnd = random.Random(18)
    cli, srv, dirfh = "10.0.0.1", "10.0.0.2", b"D" * 32
    frames = []
    lead = [(GETATTR, ps.fh3(b"L" * 32), ps.u32(NFS3ERR_STALE)),
            (LOOKUP, ps.nfs3_lookup_args(dirfh, b"lead"), ps.u32(NFS3ERR_NOENT) + ps.u32(0))]
    for j, (proc, args, res) in enumerate(lead):
        xid = 0x100 + j
        frames.append((j * 1000.0, ps.udp_frame(cli, 800, srv, 2049,
                                                ps.rpc_call(xid, ps.NFS_PROG, 3, proc, args),
                                                ident=60000 + 2 * j)))
        frames.append((j * 1000.0 + 500, ps.udp_frame(srv, 2049, cli, 800,
                                                      ps.rpc_reply(xid, res),
                                                      ident=60001 + 2 * j)))
    n = int(SECONDS * RATE)
    for i in range(n):
        t = LEAD_IN * 1e6 + i * 1e6 / RATE          # microseconds
        lat = min(rnd.lognormvariate(math.log(500), 0.7), 100000.0)
        xid = 0x1000 + i
        if i % 2 == 0:
            call = ps.rpc_call(xid, ps.NFS_PROG, 3, GETATTR, ps.fh3(b"F%031d" % i))
            res = (ps.u32(NFS3ERR_STALE) if rnd.random() < 0.05 else ps.u32(0) + fattr3())
        else:
            call = ps.rpc_call(xid, ps.NFS_PROG, 3, LOOKUP,
                               ps.nfs3_lookup_args(dirfh, b"f%d" % i))
            res = (ps.u32(NFS3ERR_NOENT) + ps.u32(0) if rnd.random() < 0.3
                   else ps.nfs3_lookup_res(b"O%031d" % i))
        frames.append((t, ps.udp_frame(cli, 800, srv, 2049, call, ident=2 * i)))
        frames.append((t + lat, ps.udp_frame(srv, 2049, cli, 800, ps.rpc_reply(xid, res),
                                             ident=2 * i + 1)))
    frames.sort(key=lambda f: f[0])
    t0 = 1700000000 * 1000000
    recs = []
    for t, data in frames:
        us = t0 + int(round(t))
        recs.append({"data": data, "sec": us // 1000000, "usec": us % 1000000})
    ps.write_pcap(path, recs)
    return n + len(lead)


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def api(base, path, **params):
    url = base + path + ("?" + urllib.parse.urlencode(params) if params else "")
    with urllib.request.urlopen(url, timeout=10) as r:
        doc = json.load(r)
    if doc.get("status") != "success":
        raise RuntimeError("%s: %s" % (url, doc))
    return doc["data"]


def query(base, expr):
    """{frozenset(labels without __name__): value} of an instant query."""
    out = {}
    for s in api(base, "/api/v1/query", query=expr)["result"]:
        labels = {k: v for k, v in s["metric"].items() if k != "__name__"}
        out[frozenset(labels.items())] = float(s["value"][1])
    return out


def one(res, **labels):
    want = set(labels.items())
    got = [v for k, v in res.items() if want <= set(k)]
    return got[0] if len(got) == 1 else None


def wait_until(what, fn, timeout):
    end = time.time() + timeout
    while time.time() < end:
        try:
            v = fn()
            if v:
                return v
        except (OSError, RuntimeError, ValueError):
            pass
        time.sleep(0.25)
    check(False, "timed out waiting for " + what)
    return None


def stop(p, sig=signal.SIGINT):
    if p.poll() is None:
        p.send_signal(sig)
    try:
        p.wait(timeout=20)
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()
    return p.returncode


RECORDED = ("program_proc:nfsscope_latency_seconds:p50_rate5m",
            "program_proc:nfsscope_latency_seconds:p90_rate5m",
            "program_proc:nfsscope_latency_seconds:p99_rate5m",
            "program_proc:nfsscope_latency_seconds:mean_rate5m",
            "program_proc:nfsscope_calls:rate5m",
            "program_proc:nfsscope_errors:ratio_rate5m",
            "program:nfsscope_errors:ratio_rate5m",
            "program:nfsscope_errors_but_noent:ratio_rate5m")


def run(prom, nfsscope, rules, work, capture):
    """Prometheus and nfsscope on loopback: (recorded series, JSON report)."""
    port, prom_port = free_port(), free_port()
    base = "http://127.0.0.1:%d" % prom_port
    conf = os.path.join(work, "prometheus.yml")
    with open(conf, "w") as f:
        f.write("global:\n  scrape_interval: 200ms\n  scrape_timeout: 150ms\n"
                "  evaluation_interval: 1s\n"
                "rule_files:\n  - %s\n"
                "scrape_configs:\n  - job_name: nfsscope\n    static_configs:\n"
                "      - targets: ['127.0.0.1:%d']\n" % (json.dumps(os.path.abspath(rules)), port))
    log_path = os.path.join(work, "prometheus.log")
    with open(log_path, "w") as log:
        prom_p = subprocess.Popen([prom, "--config.file=" + conf,
                                   "--storage.tsdb.path=" + os.path.join(work, "data"),
                                   "--web.listen-address=127.0.0.1:%d" % prom_port,
                                   "--log.level=warn"], stdout=log, stderr=log)
    nfs_p = None
    rec = {}
    try:
        if not wait_until("Prometheus ready", lambda: urllib.request.urlopen(
                base + "/-/ready", timeout=2).status == 200, 30):
            with open(log_path) as f:
                print(f.read()[-2000:])
            return None, None
        # Prometheus hands new targets to its scrapers every 5 s: nfsscope
        # starts once the target is being scraped (and refused: no one there).
        if not wait_until("Prometheus scraping the target", lambda: any(
                t.get("lastScrape", "").startswith("2") and t.get("health") == "down"
                for t in api(base, "/api/v1/targets")["activeTargets"]), 30):
            return None, None
        with open(os.path.join(work, "report.json"), "w") as out, \
                open(os.path.join(work, "nfsscope.err"), "w") as err:
            nfs_p = subprocess.Popen([nfsscope, "-r", capture, "--metrics",
                                      "127.0.0.1:%d" % port, "-o", "json"], stdout=out, stderr=err)
        if not wait_until("nfsscope_input_done == 1 in Prometheus",
                          lambda: len(query(base, "nfsscope_input_done == 1")) == 1,
                          SECONDS + 30):
            return None, None
        time.sleep(2.5)  # two rule evaluations after a scrape of the final counters
        for r in RECORDED:
            rec[r] = query(base, r)
            check(len(rec[r]) > 0, "recorded series %s present" % r)
        groups = api(base, "/api/v1/rules")["groups"]
        bad = [(r.get("name"), r.get("lastError")) for g in groups for r in g["rules"]
               if r.get("health") != "ok"]
        n = sum(len(g["rules"]) for g in groups)
        check(len(groups) == 2 and n > 20 and not bad,
              "%d rules in %d groups evaluated without an error (%s)" % (n, len(groups), bad))
    finally:
        if nfs_p is not None:
            rc = stop(nfs_p)
            check(rc == 0, "nfsscope: exit 0 after SIGINT (rc %s)" % rc)
        stop(prom_p, signal.SIGTERM)
    with open(os.path.join(work, "report.json")) as f:
        return rec, json.load(f)


def compare(rec, report, n_calls):
    ops = report["nfs3"]["ops"]
    check(ops["getattr"]["calls"] + ops["lookup"]["calls"] == n_calls,
          "the report has the %d calls made" % n_calls)
    for proc in ("getattr", "lookup"):
        o = ops[proc]
        lab = {"job": "nfsscope", "program": "nfs3", "proc": proc}
        for q in ("p50", "p90", "p99"):
            got = one(rec["program_proc:nfsscope_latency_seconds:%s_rate5m" % q], **lab)
            want = o["latency_us"][q] / 1e6
            print("%-7s %s: recorded %.6f s, report %.6f s"
                  % (proc, q, float("nan") if got is None else got, want))
            check(got is not None and abs(got - want) <= 0.15 * want,
                  "%s %s: recorded within 15 %% of the report's %.6f s (%s)" % (proc, q, want, got))
        got = one(rec["program_proc:nfsscope_latency_seconds:mean_rate5m"], **lab)
        want = o["latency_sum_us"] / o["latency_us"]["count"] / 1e6
        check(got is not None and abs(got - want) <= 0.02 * want,
              "%s mean: recorded %s within 2 %% of the report's %.6f s" % (proc, got, want))
        got = one(rec["program_proc:nfsscope_calls:rate5m"], **lab)
        print("%-7s calls: recorded rate x 5 min %.1f, report %d"
              % (proc, float("nan") if got is None else got * WINDOW, o["calls"]))
        check(got is not None and abs(got * WINDOW - o["calls"]) <= 0.05 * o["calls"],
              "%s: recorded rate x 5 min within 5 %% of the report's %d calls" % (proc, o["calls"]))
        got = one(rec["program_proc:nfsscope_errors:ratio_rate5m"], **lab)
        want = o["errors"] / o["replies"]
        print("%-7s error ratio: recorded %s, report %.4f" % (proc, got, want))
        check(got is not None and abs(got - want) <= 0.02,
              "%s error ratio: recorded within 0.02 of the report's %.4f (%s)" % (proc, want, got))
    check(ops["getattr"]["errors"] > 0 and ops["lookup"]["errors"] > 0,
          "errors to compare: GETATTR %d, LOOKUP %d" % (ops["getattr"]["errors"],
                                                        ops["lookup"]["errors"]))
    replies = sum(o["replies"] for o in ops.values())
    errors = sum(o["errors"] for o in ops.values())
    noent = sum(o.get("status", {}).get("NFS3ERR_NOENT", 0) for o in ops.values())
    check(noent > 0, "the report counts NFS3ERR_NOENT replies (%d)" % noent)
    for name, want in (("program:nfsscope_errors:ratio_rate5m", errors / replies),
                       ("program:nfsscope_errors_but_noent:ratio_rate5m",
                        (errors - noent) / replies)):
        got = one(rec[name], job="nfsscope", program="nfs3")
        print("%s: recorded %s, report %.4f" % (name, got, want))
        check(got is not None and abs(got - want) <= 0.02,
              "%s within 0.02 of the report's %.4f" % (name, want))


def main():
    if len(sys.argv) != 4:
        print("usage: e2e_prometheus.py NFSSCOPE RULES_FILE WORK_DIR", file=sys.stderr)
        return 2
    nfsscope, rules, work = sys.argv[1:]
    prom = shutil.which("prometheus")
    if not prom:
        print("SKIPPED: no prometheus (apt install prometheus)")
        return 77
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    t0 = time.time()
    capture = os.path.join(work, "steady.pcap")
    n = make_capture(capture)
    rec, report = run(prom, nfsscope, rules, work, capture)
    if rec is not None:
        compare(rec, report, n)
    print("took %.1f s" % (time.time() - t0))
    return finish()


if __name__ == "__main__":
    sys.exit(main())
