/* gmmu — one item of a list of SMs, as configuration keys write them
 * (workload.share_sms "0,2-5"; the TLB-sharing groups "0-3;4-7"): an SM id
 * "3" or an inclusive range "2-5". The caller splits the list at its
 * separators and checks the ids against the machine's SM count. */
#ifndef GMMU_SM_LIST_H
#define GMMU_SM_LIST_H

#include "gmmu/status.h"

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* item: decimal digits, or two of them joined by '-' with the first <= the
 * second; spaces allowed around each number. *lo..*hi gets the SMs (lo ==
 * hi for one id). GMMU_EINVAL (outputs untouched) for anything else: an
 * empty item, a sign, another character, a number above UINT32_MAX, a
 * reversed range, text after the range, a NULL pointer. */
gmmu_status gmmu_sm_range_parse(const char *item, uint32_t *lo, uint32_t *hi);

#ifdef __cplusplus
}
#endif
#endif
