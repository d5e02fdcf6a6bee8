#!/usr/bin/env bash
# Regenerates tests/data/hand_index_fixtures.npz from Kevin Waugh's C hand indexer
# (kdub0/hand-isomorphism, MIT): the numbering gpu_eval.HandIndexer must reproduce.
#
#   tests/data/make_indexer_fixtures.sh [PATH_TO_hand-isomorphism]
#
# Without a path the library is cloned from GitHub. It is compiled in a temporary folder
# (nothing of it is kept), twice: as published (52 cards) and with RANKS 9 / CARDS 36, which
# is the short deck (ranks 6..A; gpu_eval's short-deck ids are the library's ids + 16). The
# driver (indexer_fixture_driver.c, beside this script) prints random hands with their
# indices on every round and the canonical hands of the first, last and random indices.
# Not run in CI: the fixture file is committed.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
if [[ $# -ge 1 ]]; then
    cp -r "$1/src" "$tmp/src"
else
    git clone -q https://github.com/kdub0/hand-isomorphism "$tmp/repo"
    cp -r "$tmp/repo/src" "$tmp/src"
fi
mkdir -p "$tmp/sd"
cp "$tmp"/src/hand_index.c "$tmp"/src/hand_index.h "$tmp"/src/hand_index-impl.h \
   "$tmp"/src/deck.c "$tmp/sd/"
sed -e 's/#define RANKS    13/#define RANKS     9/' -e 's/#define CARDS    52/#define CARDS    36/' \
    "$tmp/src/deck.h" > "$tmp/sd/deck.h"
grep -q "RANKS     9" "$tmp/sd/deck.h"
for v in src sd; do
    cc -O2 -std=gnu99 -I"$tmp/$v" -o "$tmp/drv_$v" "$here/indexer_fixture_driver.c" \
        "$tmp/$v/hand_index.c" "$tmp/$v/deck.c" -lm
done
layouts=("2" "3" "4" "7" "2 3" "2 4" "2 5" "2 3 1 1")
# odd layouts: 64-bit sizes, many rounds, the sparse configuration lookup of (10, 10)
more=("13" "2 2 2" "1 2 1 2" "3 3 1" "6 6" "8 1" "10 10")
for v in src sd; do
    for l in "${layouts[@]}"; do
        # seed, random hands, canonical hands per round, cards per round
        "$tmp/drv_$v" 2026 2000 250 $l > "$tmp/$v-${l// /_}.txt"
    done
    for l in "${more[@]}"; do
        "$tmp/drv_$v" 2026 400 50 $l > "$tmp/$v-${l// /_}.txt"
    done
done
python3 - "$tmp" "$here/hand_index_fixtures.npz" <<'PY'
import pathlib, sys
import numpy as np
tmp, out = pathlib.Path(sys.argv[1]), sys.argv[2]
arrays = {}
for path in sorted(tmp.glob("*.txt")):
    variant, layout = path.stem.split("-")
    game, offset = ("holdem", 0) if variant == "src" else ("shortdeck", 16)
    key = f"{game}_{layout}"
    sizes, hands, idx, canon = [], [], [], {}
    for line in path.read_text().splitlines():
        p = line.split()
        if p[0] == "size":
            sizes.append(int(p[2]))
        elif p[0] == "hand":
            bar = p.index("|")
            hands.append([int(x) + offset for x in p[1:bar]])
            idx.append([int(x) for x in p[bar + 1:]])
        else:
            canon.setdefault(int(p[1]), []).append((int(p[2]), [int(x) + offset for x in p[3:]]))
    arrays[f"{key}_sizes"] = np.array(sizes, dtype=np.int64)
    arrays[f"{key}_hands"] = np.array(hands, dtype=np.uint8)
    arrays[f"{key}_indices"] = np.array(idx, dtype=np.int64)
    for r, rows in canon.items():
        arrays[f"{key}_unindex{r}_indices"] = np.array([i for i, _ in rows], dtype=np.int64)
        arrays[f"{key}_unindex{r}_cards"] = np.array([c for _, c in rows], dtype=np.uint8)
np.savez_compressed(out, **arrays)
print(f"wrote {out}: {len(arrays)} arrays")
PY
