#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""tui_test: drive the ncurses view in tmux.

    tui_test.py NFSSCOPE SAMPLES_DIR WORK_DIR

Runs `nfsscope --tui --speed 0 -r samples/ls-storm.pcap` in a detached tmux
session of fixed size (its own tmux server, no config), sends keys, reads the
screen with capture-pane and checks: the procedure rows and counts once the
replay has ended (against `nfsscope -r ... -o json` of the same file), the
latency sparkline's p99 (against the JSON timeline), sort, filter, hide-zero,
panels, reset, help, resize, quit; the NFSv4 kinds and operations panels
equal tshark's truth of samples/nfs41-state (nfs.main_opcode, per operation
count, results, not evaluated, errors); at 80x24 the table for an NFSv4 file
(Enter on the files panel, by its top row or a filter) lists the results of
each operation run with it as current file handle as tshark's decoding walked
by e2e_nfs4_file_ops.py, the tab line (its other tabs as digits) still
names the sort and the file, and r takes them to zero; the terminal is back (no alternate screen,
cursor visible) and the final report is on stdout after quit, after SIGTERM
and after a fatal signal; a file name with an escape sequence in it is shown
escaped.

At 80x24 (samples/multi-client): the procedure table's header has p50, p99
and max and nfs3 read's row shows them (against the JSON report), the tab
line does not wrap, no line is wider than the screen, Ctrl-L redraws the
same screen; long file paths are shortened from the middle keeping the file
name; with NO_COLOR=1 capture-pane -e shows no colour escape sequence, with
TERM=xterm-256color and no NO_COLOR it shows some; H draws the top row's
latency histogram, whose bucket counts add up to the row's replies and to
tshark's count of READ replies with an rpc.time; the findings panel is
ranked by cost_us as the JSON report (and drawn and scrolled while a replay
plays, with the findings on their own thread); the drill-down (Enter on a client)
sorts only by the columns it shows, and "mean" orders the mean column.

Two files (ls-storm.pcap is 127.0.0.1's, multi-client.pcapng four clients'
198.18.0.21-24, replayed together): the procedure table for the clients a
filter keeps, or for the top row (Enter on the clients panel), equals the
JSON report of those clients' file alone, for a file it sums to the JSON breakdown row, and \\ brings the totals
back. Reset (r) between the two files (replayed at x1, 18 s apart): every
count shown starts from zero, then shows only the second file's; the final
report still counts both.

Exit 0 pass, 1 fail, 77 skip (no tmux).
"""
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

FAILS = []


def check(cond, what):
    if cond:
        print("ok   " + what)
    else:
        print("FAIL " + what)
        FAILS.append(what)
    return cond


class Tmux:
    def __init__(self, name, cols, rows, cmd):
        self.sock = "nfsscope-tui-%d-%s" % (os.getpid(), name)
        self.base = ["tmux", "-L", self.sock, "-f", "/dev/null"]
        subprocess.run(self.base + ["new-session", "-d", "-s", "t", "-x", str(cols), "-y",
                                    str(rows), cmd], check=True)

    def keys(self, *keys, literal=False):
        args = self.base + ["send-keys", "-t", "t"] + (["-l"] if literal else []) + list(keys)
        subprocess.run(args, check=True)

    def screen(self):
        return subprocess.run(self.base + ["capture-pane", "-p", "-t", "t"], check=True,
                              capture_output=True, text=True).stdout

    def display(self, fmt):
        return subprocess.run(self.base + ["display", "-p", "-t", "t", fmt], check=True,
                              capture_output=True, text=True).stdout.strip()

    def wait_for(self, pred, timeout=60.0):
        end = time.time() + timeout
        s = self.screen()
        while time.time() < end:
            s = self.screen()
            if pred(s):
                return s
            time.sleep(0.1)
        return s

    def wait_stable(self, pred, timeout=60.0, interval=0.1):
        """The screen once pred(screen) holds and two captures `interval`
        apart are the same: tmux can capture a frame that ncurses has drawn
        in part, or whose marker is new while its other lines are still the
        last frame's. On its own the view draws 4 times a second at most, so
        a screen settles between draws even while a replay plays. On timeout: a
        failure, with the last screen printed, and that screen returned."""
        end = time.time() + timeout
        prev = None
        while True:
            s = self.screen()
            ok = pred(s)
            if ok and s == prev:
                return s
            if time.time() >= end:
                break
            prev = s if ok else None
            time.sleep(interval)
        check(False, "screen matched and settled within %gs (test line %d; the condition %s"
              " on the last capture)" % (timeout, sys._getframe(1).f_lineno,
                                         "held" if ok else "failed"))
        print(s)
        return s

    def child_pid(self):
        sh = self.display("#{pane_pid}")
        try:
            with open("/proc/%s/task/%s/children" % (sh, sh)) as f:
                kids = f.read().split()
            return int(kids[0]) if kids else None
        except OSError:
            return None

    def kill(self):
        subprocess.run(self.base + ["kill-server"], capture_output=True)


def rows_of(screen):
    """Procedure rows: {"nfs3 getattr": calls} in screen order."""
    out = []
    for line in screen.splitlines():
        m = re.match(r"^(\w+ \w+)\s+(\d+)\s+[\d.]+%", line)
        if m:
            out.append((m.group(1), int(m.group(2))))
    return out


def scoped_rows(screen):
    """Rows of the table for one client/server/file: {"nfs3 getattr": calls},
    "(other procedures)" included."""
    out = {}
    for line in screen.splitlines():
        m = re.match(r"^(\w+ \w+|\(other procedures\))\s+(\d+)\s+[\d.]+%", line)
        if m:
            out[m.group(1)] = int(m.group(2))
    return out


def start_time(path):
    """The capture's first packet time (capinfos, seconds since the epoch)."""
    out = subprocess.run(["capinfos", "-T", "-r", "-S", "-a", path], capture_output=True,
                         text=True, check=True).stdout
    return float(out.split("\t")[1])


def shifted(src, after, seconds, work):
    """A copy of src whose first packet comes `seconds` after the first of
    `after` (editcap -t), so two samples replay at x1 that far apart."""
    out = os.path.join(work, "shifted-" + os.path.basename(src))
    delta = start_time(after) + seconds - start_time(src)
    subprocess.run(["editcap", "-t", "%.9f" % delta, src, out], check=True, capture_output=True)
    return out


def truth_of(nfsscope, *files):
    args = [nfsscope]
    for f in files:
        args += ["-r", f]
    return json.loads(subprocess.run(args + ["-o", "json"], check=True, capture_output=True,
                                     text=True).stdout)


def all_ops(truth):
    """{"nfs3 getattr": calls, "mount3 mnt": calls, ...} of every program with calls."""
    out = {}
    for prog, body in truth.items():
        if isinstance(body, dict) and isinstance(body.get("ops"), dict):
            for name, v in body["ops"].items():
                if isinstance(v, dict) and v.get("calls"):
                    out["%s %s" % (prog, name)] = v["calls"]
    return out


def fmt_lat(us):
    """ui/tui_draw.c tui_fmt_lat()."""
    if us < 1000:
        return "%dus" % us
    if us < 1000000:
        return "%.1fms" % (us / 1e3)
    return "%.2fs" % (us / 1e6)


def shell(cmd, work, tag):
    """The command in a shell that records its exit status and stays up."""
    return ("sh -c 'trap \"\" INT TERM; %s > %s/%s.out 2> %s/%s.err; echo $? > %s/%s.rc;"
            " sleep 600'" % (cmd, work, tag, work, tag, work, tag))


def wait_file(path, timeout=30.0):
    end = time.time() + timeout
    while time.time() < end:
        if os.path.exists(path) and os.path.getsize(path) > 0:
            return True
        time.sleep(0.1)
    return False


def restored(t):
    return t.display("#{alternate_on}") == "0" and t.display("#{cursor_flag}") == "1"

# SGR parameters that set a colour (foreground or background, 8/16/256/RGB);
# 39 and 49 (the default colours) are not a colour.
COLOUR_SGR = re.compile(r"\x1b\[([0-9;]*)m")


def colours(screen):
    out = set()
    for m in COLOUR_SGR.finditer(screen):
        ps = m.group(1).split(";")
        for i, p in enumerate(ps):
            if p in ("38", "48") or re.fullmatch(r"3[0-7]|4[0-7]|9[0-7]|10[0-7]", p):
                if i == 0 or ps[i - 1] not in ("38", "48", "5", "2"):
                    out.add(p)
    return out


def tshark_replies(path, proc):
    """Replies to NFSv3 procedure `proc` with an rpc.time (tshark): how many."""
    out = subprocess.run(["tshark", "-n", "-r", path, "-o", "tcp.try_heuristic_first:TRUE",
                          "-o", "udp.try_heuristic_first:TRUE", "-Y", "rpc.msgtyp == 1",
                          "-T", "fields", "-e", "nfs.procedure_v3", "-e", "rpc.time",
                          "-E", "occurrence=a", "-E", "aggregator=|"],
                         capture_output=True, text=True, check=True).stdout
    n = 0
    for line in out.splitlines():
        procs, times = (line.split("\t") + [""])[:2]
        for p, t in zip(procs.split("|"), times.split("|")):
            if p == str(proc) and t:
                n += 1
    return n


def screen_e(t):
    return subprocess.run(t.base + ["capture-pane", "-e", "-p", "-t", "t"], check=True,
                          capture_output=True, text=True).stdout


def findings_while_playing(nfsscope, samples, work):
    """The findings panel drawn, and scrolled, while a replay plays
    (lossy-cms at x2, about 3 s): the findings run on a thread of their own,
    which each draw and key waits for (a ThreadSanitizer build, as
    scripts/check runs this test, reports a read without that wait). At
    the end the panel lists what the JSON report finds."""
    pcap = os.path.join(samples, "lossy-cms.pcap")
    rep = truth_of(nfsscope, pcap)
    t = Tmux("playing", 132, 45, shell("%s --tui --speed 2 -r %s" % (nfsscope, pcap), work,
                                       "playing"))
    try:
        s = t.wait_for(lambda s: "procedure" in s, 20)
        t.keys("4")
        t.keys("Tab")
        # wait_for, not wait_stable: this screen must be caught while the
        # replay plays (it redraws 4 times a second), and only END OF
        # CAPTURE's absence is read from it
        s = t.wait_for(lambda s: re.search(r"^findings \(", s, re.M) is not None, 20)
        mid = "END OF CAPTURE" not in s
        for _ in range(8):
            t.keys("End")
            t.keys("Home")
            time.sleep(0.2)
        s = t.wait_stable(lambda s: "END OF CAPTURE" in s, 30)
        check(mid and "END OF CAPTURE" in s, "findings panel drawn while the replay plays")
        kinds = [f["kind"] for f in rep["findings"] if f["kind"] != "mount_option_whatif"]
        check(kinds and all(k in s for k in kinds),
              "findings panel at the end lists the report's findings (%s)" % kinds)
        t.keys("q")
        wait_file(os.path.join(work, "playing.rc"))
    finally:
        t.kill()


def narrow_80x24(nfsscope, mc, work):
    """multi-client at 80x24 with NO_COLOR, then without."""
    rep = truth_of(nfsscope, mc)
    read = rep["nfs3"]["ops"]["read"]
    t = Tmux("narrow", 80, 24, shell("env TERM=xterm-256color NO_COLOR=1 %s --tui --speed 0 -r %s"
                                     % (nfsscope, mc), work, "narrow"))
    try:
        s = t.wait_stable(lambda s: "END OF CAPTURE" in s)
        lines = s.splitlines()
        head = [i for i, l in enumerate(lines) if l.startswith("procedure ")]
        check(head and re.search(r"\bp50\b.*\bp99\b.*\bmax\s*$", lines[head[0]]) is not None,
              "80x24: p50, p99 and max in the procedure table's header (%r)"
              % (lines[head[0]] if head else None))
        check(head and lines[head[0] - 1].startswith("1 procedures")
              and "sort: calls" in lines[head[0] - 1],
              "80x24: the tab line holds tabs and sort on one line, no wrap")
        check(all(len(l) <= 80 for l in lines), "80x24: no line wider than the screen")
        row = re.search(r"^nfs3 read\s+(\d+)\s+[\d.]+%\s+\d+\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)\s*$",
                        s, re.M)
        lat = read["latency_us"]
        want = (read["calls"], fmt_lat(lat["p50"]), fmt_lat(lat["p99"]), fmt_lat(lat["max"]))
        got = row and (int(row.group(1)), row.group(2), row.group(4), row.group(5))
        check(got == want, "80x24: nfs3 read shows calls, p50, p99, max %s (report: %s)"
              % (got, want))
        check(not colours(screen_e(t)), "NO_COLOR=1: no colour escape sequences")

        # Ctrl-L: the same screen again (a key clears the one-off end-of-capture
        # message on the bottom line, so that line is left out)
        t.keys("C-l")
        s2 = t.wait_stable(lambda x: "end of the capture" not in x and "procedure " in x, 20)
        check(s2.splitlines()[:-1] == s.splitlines()[:-1] and "h help" in s2.splitlines()[-1],
              "Ctrl-L redraws the same screen")

        t.keys("H")
        s = t.wait_stable(lambda s: "latency of " in s, 20)
        m = re.search(r"latency of (\w+ \w+) \(top row\): (\d+) replies", s)
        counts = [int(x.group(1)) for x in re.finditer(
            r"^\s+\S+ - \S+\s+(\d+) ", s, re.M)]
        replies = tshark_replies(mc, 6)
        check(m is not None and m.group(1) == "nfs3 read",
              "H: the histogram of the top row (nfs3 read)")
        check(m is not None and sum(counts) == int(m.group(2)) == replies and len(counts) >= 2,
              "H: bucket counts %s add up to the row's replies, %d by tshark's rpc.time"
              % (counts, replies))
        t.keys("H")
        s = t.wait_for(lambda s: "latency of " not in s, 20)

        t.keys("4")
        s = t.wait_stable(lambda s: re.search(r"calls\s.*file", s) is not None, 20)
        paths = [r["key"] for r in rep["breakdowns"]["file"]["rows"] if r["key"].startswith("/")]
        long = [p for p in paths if len(p) > 40]
        shown = [l.split()[-1] for l in s.splitlines() if ".." in l]
        ok = bool(long) and any(x.endswith("/" + p.rsplit("/", 1)[1]) and
                                p.startswith(x.split("..")[0]) and len(x) < len(p)
                                for x in shown for p in long)
        check(ok, "80x24: long paths shortened from the middle, file name kept (%s; %s)"
              % (shown[:2], long[:1]))

        # the findings panel: ranked as the report, by cost_us, largest first
        t.keys("5")
        s = t.wait_stable(lambda s: re.search(r"^findings \(", s, re.M) is not None, 20)
        shown, top = [], 0
        for _ in range(12):  # scroll through it
            shown += [m.group(1) for m in re.finditer(r"^ ([a-z_]+) \(\d+\)\s*$", s, re.M)
                      if m.group(1) not in shown]
            t.keys("PgDn")
            time.sleep(0.2)  # the last page does not change: no change to wait for
            s = t.wait_stable(lambda s: re.search(r"^findings \(", s, re.M) is not None, 20)
        ranked = [f["kind"] for f in sorted(rep["findings"], key=lambda f: -f.get("cost_us", 0))
                  if "cost_us" in f]
        check(len(ranked) >= 3 and shown == ranked,
              "findings panel ranked by cost_us as the report (%s; report %s)" % (shown, ranked))

        # the drill-down (Enter on a client): its sort labels name the columns shown
        t.keys("2", "Enter")
        s = t.wait_stable(lambda s: "client: " in s and "mean" in s, 20)

        def sort_label(s):
            m = re.search(r"sort: (\S+) \(", s)
            return m.group(1) if m else None
        # each > moves the sort to another column: wait for the label to change
        prev = sort_label(s)
        labels = []
        for _ in range(9):
            t.keys(">")
            s = t.wait_stable(lambda s: sort_label(s) not in (None, prev), 20)
            prev = sort_label(s)
            labels.append(prev)
        check(set(labels) == {"name", "calls", "errors", "mean", "max"},
              "drill-down: sort goes through the columns shown (%s)" % labels)
        while True:
            t.keys(">")
            s = t.wait_stable(lambda s: sort_label(s) not in (None, prev), 20)
            prev = sort_label(s)
            if "sort: mean (desc)" in s:
                break
        means = [m.group(1) for m in re.finditer(
            r"^(?:\w+ \w+|\(other procedures\))\s+\d+\s+[\d.]+%\s+\d+\s+(\S+)\s+\S+\s*$",
            s, re.M)]
        us = [float(x[:-2]) if x.endswith("us") else float(x[:-2]) * 1000 if x.endswith("ms")
              else float(x[:-1]) * 1e6 for x in means]
        check(len(us) >= 3 and us == sorted(us, reverse=True),
              "drill-down: sort: mean orders the mean column (%s)" % means[:5])
        t.keys("\\", literal=True)

        t.keys("q")
        wait_file(os.path.join(work, "narrow.rc"))
    finally:
        t.kill()

    t = Tmux("colour", 80, 24, shell("env -u NO_COLOR TERM=xterm-256color %s --tui --speed 0 -r %s"
                                     % (nfsscope, mc), work, "colour"))
    try:
        t.wait_stable(lambda s: "END OF CAPTURE" in s)
        c = colours(screen_e(t))
        check(c, "TERM=xterm-256color without NO_COLOR: colour escape sequences (%s)" % sorted(c))
        t.keys("q")
        wait_file(os.path.join(work, "colour.rc"))
    finally:
        t.kill()



def op_rows(screen):
    """NFSv4 operation rows of a file's table: {"lookup": results}."""
    return {m.group(1): int(m.group(2)) for m in
            re.finditer(r"^op (\w+|\(other\))\s+(\d+)\s+-\s+-\s", screen, re.M)}


def v4_file_ops(nfsscope, samples, work):
    """At 80x24, Enter on an NFSv4 file (the top row of nfs41-ls; the rows a
    filter keeps on nfs40-ops): the table lists, after the procedures, the
    results of each NFSv4 operation that ran with the file as current file
    handle, as tshark's per-operation decoding walked by
    e2e_nfs4_file_ops.py; r takes them to zero (hidden)."""
    if not shutil.which("tshark"):
        print("FAIL tshark (scripts/install-deps) is needed for the NFSv4 file drill-down")
        FAILS.append("tshark missing")
        return
    from e2e_nfs4_file_ops import tshark_truth
    for name, filt in (("nfs41-ls", None), ("nfs40-ops", "data40")):
        pcap = os.path.join(samples, name + ".pcap")
        want_by_fh = tshark_truth(pcap)
        rows = truth_of(nfsscope, pcap)["breakdowns"]["file"]["rows"]
        # the JSON names each row's handle (the join key); the counts are tshark's
        keys = [r["key"] for r in rows if filt and filt in r["key"]] or [rows[0]["key"]]
        want = {}
        for r in rows:
            if r["key"] in keys:
                for op, c in want_by_fh.get(r["fh"], {}).items():
                    want[op] = want.get(op, 0) + c
        t = Tmux("v4f-" + name, 80, 24, shell("%s --tui --speed 0 -r %s" % (nfsscope, pcap),
                                              work, "v4f-" + name))
        try:
            t.wait_for(lambda s: "END OF CAPTURE" in s)
            t.keys("4")
            t.wait_for(lambda s: re.search(r"calls\s.*file", s) is not None, 20)
            if filt:
                t.keys("/")
                t.keys(filt, literal=True)
                t.keys("Enter")
                t.wait_for(lambda s: 'filter: "%s"' % filt in s, 20)
            t.keys("Enter")
            s = t.wait_stable(lambda s: s.count("\nprocedure ") and op_rows(s), 20)
            got = op_rows(s)
            check(got == want and len(want) >= 5,
                  "80x24 %s: Enter on %s: its NFSv4 operations %s == tshark's %s"
                  % (name, keys, got, want))
            where = ('file: "%s"' % filt) if filt else ("file: " + keys[0])
            tabs = [l for l in s.splitlines() if l.startswith("1 procedures")]
            check(tabs and "sort: calls (desc)  " + where in tabs[0],
                  "80x24 %s: the tab line still says the sort and %s (%s)"
                  % (name, where, tabs[:1]))
            lines = [l for l in s.splitlines() if l.startswith("op ")]
            check(all(len(l) <= 80 for l in s.splitlines()) and lines and
                  [int(l.split()[2]) for l in lines] == sorted(got.values(), reverse=True),
                  "80x24 %s: operation rows fit, most first" % name)
            t.keys("r")
            s = t.wait_stable(lambda s: "counters reset" in s and not op_rows(s), 20)
            check(got and "counters reset" in s and not op_rows(s),
                  "%s: r takes the file's operations to zero (hidden)" % name)
            t.keys("q")
            wait_file(os.path.join(work, "v4f-%s.rc" % name))
        finally:
            t.kill()


def main():
    if len(sys.argv) != 4:
        print(__doc__)
        return 2
    nfsscope, samples, work = sys.argv[1:]
    if not shutil.which("tmux"):
        print("SKIP: tmux is not installed (apt-get install tmux; scripts/install-deps has it)")
        return 77
    os.makedirs(work, exist_ok=True)
    for f in os.listdir(work):
        os.unlink(os.path.join(work, f))
    pcap = os.path.join(samples, "ls-storm.pcap")
    truth = json.loads(subprocess.run([nfsscope, "-r", pcap, "-o", "json"], check=True,
                                      capture_output=True, text=True).stdout)
    ops = {"nfs3 " + k: v["calls"] for k, v in truth["nfs3"]["ops"].items()}

    # --- the main run: rows, keys, quit -------------------------------------------
    t = Tmux("main", 132, 45, shell("%s --tui --speed 0 -r %s" % (nfsscope, pcap), work, "main"))
    try:
        rows4 = ("nfs3 getattr", "nfs3 lookup", "nfs3 access", "nfs3 readdirplus")
        # the end, and its rows drawn: tmux can capture a screen that
        # ncurses has updated in part (the header first)
        s = t.wait_stable(lambda s: "END OF CAPTURE" in s and
                          all(dict(rows_of(s)).get(n) == ops[n] for n in rows4))
        check("END OF CAPTURE" in s, "replay reaches the end")
        check("packets %d" % truth["capture"]["packets"] in s, "header: packets")
        check("calls %d" % truth["rpc"]["calls"] in s, "header: rpc calls")
        got = dict(rows_of(s))
        for name in rows4:
            check(got.get(name) == ops[name] and ops[name] > 0,
                  "row %s: %s calls (report: %s)" % (name, got.get(name), ops[name]))
        p99max = max(b["p99_us"] for b in truth["timeline"]["buckets"] if b["p99_us"] is not None)
        m = re.search(r"^lat p99 .* max (\S+)\s+\(p99/s\)", s, re.M)
        check(m is not None and m.group(1) == fmt_lat(p99max),
              "latency sparkline: p99 per second (%s; timeline's %s)"
              % (m.group(1) if m else None, fmt_lat(p99max)))
        first = rows_of(s)
        check(first and first[0][0] == "nfs3 getattr", "default sort: calls, most first")
        calls = [c for _, c in first]
        check(calls == sorted(calls, reverse=True), "rows in descending calls")

        t.keys("i")
        s = t.wait_stable(lambda s: "(asc)" in s, 20)
        calls = [c for _, c in rows_of(s)]
        check(calls == sorted(calls) and "(asc)" in s, "i inverts the order")
        t.keys("i", "<")
        s = t.wait_stable(lambda s: "sort: name (desc)" in s, 20)
        names = [n for n, _ in rows_of(s)]
        check("sort: name (desc)" in s and names == sorted(names, reverse=True),
              "< sorts by name")
        t.keys(">", ">", ">", ">")
        s = t.wait_stable(lambda s: "sort: p50 (desc)" in s, 20)
        check("sort: p50 (desc)" in s, "> moves the sort column (p50)")
        t.keys(">", ">", ">", ">", ">", ">")  # wraps around to name, then calls
        s = t.wait_stable(lambda s: "sort: calls (desc)" in s, 20)
        check("sort: calls (desc)" in s, "sort column wraps around")

        t.keys("/")
        t.keys("readdir", literal=True)
        t.keys("Enter")
        s = t.wait_stable(lambda s: 'filter: "readdir"' in s, 20)
        names = [n for n, _ in rows_of(s)]
        check(names and all("readdir" in n for n in names) and "nfs3 readdirplus" in names,
              "filter / readdir: only readdir rows (%s)" % names)
        check(dict(rows_of(s)).get("nfs3 readdirplus") == ops["nfs3 readdirplus"],
              "filtered row keeps its count")
        t.keys("\\", literal=True)
        s = t.wait_stable(lambda s: "filter:" not in s, 20)
        check(len(rows_of(s)) > 2, "\\ clears the filter")

        check("zero rows hidden" in s and all(c > 0 for _, c in rows_of(s))
              and len(rows_of(s)) >= 4, "zero rows hidden at the start")
        t.keys("z")
        s = t.wait_stable(lambda s: "zero rows hidden" not in s, 20)
        zeros = [n for n, c in rows_of(s) if c == 0]
        check("zero rows hidden" not in s and "nfs3 link" in zeros, "z shows zero rows (%s)"
              % zeros[:3])
        t.keys("z")
        s = t.wait_stable(lambda s: "zero rows hidden" in s, 20)
        check(all(c > 0 for _, c in rows_of(s)) and len(rows_of(s)) >= 4, "z hides zero rows")
        t.keys("z")  # shown again: the reset below shows every row at zero

        # Each panel waited for until its rows are drawn, not only its header:
        # tmux can capture a screen that ncurses has drawn in part (seen with
        # the slower ThreadSanitizer build).
        client_row = r"^\s*(\d+)\s+100\.0%.*127\.0\.0\.1\s*$"
        t.keys("2")
        s = t.wait_stable(lambda s: re.search(r"calls\s.*client", s) is not None
                          and re.search(client_row, s, re.M) is not None, 20)
        m = re.search(client_row, s, re.M)
        check(m is not None and int(m.group(1)) == truth["rpc"]["calls"],
              "clients panel: 127.0.0.1 with every call")
        t.keys("3")
        s = t.wait_stable(lambda s: re.search(r"calls\s.*server", s) is not None
                          and "127.0.0.1" in s, 20)
        check("127.0.0.1" in s, "servers panel")
        t.keys("4")
        s = t.wait_stable(lambda s: re.search(r"calls\s.*file", s) is not None and "lsdir" in s, 20)
        check("lsdir" in s, "files panel shows names from the wire")
        t.keys("Tab")
        s = t.wait_stable(lambda s: re.search(r"^findings \(", s, re.M) is not None, 20)
        check(re.search(r"^findings \(", s, re.M) is not None, "Tab: next panel (findings)")
        check("redundant_getattr" in s and "directory_fanout" in s,
              "findings panel lists the findings engine's results")
        t.keys("1")

        t.keys("h")
        s = t.wait_stable(lambda s: "help (this screen)" in s, 20)
        check("help (this screen)" in s and "quit" in s and "filter this panel" in s,
              "h shows the help generated from the key table")
        t.keys("x")
        s = t.wait_stable(lambda s: "help (this screen)" not in s and "procedure" in s, 20)
        check("procedure" in s, "any key closes the help")

        t.keys("r")
        s = t.wait_stable(lambda s: "counters reset" in s, 20)
        got = dict(rows_of(s))
        check(got.get("nfs3 getattr") == 0, "r resets the counters (view side)")

        subprocess.run(t.base + ["resize-window", "-t", "t", "-x", "90", "-y", "30"],
                       capture_output=True)
        s = t.wait_stable(lambda s: len(s.splitlines()) <= 30 and "procedure" in s, 20)
        check(all(len(l) <= 90 for l in s.splitlines()) and "nfsscope" in s,
              "resize: redrawn to the new size")

        t.keys("q")
        check(wait_file(os.path.join(work, "main.rc")), "q quits")
        time.sleep(0.3)
        check(restored(t), "terminal restored after q (no alternate screen, cursor on)")
        with open(os.path.join(work, "main.rc")) as f:
            check(f.read().strip() == "0", "exit status 0")
        with open(os.path.join(work, "main.out")) as f:
            out = f.read()
        check(re.search(r"^getattr\s+%d\b" % ops["nfs3 getattr"], out, re.M) is not None,
              "final report on stdout after the view")
        with open(os.path.join(work, "main.err")) as f:
            err = f.read()
        check(err == "", "nothing on stderr (%r)" % err[:200])
    finally:
        t.kill()

    # --- two clients: the procedure table for one client, one file ----------------
    # multi-client, moved to start 18 s after ls-storm (for the reset at x1 below)
    if not shutil.which("editcap") or not shutil.which("capinfos"):
        print("FAIL editcap/capinfos (wireshark-common, with tshark in scripts/install-deps)"
              " are needed to place the two files 18 s apart")
        return 1
    mc = shifted(os.path.join(samples, "multi-client.pcapng"), pcap, 18.2, work)
    both = truth_of(nfsscope, pcap, mc)
    alone = {"127.0.0.1": all_ops(truth_of(nfsscope, pcap)), "198.18": all_ops(truth_of(nfsscope, mc))}
    total = all_ops(both)
    t = Tmux("scope", 132, 50, shell("%s --tui --speed 0 -r %s -r %s" % (nfsscope, pcap, mc),
                                     work, "scope"))
    try:
        s = t.wait_stable(lambda s: "END OF CAPTURE" in s)
        check(scoped_rows(s).get("nfs3 getattr") == total["nfs3 getattr"], "both files replayed")
        # by filter: the rows the clients panel's filter keeps
        t.keys("2", "/")
        t.keys("198.18", literal=True)
        t.keys("Enter")
        t.wait_for(lambda s: 'filter: "198.18"' in s, 20)
        t.keys("Enter")
        s = t.wait_stable(lambda s: 'client: "198.18"' in s, 20)
        got = {k: v for k, v in scoped_rows(s).items() if v}
        check('client: "198.18"' in s and got == alone["198.18"],
              "Enter on clients filtered by 198.18: the table is multi-client's (%s; alone: %s)"
              % (got, alone["198.18"]))
        check(re.search(r"^procedure\s+calls\s+share\s+calls/s\s+errors\s+mean\s+max", s, re.M)
              is not None, "scoped table: mean and max columns")
        t.keys("\\", literal=True)
        s = t.wait_stable(lambda s: "client:" not in s and "procedure" in s, 20)
        got = {k: v for k, v in scoped_rows(s).items() if v}
        check(got == total, "\\ brings the totals back")
        # by the top row: clients sorted by calls, the first is 127.0.0.1
        t.keys("2", "\\", literal=True)
        t.wait_for(lambda s: "filter:" not in s and re.search(r"calls\s.*client", s), 20)
        t.keys("Enter")
        s = t.wait_stable(lambda s: "client: 127.0.0.1" in s, 20)
        got = {k: v for k, v in scoped_rows(s).items() if v}
        check(got == alone["127.0.0.1"], "Enter on the top client row: 127.0.0.1's table (%s)"
              % sorted(got.items())[:4])
        # a file: the table sums to its breakdown row in the JSON report
        row = both["breakdowns"]["file"]["rows"][0]
        t.keys("4")
        t.wait_for(lambda s: re.search(r"calls\s.*file", s), 20)
        t.keys("Enter")
        s = t.wait_stable(lambda s: "file: " in s and "procedure" in s, 20)
        rows = scoped_rows(s)
        check(sum(rows.values()) == row["calls"] and ("file: " + row["key"]) in s,
              "Enter on the top file row: its procedures add up to its calls (%d, report %d, %s)"
              % (sum(rows.values()), row["calls"], row["key"]))
        t.keys("q")
        wait_file(os.path.join(work, "scope.rc"))
    finally:
        t.kill()

    # --- reset between the two files (x1: 18 s apart) ------------------------------
    t = Tmux("reset", 132, 50, shell("%s --tui --all --speed 1 -r %s -r %s"
                                     % (nfsscope, pcap, mc),
                                     work, "reset"))
    try:
        first_calls = truth["rpc"]["calls"]
        s = t.wait_stable(lambda s: re.search(r"calls %d\b" % first_calls, s) is not None, 30)
        check(re.search(r"calls %d\b" % first_calls, s) is not None and "END OF CAPTURE" not in s,
              "x1: the first file is in, the second not yet")
        t.keys("r")

        def reset_shown(s):
            got = dict(rows_of(s))
            return ("since reset at" in s and re.search(r"calls 0\b", s) is not None and
                    got.get("nfs3 getattr") == 0 and got.get("nfs3 access") == 0)
        # (the pane may be captured while a frame is half written: wait for
        # the whole frame, not only its header line)
        s = t.wait_stable(reset_shown, 20)
        got = dict(rows_of(s))
        check(reset_shown(s),
              "r: header and table from zero, 'since reset at' (%s)" % got.get("nfs3 getattr"))
        t.keys("2")
        s = t.wait_stable(lambda s: re.search(r"calls\s.*client", s) is not None, 20)
        check(re.search(r"^\s+0\s+0\.0%.*127\.0\.0\.1\s*$", s, re.M) is not None,
              "r: clients panel from zero")
        t.keys("5")
        s = t.wait_stable(lambda s: re.search(r"^findings \(since reset at", s, re.M)
                          is not None, 20)
        check(re.search(r"^findings \(since reset at", s, re.M) is not None
              and "redundant_getattr" not in s, "r: findings from zero")
        t.keys("1")
        s = t.wait_stable(lambda s: "END OF CAPTURE" in s, 60)
        got = {k: v for k, v in rows_of(s) if v}
        check(got == alone["198.18"]
              and re.search(r"calls %d\b" % truth_of(nfsscope, mc)["rpc"]["calls"], s) is not None,
              "after the reset: only the second file's counts (%s)" % sorted(got.items())[:4])
        m = re.search(r"^lat p99 .* max (\S+)\s+\(p99/s\)", s, re.M)
        p99mc = max(b["p99_us"] for b in truth_of(nfsscope, mc)["timeline"]["buckets"]
                    if b["p99_us"] is not None)
        check(m is not None and m.group(1) == fmt_lat(p99mc), "latency sparkline: the p99 of the"
              " second file's second (%s; timeline's %s)" % (m.group(1) if m else None,
                                                            fmt_lat(p99mc)))
        m = re.search(r"^calls/s .* max (\d+)\s", s, re.M)
        check(m is not None and int(m.group(1)) == truth_of(nfsscope, mc)["rpc"]["calls"],
              "r: the sparklines start again (calls/s max %s, not the first file's %d)"
              % (m.group(1) if m else None, first_calls))
        t.keys("2")
        s = t.wait_stable(lambda s: re.search(r"calls\s.*client", s) is not None, 20)
        mc_rows = [r for r in both["breakdowns"]["client"]["rows"] if r["key"].startswith("198.18.")]
        mc_calls = sum(r["calls"] for r in mc_rows)
        shown = [re.search(r"^\s+%d\s+%.1f%%.*%s\s*$" % (r["calls"], 100.0 * r["calls"] / mc_calls,
                                                          re.escape(r["key"])), s, re.M)
                 for r in mc_rows]
        check(len(mc_rows) == 4 and all(shown)
              and re.search(r"^\s+0\s+0\.0%.*127\.0\.0\.1\s*$", s, re.M) is not None,
              "after the reset: clients panel counts only the second file (%s)"
              % [(r["key"], r["calls"]) for r in mc_rows])
        t.keys("q")
        check(wait_file(os.path.join(work, "reset.rc")), "q quits")
        with open(os.path.join(work, "reset.out")) as f:
            out = f.read()
        check(re.search(r"^getattr\s+%d\b" % total["nfs3 getattr"], out, re.M) is not None,
              "the final report still counts everything")
        for tag in ("scope", "reset"):
            with open(os.path.join(work, tag + ".err")) as f:
                err = f.read()
            check(err == "", "%s: nothing on stderr (%r)" % (tag, err[:200]))
    finally:
        t.kill()

    # --- SIGTERM while replaying slowly: clean end, report -------------------------
    t = Tmux("term", 100, 30, shell("%s --tui --speed 0.01 -r %s" % (nfsscope, pcap), work,
                                    "term"))
    try:
        t.wait_for(lambda s: "replay x0.01" in s, 30)
        pid = t.child_pid()
        check(pid is not None, "found the view's process")
        if pid:
            os.kill(pid, signal.SIGTERM)
        check(wait_file(os.path.join(work, "term.rc")), "SIGTERM ends the view")
        time.sleep(0.3)
        check(restored(t), "terminal restored after SIGTERM")
        with open(os.path.join(work, "term.out")) as f:
            check("nfsscope report" in f.read(), "final report after SIGTERM")
    finally:
        t.kill()

    # --- a fatal signal: the terminal still comes back ------------------------------
    t = Tmux("abrt", 100, 30, shell("%s --tui --speed 0.01 -r %s" % (nfsscope, pcap), work,
                                    "abrt"))
    try:
        t.wait_for(lambda s: "replay x0.01" in s, 30)
        pid = t.child_pid()
        if pid:
            os.kill(pid, signal.SIGABRT)
        check(wait_file(os.path.join(work, "abrt.rc")), "SIGABRT ends the process")
        time.sleep(0.3)
        check(restored(t), "terminal restored after SIGABRT")
    finally:
        t.kill()

    # --- escaping: a file name with an escape sequence ------------------------------
    evil = os.path.join(work, "x\x1b[2Jy.pcap")
    shutil.copy(pcap, evil)
    t = Tmux("esc", 132, 40, shell("%s --tui --speed 0 -r \"%s\"" % (nfsscope, evil), work,
                                   "esc"))
    try:
        s = t.wait_stable(lambda s: "END OF CAPTURE" in s, 60)
        check("x\\x1b[2Jy.pcap" in s, "file name shown escaped (\\x1b)")
        check("nfs3 getattr" in s, "escape sequence did not clear the screen")
        t.keys("q")
        wait_file(os.path.join(work, "esc.rc"))
    finally:
        t.kill()
        os.unlink(evil)

    # --- NFSv4: the kinds and operations panels against tshark's truth ----------
    v4 = os.path.join(samples, "nfs41-state.pcap")
    with open(os.path.join(samples, "nfs41-state.truth.json")) as f:
        n4 = json.load(f)["nfs4"]  # tshark's (tests/truth-from-tshark)
    t = Tmux("v4", 160, 45, shell("%s --tui --speed 0 -r %s" % (nfsscope, v4), work, "v4"))
    try:
        s = t.wait_for(lambda s: "END OF CAPTURE" in s)
        t.keys("6")
        s = t.wait_stable(lambda s: re.search(r"^kind\s+compounds", s, re.M) is not None, 20)
        kinds = {m.group(1): int(m.group(2)) for m in
                 re.finditer(r"^([a-z_+]+)\s+(\d+)\s+[\d.]+%", s, re.M)}
        want = {k.lower(): v for k, v in n4["main_opcode"].items()}
        check(kinds == want, "v4 kinds panel: COMPOUNDs per kind %s == tshark's %s"
              % (kinds, want))
        t.keys("7")
        s = t.wait_stable(lambda s: re.search(r"^operation\s+count\s+results", s, re.M)
                          is not None, 20)
        check("latency: of the COMPOUNDs containing it" in s,
              "v4 ops panel labels the latency as the COMPOUNDs'")
        ops = {m.group(1): tuple(int(x) for x in m.groups()[1:]) for m in
               re.finditer(r"^([a-z_]+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s", s, re.M)}
        want = {k.lower(): (v["count"], v["in_replies"], v["not_evaluated"],
                            sum(c for st, c in v["status"].items() if st != "NFS4_OK"))
                for k, v in n4["ops"].items()}
        check(ops == want, "v4 ops panel: count, results, not evaluated, errors %s == "
              "tshark's %s" % (ops, want))
        t.keys("q")
        wait_file(os.path.join(work, "v4.rc"))
    finally:
        t.kill()

    # --- NFSv4: a file's operations (Enter on the files panel) against tshark ----
    v4_file_ops(nfsscope, samples, work)

    # --- 80x24: columns that fit, paths, colour, the histogram ---------------------
    narrow_80x24(nfsscope, os.path.join(samples, "multi-client.pcapng"), work)
    findings_while_playing(nfsscope, samples, work)

    print("%d failed" % len(FAILS))
    return 1 if FAILS else 0


if __name__ == "__main__":
    sys.exit(main())
