/*
 * ycc_psnr: how far Darkroom's JPEG -> JPEG fast path (sepia on the YCbCr planes,
 * Sources/CDarkroomKernels/sepia_ycc.c) is from the exact path, before encoding.
 *
 *   ycc_psnr [--intensity A] FILE...
 *
 * For each FILE (a 3-component YCbCr JPEG) it prints PSNRs in dB over R, G, B, 8 bits:
 *   vs-rgb     fast planes, decoded the standard way (libjpeg's fancy upsampling and
 *              YCbCr -> RGB), against the exact path's filtered RGB (decode to RGB, sepia);
 *   vs-planes  the same, against the exact path's own 4:2:0 planes (its filtered RGB through
 *              libjpeg's RGB -> YCbCr and box downsampler, decoded the same standard way):
 *              what each path hands to the DCT, so the cost of 4:2:0 itself cancels;
 *   affine     vs-rgb for a purely affine YCbCr transform (no RGB clamping), to show
 *              what the clamps are worth;
 * and the share of pixels where either clamp changes the result.
 *
 * Build (scripts/bench-filter does): gcc -O2 -I Sources/CDarkroomKernels/include
 *   Benchmarks/fastpath/ycc_psnr.c Sources/CDarkroomKernels/sepia*.c -ljpeg -lm
 * Exit status 0, or 1 if a file could not be measured.
 */
#include <math.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jpeglib.h>

#include "darkroom_kernels.h"

struct err {
    struct jpeg_error_mgr pub;
    jmp_buf jump;
};
static void on_error(j_common_ptr c) {
    char m[JMSG_LENGTH_MAX];
    (*c->err->format_message)(c, m);
    fprintf(stderr, "ycc_psnr: %s\n", m);
    longjmp(((struct err *)c->err)->jump, 1);
}

static double amount = 0.8;
static int32_t fixed[9];
static double matrix[9];

static void make_matrix(void) {
    double k = 1 - amount;
    double m[9] = {0.393 + 0.607 * k, 0.769 - 0.769 * k, 0.189 - 0.189 * k,
                   0.349 - 0.349 * k, 0.686 + 0.314 * k, 0.168 - 0.168 * k,
                   0.272 - 0.272 * k, 0.534 - 0.534 * k, 0.131 + 0.869 * k};
    for (int i = 0; i < 9; i++) {
        matrix[i] = m[i];
        fixed[i] = (int32_t)lround(m[i] * (double)(1 << DR_SEPIA_SHIFT));
    }
}

static inline int clamp255(int v) { return v < 0 ? 0 : (v > 255 ? 255 : v); }

/* libjpeg's jdcolor.c, integer. */
static void ycc_to_rgb(int y, int cb, int cr, uint8_t *rgb) {
    int b = cb - 128, r = cr - 128;
    rgb[0] = (uint8_t)clamp255(y + ((91881 * r + 32768) >> 16));
    rgb[1] = (uint8_t)clamp255(y + ((-22554 * b - 46802 * r + 32768) >> 16));
    rgb[2] = (uint8_t)clamp255(y + ((116130 * b + 32768) >> 16));
}

/* A whole-image 4:2:0 set of planes (w x h luma, cw x ch chroma). */
typedef struct {
    uint32_t w, h, cw, ch;
    uint8_t *y, *cb, *cr;
} planes420;

/* libjpeg's h2v2 fancy upsampling (jdsample.c) and colour conversion: the standard decode. */
static void planes_to_rgb(const planes420 *p, uint8_t *rgb) {
    uint8_t *cbu = malloc((size_t)p->cw * 2), *cru = malloc((size_t)p->cw * 2);
    for (uint32_t yy = 0; yy < p->h; yy++) {
        uint32_t cy = yy / 2;
        int64_t ny = (yy & 1) ? (int64_t)cy + 1 : (int64_t)cy - 1;
        if (ny < 0) ny = 0;
        if (ny >= p->ch) ny = p->ch - 1;
        for (int plane = 0; plane < 2; plane++) {
            const uint8_t *src = plane ? p->cr : p->cb;
            uint8_t *dst = plane ? cru : cbu;
            const uint8_t *i0 = src + (size_t)cy * p->cw, *i1 = src + (size_t)ny * p->cw;
            for (uint32_t c = 0; c < p->cw; c++) {
                int this = i0[c] * 3 + i1[c];
                int last = c > 0 ? i0[c - 1] * 3 + i1[c - 1] : this;
                int next = c + 1 < p->cw ? i0[c + 1] * 3 + i1[c + 1] : this;
                dst[2 * c] = (uint8_t)((this * 3 + last + 8) >> 4);
                dst[2 * c + 1] = (uint8_t)((this * 3 + next + 7) >> 4);
            }
        }
        for (uint32_t x = 0; x < p->w; x++)
            ycc_to_rgb(p->y[(size_t)yy * p->w + x], cbu[x], cru[x], rgb + ((size_t)yy * p->w + x) * 3);
    }
    free(cbu);
    free(cru);
}

static double psnr(const uint8_t *a, const uint8_t *b, size_t n) {
    double se = 0;
    for (size_t i = 0; i < n; i++) {
        double d = (double)a[i] - b[i];
        se += d * d;
    }
    if (se == 0) return INFINITY;
    return 10 * log10(255.0 * 255.0 / (se / n));
}

static int measure(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        perror(path);
        return 0;
    }
    struct jpeg_decompress_struct d;
    struct err e;
    d.err = jpeg_std_error(&e.pub);
    e.pub.error_exit = on_error;
    if (setjmp(e.jump)) {
        fclose(f);
        return 0;
    }
    /* The exact path: RGB rows, sepia. */
    jpeg_create_decompress(&d);
    jpeg_stdio_src(&d, f);
    jpeg_read_header(&d, TRUE);
    if (d.jpeg_color_space != JCS_YCbCr || d.num_components != 3) {
        fprintf(stderr, "ycc_psnr: %s: not a YCbCr JPEG\n", path);
        return 0;
    }
    d.out_color_space = JCS_RGB;
    jpeg_start_decompress(&d);
    uint32_t w = d.output_width, h = d.output_height;
    size_t n = (size_t)w * h;
    uint8_t *exact = malloc(n * 3);
    while (d.output_scanline < h) {
        JSAMPROW row = exact + (size_t)d.output_scanline * w * 3;
        jpeg_read_scanlines(&d, &row, 1);
    }
    jpeg_finish_decompress(&d);
    uint8_t *source = malloc(n * 3);
    memcpy(source, exact, n * 3);
    dr_sepia_apply(exact, n, 3, fixed);

    /* The fast path: raw planes, edges replicated, the kernel. */
    rewind(f);
    jpeg_stdio_src(&d, f);
    jpeg_read_header(&d, TRUE);
    int hmax = d.max_h_samp_factor, vmax = d.max_v_samp_factor;
    jpeg_component_info *cc = d.comp_info;
    uint32_t sx = hmax / cc[1].h_samp_factor, sy = vmax / cc[1].v_samp_factor;
    uint32_t wp = (w + 15) & ~15u, hp = (h + 15) & ~15u;
    d.raw_data_out = TRUE;
    jpeg_start_decompress(&d);
    size_t ys = ((size_t)cc[0].width_in_blocks * 8 > wp ? cc[0].width_in_blocks * 8 : wp);
    size_t cs = ((size_t)cc[1].width_in_blocks * 8 > wp / sx ? cc[1].width_in_blocks * 8 : wp / sx);
    size_t rows_alloc = hp + 32;
    uint8_t *Y = calloc(ys * rows_alloc, 1), *CB = calloc(cs * rows_alloc, 1), *CR = calloc(cs * rows_alloc, 1);
    uint32_t line = 0;
    while (d.output_scanline < h) {
        JSAMPROW yr[32], cbr[32], crr[32];
        for (int i = 0; i < vmax * 8; i++) yr[i] = Y + (size_t)(line + i) * ys;
        for (int i = 0; i < cc[1].v_samp_factor * 8; i++) {
            cbr[i] = CB + (size_t)(line / sy + i) * cs;
            crr[i] = CR + (size_t)(line / sy + i) * cs;
        }
        JSAMPARRAY data[3] = {yr, cbr, crr};
        line += jpeg_read_raw_data(&d, data, vmax * 8);
    }
    jpeg_finish_decompress(&d);
    jpeg_destroy_decompress(&d);
    fclose(f);
    uint32_t icw = (w + sx - 1) / sx, ich = (h + sy - 1) / sy;
    for (uint32_t r = 0; r < hp; r++) {
        uint8_t *yrow = Y + (size_t)r * ys;
        if (r >= h) memcpy(yrow, Y + (size_t)(h - 1) * ys, ys);
        for (uint32_t x = w; x < wp; x++) yrow[x] = yrow[w - 1];
    }
    for (uint32_t r = 0; r < hp / sy; r++) {
        for (int p = 0; p < 2; p++) {
            uint8_t *base = p ? CR : CB, *row = base + (size_t)r * cs;
            if (r >= ich) memcpy(row, base + (size_t)(ich - 1) * cs, cs);
            for (uint32_t x = icw; x < wp / sx; x++) row[x] = row[icw - 1];
        }
    }
    planes420 fast = {wp, hp, wp / 2, hp / 2, malloc((size_t)wp * hp), malloc((size_t)wp * hp / 4),
                      malloc((size_t)wp * hp / 4)};
    /* One call for the whole image: the rows outside it repeat its first and last chroma rows. */
    dr_ycc_planes in = {Y, CB, CR, ys, cs, sx, sy, CB, CR, CB + (size_t)(hp / sy - 1) * cs, CR + (size_t)(hp / sy - 1) * cs};
    dr_ycc_planes out = {fast.y, fast.cb, fast.cr, wp, wp / 2, 2, 2, NULL, NULL, NULL, NULL};
    if (dr_sepia_ycc_to_420(&in, &out, wp, hp, fixed) != 0) {
        fprintf(stderr, "ycc_psnr: %s: sampling %ux%u not supported\n", path, sx, sy);
        return 0;
    }
    /* The same, affine: no clamps (doubles). */
    planes420 affine = {wp, hp, wp / 2, hp / 2, malloc((size_t)wp * hp), malloc((size_t)wp * hp / 4),
                        malloc((size_t)wp * hp / 4)};
    size_t clamped = 0;
    for (uint32_t r = 0; r < hp; r += 2) {
        for (uint32_t c = 0; c < wp; c += 2) {
            double sr = 0, sg = 0, sb = 0;
            for (int k = 0; k < 4; k++) {
                uint32_t rr = r + (k >> 1), col = c + (k & 1);
                double yy = Y[(size_t)rr * ys + col];
                double b = CB[(size_t)(rr / sy) * cs + col / sx] - 128.0, q = CR[(size_t)(rr / sy) * cs + col / sx] - 128.0;
                double R = yy + 1.402 * q, G = yy - 0.344136 * b - 0.714136 * q, B = yy + 1.772 * b;
                double nr = matrix[0] * R + matrix[1] * G + matrix[2] * B;
                double ng = matrix[3] * R + matrix[4] * G + matrix[5] * B;
                double nb = matrix[6] * R + matrix[7] * G + matrix[8] * B;
                if (rr < h && col < w &&
                    (R < 0 || R > 255 || G < 0 || G > 255 || B < 0 || B > 255 || nr > 255.5 || ng > 255.5 || nb > 255.5))
                    clamped++;
                affine.y[(size_t)rr * wp + col] = (uint8_t)clamp255((int)lround(0.299 * nr + 0.587 * ng + 0.114 * nb));
                sr += nr; sg += ng; sb += nb;
            }
            sr /= 4; sg /= 4; sb /= 4;
            affine.cb[(size_t)(r / 2) * (wp / 2) + c / 2] = (uint8_t)clamp255((int)lround(-0.168736 * sr - 0.331264 * sg + 0.5 * sb + 128));
            affine.cr[(size_t)(r / 2) * (wp / 2) + c / 2] = (uint8_t)clamp255((int)lround(0.5 * sr - 0.418688 * sg - 0.081312 * sb + 128));
        }
    }
    /* The exact path's own 4:2:0 planes (jccolor.c + jcsample.c h2v2, edges replicated). */
    planes420 ref = {wp, hp, wp / 2, hp / 2, malloc((size_t)wp * hp), malloc((size_t)wp * hp / 4), malloc((size_t)wp * hp / 4)};
    int16_t *cbf = malloc((size_t)wp * hp * 2), *crf = malloc((size_t)wp * hp * 2);
    for (uint32_t r = 0; r < hp; r++)
        for (uint32_t c = 0; c < wp; c++) {
            const uint8_t *p = exact + ((size_t)(r < h ? r : h - 1) * w + (c < w ? c : w - 1)) * 3;
            int R = p[0], G = p[1], B = p[2];
            ref.y[(size_t)r * wp + c] = (uint8_t)((19595 * R + 38470 * G + 7471 * B + 32768) >> 16);
            cbf[(size_t)r * wp + c] = (int16_t)((-11059 * R - 21709 * G + 32768 * B + (128 << 16) + 32767) >> 16);
            crf[(size_t)r * wp + c] = (int16_t)((32768 * R - 27439 * G - 5329 * B + (128 << 16) + 32767) >> 16);
        }
    for (uint32_t r = 0; r < hp / 2; r++) {
        int bias = 1;
        for (uint32_t c = 0; c < wp / 2; c++) {
            size_t i = (size_t)2 * r * wp + 2 * c;
            ref.cb[(size_t)r * (wp / 2) + c] = (uint8_t)((cbf[i] + cbf[i + 1] + cbf[i + wp] + cbf[i + wp + 1] + bias) >> 2);
            ref.cr[(size_t)r * (wp / 2) + c] = (uint8_t)((crf[i] + crf[i + 1] + crf[i + wp] + crf[i + wp + 1] + bias) >> 2);
            bias ^= 3;
        }
    }
    /* Decode the three sets of planes the standard way, crop to the image, compare. */
    uint8_t *tmp = malloc((size_t)wp * hp * 3);
    uint8_t *fast_rgb = malloc(n * 3), *affine_rgb = malloc(n * 3), *ref_rgb = malloc(n * 3);
    const planes420 *sets[3] = {&fast, &affine, &ref};
    uint8_t *dest[3] = {fast_rgb, affine_rgb, ref_rgb};
    for (int s = 0; s < 3; s++) {
        planes420 cropped = *sets[s];
        planes_to_rgb(&cropped, tmp);
        for (uint32_t r = 0; r < h; r++) memcpy(dest[s] + (size_t)r * w * 3, tmp + (size_t)r * wp * 3, (size_t)w * 3);
    }
    printf("%-42s %5ux%-5u %ux%u  vs-rgb %6.2f  vs-planes %6.2f  affine %6.2f  exact-420 %6.2f  clamped %5.2f%%\n",
           strrchr(path, '/') ? strrchr(path, '/') + 1 : path, w, h, sx, sy, psnr(fast_rgb, exact, n * 3),
           psnr(fast_rgb, ref_rgb, n * 3), psnr(affine_rgb, exact, n * 3), psnr(ref_rgb, exact, n * 3),
           100.0 * clamped / n);
    fflush(stdout);
    free(exact); free(source); free(Y); free(CB); free(CR); free(tmp);
    free(fast_rgb); free(affine_rgb); free(ref_rgb); free(cbf); free(crf);
    for (int s = 0; s < 3; s++) {
        free(sets[s]->y); free(sets[s]->cb); free(sets[s]->cr);
    }
    return 1;
}

int main(int argc, char **argv) {
    int i = 1;
    if (i + 1 < argc && strcmp(argv[i], "--intensity") == 0) {
        amount = atof(argv[i + 1]);
        i += 2;
    }
    if (i >= argc) {
        fprintf(stderr, "usage: ycc_psnr [--intensity A] FILE...\n");
        return 2;
    }
    make_matrix();
    int failed = 0;
    for (; i < argc; i++) failed |= !measure(argv[i]);
    return failed;
}
