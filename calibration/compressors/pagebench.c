/* pagebench: compressed length and CPU cost of zram's codecs on a dump of memory pages.
 *
 * The procedure of the design note compressors.md section 2 (its `compbench`), cut down to the
 * three codecs calibration/compressors/table.json holds: every G-byte block (G = 4K, 16K,
 * 64K, 2M) compressed independently with one reused context (zstd level 3 with the library's
 * parameters for the block size, as zram's backend_zstd; lz4 acceleration 1; liblzo2's
 * lzo1x-1 standing for lzo-rle), the outputs at a stride of the codec's bound, decompressed
 * into a separate buffer and checked byte for byte; then R timed passes of compression and R
 * of decompression, CPU time of this thread (CLOCK_THREAD_CPUTIME_ID), the median pass per
 * 4 KiB of original data. Also, at 4K: the compressed length of every page (mean, p10, p50,
 * p90) and the share of same-filled pages (zram's page_same_filled: every u64 equal to the
 * first) and of zero pages.
 *
 * usage: pagebench (FILE | --usemem BYTES) [ROUNDS]
 *   FILE: raw pages (its length is cut to whole 2 MiB blocks); --usemem: u64 word i := i, as
 *   `usemem -O` writes (compressors.md 1.1), the reference kind the table also holds.
 * Prints one JSON object. Build: cc -O2 pagebench.c -lzstd -llz4 -llzo2
 */
#define _GNU_SOURCE
#include <lz4.h>
#include <lzo/lzo1x.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zstd.h>

enum { NCODEC = 3, NBLOCK = 4 };
static const char *codec_name[NCODEC] = {"zstd", "lz4", "lzo-rle"};
static const char *block_name[NBLOCK] = {"4K", "16K", "64K", "2M"};
static const size_t block_bytes[NBLOCK] = {4096, 16384, 65536, 2097152};

static ZSTD_CCtx *cctx;
static ZSTD_DCtx *dctx;
static void *lzo_wrk;

static size_t bound(int c, size_t n)
{
    if (c == 0) return ZSTD_compressBound(n);
    if (c == 1) return (size_t)LZ4_compressBound((int)n);
    return n + n / 16 + 64 + 3;
}

static size_t comp(int c, const unsigned char *src, size_t n, unsigned char *dst, size_t cap)
{
    if (c == 0) {
        size_t r = ZSTD_compressCCtx(cctx, dst, cap, src, n, 3);
        if (ZSTD_isError(r)) { fprintf(stderr, "zstd: %s\n", ZSTD_getErrorName(r)); exit(1); }
        return r;
    }
    if (c == 1) {
        int r = LZ4_compress_default((const char *)src, (char *)dst, (int)n, (int)cap);
        if (r <= 0) { fprintf(stderr, "lz4 failed\n"); exit(1); }
        return (size_t)r;
    }
    lzo_uint out = cap;
    if (lzo1x_1_compress(src, n, dst, &out, lzo_wrk) != LZO_E_OK) { fprintf(stderr, "lzo failed\n"); exit(1); }
    return out;
}

static void decomp(int c, const unsigned char *src, size_t n, unsigned char *dst, size_t orig)
{
    size_t got;
    if (c == 0) {
        got = ZSTD_decompressDCtx(dctx, dst, orig, src, n);
        if (ZSTD_isError(got)) got = 0;
    } else if (c == 1) {
        int r = LZ4_decompress_safe((const char *)src, (char *)dst, (int)n, (int)orig);
        got = r < 0 ? 0 : (size_t)r;
    } else {
        lzo_uint out = orig;
        got = lzo1x_decompress_safe(src, n, dst, &out, NULL) == LZO_E_OK ? out : 0;
    }
    if (got != orig) { fprintf(stderr, "%s: decompressed %zu of %zu bytes\n", codec_name[c], got, orig); exit(1); }
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static int cmp_z(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    if (argc < 2) { fprintf(stderr, "usage: pagebench (FILE | --usemem BYTES) [ROUNDS]\n"); return 2; }
    size_t n;
    unsigned char *buf;
    int arg = 1;
    if (!strcmp(argv[1], "--usemem")) {
        n = strtoull(argv[2], NULL, 0);
        arg = 3;
        buf = aligned_alloc(4096, n);
        for (size_t i = 0; i < n / 8; i++) ((uint64_t *)buf)[i] = i;
    } else {
        FILE *f = fopen(argv[1], "rb");
        if (!f) { perror(argv[1]); return 2; }
        fseek(f, 0, SEEK_END);
        n = (size_t)ftell(f);
        fseek(f, 0, SEEK_SET);
        arg = 2;
        buf = aligned_alloc(4096, n + 4096);
        if (fread(buf, 1, n, f) != n) { perror("read"); return 2; }
        fclose(f);
    }
    n -= n % block_bytes[NBLOCK - 1];
    if (n == 0) { fprintf(stderr, "pagebench: less than one 2 MiB block\n"); return 2; }
    int rounds = argc > arg ? atoi(argv[arg]) : 5;
    const size_t pages = n / 4096;

    cctx = ZSTD_createCCtx();
    dctx = ZSTD_createDCtx();
    lzo_wrk = malloc(LZO1X_1_MEM_COMPRESS);
    if (lzo_init() != LZO_E_OK) return 1;

    size_t same = 0, zero = 0;
    for (size_t p = 0; p < pages; p++) {
        const uint64_t *w = (const uint64_t *)(buf + p * 4096);
        size_t i = 1;
        while (i < 512 && w[i] == w[0]) i++;
        if (i == 512) { same++; zero += w[0] == 0; }
    }
    unsigned char *dst = aligned_alloc(4096, n);
    size_t *len = malloc(pages * sizeof *len);
    double *pass = malloc(rounds * sizeof *pass);
    printf("{\"bytes\": %zu, \"pages\": %zu, \"same_filled_pages\": %zu, \"zero_pages\": %zu, \"rounds\": %d,\n \"codecs\": {",
           n, pages, same, zero, rounds);
    for (int c = 0; c < NCODEC; c++) {
        printf("%s\n  \"%s\": {", c ? "," : "", codec_name[c]);
        for (int b = 0; b < NBLOCK; b++) {
            const size_t g = block_bytes[b], nb = n / g, cap = bound(c, g);
            unsigned char *out = malloc(nb * cap);
            size_t *olen = malloc(nb * sizeof *olen), total = 0;
            for (size_t i = 0; i < nb; i++) {
                olen[i] = comp(c, buf + i * g, g, out + i * cap, cap);
                total += olen[i];
                decomp(c, out + i * cap, olen[i], dst + i * g, g);
            }
            if (memcmp(dst, buf, n)) { fprintf(stderr, "%s %s: round trip differs\n", codec_name[c], block_name[b]); return 1; }
            double cmed, dmed;
            for (int r = 0; r < rounds; r++) {
                double t = now();
                for (size_t i = 0; i < nb; i++) comp(c, buf + i * g, g, out + i * cap, cap);
                pass[r] = now() - t;
            }
            qsort(pass, rounds, sizeof *pass, cmp_d);
            cmed = pass[rounds / 2];
            for (int r = 0; r < rounds; r++) {
                double t = now();
                for (size_t i = 0; i < nb; i++) decomp(c, out + i * cap, olen[i], dst + i * g, g);
                pass[r] = now() - t;
            }
            qsort(pass, rounds, sizeof *pass, cmp_d);
            dmed = pass[rounds / 2];
            printf("%s\n   \"%s\": {\"block_bytes\": %zu, \"ratio\": %.5f, \"comp_ns_per_4k\": %.0f, \"decomp_ns_per_4k\": %.0f",
                   b ? "," : "", block_name[b], g, (double)total / (double)n, cmed * 1e9 / pages, dmed * 1e9 / pages);
            if (b == 0) {
                memcpy(len, olen, pages * sizeof *len);
                qsort(len, pages, sizeof *len, cmp_z);
                printf(", \"len_mean\": %.1f, \"len_p10\": %zu, \"len_p50\": %zu, \"len_p90\": %zu",
                       (double)total / pages, len[pages / 10], len[pages / 2], len[pages * 9 / 10]);
            }
            printf("}");
            free(out);
            free(olen);
        }
        printf("}");
    }
    printf("}}\n");
    return 0;
}
