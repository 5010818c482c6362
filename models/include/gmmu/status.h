/* gmmu — status codes and error detail shared by every C model. */
#ifndef GMMU_STATUS_H
#define GMMU_STATUS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Every model entry point returns one of these. Models never abort. */
typedef enum gmmu_status {
    GMMU_OK = 0,
    GMMU_EINVAL = 1,   /* bad argument or config field (named in gmmu_error) */
    GMMU_ENOMEM = 2,   /* allocation failed or physical frames exhausted */
    GMMU_EFAULT = 3,   /* translation fault (not present / protection / non-canonical) */
    GMMU_EBUSY = 4,    /* resource full (MSHRs, queue), retry later */
    GMMU_EMEM = 5,     /* memory callback reported an error */
    GMMU_EEXIST = 6    /* mapping already exists */
} gmmu_status;

/* Optional out-parameter filled by init/config functions on GMMU_EINVAL:
 * `field` names the offending config field, `msg` says what was wrong. */
typedef struct gmmu_error {
    char field[64];
    char msg[192];
} gmmu_error;

const char *gmmu_status_str(gmmu_status s);

/* Fill *err (if non-NULL) and return GMMU_EINVAL. printf-style message. */
gmmu_status gmmu_error_set(gmmu_error *err, const char *field, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

static inline int gmmu_is_pow2_u64(uint64_t v) { return v != 0 && (v & (v - 1)) == 0; }
static inline unsigned gmmu_log2_u64(uint64_t v)
{
    unsigned n = 0;
    while (v > 1) { v >>= 1; n++; }
    return n;
}

#ifdef __cplusplus
}
#endif
#endif
