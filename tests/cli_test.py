#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""cli_test.py: the command-line contract (contract.md) and capture input.

Exit codes and one-line messages; -r - (standard input); several -r files
analysed as one capture in timestamp order; pcapng; nanosecond pcap; BPF
expressions; -c; -o csv; tcpdump's -D, -n, -F, -q/-v and a bare capture file
name. Inputs are written here from a public capture
(split, re-stamped), so nothing is committed.

usage: cli_test.py NFSSCOPE PCAP_DIR WORKDIR
"""
import json
import os
import shutil
import struct
import subprocess
import sys

import checks

passed = failed = 0


def check(cond, what):
    global passed, failed
    if cond:
        passed += 1
    else:
        failed += 1
        print("FAIL " + what)


def run(args, stdin=None):
    return subprocess.run([NFSSCOPE] + args, input=stdin, capture_output=True, timeout=120)


def read_pcap(path):
    data = open(path, "rb").read()
    magic = struct.unpack("<I", data[:4])[0]
    assert magic == 0xA1B2C3D4, "little-endian microsecond pcap expected"
    hdr, off, recs = data[:24], 24, []
    while off + 16 <= len(data):
        sec, usec, incl, orig = struct.unpack("<IIII", data[off:off + 16])
        recs.append((sec, usec, incl, orig, data[off + 16:off + 16 + incl]))
        off += 16 + incl
    return hdr, recs


def write_pcap(path, hdr, recs, nano=False):
    with open(path, "wb") as f:
        if nano:
            hdr = struct.pack("<I", 0xA1B23C4D) + hdr[4:]
        f.write(hdr)
        for sec, frac, incl, orig, pkt in recs:
            f.write(struct.pack("<IIII", sec, frac * 1000 if nano else frac, incl, orig) + pkt)


def report(args, stdin=None):
    p = run(args + ["-o", "json"], stdin)
    check(p.returncode == 0, f"{args}: exit {p.returncode} {p.stderr!r}")
    return json.loads(p.stdout) if p.returncode == 0 else None


def counts(rep):
    """Everything that must not depend on how the input was delivered."""
    ops = {k: (v["calls"], v["replies"], v["errors"], v["latency_us"]["min"],
               v["latency_us"]["max"], v["latency_us"]["p50"])
           for k, v in rep["nfs3"]["ops"].items()}
    return ops, rep["rpc"], rep["capture"]["packets"], rep["capture"]["bytes"]


def one_line_error(p, code, words):
    lines = p.stderr.decode().strip().splitlines()
    check(p.returncode == code, f"exit {p.returncode} != {code}: {p.stderr!r}")
    check(len(lines) >= 1 and lines[0].startswith("nfsscope: ") and
          all(w in lines[0] for w in words), f"message {lines!r} lacks {words}")
    check(p.stdout == b"", "nothing on stdout on error")


def main():
    global NFSSCOPE
    NFSSCOPE, pcaps, work = sys.argv[1], sys.argv[2], sys.argv[3]
    os.makedirs(work, exist_ok=True)

    # Usage errors: exit 2, one line naming the bad argument (+ short usage).
    one_line_error(run([]), 2, ["no input"])
    one_line_error(run(["--bogus"]), 2, ["--bogus"])
    one_line_error(run(["-r", "x", "-o", "xml"]), 2, ["xml"])
    one_line_error(run(["-r", "x", "-c", "abc"]), 2, ["-c", "abc"])
    one_line_error(run(["-r"]), 2, ["-r"])
    # What the user typed is quoted escaped: still one line, no terminal control.
    for args in (["-r", "x", "--sort", "x\n\x1b]0;t\x07\xff"],
                 ["-i", "lo", "--metrics", "a\nb\x1b[31m:9"],
                 ["-r", "x", "--interval", "\x1b[2J"],
                 ["-r", "x", "--records-format", "j\rsonl\x9b"]):
        p = run([a.encode("latin-1") for a in args])
        lines = p.stderr.splitlines()
        check(p.returncode == 2 and len(lines) == 2 and lines[1].startswith(b"usage: ") and
              (b"\\x1b" in lines[0] or b"\\x0d" in lines[0]) and
              not any(c < 0x20 or c == 0x7f or c >= 0x80 for c in p.stderr.replace(b"\n", b"")),
              f"{args[-2]}: escaped, one line: {p.stderr!r}")
    # Run-time errors: exit 1, one line naming the thing and the reason.
    one_line_error(run(["-r", os.path.join(work, "missing.pcap")]), 1,
                   ["missing.pcap", "No such file"])
    junk = os.path.join(work, "junk.pcap")
    open(junk, "wb").write(b"this is not a capture file at all\n" * 4)
    one_line_error(run(["-r", junk]), 1, ["junk.pcap", "not a pcap"])
    # Help and version: stdout, exit 0.
    p = run(["--help"])
    check(p.returncode == 0 and b"usage: nfsscope" in p.stdout and p.stderr == b"", "--help")
    p = run(["--version"])
    check(p.returncode == 0 and p.stdout.startswith(b"nfsscope "), "--version")

    if not os.path.isdir(pcaps):
        checks.skip_part(f"{pcaps} absent: capture-input checks not run", ci_required=True)
        print(f"{passed} passed, {failed} failed")
        return checks.status(failed)

    src = os.path.join(pcaps, "zeek-nfs_base.pcap")  # TCP and UDP NFSv3 + MOUNT
    base = report(["-r", src])
    # A bad filter is a usage error.
    one_line_error(run(["-r", src, "port", "nonsense("]), 2, ["filter"])
    # Standard input.
    check(counts(report(["-r", "-"], open(src, "rb").read())) == counts(base), "-r - differs")
    # Split into two files (alternate packets): one capture in time order.
    hdr, recs = read_pcap(src)
    a, b = os.path.join(work, "a.pcap"), os.path.join(work, "b.pcap")
    write_pcap(a, hdr, recs[0::2])
    write_pcap(b, hdr, recs[1::2])
    check(counts(report(["-r", b, "-r", a])) == counts(base), "-r b -r a differs from the whole")
    # Nanosecond-resolution pcap: same numbers.
    nano = os.path.join(work, "nano.pcap")
    write_pcap(nano, hdr, recs, nano=True)
    nrep = report(["-r", nano])
    check(counts(nrep) == counts(base), "nanosecond pcap differs")
    check(nrep["capture"]["first_ts"] == base["capture"]["first_ts"], "nanosecond first_ts")
    # pcapng input.
    ng = os.path.join(pcaps, "tcpdump-nfs-write-verf-cookie.pcapng")
    check(report(["-r", ng])["nfs3"]["ops"]["write"]["calls"] == 1, "pcapng WRITE call")
    # BPF: only UDP; nothing at all.
    udp = report(["-r", src, "udp"])
    tcp = report(["-r", src, "tcp"])
    check(udp["nfs3"]["ops"]["getattr"]["calls"] + tcp["nfs3"]["ops"]["getattr"]["calls"] ==
          base["nfs3"]["ops"]["getattr"]["calls"], "udp + tcp getattr = all")
    check(tcp["capture"]["packets"] < base["capture"]["packets"], "tcp filter drops packets")
    none = report(["-r", src, "host", "192.0.2.1"])
    check(none["capture"]["packets"] == 0 and none["rpc"]["calls"] == 0, "empty filter")
    # -c COUNT.
    check(report(["-r", src, "-c", "10"])["capture"]["packets"] == 10, "-c 10")
    # CSV: header + one row per NFSv3 procedure.
    p = run(["-r", src, "-o", "csv"])
    rows = p.stdout.decode().splitlines()
    check(p.returncode == 0 and rows[0].startswith("program,procedure,calls"), "csv header")
    check(sum(1 for r in rows if r.startswith("nfs3,")) == 22, "csv has 22 nfs3 rows")
    # CSV with --by: breakdown rows, every row as wide as the header (strict parse).
    import csv as csvmod
    import io
    p = run(["-r", src, "-o", "csv", "--by", "client,file"])
    rows = list(csvmod.reader(io.StringIO(p.stdout.decode(), newline=""), strict=True))
    check(p.returncode == 0 and rows[0][:3] == ["dimension", "key", "calls"], "csv --by header")
    check(all(len(r) == len(rows[0]) for r in rows), "csv --by rows as wide as the header")
    check(sum(int(r[2]) for r in rows[1:] if r[0] == "client") == base["rpc"]["calls"],
          "csv --by client calls add up")
    # Text: the table and the footer.
    p = run(["-r", src])
    check(p.returncode == 0 and b"getattr" in p.stdout and b"capture quality" in p.stdout, "text")
    # Unsupported link type: one clear line, exit 1.
    bad = os.path.join(work, "dlt.pcap")
    write_pcap(bad, hdr[:20] + struct.pack("<I", 147), recs[:3])  # DLT_USER0
    one_line_error(run(["-r", bad]), 1, ["unsupported link type"])
    # A file cut in the middle of a packet: a report, exit 0, the cut counted.
    cut = os.path.join(work, "cut.pcap")
    open(cut, "wb").write(open(src, "rb").read()[:-30])
    crep = report(["-r", cut])
    check(crep["anomalies"]["file_truncated"] == 1, "truncated file counted")

    # tcpdump habits. -D: the interfaces, as tcpdump -D prints them.
    p = run(["-D"])
    check(p.returncode == 0 and p.stdout.startswith(b"1.") and p.stderr == b"",
          f"-D lists interfaces: {p.returncode} {p.stdout[:80]!r}")
    if shutil.which("tcpdump"):
        t = subprocess.run(["tcpdump", "-D"], capture_output=True, timeout=30)
        check(t.returncode != 0 or t.stdout == p.stdout,
              f"-D prints what tcpdump -D prints: {p.stdout!r} vs {t.stdout!r}")
    # -n: accepted, changes nothing (nothing is ever resolved).
    check(report(["-n", "-r", src]) == base, "-n: the same report")
    # -F FILE: the expression from a file, comments dropped; not with one on
    # the command line (2); an unreadable file (1).
    bpf = os.path.join(work, "filter.bpf")
    with open(bpf, "w") as f:
        f.write("# NFS only\nport 2049 # the server\n")
    check(report(["-r", src, "-F", bpf]) == report(["-r", src, "port", "2049"]),
          "-F FILE: the same report as the expression on the command line")
    one_line_error(run(["-r", src, "-F", bpf, "tcp"]), 2, ["-F"])
    one_line_error(run(["-r", src, "-F", os.path.join(work, "no-such.bpf")]), 1, ["-F"])
    with open(bpf, "w") as f:
        f.write("port nonsense\n")
    one_line_error(run(["-r", src, "-F", bpf]), 2, ["bad filter"])
    # -q / -v: the short form, every breakdown; not both.
    full, short, verbose = run(["-r", src]), run(["-q", "-r", src]), run(["-v", "-r", src])
    check(short.returncode == 0 and len(short.stdout) < len(full.stdout) and
          b"capture quality" in short.stdout and b"getattr" in short.stdout and
          b"\nfindings" not in short.stdout,
          "-q: the short form (tables and capture quality)")
    check(verbose.returncode == 0 and all(
        ("by calls: " + d).encode() in verbose.stdout
        for d in ("client", "server", "pair", "export", "file", "user")),
        "-v: every breakdown")
    one_line_error(run(["-q", "-v", "-r", src]), 2, ["-q", "-v"])
    # A lone capture file name: read as -r; missing (1); beside -r (2).
    check(report([src]) == base, "a bare capture file name is read as -r")
    check(report([src, "port", "2049"]) == report(["-r", src, "port", "2049"]),
          "a bare capture file name, then a BPF expression")
    one_line_error(run([os.path.join(work, "no-such.pcap")]), 1, ["no-such.pcap"])
    one_line_error(run(["-r", src, src]), 2, ["capture file", "-r"])
    one_line_error(run([os.path.join(work, "filter.bpf")]), 2, ["no input"])

    print(f"{passed} passed, {failed} failed")
    return checks.status(failed)


if __name__ == "__main__":
    sys.exit(main())
