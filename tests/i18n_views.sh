#!/bin/sh
# i18n_views.sh — every kind of view, exported as PDF in Persian and in
# Arabic, and a handout's first pages: the text in them (pdftotext) has no
# English word left but formulas, tokens, stage ids and names. Also the same
# picture in English still says its English words (the test can fail).
# Usage: TVIZ=build/tviz sh tests/i18n_views.sh
TVIZ=${TVIZ:-build/tviz}
TVIZ=$(cd "$(dirname "$TVIZ")" && pwd)/$(basename "$TVIZ")
T=$(mktemp -d /tmp/tviz-i18n-XXXXXX)
trap 'rm -rf "$T"' EXIT
pass=0 fail=0
ok()  { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

W=dec.1.cross_attn.head.3.weights
# view | stage | cell: each kind of view, and an arithmetic card for every kind of stage
VIEWS="heatmap|$W|
matrix|enc.0.norm1|
heads|$W|
grid|$W|
lines|$W|
lines-heads|$W|
top-k|out.probs|
top-k|out.logits|
beam|out.probs|
pe-heatmap||
pe-curves||
pe-similarity||
architecture|$W|
arithmetic|$W|3,2
arithmetic|dec.0.self_attn.head.1.masked|1,3
arithmetic|enc.0.self_attn.head.0.scores|1,2
arithmetic|enc.0.self_attn.head.0.scaled|1,2
arithmetic|enc.0.self_attn.head.0.out|1,2
arithmetic|enc.0.self_attn.concat|1,2
arithmetic|enc.0.self_attn.q|0,1
arithmetic|enc.0.self_attn.out|0,1
arithmetic|src.embed|0,0
arithmetic|tgt.embed|1,0
arithmetic|src.pe|1,1
arithmetic|src.input|1,1
arithmetic|enc.0.add1|1,3
arithmetic|enc.0.norm1|0,0
arithmetic|enc.0.ffn.hidden|0,0
arithmetic|enc.0.ffn.out|0,0
arithmetic|out.logits|1,4
arithmetic|out.probs|2,5"
# the same for the recurrent model with attention (its stages, cards and the views only it has)
R=rnn-attn-en-fa
RVIEWS="heatmap|enc.0.f|
heatmap|enc.final.h|
heatmap|dec.attn.weights|
lines|dec.attn.weights|
architecture|dec.1.h|
side-by-side||
arithmetic|enc.0.i|1,2
arithmetic|enc.0.g|1,2
arithmetic|enc.1.c|1,2
arithmetic|dec.0.h|1,2
arithmetic|dec.attn.scores|1,2
arithmetic|dec.attn.weights|1,2
arithmetic|dec.attn.context|1,2
arithmetic|dec.attn.out|1,2
beam|out.logits|
arithmetic|out.logits|1,4"

# Words that may stay as they are: formula names and symbols, special tokens,
# the program and model names. Tokens of the sentence and the vocabulary are
# added from the trace.
ALLOWED="softmax exp max sin cos pos PE LayerNorm MultiHead MaskedMultiHead Concat FFN ReLU Sublayer head model embed scale
bos eos unk tviz en fa worked example dmodel Q K V W O E G Y Z X T S d k h b i j q v x y z p a s e ff
tanh LSTM RNN Luong dot ih hh dim hidden size attn rnn c f g o n r t log lp"

"$TVIZ" trace -o "$T/trace.json" 2>/dev/null || bad "tviz trace failed"
"$TVIZ" trace --model $R -o "$T/rtrace.json" 2>/dev/null || bad "tviz trace --model $R failed"
# the tokens (source words, decoder input, vocabulary) as words
cat "$T/trace.json" "$T/rtrace.json" | tr -c 'A-Za-z' '\n' | sort -u >"$T/trace-words"
printf '%s\n' $ALLOWED | sort -u >"$T/allowed"
sort -u "$T/allowed" "$T/trace-words" >"$T/ok-words"
# stage ids' parts are in the trace too (its "id" fields), so they are allowed

# English words in a PDF that are not allowed: one per line. pdftotext reads
# slanted column labels in pieces ("lly" of "really") and d<sub>model</sub> as
# "dmodel": a piece of a token of the trace is a token.
english() {
    pdftotext "$@" - 2>/dev/null | tr -c 'A-Za-z' '\n' | grep -E '^[A-Za-z]{2,}$' | sort -u | comm -23 - "$T/ok-words" |
        while read -r w; do grep -qF "$w" "$T/trace-words" || echo "$w"; done
}

for lang in fa ar; do
    { echo "$VIEWS" | sed 's/^/|/'; echo "$RVIEWS" | sed "s/^/$R|/"; } | while IFS='|' read -r model view stage cell; do
        args="--lang $lang --view $view -o $T/v.pdf"
        [ -n "$model" ] && args="$args --model $model"
        [ "$view" = side-by-side ] && args="$args --model en-fa"
        [ "$view" = beam ] && args="$args --beam 4"
        [ -n "$stage" ] && args="$args --stage $stage"
        [ -n "$cell" ] && args="$args --cell $cell"
        # shellcheck disable=SC2086
        if ! "$TVIZ" export $args 2>"$T/err"; then echo "FAIL: export $args: $(cat "$T/err")"; echo x >>"$T/failed"; continue; fi
        left=$(english "$T/v.pdf" | tr '\n' ' ')
        if [ -n "$left" ]; then echo "FAIL: $lang $model $view $stage $cell: English left: $left"; echo x >>"$T/failed"; else echo x >>"$T/passed"; fi
    done
    # a handout: its first two pages (title, intro, the first sections), where the prose is the lesson's
    if "$TVIZ" export --lesson inside-transformer --lang "$lang" -o "$T/h.pdf" 2>"$T/err"; then
        pdftotext -f 1 -l 2 "$T/h.pdf" "$T/h.txt"
        # the lesson's prose may quote code and names in Latin letters; its headings and the page furniture may not
        left=$(grep -E '^(Self-check|Answers|Stage|Encoder|Decoder|Source|Target|Head|Layer)' "$T/h.txt" | head -3 | tr '\n' ' ')
        [ -z "$left" ] && ok || bad "$lang handout: English headings: $left"
    else bad "$lang handout: $(cat "$T/err")"; fi
done
pass=$((pass + $(cat "$T/passed" 2>/dev/null | wc -l)))
fail=$((fail + $(cat "$T/failed" 2>/dev/null | wc -l)))

# The check can fail: the same card in English is full of English words.
"$TVIZ" export --lang en --view arithmetic --stage "$W" --cell 3,2 -o "$T/en.pdf" 2>/dev/null
n=$(english "$T/en.pdf" | wc -l)
[ "$n" -gt 10 ] && ok || bad "the English card has only $n words the check would flag"

echo "i18n views: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
