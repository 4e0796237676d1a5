/*
 * colour_quant_kernels.cu -- the element-wise kernels of the backend: a
 * plane with no DWT level (forward: samples -> colour -> quantized LL;
 * inverse: dequantized LL -> samples or plane), and the inverse colour
 * transform that joins components 0..2 back into interleaved samples.
 * The level kernels do the same work fused into their first/last pass.
 */
#include "dwt_device.cuh"

namespace wcg
{
namespace
{

constexpr int ELEM_THREADS = 256;

template <class T, class OutT, bool QUANT> __global__ void fwd_level0_kernel(const wcg_fwd_level lv)
{
    const uint32_t x = blockIdx.x * blockDim.x + threadIdx.x;
    if (x >= lv.w) return;
    for (uint32_t y = blockIdx.y; y < lv.h; y += gridDim.y) {
        const T v = load_component<T>(lv.samples, x, y);
        ((OutT *)lv.out)[(size_t)y * lv.out_pitch + x] =
            make_coeff<OutT, QUANT>(v, lv.step[0], lv.threshold);
    }
}

template <class T> __global__ void inv_level0_kernel(const wcg_inv_level lv)
{
    const uint32_t x = blockIdx.x * blockDim.x + threadIdx.x;
    if (x >= lv.w) return;
    for (uint32_t y = blockIdx.y; y < lv.h; y += gridDim.y) {
        const T v =
            dequantize_value<T>(lv.coef[(size_t)y * lv.coef_pitch + x], lv.step[0], lv.recon);
        if (lv.to_samples)
            store_sample(lv.samples, x, y, lv.samples.comp, to_sample(lv.samples, v));
        else
            ((T *)lv.dst)[(size_t)y * lv.dst_pitch + x] = v;
    }
}

/* A colour component's reconstructed value, rounded to a level-shifted
 * sample (float planes) or as it is (int planes). */
__device__ __forceinline__ int32_t plane_int(const void *p, int is_float, size_t i,
                                             const wcg_samples &s)
{
    return is_float ? round_level_shifted(s, ((const float *)p)[i]) : ((const int32_t *)p)[i];
}

struct colour_planes {
    const void *p[3];
    int is_float[3];
};

__device__ __forceinline__ void colour_inverse_pixel(const wcg_samples &s, uint32_t x, uint32_t y,
                                                     const colour_planes &cp, size_t pitch)
{
    const size_t i = (size_t)y * pitch + x;
    int32_t r, g, b;
    if (s.colour == WC_COLOUR_ICT) {
        /* ICT planes are float (backend.h forbids ICT on int planes). */
        const float Y = ((const float *)cp.p[0])[i], Cb = ((const float *)cp.p[1])[i],
                    Cr = ((const float *)cp.p[2])[i];
        r = to_sample(s, ict_r(Y, Cr));
        g = to_sample(s, ict_g(Y, Cb, Cr));
        b = to_sample(s, ict_b(Y, Cb));
    } else {
        /* RCT, in wrapping arithmetic (colour_transform.h). */
        const int32_t Y = plane_int(cp.p[0], cp.is_float[0], i, s);
        const int32_t U = plane_int(cp.p[1], cp.is_float[1], i, s);
        const int32_t V = plane_int(cp.p[2], cp.is_float[2], i, s);
        const int32_t G = rct_g(Y, U, V);
        r = to_sample(s, rct_r(V, G));
        g = to_sample(s, G);
        b = to_sample(s, rct_b(U, G));
    }
    store_sample(s, x, y, 0, r);
    store_sample(s, x, y, 1, g);
    store_sample(s, x, y, 2, b);
}

__global__ void colour_inverse_kernel(const wcg_samples s, uint32_t w, uint32_t h,
                                      const colour_planes cp, size_t pitch)
{
    const uint32_t x = blockIdx.x * blockDim.x + threadIdx.x;
    if (x >= w) return;
    for (uint32_t y = blockIdx.y; y < h; y += gridDim.y) colour_inverse_pixel(s, x, y, cp, pitch);
}

/* Rows beyond the grid's y limit are walked by the kernels' y loops. */
dim3 elem_grid(uint32_t w, uint32_t h)
{
    return dim3((w + ELEM_THREADS - 1) / ELEM_THREADS, h < 65535 ? h : 65535);
}

} /* namespace */
} /* namespace wcg */

cudaError_t wcg_forward_level0(const wcg_fwd_level *lv, int is_float, cudaStream_t st)
{
    using namespace wcg;
    const dim3 g = elem_grid(lv->w, lv->h);
    if (!is_float && lv->quantize)
        fwd_level0_kernel<int32_t, int32_t, true><<<g, ELEM_THREADS, 0, st>>>(*lv);
    else if (!is_float)
        fwd_level0_kernel<int32_t, int32_t, false><<<g, ELEM_THREADS, 0, st>>>(*lv);
    else if (lv->quantize)
        fwd_level0_kernel<float, int32_t, true><<<g, ELEM_THREADS, 0, st>>>(*lv);
    else
        fwd_level0_kernel<float, float, false><<<g, ELEM_THREADS, 0, st>>>(*lv);
    return cudaGetLastError();
}

cudaError_t wcg_inverse_level0(const wcg_inv_level *lv, int is_float, cudaStream_t st)
{
    using namespace wcg;
    const dim3 g = elem_grid(lv->w, lv->h);
    if (is_float)
        inv_level0_kernel<float><<<g, ELEM_THREADS, 0, st>>>(*lv);
    else
        inv_level0_kernel<int32_t><<<g, ELEM_THREADS, 0, st>>>(*lv);
    return cudaGetLastError();
}

cudaError_t wcg_colour_inverse(const wcg_samples *s, uint32_t w, uint32_t h,
                               const void *const planes[3], const int is_float[3], size_t pitch,
                               cudaStream_t st)
{
    using namespace wcg;
    colour_planes cp;
    for (int c = 0; c < 3; ++c) {
        cp.p[c] = planes[c];
        cp.is_float[c] = is_float[c];
    }
    colour_inverse_kernel<<<elem_grid(w, h), ELEM_THREADS, 0, st>>>(*s, w, h, cp, pitch);
    return cudaGetLastError();
}
