#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""e2e_termsafe.py: strings from the wire are safe in every output.

    e2e_termsafe.py NFSSCOPE WORKDIR

A synthetic capture (tests/pcapsyn.py) teaches nfsscope's names cache
hostile names: a MOUNT of an export whose path holds escape sequences, then
LOOKUP replies naming files with ANSI/OSC escapes, BEL, CR/LF, NUL, DEL,
invalid UTF-8 (bare continuation bytes, overlong encodings), 8-bit C1
controls (U+009B CSI), CSV and JSON metacharacters, spreadsheet formulas
(as names and as exports, which start a path),
bidirectional controls (U+202E, U+2066, U+2069),
a 400-byte name and a harmless UTF-8 name; every call carries an AUTH_SYS
machine name with escapes too. A GETATTR of each learned handle puts the
path in the file breakdown and in the per-call records. Then:

  every output: no C1 code point and no bidirectional control;
  text    no ESC, BEL, CR, NUL, DEL or other C0 byte but LF; strict UTF-8;
          the hostile names shown escaped (\\x1b, a NUL as \\x00 with the
          rest of the name after it), the UTF-8 name shown as is, the long
          name as its first 255 bytes; no line starts with what followed an
          LF inside a name;
  JSON    parses (Python's json, strict about control characters) and is
          strict UTF-8; names with valid UTF-8 come back byte for byte;
  CSV     the report (--by) and --records csv parse with csv.reader(strict=True),
          every row as wide as its header, no raw control bytes, no cell
          starting with = + - @ TAB CR (the formula exports behind a ');
  JSONL   --records jsonl: every line parses.
"""
import csv
import io
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pcapsyn as P  # noqa: E402

passed = failed = 0


def check(cond, what):
    global passed, failed
    if cond:
        passed += 1
    else:
        failed += 1
        print("FAIL " + what, flush=True)


LONG = b"long" * 100
EXPORT = b"/exp\x1b[2J\x1b]0;owned\x07ort\n,\"x\""
NAMES = [
    b"esc\x1b[2J\x1b[31mred",
    b"osc\x1b]0;title\x07bell",
    b"new\nline\rcr",
    b"nul\x00after",
    b"del\x7fdel",
    b"bad\xff\xfeutf8\xc0\xafover\x80",
    b"c1\xc2\x9bcsi\xc2\x9dosc",
    b'csv,"quoted",semi;',
    b'json"}],\\"x\\u0000',
    b"=cmd|' /C calc'!A0",
    LONG,
    b"ok-\xc3\xa9t\xc3\xa9",
    "\u011b".encode() * 30,  # the text report keeps a path's last 37 bytes: mid-character
    b"bidi\xe2\x80\xaeexe.txt\xe2\x81\xa6iso\xe2\x81\xa9",  # U+202E RLO, U+2066, U+2069
]
BIDI = [chr(c) for c in list(range(0x202A, 0x202F)) + list(range(0x2066, 0x206A))]
MACHINE = b"host\x1b[5m\nevil\xff"
# Exports (paths from the wire) a spreadsheet would run as formulas: the CSV
# outputs neutralise them with a leading apostrophe, JSON keeps them exact.
FORMULAS = [b'=HYPERLINK("http://x","y")', b"+1+1", b"-2+3", b"@SUM(A1)"]
CLI, SRV = ("10.0.0.1", 800), ("10.0.0.2", 2049)


def capture():
    frames = []
    cred = P.auth_sys(machine=MACHINE, uid=1000, gid=1000)
    xid = [100]

    def pair(prog, vers, proc, args, results):
        xid[0] += 1
        frames.append(P.udp_frame(CLI[0], CLI[1], SRV[0], SRV[1],
                                  P.rpc_call(xid[0], prog, vers, proc, args, cred=cred)))
        frames.append(P.udp_frame(SRV[0], SRV[1], CLI[0], CLI[1], P.rpc_reply(xid[0], results)))

    root = b"R" * 32
    pair(P.MOUNT_PROG, 3, 1, P.mnt_args(EXPORT), P.mnt_res(root))
    for i, name in enumerate(NAMES):
        fh = bytes([i + 1]) * 32
        pair(P.NFS_PROG, 3, 3, P.nfs3_lookup_args(root, name), P.nfs3_lookup_res(fh))
        pair(P.NFS_PROG, 3, 1, P.fh3(fh), P.nfs3_getattr_res_err(70))
    for i, exp in enumerate(FORMULAS):
        froot = bytes([0xF0 + i]) * 32
        pair(P.MOUNT_PROG, 3, 1, P.mnt_args(exp), P.mnt_res(froot))
        pair(P.NFS_PROG, 3, 1, P.fh3(froot), P.nfs3_getattr_res_err(70))
    # A handle below an unknown directory: a ".../name" path.
    pair(P.NFS_PROG, 3, 3, P.nfs3_lookup_args(b"U" * 32, b"under\x1b[Kunknown"),
         P.nfs3_lookup_res(b"V" * 32))
    pair(P.NFS_PROG, 3, 1, P.fh3(b"V" * 32), P.nfs3_getattr_res_err(70))
    return P.pcap_bytes(frames)


def run(args):
    p = subprocess.run([NFSSCOPE] + args, capture_output=True, timeout=120)
    check(p.returncode == 0, f"{args}: exit {p.returncode} {p.stderr[-300:]!r}")
    check(b"\x1b" not in p.stderr, f"{args}: ESC on stderr")
    return p.stdout


def safe_bytes(what, b, allow=b"\n"):
    bad = sorted({c for c in b if (c < 0x20 and c not in allow) or c == 0x7F})
    check(not bad, f"{what}: raw control bytes {[hex(c) for c in bad]}")
    try:
        s = b.decode("utf-8")
    except UnicodeDecodeError as e:
        check(False, f"{what}: not UTF-8: {e}")
        return b.decode("utf-8", "replace")
    c1 = [hex(ord(ch)) for ch in s if 0x80 <= ord(ch) <= 0x9F]
    check(not c1, f"{what}: C1 controls {c1}")
    bidi = [hex(ord(ch)) for ch in s if ch in BIDI]
    check(not bidi, f"{what}: bidirectional controls {bidi}")
    return s


def check_text(path):
    out = run(["-r", path, "--by", "file,export,client,server,pair,user", "--top", "50"])
    s = safe_bytes("text", out)
    check("\\x1b" in s, "text: escaped ESC shown (the hostile names reach the report)")
    check("ok-été" in s, "text: valid UTF-8 name kept")
    check("nul\\x00after" in s, "text: a NUL inside a name shown as \\x00, the rest kept")
    check("exe.txt\\xe2\\x81\\xa6iso\\xe2\\x81\\xa9" in s,  # the path's last 37 bytes
          "text: bidirectional controls shown escaped")
    check("longlonglong" in s, "text: the 400-byte name shown (its end), not the handle")
    for ln in s.splitlines():
        for after in ("line\\rcr", "line\rcr", "evil", "ort,"):
            check(not ln.startswith(after), f"text: a name's LF started a line: {ln!r}")


def check_json(path):
    out = run(["-r", path, "-o", "json", "--top", "50"])
    safe_bytes("json", out, allow=b"\n")
    try:
        rep = json.loads(out.decode("utf-8", "replace"))
    except ValueError as e:
        check(False, f"json: does not parse: {e}")
        return
    keys = [r["key"] for r in rep["breakdowns"]["file"]["rows"]]
    exports = [r["key"] for r in rep["breakdowns"]["export"]["rows"]]
    blob = json.dumps(keys + exports, ensure_ascii=False)
    check(any("new\nline" in k for k in keys), f"json: the LF name round-trips: {keys}")
    check(any("ok-été" in k for k in keys), "json: the UTF-8 name round-trips")
    check(any(k.endswith("/nul\x00after") for k in keys), f"json: the NUL name round-trips: {keys}")
    check(any(k.endswith("/bidi\u202eexe.txt\u2066iso\u2069") for k in keys),
          "json: the bidirectional name round-trips")
    check(any(k.endswith("/" + LONG[:255].decode()) for k in keys),
          "json: the 400-byte name shown as its first 255 bytes, not the handle")
    check(any('csv,"quoted",semi;' in k for k in keys), "json: the CSV name round-trips")
    for exp in FORMULAS:
        check(exp.decode() in exports, f"json: the export {exp!r} kept exact")
    check(any('json"}],\\"x\\u0000' in k for k in keys), "json: the JSON name round-trips")
    check("\x1b" not in blob or all(k.isprintable() or "\x1b" in k for k in keys),
          "json: keys decode")


def check_csv(text, what):
    safe_bytes(what, text.encode("utf-8"), allow=b"\r\n")
    rows = list(csv.reader(io.StringIO(text, newline=""), strict=True))
    width = None
    for r in rows:
        if r and r[0] in ("program", "dimension", "time"):
            width = len(r)  # a header: the section's width
            continue
        check(width is not None and len(r) == width, f"{what}: row width {len(r)} != {width}: "
              f"{r!r}")
    return rows


def check_csv_report(path):
    out = run(["-r", path, "-o", "csv", "--by", "file,export", "--top", "50"])
    try:
        text = out.decode("utf-8")
    except UnicodeDecodeError as e:
        check(False, f"csv: not UTF-8: {e}")
        return
    try:
        rows = check_csv(text, "csv")
    except csv.Error as e:
        check(False, f"csv: does not parse strictly: {e}")
        return
    keys = [r[1] for r in rows if r and r[0] == "file"]
    check(any(k.endswith('csv,"quoted",semi;') for k in keys), f"csv: the CSV name: {keys}")
    no_formulas("csv", rows)


def no_formulas(what, rows, prefix="'"):
    """No cell starts a spreadsheet formula; the hostile exports are there,
    behind an apostrophe (the export dimension) or after the "/" that starts
    the path of the export's root (records)."""
    cells = [c for r in rows for c in r]
    bad = [c for c in cells if c[:1] in ("=", "+", "-", "@", "\t", "\r")]
    check(not bad, f"{what}: cells that start a formula: {bad[:5]}")
    for exp in FORMULAS:
        want = prefix + exp.decode()
        check(want in cells, f"{what}: {want!r} present")


def check_records(path, work):
    rec = os.path.join(work, "rec.csv")
    run(["-r", path, "--records", rec, "-o", "json"])
    text = open(rec, "rb").read()
    try:
        rows = check_csv(text.decode("utf-8"), "records csv")
        check(len(rows) >= 2 * len(NAMES), f"records csv: {len(rows)} rows")
        no_formulas("records csv", rows, prefix="/")
    except (UnicodeDecodeError, csv.Error) as e:
        check(False, f"records csv: {e}")
    recj = os.path.join(work, "rec.jsonl")
    run(["-r", path, "--records", recj, "--records-format", "jsonl", "-o", "json"])
    raw = open(recj, "rb").read()
    safe_bytes("records jsonl", raw)
    n = 0
    for ln in raw.decode("utf-8", "replace").splitlines():
        try:
            json.loads(ln)
            n += 1
        except ValueError as e:
            check(False, f"records jsonl: {e}: {ln[:200]!r}")
    check(n >= 2 * len(NAMES), f"records jsonl: {n} lines")
    paths = [json.loads(ln).get("path") or "" for ln in raw.decode("utf-8", "replace").splitlines()]
    for exp in FORMULAS:
        check("/" + exp.decode() in paths, f"records jsonl: {exp!r} kept exact")


def main():
    global NFSSCOPE
    NFSSCOPE, work = sys.argv[1], sys.argv[2]
    os.makedirs(work, exist_ok=True)
    path = os.path.join(work, "hostile-names.pcap")
    open(path, "wb").write(capture())
    check_text(path)
    check_json(path)
    check_csv_report(path)
    if b"--records" in subprocess.run([NFSSCOPE, "--help"], capture_output=True).stdout:
        check_records(path, work)
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
