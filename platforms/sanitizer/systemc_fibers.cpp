// SystemC coroutine switches, told correctly to AddressSanitizer.
//
// Linked into every SystemC program of a sanitizer build (GMMU_SANITIZE).
//
// Why: libsystemc 2.3.4 (Debian 12) annotates its QuickThreads switches with
// weak references to __sanitizer_start_switch_fiber / _finish_switch_fiber,
// so under ASan they are live, but two of its cases are wrong:
//   1. switching to the main coroutine passes the main coroutine's stack,
//      which SystemC never allocated: bottom NULL, size 0. ASan then believes
//      the main thread runs on an empty stack.
//   2. a thread that ends switches away through sc_cor_pkg_qt::abort, which
//      announces nothing. ASan keeps believing the thread runs on the ended
//      coroutine's stack, which SystemC unmaps soon after.
// When the last switch before exit is case 2, LeakSanitizer's exit-time scan
// takes the unmapped (or since reused, partly mapped) range as the main
// thread's stack and crashes ("Tracer caught signal 11"); after case 1 it
// silently skips the main stack, so leaks can hide or be reported falsely.
//
// The fix, without turning any sanitizer feature off: this file defines the
// two annotation functions in the executable, which the dynamic linker binds
// libsystemc's weak references to (the executable comes first in lookup
// order); they forward to the sanitizer runtime's (dlsym RTLD_NEXT) with the
// main thread's real stack substituted for the empty one. It also defines
// sc_cor_qt_aborthelp, the QuickThreads helper that libsystemc reaches through
// its GOT and that runs on the new stack after an abort: it announces and
// completes the switch it was never told about, with the bounds of the stack
// it runs on. docs/reliability.md explains how this was found and is checked.
#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {

using start_fn = void (*)(void **, const void *, size_t);
using finish_fn = void (*)(void *, const void **, size_t *);

start_fn real_start()
{
    static start_fn f = reinterpret_cast<start_fn>(dlsym(RTLD_NEXT, "__sanitizer_start_switch_fiber"));
    return f;
}

finish_fn real_finish()
{
    static finish_fn f = reinterpret_cast<finish_fn>(dlsym(RTLD_NEXT, "__sanitizer_finish_switch_fiber"));
    return f;
}

// The main thread's stack as the sanitizer runtime knew it before the first
// switch (captured by the first finish, which always leaves the main
// coroutine); pthread's view of it until then.
const void *g_main_bottom = nullptr;
size_t g_main_size = 0;
bool g_main_known = false;

void main_stack_from_pthread()
{
    pthread_attr_t attr;
    if (pthread_getattr_np(pthread_self(), &attr) != 0) return;
    void *addr = nullptr;
    size_t size = 0;
    if (pthread_attr_getstack(&attr, &addr, &size) == 0) {
        g_main_bottom = addr;
        g_main_size = size;
    }
    pthread_attr_destroy(&attr);
}

// Captured at static initialisation, which runs on the main thread.
const bool g_main_initialised = (main_stack_from_pthread(), true);

bool in_range(uintptr_t p, const void *bottom, size_t size)
{
    const uintptr_t b = reinterpret_cast<uintptr_t>(bottom);
    return p >= b && p - b < size;
}

// The mapping that holds address p, from /proc/self/maps, without allocating
// (this runs in the middle of a stack switch). SystemC's coroutine stacks are
// one mapping each, split from their neighbours by a PROT_NONE guard page.
bool mapping_of(uintptr_t p, const void **bottom, size_t *size)
{
    const int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
    if (fd < 0) return false;
    static char buf[1 << 16];
    size_t have = 0;
    bool found = false;
    for (;;) {
        const ssize_t n = read(fd, buf + have, sizeof buf - 1 - have);
        if (n <= 0) break;
        have += static_cast<size_t>(n);
        buf[have] = '\0';
        char *line = buf;
        char *nl;
        while ((nl = std::strchr(line, '\n')) != nullptr) {
            *nl = '\0';
            char *end = nullptr;
            const unsigned long lo = std::strtoul(line, &end, 16);
            if (end && *end == '-') {
                const unsigned long hi = std::strtoul(end + 1, nullptr, 16);
                if (p >= lo && p < hi) {
                    *bottom = reinterpret_cast<const void *>(lo);
                    *size = hi - lo;
                    found = true;
                    break;
                }
            }
            line = nl + 1;
        }
        if (found) break;
        have = static_cast<size_t>(buf + have - line);
        std::memmove(buf, line, have);
    }
    close(fd);
    return found;
}

} // namespace

extern "C" {

void __sanitizer_start_switch_fiber(void **fake_stack_save, const void *bottom, size_t size)
{
    start_fn f = real_start();
    if (!f) return;
    if (bottom == nullptr && size == 0) {  // the main coroutine (case 1)
        bottom = g_main_bottom;
        size = g_main_size;
    }
    f(fake_stack_save, bottom, size);
}

void __sanitizer_finish_switch_fiber(void *fake_stack_save, const void **bottom_old, size_t *size_old)
{
    finish_fn f = real_finish();
    if (!f) return;
    const void *b = nullptr;
    size_t s = 0;
    f(fake_stack_save, &b, &s);
    if (!g_main_known && b != nullptr && s != 0) {
        g_main_bottom = b;
        g_main_size = s;
        g_main_known = true;
    }
    if (bottom_old) *bottom_old = b;
    if (size_old) *size_old = s;
}

// QuickThreads calls the abort helper on the stack it switched to (case 2).
void *sc_cor_qt_aborthelp(void *, void *, void *)
{
    start_fn start = real_start();
    finish_fn finish = real_finish();
    if (!start || !finish) return nullptr;
    const uintptr_t sp = reinterpret_cast<uintptr_t>(__builtin_frame_address(0));
    const void *bottom = g_main_bottom;
    size_t size = g_main_size;
    if (!in_range(sp, g_main_bottom, g_main_size) && !mapping_of(sp, &bottom, &size)) {
        static const char msg[] = "gmmu: cannot find the stack of the coroutine SystemC switched to\n";
        (void)!write(2, msg, sizeof msg - 1);
        std::abort();
    }
    start(nullptr, bottom, size);
    finish(nullptr, nullptr, nullptr);
    return nullptr;
}

} // extern "C"
