#include "codec_internal.h"

#include <errno.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

#include <jerror.h>
#include <jpeglib.h>

/* A progressive JPEG can declare thousands of tiny scans to burn CPU; real encoders use < 20. */
#define DR_JPEG_MAX_SCANS 500

typedef struct {
    struct jpeg_error_mgr pub;
    jmp_buf jump;
    dr_status status_on_error;
    char message[JMSG_LENGTH_MAX];
} dr_jpeg_error_mgr;

static void dr_jpeg_record_and_jump(j_common_ptr cinfo) {
    dr_jpeg_error_mgr *err = (dr_jpeg_error_mgr *)cinfo->err;
    (*cinfo->err->format_message)(cinfo, err->message);
    longjmp(err->jump, 1);
}

static void dr_jpeg_error_exit(j_common_ptr cinfo) {
    dr_jpeg_error_mgr *err = (dr_jpeg_error_mgr *)cinfo->err;
    if (cinfo->err->msg_code == JERR_FILE_WRITE) {
        err->status_on_error = DR_WRITE;
    } else if (cinfo->err->msg_code == JERR_OUT_OF_MEMORY) {
        err->status_on_error = DR_INTERNAL;
    }
    dr_jpeg_record_and_jump(cinfo);
}

/*
 * libjpeg only warns about a truncated or corrupt stream and fills the rest with
 * grey; a photograph with a grey band is damage, so a warning is an error here.
 * The two warnings about metadata alone (JFIF version, ICC marker) leave pixels intact.
 */
static void dr_jpeg_emit_message(j_common_ptr cinfo, int msg_level) {
    if (msg_level >= 0) {
        return; /* trace messages */
    }
    int code = cinfo->err->msg_code;
    if (code == JWRN_JFIF_MAJOR || code == JWRN_BOGUS_ICC) {
        return;
    }
    dr_jpeg_record_and_jump(cinfo);
}

static void dr_jpeg_output_message(j_common_ptr cinfo) { (void)cinfo; }

static void dr_jpeg_progress(j_common_ptr cinfo) {
    if (cinfo->is_decompressor && ((j_decompress_ptr)cinfo)->input_scan_number > DR_JPEG_MAX_SCANS) {
        dr_jpeg_error_mgr *err = (dr_jpeg_error_mgr *)cinfo->err;
        snprintf(err->message, sizeof err->message, "more than %d progressive scans", DR_JPEG_MAX_SCANS);
        longjmp(err->jump, 1);
    }
}

static void dr_jpeg_init_error(dr_jpeg_error_mgr *err, dr_status status_on_error) {
    jpeg_std_error(&err->pub);
    err->pub.error_exit = dr_jpeg_error_exit;
    err->pub.emit_message = dr_jpeg_emit_message;
    err->pub.output_message = dr_jpeg_output_message;
    err->status_on_error = status_on_error;
    err->message[0] = '\0';
}

static void dr_jpeg_fail(dr_error *error, const dr_jpeg_error_mgr *err) {
    if (err->status_on_error == DR_WRITE && errno != 0) {
        dr_set_error(error, DR_WRITE, "%s", strerror(errno));
    } else {
        dr_set_error(error, err->status_on_error, "%s", err->message[0] ? err->message : "libjpeg error");
    }
}

/* ---------------------------------------------------------------- decoding */

struct dr_jpeg_decoder {
    struct jpeg_decompress_struct cinfo;
    dr_jpeg_error_mgr err;
    struct jpeg_progress_mgr progress;
    int cmyk;          /* rows come out as CMYK and are converted here */
    int adobe_inverted;
    uint8_t *scratch;  /* one CMYK row */
    int finished;
};

/* x / 255 rounded to nearest, exact for 0 <= x <= 255 * 255. */
static inline uint8_t dr_div255(uint32_t x) { return (uint8_t)((x + 128 + ((x + 128) >> 8)) >> 8); }

static void dr_jpeg_cmyk_to_rgb(const uint8_t *cmyk, uint8_t *rgb, uint32_t width, int inverted) {
    for (uint32_t x = 0; x < width; x++, cmyk += 4, rgb += 3) {
        /* Adobe applications store CMYK inverted (0 = full ink): R = C' * K' / 255. */
        uint32_t c = cmyk[0], m = cmyk[1], y = cmyk[2], k = cmyk[3];
        if (!inverted) {
            c = 255 - c; m = 255 - m; y = 255 - y; k = 255 - k;
        }
        rgb[0] = dr_div255(c * k);
        rgb[1] = dr_div255(m * k);
        rgb[2] = dr_div255(y * k);
    }
}

dr_jpeg_decoder *dr_jpeg_decoder_open(FILE *file, uint64_t max_pixels, dr_image_info *info, dr_error *error) {
    dr_jpeg_decoder *d = calloc(1, sizeof *d);
    if (!d) {
        dr_set_error(error, DR_INTERNAL, "out of memory");
        return NULL;
    }
    d->cinfo.err = &d->err.pub;
    dr_jpeg_init_error(&d->err, DR_DECODE);
    if (setjmp(d->err.jump)) {
        dr_jpeg_fail(error, &d->err);
        dr_jpeg_decoder_close(d);
        return NULL;
    }
    jpeg_create_decompress(&d->cinfo);
    d->progress.progress_monitor = dr_jpeg_progress;
    d->cinfo.progress = &d->progress;
    jpeg_stdio_src(&d->cinfo, file);
    jpeg_save_markers(&d->cinfo, JPEG_APP0 + 14, 0); /* the Adobe marker is parsed regardless */
    jpeg_read_header(&d->cinfo, TRUE);

    uint64_t pixels = (uint64_t)d->cinfo.image_width * d->cinfo.image_height;
    if (pixels > max_pixels) {
        dr_set_error(error, DR_TOO_MANY_PIXELS, "%ux%u is %llu pixels, more than the limit of %llu",
                     d->cinfo.image_width, d->cinfo.image_height, (unsigned long long)pixels,
                     (unsigned long long)max_pixels);
        dr_jpeg_decoder_close(d);
        return NULL;
    }

    switch (d->cinfo.jpeg_color_space) {
    case JCS_GRAYSCALE:
    case JCS_YCbCr:
    case JCS_RGB:
        d->cinfo.out_color_space = JCS_RGB;
        break;
    case JCS_CMYK:
    case JCS_YCCK:
        d->cinfo.out_color_space = JCS_CMYK;
        d->cmyk = 1;
        d->adobe_inverted = d->cinfo.saw_Adobe_marker;
        break;
    default:
        dr_set_error(error, DR_DECODE, "unsupported JPEG colour space with %d components",
                     d->cinfo.num_components);
        dr_jpeg_decoder_close(d);
        return NULL;
    }
    info->format = DR_FORMAT_JPEG;
    info->width = d->cinfo.image_width;
    info->height = d->cinfo.image_height;
    info->channels = 3;
    info->source_components = (uint32_t)d->cinfo.num_components;
    info->source_bit_depth = 8;
    info->progressive_or_interlaced = d->cinfo.progressive_mode;

    jpeg_start_decompress(&d->cinfo);
    if (d->cmyk) {
        d->scratch = malloc((size_t)d->cinfo.output_width * 4);
        if (!d->scratch) {
            dr_set_error(error, DR_INTERNAL, "out of memory");
            dr_jpeg_decoder_close(d);
            return NULL;
        }
    }
    return d;
}

dr_status dr_jpeg_decoder_read_rows(dr_jpeg_decoder *d, uint8_t *rows, size_t stride, uint32_t max_rows,
                                    uint32_t *rows_read, dr_error *error) {
    *rows_read = 0;
    if (d->finished) {
        return DR_OK;
    }
    /* volatile: modified between setjmp and a possible longjmp */
    volatile uint32_t done = 0;
    if (setjmp(d->err.jump)) {
        dr_jpeg_fail(error, &d->err);
        d->finished = 1;
        return error->status;
    }
    while (done < max_rows && d->cinfo.output_scanline < d->cinfo.output_height) {
        uint8_t *row = rows + (size_t)done * stride;
        if (d->cmyk) {
            JSAMPROW scratch_row = d->scratch;
            if (jpeg_read_scanlines(&d->cinfo, &scratch_row, 1) == 1) {
                dr_jpeg_cmyk_to_rgb(d->scratch, row, d->cinfo.output_width, d->adobe_inverted);
                done++;
            }
        } else {
            JSAMPROW targets[16];
            uint32_t want = max_rows - done;
            if (want > 16) want = 16;
            for (uint32_t i = 0; i < want; i++) targets[i] = row + (size_t)i * stride;
            done += jpeg_read_scanlines(&d->cinfo, targets, want);
        }
    }
    if (d->cinfo.output_scanline >= d->cinfo.output_height) {
        /* Reads up to EOI: a file cut after the last row is damage too. */
        jpeg_finish_decompress(&d->cinfo);
        d->finished = 1;
    }
    *rows_read = done;
    return DR_OK;
}

void dr_jpeg_decoder_close(dr_jpeg_decoder *d) {
    if (!d) return;
    jpeg_destroy_decompress(&d->cinfo);
    free(d->scratch);
    free(d);
}

/* ---------------------------------------------------------------- encoding */

struct dr_jpeg_encoder {
    struct jpeg_compress_struct cinfo;
    dr_jpeg_error_mgr err;
    uint32_t channels;
    uint8_t *scratch; /* one RGB row when flattening RGBA */
};

dr_jpeg_encoder *dr_jpeg_encoder_open(FILE *file, uint32_t width, uint32_t height, uint32_t channels, int quality,
                                      dr_error *error) {
    dr_jpeg_encoder *e = calloc(1, sizeof *e);
    if (!e) {
        dr_set_error(error, DR_INTERNAL, "out of memory");
        return NULL;
    }
    e->channels = channels;
    e->cinfo.err = &e->err.pub;
    dr_jpeg_init_error(&e->err, DR_INTERNAL);
    if (setjmp(e->err.jump)) {
        dr_jpeg_fail(error, &e->err);
        dr_jpeg_encoder_close(e);
        return NULL;
    }
    jpeg_create_compress(&e->cinfo);
    jpeg_stdio_dest(&e->cinfo, file);
    e->cinfo.image_width = width;
    e->cinfo.image_height = height;
    e->cinfo.input_components = 3;
    e->cinfo.in_color_space = JCS_RGB;
    jpeg_set_defaults(&e->cinfo);
    jpeg_set_quality(&e->cinfo, quality < 1 ? 1 : (quality > 100 ? 100 : quality), TRUE);
    if (channels == 4) {
        e->scratch = malloc((size_t)width * 3);
        if (!e->scratch) {
            dr_set_error(error, DR_INTERNAL, "out of memory");
            dr_jpeg_encoder_close(e);
            return NULL;
        }
    }
    jpeg_start_compress(&e->cinfo, TRUE);
    return e;
}

/* JPEG has no alpha: composite over white, so transparent areas do not turn black. */
static void dr_flatten_over_white(const uint8_t *rgba, uint8_t *rgb, uint32_t width) {
    for (uint32_t x = 0; x < width; x++, rgba += 4, rgb += 3) {
        uint32_t a = rgba[3], inv = 255 - a;
        rgb[0] = dr_div255(rgba[0] * a + 255 * inv);
        rgb[1] = dr_div255(rgba[1] * a + 255 * inv);
        rgb[2] = dr_div255(rgba[2] * a + 255 * inv);
    }
}

dr_status dr_jpeg_encoder_write_rows(dr_jpeg_encoder *e, const uint8_t *rows, size_t stride, uint32_t count,
                                     dr_error *error) {
    if (setjmp(e->err.jump)) {
        dr_jpeg_fail(error, &e->err);
        return error->status;
    }
    for (uint32_t i = 0; i < count;) {
        const uint8_t *row = rows + (size_t)i * stride;
        if (e->channels == 4) {
            dr_flatten_over_white(row, e->scratch, e->cinfo.image_width);
            JSAMPROW target = e->scratch;
            jpeg_write_scanlines(&e->cinfo, &target, 1);
            i++;
        } else {
            JSAMPROW targets[16];
            uint32_t n = count - i;
            if (n > 16) n = 16;
            for (uint32_t j = 0; j < n; j++) targets[j] = (JSAMPROW)(row + (size_t)j * stride);
            i += jpeg_write_scanlines(&e->cinfo, targets, n);
        }
    }
    return DR_OK;
}

dr_status dr_jpeg_encoder_finish(dr_jpeg_encoder *e, FILE *file, dr_error *error) {
    if (e->cinfo.next_scanline < e->cinfo.image_height) {
        dr_set_error(error, DR_INTERNAL, "only %u of %u rows were written", e->cinfo.next_scanline,
                     e->cinfo.image_height);
        return DR_INTERNAL;
    }
    if (setjmp(e->err.jump)) {
        dr_jpeg_fail(error, &e->err);
        return error->status;
    }
    jpeg_finish_compress(&e->cinfo);
    return dr_flush_file(file, error);
}

void dr_jpeg_encoder_close(dr_jpeg_encoder *e) {
    if (!e) return;
    jpeg_destroy_compress(&e->cinfo);
    free(e->scratch);
    free(e);
}

const char *dr_libjpeg_version(void) {
#ifdef LIBJPEG_TURBO_VERSION
#define DR_STR2(x) #x
#define DR_STR(x) DR_STR2(x)
    return "libjpeg-turbo " DR_STR(LIBJPEG_TURBO_VERSION);
#else
    return "libjpeg";
#endif
}
