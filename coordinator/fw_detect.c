#include "fw_detect.h"

#include <string.h>

static const struct {
    const char *prefix; /* the header path, or its folder with a '/' */
    const char *preset;
} s_headers[] = {
    {"cmocka.h", "cmocka"},       {"gtest/gtest.h", "gtest"}, {"check.h", "check"},
    {"CUnit/", "cunit"},          {"criterion/", "criterion"}, {"unity.h", "unity"},
};

/* The preset for one `#include <x>` / `#include "x"` line, else NULL. */
static const char *s_match(const char *line, const char **header)
{
    while (*line == ' ' || *line == '\t')
        line++;
    if (*line++ != '#')
        return NULL;
    while (*line == ' ' || *line == '\t')
        line++;
    if (strncmp(line, "include", 7) != 0)
        return NULL;
    line += 7;
    while (*line == ' ' || *line == '\t')
        line++;
    if (*line != '<' && *line != '"')
        return NULL;
    char close = *line == '<' ? '>' : '"';
    const char *name = line + 1;
    const char *end = strchr(name, close);
    const char *nl = strchr(name, '\n');
    if (!end || (nl && nl < end))
        return NULL;
    size_t n = (size_t)(end - name);
    for (size_t i = 0; i < sizeof s_headers / sizeof s_headers[0]; i++) {
        size_t pl = strlen(s_headers[i].prefix);
        int dir = s_headers[i].prefix[pl - 1] == '/';
        if ((dir && n > pl && !strncmp(name, s_headers[i].prefix, pl)) ||
            (!dir && n == pl && !strncmp(name, s_headers[i].prefix, pl))) {
            if (header)
                *header = s_headers[i].prefix;
            return s_headers[i].preset;
        }
    }
    return NULL;
}

const char *wh_fw_detect_source(const char *src, const char **header)
{
    for (const char *line = src; line && *line;) {
        const char *fw = s_match(line, header);
        if (fw)
            return fw;
        line = strchr(line, '\n');
        if (line)
            line++;
    }
    return NULL;
}
