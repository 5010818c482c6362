// One item of a list of SMs (models/src/sm_list.c): an id or an inclusive
// range, as workload.share_sms and the TLB-sharing groups write them.
#include <gtest/gtest.h>

extern "C" {
#include "gmmu/sm_list.h"
}

namespace {

TEST(SmList, AnIdOrAnInclusiveRange)
{
    uint32_t lo = 99, hi = 99;
    ASSERT_EQ(gmmu_sm_range_parse("3", &lo, &hi), GMMU_OK);
    EXPECT_EQ(lo, 3u);
    EXPECT_EQ(hi, 3u);
    ASSERT_EQ(gmmu_sm_range_parse("2-5", &lo, &hi), GMMU_OK);
    EXPECT_EQ(lo, 2u);
    EXPECT_EQ(hi, 5u);
    ASSERT_EQ(gmmu_sm_range_parse(" 7 - 7 ", &lo, &hi), GMMU_OK); // spaces around the numbers
    EXPECT_EQ(lo, 7u);
    EXPECT_EQ(hi, 7u);
    ASSERT_EQ(gmmu_sm_range_parse("0-4294967295", &lo, &hi), GMMU_OK);
    EXPECT_EQ(lo, 0u);
    EXPECT_EQ(hi, 4294967295u);
}

TEST(SmList, AnythingElseIsRefusedAndLeavesTheOutputs)
{
    for (const char *bad : {"", " ", "-", "x", "3x", "3-", "-3", "+3", "5-2", "2-5x", "2-5-7", "1,2",
                            "4294967296", "0-4294967296", "2--5", "0x10"}) {
        uint32_t lo = 99, hi = 98;
        EXPECT_EQ(gmmu_sm_range_parse(bad, &lo, &hi), GMMU_EINVAL) << "'" << bad << "'";
        EXPECT_EQ(lo, 99u) << bad;
        EXPECT_EQ(hi, 98u) << bad;
    }
    uint32_t lo = 0, hi = 0;
    EXPECT_EQ(gmmu_sm_range_parse(nullptr, &lo, &hi), GMMU_EINVAL);
    EXPECT_EQ(gmmu_sm_range_parse("1", nullptr, &hi), GMMU_EINVAL);
    EXPECT_EQ(gmmu_sm_range_parse("1", &lo, nullptr), GMMU_EINVAL);
}

} // namespace
