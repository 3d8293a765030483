//! `RedisKit\Exception` (a `\RuntimeException`) and its subclasses.
//!
//! They are plain Zend classes with no methods of their own, registered in
//! MINIT with `zend_register_internal_class_ex` and a parent, the way C
//! extensions (phpredis's `RedisException`) declare theirs: the engine gives
//! them `\RuntimeException`'s object constructor, `__construct`, `__clone`
//! (private: not cloneable) and handlers, so users can construct and extend
//! them and a thrown one carries the caller's file, line and trace.
//! `#[php_class]` is not used: it installs ext-php-rs's own object
//! constructor (skipping `\Exception`'s, which records file/line/trace) and a
//! constructor that refuses `new` from PHP.
//!
//! Each class has a marker type implementing [`RegisteredClass`] by hand,
//! only so that `PhpException::from_class::<T>()` finds its class entry. The
//! stubs come from php-tests/tools/fix-stubs.php (ext-php-rs's stub
//! generator does not see these classes).
use super::zend;
use ext_php_rs::args::ArgInfoTables;
use ext_php_rs::builders::{ClassBuilder, ClassProperty, FunctionBuilder};
use ext_php_rs::class::{ClassEntryInfo, ClassMetadata, ConstructorMeta, RegisteredClass};
use ext_php_rs::convert::IntoZvalDyn;
use ext_php_rs::describe::DocComments;
use ext_php_rs::flags::{ClassFlags, ConstantFlags, MethodFlags, PropertyFlags};
use ext_php_rs::types::{ZendHashTable, ZendObject};
use ext_php_rs::zend::{ce, ClassEntry};

/// `\RuntimeException` (resolved with dlsym: linking `spl_ce_RuntimeException`
/// would break stub generation), or `\Exception` if SPL is somehow missing.
fn runtime_exception() -> &'static ClassEntry {
    zend::runtime_exception().unwrap_or_else(ce::exception)
}

macro_rules! exception_class {
    ($(#[$doc:meta])* $ty:ident, $name:literal) => {
        $(#[$doc])*
        pub struct $ty;

        impl RegisteredClass for $ty {
            const CLASS_NAME: &'static str = $name;
            const BUILDER_MODIFIER: Option<fn(ClassBuilder) -> ClassBuilder> = None;
            const EXTENDS: Option<ClassEntryInfo> = None;
            const IMPLEMENTS: &'static [ClassEntryInfo] = &[];
            const FLAGS: ClassFlags = ClassFlags::empty();

            fn get_metadata() -> &'static ClassMetadata<Self> {
                static METADATA: ClassMetadata<$ty> = ClassMetadata::new(&[]);
                &METADATA
            }

            fn method_builders() -> Vec<(FunctionBuilder<'static>, MethodFlags)> {
                Vec::new()
            }

            fn constructor() -> Option<ConstructorMeta<Self>> {
                None
            }

            fn constants() -> &'static [(
                &'static str,
                &'static dyn IntoZvalDyn,
                DocComments,
                ConstantFlags,
            )] {
                &[]
            }
        }
    };
}

exception_class!(
    /// Base class of every rediskit failure on the Redis side.
    RedisKitException,
    "RedisKit\\Exception"
);
exception_class!(
    /// Redis could not be reached, the connection was lost, or a reply timed out.
    ConnectionException,
    "RedisKit\\ConnectionException"
);
exception_class!(
    /// A lock could not be acquired within the time allowed.
    LockTimeoutException,
    "RedisKit\\LockTimeoutException"
);
exception_class!(
    /// A lock held by `RedisLock::run()` was lost while the callback ran.
    LockLostException,
    "RedisKit\\LockLostException"
);

exception_class!(
    /// A write the master made, but fewer replicas confirmed it in time than
    /// `wait_replicas` asked: public `$jobIds` (the jobs the write concerned,
    /// which exist on the master) and `$replicas` (how many confirmed).
    ReplicationException,
    "RedisKit\\ReplicationException"
);

/// A `ReplicationException` carrying its job ids and confirmations.
pub fn replication(
    message: String,
    ids: Vec<Vec<u8>>,
    replicas: i64,
) -> ext_php_rs::exception::PhpException {
    use ext_php_rs::exception::PhpException;
    let plain = || PhpException::from_class::<ReplicationException>(message.clone());
    let mut obj = ZendObject::new(ReplicationException::get_metadata().ce());
    // `\Exception::__construct` sets the message; file and line were
    // recorded when the object was made (the caller's)
    if obj.try_call_method("__construct", vec![&message]).is_err() {
        return plain();
    }
    let mut list = ZendHashTable::with_capacity(ids.len() as u32);
    for id in ids {
        if list.push(super::binary(id)).is_err() {
            return plain();
        }
    }
    if obj.set_property("jobIds", list).is_err() || obj.set_property("replicas", replicas).is_err()
    {
        return plain();
    }
    match ext_php_rs::convert::IntoZval::into_zval(obj, false) {
        Ok(zv) => plain().with_object(zv),
        Err(_) => plain(),
    }
}

fn store<T: RegisteredClass>(ce: &'static mut ClassEntry, _: ArgInfoTables) {
    T::get_metadata().set_ce(ce);
}

fn base() -> &'static ClassEntry {
    RedisKitException::get_metadata().ce()
}

fn register<T: RegisteredClass>(parent: ClassEntryInfo) -> ext_php_rs::error::Result<()> {
    ClassBuilder::new(T::CLASS_NAME)
        .extends(parent)
        .registration(store::<T>)
        .register()
}

/// MINIT: registers the four classes (before the other classes, which do not
/// depend on them).
pub fn register_all() -> ext_php_rs::error::Result<()> {
    register::<RedisKitException>((runtime_exception, "RuntimeException"))?;
    register::<ConnectionException>((base, "RedisKit\\Exception"))?;
    register::<LockTimeoutException>((base, "RedisKit\\Exception"))?;
    register::<LockLostException>((base, "RedisKit\\Exception"))?;
    let prop = |name: &str| ClassProperty {
        name: name.to_string(),
        flags: PropertyFlags::Public,
        default: None,
        docs: &[],
        ty: None,
        nullable: true,
        readonly: false,
        default_stub: None,
    };
    ClassBuilder::new(ReplicationException::CLASS_NAME)
        .extends((base, "RedisKit\\Exception"))
        .property(prop("jobIds"))
        .property(prop("replicas"))
        .registration(store::<ReplicationException>)
        .register()?;
    Ok(())
}
