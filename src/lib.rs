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
pub mod scripts;

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
/// SENTINEL lookups, not in commands), the per-primitive counters lock_acquired, lock_contended,
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
/// capacity, max_names, other: names counted in `_other` because the
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
        .request_startup_function(php::request_startup)
        .request_shutdown_function(php::request_shutdown)
        .shutdown_function(php::module_shutdown)
        .info_function(php::info)
}
