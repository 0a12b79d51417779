/* Token buckets of ratelimit.h, in a chained hash table under one mutex. */
#include "api/http/ratelimit.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define N_SLOTS 256

struct bucket {
	struct bucket *next;
	double tokens;
	double at; /* when tokens was last brought up to date */
	char key[];
};

struct rig_ratelimit {
	pthread_mutex_t lock;
	double rate, burst;
	struct bucket *slots[N_SLOTS];
};

struct rig_ratelimit *rig_ratelimit_new(double rate)
{
	struct rig_ratelimit *rl = calloc(1, sizeof *rl);
	if (!rl)
		return NULL;
	pthread_mutex_init(&rl->lock, NULL);
	rl->rate = rate;
	rl->burst = 2 * rate;
	return rl;
}

void rig_ratelimit_free(struct rig_ratelimit *rl)
{
	if (!rl)
		return;
	for (size_t i = 0; i < N_SLOTS; i++)
		for (struct bucket *b = rl->slots[i], *next; b; b = next) {
			next = b->next;
			free(b);
		}
	pthread_mutex_destroy(&rl->lock);
	free(rl);
}

static size_t slot_of(const char *key)
{
	size_t h = 5381; /* djb2 */
	for (const unsigned char *p = (const unsigned char *)key; *p; p++)
		h = h * 33 + *p;
	return h % N_SLOTS;
}

int rig_ratelimit_take(struct rig_ratelimit *rl, const char *key, double now_s)
{
	int wait = 0;
	pthread_mutex_lock(&rl->lock);
	struct bucket **slot = &rl->slots[slot_of(key)], *b = *slot;
	while (b && strcmp(b->key, key) != 0)
		b = b->next;
	if (!b) {
		size_t len = strlen(key) + 1;
		b = malloc(sizeof *b + len);
		if (!b)
			goto out;
		memcpy(b->key, key, len);
		b->tokens = rl->burst;
		b->at = now_s;
		b->next = *slot;
		*slot = b;
	}
	if (now_s > b->at) {
		b->tokens = fmin(rl->burst, b->tokens + (now_s - b->at) * rl->rate);
		b->at = now_s;
	}
	if (b->tokens >= 1)
		b->tokens -= 1;
	else
		wait = (int)ceil((1 - b->tokens) / rl->rate);
	if (wait < 0)
		wait = 1;
out:
	pthread_mutex_unlock(&rl->lock);
	return wait;
}
