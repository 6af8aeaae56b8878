#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# deb_test.sh: the Debian package as a user gets it. scripts/build-deb builds
# it; lintian finds no error and no warning (pedantic tags are listed);
# the program is hardened (hardening-check and readelf); dpkg -c shows the
# files policy wants; then, as root, it is installed, used (--version, the
# man page, the completion, a report of a sample, live capture by a group
# given CAP_NET_RAW as README.Debian says) and purged.
#
#   tests/deb_test.sh [--sanitized] SOURCE_DIR [WORK_DIR]
#
# --sanitized (a sanitizer build's ctest): skipped, since the package is
# built from the source by scripts/build-deb whatever the build, and the
# release build's ctest runs the test.
# Exit 77 (skipped, with the reason on stdout) when a build tool is missing,
# and, after every check that needs no root, when not root or when a package
# or file named nfsscope is already installed (the test must not touch an
# installation it did not make). Installs only a package whose dependencies
# are already present: no network; the package, the group and the
# statoverride it makes are removed on every exit path.
set -eu

skip() { echo "deb_test: SKIPPED: $*"; exit 77; }
if [ "${1:-}" = --sanitized ]; then
    skip "sanitizer build: the package builds from the source itself; the release build runs this test"
fi
src=$(cd "${1:?usage: deb_test.sh [--sanitized] SOURCE_DIR [WORK_DIR]}" && pwd)
work=${2:-}
fail() { echo "deb_test: FAIL: $*"; exit 1; }

for t in dpkg-buildpackage dh lintian hardening-check dpkg-deb dpkg-architecture readelf \
    python3 flock; do
    command -v "$t" >/dev/null 2>&1 ||
        skip "$t not found (scripts/install-deps installs debhelper, lintian and devscripts)"
done

if [ -z "$work" ]; then
    work=$(mktemp -d /tmp/nfsscope-deb.XXXXXX)
    own_work=1
else
    rm -rf "$work"
    mkdir -p "$work"
    own_work=0
fi

# One run at a time on this machine (several builds may run ctest at once):
# dpkg has one lock and the package one name.
exec 9>/tmp/nfsscope-deb-test.lock
flock -w 600 9 || fail "another deb_test held the lock for 10 minutes"

installed=0
group_made=0
override_made=0
cleanup() {
    st=$?
    if [ "$installed" -eq 1 ]; then
        dpkg --purge nfsscope >/dev/null 2>&1 || echo "deb_test: could not purge nfsscope" >&2
    fi
    if [ "$override_made" -eq 1 ]; then
        dpkg-statoverride --remove /usr/bin/nfsscope >/dev/null 2>&1 || true
    fi
    if [ "$group_made" -eq 1 ]; then
        groupdel "$group" >/dev/null 2>&1 || echo "deb_test: could not remove group $group" >&2
    fi
    if [ "$own_work" -eq 1 ]; then rm -rf "$work"; fi
    exit "$st"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# 1. Build with the script users run (the unit tests are ctest's job here).
echo "deb_test: scripts/build-deb $work/out"
DEB_BUILD_OPTIONS="nocheck parallel=2" "$src/scripts/build-deb" "$work/out" >"$work/build-deb.log" 2>&1 ||
    { cat "$work/build-deb.log"; fail "scripts/build-deb"; }
version=$(dpkg-parsechangelog -l "$src/debian/changelog" -S Version)
arch=$(dpkg-architecture -qDEB_HOST_ARCH)
deb=$work/out/nfsscope_${version}_$arch.deb
[ -f "$deb" ] || { ls -l "$work/out"; fail "no $(basename "$deb")"; }
[ "$(tail -1 "$work/build-deb.log")" = "$deb" ] || fail "build-deb did not print the .deb's path"
echo "deb_test: built $(basename "$deb")"

# 2. lintian: no error, no warning, on the binary and the source package
# (the .changes names both); the other tags are listed.
changes=$work/out/nfsscope_${version}_$arch.changes
lintian --fail-on none -E --pedantic --display-level '>=pedantic' "$changes" \
    >"$work/lintian.log" 2>&1 || { cat "$work/lintian.log"; fail "lintian did not run"; }
n_e=$(grep -c '^E: ' "$work/lintian.log" || true)
n_w=$(grep -c '^W: ' "$work/lintian.log" || true)
grep -E '^[IPX]: ' "$work/lintian.log" | sed 's/^/deb_test: lintian (not an error): /' | head -20
if [ "$n_e" -ne 0 ] || [ "$n_w" -ne 0 ]; then
    lintian -i --fail-on none "$changes" 2>&1 | grep -E -A12 '^[EW]: '
    fail "lintian: $n_e errors, $n_w warnings"
fi
echo "deb_test: lintian: 0 errors, 0 warnings"

# 3. The package's control fields and contents.
[ "$(dpkg-deb -f "$deb" Package)" = nfsscope ] || fail "Package is not nfsscope"
[ "$(dpkg-deb -f "$deb" Section)" = net ] || fail "Section is not net"
dpkg-deb -f "$deb" Description | grep -q '^ ;' && fail "a Description line starts with ';'"
dpkg-deb -c "$deb" >"$work/contents"
for f in ./usr/bin/nfsscope ./usr/share/doc/nfsscope/copyright \
    ./usr/share/doc/nfsscope/changelog.Debian.gz \
    ./usr/share/man/man1/nfsscope.1.gz ./usr/share/bash-completion/completions/nfsscope \
    ./lib/systemd/system/nfsscope@.service \
    ./usr/share/doc/nfsscope/examples/prometheus/nfsscope-rules.yml \
    ./usr/share/doc/nfsscope/examples/prometheus/nfsscope-rules.test.yml \
    ./usr/share/doc/nfsscope/examples/grafana/nfsscope-dashboard.json; do
    grep -q " $f\$" "$work/contents" || { cat "$work/contents"; fail "$f not in the package"; }
done
# dh_compress leaves documents under 4 KiB as they are.
grep -Eq ' \./usr/share/doc/nfsscope/README\.Debian(\.gz)?$' "$work/contents" ||
    fail "README.Debian not in the package"
grep -q ' \./usr/sbin/' "$work/contents" && fail "something in /usr/sbin"
# Never setuid or setgid: dpkg -c shows the mode first (s or S in it).
if awk '$1 ~ /[sS]/' "$work/contents" | grep -q .; then
    awk '$1 ~ /[sS]/' "$work/contents"
    fail "setuid or setgid file in the package"
fi
dpkg-deb -x "$deb" "$work/root"
exe=$work/root/usr/bin/nfsscope
head -1 "$work/root/usr/share/doc/nfsscope/copyright" |
    grep -qx 'Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/' ||
    fail "copyright is not machine-readable (DEP-5 Format line)"
grep -qx 'License: BSD-3-Clause' "$work/root/usr/share/doc/nfsscope/copyright" ||
    fail "copyright names no BSD-3-Clause licence"

# Every shared library the program needs comes from a package in Depends.
depends=$(dpkg-deb -f "$deb" Depends)
echo "deb_test: Depends: $depends"
needed=$(LC_ALL=C readelf -d "$exe" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
[ -n "$needed" ] || fail "no NEEDED libraries found in the packaged program"
triplet=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
for so in $needed; do
    pkg=$(dpkg -S "*/$triplet/$so" 2>/dev/null | sed -n '1s/:.*//p' | sed 's/,.*//')
    [ -n "$pkg" ] || fail "no package provides $so"
    echo "$depends" | grep -Eq "(^|, )$pkg( |,|\$)" || fail "Depends lacks $pkg (for $so)"
done

# 4. Hardening (debian/rules): the flags reached the compiler, and the
# binary shows them. hardening-check fails on any missing feature but
# control-flow protection, which bookworm's toolchain cannot give (its crt
# files have no CET note; debian/rules).
hardening-check --nocfprotection "$exe" >"$work/hardening.log" 2>&1 ||
    { cat "$work/hardening.log"; fail "hardening-check"; }
sed 's/^/deb_test: /' "$work/hardening.log"
buildlog=$work/out/nfsscope_${version}_$arch.build
main_cc=$(grep -E ' -c [^ ]*src/main\.c$' "$buildlog" | tail -1)
[ -n "$main_cc" ] || fail "no compile line of src/main.c in $(basename "$buildlog")"
for flag in -D_FORTIFY_SOURCE=2 -fstack-protector-strong -O2 -fstack-clash-protection; do
    echo "$main_cc" | grep -q -- " $flag " || fail "src/main.c compiled without $flag"
done
dyn=$(LC_ALL=C readelf -d "$exe")
echo "$dyn" | grep -Eq '\(FLAGS\) +BIND_NOW' || fail "no BIND_NOW in the dynamic section"
echo "$dyn" | grep -Eq '\(FLAGS_1\) +Flags: .*NOW.*PIE' || fail "FLAGS_1 lacks NOW or PIE"
LC_ALL=C readelf -h "$exe" | grep -Eq 'Type: +DYN' || fail "not a position-independent executable"
LC_ALL=C readelf -lW "$exe" | grep -q GNU_RELRO || fail "no GNU_RELRO segment"
syms=$(LC_ALL=C readelf --dyn-syms -W "$exe")
echo "$syms" | grep -q ' __stack_chk_fail' || fail "no __stack_chk_fail: no stack protector"
echo "$syms" | grep -Eq ' __[a-z]+_chk' || fail "no _chk function: FORTIFY_SOURCE had no effect"
echo "deb_test: hardened: FORTIFY_SOURCE=2, stack protector strong, relro, BIND_NOW, PIE"

# 5. From here on: root, on a machine without nfsscope.
[ "$(id -u)" -eq 0 ] || skip "built, linted and checked; not root: install, use and purge not tested"
command -v apt-get >/dev/null 2>&1 || skip "apt-get not found: install not tested"
if dpkg-query -W -f '${Status}' nfsscope 2>/dev/null | grep -q 'installed'; then
    skip "a package nfsscope is already installed; not touching it"
fi
for f in /usr/sbin/nfsscope /usr/bin/nfsscope /usr/share/man/man1/nfsscope.1.gz \
    /usr/share/man/man8/nfsscope.8.gz /usr/share/bash-completion/completions/nfsscope \
    /lib/systemd/system/nfsscope@.service; do
    [ ! -e "$f" ] || skip "$f exists (installed by hand?); not touching it"
done
dpkg-statoverride --list /usr/bin/nfsscope >/dev/null 2>&1 &&
    skip "a dpkg-statoverride for /usr/bin/nfsscope exists; not touching it"

# Install it as users do, when apt would install nothing else (its
# dependencies are those of the build, already here: no network). apt-get's
# --no-download fails on local .deb files (apt 2.6), hence the simulation.
installed=1 # from here on, purge on exit whatever happens
if apt-get install -s --no-install-recommends "$deb" 2>&1 |
    grep -q '^0 upgraded, 1 newly installed, 0 to remove'; then
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "$deb" \
        >"$work/apt.log" 2>&1 || { cat "$work/apt.log"; fail "apt-get install $deb"; }
    echo "deb_test: installed with apt-get install"
else
    echo "deb_test: apt-get would install more than nfsscope, or cannot run; using dpkg -i"
    apt-get install -s --no-install-recommends "$deb" 2>&1 | tail -5
    dpkg -i "$deb" >"$work/dpkg.log" 2>&1 || { cat "$work/dpkg.log"; fail "dpkg -i"; }
fi
dpkg-query -W -f '${Status}' nfsscope | grep -q 'install ok installed' || fail "not installed"

# 6. Use it.
upstream=${version%-*}
out=$(/usr/bin/nfsscope --version) || fail "nfsscope --version failed"
[ "$out" = "nfsscope $upstream" ] || fail "--version says \"$out\", expected \"nfsscope $upstream\""
echo "deb_test: $out"
[ "$(command -v nfsscope)" = /usr/bin/nfsscope ] || fail "nfsscope is not /usr/bin/nfsscope on PATH"
man_path=""
if command -v man >/dev/null 2>&1; then
    man_path=$(man -w nfsscope 2>/dev/null) || true
fi
if [ -n "$man_path" ]; then
    [ "$man_path" = /usr/share/man/man1/nfsscope.1.gz ] || fail "man -w nfsscope: $man_path"
    echo "deb_test: man page at $man_path"
    MANWIDTH=80 man 1 nfsscope 2>/dev/null | grep -q 'WHAT THE NUMBERS MEAN' ||
        fail "man 1 nfsscope does not render"
else
    [ -f /usr/share/man/man1/nfsscope.1.gz ] ||
        fail "the man page is not installed (dpkg path-exclude in /etc/dpkg/dpkg.cfg.d?)"
    echo "deb_test: man-db not installed; the man page file is in place"
fi
if command -v bash >/dev/null 2>&1; then
    bash -c '. /usr/share/bash-completion/completions/nfsscope && complete -p nfsscope' \
        >/dev/null || fail "the bash completion does not load"
fi
nfsscope -r "$src/samples/all-ops.pcap" -o json >"$work/report.json" ||
    fail "nfsscope -r samples/all-ops.pcap -o json"
python3 - "$work/report.json" <<'EOF' || fail "report of all-ops.pcap"
import json, sys
r = json.load(open(sys.argv[1]))
calls = sum(op["calls"] for op in r["nfs3"]["ops"].values())
assert r["schema"] == "nfsscope/1", r["schema"]
# samples/README.md: all-ops holds 55 NFSv3 calls, 62 RPC calls in all, all answered.
assert calls == 55 and r["nfs3"]["calls"] == 55, ("nfs3 calls", calls, r["nfs3"]["calls"])
assert r["rpc"]["calls"] == 62 and r["rpc"]["replies"] == 62, r["rpc"]
print("deb_test: installed nfsscope reports", calls, "NFSv3 calls,", r["rpc"]["calls"], "RPC calls")
EOF

# 7. Live capture by a group, as README.Debian sets it up; the postinst
# gives the capability back when the package is installed again (as on an
# upgrade, which replaces the file).
group=nfsscope-test-$$
if command -v setcap >/dev/null 2>&1 && command -v getcap >/dev/null 2>&1 &&
    command -v setpriv >/dev/null 2>&1 && command -v groupadd >/dev/null 2>&1; then
    groupadd --system "$group" || fail "groupadd $group"
    group_made=1
    dpkg-statoverride --update --add root "$group" 0750 /usr/bin/nfsscope ||
        fail "dpkg-statoverride --add"
    override_made=1
    [ -z "$(getcap /usr/bin/nfsscope)" ] || fail "the packaged binary already has capabilities"
    dpkg -i "$deb" >"$work/reinstall.log" 2>&1 || { cat "$work/reinstall.log"; fail "dpkg -i again"; }
    caps=$(getcap /usr/bin/nfsscope)
    echo "deb_test: after reinstall with the override: $caps"
    echo "$caps" | grep -Eq 'cap_net_raw[=+]ep$' || fail "postinst did not give back CAP_NET_RAW ($caps)"
    [ "$(stat -c '%a %U %G' /usr/bin/nfsscope)" = "750 root $group" ] ||
        fail "owner/mode not root:$group 0750: $(stat -c '%a %U %G' /usr/bin/nfsscope)"
    gid=$(getent group "$group" | cut -d: -f3)
    # A member of the group captures; someone else cannot even run it. The
    # program is started from a shell: setpriv itself still holds root's
    # capabilities when it calls execve, which would pass any mode.
    setpriv --reuid=65534 --regid="$gid" --clear-groups \
        sh -c 'exec /usr/bin/nfsscope -i lo --no-tui --duration 1 -o json' \
        >"$work/live.json" 2>"$work/live.err" ||
        { cat "$work/live.err"; fail "a member of $group cannot capture on lo"; }
    python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); assert r["capture"]["sources"]==["lo"], r["capture"]' \
        "$work/live.json" || fail "the group member's live report"
    if setpriv --reuid=65534 --regid=65534 --clear-groups \
        sh -c 'exec /usr/bin/nfsscope --version' >/dev/null 2>&1; then
        fail "a user outside $group can run /usr/bin/nfsscope"
    fi
    echo "deb_test: group $group: members capture on lo with CAP_NET_RAW; others cannot run it"
    dpkg-statoverride --remove /usr/bin/nfsscope || fail "dpkg-statoverride --remove"
    override_made=0
else
    echo "deb_test: SKIP (part): no setcap/getcap/setpriv/groupadd: the group set-up not tested"
fi

# 8. Remove it; the system must be as before.
dpkg --purge nfsscope >"$work/purge.log" 2>&1 || { cat "$work/purge.log"; fail "dpkg --purge"; }
installed=0
if dpkg-query -W -f '${Status}' nfsscope 2>/dev/null | grep -q 'installed'; then
    fail "nfsscope still installed after purge"
fi
for f in /usr/bin/nfsscope /usr/share/man/man1/nfsscope.1.gz /usr/share/doc/nfsscope \
    /usr/share/bash-completion/completions/nfsscope /lib/systemd/system/nfsscope@.service; do
    [ ! -e "$f" ] || fail "$f left behind"
done
echo "deb_test: OK (built, linted, installed, used and purged $(basename "$deb"))"
