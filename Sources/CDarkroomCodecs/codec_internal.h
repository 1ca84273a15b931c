#ifndef DARKROOM_CODEC_INTERNAL_H
#define DARKROOM_CODEC_INTERNAL_H

#include "darkroom_codecs.h"

typedef struct dr_jpeg_decoder dr_jpeg_decoder;
typedef struct dr_jpeg_encoder dr_jpeg_encoder;
typedef struct dr_png_decoder dr_png_decoder;
typedef struct dr_png_encoder dr_png_encoder;

void dr_set_error(dr_error *error, dr_status status, const char *format, ...)
    __attribute__((format(printf, 3, 4)));

/* fflush + ferror, reporting errno as DR_WRITE (a full disk shows up here). */
dr_status dr_flush_file(FILE *file, dr_error *error);

dr_jpeg_decoder *dr_jpeg_decoder_open(FILE *file, uint64_t max_pixels, uint32_t options, dr_image_info *info,
                                      dr_error *error);
dr_status dr_jpeg_decoder_read_ycc_band(dr_jpeg_decoder *d, dr_ycc_band *band, dr_error *error);
dr_status dr_jpeg_decoder_read_rows(dr_jpeg_decoder *d, uint8_t *rows, size_t stride, uint32_t max_rows,
                                    uint32_t *rows_read, dr_error *error);
void dr_jpeg_decoder_close(dr_jpeg_decoder *d);
dr_jpeg_encoder *dr_jpeg_encoder_open(FILE *file, uint32_t width, uint32_t height, uint32_t channels, int quality,
                                      dr_error *error);
dr_jpeg_encoder *dr_jpeg_encoder_open_layout(FILE *file, uint32_t width, uint32_t height, uint32_t channels,
                                             int quality, const dr_jpeg_layout *layout, dr_error *error);
dr_jpeg_encoder *dr_jpeg_encoder_open_ycc420(FILE *file, uint32_t width, uint32_t height, int quality,
                                             dr_error *error);
void dr_jpeg_encoder_ycc_band(dr_jpeg_encoder *e, dr_ycc_band *band);
dr_status dr_jpeg_encoder_write_ycc_band(dr_jpeg_encoder *e, dr_error *error);
dr_status dr_jpeg_encoder_write_rows(dr_jpeg_encoder *e, const uint8_t *rows, size_t stride, uint32_t count,
                                     dr_error *error);
dr_status dr_jpeg_encoder_finish(dr_jpeg_encoder *e, FILE *file, dr_error *error);
void dr_jpeg_encoder_close(dr_jpeg_encoder *e);

dr_png_decoder *dr_png_decoder_open(FILE *file, uint64_t max_pixels, dr_image_info *info, dr_error *error);
dr_status dr_png_decoder_read_rows(dr_png_decoder *d, uint8_t *rows, size_t stride, uint32_t max_rows,
                                   uint32_t *rows_read, dr_error *error);
void dr_png_decoder_close(dr_png_decoder *d);
dr_png_encoder *dr_png_encoder_open(FILE *file, uint32_t width, uint32_t height, uint32_t channels,
                                    int compression, dr_error *error);
dr_status dr_png_encoder_write_rows(dr_png_encoder *e, const uint8_t *rows, size_t stride, uint32_t count,
                                    dr_error *error);
dr_status dr_png_encoder_finish(dr_png_encoder *e, FILE *file, dr_error *error);
void dr_png_encoder_close(dr_png_encoder *e);

#endif
