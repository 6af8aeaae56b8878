#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""live_test: live capture on loopback.

    live_test.py NFSSCOPE SAMPLES_DIR WORK_DIR

As root, with tcpreplay: rewrites two samples captured on a veth pair
(198.18.0.0/24) to a subnet of its own (so concurrent runs do not see each
other's packets), then replays them onto `lo` while

  - `nfsscope -i lo --no-tui -o json --duration N --interval 1 NET` runs, and
  - `tcpdump -i lo -w FILE NET` records the same traffic,

and checks that nfsscope's final report counts (packets, RPC totals, every
procedure's calls/replies/errors) equal both `nfsscope -r` of the tcpdump
file and `nfsscope -r` of the original samples; that periodic JSON lines came
out; that the findings ran on a thread of their own, with the findings and
time by cause of `nfsscope -r --threads 1` on tcpdump's capture (nanosecond
stamps), and on the reading thread with --threads 1; that the process ran as `nobody` (effective uid 65534, from
/proc/PID/status) once the capture was open, and kept root with -Z root;
that SIGINT ends a run cleanly with a final report; that a burst into a
full ring is counted once, as packets read plus kernel drops; the messages for a
missing interface, no permission (run as nobody) and an interface removed
under the capture; and that `-i lo` on a terminal (tmux) opens the view.

The addresses are rewritten to another non-local subnet: replayed onto lo,
packets to local addresses would make the kernel answer (RST, ICMP).

Exit 0 pass, 1 fail, 77 skip (not root, no tcpreplay/tcpdump, no permission).
"""
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import time

import checks

FAILS = []
SAMPLES = ("all-ops-udp.pcap", "multi-client.pcapng")


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        FAILS.append(what)
    return cond


def skip(why):
    print("SKIP: " + why)
    sys.exit(77)


def report(nfsscope, *args):
    r = subprocess.run([nfsscope, *args, "-o", "json"], capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError("nfsscope %s: %s" % (" ".join(args), r.stderr))
    return json.loads(r.stdout)


def counts(rep):
    """What must match: packets, RPC totals, per-procedure counts."""
    out = {"packets": rep["capture"]["packets"]}
    for k in ("calls", "replies", "retransmissions", "unanswered_calls", "orphan_replies",
              "rpc_errors"):
        out["rpc." + k] = rep["rpc"][k]
    for prog, body in rep.items():
        if isinstance(body, dict) and "ops" in body:
            for op, v in body["ops"].items():
                if v["calls"] or v["replies"]:
                    out["%s.%s" % (prog, op)] = (v["calls"], v["replies"], v["errors"])
    return out


def merged(a, b):
    out = dict(a)
    for k, v in b.items():
        if k not in out:
            out[k] = v
        elif isinstance(v, tuple):
            out[k] = tuple(x + y for x, y in zip(out[k], v))
        else:
            out[k] += v
    return out


def status_of(pid, key):
    """A field of /proc/PID/status, e.g. "CapEff" -> "0000000000000000"."""
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith(key + ":"):
                return line.split(":", 1)[1].strip()
    return None


def no_capabilities(pid):
    """(ok, detail): no effective/permitted/inheritable/ambient capability and
    no_new_privs set (capabilities(7))."""
    got = {k: status_of(pid, k) for k in ("CapEff", "CapPrm", "CapInh", "CapAmb", "NoNewPrivs")}
    ok = all(got[k] is not None and int(got[k], 16) == 0
             for k in ("CapEff", "CapPrm", "CapInh")) and \
        (got["CapAmb"] is None or int(got["CapAmb"], 16) == 0) and got["NoNewPrivs"] == "1"
    return ok, got


def uid_of(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("Uid:"):
                return [int(x) for x in line.split()[1:]]
    return None


def wait_line(path, text, timeout):
    end = time.time() + timeout
    while time.time() < end:
        try:
            with open(path) as f:
                if text in f.read():
                    return True
        except OSError:
            pass
        time.sleep(0.05)
    return False


def final_object(text):
    """The pretty-printed final report after the one-line periodic ones."""
    i = text.find("{\n")
    return json.loads(text[i:]) if i >= 0 else None, text[:max(i, 0)].splitlines()


def main():
    if len(sys.argv) != 4:
        print(__doc__)
        return 2
    nfsscope, samples, work = sys.argv[1:]
    os.makedirs(work, exist_ok=True)

    # Messages that need no privileges.
    r = subprocess.run([nfsscope, "-i", "nfsscope-nosuch0", "--no-tui"], capture_output=True,
                       text=True)
    check(r.returncode == 1 and "no such interface" in r.stderr,
          "missing interface: exit 1, says so (%r)" % r.stderr.strip())

    if os.geteuid() != 0:
        skip("live capture needs root (run the tests as root, or in CI)")
    for tool in ("tcpreplay", "tcprewrite", "tcpdump"):
        if not shutil.which(tool):
            skip("%s is not installed (apt-get install tcpreplay tcpdump)" % tool)

    # A subnet of our own: 198.18.X.0/24, X random (concurrent runs on one host).
    net = "198.18.%d" % random.randint(20, 250)
    bpf = "net %s.0/24" % net
    pcaps = []
    for name in SAMPLES:
        out = os.path.join(work, name.replace(".pcapng", ".pcap") + ".rw")
        r = subprocess.run(["tcprewrite", "--pnat=198.18.0.0/24:%s.0/24" % net,
                            "--infile=" + os.path.join(samples, name), "--outfile=" + out],
                           capture_output=True, text=True)
        if r.returncode != 0:
            skip("tcprewrite failed: %s" % r.stderr.strip())
        pcaps.append(out)
    want = {}
    for p in pcaps:
        want = merged(want, counts(report(nfsscope, "-r", p)))

    live_out = os.path.join(work, "live.json")
    live_err = os.path.join(work, "live.err")
    dump = os.path.join(work, "tcpdump.pcap")
    td = subprocess.Popen(["tcpdump", "-i", "lo", "-n", "-s", "0", "-U", "-Z", "root", "-B", "16384",
                           "--time-stamp-precision=nano", "--immediate-mode", "-w", dump, bpf],
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    with open(live_out, "w") as o, open(live_err, "w") as e:
        ns = subprocess.Popen([nfsscope, "-i", "lo", "--no-tui", "-o", "json", "--duration", "10",
                               "--interval", "1", "-B", "16384", bpf], stdout=o, stderr=e)
    names = None
    try:
        if not wait_line(live_err, "listening on lo", 20):
            ns.wait(timeout=20)
            with open(live_err) as f:
                msg = f.read()
            if "permission" in msg:
                skip("no permission to capture: " + msg.strip())
            check(False, "nfsscope starts listening (%s)" % msg.strip())
            return 1
        time.sleep(0.5)
        uid = uid_of(ns.pid)
        check(uid is not None and uid[1] == 65534 and uid[0] == 65534,
              "started as root, runs as nobody once open (uid %s)" % uid)
        ok, caps = no_capabilities(ns.pid)
        check(ok, "as nobody: no capability left, no_new_privs (%s)" % caps)
        bnd = status_of(ns.pid, "CapBnd")
        check(bnd is not None and int(bnd, 16) == 0, "capability bounding set emptied (%s)" % bnd)
        time.sleep(1.0)  # tcpdump is up too
        names = thread_names(ns.pid)
        for p in pcaps:
            r = subprocess.run(["tcpreplay", "-q", "-i", "lo", "--pps", "400", p],
                               capture_output=True, text=True)
            check(r.returncode == 0, "tcpreplay %s" % os.path.basename(p))
        ns.wait(timeout=60)
    finally:
        if ns.poll() is None:
            ns.kill()
        time.sleep(0.5)
        td.send_signal(signal.SIGINT)
        td.wait(timeout=20)
    check(ns.returncode == 0, "--duration ends the run, exit 0")
    with open(live_out) as f:
        final, ticks = final_object(f.read())
    check(final is not None, "final JSON report")
    check(len(ticks) >= 3 and all(json.loads(t)["schema"] for t in ticks),
          "periodic JSON lines every --interval (%d)" % len(ticks))
    if final is None:
        return 1
    check(final["capture"]["kernel_drops"] == 0,
          "kernel drops reported (%s)" % final["capture"]["kernel_drops"])
    live = counts(final)
    dumped = counts(report(nfsscope, "-r", dump))
    check(live == dumped, "live counts == nfsscope -r on tcpdump's capture of the same traffic")
    check(live == want, "live counts == nfsscope -r on what was replayed")
    for k in sorted(set(live) | set(want)):
        if live.get(k) != want.get(k) or live.get(k) != dumped.get(k):
            print("     %-28s live %-16s tcpdump %-16s replayed %s"
                  % (k, live.get(k), dumped.get(k), want.get(k)))
    check(final["rpc"]["calls"] > 100, "real traffic seen (%d calls)" % final["rpc"]["calls"])
    # The findings on a thread of their own, each periodic report waiting for
    # it: the same findings as one thread reading tcpdump's capture (its
    # nanosecond stamps are nfsscope's).
    check(names is not None and "findings" in names,
          "the findings on a thread of their own (threads %s)" % names)
    ref = report(nfsscope, "-r", dump, "--threads", "1")
    check(final["findings"] and final["findings"] == ref["findings"],
          "live findings == nfsscope -r --threads 1 on tcpdump's capture (%d findings)"
          % len(final["findings"]))
    check(final["time_by_cause"] == ref["time_by_cause"],
          "live time by cause == nfsscope -r --threads 1 on tcpdump's capture")
    one_thread(nfsscope, work, bpf)

    # -Z root keeps root; SIGINT ends a run with the final report.
    err2 = os.path.join(work, "keep.err")
    with open(os.path.join(work, "keep.out"), "w") as o, open(err2, "w") as e:
        ns = subprocess.Popen([nfsscope, "-i", "lo", "--no-tui", "-Z", "root", bpf],
                              stdout=o, stderr=e)
    try:
        check(wait_line(err2, "listening on lo", 20), "-Z root: starts")
        uid = uid_of(ns.pid)
        check(uid is not None and uid[1] == 0, "-Z root keeps root (uid %s)" % uid)
        ns.send_signal(signal.SIGINT)
        ns.wait(timeout=20)
    finally:
        if ns.poll() is None:
            ns.kill()
    check(ns.returncode == 0, "SIGINT: clean exit 0")
    with open(os.path.join(work, "keep.out")) as f:
        check("nfsscope report: lo" in f.read(), "SIGINT: final report")

    drops_counted_once(nfsscope, work, samples, net, bpf)
    no_permission(nfsscope)
    records_refused(nfsscope, work)
    file_capabilities(nfsscope, work)
    live_view(nfsscope, work, bpf, pcaps[0], want_calls=counts(report(nfsscope, "-r", pcaps[0]))
              ["rpc.calls"])
    interface_gone(nfsscope, work)

    print("%d failed" % len(FAILS))
    return checks.status(len(FAILS))


def thread_names(pid):
    names = []
    for tid in os.listdir("/proc/%d/task" % pid):
        try:
            with open("/proc/%d/task/%s/comm" % (pid, tid)) as f:
                names.append(f.read().strip())
        except OSError:
            pass
    return names


def one_thread(nfsscope, work, bpf):
    """--threads 1 keeps the findings on the reading thread live too."""
    err = os.path.join(work, "one.err")
    with open(err, "w") as e:
        ns = subprocess.Popen([nfsscope, "-i", "lo", "--no-tui", "--threads", "1", bpf],
                              stdout=subprocess.DEVNULL, stderr=e)
    try:
        if check(wait_line(err, "listening on lo", 20), "--threads 1 live: starts"):
            time.sleep(0.5)
            names = thread_names(ns.pid)
            check(len(names) == 1, "--threads 1 live: one thread (%s)" % names)
        ns.send_signal(signal.SIGINT)
        ns.wait(timeout=20)
    finally:
        if ns.poll() is None:
            ns.kill()


def live_view(nfsscope, work, bpf, pcap, want_calls):
    """`nfsscope -i lo` on a terminal opens the view (tmux); Ctrl-C ends it,
    the terminal comes back and the report follows."""
    if not shutil.which("tmux"):
        checks.skip_part("tmux is not installed: live view not tested")
        return
    sock = "nfsscope-live-%d" % os.getpid()
    base = ["tmux", "-L", sock, "-f", "/dev/null"]
    rc = os.path.join(work, "view.rc")
    if os.path.exists(rc):
        os.unlink(rc)
    cmd = ("sh -c 'trap \"\" INT; %s -i lo %s; echo rc=$? > %s; sleep 600'"
           % (nfsscope, bpf, rc))
    subprocess.run(base + ["new-session", "-d", "-s", "t", "-x", "120", "-y", "40", cmd],
                   check=True)

    def screen():
        return subprocess.run(base + ["capture-pane", "-p", "-S", "-200", "-t", "t"],
                              capture_output=True, text=True).stdout

    def wait(pred, timeout):
        end = time.time() + timeout
        while time.time() < end:
            s = screen()
            if pred(s):
                return s
            time.sleep(0.2)
        return screen()

    try:
        s = wait(lambda s: "(live)" in s, 30)
        check("(live)" in s, "-i on a terminal opens the view")
        time.sleep(0.5)
        subprocess.run(["tcpreplay", "-q", "-i", "lo", "--pps", "400", pcap],
                       capture_output=True)
        s = wait(lambda s: "calls %d " % want_calls in s, 20)
        check("calls %d " % want_calls in s, "the view counts the calls live (%d)" % want_calls)
        check("drops 0" in s, "the view shows kernel drops")
        subprocess.run(base + ["send-keys", "-t", "t", "C-c"], check=True)
        check(wait_line(rc, "rc=0", 20), "Ctrl-C ends the view, exit 0")
        time.sleep(0.3)
        alt = subprocess.run(base + ["display", "-p", "-t", "t", "#{alternate_on}"],
                             capture_output=True, text=True).stdout.strip()
        check(alt == "0", "terminal restored after Ctrl-C")
        s = screen()
        check("nfsscope report: lo" in s, "final report after the view")
    finally:
        subprocess.run(base + ["kill-server"], capture_output=True)


def drops_counted_once(nfsscope, work, samples, net, bpf):
    """A burst into a ring too small for it: with nfsscope stopped (SIGSTOP)
    while bulk-io.pcap (2.4 MB) is replayed into a 1 MiB buffer, the kernel
    drops what does not fit, and the packets nfsscope then reads plus the
    kernel drops it reports equal the packets replayed (tcpdump -r's count of
    the file). On lo the kernel delivers every packet twice, outgoing and
    looped back in: were the outgoing copies taken into the ring (and
    thrown away after), they would fill it and count as drops too."""
    src = os.path.join(work, "bulk-io.pcap.rw")
    r = subprocess.run(["tcprewrite", "--pnat=198.18.0.0/24:%s.0/24" % net,
                        "--infile=" + os.path.join(samples, "bulk-io.pcap"), "--outfile=" + src],
                       capture_output=True, text=True)
    if r.returncode != 0:
        check(False, "tcprewrite bulk-io.pcap: %s" % r.stderr.strip())
        return
    r = subprocess.run(["tcpdump", "-n", "-r", src, bpf], capture_output=True, text=True)
    want = len(r.stdout.splitlines())
    out = os.path.join(work, "burst.json")
    err = os.path.join(work, "burst.err")
    with open(out, "w") as o, open(err, "w") as e:
        ns = subprocess.Popen([nfsscope, "-i", "lo", "--no-tui", "-o", "json", "-B", "1024", bpf],
                              stdout=o, stderr=e)
    try:
        check(wait_line(err, "listening on lo", 20), "burst: capture with -B 1024 starts")
        os.kill(ns.pid, signal.SIGSTOP)
        r = subprocess.run(["tcpreplay", "-q", "-i", "lo", "--pps", "4000", src],
                           capture_output=True, text=True)
        check(r.returncode == 0, "burst: tcpreplay bulk-io.pcap")
        os.kill(ns.pid, signal.SIGCONT)
        time.sleep(0.5)
        ns.send_signal(signal.SIGINT)
        ns.wait(timeout=20)
    finally:
        if ns.poll() is None:
            ns.kill()
            ns.wait()
    with open(out) as f:
        cap = json.load(f)["capture"]
    got, drops = cap["packets"], cap["kernel_drops"]
    check(want > 2000 and drops is not None and drops > 0 and got + drops == want,
          "burst into a full ring: %s read + %s kernel drops == %d replayed" % (got, drops, want))


def records_refused(nfsscope, work):
    """--records is opened after the switch to nobody: a place only root may
    write is refused (one line, exit 1) and nothing is created there."""
    d = os.path.join(work, "rootonly")
    os.makedirs(d, exist_ok=True)
    os.chmod(d, 0o700)
    target = os.path.join(d, "calls.csv")
    if os.path.exists(target):
        os.unlink(target)
    r = subprocess.run([nfsscope, "-i", "lo", "--no-tui", "--duration", "1", "--records", target],
                       capture_output=True, text=True, timeout=30)
    lines = r.stderr.strip().splitlines()
    check(r.returncode == 1 and lines and "Permission denied" in lines[-1] and
          not os.path.exists(target),
          "--records in a root-only directory after dropping to nobody: refused, exit 1 (%r)"
          % lines[-1:])
    r = subprocess.run([nfsscope, "-i", "lo", "--no-tui", "--duration", "1", "-Z", "root",
                        "--records", target], capture_output=True, text=True, timeout=30)
    check(r.returncode == 0 and os.path.exists(target),
          "-Z root: the same --records path is written (rc %d)" % r.returncode)


def file_capabilities(nfsscope, work):
    """A copy given CAP_NET_RAW alone with setcap, run as nobody: the capture
    opens, then the process keeps no capability (the way dumpcap is deployed;
    CAP_NET_ADMIN is not needed)."""
    if not shutil.which("setcap") or not shutil.which("setpriv"):
        checks.skip_part("no setcap/setpriv: file capabilities not tested")
        return
    d = os.path.join("/tmp", "nfsscope-caps-%d" % os.getpid())
    os.makedirs(d, exist_ok=True)
    os.chmod(d, 0o755)
    exe = os.path.join(d, "nfsscope")
    shutil.copy(nfsscope, exe)
    os.chmod(exe, 0o755)
    err = os.path.join(d, "caps.err")
    try:
        r = subprocess.run(["setcap", "cap_net_raw+ep", exe], capture_output=True,
                           text=True)
        if r.returncode != 0:
            checks.skip_part("setcap failed (%s): file capabilities not tested"
                  % r.stderr.strip())
            return
        with open(err, "w") as e:
            ns = subprocess.Popen(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
                                   exe, "-i", "lo", "--no-tui", "--duration", "3"],
                                  stdout=subprocess.DEVNULL, stderr=e)
        try:
            if not wait_line(err, "listening on lo", 20):
                with open(err) as f:
                    msg = f.read().strip()
                if ns.poll() is not None and ("Permission denied" in msg or
                                              "no permission" in msg):
                    checks.skip_part("file capabilities do not take effect here (%s)" % msg)
                    return
                check(False, "setcap copy as nobody: capture opens (%s)" % msg)
                return
            time.sleep(0.3)
            ok, caps = no_capabilities(ns.pid)
            check(ok, "setcap copy as nobody: capabilities given up once open (%s)" % caps)
            ns.wait(timeout=20)
            check(ns.returncode == 0, "setcap copy: clean exit (rc %s)" % ns.returncode)
        finally:
            if ns.poll() is None:
                ns.kill()
                ns.wait()
    finally:
        shutil.rmtree(d, ignore_errors=True)


def no_permission(nfsscope):
    """Run as nobody (setpriv), the capture cannot open: exit 1 with a hint."""
    if not shutil.which("setpriv"):
        checks.skip_part("no setpriv: the no-permission message not tested")
        return
    r = subprocess.run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
                        nfsscope, "-i", "lo", "--no-tui"], capture_output=True, text=True)
    if r.returncode in (126, 127) or ("no permission" not in r.stderr and
                                      "Permission denied" in r.stderr):
        checks.skip_part("nobody cannot run %s: the no-permission message not tested" % nfsscope)
        return
    check(r.returncode == 1 and "no permission to capture" in r.stderr and
          "CAP_NET_RAW" in r.stderr,
          "not allowed to capture: exit 1, hint root or CAP_NET_RAW (%r)" % r.stderr.strip())


def interface_gone(nfsscope, work):
    """A veth pair made for the test, deleted under the capture."""
    dev = "nfss%d" % (os.getpid() % 100000)
    r = subprocess.run(["ip", "link", "add", dev, "type", "veth", "peer", "name", dev + "p"],
                       capture_output=True, text=True)
    if r.returncode != 0:
        checks.skip_part("cannot make a veth pair (%s): interface removal not tested"
              % r.stderr.strip())
        return
    err = os.path.join(work, "gone.err")
    try:
        subprocess.run(["ip", "link", "set", dev, "up"], capture_output=True)
        with open(os.path.join(work, "gone.out"), "w") as o, open(err, "w") as e:
            ns = subprocess.Popen([nfsscope, "-i", dev, "--no-tui"], stdout=o, stderr=e)
        check(wait_line(err, "listening on " + dev, 20), "capture on a veth made for the test")
    finally:
        subprocess.run(["ip", "link", "del", dev], capture_output=True)
    try:
        ns.wait(timeout=20)
    except subprocess.TimeoutExpired:
        ns.kill()
        ns.wait()
    with open(err) as f:
        msg = f.read()
    check(ns.returncode == 1 and "went away" in msg,
          "interface removed: exit 1, says it went away (%r)" % msg.strip().splitlines()[-1:])
    with open(os.path.join(work, "gone.out")) as f:
        check("nfsscope report: " + dev in f.read(), "interface removed: report still printed")


if __name__ == "__main__":
    sys.exit(main())
