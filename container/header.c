/*
 * header.c -- the WHDR record: serialisation and validating parse.
 *
 * Layout (little-endian; FORMAT.md "WHDR" has the table), C = components,
 * S = nsteps:
 *   0 u16 version_major   2 u16 version_minor   4 u32 width   8 u32 height
 *  12 u8 components  13 u8 bit_depth  14 u8 colour  15 u8 transform
 *  16 u8 levels      17 u8 entropy    18 u8 block_log2  19 u8 flags
 *  20 u8 wavelet[C]
 *  20+C f32 base_step  24+C f32 recon  28+C u8 nsteps
 *  29+C f32 steps[C][S] (component-major)        total 29 + C + 4*C*S
 * A filtered deflate file (entropy 4, format 2.0) ends the record after
 * wavelet[C] (20 + C bytes): it is lossless with levels 0, so its steps
 * are all 1, recon 0 and base_step 1, and a small image need not carry
 * them (FORMAT.md, "WHDR").
 * Floats travel as their IEEE-754 bit patterns, so the stored value is
 * exactly the one the encoder used (the numeric contract needs the same
 * steps bit for bit on every machine).
 *
 * The parse trusts nothing: every byte it reads is inside the payload, and
 * every field is range-checked before anything sizes or indexes with it.
 */
#include <stdio.h>
#include <string.h>

#include "container.h"

#define WCX_HDR_FIXED 20u /* bytes before wavelet[] */
#define WCX_HDR_MAX_DIM (1u << 24)
#define WCX_FLAG_LOSSLESS 0x01u
#define WCX_FLAGS_KNOWN WCX_FLAG_LOSSLESS

/* Counts clamped to the struct's arrays: size and write never read outside
 * h, whatever it holds; out-of-range counts still go to the file as they
 * are, where the parse refuses them. */
static unsigned wcx_hdr_comps(const wcx_header *h) { return h->components < 4 ? h->components : 4; }
static unsigned wcx_hdr_nsteps(const wcx_header *h)
{
    return h->nsteps < WCX_MAX_STEPS ? h->nsteps : WCX_MAX_STEPS;
}

static size_t wcx_hdr_size_for(unsigned comps, unsigned nsteps)
{
    return WCX_HDR_FIXED + comps + 4 + 4 + 1 + (size_t)4 * comps * nsteps;
}

/* Entropy 4's short record: no base_step, recon, nsteps or steps. */
static int wcx_hdr_short(unsigned entropy) { return entropy == WCX_ENTROPY_FILTERED; }

size_t wcx_header_size(const wcx_header *h)
{
    if (wcx_hdr_short(h->entropy)) return WCX_HDR_FIXED + wcx_hdr_comps(h);
    return wcx_hdr_size_for(wcx_hdr_comps(h), wcx_hdr_nsteps(h));
}

static uint32_t wcx_f32_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

static float wcx_bits_f32(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

void wcx_header_write(const wcx_header *h, uint8_t *out)
{
    unsigned comps = wcx_hdr_comps(h), nsteps = wcx_hdr_nsteps(h);
    wc_wr16le(out + 0, h->version_major);
    wc_wr16le(out + 2, h->version_minor);
    wc_wr32le(out + 4, h->width);
    wc_wr32le(out + 8, h->height);
    const uint8_t bytes[8] = {h->components, h->bit_depth, h->colour,     h->transform,
                              h->levels,     h->entropy,   h->block_log2, h->flags};
    memcpy(out + 12, bytes, sizeof bytes);
    uint8_t *p = out + WCX_HDR_FIXED;
    memcpy(p, h->wavelet, comps);
    p += comps;
    if (wcx_hdr_short(h->entropy)) return;
    wc_wr32le(p, wcx_f32_bits(h->base_step));
    wc_wr32le(p + 4, wcx_f32_bits(h->recon));
    p[8] = h->nsteps;
    p += 9;
    for (unsigned c = 0; c < comps; c++)
        for (unsigned s = 0; s < nsteps; s++, p += 4) wc_wr32le(p, wcx_f32_bits(h->steps[c][s]));
}

/* A float's bit pattern is finite unless its exponent is all ones; testing
 * the bits keeps the check exact whatever the compiler's float options. */
static int wcx_bits_finite(uint32_t u) { return ((u >> 23) & 0xFFu) != 0xFFu; }

/* Version first: a different major may lay everything else out anew, so
 * nothing past it is read. A higher minor only appends fields. */
static wc_status wcx_hdr_version(const uint8_t *p, size_t size, wcx_header *h, wc_err *err)
{
    WC_RETURN_IF(size < 4, err, WC_ERR_CORRUPT, "WHDR is %zu bytes, too short for the version",
                 size);
    h->version_major = wc_rd16le(p);
    h->version_minor = wc_rd16le(p + 2);
    WC_RETURN_IF(h->version_major < WCX_VERSION_MAJOR_MIN || h->version_major > WCX_VERSION_MAJOR,
                 err, WC_ERR_VERSION,
                 "format version %u.%u is not supported (this library reads %d.x to %d.x)",
                 (unsigned)h->version_major, (unsigned)h->version_minor, WCX_VERSION_MAJOR_MIN,
                 WCX_VERSION_MAJOR);
    return WC_OK;
}

/* The major that introduced each value of the coding fields, 0 for a value
 * no version defines. A value is valid in a file whose major is at least
 * the one that introduced it; every 2.0 addition is listed in FORMAT.md. */
static unsigned wcx_entropy_since(unsigned v)
{
    if (v <= 1) return 1u;
    /* 3: adaptive arithmetic coding; 4: filtered deflate */
    return v == 2 || v == 3 || v == WCX_ENTROPY_FILTERED ? 2u : 0u;
}

int wcx_entropy_has_tables(unsigned entropy) { return entropy == 0 || entropy == 2; }
static unsigned wcx_transform_since(unsigned v) { return v <= 2 ? 1u : 0u; }
static unsigned wcx_wavelet_since(unsigned v)
{
    if (v == 53 || v == 97) return 1u;
    /* the Monolithic 5/3 and 9/7, the Explosive 5/3 and 9/7 */
    return v == 153 || v == 197 || v == 203 || v == 207 ? 2u : 0u;
}

/* The filter family of a wavelet value: the colour transforms go by it. */
static unsigned wcx_wavelet_family(unsigned v)
{
    return v == 153 || v == 203 ? 53u : v == 197 || v == 207 ? 97u : v;
}
static unsigned wcx_colour_since(unsigned v) { return v <= 2 ? 1u : v == 3 ? 2u : 0u; }

static unsigned wcx_max_u(unsigned a, unsigned b) { return a > b ? a : b; }

unsigned wcx_header_needed_major(const wcx_header *h)
{
    unsigned m = wcx_max_u(wcx_entropy_since(h->entropy), wcx_transform_since(h->transform));
    m = wcx_max_u(m, wcx_colour_since(h->colour));
    for (unsigned c = 0; c < h->components && c < 4; c++)
        m = wcx_max_u(m, wcx_wavelet_since(h->wavelet[c]));
    return m ? m : 1u;
}

void wcx_header_stamp_version(wcx_header *h)
{
    h->version_major = (uint16_t)wcx_header_needed_major(h);
    h->version_minor = 0;
}

/* A coding value outside every version is damage; one that a later major
 * added, in a file stamped with an earlier one, is damage too (the writer
 * would have stamped the later major). */
static wc_status wcx_hdr_value(const char *field, unsigned v, unsigned since, const wcx_header *h,
                               wc_err *err)
{
    WC_RETURN_IF(since == 0, err, WC_ERR_CORRUPT, "WHDR %s %u is not defined by any format version",
                 field, v);
    WC_RETURN_IF(since > h->version_major, err, WC_ERR_CORRUPT,
                 "WHDR %s %u needs format %u.0, the file says %u.%u", field, v, since,
                 (unsigned)h->version_major, (unsigned)h->version_minor);
    return WC_OK;
}

/* Dimensions, components and bit depth: what decides memory and planes. */
static wc_status wcx_hdr_image(const uint8_t *p, wcx_header *h, wc_err *err)
{
    h->width = wc_rd32le(p + 4);
    h->height = wc_rd32le(p + 8);
    h->components = p[12];
    h->bit_depth = p[13];
    WC_RETURN_IF(h->width == 0, err, WC_ERR_CORRUPT, "WHDR width 0 (must be at least 1)");
    WC_RETURN_IF(h->height == 0, err, WC_ERR_CORRUPT, "WHDR height 0 (must be at least 1)");
    WC_RETURN_IF(h->width > WCX_HDR_MAX_DIM, err, WC_ERR_LIMIT,
                 "WHDR width %lu exceeds the limit of %lu", (unsigned long)h->width,
                 (unsigned long)WCX_HDR_MAX_DIM);
    WC_RETURN_IF(h->height > WCX_HDR_MAX_DIM, err, WC_ERR_LIMIT,
                 "WHDR height %lu exceeds the limit of %lu", (unsigned long)h->height,
                 (unsigned long)WCX_HDR_MAX_DIM);
    WC_RETURN_IF(h->components < 1 || h->components > 4, err, WC_ERR_CORRUPT,
                 "WHDR components %u out of range (1..4)", (unsigned)h->components);
    WC_RETURN_IF(h->bit_depth < 1 || h->bit_depth > 16, err, WC_ERR_CORRUPT,
                 "WHDR bit_depth %u out of range (1..16)", (unsigned)h->bit_depth);
    return WC_OK;
}

/* The coding choices; colour transforms need three components. */
static wc_status wcx_hdr_coding(const uint8_t *p, wcx_header *h, wc_err *err)
{
    h->colour = p[14];
    h->transform = p[15];
    h->levels = p[16];
    h->entropy = p[17];
    h->block_log2 = p[18];
    h->flags = p[19];
    WC_FORWARD_IF_ERROR(wcx_hdr_value("colour", h->colour, wcx_colour_since(h->colour), h, err));
    WC_RETURN_IF((h->colour == 1 || h->colour == 2) && h->components < 3, err, WC_ERR_CORRUPT,
                 "WHDR colour %u (%s) needs 3 or more components, has %u", (unsigned)h->colour,
                 h->colour == 1 ? "RCT" : "ICT", (unsigned)h->components);
    WC_FORWARD_IF_ERROR(
        wcx_hdr_value("transform", h->transform, wcx_transform_since(h->transform), h, err));
    WC_RETURN_IF(h->levels > 15, err, WC_ERR_CORRUPT, "WHDR levels %u out of range (0..15)",
                 (unsigned)h->levels);
    WC_FORWARD_IF_ERROR(
        wcx_hdr_value("entropy", h->entropy, wcx_entropy_since(h->entropy), h, err));
    WC_RETURN_IF(h->entropy == WCX_ENTROPY_FILTERED &&
                     (h->levels != 0 || h->transform != 0 || !(h->flags & WCX_FLAG_LOSSLESS)),
                 err, WC_ERR_CORRUPT,
                 "WHDR entropy 4 (filtered deflate) needs transform 0, levels 0 and the lossless "
                 "flag, has %u, %u and flags 0x%02X",
                 (unsigned)h->transform, (unsigned)h->levels, (unsigned)h->flags);
    WC_RETURN_IF(h->block_log2 < 4 || h->block_log2 > 7, err, WC_ERR_CORRUPT,
                 "WHDR block_log2 %u out of range (4..7)", (unsigned)h->block_log2);
    WC_RETURN_IF((h->flags & ~WCX_FLAGS_KNOWN) != 0, err, WC_ERR_CORRUPT,
                 "WHDR flags 0x%02X has unknown bits 0x%02X", (unsigned)h->flags,
                 (unsigned)(h->flags & ~WCX_FLAGS_KNOWN));
    return WC_OK;
}

/* One wavelet per component; the colour transform fixes the wavelet of the
 * colour components (RCT is reversible only with 5/3, ICT is lossy 9/7). */
static wc_status wcx_hdr_wavelets(const uint8_t *p, wcx_header *h, wc_err *err)
{
    for (unsigned c = 0; c < h->components; c++) {
        uint8_t wv = p[WCX_HDR_FIXED + c];
        h->wavelet[c] = wv;
        char field[16];
        snprintf(field, sizeof field, "wavelet[%u]", c);
        WC_FORWARD_IF_ERROR(wcx_hdr_value(field, wv, wcx_wavelet_since(wv), h, err));
        WC_RETURN_IF(c < 3 && h->colour == 1 && wcx_wavelet_family(wv) != 53, err, WC_ERR_CORRUPT,
                     "WHDR wavelet[%u] %u with colour RCT (needs a 5/3: 53, 153 or 203)", c,
                     (unsigned)wv);
        WC_RETURN_IF(c < 3 && h->colour == 2 && wcx_wavelet_family(wv) != 97, err, WC_ERR_CORRUPT,
                     "WHDR wavelet[%u] %u with colour ICT (needs a 9/7: 97, 197 or 207)", c,
                     (unsigned)wv);
    }
    return WC_OK;
}

/* base_step, recon and nsteps, at q = p + 20 + C (9 bytes, size checked). */
static wc_status wcx_hdr_scalars(const uint8_t *q, wcx_header *h, wc_err *err)
{
    uint32_t base = wc_rd32le(q), recon = wc_rd32le(q + 4);
    h->base_step = wcx_bits_f32(base);
    h->recon = wcx_bits_f32(recon);
    h->nsteps = q[8];
    WC_RETURN_IF(!wcx_bits_finite(base), err, WC_ERR_CORRUPT,
                 "WHDR base_step (bits 0x%08lX) is not finite", (unsigned long)base);
    WC_RETURN_IF(!wcx_bits_finite(recon) || !(h->recon >= 0.0f && h->recon < 1.0f), err,
                 WC_ERR_CORRUPT, "WHDR recon %g (bits 0x%08lX) out of range [0, 1)",
                 (double)h->recon, (unsigned long)recon);
    WC_RETURN_IF(h->nsteps < 1 || h->nsteps > WCX_MAX_STEPS, err, WC_ERR_CORRUPT,
                 "WHDR nsteps %u out of range (1..%d)", (unsigned)h->nsteps, WCX_MAX_STEPS);
    return WC_OK;
}

/* steps[c][s] at q, C*S floats (size checked), each finite and > 0. */
static wc_status wcx_hdr_steps(const uint8_t *q, wcx_header *h, wc_err *err)
{
    for (unsigned c = 0; c < h->components; c++)
        for (unsigned s = 0; s < h->nsteps; s++, q += 4) {
            uint32_t u = wc_rd32le(q);
            float f = wcx_bits_f32(u);
            h->steps[c][s] = f;
            WC_RETURN_IF(!wcx_bits_finite(u) || !(f > 0.0f), err, WC_ERR_CORRUPT,
                         "WHDR steps[%u][%u] %g (bits 0x%08lX) must be finite and > 0", c, s,
                         (double)f, (unsigned long)u);
        }
    return WC_OK;
}

/* The short record of entropy 4: wavelets, then the implied scalars. */
static wc_status wcx_hdr_short_parse(const uint8_t *p, size_t size, wcx_header *h, wc_err *err)
{
    const size_t want = WCX_HDR_FIXED + h->components;
    const int newer = h->version_minor > WCX_VERSION_MINOR;
    WC_RETURN_IF(size < want || (!newer && size != want), err, WC_ERR_CORRUPT,
                 "WHDR is %zu bytes, version %u.%u with entropy 4 and %u components needs %s%zu",
                 size, (unsigned)h->version_major, (unsigned)h->version_minor,
                 (unsigned)h->components, newer ? "at least " : "", want);
    WC_FORWARD_IF_ERROR(wcx_hdr_wavelets(p, h, err));
    h->base_step = 1.0f;
    h->recon = 0.0f;
    h->nsteps = 1;
    for (unsigned c = 0; c < h->components; c++) h->steps[c][0] = 1.0f;
    return WC_OK;
}

wc_status wcx_header_parse(const uint8_t *p, size_t size, wcx_header *h, wc_err *err)
{
    WC_RETURN_IF(h == NULL || (p == NULL && size > 0), err, WC_ERR_ARG,
                 "wcx_header_parse: NULL argument");
    memset(h, 0, sizeof *h);
    WC_FORWARD_IF_ERROR(wcx_hdr_version(p, size, h, err));
    WC_RETURN_IF(size < WCX_HDR_FIXED, err, WC_ERR_CORRUPT,
                 "WHDR is %zu bytes, the fixed fields need %u", size, WCX_HDR_FIXED);
    WC_FORWARD_IF_ERROR(wcx_hdr_image(p, h, err));
    WC_FORWARD_IF_ERROR(wcx_hdr_coding(p, h, err));
    if (wcx_hdr_short(h->entropy)) return wcx_hdr_short_parse(p, size, h, err);
    size_t scalars_end = WCX_HDR_FIXED + h->components + 9u;
    WC_RETURN_IF(size < scalars_end, err, WC_ERR_CORRUPT,
                 "WHDR is %zu bytes, %u components need at least %zu", size,
                 (unsigned)h->components, scalars_end);
    WC_FORWARD_IF_ERROR(wcx_hdr_wavelets(p, h, err));
    WC_FORWARD_IF_ERROR(wcx_hdr_scalars(p + WCX_HDR_FIXED + h->components, h, err));
    size_t want = wcx_hdr_size_for(h->components, h->nsteps);
    /* A newer minor may append fields this library does not know; within
     * the same minor any extra byte means the record is not what it says. */
    int newer = h->version_minor > WCX_VERSION_MINOR;
    WC_RETURN_IF(size < want || (!newer && size != want), err, WC_ERR_CORRUPT,
                 "WHDR is %zu bytes, version %u.%u with %u components and %u steps needs %s%zu",
                 size, (unsigned)h->version_major, (unsigned)h->version_minor,
                 (unsigned)h->components, (unsigned)h->nsteps, newer ? "at least " : "", want);
    return wcx_hdr_steps(p + scalars_end, h, err);
}
