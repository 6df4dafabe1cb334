/* clang_index.h - the one place whittle makes a libclang index. */
#ifndef WH_CLANG_INDEX_H
#define WH_CLANG_INDEX_H

#include <clang-c/Index.h>

/* clang_createIndex(0, 0). Every libclang user makes its index here, so
 * that a sanitizer build of any of them carries the ASan options libclang
 * needs (clang_index.c), whichever of them a program links. */
CXIndex wh_clang_index(void);

#endif
