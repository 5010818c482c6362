// Probe for platforms/sanitizer/systemc_fibers.cpp (sanitizer builds only).
//
// Asks the sanitizer runtime itself (bypassing the hooks under test) which
// stack it believes the program runs on, from SC_THREADs that wait, that end
// (SystemC switches away from an ended thread without telling the runtime),
// from SC_METHODs (main coroutine) and after sc_start returns. Every answer
// must hold the address of a local variable of the asking frame. Without the
// hooks the main coroutine is believed to run on an empty stack and an ended
// thread's unmapped stack outlives it: that is what crashed LeakSanitizer.
//
// `--leak` leaks one block after the simulation: LeakSanitizer must still
// report it (the fix does not switch leak detection off).
#include <dlfcn.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#define SC_INCLUDE_DYNAMIC_PROCESSES
#include <systemc>

namespace {

using start_fn = void (*)(void **, const void *, size_t);
using finish_fn = void (*)(void *, const void **, size_t *);

int g_checks = 0;
int g_failures = 0;

void check_stack(const char *where)
{
    auto start = reinterpret_cast<start_fn>(dlsym(RTLD_NEXT, "__sanitizer_start_switch_fiber"));
    auto finish = reinterpret_cast<finish_fn>(dlsym(RTLD_NEXT, "__sanitizer_finish_switch_fiber"));
    if (!start || !finish) {
        std::fprintf(stderr, "fiber_stacks: no sanitizer runtime in this program\n");
        std::exit(1);
    }
    volatile char local = 0;
    const uintptr_t here = reinterpret_cast<uintptr_t>(&local);
    // Switch to a placeholder: the runtime reports its belief as the old
    // stack; switching back to that belief restores it.
    static char placeholder[4096];
    void *fake = nullptr;
    const void *bottom = nullptr;
    size_t size = 0;
    start(&fake, placeholder, sizeof placeholder);
    finish(fake, &bottom, &size);
    start(&fake, bottom, size);
    finish(fake, nullptr, nullptr);
    const uintptr_t b = reinterpret_cast<uintptr_t>(bottom);
    ++g_checks;
    if (!(here >= b && here - b < size)) {
        ++g_failures;
        std::fprintf(stderr, "fiber_stacks: %s: runtime believes stack [%#lx, +%#zx), frame at %#lx\n",
                     where, static_cast<unsigned long>(b), size, static_cast<unsigned long>(here));
    }
}

SC_MODULE(probe)
{
    int ended = 0;

    void short_lived()
    {
        check_stack("thread before its only wait");
        sc_core::wait(sc_core::sc_time(1, sc_core::SC_NS));
        check_stack("thread after its only wait");
        ++ended;  // returns: SystemC aborts this coroutine
    }

    void long_lived()
    {
        for (int i = 0; i < 20; ++i) {
            check_stack("waiting thread");
            sc_core::wait(sc_core::sc_time(1 + i % 3, sc_core::SC_NS));
        }
        ++ended;
    }

    void method()
    {
        check_stack("method (main coroutine)");
        if (sc_core::sc_time_stamp() < sc_core::sc_time(30, sc_core::SC_NS))
            next_trigger(sc_core::sc_time(2, sc_core::SC_NS));
    }

    SC_CTOR(probe)
    {
        for (int i = 0; i < 8; ++i) {
            sc_core::sc_spawn(sc_core::sc_bind(&probe::short_lived, this),
                              ("short" + std::to_string(i)).c_str());
            sc_core::sc_spawn(sc_core::sc_bind(&probe::long_lived, this),
                              ("long" + std::to_string(i)).c_str());
        }
        SC_METHOD(method);
    }
};

} // namespace

int sc_main(int argc, char **argv)
{
    const bool leak = argc > 1 && std::strcmp(argv[1], "--leak") == 0;
    probe p("probe");
    check_stack("sc_main before sc_start");
    sc_core::sc_start(sc_core::sc_time(5, sc_core::SC_NS));
    check_stack("sc_main between sc_start calls");
    sc_core::sc_start();  // to starvation: the last switches are ended threads
    check_stack("sc_main after sc_start");
    if (p.ended != 16) {
        std::fprintf(stderr, "fiber_stacks: %d of 16 threads ended\n", p.ended);
        return 1;
    }
    if (leak) {
        static volatile char *sink;
        sink = static_cast<char *>(std::malloc(4096));
        sink[0] = 1;
        sink = nullptr;
    }
    std::printf("fiber_stacks: %d checks, %d wrong\n", g_checks, g_failures);
    return g_failures == 0 ? 0 : 1;
}
