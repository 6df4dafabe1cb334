/* clang_index.c - the one place whittle makes a libclang index.
 *
 * It also holds the ASan options of a sanitizer build: defined here, in the
 * object every libclang user pulls in through wh_clang_index(), they reach
 * every program that parses (they were in precheck.c, so a program that
 * parsed without the precheck, like test_ubguard, aborted at thread exit).
 */
#include "clang_index.h"

/* Sanitizer builds only. Building the preamble makes LLVM register its
 * temporary file for removal on a signal, which installs LLVM's own
 * alternate signal stack on libclang's parse thread; when that thread ends,
 * ASan cannot unmap the stack it had installed there and aborts. ASan's
 * own alternate stack is not needed by whittle's tests. */
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define S_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) && !defined(S_ASAN)
#define S_ASAN 1
#endif
#ifdef S_ASAN
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
    return "use_sigaltstack=0";
}
#endif

CXIndex wh_clang_index(void)
{
    return clang_createIndex(0, 0);
}
