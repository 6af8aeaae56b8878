#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""systemd_unit_test.py: contrib/systemd/nfsscope@.service.

1. systemd-analyze verify accepts an instance of it (nfsscope@lo.service,
   ExecStart pointed at the built program) with no message at all;
   systemd-analyze security --offline rates its exposure 2.0 or less.
2. Its privileges are the ones nfsscope's own drop expects: a non-root
   (dynamic) user, CAP_NET_RAW alone in the ambient and bounding sets,
   no_new_privs, AF_PACKET allowed, no -Z.
3. As root: its ExecStart line, run with exactly those credentials
   (setpriv: uid nobody, ambient and bounding set CAP_NET_RAW,
   no_new_privs) on lo, opens the capture, serves /metrics, holds no
   capability once the capture is open, and on SIGTERM prints its report
   and exits 0: the unit works as written. systemd cannot start units here
   (it is not PID 1 in every test environment), hence setpriv.

   systemd_unit_test.py NFSSCOPE UNIT_FILE WORK_DIR

Exit 77 when systemd-analyze is missing (no systemd on this machine).
"""
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import time
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import check, finish  # noqa: E402


def unit_settings(path):
    """{key: [values...]} of the [Service] and [Unit] sections, in order."""
    got = {}
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith(("#", ";", "[")):
                continue
            k, _, v = line.partition("=")
            got.setdefault(k.strip(), []).append(v.strip())
    return got


def status_of(pid, key):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith(key + ":"):
                return line.split(":", 1)[1].strip()
    return None


def verify(nfsscope, unit, work):
    inst = os.path.join(work, "nfsscope@lo.service")
    with open(unit) as f:
        text = f.read()
    check("ExecStart=/usr/bin/nfsscope " in text, "the unit runs /usr/bin/nfsscope")
    with open(inst, "w") as f:
        f.write(text.replace("ExecStart=/usr/bin/nfsscope ", "ExecStart=%s " % nfsscope))
    r = subprocess.run(["systemd-analyze", "verify", "--man=no", inst],
                       capture_output=True, text=True, timeout=120)
    msg = (r.stdout + r.stderr).strip()
    check(r.returncode == 0 and msg == "",
          "systemd-analyze verify: rc %d, no message (%r)" % (r.returncode, msg))
    r = subprocess.run(["systemd-analyze", "security", "--offline=yes", "--no-pager", inst],
                       capture_output=True, text=True, timeout=120)
    m = re.search(r"Overall exposure level for \S+: ([0-9.]+)", r.stdout + r.stderr)
    if m is None and "--offline" in r.stderr:
        print("SKIP (part): this systemd-analyze has no security --offline")
        return
    check(m is not None, "systemd-analyze security printed an exposure level (%r)"
          % (r.stdout + r.stderr)[-300:])
    if m:
        level = float(m.group(1))
        print("systemd-analyze security: exposure %.1f" % level)
        check(level <= 2.0, "exposure %.1f <= 2.0" % level)


def privileges(s):
    check(s.get("DynamicUser") == ["yes"], "DynamicUser=yes (never root)")
    check("User" not in s, "no User= (a transient user, not root)")
    check(s.get("AmbientCapabilities") == ["CAP_NET_RAW"], "AmbientCapabilities=CAP_NET_RAW only")
    check(s.get("CapabilityBoundingSet") == ["CAP_NET_RAW"],
          "CapabilityBoundingSet=CAP_NET_RAW only")
    check(s.get("NoNewPrivileges") == ["yes"], "NoNewPrivileges=yes")
    fams = " ".join(s.get("RestrictAddressFamilies", [])).split()
    check("AF_PACKET" in fams and "AF_INET" in fams,
          "RestrictAddressFamilies allows AF_PACKET and AF_INET (%s)" % fams)
    check(s.get("PrivateUsers", ["no"]) == ["no"],
          "no PrivateUsers (CAP_NET_RAW in a user namespace opens no packet socket)")
    for k in ("ProtectSystem", "ProtectHome", "PrivateTmp", "SystemCallFilter"):
        check(k in s, "%s is set" % k)
    exec_start = s.get("ExecStart", [""])[0]
    check(" -Z" not in exec_start, "no -Z: a non-root user cannot change user")
    for opt in ("-i %I", "--no-tui", "--metrics ${NFSSCOPE_METRICS}"):
        check(opt in exec_start, "ExecStart has %s" % opt)
    return exec_start


def argv_of(exec_start, nfsscope, iface, metrics):
    """ExecStart as systemd would run it, with the default environment."""
    words = []
    for w in shlex.split(exec_start):
        w = w.replace("%I", iface).replace("%i", iface).replace("${NFSSCOPE_METRICS}", metrics)
        if w == "$NFSSCOPE_OPTS":
            continue  # unset: systemd drops an empty $VAR word
        words.append(w)
    if words[0] == "/usr/bin/nfsscope":
        words[0] = nfsscope
    return words


def run_like_the_unit(nfsscope, exec_start, work):
    if os.geteuid() != 0 or not shutil.which("setpriv"):
        print("SKIP (part): not root or no setpriv: the unit's credentials not tried")
        return
    argv = argv_of(exec_start, nfsscope, "lo", "127.0.0.1:0")
    creds = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
             "--inh-caps=-all,+net_raw", "--ambient-caps=+net_raw",
             "--bounding-set=-all,+net_raw", "--no-new-privs"]
    err_path = os.path.join(work, "unit.err")
    out_path = os.path.join(work, "unit.out")
    with open(err_path, "w") as err, open(out_path, "w") as out:
        p = subprocess.Popen(creds + argv, stdout=out, stderr=err)
    try:
        url = None
        end = time.time() + 20
        while time.time() < end and p.poll() is None and url is None:
            with open(err_path) as f:
                m = re.search(r"metrics at (http://\S+/metrics)", f.read())
            url = m.group(1) if m else None
            time.sleep(0.1)
        with open(err_path) as f:
            err_text = f.read()
        check(url is not None, "the unit's command serves metrics as nobody with CAP_NET_RAW "
              "(%r)" % err_text.strip())
        if url is None:
            return
        time.sleep(0.3)
        caps = {k: status_of(p.pid, k) for k in ("CapEff", "CapPrm", "CapInh", "CapAmb",
                                                  "NoNewPrivs", "Uid")}
        check(all(int(caps[k], 16) == 0 for k in ("CapEff", "CapPrm", "CapInh", "CapAmb")) and
              caps["NoNewPrivs"] == "1" and caps["Uid"].split()[0] == "65534",
              "no capability left once the capture is open, as nobody (%s)" % caps)
        with urllib.request.urlopen(url, timeout=10) as r:
            body = r.read().decode()
        check("nfsscope_packets_total" in body and "nfsscope_kernel_drops_total" in body,
              "/metrics served from the live capture")
        p.send_signal(signal.SIGTERM)
        rc = p.wait(timeout=20)
        check(rc == 0, "SIGTERM (systemctl stop): exit 0 (rc %s)" % rc)
        with open(out_path) as f:
            report = f.read()
        check("lo" in report and len(report) > 100, "the report is printed on stop")
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()


def main():
    if len(sys.argv) != 4:
        print("usage: systemd_unit_test.py NFSSCOPE UNIT_FILE WORK_DIR", file=sys.stderr)
        return 2
    nfsscope, unit, work = os.path.abspath(sys.argv[1]), sys.argv[2], sys.argv[3]
    if not shutil.which("systemd-analyze"):
        print("SKIPPED: no systemd-analyze (systemd is not installed)")
        return 77
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    os.chmod(work, 0o755)
    verify(nfsscope, unit, work)
    exec_start = privileges(unit_settings(unit))
    run_like_the_unit(nfsscope, exec_start, work)
    return finish()


if __name__ == "__main__":
    sys.exit(main())
