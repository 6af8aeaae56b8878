#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# spdx_test.sh: every source file carries an SPDX-License-Identifier line
# (BSD-3-Clause, as LICENSE) within its first three lines: C sources and
# headers, CMake files, shell and Python scripts (by extension or by a
# shebang), debian/rules and maintainer scripts, the systemd unit, the
# Prometheus rules, the man page and the bash completion. Data (captures,
# fuzz inputs, JSON, Markdown) has no comment syntax or is not code.
#
#   tests/spdx_test.sh SOURCE_DIR
set -eu
src=$(cd "${1:?usage: spdx_test.sh SOURCE_DIR}" && pwd)
cd "$src"
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    list() { git ls-files --cached --others --exclude-standard; }
else
    list() { find . -path ./.git -prune -o -path './build*' -prune -o -type f -print | sed 's|^\./||'; }
fi
n=0
bad=0
for f in $(list); do
    [ -f "$f" ] || continue
    case $f in
    tests/fuzz/corpus/* | tests/fuzz/regressions/*) continue ;;
    *.c | *.h | *.c.in | *.cmake | CMakeLists.txt | *.sh | *.py | *.service | *.yml | doc/*.[1-8] | \
        debian/rules | debian/*.postinst | debian/*.postrm | debian/*.preinst | debian/*.prerm | \
        contrib/bash-completion/*) ;;
    *)
        head -c 2 "$f" | grep -q '^#!' || continue
        ;;
    esac
    n=$((n + 1))
    if ! head -3 "$f" | grep -q 'SPDX-License-Identifier: BSD-3-Clause'; then
        echo "spdx_test: no SPDX-License-Identifier: BSD-3-Clause in the first lines of $f"
        bad=$((bad + 1))
    fi
done
echo "spdx_test: $n source files, $bad without the SPDX line"
[ "$n" -gt 100 ] || { echo "spdx_test: FAIL: only $n source files found"; exit 1; }
[ "$bad" -eq 0 ]
