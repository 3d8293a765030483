//! PHP's own parameter rules for every method: the argument gate.
//!
//! ext-php-rs converts each argument with `FromZval` before a method body
//! runs and throws its own generic TypeError ("Invalid value given for
//! argument `limit`.") when that fails. It rejects an explicit null on a
//! defaulted parameter before any conversion runs, cannot coerce in place,
//! and never sees the caller's `strict_types`. So once the classes are
//! registered, each method's handler is wrapped by `gate`, which does what
//! `ZEND_PARSE_PARAMETERS_*` does for PHP's own functions, driven by the
//! declared (arginfo) type of each parameter and done by PHP's own functions:
//!
//! - `int`, `float`, `string`, `bool` and their `?T` forms: coercive mode
//!   coerces as PHP does (numeric strings, fractional floats with their
//!   deprecation, null with its deprecation, Stringable objects), strict mode
//!   (the caller's file, `ZEND_ARG_USES_STRICT_TYPES`) only takes the type
//!   itself (and int for float). The value is rewritten in the call frame, as
//!   PHP's own string parameters are, so ext-php-rs then finds the exact type.
//! - `array`, `callable`: PHP's TypeError and callback error texts.
//! - the variadic tail: every extra argument against the variadic type; named
//!   arguments collected for it: `ArgumentCountError` "does not accept unknown
//!   named parameters", as PHP's own variadic functions (`sprintf`, `max`) do.
//! - `$connection` (declared `mixed` by ext-php-rs) is declared
//!   `array|string|null` and checked as such, and marked
//!   `#[\SensitiveParameter]`; `RateLimiter::attemptAll`'s `mixed $key` is
//!   declared `array|string`.
//!
//! A wrong argument count is left to the handler, which reports it with
//! PHP's own `zend_wrong_parameters_count_error`.
use super::zend::{self, Api};
use ext_php_rs::ffi::{
    zend_execute_data, zend_function, zend_internal_arg_info, zend_is_callable_ex, zval,
    ZEND_ACC_VARIADIC, ZEND_INTERNAL_FUNCTION,
};
use ext_php_rs::types::{ZendStr, Zval};
use ext_php_rs::zend::{ClassEntry, ExecuteData, ExecutorGlobals};
use parking_lot::{Mutex, RwLock};
use std::ffi::{c_char, c_int, CStr, CString};
use std::sync::atomic::{AtomicU64, Ordering};

type Handler = unsafe extern "C" fn(*mut zend_execute_data, *mut zval);

// zend_type_info.h / zend_types.h, the same in 8.2 to 8.5
const MAY_BE_NULL: u32 = 1 << 1;
const MAY_BE_BOOL: u32 = (1 << 2) | (1 << 3);
const MAY_BE_LONG: u32 = 1 << 4;
const MAY_BE_DOUBLE: u32 = 1 << 5;
const MAY_BE_STRING: u32 = 1 << 6;
const MAY_BE_ARRAY: u32 = 1 << 7;
const MAY_BE_CALLABLE: u32 = 1 << 12;
/// null, bool, int, float, string, array, object, resource: `mixed`.
const MAY_BE_ANY: u32 = 0x3fe;
const NULLABLE_BIT: u32 = MAY_BE_NULL;
const LIST_BIT: u32 = 1 << 22;
const NAME_BIT: u32 = 1 << 24;
/// `_ZEND_TYPE_MAY_BE_MASK` (8.2 to 8.5).
const MAY_BE_MASK: u32 = (1 << 18) - 1;
/// `_ZEND_TYPE_LITERAL_NAME_BIT` (8.3+; unused before).
const LITERAL_NAME_BIT: u32 = 1 << 23;
/// `ZEND_CALL_HAS_EXTRA_NAMED_PARAMS` (8.0 to 8.5).
const CALL_HAS_EXTRA_NAMED_PARAMS: u32 = 1 << 27;
const MODULE_PERSISTENT: i32 = 1;

/// The parameters that carry a DSN or connection array (and so a password).
const CONNECTION_PARAMS: &[&str] = &["connection"];

/// The handler each wrapped method had, keyed by its `arg_info` pointer: it
/// identifies the method and is shared by the copies PHP makes of it
/// (`Closure::fromCallable`, first-class callable syntax).
static ORIGINALS: RwLock<Vec<(usize, Handler)>> = RwLock::new(Vec::new());
/// Bumped by every MINIT; the install runs once per generation (a SAPI may
/// start the module again in the same process, with new classes).
static GENERATION: AtomicU64 = AtomicU64::new(0);
static INSTALLED: Mutex<u64> = Mutex::new(0);
static PREVIOUS_POST_STARTUP: Mutex<zend::PostStartup> = Mutex::new(None);

/// MINIT: installs the gate once every module has started (the classes are
/// registered after our startup hook returns), through `zend_post_startup_cb`
/// as opcache does. A module loaded by `dl()` (`ty` temporary) is past that
/// point: `request_started` installs it instead.
pub fn module_started(ty: i32) {
    GENERATION.fetch_add(1, Ordering::SeqCst);
    if ty != MODULE_PERSISTENT {
        return;
    }
    if let Some(cb) = zend::post_startup_cb() {
        // SAFETY: MINIT runs on the main thread before any request; the hook
        // is a plain function pointer variable of the engine.
        unsafe {
            *PREVIOUS_POST_STARTUP.lock() = *cb;
            *cb = Some(post_startup);
        }
    }
}

unsafe extern "C" fn post_startup() -> c_int {
    let _ = std::panic::catch_unwind(install_once);
    let previous = PREVIOUS_POST_STARTUP.lock().take();
    match previous {
        // SAFETY: the hook that was installed before ours, called as the engine would.
        Some(f) => unsafe { f() },
        None => 0,
    }
}

/// RINIT: a no-op once installed (the usual case: at startup).
pub fn request_started() {
    install_once();
}

/// MSHUTDOWN: if the engine never called our startup hook, put the previous
/// one back so that nothing points into an unloaded library.
pub fn module_stopping() {
    if let Some(cb) = zend::post_startup_cb() {
        // SAFETY: see module_started.
        unsafe {
            if (*cb).map(|f| f as *const ()) == Some(post_startup as *const ()) {
                *cb = PREVIOUS_POST_STARTUP.lock().take();
            }
        }
    }
}

fn install_once() {
    let generation = GENERATION.load(Ordering::SeqCst);
    let mut installed = INSTALLED.lock();
    if *installed == generation {
        return;
    }
    *installed = generation;
    if zend::api().is_none() {
        return; // not in PHP 8.1+: leave ext-php-rs's own checks
    }
    let mut originals = ORIGINALS.write();
    originals.clear();
    for ce in super::classes() {
        // SAFETY: a class of this module, registered by MINIT; its function
        // table holds zend_function pointers (persistent, living as long as
        // the class). Nothing runs PHP code concurrently: this is the startup
        // hook, or a request start under the INSTALLED lock.
        unsafe { wrap_methods(ce, &mut originals) };
    }
    originals.sort_by_key(|(k, _)| *k);
}

unsafe fn wrap_methods(ce: &ClassEntry, originals: &mut Vec<(usize, Handler)>) {
    let scope = ce as *const ClassEntry;
    for zv in ce.function_table.values() {
        // SAFETY: function table entries are IS_PTR zend_function pointers.
        let Some(func) = (unsafe { zv.ptr::<zend_function>() }) else {
            continue;
        };
        // SAFETY: a live zend_function of this class.
        let f = unsafe { &mut (*func).internal_function };
        if u32::from(f.type_) != ZEND_INTERNAL_FUNCTION
            || f.scope.cast_const() != scope.cast()
            || f.arg_info.is_null()
        {
            continue;
        }
        let Some(handler) = f.handler else { continue };
        if handler as *const () == gate as *const () {
            continue;
        }
        originals.push((f.arg_info as usize, handler));
        f.handler = Some(gate);
        let total = f.num_args + u32::from(f.fn_flags & ZEND_ACC_VARIADIC != 0);
        for i in 0..total {
            // SAFETY: arg_info holds num_args entries (+1 for a variadic one).
            let info = unsafe { &mut *f.arg_info.add(i as usize) };
            // SAFETY: internal arg names are NUL-terminated C strings.
            let name = unsafe { CStr::from_ptr(info.name) };
            if name.to_bytes() == b"key" {
                // RateLimiter::attemptAll's: one key or a list of them
                declare_union(info, MAY_BE_STRING | MAY_BE_ARRAY);
            }
            if name.to_bytes() == b"id" {
                // DelayQueue::requeueDead's and deleteDead's: one id, a list
                // of them, or null for all
                declare_union(info, MAY_BE_STRING | MAY_BE_ARRAY | MAY_BE_NULL);
            }
            if CONNECTION_PARAMS
                .iter()
                .any(|p| p.as_bytes() == name.to_bytes())
            {
                declare_union(info, MAY_BE_STRING | MAY_BE_ARRAY | MAY_BE_NULL);
                // SAFETY: as PHP's own zend_add_parameter_attribute (an inline
                // function) does for an internal function, at startup.
                unsafe { mark_sensitive(func, i) };
            }
        }
    }
}

/// A `mixed` parameter (what ext-php-rs declares for a `&Zval`) gets the
/// union `types`: `mixed $connection = null` becomes `array|string|null
/// $connection = null`, `mixed $key` becomes `array|string $key`. Other
/// parameters of those names (typed already) are left alone.
fn declare_union(info: &mut zend_internal_arg_info, types: u32) {
    let mask = info.type_.type_mask;
    if mask & MAY_BE_MASK & MAY_BE_ANY == MAY_BE_ANY && info.type_.ptr.is_null() {
        info.type_.type_mask = (mask & !MAY_BE_MASK) | types;
    }
}

/// `#[\SensitiveParameter]` on parameter `offset`: traces and
/// debug_backtrace() show a `SensitiveParameterValue` instead of the value.
unsafe fn mark_sensitive(func: *mut zend_function, offset: u32) {
    let Some(api) = zend::api() else { return };
    let name = ZendStr::new("SensitiveParameter", true);
    // SAFETY: zend_add_attribute copies (or duplicates) the name; the table
    // is persistent, as for PHP's own internal functions.
    unsafe {
        (api.add_attribute)(
            &mut (*func).common.attributes,
            name.as_ptr().cast_mut(),
            0,
            zend::ATTRIBUTE_PERSISTENT,
            offset + 1,
            0,
        );
    }
}

fn original(key: usize) -> Option<Handler> {
    let originals = ORIGINALS.read();
    originals
        .binary_search_by_key(&key, |(k, _)| *k)
        .ok()
        .map(|i| originals[i].1)
}

/// The wrapper of every method: PHP's parameter rules, then the ext-php-rs handler.
unsafe extern "C" fn gate(ex: *mut zend_execute_data, retval: *mut zval) {
    // SAFETY: the engine calls a handler with its own call frame.
    let Some(frame) = (unsafe { ex.as_mut() }) else {
        return;
    };
    // SAFETY: a call frame's func is the function being called.
    let key = unsafe { (*frame.func).common.arg_info } as usize;
    let Some(handler) = original(key) else {
        let _ = ext_php_rs::exception::throw(
            ext_php_rs::zend::ce::error(),
            "rediskit: this method is not registered",
        );
        return;
    };
    let ok = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        // SAFETY: frame is the live frame of an internal function of ours.
        unsafe { check_args(frame) }
    }));
    match ok {
        Ok(true) => {}
        Ok(false) => return,
        Err(_) => {
            if !ExecutorGlobals::has_exception() {
                let _ = ext_php_rs::exception::throw(
                    ext_php_rs::zend::ce::error(),
                    "rediskit: internal error while checking arguments",
                );
            }
            return;
        }
    }
    // Nothing of ours is alive here: a bailout (fatal error) inside the
    // handler skips no destructor of this frame.
    // SAFETY: the handler this function had, called as the engine would.
    unsafe { handler(ex, retval) }
}

/// false once a TypeError (or an exception thrown by a deprecation handler
/// or `__toString()`) is pending.
unsafe fn check_args(frame: &mut ExecuteData) -> bool {
    let Some(api) = zend::api() else { return true };
    // SAFETY: see gate.
    let f = unsafe { &(*frame.func).internal_function };
    // SAFETY: This.u2 is num_args for a call frame.
    let passed = unsafe { frame.This.u2.num_args };
    let variadic = f.fn_flags & ZEND_ACC_VARIADIC != 0;
    if passed < f.required_num_args || (!variadic && passed > f.num_args) {
        return true; // the handler throws PHP's ArgumentCountError
    }
    // SAFETY: u1.type_info of This holds the call info flags.
    if unsafe { frame.This.u1.type_info } & CALL_HAS_EXTRA_NAMED_PARAMS != 0 {
        // SAFETY: throws for the current (this) function.
        unsafe { (api.extra_named)() };
        return false;
    }
    for i in 0..passed {
        // SAFETY: arg_info has num_args entries, then the variadic one.
        let info = unsafe { &*f.arg_info.add(i.min(f.num_args) as usize) };
        // SAFETY: the frame holds `passed` arguments.
        let Some(arg) = (unsafe { frame.zend_call_arg(i as usize) }) else {
            continue;
        };
        // SAFETY: arg is an argument slot of the frame.
        if !unsafe { check(api, arg, info, i + 1) } {
            return false;
        }
    }
    true
}

/// One argument against its declared type, as ZPP would.
unsafe fn check(api: &Api, arg: &mut Zval, info: &zend_internal_arg_info, num: u32) -> bool {
    let mask = info.type_.type_mask;
    if !info.type_.ptr.is_null() || mask & (NAME_BIT | LITERAL_NAME_BIT | LIST_BIT) != 0 {
        return true; // a class type: not declared by any method here
    }
    if arg.is_reference() {
        // never for by-value arguments; separate rather than coerce the referent
        let value = arg.dereference().shallow_clone();
        *arg = value;
    }
    let nullable = mask & NULLABLE_BIT != 0;
    if nullable && arg.is_null() {
        return true;
    }
    let or_null = if nullable { zend::OR_NULL } else { 0 };
    let raw: *mut zval = arg;
    match mask & MAY_BE_MASK & !MAY_BE_NULL {
        MAY_BE_LONG => {
            if arg.is_long() {
                return true;
            }
            let mut v = 0;
            // SAFETY: PHP's own coercion of an argument slot, for argument `num`.
            if unsafe { (api.parse_long)(raw, &mut v, num) } {
                arg.set_long(v);
                return true;
            }
            unsafe { wrong_type(api, num, zend::EXPECTED_LONG + or_null, raw) }
        }
        MAY_BE_DOUBLE => {
            if arg.is_double() {
                return true;
            }
            let mut v = 0.0;
            // SAFETY: see above.
            if unsafe { (api.parse_double)(raw, &mut v, num) } {
                arg.set_double(v);
                return true;
            }
            unsafe { wrong_type(api, num, zend::EXPECTED_DOUBLE + or_null, raw) }
        }
        MAY_BE_STRING => {
            if arg.is_string() {
                return true;
            }
            let mut s = std::ptr::null_mut();
            // SAFETY: see above; converts the slot to a string in place.
            if unsafe { (api.parse_str)(raw, &mut s, num) } && arg.is_string() {
                return true;
            }
            unsafe { wrong_type(api, num, zend::EXPECTED_STRING + or_null, raw) }
        }
        MAY_BE_BOOL => {
            if arg.is_bool() {
                return true;
            }
            let mut v = false;
            // SAFETY: see above.
            if unsafe { (api.parse_bool)(raw, &mut v, num) } {
                arg.set_bool(v);
                return true;
            }
            unsafe { wrong_type(api, num, zend::EXPECTED_BOOL + or_null, raw) }
        }
        MAY_BE_ARRAY => {
            arg.is_array() || unsafe { wrong_type(api, num, zend::EXPECTED_ARRAY + or_null, raw) }
        }
        MAY_BE_CALLABLE => unsafe { callable(api, raw, num) },
        m if m == MAY_BE_STRING | MAY_BE_ARRAY => {
            if arg.is_string() || arg.is_array() {
                return true;
            }
            let mut s = std::ptr::null_mut();
            // SAFETY: see above (Z_PARAM_ARRAY_HT_OR_STR falls back to this).
            if unsafe { (api.parse_str)(raw, &mut s, num) } && arg.is_string() {
                return true;
            }
            if !ExecutorGlobals::has_exception() {
                // "array|string|null": its Z_EXPECTED_ value moved in 8.3
                let ty: &CStr = if nullable {
                    c"array|string|null"
                } else {
                    c"array|string"
                };
                // SAFETY: printf-style call with two C strings.
                unsafe {
                    (api.argument_type_error)(
                        num,
                        c"must be of type %s, %s given".as_ptr(),
                        ty.as_ptr(),
                        (api.value_name)(raw),
                    );
                }
            }
            false
        }
        _ => true, // mixed
    }
}

/// zend_wrong_parameter_type_error (it does nothing if an exception, e.g.
/// from a deprecation handler, is already pending). Always false.
unsafe fn wrong_type(api: &Api, num: u32, expected: c_int, arg: *mut zval) -> bool {
    // SAFETY: throws a TypeError for argument `num` of the current function.
    unsafe { (api.wrong_type)(num, expected, arg) };
    false
}

/// Z_PARAM_FUNC: zend_is_callable_ex at the caller's scope, and PHP's
/// "must be a valid callback, <reason>".
unsafe fn callable(api: &Api, arg: *mut zval, num: u32) -> bool {
    let mut error: *mut c_char = std::ptr::null_mut();
    // SAFETY: checks the zval without calling it; `error` is emalloc'ed.
    let ok = unsafe {
        zend_is_callable_ex(
            arg,
            std::ptr::null_mut(),
            0,
            std::ptr::null_mut(),
            std::ptr::null_mut(),
            &mut error,
        )
    };
    if ok {
        if !error.is_null() {
            // SAFETY: allocated by zend_is_callable_ex with emalloc.
            unsafe { ext_php_rs::alloc::efree(error.cast()) };
        }
        return true;
    }
    if error.is_null() {
        return unsafe { wrong_type(api, num, zend::EXPECTED_FUNC, arg) };
    }
    // SAFETY: a NUL-terminated string from zend_is_callable_ex; arg is live.
    let fixed = unsafe { echo_safe(&*arg, CStr::from_ptr(error).to_bytes()) };
    match fixed.and_then(|f| CString::new(f).ok()) {
        // SAFETY: takes ownership of `error` (efree) whatever happens.
        None => unsafe { (api.wrong_callback)(num, error) },
        Some(text) => unsafe {
            // SAFETY: allocated by zend_is_callable_ex with emalloc.
            ext_php_rs::alloc::efree(error.cast());
            if !ExecutorGlobals::has_exception() {
                (api.argument_type_error)(
                    num,
                    c"must be a valid callback, %s".as_ptr(),
                    text.as_ptr(),
                );
            }
        },
    }
    false
}

/// PHP's callback error quotes the name as given: cut at its first NUL byte
/// (a C string) and whole however long. When the name holds control bytes,
/// bytes that are not UTF-8 or more than 64 bytes, the quoted name is
/// replaced by its `conn::shown` form and the text capped; `None` when PHP's
/// text can be used as it is.
fn echo_safe(arg: &Zval, error: &[u8]) -> Option<String> {
    const MAX: usize = 512;
    let needs = |r: &[u8]| {
        r.len() > 64 || r.iter().any(|&b| b < 0x20 || b == 0x7f) || std::str::from_utf8(r).is_err()
    };
    let mut names: Vec<Vec<u8>> = Vec::new();
    if let Some(s) = arg.zend_str() {
        names.push(s.as_bytes().to_vec());
    } else if let Some(a) = arg.array() {
        names.extend(
            super::array_entries(a)
                .into_iter()
                .filter_map(|(_, v)| v.zend_str().map(|s| s.as_bytes().to_vec())),
        );
    }
    let mut text = String::from_utf8_lossy(error).into_owned();
    let mut changed = false;
    for name in names.iter().filter(|n| needs(n)) {
        let head = name.split(|&b| b == 0).next().unwrap_or_default();
        let quoted = format!("\"{}\"", String::from_utf8_lossy(head));
        if let Some(at) = text.find(&quoted) {
            let shown = format!("\"{}\"", crate::conn::shown(name));
            text.replace_range(at..at + quoted.len(), &shown);
            changed = true;
        }
    }
    if text.len() > MAX || text.bytes().any(|b| b < 0x20 || b == 0x7f) {
        text = crate::conn::shown(text.as_bytes());
        changed = true;
    }
    changed.then_some(text)
}
