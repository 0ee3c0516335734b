// tools/swapinout_bench.c: seed 003's swap-out / swap-in loop on a real machine (cc -O2 -o swapinout_bench
// swapinout_bench.c; ./swapinout_bench MIB ROUNDS). Swap (zram) and the mTHP sizes must be set up.
// Per round: mmap SIZE MiB, write usemem's pattern (u64 word i = i), MADV_PAGEOUT (timed), read
// every page (timed), munmap; as swapsim's swapinout workload and seed 003's benchmark.
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec * 1e-9; }
int main(int argc, char **argv)
{
    size_t size = strtoull(argv[1], 0, 0) << 20; int rounds = atoi(argv[2]);
    double out = 0, in = 0; volatile uint64_t s = 0;
    for (int r = 0; r < rounds; r++) {
        uint64_t *p = mmap(0, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        for (size_t i = 0; i < size / 8; i++) p[i] = i;
        double t0 = now();
        if (madvise(p, size, MADV_PAGEOUT)) { perror("madvise"); return 1; }
        double t1 = now();
        for (size_t i = 0; i < size / 8; i += 512) s += p[i];
        double t2 = now();
        out += t1 - t0; in += t2 - t1;
        munmap(p, size);
    }
    printf("swap-out %.1f ms, swap-in %.1f ms over %d rounds\n", out * 1e3, in * 1e3, rounds);
    return 0;
}
