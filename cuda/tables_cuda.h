/*
 * tables_cuda.h -- the block coder's Huffman tables built on the device
 * from the device's symbol counts, with the host's one algorithm
 * (stage/entropy_stage.c's build_table: entropy/huffman.c's package-merge
 * lengths and canonical codes), so that the encoder's queue needs no host
 * round trip between counting and emitting. The host still writes the
 * tables into the file, from the code lengths (bc_tables_write), after
 * the queue's one wait. C++ (CUDA) only; pointers are device pointers.
 */
#ifndef WC_TABLES_CUDA_H
#define WC_TABLES_CUDA_H

#include "entropy_cuda.h"

/* ntab tables; hist: ntab x WCG_NSYM counters (wcg_bc_count's layout);
 * tabs: ntab encoder tables (huf_enc's layout); lens: ntab x WCG_NSYM
 * code lengths. Table i is es_build_tables' table i. */
cudaError_t wcg_build_tables(const unsigned long long *hist, uint32_t ntab, wcg_huf *tabs,
                             uint8_t *lens, cudaStream_t st);

#endif /* WC_TABLES_CUDA_H */
