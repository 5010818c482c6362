/* pwc_bits — the C model's storage accounting of one TPC or CPWC geometry,
 * for tb/pwc/area.sh, which compares it with the flops Yosys synthesizes.
 *
 *   pwc_bits tpc ENTRIES
 *   pwc_bits cpwc L4 L3 BLOCKS BLOCK_ENTRIES
 *
 * Prints "bits=<gmmu_pwc_bits> bases=<number of 64-bit base fields>
 * const_low=<base bits that are constant 0 in every entry>": table bases are
 * 4 KiB aligned, so the low 12 bits of each 64-bit base field are always 0 in
 * the model (CPWC masks them; TPC keeps its part-valid flag in bit 0 and 11
 * bits stay 0). A synthesizer removes constant flops, so the RTL's storage
 * flops must equal bits - const_low exactly. */
#include "gmmu/pwc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int usage(void)
{
    fprintf(stderr, "usage: pwc_bits tpc ENTRIES | pwc_bits cpwc L4 L3 BLOCKS BLOCK_ENTRIES\n");
    return 2;
}

int main(int argc, char **argv)
{
    gmmu_pwc_config c;
    uint64_t bases = 0, const_low = 0;
    if (argc == 3 && strcmp(argv[1], "tpc") == 0) {
        gmmu_pwc_config_default(GMMU_PWC_TPC, &c);
        c.tpc.entries = (uint32_t)strtoul(argv[2], NULL, 0);
        bases = 3ull * c.tpc.entries;
        const_low = bases * 11u;
    } else if (argc == 6 && strcmp(argv[1], "cpwc") == 0) {
        gmmu_pwc_config_default(GMMU_PWC_CPWC, &c);
        c.cpwc.l4_entries = (uint32_t)strtoul(argv[2], NULL, 0);
        c.cpwc.l3_entries = (uint32_t)strtoul(argv[3], NULL, 0);
        c.cpwc.l2_blocks = (uint32_t)strtoul(argv[4], NULL, 0);
        c.cpwc.block_entries = (uint32_t)strtoul(argv[5], NULL, 0);
        bases = (uint64_t)c.cpwc.l4_entries + c.cpwc.l3_entries +
                (uint64_t)c.cpwc.l2_blocks * c.cpwc.block_entries;
        const_low = bases * 12u;
    } else {
        return usage();
    }
    gmmu_error err;
    memset(&err, 0, sizeof err);
    gmmu_pwc *p = NULL;
    if (gmmu_pwc_create(&c, &p, &err) != GMMU_OK) {
        fprintf(stderr, "pwc_bits: %s: %s\n", err.field, err.msg);
        return 1;
    }
    printf("bits=%llu bases=%llu const_low=%llu\n", (unsigned long long)gmmu_pwc_bits(p),
           (unsigned long long)bases, (unsigned long long)const_low);
    gmmu_pwc_destroy(p);
    return 0;
}
