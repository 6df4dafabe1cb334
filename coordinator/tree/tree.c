/*
 * tree — builds the statement hierarchy of one test function with libclang
 * (DESIGN.md, "Statement tree"). This is the only module that includes the
 * libclang headers.
 *
 * How it works. The file is parsed once with the flags of its
 * compile_commands.json entry. The test function is found among the function
 * definitions of the main file whose body braces are spelled in the file;
 * framework macros (TEST, START_TEST, Test, ...) are recognized by reading the
 * macro invocation that the function's name expands from. Units are then
 * collected block by block: every direct child statement of a brace block
 * spelled in the file becomes a unit, and the brace blocks a unit owns
 * (then/else blocks, loop bodies, catch blocks, lambda bodies, ...) give its
 * children one level down.
 *
 * Offsets come from libclang's expansion locations, so a statement that
 * comes from a macro invocation is located by the invocation in the file. The
 * few places where libclang's extents are not what a reducer needs (the `;`
 * after an expression, the end of a macro invocation whose last token is a
 * macro argument) are fixed with a small lexer over the pristine text.
 *
 * The phases live in files of their own (tree_int.h lists them and holds
 * what they share): tree_parse.c parses the file with the flags of
 * tree_flags.c, tree_fns.c finds its test functions, tree_units.c builds
 * the units with the helpers of tree_cursor.c and the lexer of tree_lex.c.
 * This file is the public entry: wh_tree_load, wh_tree_list and the
 * functions that read a loaded tree.
 */
#define _GNU_SOURCE
#include "tree.h"
#include "tree_int.h"
#include "wh_common.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

static int s_names_match(const char *a, const char *b)
{
    /* "Suite.Name" and "suite::name" are the same name spelled two ways. */
    while (*a && *b) {
        if (a[0] == ':' && a[1] == ':' && b[0] == '.') {
            a += 2, b += 1;
        } else if (b[0] == ':' && b[1] == ':' && a[0] == '.') {
            a += 1, b += 2;
        } else if (*a == *b) {
            a++, b++;
        } else {
            return 0;
        }
    }
    return *a == *b;
}

/* "a, b, c" of the listed tests, malloc'ed. */
static char *s_listed_names(const tr_fns_t *fs)
{
    wh_buf_t b = WH_BUF_INIT;
    for (int i = 0; i < fs->n; i++) {
        if (!fs->v[i].listed)
            continue;
        if (b.len)
            wh_buf_puts(&b, ", ");
        wh_buf_puts(&b, fs->v[i].full);
    }
    if (!b.len)
        wh_buf_puts(&b, "(no tests)");
    return wh_buf_detach(&b);
}

int wh_tree_load(const char *file, const char *test, const wh_tree_opts_t *opts,
                 wh_tree_t **out, char **err)
{
    char *dummy = NULL;
    if (!err)
        err = &dummy;
    *err = NULL;
    if (out)
        *out = NULL;
    if (!file || !test || !out) {
        *err = wh_strdup_printf("wh_tree_load: missing argument");
        free(dummy);
        return WH_EINVAL;
    }
    tr_parsed_t p;
    int rc = tr_parse(file, opts, &p, err);
    if (rc < 0) {
        free(dummy);
        return rc;
    }
    /* Exact resolved name, then the function's own name, then the short
     * name (without the suite) when exactly one test has it. */
    int found = -1, nshort = 0;
    for (int i = 0; i < p.fns.n && found < 0; i++)
        if (s_names_match(p.fns.v[i].full, test))
            found = i;
    for (int i = 0; i < p.fns.n && found < 0; i++)
        if (strcmp(p.fns.v[i].alias, test) == 0)
            found = i;
    if (found < 0) {
        for (int i = 0; i < p.fns.n; i++) {
            if (p.fns.v[i].shrt != p.fns.v[i].full && strcmp(p.fns.v[i].shrt, test) == 0) {
                if (nshort++ == 0)
                    found = i;
            }
        }
        if (nshort > 1) {
            wh_buf_t b = WH_BUF_INIT;
            for (int i = 0; i < p.fns.n; i++)
                if (p.fns.v[i].shrt != p.fns.v[i].full && strcmp(p.fns.v[i].shrt, test) == 0)
                    wh_buf_printf(&b, "%s%s", b.len ? ", " : "", p.fns.v[i].full);
            char *names = wh_buf_detach(&b);
            *err = wh_strdup_printf("test '%s' is ambiguous in %s; it matches: %s", test, file,
                                    names);
            free(names);
            tr_parsed_free(&p);
            free(dummy);
            return WH_ENOTFOUND;
        }
    }
    if (found < 0) {
        /* A test macro from a header that is not found (or behind any other
         * error) defines nothing: name that error, not "(no tests)". */
        const tr_diag_t *hide = tr_hiding_diag(p.diags, p.ndiags, 0, 0);
        int allow = opts ? opts->allow_errors : 0;
        int refuse = hide && !(allow == WH_TREE_ALLOW_ERRORS ||
                               (allow == WH_TREE_ALLOW_MISSING_HEADERS && hide->missing));
        char *names = s_listed_names(&p.fns);
        char *why = refuse ? tr_refusal(hide, NULL) : NULL;
        int listed = 0;
        for (int i = 0; i < p.fns.n; i++)
            listed += p.fns.v[i].listed;
        if (names && refuse && why)
            *err = wh_strdup_printf("test '%s' not found in %s%s%s%s, which does not parse: %s",
                                    test, file, listed ? " (it defines: " : "",
                                    listed ? names : "", listed ? ")" : "", why);
        else if (names && !refuse)
            *err = wh_strdup_printf("test '%s' not found in %s; it defines: %s%s%s%s", test, file,
                                    names, hide ? " (the parse had errors, the first: " : "",
                                    hide ? hide->msg : "", hide ? ")" : "");
        free(names);
        free(why);
        rc = refuse ? WH_EPARSE : WH_ENOTFOUND;
        tr_parsed_free(&p);
        free(dummy);
        return *err ? rc : WH_ENOMEM;
    }

    wh_tree_t *t = calloc(1, sizeof *t);
    tr_units_t u = {.c = &p.c};
    if (!t)
        goto oom;
    CXCursor body = p.fns.v[found].body;
    size_t bb = 0, be = 0;
    tr_is_file_block(&p.c, body, &bb, &be);
    const tr_diag_t *hide = tr_hiding_diag(p.diags, p.ndiags, p.fns.v[found].def_off, be);
    int allow = opts ? opts->allow_errors : 0;
    if (hide && !(allow == WH_TREE_ALLOW_ERRORS ||
                  (allow == WH_TREE_ALLOW_MISSING_HEADERS && hide->missing))) {
        *err = tr_refusal(hide, p.fns.v[found].full);
        free(t);
        tr_parsed_free(&p);
        free(dummy);
        return *err ? WH_EPARSE : WH_ENOMEM;
    }
    if (hide && !(t->diag = strdup(hide->msg)))
        goto oom;
    rc = tr_add_block(&u, body, 0, -1);
    if (rc < 0 || tr_flow(&p.c, body, u.v, u.n, bb, be, &t->flow) < 0)
        goto oom;
    t->path = strdup(file);
    t->test = strdup(p.fns.v[found].full);
    if (!t->path || !t->test)
        goto oom;
    if (p.fns.v[found].registered && strcmp(p.fns.v[found].alias, t->test) != 0 &&
        !(t->fn = strdup(p.fns.v[found].alias)))
        goto oom;
    t->text = p.text;
    t->text_len = p.len;
    p.text = NULL;
    t->body_begin = bb;
    t->body_end = be;
    t->n = u.n;
    t->units = u.v;
    t->cc_args = p.cc.v;
    t->cc_nargs = p.cc.n;
    t->cc_exact = p.cc_exact;
    t->cc_clang = p.cc_clang;
    p.cc.v = NULL;
    p.cc.n = p.cc.cap = 0;
    tr_parsed_free(&p);
    *out = t;
    free(dummy);
    return 0;
oom:
    free(u.v);
    if (t) {
        wh_flow_destroy(&t->flow);
        free(t->path);
        free(t->test);
        free(t->fn);
        free(t->diag);
        free(t);
    }
    tr_parsed_free(&p);
    *err = wh_strdup_printf("%s: out of memory", file);
    free(dummy);
    return WH_ENOMEM;
}

int wh_tree_list(const char *file, const wh_tree_opts_t *opts, char ***names, int *n, char **err)
{
    char *dummy = NULL;
    if (!err)
        err = &dummy;
    *err = NULL;
    if (!file || !names || !n) {
        *err = wh_strdup_printf("wh_tree_list: missing argument");
        free(dummy);
        return WH_EINVAL;
    }
    *names = NULL;
    *n = 0;
    tr_parsed_t p;
    int rc = tr_parse(file, opts, &p, err);
    if (rc < 0) {
        free(dummy);
        return rc;
    }
    const tr_diag_t *hide = tr_hiding_diag(p.diags, p.ndiags, 0, 0);
    int allow = opts ? opts->allow_errors : 0;
    if (hide && !(allow == WH_TREE_ALLOW_ERRORS ||
                  (allow == WH_TREE_ALLOW_MISSING_HEADERS && hide->missing))) {
        *err = tr_refusal(hide, NULL);
        tr_parsed_free(&p);
        free(dummy);
        return *err ? WH_EPARSE : WH_ENOMEM;
    }
    if (hide)
        wh_warn("%s (listing anyway: --allow-parse-errors)", hide->msg);
    int cnt = 0;
    for (int i = 0; i < p.fns.n; i++)
        cnt += p.fns.v[i].listed;
    char **v = calloc((size_t)cnt + 1, sizeof *v);
    int k = 0;
    for (int i = 0; v && i < p.fns.n; i++) {
        if (!p.fns.v[i].listed)
            continue;
        if (!(v[k] = strdup(p.fns.v[i].full))) {
            tr_free_strv(v, k);
            v = NULL;
            break;
        }
        k++;
    }
    tr_parsed_free(&p);
    if (!v) {
        *err = wh_strdup_printf("%s: out of memory", file);
        free(dummy);
        return WH_ENOMEM;
    }
    *names = v;
    *n = k;
    free(dummy);
    return 0;
}

void wh_tree_destroy(wh_tree_t **tp)
{
    if (!tp || !*tp)
        return;
    wh_tree_t *t = *tp;
    free(t->path);
    free(t->text);
    free(t->test);
    free(t->fn);
    free(t->units);
    free(t->diag);
    wh_flow_destroy(&t->flow);
    for (int i = 0; i < t->cc_nargs; i++)
        free(t->cc_args[i]);
    free(t->cc_args);
    free(t);
    *tp = NULL;
}

void wh_tree_totals(const wh_tree_t *t, wh_tree_totals_t *out)
{
    memset(out, 0, sizeof *out);
    for (int i = 0; t && i < t->n; i++) {
        out->total++;
        if (t->units[i].is_tree)
            out->tree++;
        else
            out->nontree++;
        if (t->units[i].level > out->deepest)
            out->deepest = t->units[i].level;
    }
}

char *wh_tree_unit_head(const wh_tree_t *t, int i, size_t max)
{
    if (!t || i < 0 || i >= t->n)
        return NULL;
    const char *s = t->text + t->units[i].begin, *e = t->text + t->units[i].end;
    const char *nl = memchr(s, '\n', (size_t)(e - s));
    if (nl)
        e = nl;
    while (s < e && isspace((unsigned char)*s))
        s++;
    while (e > s && isspace((unsigned char)e[-1]))
        e--;
    size_t n = (size_t)(e - s);
    if (n > max)
        return wh_strdup_printf("%.*s...", (int)max, s);
    return strndup(s, n);
}

const char *wh_tree_kind_name(wh_stmt_kind_t k)
{
    static const char *const names[] = {
        [WH_STMT_EXPR] = "expr",   [WH_STMT_DECL] = "decl",   [WH_STMT_MACRO] = "macro",
        [WH_STMT_IF] = "if",       [WH_STMT_FOR] = "for",     [WH_STMT_WHILE] = "while",
        [WH_STMT_DO] = "do",       [WH_STMT_SWITCH] = "switch", [WH_STMT_BLOCK] = "block",
        [WH_STMT_TRY] = "try",     [WH_STMT_RANGE_FOR] = "range_for",
        [WH_STMT_LAMBDA] = "lambda", [WH_STMT_CLASS] = "class", [WH_STMT_OTHER] = "other",
    };
    if ((unsigned)k >= sizeof names / sizeof names[0] || !names[k])
        return "other";
    return names[k];
}

void wh_tree_print(const wh_tree_t *t, FILE *fp, int json)
{
    wh_tree_totals_t tot;
    wh_tree_totals(t, &tot);
    wh_buf_t b = WH_BUF_INIT;
    if (json) {
        wh_buf_puts(&b, "{\"test\":");
        wh_buf_json_str(&b, t->test);
        wh_buf_puts(&b, ",\"file\":");
        wh_buf_json_str(&b, t->path);
        wh_buf_puts(&b, ",\"units\":[");
    } else {
        wh_buf_printf(&b, "Statement hierarchy for %s:\n", t->test);
    }
    for (int i = 0; i < t->n; i++) {
        const wh_unit_t *u = &t->units[i];
        char *head = wh_tree_unit_head(t, i, WH_TREE_HEAD_MAX);
        if (json) {
            wh_buf_printf(&b,
                          "%s{\"level\":%d,\"tree\":%s,\"kind\":\"%s\",\"line\":%u,"
                          "\"parent\":%d,\"begin\":%zu,\"end\":%zu,\"text\":",
                          i ? "," : "", u->level, u->is_tree ? "true" : "false",
                          wh_tree_kind_name(u->kind), u->line, u->parent, u->begin, u->end);
            wh_buf_json_str(&b, head ? head : "");
            wh_buf_puts(&b, "}");
        } else {
            wh_buf_printf(&b, "%*sL%d [%s] %s\n", 2 * u->level, "", u->level,
                          u->is_tree ? "Tree" : "NonTree", head ? head : "");
        }
        free(head);
    }
    if (json)
        wh_buf_printf(&b,
                      "],\"totals\":{\"statements\":%d,\"nontree\":%d,\"tree\":%d,"
                      "\"deepest\":%d}}\n",
                      tot.total, tot.nontree, tot.tree, tot.deepest);
    else
        wh_buf_printf(&b,
                      "Totals: %d statements | NonTree (#NTN): %d | Tree (#TN): %d | "
                      "deepest level: %d\n",
                      tot.total, tot.nontree, tot.tree, tot.deepest);
    if (b.buf)
        fwrite(b.buf, 1, b.len, fp);
    wh_buf_free(&b);
}
