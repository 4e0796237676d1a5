/*
 * dwt.h -- CPU reference discrete wavelet transforms (CDF 5/3 and 9/7) and
 * the subband geometry of a multi-level Mallat decomposition.
 *
 * Numeric contract (the CUDA backend must give the same bits):
 *  - A level transforms the current LL region (w_l x h_l, top-left of the
 *    plane, row stride = plane width): first every column (vertical
 *    lifting), then every row (horizontal lifting), as JPEG 2000 Part 1
 *    Annex F (2D_SD = VER_SD then HOR_SD). The low half (ceil(n/2) samples)
 *    goes first, the high half (floor(n/2)) after it. A length-1 signal is
 *    left as it is (it is a low sample). Extension is whole-sample symmetric
 *    (x[-1] = x[1], x[n] = x[n-2]).
 *  - 5/3: d[i] = x[2i+1] - ((x[2i] + x[2i+2]) >> 1);
 *         s[i] = x[2i] + ((d[i-1] + d[i] + 2) >> 2)   (int32, >> is floor).
 *  - 9/7: float32, no FMA, each statement one rounding per operator, with
 *         the decimal literals below (the float bits in brackets):
 *           a = DWT97_ALPHA -1.586134342059924f  [-0x1.960ce6p+0]
 *           b = DWT97_BETA  -0.052980118572961f  [-0x1.b2035cp-5]
 *           g = DWT97_GAMMA  0.882911075530934f  [ 0x1.c40cecp-1]
 *           d = DWT97_DELTA  0.443506852043971f  [ 0x1.c626aap-2]
 *           K = DWT97_K      1.230174104914001f  [ 0x1.3aecb0p+0]
 *          1/K= DWT97_INV_K  0.812893066115961f  [ 0x1.a03386p-1]
 *         forward, on the interleaved signal x[0..n-1] (n >= 2), each step
 *         over all its samples before the next step starts:
 *           1. odd  x[i] = x[i] + (a * (x[i-1] + x[i+1]))
 *           2. even x[i] = x[i] + (b * (x[i-1] + x[i+1]))
 *           3. odd  x[i] = x[i] + (g * (x[i-1] + x[i+1]))
 *           4. even x[i] = x[i] + (d * (x[i-1] + x[i+1]))
 *           5. even x[i] = x[i] * DWT97_INV_K;  odd x[i] = x[i] * DWT97_K
 *         (neighbours mirrored as above), then even samples go to the low
 *         half, odd to the high half. This gives the low-pass a DC gain of 1
 *         and the high-pass a Nyquist gain of 2 (JPEG 2000 normalisation;
 *         without step 5 they are K and 2/K).
 *         inverse: even x[i] = x[i] * DWT97_K; odd x[i] = x[i] * DWT97_INV_K;
 *           then steps 4, 3, 2, 1 with x[i] = x[i] - (C * (x[i-1] + x[i+1])).
 *         A length-1 signal is not scaled either.
 *  Inverse transforms undo each step in reverse order with the same
 *  expressions and subtraction.
 */
#ifndef WC_DWT_H
#define WC_DWT_H

#include <stddef.h>
#include <stdint.h>

#define DWT97_ALPHA (-1.586134342059924f)
#define DWT97_BETA (-0.052980118572961f)
#define DWT97_GAMMA 0.882911075530934f
#define DWT97_DELTA 0.443506852043971f
#define DWT97_K 1.230174104914001f
#define DWT97_INV_K 0.812893066115961f

enum { DWT_LL = 0, DWT_HL = 1, DWT_LH = 2, DWT_HH = 3 };

/* Wavelet identifiers (the header's wavelet[c]): the separable 5/3 and 9/7
 * of 1.0, and (2.0) the same filters in Barina's non-separable Monolithic
 * lifting (dwt_mono.h) and Explosive lifting (dwt_expl.h: 2 for the
 * scheme, then the filter's last digit), whose rounding differs, so files
 * differ. */
enum {
    DWT_53 = 53,
    DWT_97 = 97,
    DWT_53_MONO = 153,
    DWT_97_MONO = 197,
    DWT_53_EXPL = 203,
    DWT_97_EXPL = 207,
};

/* The filter family of a wavelet identifier: 53 (integer, reversible) or 97
 * (float), 0 for an unknown identifier. Band gains, colour transforms and
 * lossless coding go by the family. */
static inline int dwt_family(int wavelet)
{
    if (wavelet == DWT_53 || wavelet == DWT_53_MONO || wavelet == DWT_53_EXPL) return DWT_53;
    if (wavelet == DWT_97 || wavelet == DWT_97_MONO || wavelet == DWT_97_EXPL) return DWT_97;
    return 0;
}

/* Whether a wavelet identifier uses the Monolithic lifting scheme. */
static inline int dwt_is_mono(int wavelet)
{
    return wavelet == DWT_53_MONO || wavelet == DWT_97_MONO;
}

/* Whether a wavelet identifier uses the Explosive lifting scheme. */
static inline int dwt_is_expl(int wavelet)
{
    return wavelet == DWT_53_EXPL || wavelet == DWT_97_EXPL;
}

/* One subband: its rectangle inside the plane, its level (1 = finest; the
 * LL band has the coarsest level) and orientation (DWT_LL..DWT_HH). The
 * first letter is the horizontal filter: HL is high-pass along rows and
 * low-pass along columns, the band to the right of its level's LL. */
typedef struct dwt_band {
    uint32_t x0, y0, w, h;
    uint8_t level;
    uint8_t orient;
} dwt_band;

/* The largest level count for a w x h plane: levels until the LL band is
 * 1x1 (each level halves, rounding up), capped at 15. 0 for a 1x1 plane. */
int dwt_max_levels(uint32_t w, uint32_t h);

/* Fills bands[0 .. 3*levels] in coding order: LL, then for level = levels
 * down to 1: HL, LH, HH. Bands may be empty (w or h 0) for thin planes.
 * Returns the number of bands written (3*levels + 1). */
unsigned dwt_bands(uint32_t w, uint32_t h, int levels, dwt_band *bands);

/* Scratch elements (int32 or float) the 2-D transforms below need: a row of
 * w for the horizontal pass or a staging strip of h rows for the vertical
 * one, whichever is larger. */
size_t dwt_scratch_elems(uint32_t w, uint32_t h);

/* In-place 2-D multi-level transforms of a w x h plane (row stride w).
 * levels must be <= dwt_max_levels(w, h); scratch holds
 * dwt_scratch_elems(w, h) elements. */
void dwt53_forward(int32_t *plane, uint32_t w, uint32_t h, int levels, int32_t *scratch);
void dwt53_inverse(int32_t *plane, uint32_t w, uint32_t h, int levels, int32_t *scratch);
void dwt97_forward(float *plane, uint32_t w, uint32_t h, int levels, float *scratch);
void dwt97_inverse(float *plane, uint32_t w, uint32_t h, int levels, float *scratch);

/* The same filters in the Monolithic scheme (dwt_mono.h gives the
 * operations); same plane layout, same scratch. */
void dwt53m_forward(int32_t *plane, uint32_t w, uint32_t h, int levels, int32_t *scratch);
void dwt53m_inverse(int32_t *plane, uint32_t w, uint32_t h, int levels, int32_t *scratch);
void dwt97m_forward(float *plane, uint32_t w, uint32_t h, int levels, float *scratch);
void dwt97m_inverse(float *plane, uint32_t w, uint32_t h, int levels, float *scratch);

/* The same filters in the Explosive scheme (dwt_expl.h gives the
 * operations); same plane layout, same scratch. */
void dwt53e_forward(int32_t *plane, uint32_t w, uint32_t h, int levels, int32_t *scratch);
void dwt53e_inverse(int32_t *plane, uint32_t w, uint32_t h, int levels, int32_t *scratch);
void dwt97e_forward(float *plane, uint32_t w, uint32_t h, int levels, float *scratch);
void dwt97e_inverse(float *plane, uint32_t w, uint32_t h, int levels, float *scratch);

/* Any integer (53 family) or float (97 family) wavelet identifier. */
void dwt_int_forward(int wavelet, int32_t *plane, uint32_t w, uint32_t h, int levels,
                     int32_t *scratch);
void dwt_int_inverse(int wavelet, int32_t *plane, uint32_t w, uint32_t h, int levels,
                     int32_t *scratch);
void dwt_float_forward(int wavelet, float *plane, uint32_t w, uint32_t h, int levels,
                       float *scratch);
void dwt_float_inverse(int wavelet, float *plane, uint32_t w, uint32_t h, int levels,
                       float *scratch);

/* One-dimensional transforms of n contiguous samples x[0..n-1], in place:
 * forward leaves the ceil(n/2) low samples first, then the floor(n/2) high
 * ones; inverse takes that layout back. scratch holds n elements. These are
 * the row pass of the 2-D transforms, and each column of the 2-D vertical
 * pass gets exactly the same operations. */
void dwt53_forward_1d(int32_t *x, uint32_t n, int32_t *scratch);
void dwt53_inverse_1d(int32_t *x, uint32_t n, int32_t *scratch);
void dwt97_forward_1d(float *x, uint32_t n, float *scratch);
void dwt97_inverse_1d(float *x, uint32_t n, float *scratch);

/* Synthesis energy gain of a band: the squared L2 norm of the image made by
 * inverse-transforming a unit coefficient in it (any wavelet identifier: a
 * scheme computes its family's filters, so the gains are the family's; for 5/3
 * the lifting without its rounding), on a plane large enough that the edges
 * do not matter. It is the product of the 1-D gains of the row and the
 * column filters. level 0 (the LL band of a 0-level transform) gives 1.
 * Used to weight quantizer steps so one number controls quality. Returns 0
 * for an unknown wavelet, orientation, a level outside 0..15 or a non-LL
 * band at level 0. */
double dwt_band_gain(int wavelet, int level, int orient);

#endif /* WC_DWT_H */
