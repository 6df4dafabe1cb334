#include "fw_detect.h"

#include <string.h>

static const struct {
    const char *prefix; /* the header path, or its folder with a '/' */
    const char *preset;
} s_headers[] = {
    {"cmocka.h", "cmocka"},       {"gtest/gtest.h", "gtest"}, {"check.h", "check"},
    {"CUnit/", "cunit"},          {"criterion/", "criterion"}, {"unity.h", "unity"},
    {"utest.h", WH_FW_UTEST},
};

/* utest.h's console output: its XML report (--output) says nothing of a
 * failure (<testcase> is written before the test runs and closed after),
 * so its failures are read from what it prints, as the console preset
 * does with these regexes. */
const char *const wh_fw_utest_failure_regex =
    "(?m)^\\[ RUN      \\] (?<test>\\S+)\\n(?<file>[^:\\n]+):(?<line>\\d+): Failure\\n"
    "(?<message>(?:  .*\\n)+)";
const char *const wh_fw_utest_pass_regex = "^\\[       OK \\] (?<test>\\S+)";

/* Whether the include path name[0..n) names `prefix`: the header itself
 * ("unity.h") or a file under the folder ("CUnit/"), spelled from the path's
 * start or after one of its '/' (a vendored "unity/src/unity.h"). */
static int s_names(const char *name, size_t n, const char *prefix)
{
    size_t pl = strlen(prefix);
    int dir = prefix[pl - 1] == '/';
    for (size_t at = 0; at < n; at++) {
        if (at > 0 && name[at - 1] != '/')
            continue;
        size_t rest = n - at;
        if (dir ? rest > pl && !strncmp(name + at, prefix, pl)
                : rest == pl && !strncmp(name + at, prefix, pl))
            return 1;
    }
    return 0;
}

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
        if (s_names(name, n, s_headers[i].prefix)) {
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
