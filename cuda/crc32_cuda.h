/*
 * crc32_cuda.h -- the CRC-32 (zlib's crc32) of each component's part of
 * the device's packed payload, so that the host writes the WDAT chunks
 * without reading the payload again. CRC-32 is linear: each thread takes
 * its CRC of a fixed window (no pre- or post-conditioning), moves it past
 * the bytes after it in its part (times x^(8 n) mod P, zlib's
 * crc32_combine), and the terms of a part are XORed together with the
 * part's initial 0xFFFFFFFF moved past the whole part. The XOR does not
 * depend on the order, so the result is exact and repeatable. C++ (CUDA)
 * only; pointers are device pointers.
 */
#ifndef WC_CRC32_CUDA_H
#define WC_CRC32_CUDA_H

#include <cuda_runtime.h>
#include <stdint.h>

/* The payload's parts: part k is bytes [start[k], end[k]), the parts in
 * order, end to end. */
typedef struct wcg_crc_parts {
    unsigned long long start[4], end[4];
    uint32_t n;
} wcg_crc_parts;

/* acc: n words, zeroed by the caller; afterwards part k's CRC-32 (zlib's
 * crc32(0, part, len)) is ~acc[k] when the part is not empty, 0 when it
 * is. data must be readable up to its total rounded up to 4 bytes. */
cudaError_t wcg_crc32_parts(const uint8_t *data, const wcg_crc_parts *parts, uint32_t *acc,
                            cudaStream_t st);

#endif /* WC_CRC32_CUDA_H */
