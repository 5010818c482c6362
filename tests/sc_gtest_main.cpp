// libsystemc supplies main(); SystemC test binaries run GoogleTest from sc_main.
#include <cstdlib>

#include <gtest/gtest.h>
#include <systemc>

int sc_main(int argc, char **argv)
{
    setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 1);
    ::testing::InitGoogleTest(&argc, argv);
    return RUN_ALL_TESTS();
}
