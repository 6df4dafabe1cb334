#!/bin/bash
# A header the setup generates in a folder the project also tracks
# (libarchive: build/ holds tracked scripts, and config.h is generated
# there). The compile command the warm workspace recorded gives -I to the
# workspace's build/; the rebase to the project gives both the project's
# build/ and the workspace's, and the parse must keep the workspace's,
# where config.h is. It was moved to the project's as if it were another
# slot's copy, and the run stopped with "'config.h' file not found".
. "$(dirname "$0")/lib.sh"
P="$T/proj"; mkdir -p "$P/build" "$P/tests"
printf '#!/bin/sh\nprintf "#define WANT 42\\n" > build/config.h\n' > "$P/build/gen.sh"
cat > "$P/tests/test_gen.c" <<'EOF'
#include <stdio.h>
#include "config.h"
static int failures;
#define CHECK(c) do { if (!(c)) { printf("%d %s - FAILED\n", __LINE__, #c); failures++; } } while (0)
void test_gen(void)
{
    int a = 40;
    int b = 1;
    int c = 7;
    printf("c=%d\n", c);
    a += b;
    printf("a=%d\n", a);
    CHECK(a == WANT);
}
int main(void)
{
    test_gen();
    printf("Tests failed: %d\n", failures);
    return failures != 0;
}
EOF
(cd "$P" && git init -q && git add -A && git -c user.email=t@t -c user.name=t commit -qm init) ||
    { fail "git"; finish; }
CC="cc -Ibuild -o t tests/test_gen.c"
"$WHITTLE" reduce --project "$P" --file tests/test_gen.c --test test_gen \
    --setup "sh build/gen.sh && $CC" --build "$CC" --run ./t --framework console \
    --failure-regex '^(?<line>\d+) (?<message>.+?)\s+- FAILED$' --pass-regex '^Tests failed: 0$' \
    --cache memory: --out "$T/out" > "$T/out.log" 2>&1
check_eq "exit" "$?" 0
# The flags guessed before the baseline miss build/ (the precheck is off
# until then); the exact command brings it back.
grep -q "^Precheck and UB guard on: compile arguments from the file's own compile command" "$T/out.log" &&
    pass "the exact command's parse found config.h" ||
    fail "the exact command's parse: $(grep -m1 "config.h\|error" "$T/out.log")"
R=$(run_dir "$T/out")
[ -f "$R/summary.json" ] || { fail "no summary"; finish; }
check_eq "statements" "$(json "$R/summary.json" '"\(.statements_before) -> \(.statements_after)"')" "7 -> 2"
[ ! -e "$P/build/config.h" ] && pass "the project was not written to" || fail "config.h in the project"
# The command the tree was parsed with names the workspace's build/ (where
# config.h is), beside the project's.
grep -q -- "-I[^\"]*/build\"" "$R/compile_command.json" &&
    [ "$(grep -o -- "-I[^\"]*/build\"" "$R/compile_command.json" | sort -u | wc -l)" -ge 2 ] &&
    pass "compile_command.json: the workspace's build/ and the project's" ||
    fail "compile_command.json: $(cat "$R/compile_command.json")"
finish
