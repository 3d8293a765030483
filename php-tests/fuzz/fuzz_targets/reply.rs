//! Reply decoding: the bytes a Redis server (or anything listening where a
//! DSN points) sends back, decoded as `Wire::recv` decodes them
//! (`conn::decode_replies`: the same `redis::Parser`), then taken apart by
//! the helpers every primitive uses (`check`: error replies to exceptions;
//! `int`, `float`, `bytes`: a reply of the expected kind).
//!
//! Invariants: no panic, no abort, memory bounded by the input (libFuzzer's
//! -malloc_limit_mb / -rss_limit_mb catch a reply header that makes the
//! decoder allocate what the bytes do not hold), and a decoded error reply
//! becomes `RedisKit\Exception` or (NOAUTH, WRONGPASS) `ConnectionException`,
//! never a ValueError.
#![no_main]

use libfuzzer_sys::fuzz_target;
use rediskit::conn::{self, Error, Value};

fuzz_target!(|data: &[u8]| {
    let (replies, _end) = conn::decode_replies(data, 64);
    for v in replies {
        let is_error = matches!(v, Value::ServerError(_));
        match conn::check(v.clone()) {
            Ok(_) => assert!(!is_error, "check() let an error reply through"),
            Err(e) => {
                assert!(is_error, "check() refused a reply that is no error: {v:?}");
                assert!(
                    matches!(e, Error::Redis(_) | Error::Connection(_)),
                    "an error reply must not become a ValueError: {e:?}"
                );
            }
        }
        let _ = conn::int(v.clone(), "fuzz");
        let _ = conn::float(v.clone(), "fuzz");
        let _ = conn::bytes(v, "fuzz");
    }
});
