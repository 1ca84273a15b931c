#include "codec_internal.h"

#include <errno.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

#include <png.h>

typedef struct {
    dr_status status_on_error;
    char message[DR_MESSAGE_CAPACITY];
    int write_failed; /* libpng's stdio writer reported a short write */
} dr_png_error_state;

static void dr_png_error_fn(png_structp png, png_const_charp message) {
    dr_png_error_state *state = png_get_error_ptr(png);
    snprintf(state->message, sizeof state->message, "%s", message ? message : "libpng error");
    if (message && strcmp(message, "Write Error") == 0) {
        state->write_failed = 1;
    }
    png_longjmp(png, 1);
}

/* Warnings (an unknown sRGB profile, a bad CRC in an ancillary chunk) leave the pixels intact. */
static void dr_png_warning_fn(png_structp png, png_const_charp message) {
    (void)png;
    (void)message;
}

static void dr_png_fail(dr_error *error, const dr_png_error_state *state, int saved_errno) {
    if (state->write_failed) {
        dr_set_error(error, DR_WRITE, "%s", saved_errno ? strerror(saved_errno) : "write error");
    } else {
        dr_set_error(error, state->status_on_error, "%s", state->message);
    }
}

/* ---------------------------------------------------------------- decoding */

struct dr_png_decoder {
    png_structp png;
    png_infop info;
    dr_png_error_state state;
    uint32_t width, height;
    size_t rowbytes;
    uint32_t next_row;
    int interlaced;
    uint8_t *image; /* whole image, for interlaced files only (Adam7 needs every pass) */
    png_bytep *row_pointers; /* into image; freed by close, since png_read_image may longjmp */
    int finished;
};

dr_png_decoder *dr_png_decoder_open(FILE *file, uint64_t max_pixels, dr_image_info *info, dr_error *error) {
    dr_png_decoder *d = calloc(1, sizeof *d);
    if (!d) {
        dr_set_error(error, DR_INTERNAL, "out of memory");
        return NULL;
    }
    d->state.status_on_error = DR_DECODE;
    d->png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &d->state, dr_png_error_fn, dr_png_warning_fn);
    if (!d->png) {
        dr_set_error(error, DR_INTERNAL, "png_create_read_struct failed");
        free(d);
        return NULL;
    }
    d->info = png_create_info_struct(d->png);
    if (!d->info) {
        dr_set_error(error, DR_INTERNAL, "png_create_info_struct failed");
        dr_png_decoder_close(d);
        return NULL;
    }
    if (setjmp(png_jmpbuf(d->png))) {
        dr_png_fail(error, &d->state, 0);
        dr_png_decoder_close(d);
        return NULL;
    }
    png_init_io(d->png, file);
    png_set_sig_bytes(d->png, 8); /* the caller already read and checked the signature */
    /* Our own pixel limit below is the one that matters; lift libpng's 1M-per-side default. */
    png_set_user_limits(d->png, 0x7fffffff, 0x7fffffff);
    /* Skip every ancillary chunk but tRNS unread (colour management is not applied): libpng
     * would allocate what a tEXt, zTXt, iTXt, sPLT, pCAL or sCAL length claims, up to 2 GB,
     * before reading it, and a 289-byte file claims 553 MB (Fuzz/Regressions/png). */
    png_set_keep_unknown_chunks(d->png, PNG_HANDLE_CHUNK_NEVER, NULL, -1);
    png_read_info(d->png, d->info);

    png_uint_32 width = 0, height = 0;
    int bit_depth = 0, color_type = 0, interlace = 0;
    png_get_IHDR(d->png, d->info, &width, &height, &bit_depth, &color_type, &interlace, NULL, NULL);
    uint64_t pixels = (uint64_t)width * height;
    if (pixels > max_pixels) {
        dr_set_error(error, DR_TOO_MANY_PIXELS, "%ux%u is %llu pixels, more than the limit of %llu",
                     (unsigned)width, (unsigned)height, (unsigned long long)pixels,
                     (unsigned long long)max_pixels);
        dr_png_decoder_close(d);
        return NULL;
    }

    int has_trns = png_get_valid(d->png, d->info, PNG_INFO_tRNS) != 0;
    if (color_type == PNG_COLOR_TYPE_PALETTE) png_set_palette_to_rgb(d->png);
    if (color_type == PNG_COLOR_TYPE_GRAY && bit_depth < 8) png_set_expand_gray_1_2_4_to_8(d->png);
    if (has_trns) png_set_tRNS_to_alpha(d->png);
    if (bit_depth == 16) png_set_scale_16(d->png); /* rounds, where strip_16 truncates */
    if (color_type == PNG_COLOR_TYPE_GRAY || color_type == PNG_COLOR_TYPE_GRAY_ALPHA) png_set_gray_to_rgb(d->png);
    int passes = png_set_interlace_handling(d->png);
    png_read_update_info(d->png, d->info);

    uint32_t channels = png_get_channels(d->png, d->info);
    if ((channels != 3 && channels != 4) || png_get_bit_depth(d->png, d->info) != 8) {
        dr_set_error(error, DR_DECODE, "unsupported PNG layout (%u channels, %d bits)", channels,
                     png_get_bit_depth(d->png, d->info));
        dr_png_decoder_close(d);
        return NULL;
    }
    d->width = width;
    d->height = height;
    d->rowbytes = png_get_rowbytes(d->png, d->info);
    d->interlaced = passes > 1;

    info->format = DR_FORMAT_PNG;
    info->width = width;
    info->height = height;
    info->channels = channels;
    info->source_components = (color_type & PNG_COLOR_MASK_PALETTE) ? 1
                              : ((color_type & PNG_COLOR_MASK_COLOR) ? 3 : 1) + ((color_type & PNG_COLOR_MASK_ALPHA) ? 1 : 0);
    info->source_bit_depth = (uint32_t)bit_depth;
    info->progressive_or_interlaced = d->interlaced;
    return d;
}

static void dr_png_read_whole_image(dr_png_decoder *d) {
    d->image = malloc(d->rowbytes * d->height);
    d->row_pointers = malloc(sizeof(png_bytep) * d->height);
    if (!d->image || !d->row_pointers) {
        d->state.status_on_error = DR_INTERNAL;
        png_error(d->png, "out of memory for an interlaced image");
    }
    for (uint32_t y = 0; y < d->height; y++) d->row_pointers[y] = d->image + (size_t)y * d->rowbytes;
    png_read_image(d->png, d->row_pointers);
    free(d->row_pointers);
    d->row_pointers = NULL;
}

dr_status dr_png_decoder_read_rows(dr_png_decoder *d, uint8_t *rows, size_t stride, uint32_t max_rows,
                                   uint32_t *rows_read, dr_error *error) {
    *rows_read = 0;
    if (d->finished) {
        return DR_OK;
    }
    volatile uint32_t done = 0;
    if (setjmp(png_jmpbuf(d->png))) {
        dr_png_fail(error, &d->state, 0);
        d->finished = 1;
        return error->status;
    }
    if (d->interlaced && !d->image) {
        dr_png_read_whole_image(d);
    }
    while (done < max_rows && d->next_row < d->height) {
        uint8_t *row = rows + (size_t)done * stride;
        if (d->interlaced) {
            memcpy(row, d->image + (size_t)d->next_row * d->rowbytes, d->rowbytes);
        } else {
            png_read_row(d->png, row, NULL);
        }
        d->next_row++;
        done++;
    }
    if (d->next_row >= d->height) {
        /* Reads the chunks after the pixels up to IEND, checking their CRCs. */
        png_read_end(d->png, NULL);
        d->finished = 1;
    }
    *rows_read = done;
    return DR_OK;
}

void dr_png_decoder_close(dr_png_decoder *d) {
    if (!d) return;
    png_destroy_read_struct(&d->png, d->info ? &d->info : NULL, NULL);
    free(d->row_pointers);
    free(d->image);
    free(d);
}

/* ---------------------------------------------------------------- encoding */

struct dr_png_encoder {
    png_structp png;
    png_infop info;
    dr_png_error_state state;
    uint32_t height;
    uint32_t written;
};

dr_png_encoder *dr_png_encoder_open(FILE *file, uint32_t width, uint32_t height, uint32_t channels,
                                    int compression, dr_error *error) {
    dr_png_encoder *e = calloc(1, sizeof *e);
    if (!e) {
        dr_set_error(error, DR_INTERNAL, "out of memory");
        return NULL;
    }
    e->height = height;
    e->state.status_on_error = DR_INTERNAL;
    e->png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &e->state, dr_png_error_fn, dr_png_warning_fn);
    if (!e->png) {
        dr_set_error(error, DR_INTERNAL, "png_create_write_struct failed");
        free(e);
        return NULL;
    }
    e->info = png_create_info_struct(e->png);
    if (!e->info) {
        dr_set_error(error, DR_INTERNAL, "png_create_info_struct failed");
        dr_png_encoder_close(e);
        return NULL;
    }
    if (setjmp(png_jmpbuf(e->png))) {
        dr_png_fail(error, &e->state, errno);
        dr_png_encoder_close(e);
        return NULL;
    }
    png_init_io(e->png, file);
    if (compression >= 0 && compression <= 9) png_set_compression_level(e->png, compression);
    png_set_IHDR(e->png, e->info, width, height, 8, channels == 4 ? PNG_COLOR_TYPE_RGB_ALPHA : PNG_COLOR_TYPE_RGB,
                 PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_write_info(e->png, e->info);
    return e;
}

dr_status dr_png_encoder_write_rows(dr_png_encoder *e, const uint8_t *rows, size_t stride, uint32_t count,
                                    dr_error *error) {
    if (setjmp(png_jmpbuf(e->png))) {
        dr_png_fail(error, &e->state, errno);
        return error->status;
    }
    for (uint32_t i = 0; i < count; i++) {
        png_write_row(e->png, rows + (size_t)i * stride);
        e->written++;
    }
    return DR_OK;
}

dr_status dr_png_encoder_finish(dr_png_encoder *e, FILE *file, dr_error *error) {
    if (e->written < e->height) {
        dr_set_error(error, DR_INTERNAL, "only %u of %u rows were written", e->written, e->height);
        return DR_INTERNAL;
    }
    if (setjmp(png_jmpbuf(e->png))) {
        dr_png_fail(error, &e->state, errno);
        return error->status;
    }
    png_write_end(e->png, NULL);
    return dr_flush_file(file, error);
}

void dr_png_encoder_close(dr_png_encoder *e) {
    if (!e) return;
    png_destroy_write_struct(&e->png, e->info ? &e->info : NULL);
    free(e);
}

const char *dr_libpng_version(void) { return "libpng " PNG_LIBPNG_VER_STRING; }
