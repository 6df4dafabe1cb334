# Checks a run folder's report.html in a real browser (sourced by the
# report e2e tests after lib.sh). Headless Chromium loads the page: its DOM
# must show the six measures of summary.json, every line the diff removes
# or adds, one SVG lane per slot of judged.csv (plus cache and precheck
# lanes when used) and one mark per answer of a slot and per cached or
# predicted candidate of candidates.csv; a 1280x2000 screenshot goes
# to build/tests/artifacts/NAME.png.
ART="$WH_BINARY_DIR/tests/artifacts"
chromium_run() { # what... (options and the URL)
    timeout 120 chromium --headless --no-sandbox --disable-gpu --no-first-run \
        --user-data-dir="$T/chromium-profile" --hide-scrollbars "$@"
}
# Text of the diff rows of one class, unescaped, one per line.
dom_rows() { # dom class
    sed -n "s:^<tr class=\"$2\"><td class=\"ln\">[0-9]*</td><td class=\"ln\">[0-9]*</td><td>\(.*\)</td></tr>\$:\1:p" "$1" |
        sed 's/&lt;/</g; s/&gt;/>/g; s/&quot;/"/g; s/&#39;/'"'"'/g; s/&nbsp;/ /g; s/&amp;/\&/g'
}
check_report_page() { # run-folder name
    local R=$1 name=$2 dom="$T/$2.dom"
    [ -s "$R/report.html" ] && pass "$name: report.html written" || { fail "$name: no report.html in $R"; return; }
    chromium_run --dump-dom "file://$R/report.html" > "$dom" 2> "$T/$name.chromium.log"
    [ -s "$dom" ] || { fail "$name: chromium gave no DOM: $(tail -3 "$T/$name.chromium.log")"; return; }
    for m in ARS ATRS ANTRS; do
        check_eq "$name: $m in the page" "$(sed -n "s:.*id=\"m-$m\">\([^<]*\)<.*:\1:p" "$dom")" "$(json "$R/summary.json" ".$m")"
    done
    for m in PRS PTRS PNTRS; do
        check_eq "$name: $m in the page" "$(sed -n "s:.*id=\"m-$m\">\([^<]*\)<.*:\1:p" "$dom")" \
            "$(printf '%.1f%%' "$(json "$R/summary.json" ".$m")")"
    done
    check_eq "$name: fingerprint message" "$(sed -n 's:.*id="fp-message">\([^<]*\)<.*:\1:p' "$dom" | sed 's/&amp;/\&/g')" \
        "$(json "$R/summary.json" .fingerprint.message)"
    check_eq "$name: removed lines of the diff" "$(dom_rows "$dom" del)" "$(grep '^-' "$R/reduced.diff" | grep -v '^--- ')"
    check_eq "$name: added lines of the diff" "$(dom_rows "$dom" add)" "$(grep '^+' "$R/reduced.diff" | grep -v '^+++ ')"
    # lanes and marks from candidates.csv (columns by name)
    local want
    want=$(python3 - "$R/candidates.csv" "$R/judged.csv" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
judged = list(csv.DictReader(open(sys.argv[2])))
cached = [r for r in rows if r["cached"] != "0"]
predicted = [r for r in rows if r["predicted"] != "0" and r["cached"] == "0"]
lanes = len({j["slot"] for j in judged}) + bool(cached) + bool(predicted)
print(lanes, len(judged) + len(cached) + len(predicted), len({j["slot"] for j in judged}))
PY
)
    check_eq "$name: SVG lanes, marks, slots named in the header" "$(grep -o '<g class="slot"' "$dom" | wc -l) $(grep -o '<g class="cand ' "$dom" | wc -l) $(sed -n 's:.*id="wall">[0-9.]* s, \([0-9]*\) slots* judged<.*:\1:p' "$dom")" "$want"
    check_eq "$name: kept units in the tree" "$(grep -o 'class="unit kept"' "$dom" | wc -l)" "$(json "$R/summary.json" .statements_after)"
    mkdir -p "$ART"
    rm -f "$ART/$name.png"
    chromium_run --window-size=1280,2000 --screenshot="$ART/$name.png" "file://$R/report.html" > /dev/null 2>> "$T/$name.chromium.log"
    [ -s "$ART/$name.png" ] || { fail "$name: no screenshot $ART/$name.png"; return; }
    check_eq "$name: screenshot size" "$(python3 -c 'import struct,sys; d=open(sys.argv[1],"rb").read(24); print(d[:8]==b"\x89PNG\r\n\x1a\n", *struct.unpack(">II", d[16:24]))' "$ART/$name.png")" "True 1280 2000"
}
