/* Per-identity token buckets for --rate-limit: each identity may send `rate`
 * requests per second on average and 2 × rate in a burst. Thread-safe; one
 * bucket per identity ever seen (identities are API tokens, so the table stays
 * as small as the token table).
 */
#ifndef RIG_RATELIMIT_H
#define RIG_RATELIMIT_H

struct rig_ratelimit;

/* Returns a new limiter of rate requests per second (> 0), or NULL on OOM.
 * Free with rig_ratelimit_free (NULL is a no-op). */
struct rig_ratelimit *rig_ratelimit_new(double rate);
void rig_ratelimit_free(struct rig_ratelimit *rl);

/* Takes one request from key's bucket at time now_s (monotonic seconds).
 * Returns 0 when allowed, else the whole seconds to wait (>= 1). Out of
 * memory allows the request. */
int rig_ratelimit_take(struct rig_ratelimit *rl, const char *key, double now_s);

#endif
