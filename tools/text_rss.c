// LD_PRELOAD probe for tools/measure_text_rss.sh: when a cc1 or as process exits, append one
// line to $TEXT_RSS_LOG with its peak RSS (VmHWM), its anon and file RSS at exit (RssAnon,
// RssFile of /proc/self/status) and, per file mapping, the pages resident in it (smaps Rss),
// e.g. "cc1 hwm=74512 anon=52000 file=21000 /usr/lib/gcc/x86_64-linux-gnu/12/cc1:r-xp=19000 ..."
// (kB). A mapping's Rss counts the pages this process has mapped: the ones it executed or read
// and their fault-around neighbours (filemap_map_pages, 16 pages), all from the page cache.
// Build: gcc -O2 -shared -fPIC -o text_rss.so tools/text_rss.c
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static long status_kb(const char* key)
{
    FILE* f = fopen("/proc/self/status", "r");
    char line[256];
    long v = -1;
    size_t n = strlen(key);
    if (!f)
        return -1;
    while (fgets(line, sizeof line, f))
        if (!strncmp(line, key, n) && line[n] == ':') {
            v = atol(line + n + 1);
            break;
        }
    fclose(f);
    return v;
}

__attribute__((destructor)) static void text_rss_report(void)
{
    const char* log = getenv("TEXT_RSS_LOG");
    char exe[512];
    ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (!log || len <= 0)
        return;
    exe[len] = 0;
    const char* base = strrchr(exe, '/') ? strrchr(exe, '/') + 1 : exe;
    if (strcmp(base, "cc1") && strcmp(base, "as") && strcmp(base, "x86_64-linux-gnu-as"))
        return;
    char out[8192];
    int o = snprintf(out, sizeof out, "%s hwm=%ld anon=%ld file=%ld", base, status_kb("VmHWM"), status_kb("RssAnon"),
                     status_kb("RssFile"));
    FILE* s = fopen("/proc/self/smaps", "r");
    char line[1024], path[512] = "", perms[8] = "";
    while (s && fgets(line, sizeof line, s)) {
        char p[8], name[512] = "";
        unsigned long lo, hi;
        if (sscanf(line, "%lx-%lx %7s %*s %*s %*s %511s", &lo, &hi, p, name) >= 3) {   // a mapping's header
            strcpy(perms, p);
            strcpy(path, name);
            continue;
        }
        long kb;
        if (path[0] == '/' && sscanf(line, "Rss: %ld kB", &kb) == 1 && kb > 0 && o < (int)sizeof out - 600)
            o += snprintf(out + o, sizeof out - o, " %s:%s=%ld", path, perms, kb);
    }
    if (s)
        fclose(s);
    FILE* f = fopen(log, "a");
    if (f) {
        fprintf(f, "%s\n", out);
        fclose(f);
    }
}
