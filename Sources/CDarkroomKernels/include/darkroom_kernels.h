#ifndef DARKROOM_KERNELS_H
#define DARKROOM_KERNELS_H

/*
 * Pixel kernels in C, where the compiler vectorises the interleaved RGB loop
 * (SSE2 always, AVX2 when the CPU has it, chosen once at load time).
 */

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Fixed-point scale of the coefficients: value = round(coefficient * 2^DR_SEPIA_SHIFT). */
#define DR_SEPIA_SHIFT 22

/*
 * out = clamp((m[row] . (R, G, B) + 2^(SHIFT-1)) >> SHIFT, 0, 255) for each of the three
 * rows of `matrix` (row-major, nine non-negative fixed-point coefficients whose row sums
 * stay below 2^31 / 255 / 2^SHIFT, i.e. 2.0). Alpha, when `channels` is 4, is untouched.
 */
void dr_sepia_apply(uint8_t *pixels, size_t pixel_count, int channels, const int32_t matrix[9]);

/* A band of JPEG YCbCr planes: full-resolution Y, and Cb/Cr subsampled by
 * chroma_h_sub x chroma_v_sub (1 or 2 each) relative to Y. For input with
 * chroma_v_sub 2, *_above and *_below are the chroma rows just outside the band
 * (the band's own first or last row at the image's edges); otherwise unused. */
typedef struct {
    uint8_t *y;
    uint8_t *cb;
    uint8_t *cr;
    size_t y_stride;
    size_t c_stride;
    uint32_t chroma_h_sub;
    uint32_t chroma_v_sub;
    const uint8_t *cb_above;
    const uint8_t *cr_above;
    const uint8_t *cb_below;
    const uint8_t *cr_below;
} dr_ycc_planes;

/*
 * The sepia filter of `matrix` (as for dr_sepia_apply) on `rows` x `width` luma samples of
 * `in` (4:4:4, 4:2:2 or 4:2:0; 4:4:0 too, its chroma repeated, not interpolated), written
 * to `out` as 4:2:0 (Y', and Cb'/Cr' the 2x2 averages libjpeg's downsampler would take). width and rows must be even; `in` must
 * hold every sample they cover (edges replicated by the caller). Returns 0, or -1 when
 * the subsampling or sizes are not supported (nothing is written then).
 */
int dr_sepia_ycc_to_420(const dr_ycc_planes *in, const dr_ycc_planes *out, uint32_t width, uint32_t rows,
                        const int32_t matrix[9]);

#ifdef __cplusplus
}
#endif

#endif
