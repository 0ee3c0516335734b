/*
 * Compressed size of usemem's pages (each 8-byte word holds its index) with the settings the
 * kernel uses, to back the cost.compress.*.usemem_len defaults.
 *
 *   apt-get install -y libzstd-dev zlib1g-dev liblz4-dev
 *   cc -O2 -o /tmp/usemem_ratios tools/usemem_ratios.c -lzstd -lz -llz4 && /tmp/usemem_ratios
 *
 * zstd: level 3 with the parameters crypto/zstd.c picked in 2024 (zstd_get_params(3, 0): source
 * size unknown) and for 4 KiB and 256 KiB hints. deflate with fixed Huffman codes and a 4 KiB
 * window stands for IAA's fixed mode (deflate-iaa). Pages are taken across the first GiB.
 */
#define ZSTD_STATIC_LINKING_ONLY
#include <lz4.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>

static size_t zstd_len(ZSTD_CCtx *cctx, const void *src, unsigned long long hint)
{
	static char dst[8192];
	ZSTD_parameters p = ZSTD_getParams(3, hint, 0);
	ZSTD_CCtx_reset(cctx, ZSTD_reset_session_and_parameters);
	ZSTD_CCtx_setParameter(cctx, ZSTD_c_windowLog, (int)p.cParams.windowLog);
	ZSTD_CCtx_setParameter(cctx, ZSTD_c_chainLog, (int)p.cParams.chainLog);
	ZSTD_CCtx_setParameter(cctx, ZSTD_c_hashLog, (int)p.cParams.hashLog);
	ZSTD_CCtx_setParameter(cctx, ZSTD_c_searchLog, (int)p.cParams.searchLog);
	ZSTD_CCtx_setParameter(cctx, ZSTD_c_minMatch, (int)p.cParams.minMatch);
	ZSTD_CCtx_setParameter(cctx, ZSTD_c_targetLength, (int)p.cParams.targetLength);
	ZSTD_CCtx_setParameter(cctx, ZSTD_c_strategy, (int)p.cParams.strategy);
	return ZSTD_compress2(cctx, dst, sizeof(dst), src, 4096);
}

static size_t deflate_len(const void *src, int strategy)
{
	static unsigned char dst[8192];
	z_stream s;
	memset(&s, 0, sizeof(s));
	deflateInit2(&s, 6, Z_DEFLATED, -12, 8, strategy);
	s.next_in = (unsigned char *)src;
	s.avail_in = 4096;
	s.next_out = dst;
	s.avail_out = sizeof(dst);
	deflate(&s, Z_FINISH);
	size_t n = s.total_out;
	deflateEnd(&s);
	return n;
}

int main(void)
{
	const size_t words = 1ul << 27; /* 1 GiB */
	uint64_t *m = malloc(words * 8);
	static char lz[8192];
	ZSTD_CCtx *cctx = ZSTD_createCCtx();
	double sum[6] = {0};
	size_t n = 0;

	if (!m)
		return 1;
	for (size_t i = 0; i < words; i++)
		m[i] = i;
	for (size_t page = 0; page < words / 512; page += 997, n++) {
		const void *p = m + page * 512;
		sum[0] += zstd_len(cctx, p, 0);
		sum[1] += zstd_len(cctx, p, 4096);
		sum[2] += zstd_len(cctx, p, 256 * 1024);
		sum[3] += deflate_len(p, Z_FIXED);
		sum[4] += deflate_len(p, Z_DEFAULT_STRATEGY);
		sum[5] += LZ4_compress_default(p, lz, 4096, sizeof(lz));
	}
	printf("pages sampled: %zu\n", n);
	printf("zstd-3, size unknown (kernel 2024): %.1f B\n", sum[0] / n);
	printf("zstd-3, 4 KiB hint:                 %.1f B\n", sum[1] / n);
	printf("zstd-3, 256 KiB hint:               %.1f B\n", sum[2] / n);
	printf("deflate fixed Huffman, 4 KiB window: %.1f B\n", sum[3] / n);
	printf("deflate dynamic, 4 KiB window:       %.1f B\n", sum[4] / n);
	printf("lz4:                                 %.1f B\n", sum[5] / n);
	return 0;
}
