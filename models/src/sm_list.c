/* gmmu — one item of a list of SMs (gmmu/sm_list.h). */
#include "gmmu/sm_list.h"

#include <stdbool.h>

static const char *skip_spaces(const char *p)
{
    while (*p == ' ' || *p == '\t')
        p++;
    return p;
}

/* Decimal digits at *p (after spaces) into *v; false if none or above
 * UINT32_MAX. *p moves past them. */
static bool number(const char **p, uint32_t *v)
{
    const char *q = skip_spaces(*p);
    if (*q < '0' || *q > '9')
        return false;
    uint64_t x = 0;
    for (; *q >= '0' && *q <= '9'; q++) {
        x = x * 10u + (uint64_t)(*q - '0');
        if (x > UINT32_MAX)
            return false;
    }
    *v = (uint32_t)x;
    *p = q;
    return true;
}

gmmu_status gmmu_sm_range_parse(const char *item, uint32_t *lo, uint32_t *hi)
{
    if (!item || !lo || !hi)
        return GMMU_EINVAL;
    const char *p = item;
    uint32_t a = 0, b = 0;
    if (!number(&p, &a))
        return GMMU_EINVAL;
    b = a;
    p = skip_spaces(p);
    if (*p == '-') {
        p++;
        if (!number(&p, &b) || b < a)
            return GMMU_EINVAL;
        p = skip_spaces(p);
    }
    if (*p != '\0')
        return GMMU_EINVAL;
    *lo = a;
    *hi = b;
    return GMMU_OK;
}
