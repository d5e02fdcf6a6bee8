/* Prints hand-isomorphism fixtures from Kevin Waugh's hand_index library
 * (kdub0/hand-isomorphism), for tests/data/make_indexer_fixtures.sh.
 *
 * usage: indexer_fixture_driver SEED HANDS UNINDEX ROUND_SIZES...
 * Output lines (whitespace separated):
 *   size R N                      the round-R index count
 *   hand c0 c1 ... | i0 i1 ...    a random hand (cards dealt round by round, in random order
 *                                 within each round) and its index on every round
 *   canon R I c0 c1 ...           hand_unindex(R, I): the canonical cards through round R
 * Cards are the library's rank<<2|suit ids. The random numbers are a splitmix64 stream, so
 * the same arguments print the same lines on every machine. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include "hand_index.h"

static uint64_t state;
static uint64_t next(void) {
    uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

int main(int argc, char** argv) {
    if (argc < 5) return 2;
    state = strtoull(argv[1], 0, 10);
    int hands = atoi(argv[2]), unindexed = atoi(argv[3]);
    int rounds = argc - 4, total = 0;
    uint8_t cpr[MAX_ROUNDS];
    for (int r = 0; r < rounds; ++r) { cpr[r] = (uint8_t)atoi(argv[4 + r]); total += cpr[r]; }
    hand_indexer_t indexer;
    if (!hand_indexer_init(rounds, cpr, &indexer)) return 3;
    for (int r = 0; r < rounds; ++r)
        printf("size %d %" PRIu64 "\n", r, (uint64_t)hand_indexer_size(&indexer, r));
    for (int h = 0; h < hands; ++h) {
        uint8_t deck[CARDS], cards[CARDS];
        for (int i = 0; i < CARDS; ++i) deck[i] = (uint8_t)i;
        for (int i = 0; i < total; ++i) {  /* partial Fisher-Yates: a random deal */
            int j = i + (int)(next() % (uint64_t)(CARDS - i));
            uint8_t t = deck[i]; deck[i] = deck[j]; deck[j] = t;
            cards[i] = deck[i];
        }
        hand_index_t idx[MAX_ROUNDS];
        hand_index_all(&indexer, cards, idx);
        printf("hand");
        for (int i = 0; i < total; ++i) printf(" %d", cards[i]);
        printf(" |");
        for (int r = 0; r < rounds; ++r) printf(" %" PRIu64, (uint64_t)idx[r]);
        printf("\n");
    }
    for (int r = 0; r < rounds; ++r) {
        uint64_t size = hand_indexer_size(&indexer, r);
        int n = 0;
        for (int r2 = 0; r2 <= r; ++r2) n += cpr[r2];
        for (int u = 0; u < unindexed; ++u) {
            /* the first and last indices, then random ones */
            uint64_t i = u == 0 ? 0 : u == 1 ? size - 1 : next() % size;
            uint8_t cards[CARDS];
            if (!hand_unindex(&indexer, r, i, cards)) return 4;
            printf("canon %d %" PRIu64, r, i);
            for (int k = 0; k < n; ++k) printf(" %d", cards[k]);
            printf("\n");
        }
    }
    hand_indexer_free(&indexer);
    return 0;
}
