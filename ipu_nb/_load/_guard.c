/* A guard for memory-mapped profile files that change under the reader.
 *
 * The loader reads a profile through a read-only shared mapping. If the file is truncated
 * while it loads, touching a page past the new end raises SIGBUS, whose default action
 * kills the process (the Jupyter kernel). Registered mappings are guarded: on a SIGBUS
 * whose faulting address lies inside one, the handler maps zero pages over the rest of that
 * mapping (so the read that faulted, and every later one, sees zeros), counts the fault,
 * and returns. The loader checks the count after each chunk and reports the file as
 * changed; the zeros it may have decoded meanwhile are bounded by its budgets like any
 * other bytes, and thrown away.
 *
 * Any other SIGBUS goes to the handler installed before ours (Python's faulthandler, say),
 * or to the default action. Our handler is (re)installed on top whenever a mapping is
 * registered, so a handler installed between loads (faulthandler.enable()) cannot hide it;
 * one installed during a load is survived too (see on_bus), though faulthandler's own dump
 * of every thread's traceback from inside its handler is not safe while other threads run.
 */

#define _GNU_SOURCE
#include <stdint.h>

#if defined(__unix__) || defined(__APPLE__)
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define GUARDED_MAPPINGS 64

typedef struct {
    uintptr_t start, end; /* start != 0: in use (written last, cleared first) */
    int64_t length;       /* bytes mapped from the file open as `fd` */
    int64_t faults;
    int fd, claimed;
} Guarded;

static Guarded guarded[GUARDED_MAPPINGS];
static struct sigaction previous;
static uintptr_t page_size;

/* Hand a SIGBUS that is not ours to whoever had it before us. */
static void pass_on(int sig, siginfo_t *info, void *context) {
    struct sigaction prev = previous;
    if (prev.sa_flags & SA_SIGINFO) {
        if (prev.sa_sigaction) prev.sa_sigaction(sig, info, context);
        return;
    }
    int sent = !info || info->si_code <= 0; /* by kill() or raise(), not by a fault */
    if (prev.sa_handler == SIG_IGN && sent) return;
    if (prev.sa_handler == SIG_DFL || prev.sa_handler == SIG_IGN) {
        struct sigaction fallback;
        memset(&fallback, 0, sizeof fallback);
        fallback.sa_handler = SIG_DFL;
        sigemptyset(&fallback.sa_mask);
        sigaction(sig, &fallback, NULL);
        if (sent) raise(sig);
        return; /* a fault: the instruction runs again and the default action ends the process */
    }
    prev.sa_handler(sig);
}

/* Whether some guarded file is now shorter than its mapping (fstat is async-signal-safe). */
static int some_file_shrank(void) {
    for (int i = 0; i < GUARDED_MAPPINGS; i++) {
        struct stat now;
        if (__atomic_load_n(&guarded[i].start, __ATOMIC_ACQUIRE) && fstat(guarded[i].fd, &now) == 0 &&
            (int64_t)now.st_size < guarded[i].length)
            return 1;
    }
    return 0;
}

static void on_bus(int sig, siginfo_t *info, void *context) {
    int fault = info && info->si_code > 0; /* raised by the kernel for a fault: si_addr is the address */
    for (int i = 0; fault && i < GUARDED_MAPPINGS; i++) {
        uintptr_t start = __atomic_load_n(&guarded[i].start, __ATOMIC_ACQUIRE);
        uintptr_t end = __atomic_load_n(&guarded[i].end, __ATOMIC_ACQUIRE);
        if (!start || (uintptr_t)info->si_addr < start || (uintptr_t)info->si_addr >= end) continue;
        uintptr_t page = (uintptr_t)info->si_addr & ~(page_size - 1);
        void *zeros = mmap((void *)page, end - page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
        if (zeros == MAP_FAILED) break;
        __atomic_add_fetch(&guarded[i].faults, 1, __ATOMIC_RELEASE);
        return;
    }
    /* A SIGBUS raised by a process while a guarded file has shrunk is most likely a handler
     * installed over ours (faulthandler) passing our fault on with raise(), which loses its
     * address: returning lets the faulting read run again and reach us as a fault. */
    if (!fault && some_file_shrank()) return;
    pass_on(sig, info, context);
}

/* Put our handler on top (keeping the one it displaces to pass other faults on to). */
static int install(void) {
    struct sigaction current;
    if (sigaction(SIGBUS, NULL, &current) != 0) return 0;
    if ((current.sa_flags & SA_SIGINFO) && current.sa_sigaction == on_bus) return 1;
    struct sigaction ours;
    memset(&ours, 0, sizeof ours);
    ours.sa_sigaction = on_bus;
    ours.sa_flags = SA_SIGINFO | SA_NODEFER | SA_ONSTACK;
    sigemptyset(&ours.sa_mask);
    previous = current;
    return sigaction(SIGBUS, &ours, NULL) == 0;
}

/* Guard the `length` bytes mapped at `start` from the file open as `fd` (open until the slot is
 * removed): a slot for ipu_guard_faults / ipu_guard_remove, or -1. */
int64_t ipu_guard_add(const void *start, int64_t length, int64_t fd) {
    if (!page_size) page_size = (uintptr_t)sysconf(_SC_PAGESIZE);
    if (!start || length <= 0 || !install()) return -1;
    uintptr_t end = ((uintptr_t)start + (uintptr_t)length + page_size - 1) & ~(page_size - 1);
    for (int i = 0; i < GUARDED_MAPPINGS; i++) {
        int free_slot = 0;
        if (!__atomic_compare_exchange_n(&guarded[i].claimed, &free_slot, 1, 0, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
            continue;
        __atomic_store_n(&guarded[i].faults, 0, __ATOMIC_RELAXED);
        guarded[i].length = length;
        guarded[i].fd = (int)fd;
        __atomic_store_n(&guarded[i].end, end, __ATOMIC_RELEASE);
        __atomic_store_n(&guarded[i].start, (uintptr_t)start, __ATOMIC_RELEASE);
        return i;
    }
    return -1;
}

/* How many times the mapping in `slot` faulted (0: the file held still). */
int64_t ipu_guard_faults(int64_t slot) {
    if (slot < 0 || slot >= GUARDED_MAPPINGS) return 0;
    return __atomic_load_n(&guarded[slot].faults, __ATOMIC_ACQUIRE);
}

/* Stop guarding `slot` (before its mapping is unmapped). */
void ipu_guard_remove(int64_t slot) {
    if (slot < 0 || slot >= GUARDED_MAPPINGS) return;
    __atomic_store_n(&guarded[slot].start, 0, __ATOMIC_RELEASE);
    __atomic_store_n(&guarded[slot].end, 0, __ATOMIC_RELEASE);
    __atomic_store_n(&guarded[slot].claimed, 0, __ATOMIC_RELEASE);
}

#else /* no signals to guard with: ipu_guard_add declines, and the loader reads files into memory */

int64_t ipu_guard_add(const void *start, int64_t length, int64_t fd) {
    (void)start;
    (void)length;
    (void)fd;
    return -1;
}

int64_t ipu_guard_faults(int64_t slot) {
    (void)slot;
    return 0;
}

void ipu_guard_remove(int64_t slot) { (void)slot; }

#endif
