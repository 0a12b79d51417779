/* The worker pool of workers.h: one mutex-protected FIFO, n threads. */
#include "server/workers.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>

struct job {
	rig_work_fn fn;
	void *arg;
	struct job *next;
};

struct rig_workers {
	pthread_mutex_t lock;
	pthread_cond_t ready;
	struct job *head, *tail;
	bool stopping; /* draining: no new jobs */
	bool joined;
	size_t n_threads;
	pthread_t threads[];
};

static void *run(void *arg)
{
	struct rig_workers *w = arg;
	pthread_mutex_lock(&w->lock);
	for (;;) {
		while (!w->head && !w->stopping)
			pthread_cond_wait(&w->ready, &w->lock);
		struct job *j = w->head;
		if (!j)
			break; /* stopping and drained */
		w->head = j->next;
		if (!w->head)
			w->tail = NULL;
		pthread_mutex_unlock(&w->lock);
		j->fn(j->arg);
		free(j);
		pthread_mutex_lock(&w->lock);
	}
	pthread_mutex_unlock(&w->lock);
	return NULL;
}

struct rig_workers *rig_workers_start(size_t n)
{
	struct rig_workers *w = calloc(1, sizeof *w + n * sizeof w->threads[0]);
	if (!w)
		return NULL;
	pthread_mutex_init(&w->lock, NULL);
	pthread_cond_init(&w->ready, NULL);
	for (; w->n_threads < n; w->n_threads++)
		if (pthread_create(&w->threads[w->n_threads], NULL, run, w) != 0)
			break;
	if (w->n_threads == 0) {
		rig_workers_free(w);
		return NULL;
	}
	return w;
}

int rig_workers_submit(struct rig_workers *w, rig_work_fn fn, void *arg)
{
	struct job *j = malloc(sizeof *j);
	if (!j)
		return -1;
	j->fn = fn;
	j->arg = arg;
	j->next = NULL;
	pthread_mutex_lock(&w->lock);
	if (w->stopping) {
		pthread_mutex_unlock(&w->lock);
		free(j);
		return -1;
	}
	if (w->tail)
		w->tail->next = j;
	else
		w->head = j;
	w->tail = j;
	pthread_mutex_unlock(&w->lock);
	/* After unlocking, so the woken worker does not block on the lock at once. */
	pthread_cond_signal(&w->ready);
	return 0;
}

void rig_workers_drain(struct rig_workers *w)
{
	pthread_mutex_lock(&w->lock);
	w->stopping = true;
	pthread_cond_broadcast(&w->ready);
	bool joined = w->joined;
	w->joined = true;
	pthread_mutex_unlock(&w->lock);
	for (size_t i = 0; !joined && i < w->n_threads; i++)
		pthread_join(w->threads[i], NULL);
}

void rig_workers_free(struct rig_workers *w)
{
	if (!w)
		return;
	rig_workers_drain(w);
	pthread_cond_destroy(&w->ready);
	pthread_mutex_destroy(&w->lock);
	free(w);
}
