/* The speed of light for the pot game: a minimal plain-C random-play loop, no API, no
 * checks of input. Four players, whole games: shuffle the 56 cards (eight of each
 * toxicity 0..6), deal four to each seat, start the pot with the next card; then each seat
 * in turn plays a uniformly random legal (card, close) pair (the core's `random` bot). A
 * pot past 14 explodes and scores nothing; a closed pot scores 1, plus its card count if
 * its toxicity is at most that, else minus its toxicity. After either, the pile's top card
 * starts the next pot; the player draws back up to four. With the pile empty there is no
 * closing and no drawing, empty hands are skipped, and the last card closes the pot.
 *
 * Usage: pot GAMES SEED. Prints "games seconds checksum" on one line; exits 1 if a game
 * loses or gains a card. benchmarks/test_roofline.py compiles it with `cc -O2`. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "splitmix.h"

enum { PLAYERS = 4, KINDS = 7, COPIES = 8, DECK = 56, HAND = 4, LIMIT = 14 };

int main(int argc, char **argv) {
    long games = argc > 1 ? atol(argv[1]) : 100000;
    uint64_t rng = argc > 2 ? strtoull(argv[2], NULL, 10) : 1;
    uint8_t deck[DECK];
    for (int i = 0; i < DECK; i++) deck[i] = (uint8_t)(i / COPIES);
    int64_t checksum = 0;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (long g = 0; g < games; g++) {
        uint8_t hand[PLAYERS][KINDS] = {{0}};
        int hand_size[PLAYERS], total[PLAYERS] = {0};
        for (int i = DECK - 1; i > 0; i--) { int j = below(&rng, i + 1); uint8_t t = deck[i]; deck[i] = deck[j]; deck[j] = t; }
        for (int i = 0; i < PLAYERS * HAND; i++) hand[i % PLAYERS][deck[i]]++;
        for (int s = 0; s < PLAYERS; s++) hand_size[s] = HAND;
        int top = PLAYERS * HAND, pot_len = 1, toxicity = deck[top++], gone = 0, in_hands = PLAYERS * HAND;
        for (int seat = 0;;) {
            uint8_t kinds[2 * KINDS], closes[2 * KINDS];
            int m = 0, may_close = top < DECK;
            for (int kind = 0; kind < KINDS; kind++) {
                if (!hand[seat][kind]) continue;
                kinds[m] = (uint8_t)kind; closes[m++] = 0;
                if (may_close && toxicity + kind <= LIMIT) { kinds[m] = (uint8_t)kind; closes[m++] = 1; }
            }
            int pick = below(&rng, m), kind = kinds[pick];
            hand[seat][kind]--; hand_size[seat]--; in_hands--;
            pot_len++; toxicity += kind;
            int ended = toxicity > LIMIT || closes[pick];
            if (ended) {
                if (toxicity <= LIMIT) total[seat] += 1 + (toxicity <= pot_len ? pot_len : -toxicity);
                gone += pot_len; pot_len = 0; toxicity = 0;
                if (top < DECK) { toxicity = deck[top++]; pot_len = 1; }
            }
            if (may_close)
                while (hand_size[seat] < HAND && top < DECK) { hand[seat][deck[top++]]++; hand_size[seat]++; in_hands++; }
            if (in_hands == 0) {
                if (pot_len) { total[seat] += 1 + (toxicity <= pot_len ? pot_len : -toxicity); gone += pot_len; }
                break;
            }
            do seat = seat == PLAYERS - 1 ? 0 : seat + 1; while (hand_size[seat] == 0);
        }
        if (gone != DECK) { fprintf(stderr, "game %ld: %d cards at its end, not %d\n", g, gone, DECK); return 1; }
        for (int s = 0; s < PLAYERS; s++) checksum += total[s] * (s + 1);
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    printf("%ld %.9f %lld\n", games, (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9, (long long)checksum);
    return 0;
}
