#include "codec_internal.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

void dr_set_error(dr_error *error, dr_status status, const char *format, ...) {
    if (!error) return;
    error->status = status;
    va_list args;
    va_start(args, format);
    vsnprintf(error->message, sizeof error->message, format, args);
    va_end(args);
}

dr_status dr_flush_file(FILE *file, dr_error *error) {
    errno = 0;
    if (fflush(file) != 0 || ferror(file)) {
        dr_set_error(error, DR_WRITE, "%s", errno ? strerror(errno) : "write error");
        return DR_WRITE;
    }
    return DR_OK;
}

static const uint8_t png_signature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};

dr_format dr_detect_format(const uint8_t *bytes, size_t count) {
    /* SOI alone: a JPEG whose first marker is damaged is a damaged JPEG, not a foreign file. */
    if (count >= 2 && bytes[0] == 0xFF && bytes[1] == 0xD8) return DR_FORMAT_JPEG;
    if (count >= 8 && memcmp(bytes, png_signature, 8) == 0) return DR_FORMAT_PNG;
    return DR_FORMAT_UNKNOWN;
}

struct dr_decoder {
    dr_format format;
    void *codec;
};

dr_decoder *dr_decoder_open(FILE *file, uint64_t max_pixels, dr_image_info *info, dr_error *error) {
    return dr_decoder_open_with(file, max_pixels, 0, info, error);
}

dr_decoder *dr_decoder_open_with(FILE *file, uint64_t max_pixels, uint32_t options, dr_image_info *info,
                                 dr_error *error) {
    memset(info, 0, sizeof *info);
    dr_set_error(error, DR_OK, "%s", "");
    uint8_t head[8];
    long start = ftell(file);
    size_t got = fread(head, 1, sizeof head, file);
    dr_format format = dr_detect_format(head, got);
    void *codec = NULL;
    switch (format) {
    case DR_FORMAT_JPEG:
        /* libjpeg wants the stream from SOI; PNG is told the signature was consumed. */
        if (start < 0 || fseek(file, start, SEEK_SET) != 0) {
            dr_set_error(error, DR_INTERNAL, "cannot rewind the input: %s", strerror(errno));
            return NULL;
        }
        codec = dr_jpeg_decoder_open(file, max_pixels, options, info, error);
        break;
    case DR_FORMAT_PNG:
        codec = dr_png_decoder_open(file, max_pixels, info, error);
        break;
    default:
        if (got == 0) {
            dr_set_error(error, DR_NOT_AN_IMAGE, "the file is empty");
        } else {
            dr_set_error(error, DR_NOT_AN_IMAGE, "neither JPEG nor PNG (starts with %02x %02x %02x %02x)",
                         head[0], got > 1 ? head[1] : 0, got > 2 ? head[2] : 0, got > 3 ? head[3] : 0);
        }
        return NULL;
    }
    if (!codec) return NULL;
    dr_decoder *d = malloc(sizeof *d);
    if (!d) {
        if (format == DR_FORMAT_JPEG) dr_jpeg_decoder_close(codec); else dr_png_decoder_close(codec);
        dr_set_error(error, DR_INTERNAL, "out of memory");
        return NULL;
    }
    d->format = format;
    d->codec = codec;
    return d;
}

dr_status dr_decoder_read_rows(dr_decoder *d, uint8_t *rows, size_t stride, uint32_t max_rows, uint32_t *rows_read,
                               dr_error *error) {
    if (d->format == DR_FORMAT_JPEG) return dr_jpeg_decoder_read_rows(d->codec, rows, stride, max_rows, rows_read, error);
    return dr_png_decoder_read_rows(d->codec, rows, stride, max_rows, rows_read, error);
}

dr_status dr_decoder_read_ycc_band(dr_decoder *d, dr_ycc_band *band, dr_error *error) {
    if (d->format != DR_FORMAT_JPEG) {
        dr_set_error(error, DR_INTERNAL, "YCbCr planes from a PNG decoder");
        return DR_INTERNAL;
    }
    return dr_jpeg_decoder_read_ycc_band(d->codec, band, error);
}

void dr_decoder_close(dr_decoder *d) {
    if (!d) return;
    if (d->format == DR_FORMAT_JPEG) dr_jpeg_decoder_close(d->codec); else dr_png_decoder_close(d->codec);
    free(d);
}

struct dr_encoder {
    dr_format format;
    FILE *file;
    void *codec;
};

/* libjpeg's JPEG_MAX_DIMENSION: a larger side would fail inside libjpeg as an internal
 * error. Such an image is valid (a 70000x1 PNG is within the pixel limit), it just cannot
 * be a JPEG: say so, from the size, before any work. */
static int dr_jpeg_size_fits(uint32_t width, uint32_t height, dr_error *error) {
    if (width <= 65500 && height <= 65500) return 1;
    dr_set_error(error, DR_TOO_MANY_PIXELS, "%ux%u is larger than JPEG allows (65500 pixels a side); ask for png output",
                 width, height);
    return 0;
}

dr_encoder *dr_encoder_open(FILE *file, dr_format format, uint32_t width, uint32_t height, uint32_t channels,
                            int quality, int png_compression, dr_error *error) {
    dr_set_error(error, DR_OK, "%s", "");
    if (width == 0 || height == 0 || (channels != 3 && channels != 4)) {
        dr_set_error(error, DR_INTERNAL, "cannot encode %ux%u with %u channels", width, height, channels);
        return NULL;
    }
    if (format == DR_FORMAT_JPEG && !dr_jpeg_size_fits(width, height, error)) return NULL;
    void *codec = NULL;
    if (format == DR_FORMAT_JPEG) {
        codec = dr_jpeg_encoder_open(file, width, height, channels, quality, error);
    } else if (format == DR_FORMAT_PNG) {
        codec = dr_png_encoder_open(file, width, height, channels, png_compression, error);
    } else {
        dr_set_error(error, DR_INTERNAL, "unknown output format");
    }
    if (!codec) return NULL;
    dr_encoder *e = malloc(sizeof *e);
    if (!e) {
        if (format == DR_FORMAT_JPEG) dr_jpeg_encoder_close(codec); else dr_png_encoder_close(codec);
        dr_set_error(error, DR_INTERNAL, "out of memory");
        return NULL;
    }
    e->format = format;
    e->file = file;
    e->codec = codec;
    return e;
}

/* A dr_encoder around an open JPEG codec (closed on failure); NULL passes through. */
static dr_encoder *dr_encoder_wrap_jpeg(FILE *file, dr_jpeg_encoder *codec, dr_error *error) {
    if (!codec) return NULL;
    dr_encoder *e = malloc(sizeof *e);
    if (!e) {
        dr_jpeg_encoder_close(codec);
        dr_set_error(error, DR_INTERNAL, "out of memory");
        return NULL;
    }
    e->format = DR_FORMAT_JPEG;
    e->file = file;
    e->codec = codec;
    return e;
}

dr_encoder *dr_encoder_open_ycc420(FILE *file, uint32_t width, uint32_t height, int quality, dr_error *error) {
    dr_set_error(error, DR_OK, "%s", "");
    if (width == 0 || height == 0) {
        dr_set_error(error, DR_INTERNAL, "cannot encode %ux%u", width, height);
        return NULL;
    }
    if (!dr_jpeg_size_fits(width, height, error)) return NULL;
    return dr_encoder_wrap_jpeg(file, dr_jpeg_encoder_open_ycc420(file, width, height, quality, error), error);
}

dr_encoder *dr_encoder_open_jpeg_layout(FILE *file, uint32_t width, uint32_t height, uint32_t channels, int quality,
                                        dr_jpeg_layout layout, dr_error *error) {
    dr_set_error(error, DR_OK, "%s", "");
    if (width == 0 || height == 0 || (channels != 3 && channels != 4)) {
        dr_set_error(error, DR_INTERNAL, "cannot encode %ux%u with %u channels", width, height, channels);
        return NULL;
    }
    return dr_encoder_wrap_jpeg(file, dr_jpeg_encoder_open_layout(file, width, height, channels, quality, &layout, error), error);
}

void dr_encoder_ycc_band(dr_encoder *e, dr_ycc_band *band) {
    memset(band, 0, sizeof *band);
    if (e->format == DR_FORMAT_JPEG) dr_jpeg_encoder_ycc_band(e->codec, band);
}

dr_status dr_encoder_write_ycc_band(dr_encoder *e, dr_error *error) {
    if (e->format != DR_FORMAT_JPEG) {
        dr_set_error(error, DR_INTERNAL, "YCbCr planes to a PNG encoder");
        return DR_INTERNAL;
    }
    return dr_jpeg_encoder_write_ycc_band(e->codec, error);
}

dr_status dr_encoder_write_rows(dr_encoder *e, const uint8_t *rows, size_t stride, uint32_t count, dr_error *error) {
    if (e->format == DR_FORMAT_JPEG) return dr_jpeg_encoder_write_rows(e->codec, rows, stride, count, error);
    return dr_png_encoder_write_rows(e->codec, rows, stride, count, error);
}

dr_status dr_encoder_finish(dr_encoder *e, dr_error *error) {
    if (e->format == DR_FORMAT_JPEG) return dr_jpeg_encoder_finish(e->codec, e->file, error);
    return dr_png_encoder_finish(e->codec, e->file, error);
}

void dr_encoder_close(dr_encoder *e) {
    if (!e) return;
    if (e->format == DR_FORMAT_JPEG) dr_jpeg_encoder_close(e->codec); else dr_png_encoder_close(e->codec);
    free(e);
}
