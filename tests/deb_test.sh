#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# deb_test.sh: build the .deb with CPack (Release), install it with apt, use
# it (nfsscope --version, the man page, the completion, a report of a sample),
# then purge it. Issue 9: "a fresh machine can build the .deb, install it, read
# the man page, and run nfsscope -r on a sample".
#
#   tests/deb_test.sh SOURCE_DIR [WORK_DIR]
#
# Exit 77 (skipped, with the reason on stdout) when not root, when dpkg-deb,
# dpkg-shlibdeps, cpack or apt-get is missing, or when a package or file named
# nfsscope is already installed (the test must not touch an installation it
# did not make). Installs only a package whose dependencies are already
# present (apt-get --no-download): no network, and the system is left as it
# was (the package is purged on every exit path; checked at the end).
set -eu

src=$(cd "${1:?usage: deb_test.sh SOURCE_DIR [WORK_DIR]}" && pwd)
work=${2:-}
skip() { echo "deb_test: SKIPPED: $*"; exit 77; }

[ "$(id -u)" -eq 0 ] || skip "not root (installing a package needs root)"
for t in cmake cpack dpkg dpkg-deb dpkg-shlibdeps dpkg-architecture apt-get python3 flock readelf; do
    command -v "$t" >/dev/null 2>&1 || skip "$t not found (scripts/install-deps installs dpkg-dev)"
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
flock -w 600 9 || { echo "deb_test: FAIL: another deb_test held the lock for 10 minutes"; exit 1; }

if dpkg-query -W -f '${Status}' nfsscope 2>/dev/null | grep -q 'installed'; then
    skip "a package nfsscope is already installed; not touching it"
fi
for f in /usr/bin/nfsscope /usr/sbin/nfsscope /usr/share/man/man1/nfsscope.1.gz \
    /usr/share/bash-completion/completions/nfsscope; do
    [ ! -e "$f" ] || skip "$f exists (installed by hand?); not touching it"
done

installed=0
cleanup() {
    st=$?
    if [ "$installed" -eq 1 ]; then
        dpkg --purge nfsscope >/dev/null 2>&1 || echo "deb_test: could not purge nfsscope" >&2
    fi
    if [ "$own_work" -eq 1 ]; then rm -rf "$work"; fi
    exit "$st"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
fail() { echo "deb_test: FAIL: $*"; exit 1; }

# 1. Build (only what the package holds: the test programs are not built).
echo "deb_test: building a Release .deb in $work"
cmake -S "$src" -B "$work/build" -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_SKIP_INSTALL_ALL_DEPENDENCY=ON >"$work/configure.log" 2>&1 ||
    { cat "$work/configure.log"; fail "cmake configure"; }
cmake --build "$work/build" --target nfsscope manpage -j "$(nproc 2>/dev/null || echo 2)" \
    >"$work/build.log" 2>&1 || { tail -40 "$work/build.log"; fail "build"; }
(cd "$work/build" && cpack -G DEB) >"$work/cpack.log" 2>&1 ||
    { cat "$work/cpack.log"; fail "cpack"; }
set -- "$work"/build/nfsscope_*.deb
if [ $# -ne 1 ] || [ ! -f "$1" ]; then fail "cpack made no single nfsscope_*.deb: $*"; fi
deb=$1
echo "deb_test: built $(basename "$deb")"

# 2. The package's control fields and contents.
[ "$(dpkg-deb -f "$deb" Package)" = nfsscope ] || fail "Package is not nfsscope"
[ "$(dpkg-deb -f "$deb" Section)" = net ] || fail "Section is not net"
depends=$(dpkg-deb -f "$deb" Depends)
echo "deb_test: Depends: $depends"
# Every shared library the program needs comes from a package in Depends.
dpkg-deb -x "$deb" "$work/root"
needed=$(LC_ALL=C readelf -d "$work/root/usr/bin/nfsscope" |
    sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
[ -n "$needed" ] || fail "no NEEDED libraries found in the packaged program"
triplet=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
for so in $needed; do
    pkg=$(dpkg -S "*/$triplet/$so" 2>/dev/null | sed -n '1s/:.*//p' | sed 's/,.*//')
    [ -n "$pkg" ] || fail "no package provides $so"
    echo "$depends" | grep -Eq "(^|, )$pkg( |,|\$)" || fail "Depends lacks $pkg (for $so)"
done
dpkg-deb -c "$deb" >"$work/contents"
for f in ./usr/bin/nfsscope ./usr/share/man/man1/nfsscope.1.gz \
    ./usr/share/bash-completion/completions/nfsscope; do
    grep -q " $f\$" "$work/contents" || { cat "$work/contents"; fail "$f not in the package"; }
done

# 3. Install it as users do, when apt would install nothing else (its
# dependencies are those of the build, already here: no network). apt-get's
# --no-download fails on local .deb files (apt 2.6), hence the simulation.
installed=1 # from here on, purge on exit whatever happens
if apt-get install -s --no-install-recommends "$deb" 2>&1 | grep -q '^0 upgraded, 1 newly installed, 0 to remove'; then
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "$deb" \
        >"$work/apt.log" 2>&1 || { cat "$work/apt.log"; fail "apt-get install $deb"; }
    echo "deb_test: installed with apt-get install"
else
    # apt would fetch something, or cannot run (locked, no lists): dpkg
    # installs it if the dependencies are there.
    echo "deb_test: apt-get would install more than nfsscope, or cannot run; using dpkg -i"
    apt-get install -s --no-install-recommends "$deb" 2>&1 | tail -5
    dpkg -i "$deb" >"$work/dpkg.log" 2>&1 || { cat "$work/dpkg.log"; fail "dpkg -i"; }
fi
dpkg-query -W -f '${Status}' nfsscope | grep -q 'install ok installed' || fail "not installed"

# 4. Use it.
version=$(sed -n 's/^project(nfsscope VERSION \([0-9.]*\).*/\1/p' "$src/CMakeLists.txt")
out=$(/usr/bin/nfsscope --version) || fail "nfsscope --version failed"
[ "$out" = "nfsscope $version" ] || fail "--version says \"$out\", expected \"nfsscope $version\""
echo "deb_test: $out"
man_path=""
if command -v man >/dev/null 2>&1; then
    man_path=$(man -w nfsscope 2>/dev/null) || true
fi
if [ -n "$man_path" ]; then
    echo "deb_test: man page at $man_path"
    if ! MANWIDTH=80 man nfsscope 2>/dev/null | grep -q 'WHAT THE NUMBERS MEAN'; then
        fail "man nfsscope does not render"
    fi
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
python3 - "$work/report.json" "$src/samples/all-ops.expect.json" <<'EOF' || fail "report of all-ops.pcap"
import json, sys
r = json.load(open(sys.argv[1]))
calls = sum(op["calls"] for op in r["nfs3"]["ops"].values())
assert r["schema"] == "nfsscope/1", r["schema"]
# samples/README.md: all-ops holds 55 NFSv3 calls, 62 RPC calls in all, all answered.
assert calls == 55 and r["nfs3"]["calls"] == 55, ("nfs3 calls", calls, r["nfs3"]["calls"])
assert r["rpc"]["calls"] == 62 and r["rpc"]["replies"] == 62, r["rpc"]
print("deb_test: installed nfsscope reports", calls, "NFSv3 calls,", r["rpc"]["calls"], "RPC calls")
EOF

# 5. Remove it; the system must be as before.
dpkg --purge nfsscope >"$work/purge.log" 2>&1 || { cat "$work/purge.log"; fail "dpkg --purge"; }
installed=0
if dpkg-query -W -f '${Status}' nfsscope 2>/dev/null | grep -q 'installed'; then
    fail "nfsscope still installed after purge"
fi
for f in /usr/bin/nfsscope /usr/share/man/man1/nfsscope.1.gz \
    /usr/share/bash-completion/completions/nfsscope; do
    [ ! -e "$f" ] || fail "$f left behind"
done
echo "deb_test: OK (built, installed, used and purged $(basename "$deb"))"
