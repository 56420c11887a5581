#!/usr/bin/env bash
# Fetches and unpacks the source of the installed fio (Debian's source
# package) into DIR, and prints the unpacked tree's path. The tests read
# its examples/ (tests/fio_examples.rs); the benchmarks build t/io_uring
# from it.
#
# Usage: bench/fio-source.sh DIR
#
# `apt-get source` needs a deb-src entry. This machine's apt sources name
# its mirror; the entry is derived from them at run time (deb822 files get
# `Types: deb-src`, one-line lists a `deb-src` twin), so no mirror's address
# is written here. Needs root for that entry, and dpkg-dev to unpack.
set -euo pipefail

dir=${1:?usage: bench/fio-source.sh DIR}
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)

# Already there from an earlier run.
existing=$(find "$dir" -mindepth 1 -maxdepth 1 -type d -name 'fio-*' | head -n 1)
if [ -n "$existing" ] && [ -d "$existing/examples" ]; then
    echo "$existing"
    exit 0
fi

if ! apt-get source --print-uris fio >/dev/null 2>&1; then
    added=/etc/apt/sources.list.d/ioscope-deb-src.sources
    : > "$added.tmp"
    for f in /etc/apt/sources.list.d/*.sources; do
        [ -e "$f" ] || continue
        [ "$f" = "$added" ] && continue
        # Only the entries that carry Debian's own archive (the fio package
        # comes from there), given deb-src beside deb.
        if grep -q 'debian-archive-keyring' "$f"; then
            sed 's/^Types: deb$/Types: deb-src/' "$f" >> "$added.tmp"
            echo >> "$added.tmp"
        fi
    done
    if [ -s "$added.tmp" ]; then
        mv "$added.tmp" "$added"
    else
        rm -f "$added.tmp"
        list=/etc/apt/sources.list.d/ioscope-deb-src.list
        grep -hE '^deb ' /etc/apt/sources.list 2>/dev/null | sed 's/^deb /deb-src /' > "$list"
        [ -s "$list" ] || { echo "fio-source: no apt sources to derive a deb-src entry from" >&2; exit 1; }
    fi
    apt-get update -qq
fi

cd "$dir"
# apt and dpkg-source talk as they work (and warn that root downloads
# unsandboxed): their words are shown only when nothing came of it.
log=$(apt-get source -qq fio 2>&1) || true
tree=$(find "$dir" -mindepth 1 -maxdepth 1 -type d -name 'fio-*' | head -n 1)
if [ -z "$tree" ] || [ ! -d "$tree/examples" ]; then
    echo "$log" >&2
    echo "fio-source: apt-get source fio unpacked nothing in $dir" >&2
    exit 1
fi
echo "$tree"
