//! rediskit: a Redis toolkit for PHP. This file only registers the module;
//! the pure-Rust core lives in `conn` and one module per primitive, the PHP
//! bindings in `php` (left out of test builds, and of the fuzz targets'
//! `--cfg fuzzing` builds: they link against PHP).
pub mod cache;
pub mod conn;
pub mod leaderboard;
pub mod local;
pub mod lock;
pub mod metrics;
pub mod options;
pub mod queue;
pub mod ratelimit;
pub mod registry;
pub mod scripts;
pub mod server;
pub mod spool;

#[cfg(not(any(test, fuzzing)))]
mod php;

#[cfg(not(any(test, fuzzing)))]
use ext_php_rs::prelude::*;

#[cfg(not(any(test, fuzzing)))]
fn startup(ty: i32, module_number: i32) -> i32 {
    php::startup(ty, module_number)
}

/// This worker's counters: the process's under PHP-FPM and the CLI, the
/// thread's under a thread-safe PHP (a forked child starts from zero):
/// connections_opened, live_connections, reconnects, commands, scripts_loaded,
/// noscript_fallbacks, errors, requests, topology_queries (CLUSTER SLOTS /
/// SENTINEL lookups, not in commands), registrations (objects recorded in
/// RedisKit\registry(), once per object per process, not in commands),
/// round_trips (replies waited for: a pipeline or a script is one),
/// redis_wait_us (microseconds spent waiting for those replies: network
/// and Redis), the per-primitive counters lock_acquired, lock_contended,
/// lock_timed_out, lock_lost, queue_pushed, queue_claimed, queue_acked,
/// queue_redelivered, queue_dead, limiter_allowed, limiter_denied,
/// limiter_local_blocks, cache_hits, cache_misses, cache_computes, cache_waits,
/// cache_early_refreshes, cache_stale_served, cache_local_hits (hits served
/// by a local tier, counted in cache_hits too), leaderboard_local_hits (range
/// reads served by a RedisLeaderboard's local tier), and pid.
/// @return array<string, int>
#[cfg(not(any(test, fuzzing)))]
#[php_function]
#[php(name = "RedisKit\\stats")]
pub fn stats() -> Vec<(String, i64)> {
    conn::stats::snapshot()
        .into_iter()
        .map(|(k, v)| (k.to_string(), v as i64))
        .collect()
}

/// This host's metrics: every worker process of a PHP-FPM pool or Apache
/// server (or a CLI script and the children it forks) counts into one shared
/// segment, made at PHP's start. Keys: segment (enabled, bytes, series,
/// capacity, max_names, per_minute_capacity and per_minute_series (queues
/// that can keep, and keep, per-minute counts), other: names counted in `_other` because the
/// segment was full or their kind had max_names), then lock, queue, limiter,
/// cache (by name, namespace for caches) and connection (by host:port or
/// socket path), each a list of counters and histograms (count, sum in
/// seconds, cumulative buckets by upper bound in seconds, '+Inf' last), and
/// hot: the hottest keys of lock, limiter (name:key) and cache
/// (namespace:key), each ['key' => string, 'count' => estimated uses,
/// 'error' => the most the estimate may be over], hottest first: a
/// space-saving sketch of 32 keys per kind fed by a random sample of one
/// call in 16. Reading it takes no Redis round trip.
/// @return array<string, array>
#[cfg(not(any(test, fuzzing)))]
#[php_function]
#[php(name = "RedisKit\\metrics")]
pub fn metrics() -> PhpResult<ext_php_rs::boxed::ZBox<ext_php_rs::types::ZendHashTable>> {
    php::metrics::all()
}

/// The queues, locks, limiters and caches that exist under a prefix (the
/// ini rediskit.prefix when null) on a connection, as the objects recorded
/// themselves: each object once per worker process, after its first call
/// that reached Redis, in one hash (<prefix>rediskit:registry), at most
/// 1,000 entries per kind. Keys: queues, locks, limiters, caches (each a list
/// of ['name' => string, 'seen' => when a worker last recorded it (Unix
/// seconds), then its settings: visibility_timeout, max_attempts, backoff for
/// a queue; ttl, fair, watchdog, servers for a lock; algorithm, limit,
/// window, burst for a limiter; ttl, serializer, local for a cache], by
/// name), and full (the kinds that reached 1,000 entries and take no more).
/// One round trip (HGETALL); never a SCAN.
/// @param string|array|null $connection DSN (redis://, rediss://, unix://), null for ini rediskit.default_dsn, or a cluster/sentinel array.
/// @param string|null $prefix The objects' key prefix; null for ini rediskit.prefix.
/// @return array<string, list<array<string, mixed>>>
/// @throws \ValueError on a bad DSN.
/// @throws \RedisKit\ConnectionException when Redis cannot be reached.
#[cfg(not(any(test, fuzzing)))]
#[php_function]
#[php(name = "RedisKit\\registry")]
pub fn registry(
    connection: Option<&ext_php_rs::types::Zval>,
    prefix: Option<String>,
) -> PhpResult<ext_php_rs::boxed::ZBox<ext_php_rs::types::ZendHashTable>> {
    php::registry::list(connection, prefix)
}

/// The Redis servers behind a connection, as an operator page shows them:
/// one entry per master (the one server, the current master behind
/// Sentinel, each master of a cluster) with address, the INFO fields
/// redis_version (or valkey_version), redis_mode, role, uptime_in_seconds,
/// connected_clients, blocked_clients, used_memory, used_memory_peak,
/// maxmemory (0: no limit), maxmemory_policy, mem_fragmentation_ratio,
/// total_commands_processed, instantaneous_ops_per_sec,
/// rejected_connections, expired_keys, evicted_keys, keyspace_hits,
/// keyspace_misses (those the server reports), keys (per database: ['db0' =>
/// n]), slowlog_len and slowlog: its latest $slowlog entries, newest first,
/// each ['id', 'time' (Unix seconds), 'duration' (seconds), 'command' (the
/// arguments as Redis logged them: it cuts long ones), 'client'].
/// One round trip per master (INFO, SLOWLOG GET, SLOWLOG LEN); the user
/// needs +info +slowlog.
/// @param string|array|null $connection DSN, null for ini rediskit.default_dsn, or a cluster/sentinel array.
/// @param int $slowlog How many slow-log entries, 0 to 128.
/// @return list<array<string, mixed>>
/// @throws \ValueError on a bad DSN or $slowlog.
/// @throws \RedisKit\ConnectionException when Redis cannot be reached.
#[cfg(not(any(test, fuzzing)))]
#[php_function]
#[php(name = "RedisKit\\serverInfo")]
#[php(defaults(slowlog = 10))]
pub fn server_info(
    connection: Option<&ext_php_rs::types::Zval>,
    slowlog: i64,
) -> PhpResult<ext_php_rs::boxed::ZBox<ext_php_rs::types::ZendHashTable>> {
    php::server::view(connection, slowlog)
}

#[cfg(not(any(test, fuzzing)))]
#[php_module]
#[php(startup = startup)]
pub fn get_module(module: ModuleBuilder) -> ModuleBuilder {
    module
        .name("rediskit")
        .version(php::VERSION)
        .class::<php::cache::RedisCache>()
        .class::<php::leaderboard::RedisLeaderboard>()
        .class::<php::lock::RedisLock>()
        .class::<php::queue::DelayQueue>()
        .class::<php::ratelimit::RateLimiter>()
        .class::<php::metrics::Metrics>()
        .function(wrap_function!(stats))
        .function(wrap_function!(metrics))
        .function(wrap_function!(registry))
        .function(wrap_function!(server_info))
        .request_startup_function(php::request_startup)
        .request_shutdown_function(php::request_shutdown)
        .shutdown_function(php::module_shutdown)
        .info_function(php::info)
}
