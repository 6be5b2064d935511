/* Counts the heap allocations of a whole process: preloaded (LD_PRELOAD), it takes malloc,
 * calloc, realloc and the aligned allocators, counts each call and hands it on to glibc's own.
 * At exit it writes "allocations N" to the file named by PETSPOT_ALLOC_COUNT_FILE.
 * Benchmarks/run-allocs.sh uses it for allocations per answered flow.get.
 *   cc -O2 -shared -fPIC -o count-allocs.so Benchmarks/allocs/count-allocs.c
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);
extern void __libc_free(void *);

static unsigned long long allocations;

static void count(void) { __atomic_fetch_add(&allocations, 1, __ATOMIC_RELAXED); }

void *malloc(size_t n) { count(); return __libc_malloc(n); }
void *calloc(size_t n, size_t size) { count(); return __libc_calloc(n, size); }
/* A realloc that moves or grows a block is the cost being counted; freeing by realloc is not. */
void *realloc(void *p, size_t n) { if (n) count(); return __libc_realloc(p, n); }
void free(void *p) { __libc_free(p); }
void *memalign(size_t align, size_t n) { count(); return __libc_memalign(align, n); }
void *aligned_alloc(size_t align, size_t n) { count(); return __libc_memalign(align, n); }
int posix_memalign(void **out, size_t align, size_t n) {
    count();
    void *p = __libc_memalign(align, n);
    if (!p) return ENOMEM;
    *out = p;
    return 0;
}

__attribute__((destructor)) static void report(void) {
    const char *path = getenv("PETSPOT_ALLOC_COUNT_FILE");
    if (!path) return;
    FILE *f = fopen(path, "w");
    if (!f) return;
    fprintf(f, "allocations %llu\n", __atomic_load_n(&allocations, __ATOMIC_RELAXED));
    fclose(f);
}
