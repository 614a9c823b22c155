// Counts the process's heap allocations by interposing the malloc family: an executable's own
// definitions come before libc's in the dynamic linker's lookup, so the Swift runtime and every
// library reach these. Each one counts with relaxed atomics (a count, not an ordering) and hands
// the call to glibc's real allocator through its exported __libc_* entry points, which avoids
// dlsym(RTLD_NEXT) and the allocation dlsym itself may make. glibc only.
#define _GNU_SOURCE
#include "AllocationCounter.h"

#include <errno.h>
#include <stddef.h>
#include <time.h>

extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t count, size_t size);
extern void *__libc_realloc(void *pointer, size_t size);
extern void *__libc_memalign(size_t alignment, size_t size);
extern void *__libc_valloc(size_t size);
extern void *__libc_pvalloc(size_t size);
extern void __libc_free(void *pointer);

static uint64_t allocations;
static uint64_t bytes;
static uint64_t frees;

static void count(size_t size) {
    __atomic_fetch_add(&allocations, 1, __ATOMIC_RELAXED);
    __atomic_fetch_add(&bytes, size, __ATOMIC_RELAXED);
}

void *malloc(size_t size) {
    count(size);
    return __libc_malloc(size);
}

void *calloc(size_t number, size_t size) {
    size_t total;
    // An overflowing request fails in glibc; it counts as a call of no bytes.
    count(__builtin_mul_overflow(number, size, &total) ? 0 : total);
    return __libc_calloc(number, size);
}

void *realloc(void *pointer, size_t size) {
    // A realloc is one call to the allocator whatever it does; its bytes are the new size. The
    // old block is given back when it moves or when the new size is 0: that is a free too.
    count(size);
    void *result = __libc_realloc(pointer, size);
    if (pointer != NULL && (size == 0 || (result != NULL && result != pointer))) {
        __atomic_fetch_add(&frees, 1, __ATOMIC_RELAXED);
    }
    return result;
}

void *memalign(size_t alignment, size_t size) {
    count(size);
    return __libc_memalign(alignment, size);
}

void *aligned_alloc(size_t alignment, size_t size) {
    count(size);
    return __libc_memalign(alignment, size);
}

int posix_memalign(void **result, size_t alignment, size_t size) {
    // posix_memalign's own checks, as __libc_memalign does not make them (POSIX: a power of two
    // and a multiple of sizeof(void *)).
    if (alignment == 0 || alignment % sizeof(void *) != 0 || (alignment & (alignment - 1)) != 0) return EINVAL;
    count(size);
    void *pointer = __libc_memalign(alignment, size);
    if (pointer == NULL && size != 0) return ENOMEM;
    *result = pointer;
    return 0;
}

void *valloc(size_t size) {
    count(size);
    return __libc_valloc(size);
}

void *pvalloc(size_t size) {
    count(size);
    return __libc_pvalloc(size);
}

void free(void *pointer) {
    if (pointer != NULL) __atomic_fetch_add(&frees, 1, __ATOMIC_RELAXED);
    __libc_free(pointer);
}

allocation_counter_snapshot_t allocation_counter_snapshot(void) {
    allocation_counter_snapshot_t now = {
        __atomic_load_n(&allocations, __ATOMIC_RELAXED),
        __atomic_load_n(&bytes, __ATOMIC_RELAXED),
        __atomic_load_n(&frees, __ATOMIC_RELAXED),
    };
    return now;
}

uint64_t allocation_counter_now_ns(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
}

void allocation_counter_escape(const void *pointer) {
    // The volatile store is what the optimizer must keep; the pointer itself is not used.
    static const void *volatile sink;
    sink = pointer;
}
