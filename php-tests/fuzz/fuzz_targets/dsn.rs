//! DSN parsing (`rediskit::conn::Dsn::parse`) and the redaction of DSNs in
//! messages (`Dsn::redacted`, `redact_raw`, what phpinfo() shows).
//!
//! First byte even: the rest is a DSN as it is (any text). Odd: the rest
//! drives `common::dsn`, which writes a DSN whose password holds a marker.
//!
//! Invariants: no panic (arithmetic overflow included: fuzz builds check
//! it), a rejected DSN is a `ValueError` (Error::Invalid), the redacted form
//! does not depend on the password, and no output shows a marked password.
#![no_main]
mod common;

use common::{assert_no_leak, Cursor};
use libfuzzer_sys::fuzz_target;
use rediskit::conn::{redact_raw, Dsn, Error, Timeouts};

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    if mode & 1 == 0 {
        if let Ok(s) = std::str::from_utf8(rest) {
            check(s, false);
        }
    } else {
        let s = common::dsn(&mut Cursor::new(rest));
        check(&s, true);
    }
});

fn check(input: &str, marked: bool) {
    match Dsn::parse(input, Timeouts::default()) {
        Ok(d) => {
            let shown = d.redacted();
            let debug = format!("{d:?}");
            assert_eq!(shown, debug, "Debug of a Dsn is its redacted form");
            // The redacted form depends on whether there is a password,
            // never on what it is.
            if d.password.is_some() {
                let mut other = d.clone();
                other.password = Some("other password".into());
                assert_eq!(
                    shown,
                    other.redacted(),
                    "redacted() depends on the password of {input:?}"
                );
            }
            // Parsing is deterministic, and so is the pool key.
            let again = Dsn::parse(input, Timeouts::default()).expect("parsed once");
            assert_eq!(again.pool_key(), d.pool_key());
            if marked {
                assert_no_leak("Dsn::redacted()", input, &shown);
            }
        }
        Err(e) => {
            assert!(
                matches!(e, Error::Invalid(_)),
                "a bad DSN is Error::Invalid (ValueError), got {e:?} for {input:?}"
            );
            if marked {
                assert_no_leak("the error message of Dsn::parse()", input, e.message());
                // phpinfo() shows an ini default_dsn it cannot parse this way
                assert_no_leak("redact_raw() of an invalid DSN", input, &redact_raw(input));
            }
        }
    }
}
