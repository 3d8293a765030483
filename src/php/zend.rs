//! Zend API symbols that ext-php-rs does not bind, resolved at run time with
//! `dlsym` (linking them directly would break `cargo php stubs`, which loads
//! the extension outside PHP). Each one exists with the same signature in the
//! PHP 8.2, 8.4 and 8.5 headers (8.4 made some `zval *` parameters
//! `const zval *`, which changes nothing at the ABI level); `ZEND_FASTCALL`
//! is empty on x86-64 and aarch64.
use ext_php_rs::ffi::{zend_long, zend_string, zval, HashTable};
use ext_php_rs::zend::ClassEntry;
use std::ffi::{c_char, c_int, c_void, CStr};
use std::sync::OnceLock;

/// `zend_expected_type` values used here: the first 22 entries of
/// `Z_EXPECTED_TYPES` are the same in 8.2 to 8.5 (later ones moved in 8.3).
pub const EXPECTED_LONG: c_int = 0;
pub const EXPECTED_BOOL: c_int = 2;
pub const EXPECTED_STRING: c_int = 4;
pub const EXPECTED_ARRAY: c_int = 6;
pub const EXPECTED_FUNC: c_int = 12;
pub const EXPECTED_DOUBLE: c_int = 20;
/// `Z_EXPECTED_X_OR_NULL` is `Z_EXPECTED_X + 1` for every type above.
pub const OR_NULL: c_int = 1;

/// `ZEND_ATTRIBUTE_PERSISTENT` (zend_attributes.h).
pub const ATTRIBUTE_PERSISTENT: u32 = 1;

type ParseLong = unsafe extern "C" fn(*mut zval, *mut zend_long, u32) -> bool;
type ParseDouble = unsafe extern "C" fn(*mut zval, *mut f64, u32) -> bool;
type ParseStr = unsafe extern "C" fn(*mut zval, *mut *mut zend_string, u32) -> bool;
type ParseBool = unsafe extern "C" fn(*mut zval, *mut bool, u32) -> bool;
type WrongType = unsafe extern "C" fn(u32, c_int, *mut zval);
type WrongCallback = unsafe extern "C" fn(u32, *mut c_char);
type ArgumentTypeError = unsafe extern "C" fn(u32, *const c_char, ...);
type ExtraNamed = unsafe extern "C" fn();
type ValueName = unsafe extern "C" fn(*const zval) -> *const c_char;
type AddAttribute =
    unsafe extern "C" fn(*mut *mut HashTable, *mut zend_string, u32, u32, u32, u32) -> *mut c_void;
pub type PostStartup = Option<unsafe extern "C" fn() -> c_int>;

/// The functions of PHP's own parameter parsing (zend_API.h) and the helpers
/// its error messages and attributes use.
pub struct Api {
    /// `zend_parse_arg_long_slow`: the coercive rules for `int` (strict mode
    /// is checked inside, from the caller's frame), deprecations included.
    pub parse_long: ParseLong,
    pub parse_double: ParseDouble,
    /// Converts the zval in place (as PHP's own string parameters do).
    pub parse_str: ParseStr,
    pub parse_bool: ParseBool,
    /// `zend_wrong_parameter_type_error`: "f(): Argument #n ($x) must be of type T, U given".
    pub wrong_type: WrongType,
    /// `zend_wrong_callback_error`: "... must be a valid callback, <error>" (frees `error`).
    pub wrong_callback: WrongCallback,
    /// `zend_argument_type_error(arg_num, format, ...)`.
    pub argument_type_error: ArgumentTypeError,
    /// `zend_unexpected_extra_named_error`: "f() does not accept unknown named parameters".
    pub extra_named: ExtraNamed,
    /// The name of a value's type as TypeErrors show it: `zend_zval_value_name`
    /// (8.3+, says "true"/"false"), else `zend_zval_type_name` (8.2).
    pub value_name: ValueName,
    pub add_attribute: AddAttribute,
}

unsafe fn sym<T: Copy>(name: &CStr) -> Option<T> {
    debug_assert_eq!(std::mem::size_of::<T>(), std::mem::size_of::<*mut c_void>());
    // SAFETY: dlsym on the running PHP binary; the caller names the type.
    let p = unsafe { libc::dlsym(libc::RTLD_DEFAULT, name.as_ptr()) };
    if p.is_null() {
        None
    } else {
        // SAFETY: T is a function pointer type of the symbol's signature.
        Some(unsafe { std::mem::transmute_copy::<*mut c_void, T>(&p) })
    }
}

/// The Zend functions above, or `None` outside PHP (stub generation) or on a
/// PHP that lacks one of them (older than 8.1).
pub fn api() -> Option<&'static Api> {
    static API: OnceLock<Option<Api>> = OnceLock::new();
    API.get_or_init(|| {
        // SAFETY: each symbol has the signature of its field (see the module doc).
        unsafe {
            Some(Api {
                parse_long: sym(c"zend_parse_arg_long_slow")?,
                parse_double: sym(c"zend_parse_arg_double_slow")?,
                parse_str: sym(c"zend_parse_arg_str_slow")?,
                parse_bool: sym(c"zend_parse_arg_bool_slow")?,
                wrong_type: sym(c"zend_wrong_parameter_type_error")?,
                wrong_callback: sym(c"zend_wrong_callback_error")?,
                argument_type_error: sym(c"zend_argument_type_error")?,
                extra_named: sym(c"zend_unexpected_extra_named_error")?,
                value_name: sym(c"zend_zval_value_name").or(sym(c"zend_zval_type_name"))?,
                add_attribute: sym(c"zend_add_attribute")?,
            })
        }
    })
    .as_ref()
}

/// `spl_ce_RuntimeException` (a data symbol).
pub fn runtime_exception() -> Option<&'static ClassEntry> {
    // SAFETY: the symbol is a class entry pointer that SPL sets in its MINIT,
    // which runs before ours.
    unsafe {
        let p: *mut *mut ClassEntry = sym(c"spl_ce_RuntimeException")?;
        (*p).as_ref()
    }
}

/// `zend_post_startup_cb`: called once, after every module's MINIT.
pub fn post_startup_cb() -> Option<*mut PostStartup> {
    // SAFETY: the symbol is the hook variable itself.
    unsafe { sym(c"zend_post_startup_cb") }
}
