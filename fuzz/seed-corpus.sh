#!/bin/sh
# Seed the fuzz corpora from the shipped packs, golden games and scripts (and the
# bad-input corpus). Run from anywhere; files already there are kept.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
repo=$(dirname "$here")
mkdir -p "$here/corpus/load_pack" "$here/corpus/game_file" "$here/corpus/compile_script"
n=0
# load_pack: the first byte picks the file slot (see fuzz_targets/load_pack.rs):
# 0 pack.toml, 1 cards, 3 scenario, 4 board, 5 nobles, 6 leaders, 7 plaques.
find "$repo/content" "$repo/tests/invalid" -name '*.toml' ! -name case.toml | sort | while read -r f; do
    case "$f" in
        */pack.toml) slot='\000' ;;
        */scenarios/*) slot='\003' ;;
        */board.toml) slot='\004' ;;
        */nobles.toml) slot='\005' ;;
        */leaders.toml) slot='\006' ;;
        */plaques.toml) slot='\007' ;;
        *) slot='\001' ;;
    esac
    n=$((n + 1))
    { printf "$slot"; cat "$f"; } > "$here/corpus/load_pack/seed-$n"
done
find "$repo/tests" -name '*.game.toml' | sort | while read -r f; do
    cp "$f" "$here/corpus/game_file/seed-$(basename "$(dirname "$f")")-$(basename "$f")"
done
find "$repo/scripts" "$repo/tests/invalid" -name '*.rhai' | sort | while read -r f; do
    n=$((n + 1))
    cp "$f" "$here/corpus/compile_script/seed-$n.rhai"
done
# serve_route: raw HTTP requests (one connection each).
mkdir -p "$here/corpus/serve_route"
s="$here/corpus/serve_route"
printf 'GET / HTTP/1.1\r\nHost: 127.0.0.1:7878\r\n\r\n' > "$s/seed-page"
printf 'GET /fragment HTTP/1.1\r\nHost: localhost:7878\r\n\r\nGET /events HTTP/1.1\r\nHost: localhost:7878\r\n\r\n' > "$s/seed-pipelined"
printf 'GET /face/tiny/coin.svg?k=1 HTTP/1.1\r\nHost: 127.0.0.1:7878\r\n\r\n' > "$s/seed-face"
printf 'GET /face/tiny/a%%20b%%zz.svg HTTP/1.1\r\nHost: 127.0.0.1:7878\r\n\r\n' > "$s/seed-face-escapes"
printf 'GET /events HTTP/1.1\r\nHost: evil.example:7878\r\n\r\n' > "$s/seed-rebinding"
printf 'POST /play/new?pack=tiny&players=2&agents=human,first&seed=3 HTTP/1.1\r\nHost: 127.0.0.1:7878\r\nX-Crown: play\r\n\r\nPOST /play/choose?i=0 HTTP/1.1\r\nHost: 127.0.0.1:7878\r\nX-Crown: play\r\n\r\nGET /play/state?at=1 HTTP/1.1\r\nHost: 127.0.0.1:7878\r\n\r\nPOST /play/rewind?to=0 HTTP/1.1\r\nHost: 127.0.0.1:7878\r\nX-Crown: play\r\n\r\n' > "$s/seed-game"
printf 'GET /play HTTP/1.1\r\nHost: 127.0.0.1:7878\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n' > "$s/seed-body"
for t in load_pack game_file compile_script serve_route; do
    echo "$t: $(ls "$here/corpus/$t" | wc -l) files"
done
