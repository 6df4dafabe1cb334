#!/bin/bash
# `whittle reduce` with no job flags reads ./whittle.json (or --config FILE;
# the fields of a submit entry; --framework detected from the includes, a relative project taken from the file's
# folder); flags override it. A bad config is a one-line error naming it.
. "$(dirname "$0")/lib.sh"
P="$T/cart"; cp -r "$FIX/cart" "$P"

(cd "$P" && "$WHITTLE" reduce --out "$T/here" --cache memory:) > "$T/here.out" 2>&1 || { cat "$T/here.out"; fail "run from ./whittle.json"; }
check_eq "console names the config" "$(grep '^config:' "$T/here.out")" "config: whittle.json"
check_eq "framework detected from <cmocka.h>" "$(grep '^framework:' "$T/here.out")" \
    "framework: cmocka (from the test file's includes; --framework to choose another)"
R=$(run_dir "$T/here")
check_eq "whittle.json: statements_after" "$(json "$R/summary.json" .statements_after)" 4
check_eq "latest -> the run folder" "$(readlink "$T/here/latest")" "$(basename "$R")"
check_eq "whittle.json: fingerprint" "$(json "$R/summary.json" .fingerprint.message)" '"apple" != "appl"'

# From another folder with --config; a flag overrides the file's algorithm.
(cd "$T" && "$WHITTLE" reduce --config cart/whittle.json --algorithm dd --out "$T/dd" --cache memory:) > "$T/dd.out" 2>&1 || { cat "$T/dd.out"; fail "run with --config"; }
check_eq "--config + --algorithm dd: statements_after" "$(json "$(run_dir "$T/dd")/summary.json" .statements_after)" 6

# No framework header: the default is junit, and the console says so.
out=$("$WHITTLE" reduce --config "$P/whittle.json" --file src/cart.c --test cart_new --out "$T/nofw" --cache memory: 2>&1)
check_eq "no header: junit default named" "$(grep '^framework:' <<<"$out")" \
    "framework: junit (default: no known framework header included; --framework to choose another)"

# Errors name the file and the problem.
echo '{"project": ".", "tset": "x"}' > "$T/bad.json"
out=$("$WHITTLE" reduce --config "$T/bad.json" 2>&1); rc=$?
check_eq "unknown field: exit" "$rc" 2
check_eq "unknown field: message" "$out" "whittle: error: config '$T/bad.json': unknown field 'tset' (did you mean 'test'?)"
echo '{"project": ".", "colour": "x"}' > "$T/far.json"
check_eq "unknown field, nothing near: message" "$("$WHITTLE" reduce --config "$T/far.json" 2>&1)" \
    "whittle: error: config '$T/far.json': unknown field 'colour'"
echo '[1' > "$T/broken.json"
out=$("$WHITTLE" reduce --config "$T/broken.json" 2>&1); rc=$?
check_eq "broken json: exit" "$rc" 2
case "$out" in "whittle: error: cannot read config '$T/broken.json':"*) pass "broken json named";; *) fail "broken json: got '$out'";; esac
out=$("$WHITTLE" reduce --config "$T/no-such.json" 2>&1); rc=$?
check_eq "missing config: exit $rc, one line without a line number" "$rc: $out" \
    "2: whittle: error: cannot read config '$T/no-such.json': unable to open $T/no-such.json: No such file or directory"
out=$("$WHITTLE" reduce --config "$T/none.json" 2>&1); rc=$?
check_eq "missing config: exit" "$rc" 2
# An option refused after the config was read: the console reads in the order
# things happened, even through a pipe (stdout is flushed before an error).
out=$("$WHITTLE" reduce --config "$P/whittle.json" --jobs autp 2>&1); rc=$?
check_eq "bad option after config: exit" "$rc" 2
check_eq "bad option after config: order" "$out" "config: $P/whittle.json
whittle: error: --jobs wants a number from 1 to 1024 or auto, not 'autp'"
finish
