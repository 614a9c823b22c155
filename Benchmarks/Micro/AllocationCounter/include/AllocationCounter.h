#ifndef ALLOCATION_COUNTER_H
#define ALLOCATION_COUNTER_H

#include <stdint.h>

/// How many allocations (malloc, calloc, realloc, posix_memalign, aligned_alloc, memalign, valloc,
/// pvalloc calls) and how many bytes they asked for since the process started, and how many frees.
typedef struct {
    uint64_t allocations;
    uint64_t bytes;
    uint64_t frees;
} allocation_counter_snapshot_t;

/// The counters now. Process-wide: other threads' allocations count too.
allocation_counter_snapshot_t allocation_counter_snapshot(void);

/// The monotonic clock in nanoseconds (CLOCK_MONOTONIC), read without allocating.
uint64_t allocation_counter_now_ns(void);

/// Does nothing with `pointer`, out of the optimizer's sight, so the self-check's allocation is
/// not optimized away.
void allocation_counter_escape(const void *pointer);

#endif
