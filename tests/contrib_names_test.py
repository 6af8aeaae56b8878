#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""contrib_names_test.py: the Prometheus rules and the Grafana dashboard in
contrib/ ask only for what nfsscope serves.

Every metric name in an expression of contrib/prometheus/nfsscope-rules.yml,
of the series its promtool tests feed in, and of the queries and variables
of contrib/grafana/nfsscope-dashboard.json, is either a name in a real
scrape of nfsscope --metrics or a recording rule of the rules file; every
label name they select on or aggregate by is a label of a scraped series
(or a target label Prometheus adds: job, instance). The scrapes: every
sample replayed with -r (their union covers errors, READ/WRITE bytes,
stable_how, findings), e2e_prometheus.py's steady capture (RPCSEC_GSS calls
and context messages, RPC-over-TLS connections) and, as root, a live capture
on lo (kernel drops are counted only live).

   contrib_names_test.py NFSSCOPE SAMPLES_DIR CONTRIB_DIR WORK_DIR
"""
import glob
import json
import os
import re
import signal
import subprocess
import sys
import time
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import check, finish  # noqa: E402
from e2e_prometheus import make_capture  # noqa: E402

TARGET_LABELS = {"job", "instance"}
KEYWORDS = {"by", "without", "on", "ignoring", "group_left", "group_right", "and", "or",
            "unless", "bool", "offset", "inf", "nan"}
NAME_RE = re.compile(r"[a-zA-Z_:][a-zA-Z0-9_:]*")
SAMPLE_RE = re.compile(r"^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^}]*\})?\s")


def names_in(expr):
    """(metric names, label names) a PromQL expression refers to."""
    e = re.sub(r"\$\{?[a-zA-Z_]+\}?", "x", expr)           # Grafana variables
    labels = set()
    for m in re.finditer(r"\b(by|without|on|ignoring|group_left|group_right)\s*\(([^)]*)\)", e):
        labels.update(x.strip() for x in m.group(2).split(",") if x.strip())
    e = re.sub(r"\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)", " ", e)
    for m in re.finditer(r"\{([^}]*)\}", e):
        for part in re.finditer(r"([a-zA-Z_][a-zA-Z0-9_]*)\s*(=~|!~|!=|=)", m.group(1)):
            labels.add(part.group(1))
    e = re.sub(r'"(\\.|[^"\\])*"', '""', e)                 # strings
    e = re.sub(r"\{[^}]*\}", " ", e)                         # matchers
    e = re.sub(r"\[[^\]]*\]", " ", e)                        # ranges
    metrics = set()
    for m in NAME_RE.finditer(e):
        word = m.group(0)
        rest = e[m.end():].lstrip()
        before = e[:m.start()]
        if rest.startswith("("):                             # a function
            continue
        if word.lower() in KEYWORDS or re.search(r"[0-9.]$", before):
            continue                                         # 1e3, 0.5 ...
        if re.fullmatch(r"[0-9]+[smhdwy]", word):
            continue
        metrics.add(word)
    labels.discard("__name__")
    return metrics, labels


def yaml_values(path, key):
    """The values of KEY in a YAML file of the rules' shape: `key: value` on
    one line (plain or quoted), or `key: |` and a more indented block. The
    standard library has no YAML reader; promtool has read the files."""
    with open(path) as f:
        lines = f.read().split("\n")
    out, i = [], 0
    pat = re.compile(r"^(\s*)(?:- )?" + key + r":\s*(.*)$")
    while i < len(lines):
        m = pat.match(lines[i])
        i += 1
        if not m:
            continue
        v = m.group(2).strip()
        if v in ("|", ">"):
            block = []
            while i < len(lines) and (not lines[i].strip() or
                                      len(lines[i]) - len(lines[i].lstrip()) > len(m.group(1))):
                block.append(lines[i].strip())
                i += 1
            v = " ".join(block).strip()
        elif len(v) >= 2 and v[0] == v[-1] and v[0] in "'\"":
            v = v[1:-1]
        else:
            v = v.split(" #")[0].strip()
        out.append(v)
    return out


def rules_exprs(path):
    return set(yaml_values(path, "record")), yaml_values(path, "expr")


def rule_test_series(path):
    """The series the promtool tests feed in."""
    return yaml_values(path, "series")


def dashboard_exprs(path):
    with open(path) as f:
        d = json.load(f)
    exprs = []

    def walk(panels):
        for p in panels:
            for t in p.get("targets", []):
                exprs.append(t["expr"])
            walk(p.get("panels", []))
    walk(d["panels"])
    for v in d["templating"]["list"]:
        q = v.get("query")
        if isinstance(q, dict):
            q = q.get("query")
        if v.get("type") == "query" and q:
            m = re.fullmatch(r"label_values\((.*),\s*([a-zA-Z_]+)\)", q)
            check(m is not None, "dashboard variable %s: label_values(SELECTOR, LABEL) (%s)"
                  % (v["name"], q))
            if m:
                exprs.append(m.group(1) + " by (" + m.group(2) + ")")
    return exprs


def scrape_run(argv, work, tag, live=False):
    """Run nfsscope with --metrics, scrape once its counters are final (-r)
    or after a second of capture (-i): {name: set(label names)}."""
    err_path = os.path.join(work, tag + ".err")
    with open(err_path, "w") as err:
        p = subprocess.Popen(argv + ["--metrics", "127.0.0.1:0"], stdout=subprocess.DEVNULL,
                             stderr=err)
    try:
        url, end = None, time.time() + 30
        while url is None and time.time() < end and p.poll() is None:
            with open(err_path) as f:
                m = re.search(r"metrics at (http://\S+/metrics)", f.read())
            url = m.group(1) if m else None
            time.sleep(0.05)
        if url is None:
            with open(err_path) as f:
                check(False, "%s: no metrics address (%s)" % (tag, f.read().strip()))
            return {}
        text = ""
        while time.time() < end:
            with urllib.request.urlopen(url, timeout=10) as r:
                text = r.read().decode()
            if live or re.search(r"^nfsscope_input_done 1$", text, re.M):
                break
            time.sleep(0.1)
        if live:
            time.sleep(1)
            with urllib.request.urlopen(url, timeout=10) as r:
                text = r.read().decode()
        got = {}
        for line in text.splitlines():
            if not line or line.startswith("#"):
                continue
            m = SAMPLE_RE.match(line)
            if m is None:
                check(False, "%s: a sample line parses (%r)" % (tag, line))
            else:
                got.setdefault(m.group(1), set()).update(
                    re.findall(r"([a-zA-Z_][a-zA-Z0-9_]*)=\"", m.group(2) or ""))
        return got
    finally:
        p.send_signal(signal.SIGINT)
        try:
            p.wait(timeout=20)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()


def main():
    if len(sys.argv) != 5:
        print("usage: contrib_names_test.py NFSSCOPE SAMPLES_DIR CONTRIB_DIR WORK_DIR",
              file=sys.stderr)
        return 2
    nfsscope, samples, contrib, work = sys.argv[1:]
    os.makedirs(work, exist_ok=True)
    rules = os.path.join(contrib, "prometheus", "nfsscope-rules.yml")
    rules_test = os.path.join(contrib, "prometheus", "nfsscope-rules.test.yml")
    dash = os.path.join(contrib, "grafana", "nfsscope-dashboard.json")

    served = {}
    files = sorted(glob.glob(os.path.join(samples, "*.pcap")) +
                   glob.glob(os.path.join(samples, "*.pcapng")))
    check(len(files) >= 5, "samples found in %s (%d)" % (samples, len(files)))
    files.append(os.path.join(work, "gss-tls.pcap"))
    make_capture(files[-1])
    for f in files:
        for name, labels in scrape_run([nfsscope, "-r", f, "--speed", "0", "-o", "json"], work,
                                       os.path.basename(f)).items():
            served.setdefault(name, set()).update(labels)
    live_only = set()
    if os.geteuid() == 0:
        live = scrape_run([nfsscope, "-i", "lo", "--no-tui", "-Z", "root", "-o", "json"], work,
                          "live-lo", live=True)
        live_only = set(live) - set(served)
        for name, labels in live.items():
            served.setdefault(name, set()).update(labels)
        print("live scrape on lo adds: %s" % sorted(live_only))
        check("nfsscope_kernel_drops_total" in live, "the live scrape has nfsscope_kernel_drops_total")
    else:
        print("SKIP (part): not root: no live scrape; nfsscope_kernel_drops_total is taken "
              "from the man page instead")
    print("%d metric names served" % len(served))
    served_labels = set().union(*served.values()) | TARGET_LABELS

    records, exprs = rules_exprs(rules)
    used = {}
    for src, es in (("rules", exprs), ("dashboard", dashboard_exprs(dash)),
                    ("rule tests", rule_test_series(rules_test))):
        check(len(es) > 0, "%s: expressions found" % src)
        for e in es:
            ms, ls = names_in(e)
            for m in ms:
                used.setdefault((src, m), e)
            for lab in ls:
                check(lab in served_labels,
                      "%s: label %s is served (%s)" % (src, lab, " ".join(e.split())))
    for (src, m), e in sorted(used.items()):
        if ":" in m:
            check(m in records, "%s: %s is a recording rule of nfsscope-rules.yml" % (src, m))
            check(src != "rule tests", "rule tests feed in only served names (%s)" % m)
        elif m == "nfsscope_kernel_drops_total" and os.geteuid() != 0:
            with open(os.path.join(os.path.dirname(os.path.abspath(contrib)), "doc",
                                   "nfsscope.1")) as f:
                check(m in f.read(), "%s: %s is documented (live only)" % (src, m))
        else:
            check(m in served, "%s: %s is served by nfsscope --metrics (%s)"
                  % (src, m, " ".join(e.split())[:120]))
    n = {s: len([1 for (src, _m) in used if src == s]) for s in ("rules", "dashboard", "rule tests")}
    print("names used: rules %(rules)d, dashboard %(dashboard)d, rule tests %(rule tests)d" % n)
    check(n["dashboard"] >= 10, "the dashboard queries at least 10 names (%d)" % n["dashboard"])
    return finish()


if __name__ == "__main__":
    sys.exit(main())
