<?php

// Stubs for rediskit

namespace RedisKit {
    /**
     * Redis could not be reached, the connection was lost, or a reply did not
     * arrive within the read timeout. The message never contains a password.
     */
    class ConnectionException extends \RedisKit\Exception {
    }

    /**
     * Delayed jobs on Redis: due times on the Redis server's clock (millisecond
     * precision, never handed out early), claimed atomically in one round trip,
     * at-least-once delivery with a visibility timeout, retries with exponential
     * backoff and a dead set.
     *
     * A job is `['id' => string, 'payload' => string, 'attempts' => int, 'due_at' => float]`:
     * `id` is the id push() returned (the same for every delivery), `attempts`
     * the earlier deliveries that ended without an ack (timed out or retried),
     * `due_at` the unix time (seconds, Redis clock) the job was due at.
     *
     * Claims: each worker process is one consumer (all its DelayQueue objects
     * share a random identity; a forked child gets a new one; on a thread-safe
     * PHP each thread is one), unless the `consumer` option names one. ack(),
     * retry() and touch() only act on jobs whose latest claim is this
     * consumer's, and return false otherwise, changing nothing. A claim whose visibility timeout has passed stays valid until
     * another consumer claims the job.
     *
     * Options: `visibility_timeout` (seconds a claimed job stays invisible to
     * other consumers, default 30.0), `max_attempts` (deliveries before a job
     * is dead-lettered, default 5; 0 = unlimited), `backoff` (seconds, base of
     * the exponential backoff with jitter after a visibility timeout: attempt n
     * is due again between backoff*2^(n-1)/2 and backoff*2^(n-1) after its
     * claim lapsed (counted from the visibility deadline), at most one day;
     * default 1.0), `prefix` (string, default ini rediskit.prefix), `consumer`
     * (string: an explicit consumer identity, e.g. to run two consumers in one
     * process; never give two processes the same one), `wait_replicas` (int,
     * default 0 or the DSN's `wait_replicas`: push, pushAt, pushMany, ack and
     * retry wait, in the same round trip, until that many replicas have the
     * write, else throw `RedisKit\ReplicationException` with the job ids; the
     * write itself stands on the master), `wait_timeout` (seconds that wait may
     * take, default 0.1 or the DSN's), `on_error` ('throw' default, or
     * 'spool': a push, pushAt or pushMany that cannot reach Redis, before
     * anything was sent, appends its jobs to a file under `spool_dir` (fsync'd)
     * and returns their ids as usual; they are pushed, with those ids and due
     * times, by the next successful push or pop on this host, or by
     * replaySpool()), `spool_dir` (required with 'spool': a directory this
     * process can write to). Options are
     * per object, not stored in Redis: give all users of a queue the same ones.
     */
    final class DelayQueue {
        /**
         * @param string $name Queue name; the Redis keys are prefix . name and {prefix . name}:*.
         * @param string|array|null $connection DSN (redis://, rediss://, unix://), null for ini rediskit.default_dsn, or a cluster/sentinel array (['cluster' => [...]] or ['sentinel' => [...], 'service' => ...]).
         * @param array $options visibility_timeout, max_attempts, backoff, prefix, consumer, wait_replicas, wait_timeout: see the class description.
         * @throws \ValueError on a bad DSN, an empty name, an unknown option or a bad option value.
         */
        public function __construct(string $name, #[\SensitiveParameter] string|array|null $connection = null, array $options = []) {}

        /**
         * Done with a job: deletes it for good, if this consumer holds its latest claim.
         * @return bool false for an unknown id, a job claimed by another consumer since, or one this consumer did not claim (nothing changed).
         * @throws \RedisKit\ReplicationException with wait_replicas, when fewer replicas confirmed the ack in time (it stands on the master).
         *
         * @param string $id
         */
        public function ack(string $id): bool {}

        /**
         * Deletes a job that is not in flight: scheduled, due, or dead.
         * @return bool false for an unknown id or a job claimed by a consumer now.
         *
         * @param string $id
         */
        public function cancel(string $id): bool {}

        /**
         * Jobs per state, by the Redis clock. 'scheduled' are not due yet; 'due'
         * wait for a consumer; 'in_flight' are claimed and not acked. It first
         * puts back up to 100 claims past their visibility timeout, as pop() does.
         * @return array{scheduled: int, due: int, in_flight: int, dead: int}
         */
        public function counts(): array {}

        /**
         * Dead-lettered jobs, the earliest dead-lettered first. 'attempts' is
         * the number of failed deliveries, 'due_at' when the job was
         * dead-lettered (unix seconds, Redis clock): its lapsed visibility
         * deadline, or the time of the retry() that used its last attempt.
         * @param int $limit 1 ..= 10000.
         * @return list<array{id: string, payload: string, attempts: int, due_at: float}>
         * @throws \ValueError if $limit is out of range.
         */
        public function dead(int $limit = 100): array {}

        /**
         * Deletes dead jobs, payload included: one ($id a string), several (a
         * list of ids, at most 10,000), or all of them (null). Ids that are not
         * dead are left alone: a job in any other state is never deleted here
         * (cancel() deletes a scheduled or due one).
         * @param string|array|null $id
         * @return int How many jobs were deleted.
         * @throws \ValueError for a list with a non-string or more than 10,000 ids.
         */
        public function deleteDead(string|array|null $id = null): int {}

        /**
         * counts() and the times an operator looks at, in one round trip:
         * 'oldest_due_at' (unix seconds, Redis clock) of the oldest job that is
         * due and not claimed, null when none; 'lag' = now - oldest_due_at
         * (0.0 when none): how far the consumers are behind; 'next_due_at' of
         * the next job not due yet, null when none; 'now' the Redis clock.
         * 'paused' is true while the queue is paused.
         * @return array{scheduled: int, due: int, in_flight: int, dead: int, oldest_due_at: ?float, lag: float, next_due_at: ?float, now: float, paused: bool}
         */
        public function inspect(): array {}

        /**
         * Whether the queue is paused. One round trip.
         *
         * @return bool
         */
        public function isPaused(): bool {}

        /**
         * One job by id, in any state, with its whole payload: the same keys
         * as a job of jobs() ('at' is null for a due job whose due time could
         * not be found), or null when the queue has no such job (never pushed,
         * acked, cancelled or deleted). One round trip.
         * @return array{id: string, state: string, attempts: int, at: ?float, owner: ?string, size: int, payload: string}|null
         *
         * @param string $id
         */
        public function job(string $id): ?array {}

        /**
         * One page of the jobs in one state, in the order they leave it:
         * 'scheduled' (not due yet) and 'due' (due, not claimed) by due time,
         * 'in_flight' (claimed, not acked) by claim deadline, 'dead' by when
         * they were dead-lettered. Pass the page's 'cursor' to get the next
         * page; it is null on the last one. Pages follow the queue as it moves:
         * a job that changes state between two pages is listed where it is when
         * its page is read, so it may be missed or listed twice.
         *
         * Each job: 'id', 'state', 'attempts', 'at' (unix seconds, Redis
         * clock: when it is due, when its claim lapses, or when it was
         * dead-lettered), 'owner' (the consumer holding an in-flight job, else
         * null), 'size' (payload bytes) and 'payload' (its first $preview
         * bytes). One round trip per page.
         * @param string $state 'scheduled', 'due', 'in_flight' or 'dead'.
         * @param int $limit 1 ..= 1000 jobs per page.
         * @param int $preview 0 ..= 65536 payload bytes per job.
         * @return array{jobs: list<array{id: string, state: string, attempts: int, at: ?float, owner: ?string, size: int, payload: string}>, cursor: ?string}
         * @throws \ValueError for an unknown state, a cursor jobs() did not return, or $limit or $preview out of range.
         *
         * @param string|null $cursor
         */
        public function jobs(string $state, ?string $cursor = null, int $limit = 50, int $preview = 256): array {}

        /**
         * Pauses the queue, for every process using it: pushes are taken as
         * ever, pop() hands out nothing (a pop() with $wait keeps waiting, and
         * gets jobs as soon as the queue is resumed); jobs already claimed can
         * still be acked, retried and touched, and a lapsed claim still goes
         * back (or dead). The pause is stored in Redis, in the queue's
         * schedule: purge() ends it too. One round trip.
         * @return bool true if the queue was running, false if it was paused already.
         */
        public function pause(): bool {}

        /**
         * Claims up to $max due jobs (earliest due first, push order for equal
         * due times) for this consumer until now + visibility_timeout, in one
         * atomic script and one round trip. Before claiming, it puts back up to
         * 100 claims whose visibility timeout has passed (attempts + 1, due at
         * their visibility deadline + backoff, so a job whose backoff is over is
         * handed out by this same pop) or dead-letters them, as of that deadline,
         * once they used max_attempts.
         *
         * With $wait > 0 it blocks (without polling) until at least one job is
         * claimed or $wait seconds have passed, waking when the next job falls
         * due or a job due earlier is pushed. A signal PHP has a handler for
         * (pcntl_async_signals) ends the wait early: pop() returns what it
         * claimed (possibly nothing) and the handler runs.
         * @param int $max 1 ..= 1000.
         * @param float $wait Seconds, >= 0.
         * @return list<array{id: string, payload: string, attempts: int, due_at: float}> [] if none.
         * @throws \ValueError if $max is out of range or $wait is negative, NAN or INF.
         * @throws \RedisKit\ConnectionException if Redis cannot be reached (jobs claimed by a call whose reply was lost come back after the visibility timeout).
         */
        public function pop(int $max = 1, float $wait = 0.0): array {}

        /**
         * Deletes every job in every state. Job ids are never reused afterwards.
         *
         * @return void
         */
        public function purge(): void {}

        /**
         * Adds a job due $delay seconds from now (Redis clock). Every call is a
         * new job, even with a payload already queued.
         * @param string $payload Any bytes (serialize structured data yourself).
         * @param float $delay Seconds, >= 0.
         * @return string The job id.
         * @throws \ValueError if $delay is negative, NAN or INF.
         * @throws \RedisKit\ConnectionException if Redis cannot be reached (the job may or may not have been added if the connection broke mid-call).
         * @throws \RedisKit\ReplicationException with wait_replicas, when fewer replicas confirmed the job in time (it is on the master: $e->jobIds).
         */
        public function push(string $payload, float $delay = 0.0): string {}

        /**
         * Adds a job due at the unix time $timestamp (seconds, millisecond
         * precision, compared with the Redis server's clock). A time in the past
         * is due at once, ahead of jobs due later.
         * @param float $timestamp Unix time in seconds, 0 ..= 1e11.
         * @return string The job id.
         * @throws \ValueError if $timestamp is out of range, NAN or INF.
         *
         * @param string $payload
         */
        public function pushAt(string $payload, float $timestamp): string {}

        /**
         * Adds one job per payload, all due $delay seconds from now, in one
         * round trip, all or nothing: a batch Redis refuses (maxmemory) writes no
         * job. Up to 1000 payloads it is one script; a bigger batch reserves its
         * ids first and then lands in slices of 1000. Keys of $payloads are ignored.
         * @param array<string> $payloads
         * @param float $delay Seconds, >= 0.
         * @return list<string> The job ids, in the order of $payloads.
         * @throws \ValueError if a payload is not a string (nothing is added), or $delay is negative, NAN or INF.
         */
        public function pushMany(array $payloads, float $delay = 0.0): array {}

        /**
         * With on_error 'spool': pushes the jobs this host's spool holds for the
         * queue (in order, with their ids and due times), then empties it. The
         * next successful push or pop of any process does it too (looking at
         * the spool with one stat), but leaves a spool with damaged records
         * alone: this call skips them and returns a warning for each (log them
         * with your PSR-3 logger).
         * Exactly once: a replay that reached Redis but could not empty the
         * spool (a crash) pushes nothing twice. Another process replaying it
         * now: nothing done ('replayed' 0).
         * @return array{replayed: int, added: int, warnings: list<string>} 'added' leaves out jobs a crashed replay had pushed already; 'warnings' names each damaged stretch skipped.
         * @throws \ValueError if this queue has no spool.
         * @throws \RedisKit\ConnectionException if Redis cannot be reached (the spool is left as it was).
         */
        public function replaySpool(): array {}

        /**
         * Moves dead jobs back to the schedule, due now, with attempts reset
         * to 0: one ($id a string), several (a list of ids, at most 10,000), or
         * all of them (null). Ids that are not dead are left alone.
         * @param string|array|null $id
         * @return int How many jobs moved.
         * @throws \ValueError for a list with a non-string or more than 10,000 ids.
         */
        public function requeueDead(string|array|null $id = null): int {}

        /**
         * Resumes a paused queue and wakes a consumer blocked in pop().
         * @return bool true if the queue was paused, false if it was running.
         */
        public function resume(): bool {}

        /**
         * Gives a claimed job back, due $delay seconds from now. Counts as a
         * failed attempt: a job that has used max_attempts goes to the dead set
         * instead (true is returned either way).
         * @param float $delay Seconds, >= 0.
         * @return bool false if this consumer does not hold the job's latest claim (nothing changed).
         * @throws \ValueError if $delay is negative, NAN or INF.
         * @throws \RedisKit\ReplicationException with wait_replicas, when fewer replicas confirmed the retry in time (it stands on the master).
         *
         * @param string $id
         */
        public function retry(string $id, float $delay = 0.0): bool {}

        /**
         * Extends this consumer's claim: the job stays invisible to other
         * consumers until now + visibility_timeout. Call it regularly during
         * long work; false means another consumer has the job now (stop).
         * @return bool false if this consumer does not hold the job's latest claim (nothing changed).
         *
         * @param string $id
         */
        public function touch(string $id): bool {}
    }

    /**
     * Base class of every rediskit failure on the Redis side; the message carries
     * Redis's own error text (e.g. `WRONGTYPE Operation against a key holding
     * the wrong kind of value`).
     */
    class Exception extends \RuntimeException {
    }

    /**
     * A lock held by `RedisLock::run()` was lost while the callback ran (its TTL
     * ran out or another owner took it): other code may have held it meanwhile.
     */
    class LockLostException extends \RedisKit\Exception {
    }

    /**
     * A lock could not be acquired within the time allowed.
     */
    class LockTimeoutException extends \RedisKit\Exception {
    }

    /**
     * The host's metrics (shared by every worker process of this PHP-FPM pool,
     * Apache server, or CLI script and the children it forks) in the Prometheus
     * text exposition format.
     */
    final class Metrics {
        public function __construct() {}

        /**
         * The Content-Type header value for openMetrics()'s text.
         *
         * @return string
         */
        public static function contentType(): string {}

        /**
         * Every series of this host in the Prometheus text format (version
         * 0.0.4; OpenMetrics parsers read it too): serve it with
         * Metrics::contentType(). Empty when ini rediskit.metrics_size is 0.
         *
         * @return string
         */
        public static function openMetrics(): string {}
    }

    /**
     * Exact rate limits: one atomic script per check (one round trip), timed by
     * the Redis server's clock. A refused attempt consumes nothing.
     *
     * Algorithms (option `algorithm`): 'sliding_window' (default: an exact log,
     * at most $limit units in any $window seconds), 'fixed_window' (at most
     * $limit per window aligned on multiples of $window since the Unix epoch),
     * 'token_bucket' ($burst tokens refilled at $limit per $window),
     * 'gcra' (the same decisions as token_bucket, stored as one number).
     *
     * Options: `algorithm`; `burst` (int, token_bucket/gcra capacity, default
     * $limit); `window_start` (fixed_window only: 'epoch' default, or
     * 'first_hit': a key's window starts with the first unit admitted for it,
     * as in Laravel's and Symfony's fixed windows; the key's state then does
     * not depend on $limit or $window, so a limiter of the same name with other
     * settings peeks, resets and counts the same state); `on_error` ('throw'
     * default | 'allow' | 'deny' | 'local': an
     * in-process limiter with the same settings, per worker, while Redis cannot
     * be reached); `local_block` (bool, default true: once a key is refused with
     * retry_after X, this worker refuses it for X without a round trip);
     * `prefix` (string, default ini rediskit.prefix); `wait_replicas` (int,
     * default 0 or the DSN's: an allowed attempt waits, in its round trip, until
     * that many replicas have it; when fewer confirm in time, on_error decides:
     * 'throw' throws `RedisKit\ReplicationException`, 'deny' refuses the
     * attempt, 'allow' and 'local' let it stand); `wait_timeout` (seconds that
     * wait may take, default 0.1 or the DSN's).
     *
     * Redis keys: `<prefix><name>:<sw|fw|fwh|tb|gcra>:{<key>}` (fwh: first_hit),
     * each with a TTL.
     *
     * A result: `['allowed' => bool, 'limit' => int, 'remaining' => int,
     * 'retry_after' => float, 'reset_after' => float, 'policy' => string,
     * 'window' => float]`, durations in seconds (retry_after 0.0 when allowed;
     * reset_after: until the full allowance is back; policy: the limiter's name;
     * window: $window).
     */
    final class RateLimiter {
        /**
         * @param string $name The limiter's name (part of its Redis keys; no '{' or '}').
         * @param int $limit Units allowed per window (>= 1).
         * @param float $window Seconds (> 0, microsecond precision).
         * @param string|array|null $connection DSN (redis://, rediss://, unix://), null for ini rediskit.default_dsn, or a cluster/sentinel array (['cluster' => [...]] or ['sentinel' => [...], 'service' => ...]).
         * @param array $options See the class description.
         * @throws \ValueError on a bad limit, window, DSN, unknown option or bad option value.
         */
        public function __construct(string $name, int $limit, float $window, #[\SensitiveParameter] string|array|null $connection = null, array $options = []) {}

        /**
         * attempt() reduced to its verdict.
         * @return bool true if the $cost units were consumed.
         * @throws \ValueError see attempt().
         * @throws \RedisKit\ConnectionException see attempt().
         *
         * @param string $key
         * @param int $cost
         */
        public function allow(string $key, int $cost = 1): bool {}

        /**
         * Consumes $cost units for $key if the limit allows it (then allowed is
         * true), nothing otherwise.
         * @return array{allowed: bool, limit: int, remaining: int, retry_after: float, reset_after: float, policy: string, window: float}
         * @throws \ValueError if $cost < 1 or above what the limiter can ever allow at once (limit, or burst), or $key is empty.
         * @throws \RedisKit\ConnectionException when Redis cannot be reached and on_error is 'throw'.
         *
         * @param string $key
         * @param int $cost
         */
        public function attempt(string $key, int $cost = 1): array {}

        /**
         * Checks several limiters in one round trip, at one instant: allowed
         * only if all allow, and then $cost is consumed from all of them;
         * otherwise from none. The result describes the limiter with the least
         * remaining (allowed) or the longest retry_after (refused).
         * @param list<RateLimiter> $limiters On one connection (same DSN); no two with the same name, algorithm and key.
         * @param string|list<string> $key The key for every limiter, or a list of one key per limiter
         *   (in the order of $limiters). On a Redis Cluster all keys must hash to one slot.
         * @return array{allowed: bool, limit: int, remaining: int, retry_after: float, reset_after: float, policy: string, window: float}
         * @throws \ValueError for an empty list, an element that is not a RateLimiter, limiters on different connections,
         *   a list of keys that does not match the limiters or holds a non-string, keys in different cluster slots, or a bad $cost.
         * @throws \RedisKit\ConnectionException when Redis cannot be reached and a limiter's on_error is 'throw'.
         *
         * @param int $cost
         */
        public static function attemptAll(array $limiters, string|array $key, int $cost = 1): array {}

        /**
         * HTTP response headers for a result, per
         * draft-ietf-httpapi-ratelimit-headers-10: `RateLimit-Policy`
         * ("<policy>";q=<limit>;w=<window>, w only for a whole number of
         * seconds), `RateLimit` ("<policy>";r=<remaining>;t=<seconds>: until the
         * full allowance when allowed, retry_after when refused), and
         * `X-RateLimit-Limit`, `X-RateLimit-Remaining`, `X-RateLimit-Reset`
         * (seconds until the full allowance, not a timestamp), plus
         * `Retry-After` when refused. Seconds are whole, rounded up.
         * @param array $result What attempt(), peek() or attemptAll() returned.
         * @return array<string, string> header name => value
         * @throws \ValueError if $result lacks a key or holds a value of the wrong type or range.
         */
        public static function headers(array $result): array {}

        /**
         * The keys this limiter (by name) was asked about most on this server,
         * hottest first, from the host-wide metrics' hot-key sketch (see
         * RedisKit\metrics()['hot']): 'count' estimates the attempts, 'error'
         * is the most it may be over. No round trip; empty when metrics are off
         * (ini rediskit.metrics_size=0). Keys longer than 64 bytes (with the
         * name) are cut.
         * @param int $limit 1 ..= 32.
         * @return list<array{key: string, count: int, error: int}>
         * @throws \ValueError if $limit is out of range.
         */
        public function hotKeys(int $limit = 10): array {}

        /**
         * What an attempt of cost 1 would get now; consumes nothing (and always
         * asks Redis, whatever local_block remembers).
         * @return array{allowed: bool, limit: int, remaining: int, retry_after: float, reset_after: float, policy: string, window: float}
         * @throws \RedisKit\ConnectionException when Redis cannot be reached and on_error is 'throw'.
         *
         * @param string $key
         */
        public function peek(string $key): array {}

        /**
         * Reserves $cost units for $key ahead of time ('token_bucket' and 'gcra'
         * only): taken now if they are there, otherwise taken from the future,
         * and `retry_after` is then how long to wait before using them (later
         * callers wait behind this reservation). One atomic script, timed by
         * the Redis clock. With $maxWait, a reservation that would wait longer
         * is not made (allowed false, nothing consumed, retry_after the wait it
         * would have needed). Always asks Redis (a connection error is thrown
         * whatever on_error says) and bypasses local_block.
         * @param float|null $maxWait Seconds (>= 0); null: any wait.
         * @return array{allowed: bool, limit: int, remaining: int, retry_after: float, reset_after: float, policy: string, window: float}
         *   allowed: reserved; remaining: units available now; retry_after: the wait before the reserved units may be used (0.0: now).
         * @throws \ValueError for a 'sliding_window' or 'fixed_window' limiter, a bad $cost, an empty $key, or $maxWait negative, NAN or INF.
         * @throws \RedisKit\ConnectionException when Redis cannot be reached.
         *
         * @param string $key
         * @param int $cost
         */
        public function reserve(string $key, int $cost = 1, ?float $maxWait = null): array {}

        /**
         * Forgets $key: its next attempt starts from the full allowance. Also
         * clears this worker's local_block entry and in-process state for it
         * (other workers may keep refusing it from their cache for up to the
         * retry_after they were given).
         * @throws \RedisKit\ConnectionException when Redis cannot be reached (whatever on_error says).
         *
         * @param string $key
         * @return void
         */
        public function reset(string $key): void {}
    }

    /**
     * Cache-aside without stampedes: `remember()` runs `$compute` in one caller
     * at a time across processes and servers, while the others wait for its
     * write (woken by it, no polling) and return that value.
     *
     * Options: `ttl` (seconds, default 0: no expiry; the TTL of set() and
     * setMany() without one), `jitter` (a fraction in [0, 1), default 0.1:
     * every TTL is multiplied by a uniform factor in [1 - jitter, 1 + jitter],
     * against avalanches), `null_ttl` (seconds a null result of `$compute` is
     * cached, default 60; 0: not cached), `lock_timeout` (seconds a caller
     * waits for another's compute, and how long a claim to compute lasts;
     * default 10), `on_lock_timeout` (`'compute'`, the default: compute after
     * the wait, or `'throw'`: RedisKit\LockTimeoutException), `early_refresh`
     * (XFetch's beta, >= 0, default 0: off; 1 is the usual value: a hot value
     * is recomputed by one caller before it expires, with a probability that
     * grows with its compute time as expiry nears), `stale_ttl` (seconds an
     * expired value is still served by remember() while one caller refreshes
     * it, default 0), `serializer` (`'php'` default, `'igbinary'` when loaded,
     * `'json'` (arrays come back as arrays, objects as arrays), `'none'`:
     * strings only, stored as they are), `prefix` (default ini rediskit.prefix),
     * `local` (true, or ['max_bytes' => int, default 4 MiB, 'recheck_after' =>
     * seconds, default 1]: values read are kept in this worker's memory and
     * served from there, each dropped when Redis reports a change of its key
     * (client tracking, RESP3, on a connection of its own), when that
     * connection closes, after FLUSHDB, or at its TTL; never older than the
     * last write Redis completed before this worker's previous round trip on
     * that connection; a server refusing tracking turns it off with one
     * E_USER_NOTICE).
     *
     * Keys are prefix . namespace . ':' . key. A null cached by remember() is
     * returned by get() as null (with the default $default, the same as a miss);
     * only remember() tells them apart, by not computing.
     */
    final class RedisCache {
        /**
         * @param string $namespace Keys are prefix . namespace . ':' . key.
         * @param string|array|null $connection DSN (redis://, rediss://, unix://), null for ini rediskit.default_dsn, or a cluster/sentinel array (['cluster' => [...]] or ['sentinel' => [...], 'service' => ...]).
         * @param array $options See the class description.
         * @throws \ValueError on an empty namespace, a bad DSN, an unknown option or a bad option value.
         */
        public function __construct(string $namespace, #[\SensitiveParameter] string|array|null $connection = null, array $options = []) {}

        /**
         * Stores a value only if the key holds none (SET NX, atomic).
         * @param float|null $ttl Seconds (>= 0, 0: no expiry); null for the ttl option. Jittered.
         * @return bool true if it was stored.
         *
         * @param string $key
         * @param mixed $value
         */
        public function add(string $key, mixed $value, ?float $ttl = null): bool {}

        /**
         * Deletes every value of this namespace (SCAN and UNLINK in batches,
         * never FLUSHDB).
         * @return int How many values were deleted.
         */
        public function clear(): int {}

        /**
         * Deletes keys of this namespace.
         * @return int How many existed.
         *
         * @param string $keys
         */
        public function delete(string ...$keys): int {}

        /**
         * The cached value, or $default on a miss (one round trip). A value past
         * its TTL, kept only for stale_ttl, is a miss here.
         * @param string $key
         * @param mixed $default
         * @return mixed
         * @throws \ValueError on an empty key.
         */
        public function get(string $key, mixed $default = null): mixed {}

        /**
         * Many values in one round trip (MGET; with the local tier, only the values
         * it does not hold are read).
         * @param array $keys A list of keys.
         * @return array key => value, null for a miss, in the order of $keys.
         */
        public function getMany(array $keys): array {}

        /**
         * Adds $by to an integer value (set() of an int, or an earlier
         * increment()), keeping its TTL; a missing key starts from 0 and does not
         * expire. Atomic.
         * @return int The new value.
         * @throws \RedisKit\Exception when the value is not an integer (nothing written).
         *
         * @param string $key
         * @param int $by
         */
        public function increment(string $key, int $by = 1): int {}

        /**
         * The cached value of $key, or else what $compute() returns, which is
         * cached for $ttl. Single-flight across processes: on a miss one caller
         * computes, the others wait (woken by its write, up to lock_timeout) and
         * return its value; a compute that throws wakes them, and the next caller
         * computes. A hit is one round trip, a computed miss three.
         * @param string $key
         * @param float $ttl Seconds (>= 0, 0: no expiry). Jittered.
         * @param callable $compute Called without arguments; null is cached for null_ttl.
         * @param array $options jitter, null_ttl, lock_timeout, on_lock_timeout, early_refresh, stale_ttl for this
         *   call, and ttl_of: a callable given the computed value that returns its TTL in seconds
         *   (replacing $ttl; 0: no expiry), or null to not cache it.
         * @return mixed
         * @throws \RedisKit\LockTimeoutException with on_lock_timeout 'throw', when another caller computed for longer than lock_timeout.
         * @throws \Throwable whatever $compute throws.
         */
        public function remember(string $key, float $ttl, callable $compute, array $options = []): mixed {}

        /**
         * Stores a value (null included: get() returns it as null, remember() as a hit).
         * @param string $key
         * @param mixed $value
         * @param float|null $ttl Seconds (>= 0, 0: no expiry); null for the ttl option. Jittered.
         * @throws \ValueError on an empty key or a negative TTL; \TypeError for a non-string with serializer 'none'.
         *
         * @return void
         */
        public function set(string $key, mixed $value, ?float $ttl = null): void {}

        /**
         * Stores many values (key => value): one round trip, written whole or
         * not at all (on a Redis Cluster: per hash slot).
         * @param array $values key => value.
         * @param float|null $ttl Seconds (>= 0, 0: no expiry); null for the ttl option. Jittered per key.
         *
         * @return void
         */
        public function setMany(array $values, ?float $ttl = null): void {}

        /**
         * This worker's counters for this namespace: hits, misses, computes,
         * waits, early_refreshes, stale_served.
         * @return array<string, int>
         */
        public function stats(): array {}

        /**
         * Gives an existing value a new TTL.
         * @param float|null $ttl Seconds (>= 0, 0: no expiry); null for the ttl option. Jittered.
         * @return bool false when the key is missing.
         *
         * @param string $key
         */
        public function touch(string $key, ?float $ttl = null): bool {}
    }

    /**
     * Real-time rankings on a Redis sorted set. Every read is one round trip
     * (none for a range served by the `local` tier).
     *
     * Options: `order` ('desc' high first | 'asc' low first), `ranking`
     * ('ordinal' 1,2,3,4 | 'competition' 1,2,2,4 | 'dense' 1,2,2,3), `ties`
     * ('lexical' Redis's order | 'earliest' first to reach a score ranks higher),
     * `prefix` (string, default ini rediskit.prefix), `ttl` (seconds: the board
     * expires that long after its last write), `periods` (list of 'daily',
     * 'weekly', 'monthly': boards kept per calendar period), `retention` (past
     * periods kept, default 2), `utc_offset` (the periods' calendar: seconds east
     * of UTC or '+08:00', within ±14:00; default 0, UTC), `local` (true, or
     * ['max_bytes' => int, default 4 MiB, 'recheck_after' => seconds, default
     * 1]: top(), page() and between() of a board with the default ranking and
     * ties keep what they read in this worker's memory and serve it from
     * there until Redis reports a change of the board (client tracking, as
     * RedisCache's `local`); a write of this worker drops them at once).
     */
    final class RedisLeaderboard {
        /**
         * @param string $name Board name; the Redis key is prefix . name.
         * @param string|array|null $connection DSN (redis://, rediss://, unix://), null for ini rediskit.default_dsn, or a cluster/sentinel array (['cluster' => [...]] or ['sentinel' => [...], 'service' => ...]).
         * @param array $options See the class description.
         * @throws \ValueError on a bad DSN, an unknown option or a bad option value.
         */
        public function __construct(string $name, #[\SensitiveParameter] string|array|null $connection = null, array $options = []) {}

        /**
         * Up to 2*$radius+1 entries centred on the member, the window shifted at
         * the top and bottom so it stays full; [] when the member is absent.
         * @return list<array{member: string, score: float, rank: int}>
         * @throws \ValueError if $radius < 0.
         *
         * @param string $member
         * @param int $radius
         */
        public function around(string $member, int $radius = 2): array {}

        /**
         * Entries at positions $fromRank..$toRank (inclusive, 1-based).
         * @return list<array{member: string, score: float, rank: int}>
         * @throws \ValueError if $fromRank < 1 or $fromRank > $toRank.
         *
         * @param int $fromRank
         * @param int $toRank
         */
        public function between(int $fromRank, int $toRank): array {}

        /**
         * Deletes the board (and its side keys; period boards are kept).
         *
         * @return void
         */
        public function clear(): void {}

        /**
         * @return int Number of members on the board.
         */
        public function count(): int {}

        /**
         * @return array{member: string, score: float, rank: int}|null
         *
         * @param string $member
         */
        public function entry(string $member): ?array {}

        /**
         * Adds $delta to the member's score (a new member starts at 0).
         * @return float The new score.
         *
         * @param string $member
         * @param float $delta
         */
        public function incrementScore(string $member, float $delta): float {}

        /**
         * Page $page (1-based) of $perPage entries: page 1 holds ranks 1..perPage.
         * @return list<array{member: string, score: float, rank: int}>
         * @throws \ValueError if $page or $perPage < 1.
         *
         * @param int $page
         * @param int $perPage
         */
        public function page(int $page, int $perPage = 25): array {}

        /**
         * @return float|null Share of the board (0..100) the member is ahead of or tied with; null when absent.
         *
         * @param string $member
         */
        public function percentile(string $member): ?float {}

        /**
         * The board of one period ('daily', 'weekly', 'monthly'): the current one
         * by the Redis server's clock (in the utc_offset calendar), or the one named by $id
         * ('2026-11-29', '2026-W48', '2026-11').
         * @throws \ValueError for a period this board does not keep or a malformed id.
         *
         * @param string $period
         * @param string|null $id
         * @return \RedisKit\RedisLeaderboard
         */
        public function period(string $period, ?string $id = null): \RedisKit\RedisLeaderboard {}

        /**
         * @return int|null 1-based rank under the board's ranking mode, null when absent.
         *
         * @param string $member
         */
        public function rank(string $member): ?int {}

        /**
         * Removes members from the board.
         * @return int How many of them were on the board.
         *
         * @param string $members
         */
        public function remove(string ...$members): int {}

        /**
         * @return float|null The member's score, null when absent.
         *
         * @param string $member
         */
        public function score(string $member): ?float {}

        /**
         * Sets the member's score, replacing any previous one.
         * @throws \ValueError if $score is NAN.
         * @throws \RedisKit\Exception on a Redis error (e.g. the key holds another type).
         *
         * @param string $member
         * @param float $score
         * @return void
         */
        public function setScore(string $member, float $score): void {}

        /**
         * Stores the score only if it beats the member's current one (higher for
         * 'desc', lower for 'asc'), or if the member is new.
         * @return bool true if the score was stored.
         *
         * @param string $member
         * @param float $score
         */
        public function setScoreIfBetter(string $member, float $score): bool {}

        /**
         * Sets many scores at once ([member => score]), all or nothing: up to 1000
         * members in one command or script, a bigger batch as 1000-member chunks in
         * one MULTI/EXEC (it holds Redis for its whole length).
         * Nothing is written if any score is not a number.
         * @param array<string|int, int|float> $scores
         * @return int How many of the members were new to the board.
         *
         * @param array $scores
         */
        public function setScores(array $scores): int {}

        /**
         * The best $limit entries, best first.
         * @return list<array{member: string, score: float, rank: int}>
         * @throws \ValueError if $limit < 1.
         *
         * @param int $limit
         */
        public function top(int $limit = 10): array {}
    }

    /**
     * A distributed lock on one resource. Acquire is one round trip; waiters are
     * woken by the holder's release (or its TTL expiry) instead of polling; every
     * successful acquire gets a fencing token; a watchdog thread renews held
     * locks; a lock never outlives its request.
     *
     * Options: `ttl` (seconds, default 30.0; every lock expires), `watchdog`
     * (bool, default true: renew every ttl/3 while held), `fair` (bool, default
     * false: waiters get the lock in arrival order), `token` (string: adopt an
     * existing owner token, to release or extend a lock taken elsewhere; such an
     * object is never released automatically), `prefix` (string, default ini
     * rediskit.prefix), `wait_replicas` (int, default 0 or the DSN's
     * `wait_replicas`: the lock counts only once that many replicas confirmed it
     * with WAIT; narrows what a failover can lose), `wait_timeout` (seconds WAIT
     * may take, default 0.1 or the DSN's).
     *
     * `$connection` may be a list of 3 or more DSNs of independent masters:
     * Redlock (a majority within the validity time).
     */
    final class RedisLock {
        /**
         * @param string $resource What the lock protects; the Redis key is prefix . resource.
         * @param string|array|null $connection DSN (redis://, rediss://, unix://), null for ini rediskit.default_dsn, a cluster/sentinel array (['cluster' => [...]] or ['sentinel' => [...], 'service' => ...]), or a list of >= 3 DSNs of independent masters (Redlock).
         * @param array $options See the class description.
         * @throws \ValueError on an empty resource, a bad DSN, a Redlock list with fewer than 3 entries,
         *   an unknown option or a bad option value (e.g. ttl <= 0).
         */
        public function __construct(string $resource, #[\SensitiveParameter] string|array|null $connection = null, array $options = []) {}

        /**
         * Releases the lock if this object took it (not an adopted token's lock).
         */
        public function __destruct() {}

        /**
         * Takes the lock. With $wait = 0 tries once; with $wait > 0 blocks up to
         * $wait seconds, woken as soon as the holder releases it or its TTL runs out.
         * Acquiring a lock this object already holds renews it (no counting).
         * In a process forked from the one that took it, the object first gets a
         * token of the child's own: the child waits for its parent's lock like
         * any other process. A signal PHP has a handler for (pcntl_async_signals)
         * or a timeout ends the wait early: one last attempt, then false, and the
         * handler runs (a worker's SIGTERM is not held up for the whole $wait).
         * @param float $wait Seconds to wait (>= 0).
         * @return bool true if this object now holds the lock.
         * @throws \ValueError if $wait < 0 or not finite.
         * @throws \RedisKit\ConnectionException if Redis (a majority for Redlock) cannot be reached.
         */
        public function acquire(float $wait = 0.0): bool {}

        /**
         * Resets the lock's TTL if this owner still holds it.
         * @param float|null $ttl Seconds (> 0); null for the ttl option. It also becomes the TTL the watchdog renews with.
         * @return bool true if still the owner and renewed; false in a process forked
         *   from the one that took it (nothing is sent).
         * @throws \ValueError if $ttl <= 0.
         */
        public function extend(?float $ttl = null): bool {}

        /**
         * The fencing token of this object's last successful acquire: strictly
         * greater than every token handed out earlier for this resource. Pass it
         * to the storage you write to and have it reject writes carrying a token
         * lower than the highest it has seen. Issued on the first call after an
         * acquire (one round trip, only while this object still holds the lock);
         * later calls return the same value without asking Redis. A lock nobody
         * asks a token of costs Redis nothing for it.
         * @return int|null null before the first successful acquire (also after a forked
         *   child's acquire() gave the object a token of its own, until it succeeds), and
         *   when the lock was released or lost before the token was asked for.
         * @throws \RedisKit\ConnectionException when the token must be issued and Redis cannot be reached.
         */
        public function fencingToken(): ?int {}

        /**
         * Releases the lock whoever holds it (not only this owner), and wakes the
         * next waiter; for operators and framework "force release" calls. Ends
         * this object's lease if it held the lock.
         * @return bool true if the lock was held (on a majority for Redlock), false if it was free.
         * @throws \RedisKit\ConnectionException if Redis (a majority for Redlock) cannot be reached;
         *   for Redlock the servers that answered are released all the same.
         */
        public function forceRelease(): bool {}

        /**
         * The owner token holding the lock now, whoever it is.
         * @return string|null null when the lock is free (for Redlock: when no token holds a majority).
         * @throws \RedisKit\ConnectionException if Redis (a majority for Redlock) cannot be reached.
         */
        public function holder(): ?string {}

        /**
         * The lock as an operator sees it, whoever holds it, in one round trip:
         * 'holder' (owner token, null when free), 'ttl' (seconds, null when
         * free), 'reserved' (free but kept for the fair queue's first waiter),
         * 'fencing_token' (the last one handed out for this lock, null when
         * none was asked for), 'waiters' (alive now, either mode) and 'queue'
         * (the fair queue's first $queueLimit waiter tokens, in arrival order).
         * Reads only.
         * @param int $queueLimit 0 ..= 1000.
         * @return array{holder: ?string, ttl: ?float, reserved: bool, fencing_token: ?int, waiters: int, queue: list<string>}
         * @throws \ValueError for a bad $queueLimit, or on Redlock (use holder() and remainingTtl()).
         *
         * @param int $queue_limit
         */
        public function inspect(int $queue_limit = 10): array {}

        /**
         * Asks Redis whether this owner (token) holds the lock now.
         * @return bool
         */
        public function isAcquired(): bool {}

        /**
         * Releases the lock if this owner (token) holds it, and wakes the next waiter.
         * @return bool true if this owner held it and released it (on a majority for Redlock);
         *   false in a process forked from the one that took it (nothing is sent).
         * @throws \RedisKit\ConnectionException if Redis (a majority for Redlock) cannot be reached;
         *   for Redlock the servers that answered are released all the same.
         */
        public function release(): bool {}

        /**
         * @return float|null Seconds until the lock expires, null when this owner does not hold it.
         */
        public function remainingTtl(): ?float {}

        /**
         * Acquires the lock (waiting up to $wait seconds), calls $callback() and
         * releases the lock whatever happens (finally). In a forked child that
         * returns from the callback too, it neither releases the parent's lock nor
         * throws LockLostException.
         * @param callable $callback Called without arguments; its return value is returned.
         * @param float $wait Seconds to wait for the lock (>= 0).
         * @return mixed What $callback returned.
         * @throws \RedisKit\LockTimeoutException if the lock could not be acquired within $wait
         *   (or before a signal cut the wait short, see acquire(); its handler has run then).
         * @throws \RedisKit\LockLostException after the callback returned, if the lock was lost
         *   meanwhile (its TTL ran out or another owner took it), also when the callback
         *   itself found it gone (isAcquired()/extend() false): other code may have run
         *   under the lock at the same time.
         * @throws \Throwable whatever $callback throws, rethrown after the release.
         */
        public function run(callable $callback, float $wait = 0.0): mixed {}

        /**
         * @return string The owner token (a UUID, or the adopted `token` option); in a
         *   forked child, the parent's until the child's first acquire().
         */
        public function token(): string {}
    }

    /**
     * A write the master made, but fewer replicas confirmed it in time than the
     * object's `wait_replicas` asked (WAIT): the write stands on the master, and
     * a failover before it reaches a replica could lose it. `$jobIds` lists the
     * jobs a DelayQueue push, ack or retry concerned (empty for a RateLimiter
     * attempt), `$replicas` how many replicas confirmed it.
     */
    class ReplicationException extends \RedisKit\Exception {
        /** @var list<string> */
        public ?array $jobIds = null;

        public ?int $replicas = null;
    }

    /**
     * This host's metrics: every worker process of a PHP-FPM pool or Apache
     * server (or a CLI script and the children it forks) counts into one shared
     * segment, made at PHP's start. Keys: segment (enabled, bytes, series,
     * capacity, max_names, per_minute_capacity and per_minute_series (queues
     * that can keep, and keep, per-minute counts), other: names counted in `_other` because the
     * segment was full or their kind had max_names), then lock, queue, limiter,
     * cache (by name, namespace for caches) and connection (by host:port or
     * socket path), each a list of counters and histograms (count, sum in
     * seconds, cumulative buckets by upper bound in seconds, '+Inf' last), and
     * hot: the hottest keys of lock, limiter (name:key) and cache
     * (namespace:key), each ['key' => string, 'count' => estimated uses,
     * 'error' => the most the estimate may be over], hottest first: a
     * space-saving sketch of 32 keys per kind fed by a random sample of one
     * call in 16. Reading it takes no Redis round trip.
     * @return array<string, array>
     */
    function metrics(): array {}

    /**
     * The queues, locks, limiters and caches that exist under a prefix (the
     * ini rediskit.prefix when null) on a connection, as the objects recorded
     * themselves: each object once per worker process, after its first call
     * that reached Redis, in one hash (<prefix>rediskit:registry), at most
     * 1,000 entries per kind. Keys: queues, locks, limiters, caches (each a list
     * of ['name' => string, 'seen' => when a worker last recorded it (Unix
     * seconds), then its settings: visibility_timeout, max_attempts, backoff for
     * a queue; ttl, fair, watchdog, servers for a lock; algorithm, limit,
     * window, burst for a limiter; ttl, serializer, local for a cache], by
     * name), and full (the kinds that reached 1,000 entries and take no more).
     * One round trip (HGETALL); never a SCAN.
     * @param string|array|null $connection DSN (redis://, rediss://, unix://), null for ini rediskit.default_dsn, or a cluster/sentinel array.
     * @param string|null $prefix The objects' key prefix; null for ini rediskit.prefix.
     * @return array<string, list<array<string, mixed>>>
     * @throws \ValueError on a bad DSN.
     * @throws \RedisKit\ConnectionException when Redis cannot be reached.
     */
    function registry(string|array|null $connection = null, ?string $prefix = null): array {}

    /**
     * The Redis servers behind a connection, as an operator page shows them:
     * one entry per master (the one server, the current master behind
     * Sentinel, each master of a cluster) with address, the INFO fields
     * redis_version (or valkey_version), redis_mode, role, uptime_in_seconds,
     * connected_clients, blocked_clients, used_memory, used_memory_peak,
     * maxmemory (0: no limit), maxmemory_policy, mem_fragmentation_ratio,
     * total_commands_processed, instantaneous_ops_per_sec,
     * rejected_connections, expired_keys, evicted_keys, keyspace_hits,
     * keyspace_misses (those the server reports), keys (per database: ['db0' =>
     * n]), slowlog_len and slowlog: its latest $slowlog entries, newest first,
     * each ['id', 'time' (Unix seconds), 'duration' (seconds), 'command' (the
     * arguments as Redis logged them: it cuts long ones), 'client'].
     * One round trip per master (INFO, SLOWLOG GET, SLOWLOG LEN); the user
     * needs +info +slowlog.
     * @param string|array|null $connection DSN, null for ini rediskit.default_dsn, or a cluster/sentinel array.
     * @param int $slowlog How many slow-log entries, 0 to 128.
     * @return list<array<string, mixed>>
     * @throws \ValueError on a bad DSN or $slowlog.
     * @throws \RedisKit\ConnectionException when Redis cannot be reached.
     */
    function serverInfo(string|array|null $connection = null, int $slowlog = 10): array {}

    /**
     * This worker's counters: the process's under PHP-FPM and the CLI, the
     * thread's under a thread-safe PHP (a forked child starts from zero):
     * connections_opened, live_connections, reconnects, commands, scripts_loaded,
     * noscript_fallbacks, errors, requests, topology_queries (CLUSTER SLOTS /
     * SENTINEL lookups, not in commands), registrations (objects recorded in
     * RedisKit\registry(), once per object per process, not in commands),
     * round_trips (replies waited for: a pipeline or a script is one),
     * redis_wait_us (microseconds spent waiting for those replies: network
     * and Redis), the per-primitive counters lock_acquired, lock_contended,
     * lock_timed_out, lock_lost, queue_pushed, queue_claimed, queue_acked,
     * queue_redelivered, queue_dead, limiter_allowed, limiter_denied,
     * limiter_local_blocks, cache_hits, cache_misses, cache_computes, cache_waits,
     * cache_early_refreshes, cache_stale_served, cache_local_hits (hits served
     * by a local tier, counted in cache_hits too), leaderboard_local_hits (range
     * reads served by a RedisLeaderboard's local tier), and pid.
     * @return array<string, int>
     */
    function stats(): array {}
}
