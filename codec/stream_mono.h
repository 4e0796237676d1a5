/*
 * stream_mono.h -- the forward Monolithic DWT (wavelets 153 and 197,
 * transform/dwt_mono.c) fed one image row at a time, for encoding by rows
 * (codec/stream_encoder.c): memory grows with the width, not the area.
 *
 * The Monolithic scheme lifts the whole 2-D level in place, sweep after
 * sweep (4 for 5/3, 8 for 9/7), each sweep reading the rows above and
 * below; it is a local stencil, so a value depends only on rows at most
 * one per sweep away. A level is therefore computed by windows of rows:
 * the reference (dwt53m_forward / dwt97m_forward, one level) runs on the
 * rows [o - M, o + S + M) of the level's input and only the S rows in the
 * middle are kept: their values never saw the window's false edges (M is
 * the sweep count), at the true edges the window is the level's
 * and mirrors as it. Every coefficient is exactly the whole-plane
 * transform's; the price is running the M-row margins twice. A level one
 * sample thin (and all below it) is small and done whole, by the reference.
 */
#ifndef WC_STREAM_MONO_H
#define WC_STREAM_MONO_H

#include <stddef.h>
#include <stdint.h>

/* The sink: dwt_lines.h's dwl_emit_fn (a piece of Mallat plane row y from
 * column x0; int32_t for 153, float for 197; valid during the call). */
typedef void (*smono_emit_fn)(void *arg, uint32_t y, uint32_t x0, uint32_t n, const void *vals);

typedef struct smono smono;

/* A transform of a w x h plane with `levels` levels (<= dwt_max_levels),
 * wavelet 153 or 197. NULL when out of memory or the arguments are bad. */
smono *smono_create(int wavelet, uint32_t w, uint32_t h, int levels, smono_emit_fn emit, void *arg);
/* Feeds the next row (w samples). Returns 0, or -1 after all h rows were
 * given (or out of memory for a thin level). By the last row every
 * coefficient has been emitted. */
int smono_push(smono *t, const void *row);
void smono_free(smono *t);
/* Bytes a transform of that shape holds (for memory estimates). */
size_t smono_bytes(uint32_t w, int levels);

#endif /* WC_STREAM_MONO_H */
