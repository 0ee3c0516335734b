#!/usr/bin/env bash
# The source tree's page-cache footprint on tmpfs: each regular file of the Debian
# linux-source tarball rounded up to whole 4 KiB pages (shmem holds a file in pages), with
# the byte total and the file count for reference. Writes
# calibration/workloads/kbuild-tree-<ver>.json.
# Needs: apt-get install linux-source-6.1.   Usage: tools/measure_tree_pages.sh   (~30 s)
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
ver=6.1
tar tvJf "/usr/src/linux-source-$ver.tar.xz" | awk -v ver="$ver" '
  $1 !~ /^[dlh]/ { files++; bytes += $3; pages += int(($3 + 4095) / 4096) }
  $1 ~ /^d/ { dirs++ }
  END {
    printf "{\n  \"made_by\": \"tools/measure_tree_pages.sh\",\n"
    printf "  \"tree\": \"Debian linux-source-%s (regular files of the tarball)\",\n", ver
    printf "  \"files\": %d,\n  \"directories\": %d,\n  \"bytes\": %d,\n  \"pages\": %d,\n", files, dirs, bytes, pages
    printf "  \"note\": \"pages: each file rounded up to 4 KiB, what a copy of the tree into tmpfs holds in shmem pages\"\n}\n"
  }' > "$repo/calibration/workloads/kbuild-tree-$ver.json"
cat "$repo/calibration/workloads/kbuild-tree-$ver.json"
