/*
 * backend.h -- the seam between the pipeline and where the pixel-parallel
 * stages run. A backend does colour transform + level shift, the spatial
 * transform and (de)quantization for a whole image (forward, inverse), and
 * the whole chain from samples to coded code blocks and back (encode,
 * decode; the types they take are stage/'s); the container stays on the
 * host. The CPU backend (codec/backend_cpu.c) is the
 * reference; the CUDA backend (cuda/) must give the same bits.
 */
#ifndef WC_BACKEND_H
#define WC_BACKEND_H

#include "wc_common.h"

enum { WC_COLOUR_NONE = 0, WC_COLOUR_RCT = 1, WC_COLOUR_ICT = 2 };
#define WC_MAX_STEPS 64 /* DWT: 3*15+1 bands; DCT/LOT: 64 frequencies */

/*
 * What to do to an image. Components 0..2 go through `colour` when
 * components >= 3; alpha (component 1 of GA, 3 of RGBA) and gray never do.
 * Each component c has its own transform (alpha is always DWT 5/3 so it
 * stays exact), wavelet (53 or 97) and steps[c][band] in dwt_bands order,
 * or in raster order of the 8x8 block (index (y&7)*8 + (x&7)) for DCT/LOT.
 * DCT/LOT planes are first extended to multiples of 8 by mirroring
 * (blk8_pad), so their coefficient planes are ceil8(w) x ceil8(h).
 *
 * Sample preparation: s = sample - 2^(bit_depth-1) (level shift).
 * RCT (int): Y = (R + 2G + B) >> 2, U = B - G, V = R - G.
 * ICT (float, in this order, no FMA):
 *   Y  = (0.299f*R + 0.587f*G) + 0.114f*B
 *   Cb = (-0.168736f*R + -0.331264f*G) + 0.5f*B
 *   Cr = (0.5f*R + -0.418688f*G) + -0.081312f*B
 * Inverse ICT: R = Y + 1.402f*Cr; G = (Y + -0.344136f*Cb) + -0.714136f*Cr;
 *              B = Y + 1.772f*Cb.
 * Float planes (9/7) are made from the integer components (float)s, then
 * colour, then transform. An integer plane (5/3) with ICT is not allowed.
 *
 * Quantization of a coefficient c (int32 or float) with step D, threshold T:
 *   a = fabsf((float)c); if (a < T) q = 0; else q = (int32)(a / D);
 *   q carries c's sign. When D == 1 and T == 0 for an int plane, q = c.
 * Dequantization: q == 0 -> 0; else v = ((float)|q| + recon) * D, with q's
 * sign; int planes take (int32)floorf(v + 0.5f) of the magnitude.
 * Dequantizing an int plane with D == 1 leaves it as it is (lossless).
 * Magnitudes are capped at WC_QMAX (transform/quantizer.h) so nothing leaves int32.
 * Output samples: int planes exact; float planes as floorf(x + 0.5f)
 * clamped in float to [-2^(d-1), 2^(d-1) - 1] (NaN to the low end), then
 * converted; + 2^(bit_depth-1); int planes clamped to [0, 2^d - 1].
 * Integer lifting and RCT use wrapping (uint32) adds so damaged files
 * cannot cause signed overflow.
 */
typedef struct wc_stage_plan {
    uint32_t width, height, components, bit_depth;
    int colour;                   /* WC_COLOUR_* */
    int transform[4];             /* WC_TRANSFORM_* per component */
    int wavelet[4];               /* 53 or 97 per component (DWT) */
    int levels;                   /* DWT levels */
    float steps[4][WC_MAX_STEPS]; /* per component, per band */
    float threshold[4];           /* per component */
    float recon;                  /* reconstruction offset in [0, 1) */
    int quantize;                 /* forward: 0 = stop before quantizing */
    int threads;                  /* host threads a backend may use (0 = all);
                                        results never depend on it */
    struct wc_pool *pool;         /* where a host backend takes its large
                                        buffers (pool.h); NULL: malloc */
    int band_output;              /* forward may leave DCT/LOT planes in
                                        band layout (wc_coeffs.banded) */
    int device_memory;            /* samples (in or out) are CUDA device
                                        memory: a host backend refuses with
                                        WC_ERR_UNSUPPORTED */
    void *stream;                 /* the caller's cudaStream_t, or NULL */
    uint64_t max_device_memory;   /* device bytes an encode may allocate
                                        (0: what the device has free); a
                                        device backend codes a larger image
                                        in strips */
} wc_stage_plan;

/* Whether component c's planes hold floats: 9/7 and the block transforms
 * (DCT, LOT) work in float, the 5/3 DWT in int32. Every backend and the
 * encoder ask this one question the same way. */
static inline int wc_plan_is_float(const wc_stage_plan *p, uint32_t c)
{
    return p->transform[c] != WC_TRANSFORM_DWT || p->wavelet[c] == 97 || p->wavelet[c] == 197 ||
           p->wavelet[c] == 207;
}

/* Coefficient planes, width[c] x height[c], row-major, Mallat layout.
 * q[c] holds quantized coefficients; f[c] holds unquantized float
 * coefficients of 9/7 planes when plan->quantize == 0 (and q[c] the 5/3
 * integer coefficients). The caller owns and sizes the planes. */
typedef struct wc_coeffs {
    uint32_t width[4], height[4]; /* per component (DCT/LOT: padded) */
    uint32_t components;
    int32_t *q[4];
    float *f[4];
    /* Set by a caller that has no further use for q after an inverse: the
     * backend may then work in those planes instead of copies (for the
     * decoder, 4 bytes a sample less to allocate, fault in and copy). */
    int consumable;
    /* Set by a forward that left its DCT/LOT planes in band layout (as
     * the encoder codes them) instead of block layout. */
    int banded;
} wc_coeffs;

struct wcx_header;
struct wc_layout;
struct es_output;
struct es_input;

/* What the whole-chain entry needs besides the stage plan: the file's
 * header (entropy mode, code-block size, lossless flag) and its layout
 * (bands, coding classes, code blocks), both from the host's plan. The
 * backend reports the seconds it spent per stage as it saw them. */
typedef struct wc_chain {
    const struct wcx_header *header;
    const struct wc_layout *layout;
    int deflate_level;
    double t_transform; /* out: upload, colour, transform, quantize */
    double t_entropy;   /* out: modelling, tables, coding, download */
    const char *where;  /* out: which path coded the blocks, for --verbose */
    /* in: the image is the one the previous encode on this backend coded,
     * unchanged (a rate-control probe): a device backend may keep the
     * samples it uploaded then. */
    int same_samples;
    /* in: a rate-control probe that needs only the file's size (entropy
     * 0 on the CUDA backend): the backend may leave out->data[] NULL,
     * with data_size[], block_size and the tables set as a full encode's,
     * and keep what it needs for emit_last. A backend or mode that cannot
     * codes the payload as usual (out->data[] set). */
    int size_only;
    /* in: code the payload of the previous call on this backend, a
     * size_only probe of this image at this header and layout, from what
     * that call left (the CUDA backend: the planes, tokens and tables on
     * the device); where nothing is left, an encode from the start. */
    int emit_last;
    /* in: more images of this shape and these parameters follow on this
     * backend (a batch worker, codec/batch.c): a device backend may keep
     * per-shape state between calls (the CUDA backend: a CUDA graph of
     * its chain). The bytes never depend on it. */
    int repeats;
} wc_chain;

/* A backend: plain C function pointers over an opaque self. */
typedef struct wc_backend_ops {
    const char *name;
    /* Creates the backend's state (device buffers, streams); fails with
     * WC_ERR_BACKEND and a message when no device can be used. */
    wc_status (*create)(void **self, wc_err *err);
    void (*destroy)(void *self);
    wc_status (*forward)(void *self, const wc_stage_plan *plan, const wc_image *in, wc_coeffs *out,
                         wc_err *err);
    /* out->pixels is allocated by the caller for the plan's size/layout. */
    wc_status (*inverse)(void *self, const wc_stage_plan *plan, const wc_coeffs *in, wc_image *out,
                         wc_err *err);
    /* The whole chain, samples -> coded code blocks: colour, transform,
     * quantize (plan->quantize is 1), then entropy coding of every block
     * into *out (stage/entropy_stage.h; the caller frees it with
     * es_output_free). The bytes are the CPU backend's whatever runs them. */
    wc_status (*encode)(void *self, const wc_stage_plan *plan, const wc_image *in, wc_chain *chain,
                        struct es_output *out, wc_err *err);
    /* The whole chain back, coded code blocks -> samples: entropy decoding
     * of every block (damaged data gives an error, never a write outside
     * its block), dequantize, inverse transform, colour. out->pixels is
     * allocated by the caller for the plan's size/layout. */
    wc_status (*decode)(void *self, const wc_stage_plan *plan, wc_chain *chain,
                        const struct es_input *in, wc_image *out, wc_err *err);
    /* Optional (NULL: nothing to do): sizes the buffers an encode of this
     * plan and layout needs, before the samples exist, so that a program
     * can pay the set-up while it reads the image (wc_ctx_prepare). */
    wc_status (*prepare)(void *self, const wc_stage_plan *plan, const wc_chain *chain, wc_err *err);
    /* in's samples copied as they are into out (host memory, the same
     * shape), for the encoder's checks that read a few rows of pixels in
     * device memory (codec/encoder.c, lc_detect): a device backend's from
     * device memory, after plan->stream's work; the CPU backend's from
     * host memory, the same route without a device. NULL: none. */
    wc_status (*fetch)(void *self, const wc_stage_plan *plan, const wc_image *in, wc_image *out,
                       wc_err *err);
} wc_backend_ops;

const wc_backend_ops *wc_backend_cpu(void);
/* The CUDA backend, or NULL in a build without the CUDA toolkit. */
const wc_backend_ops *wc_backend_cuda(void);

/* CUDA devices the CUDA backend can use (CUDA_VISIBLE_DEVICES applies);
 * 0 without a driver, a device or CUDA in the build. */
int wcg_device_count(void);
/* Makes `device` the calling thread's current CUDA device, so that a CUDA
 * backend created next lives there (create takes the current device and
 * sets it again at each call); device < 0 leaves the current one. Fails
 * with WC_ERR_BACKEND (and a message) for an index out of range or a build
 * without CUDA. */
wc_status wcg_device_select(int device, wc_err *err);

#endif /* WC_BACKEND_H */
