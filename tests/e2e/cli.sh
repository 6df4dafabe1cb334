#!/bin/bash
# The command line from one table (common/cli_table.c): every row is in its
# command's --help, in the rendered man page (man -l) and in the bash
# completion; no program parses an option by hand; README's usage lines are
# the generated ones; `cmake --install` into a DESTDIR installs exactly the
# binaries, the man pages and the completion; --version on all three.
. "$(dirname "$0")/lib.sh"
B="$WH_BINARY_DIR"
GEN="$B/doc/cli_gen"
bin() { case $1 in whittle) echo "$B/coordinator/whittle" ;; whittle-coordinator) echo "$B/coordinator/whittle-coordinator" ;; whittle-node) echo "$B/node/whittle-node" ;; esac; }
page() { case $1 in whittle) echo "$B/doc/man/whittle.1" ;; *) echo "$B/doc/man/$1.8" ;; esac; }
"$GEN" rows > "$T/rows" || fail "cli_gen rows"
check_eq "rows listed" "$([ "$(wc -l < "$T/rows")" -gt 100 ] && echo yes)" yes

# Rendered man pages (one section per command in whittle.1).
for p in whittle whittle-coordinator whittle-node; do
    MANWIDTH=200 man -l "$(page $p)" 2>"$T/man.err" > "$T/man.$p" || fail "man -l $p"
    check_eq "man $p warnings" "$(cat "$T/man.err")" ""
done
# whittle.1 shows examples, the after-a-red-ctest one among them.
check_eq "man whittle: EXAMPLES with --from-ctest" \
    "$(sed -n '/^EXAMPLES/,/^ENVIRONMENT/p' "$T/man.whittle" | grep -c '^ *whittle reduce --from-ctest build$')" 1
# The lines of one command's part of a rendered page: whittle.1's
# subsection, or the whole page of a daemon.
man_part() { # prog cmd
    if [ "$2" = - ]; then
        if [ "$1" = whittle ]; then sed -n '/^OPTIONS/,/^[A-Z]/p' "$T/man.whittle"; else cat "$T/man.$1"; fi
    else
        awk -v h="   whittle $2" '$0 == h { on = 1; next } on && (/^   whittle [a-z]+$/ || /^[A-Z]/) { on = 0 } on' "$T/man.whittle"
    fi
}

# whittle.1 lists the framework presets the program knows.
fw=$("$(bin whittle)" help reduce | sed -n 's/^frameworks: //p')
check_eq "man FRAMEWORKS" "$(sed -n '/^FRAMEWORKS/,/^$/p' "$T/man.whittle" | tr -s ' \n' ' ' | grep -oF -- "$fw")" "$fw"

missing=0
while read -r prog cmd long short; do
    c=$([ "$cmd" = - ] || echo "$cmd")
    $(bin "$prog") $c --help > "$T/help" 2>&1 || { fail "$prog $c --help exit"; continue; }
    grep -qE -- "^ +(-., )?$long(=| |$)" "$T/help" || { fail "$prog $c --help lacks $long"; missing=$((missing + 1)); }
    [ -z "$short" ] || grep -qE -- "^ +$short, $long" "$T/help" || fail "$prog $c --help lacks $short"
    man_part "$prog" "$cmd" | grep -qE -- "^ +(-., )?$long(=| |$)" || { fail "man $prog $c lacks $long"; missing=$((missing + 1)); }
    key="$prog ${c}"
    grep -A1 -F "\"$key\")" "$B/doc/whittle.bash" | grep -qE -- "opts=\".*$long( |\")" || { fail "completion $key lacks $long"; missing=$((missing + 1)); }
done < "$T/rows"
check_eq "rows missing from help, man or completion" "$missing" 0

# The completion completes from the table (bash, no bash-completion needed).
comp() { bash -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _whittle_complete; echo "${COMPREPLY[*]}"' _ "$B/doc/whittle.bash" "$@"; }
check_eq "complete command" "$(comp whittle red)" "reduce"
check_eq "complete option" "$(comp whittle reduce --algo)" "--algorithm"
check_eq "complete value" "$(comp whittle reduce --precheck = a)" "audit"
check_eq "complete node option" "$(comp whittle-node --max)" "--max-disk"
check_eq "complete cache's words" "$(comp whittle cache '')" "stats clear forget"
check_eq "complete cache cl" "$(comp whittle cache cl)" "clear"
check_eq "complete cache's option" "$(comp whittle cache stats --ca)" "--cache --cache-secret-file"
check_eq "complete framework" "$(PATH="$B/coordinator:$PATH" comp whittle reduce --framework gt)" "gtest"

# No option parsed by hand: the files that read argv compare no string
# starting with '-' (they ask the table's parser, wh_cli_is).
hand=$(cd "$WH_SOURCE_DIR" && grep -lE 'char \*\*argv' coordinator/*/*.c node/*.c node/fw/*.c common/*.c proto/*.c |
       grep -v '^common/cli' | xargs grep -nE 'str(n)?cmp\([^)]*"-[-a-zA-Z]' || true)
check_eq "options parsed outside the table" "$hand" ""

# README: the usage block is the generated synopsis, line for line, and it
# names no option that is not a row of its command.
{
    "$(bin whittle)" --help | sed -n '/^commands:/,/^$/p' | sed '1d;/^$/d; s/^  /    /'
    for p in whittle-coordinator whittle-node; do "$(bin $p)" --help | head -n1 | sed 's/^usage: /    /'; done
} > "$T/synopsis"
sed -n '/^    whittle inspect/,/^$/p' "$WH_SOURCE_DIR/README.md" | sed '/^$/d' > "$T/readme"
check_eq "README usage = generated synopsis" "$(diff "$T/synopsis" "$T/readme" && echo same)" same

# help COMMAND is COMMAND --help; bad input is named.
check_eq "help reduce" "$("$(bin whittle)" help reduce | sha256sum)" "$("$(bin whittle)" reduce --help | sha256sum)"
"$(bin whittle)" help nosuch > /dev/null 2> "$T/err"; check_eq "help nosuch exit" $? 2
check_eq "help nosuch message" "$(tail -n1 "$T/err")" "whittle: error: unknown command 'nosuch'"
"$(bin whittle)" help reduc > /dev/null 2> "$T/err"; check_eq "help reduc exit" $? 2
check_eq "help reduc message" "$(tail -n1 "$T/err")" "whittle: error: unknown command 'reduc' (did you mean 'reduce'?)"
"$(bin whittle)" reduc > /dev/null 2> "$T/err"; check_eq "reduc exit" $? 2
check_eq "reduc message" "$(tail -n1 "$T/err")" "whittle: error: unknown command 'reduc' (did you mean 'reduce'?)"
"$(bin whittle)" reduce --jobs=4 --nosuch=1 2> "$T/err"; check_eq "unknown exit" $? 2
check_eq "unknown message" "$(cat "$T/err")" \
    "whittle: error: unknown option '--nosuch' for whittle reduce (see whittle reduce --help)"
"$(bin whittle)" reduce -j0 2> "$T/err"; check_eq "range exit" $? 2
check_eq "range message" "$(cat "$T/err")" "whittle: error: --jobs wants a number from 1 to 1024 or auto, not '0'"

# --version on all three: 0.3.0, then git describe when the build had one.
want="0.3.0"
desc=$(git -C "$WH_SOURCE_DIR" describe --tags --always 2>/dev/null) && want="0.3.0 ($desc"
for p in whittle whittle-coordinator whittle-node; do
    v=$("$(bin $p)" --version)
    case "$v" in "$p $want"*) pass "$p --version = $v" ;; *) fail "$p --version: got '$v', want '$p $want...'" ;; esac
done

# cmake --install into a DESTDIR: exactly these files.
DESTDIR="$T/root" cmake --install "$B" --prefix /usr > "$T/install.log" 2>&1 || { cat "$T/install.log"; fail "cmake --install"; }
(cd "$T/root" && find . -type f -o -type l | LC_ALL=C sort) > "$T/installed"
cat > "$T/expected" <<'LIST'
./usr/bin/whittle
./usr/bin/whittle-coordinator
./usr/bin/whittle-node
./usr/share/bash-completion/completions/whittle
./usr/share/bash-completion/completions/whittle-coordinator
./usr/share/bash-completion/completions/whittle-node
./usr/share/man/man1/whittle.1
./usr/share/man/man8/whittle-coordinator.8
./usr/share/man/man8/whittle-node.8
LIST
check_eq "installed files" "$(diff "$T/expected" "$T/installed" && echo same)" same
check_eq "installed whittle runs" "$("$T/root/usr/bin/whittle" --version | cut -d' ' -f1-2)" "whittle 0.3.0"
check_eq "installed man page" "$(MANWIDTH=80 man -l "$T/root/usr/share/man/man8/whittle-node.8" | grep -c -- '--connect=ENDPOINT')" 1
finish
