#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""e2e_schema.py: every JSON nfsscope writes validates against
doc/nfsscope-report.schema.json (JSON Schema 2020-12, python3-jsonschema).

    e2e_schema.py NFSSCOPE SAMPLES_DIR PUBLIC_DIR WORK_DIR SCHEMA

The report (-o json) of every sample and every public capture (bz2 ones
through `bzcat | -r -`), `nfsscope merge -o json` of two samples' reports,
and `nfsscope diff -o json` of two samples. The schema must be strict enough
to matter: each mutation of a valid report (a promised key removed, a count
made a string or negative, a latency null where count > 0, the schema
string changed) must fail validation, while an added key must not.

Exit 0 pass, 1 fail, 77 skip (no python3-jsonschema).
"""
import copy
import json
import os
import re
import subprocess
import sys

from checks import check, finish

try:
    import jsonschema
except ImportError:
    print("SKIP: python3-jsonschema is not installed (scripts/install-deps)")
    sys.exit(77)


def report(nfsscope, path, extra=()):
    data, arg = None, path
    if path.endswith(".bz2"):
        data = subprocess.run(["bzcat", path], capture_output=True, check=True).stdout
        arg = "-"
    p = subprocess.run([nfsscope, "-r", arg, "-o", "json"] + list(extra), input=data,
                       capture_output=True, timeout=600)
    return p.returncode, p.stdout


def errors(validator, doc):
    return [e.message for e in validator.iter_errors(doc)]


def main():
    if len(sys.argv) != 6:
        print(__doc__)
        return 2
    nfsscope, samples, public, work, schema_path = sys.argv[1:]
    os.makedirs(work, exist_ok=True)
    with open(schema_path) as f:
        schema = json.load(f)
    jsonschema.Draft202012Validator.check_schema(schema)
    v = jsonschema.Draft202012Validator(schema)
    n = 0
    for d in (samples, public):
        for f in sorted(os.listdir(d)):
            if not re.search(r"\.(pcap|pcapng)(\.bz2)?$", f):
                continue
            rc, out = report(nfsscope, os.path.join(d, f))
            if not check(rc == 0, "%s: -o json exit %d" % (f, rc)):
                continue
            e = errors(v, json.loads(out))
            check(not e, "%s: the report validates %s" % (f, e[:3]))
            n += 1
    check(n > 40, "%d reports validated" % n)
    ja, jb = os.path.join(work, "a.json"), os.path.join(work, "b.json")
    for s, j in (("all-ops.pcap", ja), ("ls-storm.pcap", jb)):
        with open(j, "wb") as f:
            f.write(report(nfsscope, os.path.join(samples, s))[1])
    p = subprocess.run([nfsscope, "merge", "-o", "json", ja, jb], capture_output=True)
    merged = json.loads(p.stdout)
    check(p.returncode == 0 and not errors(v, merged),
          "merge -o json validates %s" % errors(v, merged)[:3])
    p = subprocess.run([nfsscope, "diff", "-o", "json", os.path.join(samples, "all-ops.pcap"),
                        os.path.join(samples, "ls-storm.pcap")], capture_output=True)
    diff = json.loads(p.stdout)
    check(p.returncode == 0 and diff.get("schema") == "nfsscope-diff/1" and not errors(v, diff),
          "diff -o json validates %s" % errors(v, diff)[:3])

    # Strict enough: each mutation must fail, an added key must not.
    with open(ja) as f:
        good = json.load(f)
    busy = next(k for k, o in good["nfs3"]["ops"].items() if o["latency_us"]["count"])

    def mut(what, fn, valid=False):
        doc = copy.deepcopy(good)
        fn(doc)
        e = errors(v, doc)
        check(bool(e) != valid, "mutated (%s): %s" % (what, "valid" if not e else e[0]))
    mut("no rpc.calls", lambda d: d["rpc"].pop("calls"))
    mut("rpc.calls a string", lambda d: d["rpc"].__setitem__("calls", "62"))
    mut("a negative count", lambda d: d["capture"].__setitem__("packets", -1))
    mut("no nfs3.ops.commit", lambda d: d["nfs3"]["ops"].pop("commit"))
    mut("p99 null with count > 0", lambda d: d["nfs3"]["ops"][busy]["latency_us"]
        .__setitem__("p99", None))
    mut("a status count a float", lambda d: d["nfs3"]["ops"][busy]["status"]
        .__setitem__("NFS3ERR_IO", 1.5))
    mut("no nfs3.write.stable", lambda d: d["nfs3"]["write"].pop("stable"))
    mut("schema nfsscope/2", lambda d: d.__setitem__("schema", "nfsscope/2"))
    mut("mount3 without ops", lambda d: d["mount3"].pop("ops"))
    mut("a finding without summary", lambda d: d["findings"].append({"kind": "x", "count": 1}))
    mut("diff: a pair of three", lambda d: d.clear() or d.update(copy.deepcopy(diff)) or
        d["rpc"].__setitem__("calls", [1, 2, 3]))
    mut("an added key (allowed)", lambda d: d.__setitem__("new_section", {"x": 1}), valid=True)
    mut("an added op key (allowed)", lambda d: d["nfs3"]["ops"][busy].__setitem__("new", 1),
        valid=True)
    return finish()


if __name__ == "__main__":
    sys.exit(main())
