//! The one error type of the pure-Rust core. Bindings map each variant to a
//! PHP exception class; nothing here knows about PHP.
use std::fmt;

#[derive(Debug, Clone, PartialEq)]
pub enum Error {
    /// Bad input from the caller (PHP: `\ValueError`). Nothing was sent to Redis.
    Invalid(String),
    /// Cannot connect, connection lost, or timed out (PHP: `RedisKit\ConnectionException`).
    Connection(String),
    /// Redis answered with an error, or with a reply we did not expect (PHP: `RedisKit\Exception`).
    Redis(String),
}

pub type Result<T> = std::result::Result<T, Error>;

impl Error {
    pub fn invalid(msg: impl Into<String>) -> Self {
        Error::Invalid(msg.into())
    }

    pub fn unexpected(what: &str, got: &redis::Value) -> Self {
        Error::Redis(format!("unexpected reply from Redis for {what}: {got:?}"))
    }

    pub fn message(&self) -> &str {
        match self {
            Error::Invalid(m) | Error::Connection(m) | Error::Redis(m) => m,
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.message())
    }
}

impl std::error::Error for Error {}
