// libsystemc supplies main(); SystemC test binaries run GoogleTest from sc_main.
#include <cstdlib>
#include <filesystem>
#include <string>
#include <system_error>
#include <vector>

#include <gtest/gtest.h>
#include <systemc>

int sc_main(int argc, char **argv)
{
    setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 1);
    // Each test process gets its own ::testing::TempDir() (GoogleTest reads
    // TEST_TMPDIR): ctest runs tests side by side, and tests that name their
    // scratch files after themselves would otherwise share them with a test
    // of the same name running in another process.
    std::string base = ::testing::TempDir() + "gmmu-test-XXXXXX";
    std::vector<char> dir(base.begin(), base.end());
    dir.push_back('\0');
    const bool own = mkdtemp(dir.data()) != nullptr;
    if (own)
        setenv("TEST_TMPDIR", dir.data(), 1);
    ::testing::InitGoogleTest(&argc, argv);
    const int rc = RUN_ALL_TESTS();
    if (own) {
        std::error_code ec;
        std::filesystem::remove_all(dir.data(), ec);
    }
    return rc;
}
