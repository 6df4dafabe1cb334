/*
 * tree_units — building the units of a test function (tree.h, "Units"):
 * every direct child statement of a brace block spelled in the file becomes
 * a unit, located by its expansion range and ended by its `;`, and the
 * blocks it owns give its children one level down. wh_tree_load calls
 * tr_add_block on the test function's body. Also the line table that gives
 * each unit its line.
 */
#define _GNU_SOURCE
#include "tree_int.h"
#include "wh_common.h"

#include <stdlib.h>
#include <string.h>

/* The line table: the offset of every newline, built once per parse, so
 * that a statement's line is a binary search, not a count from the start
 * of the file (which made big test functions quadratic). */
int tr_lines_build(tr_ctx_t *c)
{
    size_t n = 0;
    for (const char *p = c->text; (p = memchr(p, '\n', c->len - (size_t)(p - c->text))); p++)
        n++;
    c->nl = malloc((n ? n : 1) * sizeof *c->nl);
    if (!c->nl)
        return WH_ENOMEM;
    c->nnl = 0;
    for (const char *p = c->text; (p = memchr(p, '\n', c->len - (size_t)(p - c->text))); p++)
        c->nl[c->nnl++] = (size_t)(p - c->text);
    return 0;
}

/* 1-based line of off: one plus the number of newlines before it. */
static unsigned s_line_of(const tr_ctx_t *c, size_t off)
{
    size_t lo = 0, hi = c->nnl;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (c->nl[mid] < off)
            lo = mid + 1;
        else
            hi = mid;
    }
    return (unsigned)lo + 1;
}

static int s_unit_push(tr_units_t *u, const wh_unit_t *unit)
{
    if (u->n == u->cap) {
        int cap = u->cap ? u->cap * 2 : 32;
        wh_unit_t *nv = realloc(u->v, (size_t)cap * sizeof *nv);
        if (!nv)
            return WH_ENOMEM;
        u->v = nv;
        u->cap = cap;
    }
    u->v[u->n++] = *unit;
    return u->n - 1;
}

/* The end offset of a statement's extent, corrected for macros: when the
 * extent ends inside a macro invocation, the end is the end of the
 * invocation in the file. */
size_t tr_stmt_end(const tr_ctx_t *c, CXSourceRange r)
{
    CXSourceLocation end = clang_getRangeEnd(r);
    CXFile ff = NULL;
    unsigned fo = 0;
    size_t eo = 0;
    int where = tr_loc(c, end, &eo);
    if (where < 0)
        return 0;
    if (where == 1)
        return eo;
    /* From a macro: eo is where the outermost invocation starts. */
    int m = tr_macro_at(c, eo);
    size_t best = m >= 0 && c->mac[m].e > eo ? c->mac[m].e : tr_invocation_end(c->text, c->len, eo);
    clang_getFileLocation(end, &ff, NULL, NULL, &fo);
    if (ff && clang_File_isEqual(ff, c->main) && fo <= c->len && fo > best)
        best = fo;
    return best > eo ? best : eo;
}

/* A macro invocation followed by a braced body, `list_for_each(p, head) {
 * ... }`: the macro expands to a loop (or an if, a switch) whose body is a
 * block spelled in the file after the invocation. That block is the
 * statement's own, like a for's; blocks that come from the macro itself or
 * from its arguments never are. cur starts at the invocation at begin. */
static void s_macro_loop_blocks(tr_blocks_t *bl, CXCursor cur, size_t begin)
{
    switch (clang_getCursorKind(cur)) {
    case CXCursor_ForStmt:
    case CXCursor_WhileStmt:
    case CXCursor_IfStmt:
    case CXCursor_SwitchStmt:
    case CXCursor_CXXForRangeStmt:
        break;
    default:
        return;
    }
    const tr_ctx_t *c = bl->c;
    int m = tr_macro_at(c, begin);
    size_t inv_end = m >= 0 ? c->mac[m].e : tr_invocation_end(c->text, c->len, begin);
    tr_owned_blocks(bl, cur);
    int k = 0;
    for (int i = 0; i < bl->n; i++) {
        size_t b = 0;
        if (tr_is_file_block(c, bl->v[i], &b, NULL) && b >= inv_end)
            bl->v[k++] = bl->v[i];
    }
    bl->n = k;
}

/* Adds the unit for statement cur (a direct child of a block) and its
 * children. limit is where the next sibling begins (or the block's '}'). */
static int s_add_stmt(tr_units_t *u, CXCursor cur, size_t begin, size_t limit, int level,
                      int parent)
{
    const tr_ctx_t *c = u->c;
    CXSourceRange r = clang_getCursorExtent(cur);
    size_t off;
    int is_macro = tr_loc(c, clang_getRangeStart(r), &off) == 0;

    /* A `case X:` / `default:` / `label:` is one unit together with the
     * statement it labels (a switch body's units are "case + statement",
     * then the statements up to the next label): removing a label alone
     * rarely compiles into anything meaningful, and removing the labeled
     * statement alone leaves `case X: case Y:` runs that are harmless but
     * noisy. The unit's kind and children are those of the labeled
     * statement. */
    CXCursor inner = cur;
    while (!is_macro) {
        enum CXCursorKind k = clang_getCursorKind(inner);
        if (k != CXCursor_CaseStmt && k != CXCursor_DefaultStmt && k != CXCursor_LabelStmt)
            break;
        tr_cursors_t cs;
        if (tr_children(inner, &cs) < 0)
            return WH_ENOMEM;
        if (cs.n == 0) {
            free(cs.v);
            break;
        }
        inner = cs.v[cs.n - 1];
        free(cs.v);
        if (tr_loc(c, clang_getRangeStart(clang_getCursorExtent(inner)), &off) == 0)
            is_macro = 1;
    }

    size_t end = tr_stmt_end(c, r);
    if (end > limit)
        end = limit;
    if (end < begin)
        end = begin;
    if ((is_macro || tr_needs_semi(inner)) && (end == 0 || c->text[end - 1] != ';')) {
        size_t p = tr_skip_trivia(c->text, c->len, end);
        if (p < limit && c->text[p] == ';')
            end = p + 1;
    }

    wh_unit_t unit = {
        .parent = parent,
        .level = level,
        .is_tree = 0,
        .kind = is_macro ? WH_STMT_MACRO : tr_kind_of(inner),
        .begin = begin,
        .end = end,
        .line = s_line_of(c, begin),
    };
    int idx = s_unit_push(u, &unit);
    if (idx < 0)
        return idx;

    tr_blocks_t bl = {.c = c};
    if (is_macro) {
        s_macro_loop_blocks(&bl, inner, begin);
        if (bl.n > 0)
            u->v[idx].kind = tr_kind_of(inner);
    } else {
        tr_owned_blocks(&bl, inner);
    }
    if (bl.oom || bl.n == 0) {
        free(bl.v);
        return bl.oom ? WH_ENOMEM : 0;
    }
    /* An expression or declaration that owns blocks owns lambda bodies, or
     * the member function bodies of a local class it declares. */
    if (bl.n > 0 && (unit.kind == WH_STMT_EXPR || unit.kind == WH_STMT_DECL ||
                     unit.kind == WH_STMT_OTHER))
        u->v[idx].kind = bl.members > 0 ? WH_STMT_CLASS : WH_STMT_LAMBDA;
    for (int i = 0; i < bl.n; i++) {
        int rc = tr_add_block(u, bl.v[i], level + 1, idx);
        if (rc < 0) {
            free(bl.v);
            return rc;
        }
    }
    free(bl.v);
    u->v[idx].is_tree = u->n > idx + 1;
    return 0;
}

/* Adds a unit for every direct child statement of block. */
int tr_add_block(tr_units_t *u, CXCursor block, int level, int parent)
{
    const tr_ctx_t *c = u->c;
    size_t bb, be;
    if (!tr_is_file_block(c, block, &bb, &be))
        return 0;
    tr_cursors_t cs;
    if (tr_children(block, &cs) < 0)
        return WH_ENOMEM;
    /* Begin offsets first, so that each statement's end can be bounded by
     * the next statement's begin. Empty statements (`;`) are not units. */
    size_t *begins = calloc((size_t)cs.n + 1, sizeof *begins);
    if (!begins) {
        free(cs.v);
        return WH_ENOMEM;
    }
    int rc = 0;
    for (int i = 0; i < cs.n; i++) {
        size_t off = 0;
        if (clang_getCursorKind(cs.v[i]) == CXCursor_NullStmt ||
            tr_loc(c, clang_getRangeStart(clang_getCursorExtent(cs.v[i])), &off) < 0 ||
            off <= bb || off >= be)
            begins[i] = (size_t)-1;
        else
            begins[i] = off;
    }
    for (int i = 0; i < cs.n && rc == 0; i++) {
        if (begins[i] == (size_t)-1)
            continue;
        size_t limit = be - 1;
        for (int j = i + 1; j < cs.n; j++) {
            if (begins[j] != (size_t)-1 && begins[j] > begins[i]) {
                limit = begins[j];
                break;
            }
        }
        /* A macro that expands to several statements yields several
         * children starting at the same invocation: one unit only. */
        if (i > 0 && begins[i - 1] == begins[i])
            continue;
        rc = s_add_stmt(u, cs.v[i], begins[i], limit, level, parent);
    }
    free(begins);
    free(cs.v);
    return rc;
}
