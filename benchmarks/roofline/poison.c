/* The speed of light for Poison: a minimal plain-C random-play loop, no API, no checks of
 * input. Four players, rounds of the whole deck: shuffle, deal, then each seat in turn
 * plays a uniformly random legal (card, cauldron) pair (the core's `random` bot); a
 * cauldron past 13 overflows into the player's pile, keeping the card just played; at the
 * end of the round whoever took strictly the most of a colour discards it, the rest score
 * 1 per potion and 2 per poison.
 *
 * Usage: poison ROUNDS SEED. Prints "rounds seconds checksum" on one line; exits 1 if a
 * round loses or gains a card (every card is in a pile or a cauldron at its end).
 * benchmarks/test_roofline.py compiles it with `cc -O2` and compares the core with it. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "splitmix.h"

enum { PLAYERS = 4, CAULDRONS = 3, DECK = 50, KINDS = 16, POISON_KIND = 15, LIMIT = 13, POISON = 3, NONE = -1 };

int main(int argc, char **argv) {
    long rounds = argc > 1 ? atol(argv[1]) : 100000;
    uint64_t rng = argc > 2 ? strtoull(argv[2], NULL, 10) : 1;
    /* Kinds 0..14 are the potions (colour kind / 5, value values[kind % 5]), 15 is poison. */
    static const int8_t values[5] = {1, 2, 4, 5, 7}, copies[5] = {3, 3, 2, 3, 3};
    int8_t suit[KINDS], value[KINDS], deck[DECK];
    int n = 0;
    for (int kind = 0; kind < KINDS; kind++) {
        suit[kind] = (int8_t)(kind == POISON_KIND ? POISON : kind / 5);
        value[kind] = (int8_t)(kind == POISON_KIND ? 4 : values[kind % 5]);
        for (int k = 0; k < (kind == POISON_KIND ? 8 : copies[kind % 5]); k++) deck[n++] = (int8_t)kind;
    }
    int64_t checksum = 0;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (long r = 0; r < rounds; r++) {
        uint8_t hand[PLAYERS][KINDS] = {{0}};
        unsigned held[PLAYERS] = {0}; /* a bit per kind in hand */
        int8_t cauldron_suit[CAULDRONS] = {NONE, NONE, NONE}, colour_at[3] = {NONE, NONE, NONE};
        int cauldron_total[CAULDRONS] = {0};
        int in_cauldron[CAULDRONS][4] = {{0}}, taken[PLAYERS][4] = {{0}};
        for (int i = DECK - 1; i > 0; i--) { int j = below(&rng, i + 1); int8_t t = deck[i]; deck[i] = deck[j]; deck[j] = t; }
        int dealer = (int)(r % PLAYERS);
        for (int i = 0; i < DECK; i++) { int s = (dealer + 1 + i) % PLAYERS; hand[s][deck[i]]++; held[s] |= 1u << deck[i]; }
        /* Dealt from the dealer's left and played from there, no hand runs out early. */
        int seat = (dealer + 1) % PLAYERS;
        for (int left = DECK; left > 0; left--, seat = seat == PLAYERS - 1 ? 0 : seat + 1) {
            uint8_t kinds[KINDS * CAULDRONS], into[KINDS * CAULDRONS];
            int m = 0;
            for (unsigned bits = held[seat]; bits; bits &= bits - 1) {
                int kind = __builtin_ctz(bits), c = suit[kind];
                if (c != POISON && colour_at[c] != NONE) { kinds[m] = (uint8_t)kind; into[m++] = (uint8_t)colour_at[c]; continue; }
                for (int k = 0; k < CAULDRONS; k++)
                    if (c == POISON || cauldron_suit[k] == NONE) { kinds[m] = (uint8_t)kind; into[m++] = (uint8_t)k; }
            }
            int pick = below(&rng, m), kind = kinds[pick], k = into[pick], c = suit[kind];
            if (--hand[seat][kind] == 0) held[seat] &= ~(1u << kind);
            if (cauldron_total[k] + value[kind] > LIMIT) { /* overflow: take what was there */
                for (int x = 0; x < 4; x++) { taken[seat][x] += in_cauldron[k][x]; in_cauldron[k][x] = 0; }
                cauldron_total[k] = 0;
                if (cauldron_suit[k] != NONE) colour_at[cauldron_suit[k]] = NONE;
                cauldron_suit[k] = NONE;
            }
            in_cauldron[k][c]++;
            cauldron_total[k] += value[kind];
            if (c != POISON) { cauldron_suit[k] = (int8_t)c; colour_at[c] = (int8_t)k; }
        }
        int cards = 0;
        for (int k = 0; k < CAULDRONS; k++) for (int x = 0; x < 4; x++) cards += in_cauldron[k][x];
        for (int s = 0; s < PLAYERS; s++) {
            int score = 2 * taken[s][POISON];
            for (int c = 0; c < 3; c++) {
                int most = 1;
                for (int o = 0; o < PLAYERS; o++) if (o != s && taken[o][c] >= taken[s][c]) most = 0;
                if (!most) score += taken[s][c];
                cards += taken[s][c];
            }
            cards += taken[s][POISON];
            checksum += score * (s + 1);
        }
        if (cards != DECK) { fprintf(stderr, "round %ld: %d cards at its end, not %d\n", r, cards, DECK); return 1; }
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    printf("%ld %.9f %lld\n", rounds, (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9, (long long)checksum);
    return 0;
}
