#!/usr/bin/env bash
# Measures the toolchain's file pages a kernel-build job maps (the shared, file-backed part of its
# peak RSS) and the page cache the toolchain occupies after a sample of compile units: writes
# calibration/workloads/kbuild-text-6.1.json through tools/text_rss_summary.py.
# How: tools/text_rss.c, LD_PRELOADed into every process of `make`, logs at each cc1's and as's
# exit its VmHWM, RssAnon, RssFile and each file mapping's smaps Rss. Before the build the
# toolchain's files are dropped from the page cache (posix_fadvise DONTNEED: clean, unmapped pages
# only, no root needed); after it, fincore counts their pages in the page cache (read-around
# included): the union over the sample's jobs.
# Needs: a prepared tree as tools/measure_kbuild.sh leaves it (WORK_DIR/linux-source-6.1), util-linux
# fincore. Usage: tools/measure_text_rss.sh [WORK_DIR] [DIRS...]   (default /tmp/kb, "mm/ lib/"; a few
# CPU-minutes at -j1)
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
work=${1:-/tmp/kb}
shift || true
dirs=${*:-mm/ lib/}
gcc -O2 -shared -fPIC -o "$work/text_rss.so" "$repo/tools/text_rss.c"
cc1=$(gcc -print-prog-name=cc1)
as=$(command -v x86_64-linux-gnu-as || command -v as)
files="$cc1 $(readlink -f "$as") $(ldd "$cc1" "$as" | awk '$3 ~ /^\// {print $3}' | sort -u | xargs -n1 readlink -f | sort -u | tr '\n' ' ')"
evict() { python3 -c 'import os,sys
for p in sys.argv[1:]:
    fd = os.open(p, os.O_RDONLY); os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED); os.close(fd)' $files; }
cd "$work/linux-source-6.1"
# shellcheck disable=SC2086
find $dirs -name '*.o' -delete
rm -f "$work/text_rss.log"
evict
fincore -b -n -o RES,SIZE,FILE $files > "$work/fincore.before"
# shellcheck disable=SC2086
TEXT_RSS_LOG="$work/text_rss.log" LD_PRELOAD="$work/text_rss.so" make -j1 $dirs > "$work/text_build.log" 2>&1
fincore -b -n -o RES,SIZE,FILE $files > "$work/fincore.after"
/usr/bin/python3 "$repo/tools/text_rss_summary.py" "$work/text_rss.log" "$work/fincore.before" "$work/fincore.after" \
  --dirs "$dirs" --cc1 "$cc1" --gcc "$(gcc --version | head -1)" > "$repo/calibration/workloads/kbuild-text-6.1.json"
echo "wrote calibration/workloads/kbuild-text-6.1.json"
