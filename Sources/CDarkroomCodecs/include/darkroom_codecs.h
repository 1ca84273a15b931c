#ifndef DARKROOM_CODECS_H
#define DARKROOM_CODECS_H

/*
 * Streaming JPEG/PNG codecs over libjpeg-turbo and libpng.
 *
 * Why C: libjpeg's default error handler calls exit() and libpng reports errors
 * with longjmp. Swift survives neither, so every library call happens here, under
 * a setjmp, and comes back as a dr_status plus the library's own message.
 *
 * Pixels cross this boundary as 8-bit interleaved rows, RGB (3 channels) or RGBA
 * (4 channels), top to bottom. Decoders hand out a few rows at a time so that a
 * caller can stream decode -> filter -> encode without holding the whole image.
 *
 * Threading: a decoder or encoder is used by one thread at a time; distinct
 * objects are independent.
 */

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    DR_FORMAT_UNKNOWN = 0,
    DR_FORMAT_JPEG = 1,
    DR_FORMAT_PNG = 2,
} dr_format;

/* Mirrors the error codes of the journal (SPEC section 4) that codecs can cause. */
typedef enum {
    DR_OK = 0,
    DR_NOT_AN_IMAGE = 1,
    DR_DECODE = 2,
    DR_TOO_MANY_PIXELS = 3,
    DR_WRITE = 4,
    DR_INTERNAL = 5,
} dr_status;

#define DR_MESSAGE_CAPACITY 256

typedef struct {
    dr_status status;
    char message[DR_MESSAGE_CAPACITY];
} dr_error;

typedef struct {
    dr_format format;
    uint32_t width;
    uint32_t height;
    /* Channels of the rows the decoder hands out: 3 (RGB) or 4 (RGBA). */
    uint32_t channels;
    /* Informational: components in the file (1 gray, 3 colour, 4 CMYK/YCCK) and layout. */
    uint32_t source_components;
    uint32_t source_bit_depth;
    int progressive_or_interlaced;
    /* 1 when the decoder hands out YCbCr planes (dr_decoder_read_ycc_band), not rows. */
    int ycc_planes;
} dr_image_info;

/* Format from the first bytes: JPEG SOI + marker, or the PNG signature. */
dr_format dr_detect_format(const uint8_t *bytes, size_t count);

typedef struct dr_decoder dr_decoder;

/*
 * Reads the header from `file` (positioned at the image's first byte) and checks
 * width * height against `max_pixels` before any pixel memory is allocated.
 * Returns NULL with `error` set on failure. The decoder does not own `file`.
 */
dr_decoder *dr_decoder_open(FILE *file, uint64_t max_pixels, dr_image_info *info, dr_error *error);

/*
 * Options of dr_decoder_open_with. DR_DECODE_YCC_PLANES asks a JPEG decoder for its YCbCr
 * planes, skipping libjpeg's upsampling and colour conversion, when the file is 3-component
 * YCbCr with 4:4:4, 4:2:2 or 4:2:0 chroma; other files (4:4:0 among them) still come out
 * as rows. info->ycc_planes tells which.
 */
#define DR_DECODE_YCC_PLANES 1u
dr_decoder *dr_decoder_open_with(FILE *file, uint64_t max_pixels, uint32_t options, dr_image_info *info,
                                 dr_error *error);

/*
 * A band of DR_YCC_BAND_ROWS luma rows of YCbCr planes: Y, and Cb/Cr subsampled by
 * h_sub x v_sub (1 or 2). Samples are valid up to padded_width luma columns (a multiple
 * of 16) and for every row of the band: past the image's right and bottom edges the
 * last column and row are repeated, as libjpeg's encoder does before downsampling.
 * `rows` is how many of the band's rows belong to the image. The *_above and *_below rows
 * are the chroma rows just outside the band (repeated at the image's top and bottom):
 * interpolating v_sub = 2 chroma as libjpeg does needs them.
 */
#define DR_YCC_BAND_ROWS 16
typedef struct {
    uint8_t *y;
    uint8_t *cb;
    uint8_t *cr;
    size_t y_stride;
    size_t c_stride;
    uint32_t h_sub;
    uint32_t v_sub;
    uint32_t padded_width;
    uint32_t rows;
    const uint8_t *cb_above;
    const uint8_t *cr_above;
    const uint8_t *cb_below;
    const uint8_t *cr_below;
} dr_ycc_band;

/*
 * Decodes the next band into the decoder's own planes and points `band` at them; rows is
 * 0 once the image is done. As dr_decoder_read_rows, the last band also reads the rest of
 * the stream. Only for a decoder whose info said ycc_planes.
 */
dr_status dr_decoder_read_ycc_band(dr_decoder *decoder, dr_ycc_band *band, dr_error *error);

/*
 * Decodes up to `max_rows` rows into `rows` (row i at rows + i * stride, each row
 * width * channels bytes). Sets *rows_read (0 once every row was handed out).
 * After the last row it also reads the rest of the stream, so damage after the
 * pixels (a bad CRC in a trailing chunk, a truncated JPEG) is still reported.
 */
dr_status dr_decoder_read_rows(dr_decoder *decoder, uint8_t *rows, size_t stride, uint32_t max_rows,
                               uint32_t *rows_read, dr_error *error);

void dr_decoder_close(dr_decoder *decoder);

typedef struct dr_encoder dr_encoder;

/*
 * Starts writing an image of the given size to `file`. `channels` is 3 or 4; a
 * JPEG has no alpha, so RGBA rows are composited over white when format is JPEG.
 * `quality` (1...100) applies to JPEG; PNG uses zlib level `png_compression`
 * (0...9, or -1 for the library default). The encoder does not own `file`.
 */
dr_encoder *dr_encoder_open(FILE *file, dr_format format, uint32_t width, uint32_t height,
                            uint32_t channels, int quality, int png_compression, dr_error *error);

dr_status dr_encoder_write_rows(dr_encoder *encoder, const uint8_t *rows, size_t stride, uint32_t count,
                                dr_error *error);

/* Writes the trailer and flushes the FILE. Fails with DR_WRITE if rows are missing or I/O failed. */
dr_status dr_encoder_finish(dr_encoder *encoder, dr_error *error);

void dr_encoder_close(dr_encoder *encoder);

/*
 * A JPEG encoder (4:2:0, `quality`) that takes YCbCr planes as they go into the DCT,
 * skipping libjpeg's colour conversion and downsampling. The caller fills the band that
 * dr_encoder_ycc_band describes (DR_YCC_BAND_ROWS rows of Y, half as many of Cb and Cr,
 * padded_width luma columns, edges repeated) and calls dr_encoder_write_ycc_band for each
 * band, top to bottom; then dr_encoder_finish.
 */
dr_encoder *dr_encoder_open_ycc420(FILE *file, uint32_t width, uint32_t height, int quality, dr_error *error);
void dr_encoder_ycc_band(dr_encoder *encoder, dr_ycc_band *band);
dr_status dr_encoder_write_ycc_band(dr_encoder *encoder, dr_error *error);

/*
 * For tests and measurements: a JPEG rows encoder as dr_encoder_open, with Y sampled at
 * luma_h_factor x luma_v_factor (1 or 2; chroma 1x1, so 2x1 is 4:2:2), progressive scans
 * or not, and a restart marker every restart_rows MCU rows (0: none).
 */
typedef struct {
    int luma_h_factor;
    int luma_v_factor;
    int progressive;
    int restart_rows;
} dr_jpeg_layout;
dr_encoder *dr_encoder_open_jpeg_layout(FILE *file, uint32_t width, uint32_t height, uint32_t channels, int quality,
                                        dr_jpeg_layout layout, dr_error *error);

/* Version strings of the linked libraries, for --version and benchmarks. */
const char *dr_libjpeg_version(void);
const char *dr_libpng_version(void);

#ifdef __cplusplus
}
#endif

#endif
