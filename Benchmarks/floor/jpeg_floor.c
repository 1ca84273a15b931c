/*
 * jpeg_floor: the plain JPEG decode + encode floor for scripts/bench-filter.
 *
 *   jpeg_floor -o OUTDIR FILE...
 *
 * For each FILE: decode with libjpeg(-turbo) to RGB (default settings:
 * JDCT_ISLOW, fancy upsampling), a few rows at a time, and hand each batch of
 * rows straight to a libjpeg compressor (JCS_RGB in, jpeg_set_defaults,
 * quality 90, default 4:2:0, no optimize_coding) writing OUTDIR/<name>.jpg,
 * where <name> is FILE's base name without its extension.  No filter at all:
 * this is the cost of the codec alone, which no decode-filter-encode pipeline
 * can beat.  The whole image is never held in memory.
 *
 * Build: gcc -O2 -o jpeg_floor jpeg_floor.c -ljpeg
 * Exit status: 0 if every file was written, 1 if any failed, 2 on bad usage.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jpeglib.h>

#define ROWS_PER_BATCH 16
#define QUALITY 90

struct error_mgr {
    struct jpeg_error_mgr pub;
    jmp_buf *jump;
    const char *file;
};

static void on_error(j_common_ptr cinfo) {
    struct error_mgr *err = (struct error_mgr *)cinfo->err;
    char message[JMSG_LENGTH_MAX];
    (*cinfo->err->format_message)(cinfo, message);
    fprintf(stderr, "jpeg_floor: %s: %s\n", err->file, message);
    longjmp(*err->jump, 1);
}

static void on_warning(j_common_ptr cinfo, int level) {
    (void)cinfo;
    (void)level; /* corrupt-data warnings are not fatal, as in libjpeg's default */
}

/* OUTDIR/<basename without extension>.jpg */
static char *output_path(const char *outdir, const char *input) {
    const char *base = strrchr(input, '/');
    base = base ? base + 1 : input;
    size_t stem = strlen(base);
    const char *dot = strrchr(base, '.');
    if (dot && dot != base) stem = (size_t)(dot - base);
    size_t size = strlen(outdir) + 1 + stem + sizeof(".jpg");
    char *path = malloc(size);
    if (path) snprintf(path, size, "%s/%.*s.jpg", outdir, (int)stem, base);
    return path;
}

static int process(const char *input, const char *outdir) {
    struct jpeg_decompress_struct din;
    struct jpeg_compress_struct cout;
    struct error_mgr derr, cerr;
    jmp_buf jump;
    /* volatile: read after a longjmp */
    FILE *volatile in = NULL;
    FILE *volatile out = NULL;
    char *volatile path = NULL;
    JSAMPARRAY volatile rows = NULL;
    volatile int dinit = 0, cinit = 0;
    volatile int ok = 0;

    din.err = jpeg_std_error(&derr.pub);
    derr.pub.error_exit = on_error;
    derr.pub.emit_message = on_warning;
    derr.file = input;
    derr.jump = &jump;
    cout.err = jpeg_std_error(&cerr.pub);
    cerr.pub.error_exit = on_error;
    cerr.pub.emit_message = on_warning;
    cerr.file = input;
    cerr.jump = &jump;

    if (setjmp(jump)) goto done; /* any libjpeg error, decoder or encoder */

    in = fopen(input, "rb");
    if (!in) {
        fprintf(stderr, "jpeg_floor: %s: %s\n", input, strerror(errno));
        goto done;
    }
    path = output_path(outdir, input);
    if (!path) goto done;

    jpeg_create_decompress(&din);
    dinit = 1;
    jpeg_stdio_src(&din, in);
    jpeg_read_header(&din, TRUE);
    din.out_color_space = JCS_RGB; /* defaults otherwise: JDCT_ISLOW, fancy upsampling */
    jpeg_start_decompress(&din);

    out = fopen(path, "wb");
    if (!out) {
        fprintf(stderr, "jpeg_floor: %s: %s\n", path, strerror(errno));
        goto done;
    }
    jpeg_create_compress(&cout);
    cinit = 1;
    jpeg_stdio_dest(&cout, out);
    cout.image_width = din.output_width;
    cout.image_height = din.output_height;
    cout.input_components = 3;
    cout.in_color_space = JCS_RGB;
    jpeg_set_defaults(&cout); /* 4:2:0, JDCT_ISLOW, no optimize_coding */
    jpeg_set_quality(&cout, QUALITY, TRUE);
    jpeg_start_compress(&cout, TRUE);

    rows = (*din.mem->alloc_sarray)((j_common_ptr)&din, JPOOL_IMAGE,
                                    din.output_width * din.output_components, ROWS_PER_BATCH);
    while (din.output_scanline < din.output_height) {
        JDIMENSION got = 0;
        JDIMENSION want = din.output_height - din.output_scanline;
        if (want > ROWS_PER_BATCH) want = ROWS_PER_BATCH;
        while (got < want) got += jpeg_read_scanlines(&din, rows + got, want - got);
        JDIMENSION put = 0;
        while (put < got) put += jpeg_write_scanlines(&cout, rows + put, got - put);
    }
    jpeg_finish_compress(&cout);
    jpeg_finish_decompress(&din);
    if (fflush(out) != 0 || ferror(out)) {
        fprintf(stderr, "jpeg_floor: %s: write failed\n", path);
        goto done;
    }
    ok = 1;

done:
    if (cinit) jpeg_destroy_compress(&cout);
    if (dinit) jpeg_destroy_decompress(&din);
    if (out && fclose(out) != 0) ok = 0;
    if (in) fclose(in);
    if (!ok && path) remove(path);
    free(path);
    return ok;
}

int main(int argc, char **argv) {
    const char *outdir = NULL;
    int first = 1;
    while (first < argc && argv[first][0] == '-') {
        if (strcmp(argv[first], "-o") == 0 && first + 1 < argc) {
            outdir = argv[first + 1];
            first += 2;
        } else if (strcmp(argv[first], "--") == 0) {
            first++;
            break;
        } else {
            outdir = NULL;
            first = argc + 1;
        }
    }
    if (!outdir || first >= argc) {
        fprintf(stderr, "usage: jpeg_floor -o OUTDIR FILE...\n");
        return 2;
    }
    int failed = 0;
    for (int i = first; i < argc; i++)
        if (!process(argv[i], outdir)) failed = 1;
    return failed;
}
