#include "darkroom_kernels.h"

/*
 * Written as plain loops with constant strides so that clang vectorises them;
 * target_clones builds an AVX2 copy next to the baseline one and picks at load time.
 */

#define DR_SEPIA_BODY(CHANNELS)                                                            \
    const int32_t m0 = matrix[0], m1 = matrix[1], m2 = matrix[2];                          \
    const int32_t m3 = matrix[3], m4 = matrix[4], m5 = matrix[5];                          \
    const int32_t m6 = matrix[6], m7 = matrix[7], m8 = matrix[8];                          \
    const int32_t half = 1 << (DR_SEPIA_SHIFT - 1);                                        \
    for (size_t i = 0; i < pixel_count; i++) {                                             \
        uint8_t *p = pixels + i * (CHANNELS);                                              \
        int32_t r = p[0], g = p[1], b = p[2];                                              \
        int32_t nr = (m0 * r + m1 * g + m2 * b + half) >> DR_SEPIA_SHIFT;                  \
        int32_t ng = (m3 * r + m4 * g + m5 * b + half) >> DR_SEPIA_SHIFT;                  \
        int32_t nb = (m6 * r + m7 * g + m8 * b + half) >> DR_SEPIA_SHIFT;                  \
        p[0] = (uint8_t)(nr > 255 ? 255 : nr);                                             \
        p[1] = (uint8_t)(ng > 255 ? 255 : ng);                                             \
        p[2] = (uint8_t)(nb > 255 ? 255 : nb);                                             \
    }

#include "kernel_clones.h"

DR_CLONES static void dr_sepia_rgb(uint8_t *restrict pixels, size_t pixel_count, const int32_t *restrict matrix) {
    DR_SEPIA_BODY(3)
}

DR_CLONES static void dr_sepia_rgba(uint8_t *restrict pixels, size_t pixel_count, const int32_t *restrict matrix) {
    DR_SEPIA_BODY(4)
}

void dr_sepia_apply(uint8_t *pixels, size_t pixel_count, int channels, const int32_t matrix[9]) {
    if (channels == 4) {
        dr_sepia_rgba(pixels, pixel_count, matrix);
    } else {
        dr_sepia_rgb(pixels, pixel_count, matrix);
    }
}
