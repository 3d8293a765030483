//! Zend API symbols that ext-php-rs does not bind, resolved at run time with
//! `dlsym` (linking them directly would break `cargo php stubs`, which loads
//! the extension outside PHP).
use ext_php_rs::zend::ClassEntry;
use std::ffi::{c_void, CStr};

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

/// `spl_ce_RuntimeException` (a data symbol).
pub fn runtime_exception() -> Option<&'static ClassEntry> {
    // SAFETY: the symbol is a class entry pointer that SPL sets in its MINIT,
    // which runs before ours.
    unsafe {
        let p: *mut *mut ClassEntry = sym(c"spl_ce_RuntimeException")?;
        (*p).as_ref()
    }
}
