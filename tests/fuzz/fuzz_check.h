/*
 * fuzz_check.h -- what the fuzz targets share: a check that aborts (so
 * libFuzzer and the replay main both report the input) and a byte reader
 * that turns the front of an input into parameters.
 */
#ifndef WC_FUZZ_CHECK_H
#define WC_FUZZ_CHECK_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define FUZZ_CHECK(cond, ...)                                                        \
    do {                                                                             \
        if (!(cond)) {                                                               \
            fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                                            \
            fputc('\n', stderr);                                                     \
            abort();                                                                 \
        }                                                                            \
    } while (0)

/* Consumes bytes from the front of the input; past the end it yields 0, so
 * every input, however short, maps to some parameters. */
typedef struct fuzz_bytes {
    const uint8_t *p;
    size_t left;
} fuzz_bytes;

static inline uint8_t fuzz_u8(fuzz_bytes *b)
{
    if (b->left == 0) return 0;
    b->left--;
    return *b->p++;
}

static inline uint32_t fuzz_u16(fuzz_bytes *b)
{
    uint32_t lo = fuzz_u8(b);
    return lo | (uint32_t)fuzz_u8(b) << 8;
}

#endif
