/*
 * dwt_lines.h -- the forward separable DWT (5/3 and 9/7) fed one image row
 * at a time, for encoding in memory that grows with the width, not the
 * area. Each level keeps a few rows in flight (the lifting steps' reach);
 * as soon as a row of a level has had all its vertical lifting it is
 * scaled (9/7), lifted along the row, and handed on: its high-pass part to
 * the caller, its low-pass half to the next level.
 *
 * Every coefficient is exactly the one dwt53_forward / dwt97_forward
 * gives (dwt.h's contract): each sample goes through the same operations
 * with the same operands; only the order between samples differs, which
 * the lifting's dependencies allow.
 */
#ifndef WC_DWT_LINES_H
#define WC_DWT_LINES_H

#include <stddef.h>
#include <stdint.h>

/* A finished piece of the Mallat plane: n coefficients of plane row y
 * from column x0 (int32_t for 5/3, float for 9/7). A piece never crosses
 * a band's edge in y and covers whole bands across (one or two). The
 * values are valid during the call only. */
typedef void (*dwl_emit_fn)(void *arg, uint32_t y, uint32_t x0, uint32_t n, const void *vals);

typedef struct dwl dwl;

/* A transform of a w x h plane with `levels` levels (<= dwt_max_levels)
 * of family 53 (int32_t samples) or 97 (float). NULL when out of memory
 * or the arguments are bad. */
dwl *dwl_create(int family, uint32_t w, uint32_t h, int levels, dwl_emit_fn emit, void *arg);
/* Feeds the next row (w samples of the family's type). Returns 0, or -1
 * after all h rows were given. By the last row every coefficient has been
 * emitted. */
int dwl_push(dwl *t, const void *row);
void dwl_free(dwl *t);
/* Bytes a transform of that shape holds (for memory estimates). */
size_t dwl_bytes(uint32_t w, int levels);

#endif /* WC_DWT_LINES_H */
