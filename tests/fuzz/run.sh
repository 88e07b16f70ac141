#!/bin/sh
# run.sh TARGET SECONDS — one fuzzer (build/fuzz/fuzz_TARGET): every kept
# regression input in tests/fuzz/regressions/TARGET/ once, then SECONDS of
# fuzzing from the seeds in tests/fuzz/TARGET/. New inputs go to
# build/fuzz/corpus/TARGET; a crash is saved as build/fuzz/crash-TARGET-*
# (fix it, then keep it in tests/fuzz/regressions/TARGET/).
t=$1 secs=$2
F=build/fuzz
opts="-rss_limit_mb=2048 -timeout=20 -print_final_stats=0"
mkdir -p "$F/corpus/$t"
regs=$(ls "tests/fuzz/regressions/$t/"* 2>/dev/null)
if [ -n "$regs" ]; then
    # shellcheck disable=SC2086
    if ! "./$F/fuzz_$t" $opts $regs >"$F/$t.regress.log" 2>&1; then
        tail -40 "$F/$t.regress.log"; echo "fuzz $t: a kept regression input fails again"; exit 1
    fi
    echo "fuzz $t: $(echo "$regs" | wc -l) kept regression inputs pass"
fi
# shellcheck disable=SC2086
if ! "./$F/fuzz_$t" $opts -max_total_time="$secs" -artifact_prefix="$F/crash-$t-" \
        "$F/corpus/$t" "tests/fuzz/$t" >"$F/$t.log" 2>&1; then
    tail -40 "$F/$t.log"; echo "fuzz $t: FAILED after $(grep -c . "$F/$t.log") log lines; input saved as $(ls "$F"/crash-"$t"-* 2>/dev/null)"; exit 1
fi
echo "fuzz $t: $secs s, $(sed -n 's/^#\([0-9]*\).*DONE.*/\1/p' "$F/$t.log" | tail -1) runs, corpus of $(ls "$F/corpus/$t" | wc -l) new + $(ls "tests/fuzz/$t" | wc -l) seed inputs"
