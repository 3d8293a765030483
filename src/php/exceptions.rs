//! `RedisKit\Exception` (a `\RuntimeException`) and its subclasses.
use ext_php_rs::prelude::*;
use ext_php_rs::zend::{ce, ClassEntry};
use std::sync::Once;

/// `\RuntimeException`, looked up at run time: linking `spl_ce_RuntimeException`
/// directly would break stub generation.
fn runtime_exception() -> &'static ClassEntry {
    // SAFETY: dlsym on the running PHP binary; the symbol is a class entry
    // pointer that SPL sets in its MINIT, which runs before ours.
    unsafe {
        let sym = libc::dlsym(libc::RTLD_DEFAULT, c"spl_ce_RuntimeException".as_ptr());
        if !sym.is_null() {
            let ce_ptr = *(sym as *const *mut ClassEntry);
            if let Some(ce) = ce_ptr.as_ref() {
                return ce;
            }
        }
    }
    ce::exception()
}

/// Base class of every rediskit failure on the Redis side; the message carries
/// Redis's own error text (e.g. `WRONGTYPE Operation against a key holding
/// the wrong kind of value`).
#[php_class]
#[php(name = "RedisKit\\Exception")]
#[php(extends(ce = runtime_exception, stub = "\\RuntimeException"))]
#[derive(Default)]
pub struct RedisKitException;

/// Redis could not be reached, the connection was lost, or a reply did not
/// arrive within the read timeout. The message never contains a password.
#[php_class]
#[php(name = "RedisKit\\ConnectionException")]
#[php(extends(RedisKitException))]
#[derive(Default)]
pub struct ConnectionException;

/// A lock could not be acquired within the time allowed.
#[php_class]
#[php(name = "RedisKit\\LockTimeoutException")]
#[php(extends(RedisKitException))]
#[derive(Default)]
pub struct LockTimeoutException;

/// A lock held by `RedisLock::run()` was lost while the callback ran (its TTL
/// ran out or another owner took it): other code may have held it meanwhile.
#[php_class]
#[php(name = "RedisKit\\LockLostException")]
#[php(extends(RedisKitException))]
#[derive(Default)]
pub struct LockLostException;

fn all() -> [&'static ClassEntry; 4] {
    use ext_php_rs::class::RegisteredClass;
    [
        RedisKitException::get_metadata().ce(),
        ConnectionException::get_metadata().ce(),
        LockTimeoutException::get_metadata().ce(),
        LockLostException::get_metadata().ce(),
    ]
}

/// ext-php-rs gives `#[php_class]` types its own object constructor, which
/// skips the one `\Exception` uses to record file, line and trace. Our
/// exceptions hold no Rust state, so hand them `\RuntimeException`'s own:
/// thrown exceptions then point at the PHP caller.
pub fn restore_exception_constructors() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        // SAFETY: create_object is the active field of this union for classes.
        let parent = unsafe { runtime_exception().__bindgen_anon_2.create_object };
        for ce in all() {
            let ce = ce as *const ClassEntry as *mut ClassEntry;
            // SAFETY: class entries live for the whole process; this runs once,
            // at the first request, before any of these objects exists.
            unsafe { (*ce).__bindgen_anon_2.create_object = parent };
        }
    });
}
