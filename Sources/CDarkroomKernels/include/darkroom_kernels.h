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

#ifdef __cplusplus
}
#endif

#endif
