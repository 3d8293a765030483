//! PHP bindings: argument conversion, exceptions, ini, phpinfo and request
//! hooks. No Redis logic lives here.
pub mod args;
pub mod cache;
pub mod exceptions;
pub mod keys;
pub mod leaderboard;
pub mod lock;
pub mod metrics;
pub mod queue;
pub mod ratelimit;
pub mod registry;
pub mod server;
pub mod zend;

use crate::conn::{self, Error, Timeouts};
use crate::options::{Connection, OptValue, Options, Settings};
use exceptions::{ConnectionException, RedisKitException};
use ext_php_rs::boxed::ZBox;
use ext_php_rs::convert::FromZval;
use ext_php_rs::exception::{PhpException, PhpResult};
use ext_php_rs::flags::{DataType, IniEntryPermission};
use ext_php_rs::types::{ZendHashTable, Zval};
use ext_php_rs::zend::{ce, ClassEntry, ExecutorGlobals, IniEntryDef, IniEntryDefs, ModuleEntry};
use std::time::Duration;

pub const VERSION: &str = env!("CARGO_PKG_VERSION");

static INI: IniEntryDefs<8> = IniEntryDefs::new([
    IniEntryDef::new(
        c"rediskit.default_dsn",
        c"redis://127.0.0.1:6379",
        IniEntryPermission::All,
    ),
    IniEntryDef::new(c"rediskit.prefix", c"", IniEntryPermission::All),
    IniEntryDef::new(c"rediskit.connect_timeout", c"1.0", IniEntryPermission::All),
    IniEntryDef::new(c"rediskit.read_timeout", c"2.0", IniEntryPermission::All),
    // read once, at module start-up (php.ini or -d only)
    IniEntryDef::new(c"rediskit.metrics_size", c"4M", IniEntryPermission::System),
    IniEntryDef::new(
        c"rediskit.metrics_max_names",
        c"1000",
        IniEntryPermission::System,
    ),
    IniEntryDef::new(c"rediskit.metrics_buckets", c"", IniEntryPermission::System),
    IniEntryDef::end(),
]);

pub fn startup(ty: i32, module_number: i32) -> i32 {
    let started = std::panic::catch_unwind(|| {
        IniEntryDef::register(INI.as_slice(), module_number);
        conn::set_interrupt_check(vm_interrupted);
        keys::init();
        start_metrics();
        // the exception classes first: ext-php-rs registers the others
        // after this hook returns
        exceptions::register_all().is_ok() && {
            args::module_started(ty);
            true
        }
    });
    match started {
        Ok(true) => 0,
        _ => -1, // FAILURE: PHP refuses to load the module
    }
}

/// Maps the host's shared metrics segment (before any worker is forked),
/// as the ini settings say; a bad setting leaves metrics off with a warning
/// in the log, never a PHP that does not start.
fn start_metrics() {
    let size = ini_value("rediskit.metrics_size").unwrap_or_default();
    let names = ini_value("rediskit.metrics_max_names").unwrap_or_default();
    let bounds = ini_value("rediskit.metrics_buckets").unwrap_or_default();
    let parsed = (
        crate::metrics::parse_size(&size),
        names
            .trim()
            .parse::<u32>()
            .ok()
            .filter(|n| (1..=1_000_000).contains(n)),
        crate::metrics::parse_bounds(&bounds),
    );
    let r = match parsed {
        (Some(size), Some(names), Some(bounds)) => {
            crate::metrics::init(size, names, &bounds).map_err(|e| e.0)
        }
        (None, _, _) => Err(format!(
            "rediskit.metrics_size: not a size ('{size}'; e.g. 4M, 0 for off)"
        )),
        (_, None, _) => Err(format!(
            "rediskit.metrics_max_names: not a number from 1 to 1000000 ('{names}')"
        )),
        (_, _, None) => Err(format!(
            "rediskit.metrics_buckets: not an ascending list of seconds ('{bounds}')"
        )),
    };
    if let Err(e) = r {
        log_startup_warning(&format!("rediskit: metrics are off: {e}"));
    }
}

/// A warning at module start-up, where no script runs yet: PHP reports it
/// as it reports its own start-up warnings (the log, and stderr where
/// display_startup_errors is on).
fn log_startup_warning(msg: &str) {
    if let Ok(c) = std::ffi::CString::new(msg.replace('\0', "")) {
        // SAFETY: php_error_docref with a "%s" format and one NUL-terminated
        // string argument; PHP copies it.
        unsafe {
            ext_php_rs::ffi::php_error_docref(
                std::ptr::null(),
                ext_php_rs::ffi::E_WARNING as i32,
                c"%s".as_ptr(),
                c.as_ptr(),
            );
        }
    }
}

/// The classes whose methods go through the argument gate.
pub fn classes() -> [&'static ClassEntry; 5] {
    use ext_php_rs::class::RegisteredClass;
    [
        cache::RedisCache::get_metadata().ce(),
        leaderboard::RedisLeaderboard::get_metadata().ce(),
        lock::RedisLock::get_metadata().ce(),
        queue::DelayQueue::get_metadata().ce(),
        ratelimit::RateLimiter::get_metadata().ce(),
    ]
}

/// EG(vm_interrupt): set by PHP when a pcntl signal handler (async signals)
/// or a timeout is waiting to run.
fn vm_interrupted() -> bool {
    // SAFETY: a plain read of an atomic flag of the executor globals, made on
    // the PHP thread that was interrupted.
    unsafe { std::ptr::read_volatile(&ExecutorGlobals::get().vm_interrupt.value) }
}

/// Runs the PHP signal handlers waiting for this thread (pcntl_async_signals)
/// before a method throws: PHP calls no handler while an exception is
/// pending, so a signal that ended a blocking wait would otherwise be lost.
/// A handler's own exception is returned, to propagate instead of ours.
pub fn dispatch_pending_signals() -> PhpResult<()> {
    if !vm_interrupted() {
        return Ok(());
    }
    // without ext-pcntl there is nothing to call (and no handler to lose)
    let Ok(dispatch) = ext_php_rs::types::ZendCallable::try_from_name("pcntl_signal_dispatch")
    else {
        return Ok(());
    };
    match dispatch.try_call(vec![]) {
        Err(e @ ext_php_rs::error::Error::ExceptionPending { .. }) => Err(PhpException::from(e)),
        _ => Ok(()),
    }
}

/// # Safety
/// Called by PHP at the start of every request.
pub unsafe extern "C" fn request_startup(_ty: i32, _module: i32) -> i32 {
    let _ = std::panic::catch_unwind(|| {
        args::request_started();
        conn::stats::request_started();
        forget_ini_entries();
    });
    0
}

/// # Safety
/// Called by PHP at the end of every request.
pub unsafe extern "C" fn request_shutdown(_ty: i32, _module: i32) -> i32 {
    let _ = std::panic::catch_unwind(|| {
        // No lock outlives its request (fatal error and exit() included).
        crate::lock::release_request_locks();
    });
    0
}

/// # Safety
/// Called by PHP once, before the extension is unloaded.
pub unsafe extern "C" fn module_shutdown(_ty: i32, _module: i32) -> i32 {
    let _ = std::panic::catch_unwind(|| {
        // The lock watchdog thread runs code of this library: stop it first.
        crate::lock::shutdown_watchdog();
        args::module_stopping();
        crate::metrics::shutdown();
    });
    0
}

/// # Safety
/// Called by PHP for phpinfo().
pub unsafe extern "C" fn info(_module: *mut ModuleEntry) {
    let _ = std::panic::catch_unwind(|| {
        let s = settings();
        ext_php_rs::info_table_start!();
        ext_php_rs::info_table_row!("rediskit support", "enabled");
        ext_php_rs::info_table_row!("version", VERSION);
        ext_php_rs::info_table_row!("redis crate", "1.x (sync API)");
        ext_php_rs::info_table_row!("rediskit.default_dsn", safe_dsn(&s.default_dsn));
        ext_php_rs::info_table_row!("rediskit.prefix", s.prefix.replace('\0', ""));
        ext_php_rs::info_table_row!(
            "rediskit.connect_timeout",
            format!("{:.3}", s.timeouts.connect.as_secs_f64())
        );
        ext_php_rs::info_table_row!(
            "rediskit.read_timeout",
            format!("{:.3}", s.timeouts.read.as_secs_f64())
        );
        ext_php_rs::info_table_row!(
            "live connections",
            conn::stats::live_connections().to_string()
        );
        let metrics = match crate::metrics::snapshot() {
            Some(m) => format!(
                "on: {} series of {} in {} KiB shared by this server's workers",
                m.series.len(),
                m.capacity,
                m.bytes / 1024
            ),
            None => "off".to_string(),
        };
        ext_php_rs::info_table_row!("metrics", metrics);
        ext_php_rs::info_table_end!();
    });
}

/// A DSN for display: parsed and redacted, or redacted as raw text.
fn safe_dsn(raw: &str) -> String {
    match conn::Dsn::parse(raw, Timeouts::default()) {
        Ok(d) => d.redacted(),
        Err(_) => conn::redact_raw(raw),
    }
    .replace('\0', "")
}

type IniEntry = *const ext_php_rs::ffi::zend_ini_entry;

thread_local! {
    /// The ini entries of `INI_NAMES`, looked up once per request (entries
    /// stay put for a request; `ini_set()` changes their value only).
    static INI_ENTRIES: std::cell::Cell<Option<[IniEntry; 4]>> = const { std::cell::Cell::new(None) };
}

fn ini_entry(name: &str) -> IniEntry {
    let eg = ExecutorGlobals::get();
    // SAFETY: EG(ini_directives) lives for the whole request once set.
    let Some(table) = (unsafe { eg.ini_directives.as_ref() }) else {
        return std::ptr::null();
    };
    table
        .get(name)
        // SAFETY: ini directive entries are zend_ini_entry pointers owned by the table.
        .and_then(|zv| unsafe { zv.ptr::<ext_php_rs::ffi::zend_ini_entry>() })
        .map_or(std::ptr::null(), |p| p.cast_const())
}

/// The current value of one ini directive, as PHP holds it (no copy).
fn ini_bytes(name: &str) -> Option<&'static [u8]> {
    let entry = match INI_NAMES.iter().position(|n| *n == name) {
        Some(i) => INI_ENTRIES.with(|c| {
            let e = c.get().unwrap_or_else(|| INI_NAMES.map(ini_entry));
            c.set(Some(e));
            e[i]
        }),
        None => ini_entry(name),
    };
    // SAFETY: a zend_ini_entry of EG(ini_directives) (or null); its value is
    // only read before the next ini_set().
    unsafe {
        let entry = entry.as_ref()?;
        let value = entry.value.as_ref()?;
        Some(std::slice::from_raw_parts(
            value.val.as_ptr().cast(),
            value.len,
        ))
    }
}

/// RINIT: the ini entries are looked up again in each request.
fn forget_ini_entries() {
    INI_ENTRIES.with(|c| c.set(None));
}

fn ini_value(name: &str) -> Option<String> {
    ini_bytes(name).map(|b| String::from_utf8_lossy(b).into_owned())
}

fn ini_secs(name: &str, default: f64) -> Duration {
    let v = ini_value(name)
        .and_then(|s| s.trim().parse::<f64>().ok())
        .unwrap_or(default);
    if v.is_finite() && v > 0.0 && v < 1e9 {
        Duration::from_secs_f64(v)
    } else {
        Duration::from_secs_f64(default)
    }
}

const INI_NAMES: [&str; 4] = [
    "rediskit.default_dsn",
    "rediskit.prefix",
    "rediskit.connect_timeout",
    "rediskit.read_timeout",
];

/// The raw ini values settings were built from, and the settings.
type Built = (Vec<Option<Vec<u8>>>, std::rc::Rc<Settings>);

thread_local! {
    /// The settings last built.
    static SETTINGS: std::cell::RefCell<Option<Built>> = const { std::cell::RefCell::new(None) };
}

/// The ini settings as they are now (ini_set() included): built again only
/// when one of the values changed, so constructing objects request after
/// request reads four ini values and allocates nothing.
pub fn settings() -> std::rc::Rc<Settings> {
    let now: [Option<&[u8]>; 4] = INI_NAMES.map(ini_bytes);
    let cached = SETTINGS.with(|c| {
        c.borrow().as_ref().and_then(|(raw, s)| {
            raw.iter()
                .map(|v| v.as_deref())
                .eq(now.iter().copied())
                .then(|| s.clone())
        })
    });
    if let Some(s) = cached {
        return s;
    }
    let s = std::rc::Rc::new(Settings {
        default_dsn: ini_value("rediskit.default_dsn")
            .unwrap_or_else(|| "redis://127.0.0.1:6379".into()),
        prefix: ini_value("rediskit.prefix").unwrap_or_default(),
        timeouts: Timeouts {
            connect: ini_secs("rediskit.connect_timeout", 1.0),
            read: ini_secs("rediskit.read_timeout", 2.0),
        },
    });
    let raw = now.iter().map(|v| v.map(<[u8]>::to_vec)).collect();
    SETTINGS.with(|c| *c.borrow_mut() = Some((raw, s.clone())));
    s
}

/// Maps a core error to the PHP exception users catch.
pub fn throw(e: Error) -> PhpException {
    match e {
        Error::Invalid(m) => value_error(m),
        Error::Connection(m) => PhpException::from_class::<ConnectionException>(no_nul(m)),
        Error::Redis(m) => PhpException::from_class::<RedisKitException>(no_nul(m)),
        Error::Replication {
            message,
            ids,
            replicas,
        } => exceptions::replication(no_nul(message), ids, replicas),
    }
}

pub fn value_error(msg: impl Into<String>) -> PhpException {
    PhpException::new(no_nul(msg.into()), 0, ce::value_error())
}

pub fn type_error(msg: impl Into<String>) -> PhpException {
    PhpException::new(no_nul(msg.into()), 0, ce::type_error())
}

/// Longest message thrown; a longer one is cut (and says how long it was).
const MESSAGE_MAX: usize = 2048;

/// The last resort before a message is thrown. PHP cannot throw an exception
/// whose message holds a NUL byte (ext-php-rs throws a generic \Error
/// instead): whatever slipped through unescaped is escaped here; and no
/// message carries a megabyte of echoed input. Echo sites escape and cap
/// their values with `conn::shown` / `conn::shown_float` first.
fn no_nul(m: String) -> String {
    let m = if m.contains('\0') {
        m.replace('\0', "\\0")
    } else {
        m
    };
    if m.len() <= MESSAGE_MAX {
        return m;
    }
    let mut cut = MESSAGE_MAX;
    while !m.is_char_boundary(cut) {
        cut -= 1;
    }
    format!("{}... (message of {} bytes cut)", &m[..cut], m.len())
}

/// A PHP list built from `items`, one PHP value each.
pub fn php_list<T>(
    items: Vec<T>,
    mut f: impl FnMut(T) -> PhpResult<ZBox<ZendHashTable>>,
) -> PhpResult<ZBox<ZendHashTable>> {
    let mut out = ZendHashTable::with_capacity(items.len() as u32);
    for i in items {
        out.push(f(i)?)?;
    }
    Ok(out)
}

/// A value Redis reported as text (an INFO field, a recorded setting): an
/// int or a float when it reads as one, else the string.
pub fn number_or_text(v: &str) -> Zval {
    let mut z = Zval::new();
    if let Ok(i) = v.parse::<i64>() {
        z.set_long(i);
    } else if let Some(f) = v.parse::<f64>().ok().filter(|f| f.is_finite()) {
        z.set_double(f);
    } else {
        z.set_binary(v.as_bytes().to_vec());
    }
    z
}

/// A PHP string holding `bytes` as they are (binary-safe).
pub fn binary(bytes: Vec<u8>) -> Zval {
    let mut z = Zval::new();
    z.set_binary(bytes);
    z
}

/// PHP's name for the type of a value, as in PHP's own TypeError messages.
pub fn type_name(z: &Zval) -> &'static str {
    let z = z.dereference();
    if z.is_null() {
        "null"
    } else if z.is_bool() {
        "bool"
    } else if z.is_long() {
        "int"
    } else if z.is_double() {
        "float"
    } else if z.is_string() {
        "string"
    } else if z.is_array() {
        "array"
    } else if z.is_object() {
        "object"
    } else {
        "resource"
    }
}

/// A binary-safe `string` argument (the argument gate has applied PHP's
/// rules: coercive mode turns an int, a float, a bool or a Stringable into
/// a string, strict mode takes strings only).
pub struct Bytes(pub Vec<u8>);

impl FromZval<'_> for Bytes {
    const TYPE: DataType = DataType::String;

    fn from_zval(zval: &Zval) -> Option<Self> {
        bytes_of(zval).map(Bytes)
    }
}

/// A string, or an int as its decimal text (array elements: member names,
/// payloads, which may be user ids).
pub fn bytes_of(zval: &Zval) -> Option<Vec<u8>> {
    if let Some(s) = zval.zend_str() {
        Some(s.as_bytes().to_vec())
    } else {
        zval.long().map(|l| l.to_string().into_bytes())
    }
}

/// A PHP array key, binary-safe (ext-php-rs's own iterator panics on keys
/// that are not UTF-8).
pub enum Key {
    Int(i64),
    Bytes(Vec<u8>),
}

impl Key {
    /// How a message names the element: `3` or `'name'` (escaped, capped).
    pub fn label(&self) -> String {
        match self {
            Key::Int(i) => i.to_string(),
            Key::Bytes(b) => format!("'{}'", crate::conn::shown(b)),
        }
    }

    pub fn into_bytes(self) -> Vec<u8> {
        match self {
            Key::Int(i) => i.to_string().into_bytes(),
            Key::Bytes(b) => b,
        }
    }
}

/// The entries of a PHP array in order.
pub fn array_entries(arr: &ZendHashTable) -> Vec<(Key, &Zval)> {
    let mut out = Vec::with_capacity(arr.len());
    let mut it = arr.iter();
    while let Some((k, v)) = it.next_zval() {
        let key = match k.long() {
            Some(i) => Key::Int(i),
            None => Key::Bytes(
                k.zend_str()
                    .map(|s| s.as_bytes().to_vec())
                    .unwrap_or_default(),
            ),
        };
        out.push((key, v));
    }
    out
}

/// The `string|array|null $connection` argument.
pub fn connection_arg(zval: Option<&Zval>) -> Result<Connection, PhpException> {
    let Some(z) = zval else {
        return Ok(Connection::Default);
    };
    if z.is_null() {
        return Ok(Connection::Default);
    }
    if let Some(s) = z.zend_str() {
        return match std::str::from_utf8(s.as_bytes()) {
            Ok(s) => Ok(Connection::Dsn(s.to_string())),
            Err(_) => Err(value_error("the connection DSN must be valid UTF-8")),
        };
    }
    let Some(arr) = z.array() else {
        return Err(PhpException::new(
            format!(
                "the connection must be a DSN string, an array or null, {} given",
                type_name(z)
            ),
            0,
            ce::type_error(),
        ));
    };
    if arr.get("cluster").is_some() || arr.get("sentinel").is_some() {
        let mut entries = Vec::new();
        for (key, v) in array_entries(arr) {
            match key {
                Key::Bytes(k) => {
                    entries.push((String::from_utf8_lossy(&k).into_owned(), opt_value(v)))
                }
                Key::Int(i) => {
                    return Err(value_error(format!(
                        "a cluster/sentinel connection array takes string keys, got the int key {i}"
                    )))
                }
            }
        }
        return Connection::multi(Options::new(entries)).map_err(throw);
    }
    let mut list = Vec::new();
    for (key, v) in array_entries(arr) {
        if let Key::Bytes(k) = key {
            return Err(value_error(format!(
                "unknown connection array key '{}': use a list of DSNs, ['cluster' => [...]] or ['sentinel' => [...], 'service' => '...']",
                conn::shown(&k)
            )));
        }
        match v.str() {
            Some(s) => list.push(s.to_string()),
            None => return Err(value_error("a connection list must hold DSN strings only")),
        }
    }
    if list.is_empty() {
        return Err(value_error("the connection list is empty"));
    }
    Ok(Connection::List(list))
}

/// An option value; a list or a keyed array holds scalars only (no option
/// takes deeper arrays): an array inside one is `Other("array")`, so a
/// self-referencing or deeply nested array cannot recurse without end.
fn opt_value(z: &Zval) -> OptValue {
    opt_value_at(z, 0)
}

fn opt_value_at(z: &Zval, depth: u32) -> OptValue {
    let z = z.dereference();
    if z.is_null() {
        OptValue::Null
    } else if z.is_bool() {
        OptValue::Bool(z.is_true())
    } else if let Some(l) = z.long() {
        OptValue::Int(l)
    } else if let Some(d) = z.double() {
        OptValue::Float(d)
    } else if let Some(s) = z.zend_str() {
        OptValue::Str(s.as_bytes().to_vec())
    } else if let (Some(a), 0) = (z.array(), depth) {
        let entries = array_entries(a);
        if entries.iter().any(|(k, _)| matches!(k, Key::Bytes(_))) {
            // keyed: options of their own (`'local' => ['max_bytes' => ...]`)
            OptValue::Map(
                entries
                    .into_iter()
                    .map(|(k, v)| {
                        let k = match k {
                            Key::Int(i) => i.to_string(),
                            Key::Bytes(b) => String::from_utf8_lossy(&b).into_owned(),
                        };
                        (k, opt_value_at(v, depth + 1))
                    })
                    .collect(),
            )
        } else {
            OptValue::List(
                entries
                    .into_iter()
                    .map(|(_, v)| opt_value_at(v, depth + 1))
                    .collect(),
            )
        }
    } else {
        OptValue::Other(type_name(z))
    }
}

/// The local tier's notice, if it just turned itself off: raised as PHP's
/// `E_USER_NOTICE` at the caller's line (an error handler that throws makes
/// the call throw).
pub fn local_notice() -> Result<(), PhpException> {
    if let Some(text) = crate::local::take_notice() {
        let mut msg = Zval::new();
        msg.set_string(&text, false)?;
        let mut level = Zval::new();
        level.set_long(1024); // E_USER_NOTICE
        let f = ext_php_rs::types::ZendCallable::try_from_name("trigger_error")?;
        f.try_call(vec![&msg, &level])?;
    }
    Ok(())
}

/// The `array $options` argument.
pub fn options_arg(arr: Option<&ZendHashTable>) -> Result<Options, PhpException> {
    let mut entries = Vec::new();
    if let Some(arr) = arr {
        for (key, v) in array_entries(arr) {
            match key {
                Key::Int(i) => {
                    return Err(value_error(format!(
                        "option keys must be strings, got the int key {i}"
                    )))
                }
                Key::Bytes(k) => {
                    entries.push((String::from_utf8_lossy(&k).into_owned(), opt_value(v)))
                }
            }
        }
    }
    Ok(Options::new(entries))
}
