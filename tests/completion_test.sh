#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# completion_test.sh NFSSCOPE: contrib/bash-completion/nfsscope offers what
# nfsscope takes: options from --help, subcommands, values of enumerated
# options, file names for files to write. Runs the completion function with
# COMP_WORDS set as bash would.
set -u
here=$(cd "$(dirname "$0")" && pwd)
NFSSCOPE=$1
# shellcheck source=../contrib/bash-completion/nfsscope
. "$here/../contrib/bash-completion/nfsscope"
fails=0

# complete WORDS...: the candidates for the last word.
complete_words()
{
    COMP_WORDS=("$NFSSCOPE" "$@")
    COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
    COMPREPLY=()
    _nfsscope
    printf '%s\n' "${COMPREPLY[@]}" | sort
}

expect()
{
    local what=$1 want=$2 got
    shift 2
    got=$(complete_words "$@" | tr '\n' ' ')
    if [[ " $got " == *" $want "* ]]; then
        echo "ok   $what"
    else
        echo "FAIL $what: '$want' not in [$got]"
        fails=$((fails + 1))
    fi
}

refuse()
{
    local what=$1 bad=$2 got
    shift 2
    got=$(complete_words "$@" | tr '\n' ' ')
    if [[ " $got " == *" $bad "* ]]; then
        echo "FAIL $what: '$bad' offered [$got]"
        fails=$((fails + 1))
    else
        echo "ok   $what"
    fi
}

# Every long option of --help completes.
for o in $("$NFSSCOPE" --help | grep -oE -- '(^|[[:space:],])--[[:alnum:]][[:alnum:]-]*' |
    sed 's/^[[:space:],]*//' | sort -u); do
    expect "option $o" "$o" "${o:0:4}"
done
expect "subcommand diff" diff di
expect "subcommand merge" merge me
expect "--records-format value" jsonl -r x --records-format j
expect "-o value" json -r x -o j
expect "--reader value" libpcap -r x --reader li
expect "--by list item" client,file --by client,fi
expect "merge -o value" csv merge -o c
tmp=$(mktemp -d)
touch "$tmp/calls.csv" "$tmp/a.json" "$tmp/cap.pcap.zst" "$tmp/cap.txt"
expect "-r offers compressed captures" "$tmp/cap.pcap.zst" -r "$tmp/ca"
refuse "-r prefers captures" "$tmp/cap.txt" -r "$tmp/ca"
expect "--records takes a file name" "$tmp/calls.csv" -r x --records "$tmp/ca"
expect "-w takes a file name" "$tmp/calls.csv" -r x -w "$tmp/ca"
expect "merge takes report files" "$tmp/a.json" merge "$tmp/a"
expect "-F takes a file name" "$tmp/calls.csv" -r x -F "$tmp/ca"
expect "a first argument may be a capture file" "$tmp/cap.pcap.zst" "$tmp/ca"
refuse "not once -r is given" "$tmp/cap.pcap.zst" -r x "$tmp/ca"
for o in -D -F -n -q -v; do
    expect "short option $o" "$o" -
done
refuse "a number option offers nothing" "--top" --top ""
rm -rf "$tmp"
echo "$fails failed"
((fails == 0))
