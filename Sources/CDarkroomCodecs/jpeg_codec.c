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
    /*
     * YCbCr planes mode (DR_DECODE_YCC_PLANES). Two bands of Y, Cb, Cr in `planes`: the one
     * handed out and the next, decoded one band ahead, because interpolating 4:2:0 chroma
     * needs the chroma row below the band. `above` keeps the last chroma rows of the band
     * handed out before (Cb then Cr).
     */
    int ycc;
    uint32_t h_sub, v_sub, padded_width, chroma_width, chroma_height;
    size_t y_stride, c_stride, band_bytes;
    uint8_t *planes;
    uint8_t *above;
    uint32_t decoded_start;  /* image row of the next band to decode */
    uint32_t band_rows[2];   /* image rows in each buffer; 0: empty */
    int current;             /* the buffer handed out last, or -1 before the first */
    int have_above;
};

/*
 * Planes mode needs Y at full resolution and Cb, Cr sharing a subsampling of 4:4:4, 4:2:2
 * or 4:2:0. Not 4:4:0 (chroma halved vertically only): the kernel would repeat its chroma
 * where the exact path interpolates it, which falls below 45 dB PSNR on chroma-rich images,
 * and the layout is rare in photographs.
 */
static int dr_jpeg_ycc_supported(j_decompress_ptr c) {
    if (c->jpeg_color_space != JCS_YCbCr || c->num_components != 3) return 0;
    if (c->max_h_samp_factor > 2 || c->max_v_samp_factor > 2) return 0;
    const jpeg_component_info *y = &c->comp_info[0], *cb = &c->comp_info[1], *cr = &c->comp_info[2];
    if (y->h_samp_factor != c->max_h_samp_factor || y->v_samp_factor != c->max_v_samp_factor ||
        cb->h_samp_factor != cr->h_samp_factor || cb->v_samp_factor != cr->v_samp_factor) {
        return 0;
    }
    int h_sub = c->max_h_samp_factor / cb->h_samp_factor, v_sub = c->max_v_samp_factor / cb->v_samp_factor;
    return !(h_sub == 1 && v_sub == 2);
}

static size_t dr_round_up(size_t value, size_t multiple) { return (value + multiple - 1) / multiple * multiple; }

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

dr_jpeg_decoder *dr_jpeg_decoder_open(FILE *file, uint64_t max_pixels, uint32_t options, dr_image_info *info,
                                      dr_error *error) {
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

    if ((options & DR_DECODE_YCC_PLANES) && dr_jpeg_ycc_supported(&d->cinfo)) {
        /* Chroma comes out subsampled. Two bands of planes, each wide enough for libjpeg's
         * whole blocks and for the padded width the 4:2:0 encoder reads. */
        const jpeg_component_info *y = &d->cinfo.comp_info[0], *cb = &d->cinfo.comp_info[1];
        d->ycc = 1;
        d->h_sub = (uint32_t)(d->cinfo.max_h_samp_factor / cb->h_samp_factor);
        d->v_sub = (uint32_t)(d->cinfo.max_v_samp_factor / cb->v_samp_factor);
        d->padded_width = (uint32_t)dr_round_up(d->cinfo.image_width, 16);
        d->chroma_width = (d->cinfo.image_width + d->h_sub - 1) / d->h_sub;
        d->chroma_height = (d->cinfo.image_height + d->v_sub - 1) / d->v_sub;
        size_t y_cols = (size_t)y->width_in_blocks * DCTSIZE, c_cols = (size_t)cb->width_in_blocks * DCTSIZE;
        d->y_stride = dr_round_up(y_cols > d->padded_width ? y_cols : d->padded_width, 64);
        d->c_stride = dr_round_up(c_cols > d->padded_width / d->h_sub ? c_cols : d->padded_width / d->h_sub, 64);
        d->band_bytes = d->y_stride * DR_YCC_BAND_ROWS + 2 * d->c_stride * (DR_YCC_BAND_ROWS / d->v_sub);
        d->planes = malloc(2 * d->band_bytes);
        d->above = malloc(2 * d->c_stride);
        d->current = -1;
        if (!d->planes || !d->above) {
            dr_set_error(error, DR_INTERNAL, "out of memory");
            dr_jpeg_decoder_close(d);
            return NULL;
        }
        d->cinfo.raw_data_out = TRUE;
    }
    info->ycc_planes = d->ycc;

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
    if (d->ycc) {
        dr_set_error(error, DR_INTERNAL, "rows asked of a decoder in YCbCr planes mode");
        return DR_INTERNAL;
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

/* Repeats the last real column of each row out to `to`, and the last real row down the band. */
static void dr_replicate_edges(uint8_t *plane, size_t stride, uint32_t real_cols, uint32_t to, uint32_t real_rows,
                               uint32_t rows) {
    for (uint32_t r = 0; r < real_rows; r++) {
        uint8_t *row = plane + r * stride;
        memset(row + real_cols, row[real_cols - 1], to - real_cols);
    }
    for (uint32_t r = real_rows; r < rows; r++) memcpy(plane + r * stride, plane + (real_rows - 1) * stride, to);
}

static void dr_ycc_buffer(const dr_jpeg_decoder *d, int index, uint8_t **y, uint8_t **cb, uint8_t **cr) {
    *y = d->planes + (size_t)index * d->band_bytes;
    *cb = *y + d->y_stride * DR_YCC_BAND_ROWS;
    *cr = *cb + d->c_stride * (DR_YCC_BAND_ROWS / d->v_sub);
}

/* Decodes the next band into buffer `index` (libjpeg errors longjmp to the caller's setjmp). */
static void dr_jpeg_decode_ycc_band(dr_jpeg_decoder *d, int index) {
    uint8_t *y, *cb, *cr;
    dr_ycc_buffer(d, index, &y, &cb, &cr);
    /* One iMCU row is 8 or 16 luma rows: one or two reads fill the band. */
    uint32_t imcu = (uint32_t)d->cinfo.max_v_samp_factor * DCTSIZE;
    for (uint32_t filled = 0; filled < DR_YCC_BAND_ROWS && d->cinfo.output_scanline < d->cinfo.output_height;) {
        JSAMPROW yrows[16], cbrows[16], crrows[16];
        uint32_t crow = filled / d->v_sub;
        for (uint32_t i = 0; i < imcu; i++) yrows[i] = y + (filled + i) * d->y_stride;
        for (uint32_t i = 0; i < imcu / d->v_sub; i++) {
            cbrows[i] = cb + (crow + i) * d->c_stride;
            crrows[i] = cr + (crow + i) * d->c_stride;
        }
        JSAMPARRAY data[3] = {yrows, cbrows, crrows};
        JDIMENSION got = jpeg_read_raw_data(&d->cinfo, data, imcu);
        if (got == 0) ERREXIT(&d->cinfo, JERR_INPUT_EMPTY); /* a suspending source; stdio never is */
        filled += got;
    }
    uint32_t rows = d->cinfo.image_height - d->decoded_start;
    if (rows > DR_YCC_BAND_ROWS) rows = DR_YCC_BAND_ROWS;
    uint32_t chroma_rows = d->chroma_height - d->decoded_start / d->v_sub;
    if (chroma_rows > DR_YCC_BAND_ROWS / d->v_sub) chroma_rows = DR_YCC_BAND_ROWS / d->v_sub;
    dr_replicate_edges(y, d->y_stride, d->cinfo.image_width, d->padded_width, rows, DR_YCC_BAND_ROWS);
    uint32_t chroma_to = d->padded_width / d->h_sub;
    dr_replicate_edges(cb, d->c_stride, d->chroma_width, chroma_to, chroma_rows, DR_YCC_BAND_ROWS / d->v_sub);
    dr_replicate_edges(cr, d->c_stride, d->chroma_width, chroma_to, chroma_rows, DR_YCC_BAND_ROWS / d->v_sub);
    d->decoded_start += rows;
    d->band_rows[index] = rows;
    if (d->cinfo.output_scanline >= d->cinfo.output_height) {
        /* Reads up to EOI: a file cut after the last row is damage too. */
        jpeg_finish_decompress(&d->cinfo);
        d->finished = 1;
    }
}

dr_status dr_jpeg_decoder_read_ycc_band(dr_jpeg_decoder *d, dr_ycc_band *band, dr_error *error) {
    memset(band, 0, sizeof *band);
    if (!d->ycc) {
        dr_set_error(error, DR_INTERNAL, "YCbCr planes asked of a decoder in rows mode");
        return DR_INTERNAL;
    }
    if (setjmp(d->err.jump)) {
        dr_jpeg_fail(error, &d->err);
        d->finished = 1;
        d->band_rows[0] = d->band_rows[1] = 0;
        return error->status;
    }
    uint32_t chroma_band = DR_YCC_BAND_ROWS / d->v_sub;
    if (d->current < 0) {
        if (!d->finished) dr_jpeg_decode_ycc_band(d, 0);
        d->current = 1; /* so that the band below becomes buffer 0 */
    } else if (d->band_rows[d->current] > 0) {
        /* The band handed out last is done with: keep its last chroma rows, free its buffer. */
        uint8_t *y, *cb, *cr;
        dr_ycc_buffer(d, d->current, &y, &cb, &cr);
        memcpy(d->above, cb + (chroma_band - 1) * d->c_stride, d->c_stride);
        memcpy(d->above + d->c_stride, cr + (chroma_band - 1) * d->c_stride, d->c_stride);
        d->have_above = 1;
        d->band_rows[d->current] = 0;
    }
    int index = 1 - d->current;
    if (d->band_rows[index] == 0) {
        return DR_OK; /* every band was handed out */
    }
    d->current = index;
    if (!d->finished) dr_jpeg_decode_ycc_band(d, 1 - index);
    uint8_t *y, *cb, *cr;
    dr_ycc_buffer(d, index, &y, &cb, &cr);
    *band = (dr_ycc_band){y, cb, cr, d->y_stride, d->c_stride, d->h_sub, d->v_sub, d->padded_width,
                          d->band_rows[index], NULL, NULL, NULL, NULL};
    /* The first band: the row above the image repeats its first chroma row. */
    band->cb_above = d->have_above ? d->above : cb;
    band->cr_above = d->have_above ? d->above + d->c_stride : cr;
    if (d->band_rows[1 - index] > 0) {
        uint8_t *ny, *ncb, *ncr;
        dr_ycc_buffer(d, 1 - index, &ny, &ncb, &ncr);
        band->cb_below = ncb;
        band->cr_below = ncr;
    } else {
        /* The last band: its padding rows repeat the image's last chroma row. */
        band->cb_below = cb + (chroma_band - 1) * d->c_stride;
        band->cr_below = cr + (chroma_band - 1) * d->c_stride;
    }
    return DR_OK;
}

void dr_jpeg_decoder_close(dr_jpeg_decoder *d) {
    if (!d) return;
    jpeg_destroy_decompress(&d->cinfo);
    free(d->scratch);
    free(d->planes);
    free(d->above);
    free(d);
}

/* ---------------------------------------------------------------- encoding */

struct dr_jpeg_encoder {
    struct jpeg_compress_struct cinfo;
    dr_jpeg_error_mgr err;
    uint32_t channels;
    uint8_t *scratch; /* one RGB row when flattening RGBA */
    /* YCbCr planes mode: one band of 4:2:0 planes in `planes`. */
    int ycc;
    uint8_t *planes;
    size_t y_stride, c_stride;
    uint32_t padded_width;
};

dr_jpeg_encoder *dr_jpeg_encoder_open(FILE *file, uint32_t width, uint32_t height, uint32_t channels, int quality,
                                      dr_error *error) {
    return dr_jpeg_encoder_open_layout(file, width, height, channels, quality, NULL, error);
}

dr_jpeg_encoder *dr_jpeg_encoder_open_layout(FILE *file, uint32_t width, uint32_t height, uint32_t channels,
                                             int quality, const dr_jpeg_layout *layout, dr_error *error) {
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
    if (layout) {
        e->cinfo.comp_info[0].h_samp_factor = layout->luma_h_factor;
        e->cinfo.comp_info[0].v_samp_factor = layout->luma_v_factor;
        if (layout->progressive) jpeg_simple_progression(&e->cinfo);
        e->cinfo.restart_in_rows = layout->restart_rows;
    }
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

dr_jpeg_encoder *dr_jpeg_encoder_open_ycc420(FILE *file, uint32_t width, uint32_t height, int quality,
                                             dr_error *error) {
    dr_jpeg_encoder *e = calloc(1, sizeof *e);
    if (!e) {
        dr_set_error(error, DR_INTERNAL, "out of memory");
        return NULL;
    }
    e->channels = 3;
    e->ycc = 1;
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
    e->cinfo.in_color_space = JCS_YCbCr;
    /* The same defaults as the rows encoder (YCbCr 2x2/1x1/1x1, i.e. 4:2:0, JFIF, ISLOW). */
    jpeg_set_defaults(&e->cinfo);
    jpeg_set_quality(&e->cinfo, quality < 1 ? 1 : (quality > 100 ? 100 : quality), TRUE);
    e->cinfo.raw_data_in = TRUE;
    /* libjpeg reads whole blocks: 16-column Y MCUs, 8-column chroma blocks. */
    e->padded_width = (uint32_t)dr_round_up(width, 16);
    e->y_stride = dr_round_up(e->padded_width, 64);
    e->c_stride = dr_round_up(e->padded_width / 2, 64);
    e->planes = malloc(e->y_stride * DR_YCC_BAND_ROWS + 2 * e->c_stride * (DR_YCC_BAND_ROWS / 2));
    if (!e->planes) {
        dr_set_error(error, DR_INTERNAL, "out of memory");
        dr_jpeg_encoder_close(e);
        return NULL;
    }
    jpeg_start_compress(&e->cinfo, TRUE);
    return e;
}

void dr_jpeg_encoder_ycc_band(dr_jpeg_encoder *e, dr_ycc_band *band) {
    if (!e->ycc) return;
    uint8_t *y = e->planes, *cb = y + e->y_stride * DR_YCC_BAND_ROWS, *cr = cb + e->c_stride * (DR_YCC_BAND_ROWS / 2);
    *band = (dr_ycc_band){y, cb, cr, e->y_stride, e->c_stride, 2, 2, e->padded_width, DR_YCC_BAND_ROWS,
                          NULL, NULL, NULL, NULL};
}

dr_status dr_jpeg_encoder_write_ycc_band(dr_jpeg_encoder *e, dr_error *error) {
    if (!e->ycc) {
        dr_set_error(error, DR_INTERNAL, "YCbCr planes given to an encoder in rows mode");
        return DR_INTERNAL;
    }
    if (e->cinfo.next_scanline >= e->cinfo.image_height) {
        dr_set_error(error, DR_INTERNAL, "more rows than the image has");
        return DR_INTERNAL;
    }
    if (setjmp(e->err.jump)) {
        dr_jpeg_fail(error, &e->err);
        return error->status;
    }
    dr_ycc_band band;
    dr_jpeg_encoder_ycc_band(e, &band);
    JSAMPROW yrows[DR_YCC_BAND_ROWS], cbrows[DR_YCC_BAND_ROWS / 2], crrows[DR_YCC_BAND_ROWS / 2];
    for (int i = 0; i < DR_YCC_BAND_ROWS; i++) yrows[i] = band.y + i * band.y_stride;
    for (int i = 0; i < DR_YCC_BAND_ROWS / 2; i++) {
        cbrows[i] = band.cb + i * band.c_stride;
        crrows[i] = band.cr + i * band.c_stride;
    }
    JSAMPARRAY data[3] = {yrows, cbrows, crrows};
    jpeg_write_raw_data(&e->cinfo, data, DR_YCC_BAND_ROWS);
    return DR_OK;
}

dr_status dr_jpeg_encoder_write_rows(dr_jpeg_encoder *e, const uint8_t *rows, size_t stride, uint32_t count,
                                     dr_error *error) {
    if (e->ycc) {
        dr_set_error(error, DR_INTERNAL, "rows given to an encoder in YCbCr planes mode");
        return DR_INTERNAL;
    }
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
    free(e->planes);
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
