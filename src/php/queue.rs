#![allow(non_snake_case)] // PHP parameter names are camelCase (named arguments)
//! `RedisKit\DelayQueue`: argument checks and PHP arrays around `crate::queue`.
use super::{
    array_entries, binary, bytes_of, connection_arg, keys, options_arg, php_list, settings, throw,
    type_error, type_name, value_error, Bytes,
};
use crate::conn::shown;
use crate::queue::{self, Job};
use ext_php_rs::boxed::ZBox;
use ext_php_rs::flags::ClassFlags;
use ext_php_rs::prelude::*;
use ext_php_rs::types::{ZendHashTable, Zval};

/// Delayed jobs on Redis: due times on the Redis server's clock (millisecond
/// precision, never handed out early), claimed atomically in one round trip,
/// at-least-once delivery with a visibility timeout, retries with exponential
/// backoff and a dead set.
///
/// A job is `['id' => string, 'payload' => string, 'attempts' => int, 'due_at' => float]`:
/// `id` is the id push() returned (the same for every delivery), `attempts`
/// the earlier deliveries that ended without an ack (timed out or retried),
/// `due_at` the unix time (seconds, Redis clock) the job was due at.
///
/// Claims: each worker process is one consumer (all its DelayQueue objects
/// share a random identity; a forked child gets a new one; on a thread-safe
/// PHP each thread is one), unless the `consumer` option names one. ack(),
/// retry() and touch() only act on jobs whose latest claim is this
/// consumer's, and return false otherwise, changing nothing. A claim whose visibility timeout has passed stays valid until
/// another consumer claims the job.
///
/// Options: `visibility_timeout` (seconds a claimed job stays invisible to
/// other consumers, default 30.0), `max_attempts` (deliveries before a job
/// is dead-lettered, default 5; 0 = unlimited), `backoff` (seconds, base of
/// the exponential backoff with jitter after a visibility timeout: attempt n
/// is due again between backoff*2^(n-1)/2 and backoff*2^(n-1) after its
/// claim lapsed (counted from the visibility deadline), at most one day;
/// default 1.0), `prefix` (string, default ini rediskit.prefix), `consumer`
/// (string: an explicit consumer identity, e.g. to run two consumers in one
/// process; never give two processes the same one), `wait_replicas` (int,
/// default 0 or the DSN's `wait_replicas`: push, pushAt, pushMany, ack and
/// retry wait, in the same round trip, until that many replicas have the
/// write, else throw `RedisKit\ReplicationException` with the job ids; the
/// write itself stands on the master), `wait_timeout` (seconds that wait may
/// take, default 0.1 or the DSN's), `on_error` ('throw' default, or
/// 'spool': a push, pushAt or pushMany that cannot reach Redis, before
/// anything was sent, appends its jobs to a file under `spool_dir` (fsync'd)
/// and returns their ids as usual; they are pushed, with those ids and due
/// times, by the next successful push or pop on this host, or by
/// replaySpool()), `spool_dir` (required with 'spool': a directory this
/// process can write to). Options are
/// per object, not stored in Redis: give all users of a queue the same ones.
#[php_class]
#[php(name = "RedisKit\\DelayQueue")]
#[php(flags = ClassFlags::Final)]
pub struct DelayQueue {
    inner: queue::DelayQueue,
}

fn job_array(j: Job) -> PhpResult<ZBox<ZendHashTable>> {
    let mut h = ZendHashTable::with_capacity(4);
    keys::set(&mut h, "id", binary(j.id))?;
    keys::set(&mut h, "payload", binary(j.payload))?;
    keys::set(&mut h, "attempts", j.attempts)?;
    keys::set(&mut h, "due_at", j.due_at)?;
    Ok(h)
}

fn job_list(list: Vec<Job>) -> PhpResult<ZBox<ZendHashTable>> {
    php_list(list, job_array)
}

fn job_info(j: queue::JobInfo) -> PhpResult<ZBox<ZendHashTable>> {
    let mut h = ZendHashTable::with_capacity(7);
    keys::set(&mut h, "id", binary(j.id))?;
    h.insert("state", j.state.name())?;
    keys::set(&mut h, "attempts", j.attempts)?;
    h.insert("at", j.at)?;
    match j.owner {
        Some(o) => h.insert("owner", binary(o))?,
        None => h.insert("owner", ())?,
    }
    h.insert("size", j.size)?;
    keys::set(&mut h, "payload", binary(j.payload))?;
    Ok(h)
}

/// requeueDead's and deleteDead's `$id`: one id, a list of them, or null
/// (every dead job).
fn dead_ids(method: &str, id: Option<&Zval>) -> PhpResult<Option<Vec<Vec<u8>>>> {
    let Some(z) = id.map(Zval::dereference).filter(|z| !z.is_null()) else {
        return Ok(None);
    };
    if let Some(arr) = z.array() {
        if arr.len() > queue::MAX_IDS {
            return Err(value_error(format!(
                "DelayQueue::{method}: at most {} ids at once, got {}",
                queue::MAX_IDS,
                arr.len()
            )));
        }
        let mut out = Vec::with_capacity(arr.len());
        for (k, v) in array_entries(arr) {
            let Some(b) = bytes_of(v.dereference()) else {
                return Err(value_error(format!(
                    "DelayQueue::{method}: $id element {} is not a string ({} given)",
                    k.label(),
                    type_name(v)
                )));
            };
            out.push(b);
        }
        return Ok(Some(out));
    }
    match bytes_of(z) {
        Some(b) => Ok(Some(vec![b])),
        None => Err(type_error(format!(
            "DelayQueue::{method}(): Argument #1 ($id) must be of type array|string|null, {} given",
            type_name(z)
        ))),
    }
}

fn dead_jobs(ids: &Option<Vec<Vec<u8>>>) -> queue::DeadJobs<'_> {
    match ids {
        Some(v) => queue::DeadJobs::Ids(v),
        None => queue::DeadJobs::All,
    }
}

fn id_string(id: Vec<u8>) -> String {
    // Job ids are ASCII digits made by the push script.
    String::from_utf8_lossy(&id).into_owned()
}

#[php_impl]
impl DelayQueue {
    /// @param string $name Queue name; the Redis keys are prefix . name and {prefix . name}:*.
    /// @param string|array|null $connection DSN (redis://, rediss://, unix://), null for ini rediskit.default_dsn, or a cluster/sentinel array (['cluster' => [...]] or ['sentinel' => [...], 'service' => ...]).
    /// @param array $options visibility_timeout, max_attempts, backoff, prefix, consumer, wait_replicas, wait_timeout: see the class description.
    /// @throws \ValueError on a bad DSN, an empty name, an unknown option or a bad option value.
    pub fn __construct(
        name: Bytes,
        connection: Option<&Zval>,
        options: Option<&ZendHashTable>,
    ) -> PhpResult<Self> {
        let conn = connection_arg(connection)?;
        let opts = options_arg(options)?;
        let inner = queue::DelayQueue::new(&name.0, &conn, opts, &settings()).map_err(throw)?;
        Ok(DelayQueue { inner })
    }

    /// Adds a job due $delay seconds from now (Redis clock). Every call is a
    /// new job, even with a payload already queued.
    /// @param string $payload Any bytes (serialize structured data yourself).
    /// @param float $delay Seconds, >= 0.
    /// @return string The job id.
    /// @throws \ValueError if $delay is negative, NAN or INF.
    /// @throws \RedisKit\ConnectionException if Redis cannot be reached (the job may or may not have been added if the connection broke mid-call).
    /// @throws \RedisKit\ReplicationException with wait_replicas, when fewer replicas confirmed the job in time (it is on the master: $e->jobIds).
    #[php(defaults(delay = 0.0))]
    pub fn push(&self, payload: Bytes, delay: f64) -> PhpResult<String> {
        self.inner
            .push(&payload.0, delay)
            .map(id_string)
            .map_err(throw)
    }

    /// Adds a job due at the unix time $timestamp (seconds, millisecond
    /// precision, compared with the Redis server's clock). A time in the past
    /// is due at once, ahead of jobs due later.
    /// @param float $timestamp Unix time in seconds, 0 ..= 1e11.
    /// @return string The job id.
    /// @throws \ValueError if $timestamp is out of range, NAN or INF.
    pub fn push_at(&self, payload: Bytes, timestamp: f64) -> PhpResult<String> {
        self.inner
            .push_at(&payload.0, timestamp)
            .map(id_string)
            .map_err(throw)
    }

    /// Adds one job per payload, all due $delay seconds from now, in one
    /// round trip, all or nothing: a batch Redis refuses (maxmemory) writes no
    /// job. Up to 1000 payloads it is one script; a bigger batch reserves its
    /// ids first and then lands in slices of 1000. Keys of $payloads are ignored.
    /// @param array<string> $payloads
    /// @param float $delay Seconds, >= 0.
    /// @return list<string> The job ids, in the order of $payloads.
    /// @throws \ValueError if a payload is not a string (nothing is added), or $delay is negative, NAN or INF.
    #[php(defaults(delay = 0.0))]
    pub fn push_many(&self, payloads: &ZendHashTable, delay: f64) -> PhpResult<Vec<String>> {
        let mut owned = Vec::with_capacity(payloads.len());
        for (k, v) in array_entries(payloads) {
            match bytes_of(v) {
                Some(b) => owned.push(b),
                None => {
                    return Err(value_error(format!(
                        "pushMany: payloads must be strings, got {} at key '{}'",
                        type_name(v),
                        shown(&k.into_bytes())
                    )))
                }
            }
        }
        let refs: Vec<&[u8]> = owned.iter().map(Vec::as_slice).collect();
        let ids = self.inner.push_many(&refs, delay).map_err(throw)?;
        Ok(ids.into_iter().map(id_string).collect())
    }

    /// Claims up to $max due jobs (earliest due first, push order for equal
    /// due times) for this consumer until now + visibility_timeout, in one
    /// atomic script and one round trip. Before claiming, it puts back up to
    /// 100 claims whose visibility timeout has passed (attempts + 1, due at
    /// their visibility deadline + backoff, so a job whose backoff is over is
    /// handed out by this same pop) or dead-letters them, as of that deadline,
    /// once they used max_attempts.
    ///
    /// With $wait > 0 it blocks (without polling) until at least one job is
    /// claimed or $wait seconds have passed, waking when the next job falls
    /// due or a job due earlier is pushed. A signal PHP has a handler for
    /// (pcntl_async_signals) ends the wait early: pop() returns what it
    /// claimed (possibly nothing) and the handler runs.
    /// @param int $max 1 ..= 1000.
    /// @param float $wait Seconds, >= 0.
    /// @return list<array{id: string, payload: string, attempts: int, due_at: float}> [] if none.
    /// @throws \ValueError if $max is out of range or $wait is negative, NAN or INF.
    /// @throws \RedisKit\ConnectionException if Redis cannot be reached (jobs claimed by a call whose reply was lost come back after the visibility timeout).
    #[php(defaults(max = 1, wait = 0.0))]
    pub fn pop(&self, max: i64, wait: f64) -> PhpResult<ZBox<ZendHashTable>> {
        job_list(self.inner.pop(max, wait).map_err(throw)?)
    }

    /// Done with a job: deletes it for good, if this consumer holds its latest claim.
    /// @return bool false for an unknown id, a job claimed by another consumer since, or one this consumer did not claim (nothing changed).
    /// @throws \RedisKit\ReplicationException with wait_replicas, when fewer replicas confirmed the ack in time (it stands on the master).
    pub fn ack(&self, id: Bytes) -> PhpResult<bool> {
        self.inner.ack(&id.0).map_err(throw)
    }

    /// Gives a claimed job back, due $delay seconds from now. Counts as a
    /// failed attempt: a job that has used max_attempts goes to the dead set
    /// instead (true is returned either way).
    /// @param float $delay Seconds, >= 0.
    /// @return bool false if this consumer does not hold the job's latest claim (nothing changed).
    /// @throws \ValueError if $delay is negative, NAN or INF.
    /// @throws \RedisKit\ReplicationException with wait_replicas, when fewer replicas confirmed the retry in time (it stands on the master).
    #[php(defaults(delay = 0.0))]
    pub fn retry(&self, id: Bytes, delay: f64) -> PhpResult<bool> {
        self.inner.retry(&id.0, delay).map_err(throw)
    }

    /// Extends this consumer's claim: the job stays invisible to other
    /// consumers until now + visibility_timeout. Call it regularly during
    /// long work; false means another consumer has the job now (stop).
    /// @return bool false if this consumer does not hold the job's latest claim (nothing changed).
    pub fn touch(&self, id: Bytes) -> PhpResult<bool> {
        self.inner.touch(&id.0).map_err(throw)
    }

    /// Deletes a job that is not in flight: scheduled, due, or dead.
    /// @return bool false for an unknown id or a job claimed by a consumer now.
    pub fn cancel(&self, id: Bytes) -> PhpResult<bool> {
        self.inner.cancel(&id.0).map_err(throw)
    }

    /// Jobs per state, by the Redis clock. 'scheduled' are not due yet; 'due'
    /// wait for a consumer; 'in_flight' are claimed and not acked. It first
    /// puts back up to 100 claims past their visibility timeout, as pop() does.
    /// @return array{scheduled: int, due: int, in_flight: int, dead: int}
    pub fn counts(&self) -> PhpResult<ZBox<ZendHashTable>> {
        let c = self.inner.counts().map_err(throw)?;
        let mut h = ZendHashTable::with_capacity(4);
        keys::set(&mut h, "scheduled", c.scheduled)?;
        keys::set(&mut h, "due", c.due)?;
        keys::set(&mut h, "in_flight", c.in_flight)?;
        keys::set(&mut h, "dead", c.dead)?;
        Ok(h)
    }

    /// counts() and the times an operator looks at, in one round trip:
    /// 'oldest_due_at' (unix seconds, Redis clock) of the oldest job that is
    /// due and not claimed, null when none; 'lag' = now - oldest_due_at
    /// (0.0 when none): how far the consumers are behind; 'next_due_at' of
    /// the next job not due yet, null when none; 'now' the Redis clock.
    /// 'paused' is true while the queue is paused.
    /// @return array{scheduled: int, due: int, in_flight: int, dead: int, oldest_due_at: ?float, lag: float, next_due_at: ?float, now: float, paused: bool}
    pub fn inspect(&self) -> PhpResult<ZBox<ZendHashTable>> {
        let i = self.inner.inspect().map_err(throw)?;
        let c = i.counts;
        let mut h = ZendHashTable::with_capacity(8);
        keys::set(&mut h, "scheduled", c.scheduled)?;
        keys::set(&mut h, "due", c.due)?;
        keys::set(&mut h, "in_flight", c.in_flight)?;
        keys::set(&mut h, "dead", c.dead)?;
        h.insert("oldest_due_at", i.oldest_due_at)?;
        h.insert("lag", i.oldest_due_at.map_or(0.0, |t| (i.now - t).max(0.0)))?;
        h.insert("next_due_at", i.next_due_at)?;
        h.insert("now", i.now)?;
        h.insert("paused", i.paused)?;
        Ok(h)
    }

    /// Pauses the queue, for every process using it: pushes are taken as
    /// ever, pop() hands out nothing (a pop() with $wait keeps waiting, and
    /// gets jobs as soon as the queue is resumed); jobs already claimed can
    /// still be acked, retried and touched, and a lapsed claim still goes
    /// back (or dead). The pause is stored in Redis, in the queue's
    /// schedule: purge() ends it too. One round trip.
    /// @return bool true if the queue was running, false if it was paused already.
    pub fn pause(&self) -> PhpResult<bool> {
        self.inner.pause().map_err(throw)
    }

    /// Resumes a paused queue and wakes a consumer blocked in pop().
    /// @return bool true if the queue was paused, false if it was running.
    pub fn resume(&self) -> PhpResult<bool> {
        self.inner.resume().map_err(throw)
    }

    /// Whether the queue is paused. One round trip.
    pub fn is_paused(&self) -> PhpResult<bool> {
        self.inner.is_paused().map_err(throw)
    }

    /// Dead-lettered jobs, the earliest dead-lettered first. 'attempts' is
    /// the number of failed deliveries, 'due_at' when the job was
    /// dead-lettered (unix seconds, Redis clock): its lapsed visibility
    /// deadline, or the time of the retry() that used its last attempt.
    /// @param int $limit 1 ..= 10000.
    /// @return list<array{id: string, payload: string, attempts: int, due_at: float}>
    /// @throws \ValueError if $limit is out of range.
    #[php(defaults(limit = 100))]
    pub fn dead(&self, limit: i64) -> PhpResult<ZBox<ZendHashTable>> {
        job_list(self.inner.dead(limit).map_err(throw)?)
    }

    /// Moves dead jobs back to the schedule, due now, with attempts reset
    /// to 0: one ($id a string), several (a list of ids, at most 10,000), or
    /// all of them (null). Ids that are not dead are left alone.
    /// @param string|array|null $id
    /// @return int How many jobs moved.
    /// @throws \ValueError for a list with a non-string or more than 10,000 ids.
    pub fn requeue_dead(&self, id: Option<&Zval>) -> PhpResult<i64> {
        let ids = dead_ids("requeueDead", id)?;
        self.inner.requeue_dead(dead_jobs(&ids)).map_err(throw)
    }

    /// Deletes dead jobs, payload included: one ($id a string), several (a
    /// list of ids, at most 10,000), or all of them (null). Ids that are not
    /// dead are left alone: a job in any other state is never deleted here
    /// (cancel() deletes a scheduled or due one).
    /// @param string|array|null $id
    /// @return int How many jobs were deleted.
    /// @throws \ValueError for a list with a non-string or more than 10,000 ids.
    pub fn delete_dead(&self, id: Option<&Zval>) -> PhpResult<i64> {
        let ids = dead_ids("deleteDead", id)?;
        self.inner.delete_dead(dead_jobs(&ids)).map_err(throw)
    }

    /// One page of the jobs in one state, in the order they leave it:
    /// 'scheduled' (not due yet) and 'due' (due, not claimed) by due time,
    /// 'in_flight' (claimed, not acked) by claim deadline, 'dead' by when
    /// they were dead-lettered. Pass the page's 'cursor' to get the next
    /// page; it is null on the last one. Pages follow the queue as it moves:
    /// a job that changes state between two pages is listed where it is when
    /// its page is read, so it may be missed or listed twice.
    ///
    /// Each job: 'id', 'state', 'attempts', 'at' (unix seconds, Redis
    /// clock: when it is due, when its claim lapses, or when it was
    /// dead-lettered), 'owner' (the consumer holding an in-flight job, else
    /// null), 'size' (payload bytes) and 'payload' (its first $preview
    /// bytes). One round trip per page.
    /// @param string $state 'scheduled', 'due', 'in_flight' or 'dead'.
    /// @param int $limit 1 ..= 1000 jobs per page.
    /// @param int $preview 0 ..= 65536 payload bytes per job.
    /// @return array{jobs: list<array{id: string, state: string, attempts: int, at: ?float, owner: ?string, size: int, payload: string}>, cursor: ?string}
    /// @throws \ValueError for an unknown state, a cursor jobs() did not return, or $limit or $preview out of range.
    #[php(optional = cursor, defaults(limit = 50, preview = 256))]
    pub fn jobs(
        &self,
        state: Bytes,
        cursor: Option<Bytes>,
        limit: i64,
        preview: i64,
    ) -> PhpResult<ZBox<ZendHashTable>> {
        let Some(st) = queue::State::parse(&state.0) else {
            return Err(value_error(format!(
                "DelayQueue::jobs: $state must be 'scheduled', 'due', 'in_flight' or 'dead', got {}",
                shown(&state.0)
            )));
        };
        let page = self
            .inner
            .jobs(st, cursor.as_ref().map(|c| c.0.as_slice()), limit, preview)
            .map_err(throw)?;
        let mut h = ZendHashTable::with_capacity(2);
        h.insert("jobs", php_list(page.jobs, job_info)?)?;
        match page.cursor {
            Some(c) => h.insert("cursor", binary(c))?,
            None => h.insert("cursor", ())?,
        }
        Ok(h)
    }

    /// One job by id, in any state, with its whole payload: the same keys
    /// as a job of jobs() ('at' is null for a due job whose due time could
    /// not be found), or null when the queue has no such job (never pushed,
    /// acked, cancelled or deleted). One round trip.
    /// @return array{id: string, state: string, attempts: int, at: ?float, owner: ?string, size: int, payload: string}|null
    pub fn job(&self, id: Bytes) -> PhpResult<Option<ZBox<ZendHashTable>>> {
        match self.inner.job(&id.0).map_err(throw)? {
            Some(j) => Ok(Some(job_info(j)?)),
            None => Ok(None),
        }
    }

    /// Deletes every job in every state. Job ids are never reused afterwards.
    pub fn purge(&self) -> PhpResult<()> {
        self.inner.purge().map_err(throw)
    }

    /// With on_error 'spool': pushes the jobs this host's spool holds for the
    /// queue (in order, with their ids and due times), then empties it. The
    /// next successful push or pop of any process does it too (looking at
    /// the spool with one stat), but leaves a spool with damaged records
    /// alone: this call skips them and returns a warning for each (log them
    /// with your PSR-3 logger).
    /// Exactly once: a replay that reached Redis but could not empty the
    /// spool (a crash) pushes nothing twice. Another process replaying it
    /// now: nothing done ('replayed' 0).
    /// @return array{replayed: int, added: int, warnings: list<string>} 'added' leaves out jobs a crashed replay had pushed already; 'warnings' names each damaged stretch skipped.
    /// @throws \ValueError if this queue has no spool.
    /// @throws \RedisKit\ConnectionException if Redis cannot be reached (the spool is left as it was).
    pub fn replaySpool(&self) -> PhpResult<ZBox<ZendHashTable>> {
        let r = self.inner.replay_spool(true).map_err(throw)?;
        let mut h = ZendHashTable::with_capacity(3);
        keys::set(&mut h, "replayed", r.replayed as i64)?;
        keys::set(&mut h, "added", r.added)?;
        keys::set(&mut h, "warnings", r.warnings)?;
        Ok(h)
    }
}
