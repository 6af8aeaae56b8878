#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""e2e_readers.py: the builtin capture reader against libpcap's, on real captures.

    e2e_readers.py [--json-only] NFSSCOPE SAMPLES PCAP_DIR WORKDIR

--json-only: in part 1, the JSON report only (a sanitizer build, where every
run is slow: the readers hand the same packets to every output format).

1. Same reports: every sample, every public capture (the .bz2 ones
   decompressed into WORKDIR, one at a time) and every derived variant of
   every sample (samples/derive) is read with the builtin reader and with
   --reader libpcap, with a fixed hash seed; the JSON report and the text
   report with every breakdown must be byte-identical, and so must exit
   status and stderr. Also two files merged by time, and a BPF filter.
2. Compressed input: each sample gzip, zstd, xz and bzip2 compressed and the
   public .bz2 captures, read by the builtin reader from the file and from
   standard input, give the report libpcap gives on the plain capture (from
   standard input, so that the reports name the same source).
3. pcapng with interfaces of different link types (Ethernet packets of
   all-ops and Linux cooked v2 packets of cooked-any, interleaved in time, on
   interfaces 0 and 1): the builtin reader decodes each packet with its own
   interface's link type, and its NFSv3 and RPC counts equal tshark's on the
   same file (tests/truth-from-tshark) and the two samples' own; with the
   second interface described only after packets, the same. --reader libpcap
   says so in one line and exits 1. A filter that does not compile for the
   second link type: one line (exit 2 when that interface is described
   before any packet, exit 1 when met part way); -w refuses the file.

Exit 77 (skipped) without PCAP_DIR, unless CI=true (then a failure).
"""
import bz2
import gzip
import importlib.machinery
import importlib.util
import json
import lzma
import os
import shutil
import struct
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import check, finish, json_only_args  # noqa: E402
import plaincap  # noqa: E402

ENV = dict(os.environ, NFSSCOPE_HASH_SEED="424242")
BY = ["--by", "client,server,pair,export,file,user"]
FORMATS = [["-o", "json"], ["-o", "text"] + BY]


def run(args, stdin=None):
    return subprocess.run([NFSSCOPE] + args, input=stdin, capture_output=True, env=ENV,
                          timeout=600)


def same_reports(name, args_a, args_b, stdin_a=None, stdin_b=None):
    for fmt in FORMATS:
        a = run(args_a + fmt, stdin_a)
        b = run(args_b + fmt, stdin_b)
        ok = a.returncode == b.returncode and a.stdout == b.stdout and a.stderr == b.stderr
        if not ok:
            print("  %s %s: rc %d/%d, stdout %d/%d bytes, stderr %r / %r" % (
                name, fmt[1], a.returncode, b.returncode, len(a.stdout), len(b.stdout),
                a.stderr[-300:], b.stderr[-300:]))
        check(ok, "%s (%s): builtin and libpcap readers differ" % (name, fmt[1]))
        check(a.returncode == 0, "%s (%s): exit %d" % (name, fmt[1], a.returncode))


def load_derive(samples):
    loader = importlib.machinery.SourceFileLoader("derive", os.path.join(samples, "derive"))
    spec = importlib.util.spec_from_loader("derive", loader)
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    return mod


def compressors():
    out = [("gz", gzip.compress), ("bz2", bz2.compress), ("xz", lzma.compress)]
    if shutil.which("zstd"):
        out.append(("zst", lambda b: subprocess.run(["zstd", "-q", "-c"], input=b,
                                                     capture_output=True, check=True).stdout))
    else:
        check(False, "zstd (the program) is missing: scripts/install-deps installs it")
    return out


# ---------------------------------------------------------------- pcapng writer

def shb():
    body = struct.pack("<IHHq", 0x1A2B3C4D, 1, 0, -1)
    return block(0x0A0D0D0A, body)


def block(btype, body):
    body += b"\0" * (-len(body) % 4)
    n = len(body) + 12
    return struct.pack("<II", btype, n) + body + struct.pack("<I", n)


def idb(linktype, snaplen=262144):
    opts = struct.pack("<HHB3x", 9, 1, 9) + struct.pack("<HH", 0, 0)  # if_tsresol 10^-9
    return block(1, struct.pack("<HHI", linktype, 0, snaplen) + opts)


def epb(iface, ts_ns, data, wirelen):
    return block(6, struct.pack("<IIIII", iface, ts_ns >> 32, ts_ns & 0xFFFFFFFF, len(data),
                                wirelen) + data)


def mixed_pcapng(D, eth_path, sll2_path, late_idb):
    """Interface 0: the Ethernet sample's frames; interface 1: the cooked v2
    sample's, shifted in time so that the two interleave."""
    lt0, _, _, f0 = D.read_capture(eth_path)
    lt1, _, _, f1 = D.read_capture(sll2_path)
    assert lt0 == 1 and lt1 == 276, (lt0, lt1)
    shift = f0[0].ts_ns - f1[0].ts_ns + 500_000  # 0.5 ms after the first frame
    frames = sorted([(f.ts_ns, 0, f) for f in f0] + [(f.ts_ns + shift, 1, f) for f in f1],
                    key=lambda x: (x[0], x[1]))
    out = bytearray(shb() + idb(1))
    if not late_idb:
        out += idb(276)
    described = not late_idb
    for ts, i, f in frames:
        if i == 1 and not described:
            out += idb(276)
            described = True
        out += epb(i, ts, f.data, f.wirelen)
    return bytes(out), len(frames)


def counts(rep):
    ops = {k: (v["calls"], v["replies"]) for k, v in rep["nfs3"]["ops"].items() if v["calls"]}
    return rep["rpc"]["calls"], rep["rpc"]["replies"], ops


def truth_counts(t):
    ops = {k: (v["calls"], v["replies"]) for k, v in t["nfs3"]["ops"].items() if v["calls"]}
    return t["rpc"]["calls"], t["rpc"]["replies"], ops


def one_line(p, rc, words, what):
    lines = p.stderr.decode(errors="replace").strip().splitlines()
    ok = p.returncode == rc and len(lines) >= 1 and all(w in lines[0] for w in words)
    if not ok:
        print("  %s: rc %d, stderr %r" % (what, p.returncode, p.stderr[-400:]))
    check(ok, "%s: exit %d and one line saying %s" % (what, rc, words))


def mixed_links(D, samples, work):
    eth, sll2 = os.path.join(samples, "all-ops.pcap"), os.path.join(samples, "cooked-any.pcap")
    want = {}
    for s in (eth, sll2):
        r = json.loads(run(["-r", s, "-o", "json"]).stdout)
        want[s] = counts(r)
    calls = want[eth][0] + want[sll2][0]
    replies = want[eth][1] + want[sll2][1]
    ops = dict(want[eth][2])
    for k, (c, r) in want[sll2][2].items():
        oc, orr = ops.get(k, (0, 0))
        ops[k] = (oc + c, orr + r)
    tool = os.path.join(os.path.dirname(os.path.abspath(__file__)), "truth-from-tshark")
    have_tshark = shutil.which("tshark") is not None
    check(have_tshark or os.environ.get("CI") != "true", "tshark is missing")
    for late in (False, True):
        name = "mixed-late.pcapng" if late else "mixed.pcapng"
        path = os.path.join(work, name)
        data, nframes = mixed_pcapng(D, eth, sll2, late)
        with open(path, "wb") as fh:
            fh.write(data)
        p = run(["-r", path, "-o", "json"])
        check(p.returncode == 0 and p.stderr == b"", "%s: exit %d %r" % (name, p.returncode,
                                                                       p.stderr[-300:]))
        rep = json.loads(p.stdout) if p.returncode == 0 else None
        if rep:
            check(rep["capture"]["packets"] == nframes, "%s: %d packets, want %d" % (
                name, rep["capture"]["packets"], nframes))
            an = rep["anomalies"]
            check(an.get("link_other", 0) == 0 and an.get("link_malformed", 0) == 0 and
                  an.get("file_truncated", 0) == 0, "%s: link anomalies %r" % (name, an))
            got = counts(rep)
            check(got == (calls, replies, ops), "%s: counts %r, the samples' %r" % (
                name, got, (calls, replies, ops)))
            if have_tshark:
                tp = os.path.join(work, name + ".truth.json")
                t = subprocess.run([sys.executable, tool, path, "-o", tp], capture_output=True,
                                   timeout=600)
                check(t.returncode == 0, "%s: truth-from-tshark: %r" % (name, t.stderr[-300:]))
                if t.returncode == 0:
                    with open(tp) as fh:
                        truth = json.load(fh)
                    check(truth["frames"] == nframes, "%s: tshark saw %d frames" % (
                        name, truth["frames"]))
                    check(got == truth_counts(truth), "%s: counts %r, tshark's %r" % (
                        name, got, truth_counts(truth)))
            # The filter runs per link type: the same NFS traffic either way.
            f = run(["-r", path, "-o", "json", "tcp", "or", "udp"])
            check(f.returncode == 0 and counts(json.loads(f.stdout)) == got,
                  "%s: with a filter, other counts" % name)
        one_line(run(["--reader", "libpcap", "-r", path]), 1, ["link type", "--reader libpcap"],
                 name + " --reader libpcap")
        # "ether host" has no meaning on Linux cooked captures.
        one_line(run(["-r", path, "ether", "host", "00:11:22:33:44:55"]), 1 if late else 2,
                 ["ether host", "LINUX_SLL2"], name + " filter for Ethernet only")
        one_line(run(["-r", path, "-w", os.path.join(work, "w.pcap")]), 1 if late else 2,
                 ["-w", "link type"], name + " -w")


def main(argv):
    global NFSSCOPE, FORMATS
    parsed = json_only_args(argv[1:], 4)
    if parsed is None:
        print(__doc__)
        return 2
    json_only, (NFSSCOPE, samples, pcaps, work) = parsed
    if json_only:
        FORMATS = FORMATS[:1]
    if not os.path.isdir(pcaps):
        if os.environ.get("CI") == "true":
            print("FAIL %s is missing (CI)" % pcaps)
            return 1
        print("SKIP: %s is missing" % pcaps)
        return 77
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    D = load_derive(samples)

    plain = sorted(os.path.join(samples, n) for n in os.listdir(samples)
                   if n.endswith((".pcap", ".pcapng")))
    public = [os.path.join(pcaps, n) for n in sorted(os.listdir(pcaps))
              if n.endswith((".pcap", ".pcapng", ".bz2"))]
    derived = []
    for s in plain:
        for v in D.VARIANTS:
            out = os.path.join(work, "%s.%s.pcap" % (os.path.basename(s), v))
            r = subprocess.run([sys.executable, os.path.join(samples, "derive"), v, s, out],
                               capture_output=True)
            if r.returncode == 0:
                derived.append(out)
    check(len(derived) >= len(plain) * 5, "%d derived variants" % len(derived))

    # 1. the same reports; 2. for the public .bz2 captures, compressed input
    n = 0
    for c in public:
        with plaincap.plain(c, work) as p:
            same_reports(os.path.basename(p), ["-r", p], ["--reader", "libpcap", "-r", p])
            if p != c:
                with open(c, "rb") as fh:
                    z = fh.read()
                with open(p, "rb") as fh:
                    raw = fh.read()
                same_reports(os.path.basename(c) + " stdin", ["-r", "-"],
                             ["--reader", "libpcap", "-r", "-"], z, raw)
                n += 1
    caps = plain + public + derived
    for c in plain + derived:
        same_reports(os.path.basename(c), ["-r", c], ["--reader", "libpcap", "-r", c])
    a, b = os.path.join(samples, "all-ops.pcap"), os.path.join(samples, "multi-client.pcapng")
    same_reports("merge", ["-r", a, "-r", b], ["--reader", "libpcap", "-r", a, "-r", b])
    for c in plain[:4]:
        same_reports(os.path.basename(c) + " filtered", ["-r", c, "tcp", "port", "2049"],
                     ["--reader", "libpcap", "-r", c, "tcp", "port", "2049"])
    print("same reports: %d captures" % len(caps))

    # 2. compressed input
    for c in plain:
        with open(c, "rb") as fh:
            raw = fh.read()
        for ext, comp in compressors():
            z = comp(raw)
            zp = os.path.join(work, os.path.basename(c) + "." + ext)
            with open(zp, "wb") as fh:
                fh.write(z)
            same_reports(os.path.basename(zp) + " stdin", ["-r", "-"],
                         ["--reader", "libpcap", "-r", "-"], z, raw)
            fa = run(["-r", zp, "-o", "json"])
            fb = run(["-r", c, "-o", "json"])
            ja = json.loads(fa.stdout) if fa.returncode == 0 else None
            jb = json.loads(fb.stdout)
            if ja:
                ja["capture"]["sources"] = jb["capture"]["sources"]
            check(ja == jb, "%s: the file's report is not the plain capture's" % zp)
            n += 1
    # a compressed file libpcap's reader cannot read; a cut one; not a capture inside
    zp = os.path.join(work, "all-ops.pcap.gz")
    one_line(run(["--reader", "libpcap", "-r", zp]), 1, ["all-ops.pcap.gz", "compressed"],
             "gzip with --reader libpcap")
    with open(zp, "rb") as fh:
        z = fh.read()
    cut = os.path.join(work, "cut.pcap.gz")
    with open(cut, "wb") as fh:
        fh.write(z[:len(z) * 2 // 3])
    p = run(["-r", cut, "-o", "json"])
    rep = json.loads(p.stdout) if p.returncode == 0 else None
    check(rep is not None and rep["anomalies"]["file_truncated"] == 1 and
          rep["capture"]["packets"] > 0 and b"gzip" in p.stderr,
          "cut gzip: packets before the cut counted, file_truncated, said: %r" % p.stderr[-200:])
    txt = os.path.join(work, "notes.txt.xz")
    with open(txt, "wb") as fh:
        fh.write(lzma.compress(b"just some text\n" * 50))
    one_line(run(["-r", txt]), 1, ["notes.txt.xz", "xz-compressed", "not a pcap"],
             "xz text")
    print("compressed: %d inputs" % n)

    # 3. several link types in one pcapng
    mixed_links(D, samples, work)
    return finish()


if __name__ == "__main__":
    sys.exit(main(sys.argv))
