#!/bin/bash
# A local struct's member function bodies are Tree statements (issue 19):
# the one statement of load() the failure needs is kept, every other
# statement of warmup() and load() goes, and so does the call of warmup().
# Before, the whole `struct Feed {...};` was one NonTree unit and all six
# statements inside it stayed.
. "$(dirname "$0")/lib.sh"
P="$T/p"; cp -r "$FIX/local_struct" "$P"
"$WHITTLE" inspect "$P/tests/test_meter.cc" --test Meter.LargeReading > "$T/tree" 2>&1 || { cat "$T/tree"; fail "inspect"; }
check_eq "inspect totals" "$(tail -n1 "$T/tree")" \
    "Totals: 12 statements | NonTree (#NTN): 11 | Tree (#TN): 1 | deepest level: 1"
check_eq "the struct is a Tree unit" "$(grep -c '^L0 \[Tree\] struct Feed {$' "$T/tree")" 1
"$WHITTLE" reduce --project "$P" --file tests/test_meter.cc --test Meter.LargeReading \
    --setup "make -s" --build "make -s" --run "./test_meter" --framework gtest \
    --cache memory: --out "$T/runs" > "$T/out" 2>&1 || { cat "$T/out"; fail "reduce"; }
R=$(run_dir "$T/runs")
check_eq "statements_before" "$(json "$R/summary.json" .statements_before)" 12
check_eq "tree_before" "$(json "$R/summary.json" .tree_before)" 1
check_eq "fingerprint" "$(json "$R/summary.json" '.fingerprint | .test + " | " + .location + " | " + .message')" \
    "Meter.LargeReading | test_meter.cc:37 | Expected equality of these values: 250 m.total() Which is: 200"
want='TEST(Meter, LargeReading)
{
    Meter m;
    struct Feed {
        Meter &m;
        void warmup()
        {
        }
        void load()
        {
            m.add(250);
        }
    };
    Feed feed{m};
    feed.load();
    EXPECT_EQ(250, m.total());
}'
check_eq "reduced test" "$(awk '/^TEST\(Meter, LargeReading\)/,/^}/' "$R/reduced.cc")" "$want"
finish
