#include "darkroom_kernels.h"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

/*
 * Sepia on JPEG YCbCr planes, for the JPEG -> JPEG fast path: the decoder hands out its
 * planes (no upsampling, no colour conversion) and the encoder takes 4:2:0 planes (no
 * colour conversion, no downsampling); this kernel stands in for all four steps.
 *
 * Per pixel it takes the exact path's steps: YCbCr -> RGB (jdcolor.c's formula, clamped to
 * 0...255), the sepia matrix (rounded, clamped), RGB -> Y (jccolor.c). The clamps are why
 * this is not one affine map on YCbCr: bright or saturated pixels leave the RGB cube (at
 * intensity 0.8 a grey above 199 clamps in R'). Cb and Cr are linear in RGB, so the 2x2
 * average that libjpeg's box downsampler takes is computed once per cell from the summed
 * RGB (rounded once, where libjpeg rounds per pixel and again in the box).
 *
 * Upsampling: 4:2:2 and 4:2:0 chroma are interpolated exactly as libjpeg's default decoder
 * does ("fancy" h2v1 and h2v2, triangle filters; h2v2 uses the chroma rows just outside the
 * band, which the decoder provides by reading one band ahead). 4:4:0, which the decoder
 * does not hand out, would have its chroma repeated.
 */

#include "kernel_clones.h"

/* Luma columns per chunk: the per-pixel chroma and filtered RGB of a chunk live on the stack. */
#define DR_CHUNK 256

/*
 * 16-bit integers, 16 to a vector, with the rounding high multiply (x86 pmulhrsw):
 * dr_mulhrs(a, b) = (a * b + 2^14) >> 15. Each product keeps 6 fractional bits (values are
 * shifted up by 7 before a multiply by a Q14 coefficient), so a sum of three rounds once
 * at the end. The chroma terms and coefficients are libjpeg's to about 1e-4; the fast path
 * is a level away from the exact path's arithmetic on a few per cent of samples, which
 * the PSNR figures include.
 */
typedef struct {
    int16_t s[9];              /* sepia matrix, Q14 */
    int16_t cb[3], cr[3];      /* RGB -> Cb, Cr weights, Q11 */
} dr_ycc_constants;

static inline int16_t dr_mulhrs(int16_t a, int16_t b) { return (int16_t)(((int32_t)a * b + 16384) >> 15); }
static inline int16_t dr_min255(int16_t v) { return v > 255 ? 255 : v; }
static inline int16_t dr_clamp255(int16_t v) { return v < 0 ? 0 : (v > 255 ? 255 : v); }

/*
 * One luma row of a chunk: YCbCr (chroma already one sample per pixel) -> RGB as jdcolor.c,
 * clamped; sepia, rounded, clamped; Y' as jccolor.c. Keeps R', G', B' for the chroma.
 */
static void dr_ycc_row(const uint8_t *restrict y, const uint8_t *restrict cb, const uint8_t *restrict cr,
                                 uint32_t n, const dr_ycc_constants *restrict k, uint8_t *restrict out_y,
                                 int16_t *restrict out_r, int16_t *restrict out_g, int16_t *restrict out_b) {
    const int16_t s0 = k->s[0], s1 = k->s[1], s2 = k->s[2], s3 = k->s[3], s4 = k->s[4], s5 = k->s[5];
    const int16_t s6 = k->s[6], s7 = k->s[7], s8 = k->s[8];
    for (uint32_t i = 0; i < n; i++) {
        int16_t b = (int16_t)(((int16_t)cb[i] - 128) * 16), q = (int16_t)(((int16_t)cr[i] - 128) * 16);
        int16_t l = y[i];
        /* 1.402, 0.34414, 0.71414, 1.772 in Q11 (the chroma was shifted up by 4). */
        int16_t r = dr_clamp255((int16_t)(l + dr_mulhrs(q, 2871)));
        int16_t g = dr_clamp255((int16_t)(l + dr_mulhrs(b, -705) + dr_mulhrs(q, -1463)));
        int16_t bl = dr_clamp255((int16_t)(l + dr_mulhrs(b, 3629)));
        int16_t r7 = (int16_t)(r * 128), g7 = (int16_t)(g * 128), b7 = (int16_t)(bl * 128);
        int16_t nr = dr_min255((int16_t)((dr_mulhrs(r7, s0) + dr_mulhrs(g7, s1) + dr_mulhrs(b7, s2) + 32) >> 6));
        int16_t ng = dr_min255((int16_t)((dr_mulhrs(r7, s3) + dr_mulhrs(g7, s4) + dr_mulhrs(b7, s5) + 32) >> 6));
        int16_t nb = dr_min255((int16_t)((dr_mulhrs(r7, s6) + dr_mulhrs(g7, s7) + dr_mulhrs(b7, s8) + 32) >> 6));
        /* 0.299, 0.587, 0.114 in Q14. */
        out_y[i] = (uint8_t)((dr_mulhrs((int16_t)(nr * 128), 4899) + dr_mulhrs((int16_t)(ng * 128), 9617) +
                              dr_mulhrs((int16_t)(nb * 128), 1868) + 32) >> 6);
        out_r[i] = nr;
        out_g[i] = ng;
        out_b[i] = nb;
    }
}

/* The 2x2 cells of two rows of R', G', B' -> one row of Cb', Cr' (the box average, rounded once). */
static void dr_ycc_cells(const int16_t *restrict r0, const int16_t *restrict g0, const int16_t *restrict b0,
                                   const int16_t *restrict r1, const int16_t *restrict g1, const int16_t *restrict b1,
                                   uint32_t cells, const dr_ycc_constants *restrict k, uint8_t *restrict out_cb,
                                   uint8_t *restrict out_cr) {
    const int16_t u0 = k->cb[0], u1 = k->cb[1], u2 = k->cb[2], v0 = k->cr[0], v1 = k->cr[1], v2 = k->cr[2];
    for (uint32_t j = 0; j < cells; j++) {
        /* Sums of four (at most 1020), shifted up by 5: products carry 3 fractional bits. */
        int16_t sr = (int16_t)((r0[2 * j] + r0[2 * j + 1] + r1[2 * j] + r1[2 * j + 1]) * 32);
        int16_t sg = (int16_t)((g0[2 * j] + g0[2 * j + 1] + g1[2 * j] + g1[2 * j + 1]) * 32);
        int16_t sb = (int16_t)((b0[2 * j] + b0[2 * j + 1] + b1[2 * j] + b1[2 * j + 1]) * 32);
        out_cb[j] = (uint8_t)(((dr_mulhrs(sr, u0) + dr_mulhrs(sg, u1) + dr_mulhrs(sb, u2) + 4) >> 3) + 128);
        out_cr[j] = (uint8_t)(((dr_mulhrs(sr, v0) + dr_mulhrs(sg, v1) + dr_mulhrs(sb, v2) + 4) >> 3) + 128);
    }
}

#if defined(__x86_64__)
/*
 * The same two functions, written with AVX2 intrinsics because compilers widen the 16-bit
 * products above to 32 bits instead of using pmulhrsw. Bit for bit the same results.
 * n and cells are multiples of 16 (the band width is a multiple of 16).
 */
#define DR_SET(x) _mm256_set1_epi16((int16_t)(x))
#define DR_LOAD16(p) _mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)(p)))

__attribute__((target("avx2"))) static inline __m256i dr_clamp255_avx2(__m256i v) {
    return _mm256_min_epi16(_mm256_max_epi16(v, _mm256_setzero_si256()), DR_SET(255));
}

__attribute__((target("avx2"))) static inline __m256i dr_dot3_avx2(__m256i r7, __m256i g7, __m256i b7, int16_t a,
                                                                   int16_t b, int16_t c) {
    __m256i sum = _mm256_add_epi16(_mm256_mulhrs_epi16(r7, DR_SET(a)), _mm256_mulhrs_epi16(g7, DR_SET(b)));
    sum = _mm256_add_epi16(sum, _mm256_mulhrs_epi16(b7, DR_SET(c)));
    return _mm256_srli_epi16(_mm256_add_epi16(sum, DR_SET(32)), 6);
}

__attribute__((target("avx2"))) static void dr_ycc_row_avx2(const uint8_t *restrict y, const uint8_t *restrict cb,
                                                            const uint8_t *restrict cr, uint32_t n,
                                                            const dr_ycc_constants *restrict k, uint8_t *restrict out_y,
                                                            int16_t *restrict out_r, int16_t *restrict out_g,
                                                            int16_t *restrict out_b) {
    const __m256i c128 = DR_SET(128), max = DR_SET(255);
    for (uint32_t i = 0; i < n; i += 16) {
        __m256i l = DR_LOAD16(y + i);
        __m256i b = _mm256_slli_epi16(_mm256_sub_epi16(DR_LOAD16(cb + i), c128), 4);
        __m256i q = _mm256_slli_epi16(_mm256_sub_epi16(DR_LOAD16(cr + i), c128), 4);
        __m256i r = dr_clamp255_avx2(_mm256_add_epi16(l, _mm256_mulhrs_epi16(q, DR_SET(2871))));
        __m256i g = dr_clamp255_avx2(_mm256_add_epi16(
            l, _mm256_add_epi16(_mm256_mulhrs_epi16(b, DR_SET(-705)), _mm256_mulhrs_epi16(q, DR_SET(-1463)))));
        __m256i bl = dr_clamp255_avx2(_mm256_add_epi16(l, _mm256_mulhrs_epi16(b, DR_SET(3629))));
        __m256i r7 = _mm256_slli_epi16(r, 7), g7 = _mm256_slli_epi16(g, 7), b7 = _mm256_slli_epi16(bl, 7);
        __m256i nr = _mm256_min_epi16(dr_dot3_avx2(r7, g7, b7, k->s[0], k->s[1], k->s[2]), max);
        __m256i ng = _mm256_min_epi16(dr_dot3_avx2(r7, g7, b7, k->s[3], k->s[4], k->s[5]), max);
        __m256i nb = _mm256_min_epi16(dr_dot3_avx2(r7, g7, b7, k->s[6], k->s[7], k->s[8]), max);
        __m256i yo = dr_dot3_avx2(_mm256_slli_epi16(nr, 7), _mm256_slli_epi16(ng, 7), _mm256_slli_epi16(nb, 7), 4899,
                                  9617, 1868);
        __m256i packed = _mm256_permute4x64_epi64(_mm256_packus_epi16(yo, yo), 0xD8);
        _mm_storeu_si128((__m128i *)(out_y + i), _mm256_castsi256_si128(packed));
        _mm256_storeu_si256((__m256i *)(out_r + i), nr);
        _mm256_storeu_si256((__m256i *)(out_g + i), ng);
        _mm256_storeu_si256((__m256i *)(out_b + i), nb);
    }
}

/* Sums of the horizontal pairs of 32 values of each of two rows: 16 sums of four, in order. */
__attribute__((target("avx2"))) static inline __m256i dr_cell_sums_avx2(const int16_t *row0, const int16_t *row1) {
    __m256i a = _mm256_hadd_epi16(_mm256_loadu_si256((const __m256i *)row0),
                                  _mm256_loadu_si256((const __m256i *)(row0 + 16)));
    __m256i b = _mm256_hadd_epi16(_mm256_loadu_si256((const __m256i *)row1),
                                  _mm256_loadu_si256((const __m256i *)(row1 + 16)));
    return _mm256_permute4x64_epi64(_mm256_add_epi16(a, b), 0xD8);
}

__attribute__((target("avx2"))) static void dr_ycc_cells_avx2(const int16_t *restrict r0, const int16_t *restrict g0,
                                                              const int16_t *restrict b0, const int16_t *restrict r1,
                                                              const int16_t *restrict g1, const int16_t *restrict b1,
                                                              uint32_t cells, const dr_ycc_constants *restrict k,
                                                              uint8_t *restrict out_cb, uint8_t *restrict out_cr) {
    for (uint32_t j = 0; j < cells; j += 16) {
        __m256i sr = _mm256_slli_epi16(dr_cell_sums_avx2(r0 + 2 * j, r1 + 2 * j), 5);
        __m256i sg = _mm256_slli_epi16(dr_cell_sums_avx2(g0 + 2 * j, g1 + 2 * j), 5);
        __m256i sb = _mm256_slli_epi16(dr_cell_sums_avx2(b0 + 2 * j, b1 + 2 * j), 5);
        __m256i ucb = _mm256_add_epi16(_mm256_mulhrs_epi16(sr, DR_SET(k->cb[0])), _mm256_mulhrs_epi16(sg, DR_SET(k->cb[1])));
        ucb = _mm256_add_epi16(ucb, _mm256_mulhrs_epi16(sb, DR_SET(k->cb[2])));
        __m256i ucr = _mm256_add_epi16(_mm256_mulhrs_epi16(sr, DR_SET(k->cr[0])), _mm256_mulhrs_epi16(sg, DR_SET(k->cr[1])));
        ucr = _mm256_add_epi16(ucr, _mm256_mulhrs_epi16(sb, DR_SET(k->cr[2])));
        ucb = _mm256_add_epi16(_mm256_srai_epi16(_mm256_add_epi16(ucb, DR_SET(4)), 3), DR_SET(128));
        ucr = _mm256_add_epi16(_mm256_srai_epi16(_mm256_add_epi16(ucr, DR_SET(4)), 3), DR_SET(128));
        __m256i pcb = _mm256_permute4x64_epi64(_mm256_packus_epi16(ucb, ucb), 0xD8);
        __m256i pcr = _mm256_permute4x64_epi64(_mm256_packus_epi16(ucr, ucr), 0xD8);
        _mm_storeu_si128((__m128i *)(out_cb + j), _mm256_castsi256_si128(pcb));
        _mm_storeu_si128((__m128i *)(out_cr + j), _mm256_castsi256_si128(pcr));
    }
}
#endif

/* AVX2 when the CPU has it, else the portable loops. (__builtin_cpu_supports reads a table
 * filled at load time: cheap per band, and no cache of our own for threads to race on.) */
static int dr_use_avx2(void) {
#if defined(__x86_64__)
    return __builtin_cpu_supports("avx2") ? 1 : 0;
#else
    return 0;
#endif
}

/* libjpeg's h2v1_fancy_upsample (jdsample.c) for `count` samples from `first`; `limit`
 * samples of the row are valid (the edges beyond the image were repeated by the caller).
 * The two edge samples are done apart so that the loop has no branch and vectorises. */
DR_CLONES static void dr_h2v1_fancy(const uint8_t *restrict in, uint32_t first, uint32_t count, uint32_t limit,
                                    uint8_t *restrict out) {
    uint32_t lo = first == 0 ? 1 : 0, hi = first + count == limit ? count - 1 : count;
    if (lo > hi) lo = hi;
    for (uint32_t i = lo; i < hi; i++) {
        int32_t here = 3 * (int32_t)in[first + i];
        out[2 * i] = (uint8_t)((here + in[first + i - 1] + 1) >> 2);
        out[2 * i + 1] = (uint8_t)((here + in[first + i + 1] + 2) >> 2);
    }
    if (first == 0 && count > 0) {
        int32_t here = 3 * (int32_t)in[0];
        out[0] = in[0];
        out[1] = (uint8_t)((here + in[limit > 1 ? 1 : 0] + 2) >> 2);
    }
    if (first + count == limit && count > 0 && limit > 1) {
        uint32_t i = count - 1, c = first + i;
        int32_t here = 3 * (int32_t)in[c];
        out[2 * i] = (uint8_t)((here + in[c - 1] + 1) >> 2);
        out[2 * i + 1] = in[c];
    }
}

/* libjpeg's h2v2_fancy_upsample (jdsample.c) for one output row: `near` is the chroma row
 * the pixels lie in, `far` the row above (upper pixel row) or below (lower). Edges as in
 * dr_h2v1_fancy. count <= DR_CHUNK / 2. */
DR_CLONES static void dr_h2v2_fancy(const uint8_t *restrict near, const uint8_t *restrict far, uint32_t first,
                                    uint32_t count, uint32_t limit, uint8_t *restrict out) {
    /* Column sums 3 * near + far for samples first - 1 ... first + count (edges repeated). */
    int16_t sums[DR_CHUNK / 2 + 2];
    uint32_t from = first > 0 ? first - 1 : 0, to = first + count < limit ? first + count + 1 : limit;
    for (uint32_t c = from; c < to; c++) sums[c - first + 1] = (int16_t)(3 * near[c] + far[c]);
    if (first == 0) sums[0] = sums[1];
    if (first + count == limit) sums[count + 1] = sums[count];
    for (uint32_t i = 0; i < count; i++) {
        int32_t here = 3 * sums[i + 1];
        out[2 * i] = (uint8_t)((here + sums[i] + 8) >> 4);
        out[2 * i + 1] = (uint8_t)((here + sums[i + 2] + 7) >> 4);
    }
}

int dr_sepia_ycc_to_420(const dr_ycc_planes *in, const dr_ycc_planes *out, uint32_t width, uint32_t rows,
                        const int32_t matrix[9]) {
    uint32_t sx = in->chroma_h_sub, sy = in->chroma_v_sub;
    if ((sx != 1 && sx != 2) || (sy != 1 && sy != 2) || out->chroma_h_sub != 2 || out->chroma_v_sub != 2 ||
        width % 2 != 0 || rows % 2 != 0) {
        return -1;
    }
    dr_ycc_constants k;
    for (int i = 0; i < 9; i++) {
        k.s[i] = (int16_t)(((int64_t)matrix[i] + (1 << (DR_SEPIA_SHIFT - 15))) >> (DR_SEPIA_SHIFT - 14));
    }
    /* jccolor.c's Cb and Cr weights. */
    const double cb[3] = {-0.16874, -0.33126, 0.5}, cr[3] = {0.5, -0.41869, -0.08131};
    for (int i = 0; i < 3; i++) {
        k.cb[i] = (int16_t)(cb[i] * 2048.0 + (cb[i] < 0 ? -0.5 : 0.5));
        k.cr[i] = (int16_t)(cr[i] * 2048.0 + (cr[i] < 0 ? -0.5 : 0.5));
    }
    uint32_t cw = width / sx; /* input chroma samples per row */
    int avx2 = dr_use_avx2();
    uint8_t ucb[2][DR_CHUNK], ucr[2][DR_CHUNK];
    int16_t fr[2][DR_CHUNK], fg[2][DR_CHUNK], fb[2][DR_CHUNK];
    for (uint32_t i = 0; i < rows / 2; i++) {
        const uint8_t *yrow[2], *cbrow[2], *crrow[2], *cbfar[2] = {0, 0}, *crfar[2] = {0, 0};
        for (int h = 0; h < 2; h++) {
            uint32_t r = 2 * i + (uint32_t)h;
            yrow[h] = in->y + (size_t)r * in->y_stride;
            cbrow[h] = in->cb + (size_t)(r / sy) * in->c_stride;
            crrow[h] = in->cr + (size_t)(r / sy) * in->c_stride;
        }
        if (sy == 2) {
            /* The upper pixel row leans on the chroma row above, the lower on the one below. */
            cbfar[0] = i > 0 ? cbrow[0] - in->c_stride : in->cb_above;
            crfar[0] = i > 0 ? crrow[0] - in->c_stride : in->cr_above;
            cbfar[1] = i + 1 < rows / 2 ? cbrow[0] + in->c_stride : in->cb_below;
            crfar[1] = i + 1 < rows / 2 ? crrow[0] + in->c_stride : in->cr_below;
        }
        uint8_t *oy0 = out->y + (size_t)(2 * i) * out->y_stride, *oy1 = oy0 + out->y_stride;
        uint8_t *ocb = out->cb + (size_t)i * out->c_stride, *ocr = out->cr + (size_t)i * out->c_stride;
        for (uint32_t x = 0; x < width; x += DR_CHUNK) {
            uint32_t n = width - x < DR_CHUNK ? width - x : DR_CHUNK;
            const uint8_t *pcb[2], *pcr[2];
            for (int h = 0; h < 2; h++) {
                if (sx == 1) {
                    pcb[h] = cbrow[h] + x;
                    pcr[h] = crrow[h] + x;
                } else {
                    if (sy == 1) {
                        dr_h2v1_fancy(cbrow[h], x / 2, n / 2, cw, ucb[h]);
                        dr_h2v1_fancy(crrow[h], x / 2, n / 2, cw, ucr[h]);
                    } else {
                        dr_h2v2_fancy(cbrow[h], cbfar[h], x / 2, n / 2, cw, ucb[h]);
                        dr_h2v2_fancy(crrow[h], crfar[h], x / 2, n / 2, cw, ucr[h]);
                    }
                    pcb[h] = ucb[h];
                    pcr[h] = ucr[h];
                }
            }
#if defined(__x86_64__)
            if (avx2 && n % 32 == 0) {
                dr_ycc_row_avx2(yrow[0] + x, pcb[0], pcr[0], n, &k, oy0 + x, fr[0], fg[0], fb[0]);
                dr_ycc_row_avx2(yrow[1] + x, pcb[1], pcr[1], n, &k, oy1 + x, fr[1], fg[1], fb[1]);
                dr_ycc_cells_avx2(fr[0], fg[0], fb[0], fr[1], fg[1], fb[1], n / 2, &k, ocb + x / 2, ocr + x / 2);
                continue;
            }
#endif
            dr_ycc_row(yrow[0] + x, pcb[0], pcr[0], n, &k, oy0 + x, fr[0], fg[0], fb[0]);
            dr_ycc_row(yrow[1] + x, pcb[1], pcr[1], n, &k, oy1 + x, fr[1], fg[1], fb[1]);
            dr_ycc_cells(fr[0], fg[0], fb[0], fr[1], fg[1], fb[1], n / 2, &k, ocb + x / 2, ocr + x / 2);
        }
    }
    return 0;
}
