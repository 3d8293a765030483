//! `RedisKit\serverInfo()`: the servers' own state as PHP arrays.
use super::{binary, connection_arg, number_or_text, php_list, settings, throw};
use crate::server;
use ext_php_rs::boxed::ZBox;
use ext_php_rs::prelude::PhpResult;
use ext_php_rs::types::{ZendHashTable, Zval};

pub fn view(connection: Option<&Zval>, slowlog: i64) -> PhpResult<ZBox<ZendHashTable>> {
    let conn = connection_arg(connection)?;
    let dsn = conn.single(&settings()).map_err(throw)?;
    let views = server::view(&dsn, slowlog).map_err(throw)?;
    php_list(views, |v| {
        let mut h = ZendHashTable::new();
        h.insert("address", v.address)?;
        for (k, val) in &v.info {
            h.insert(*k, number_or_text(val))?;
        }
        let mut keys = ZendHashTable::new();
        for (db, n) in v.keys {
            keys.insert(db.as_str(), n)?;
        }
        h.insert("keys", keys)?;
        h.insert("slowlog_len", v.slowlog_len)?;
        let entries = php_list(v.slowlog, |e| {
            let mut row = ZendHashTable::new();
            row.insert("id", e.id)?;
            row.insert("time", e.time)?;
            row.insert("duration", e.micros as f64 / 1e6)?;
            let mut args = ZendHashTable::with_capacity(e.args.len() as u32);
            for a in e.args {
                args.push(binary(a))?;
            }
            row.insert("command", args)?;
            row.insert("client", binary(e.client))?;
            Ok(row)
        })?;
        h.insert("slowlog", entries)?;
        Ok(h)
    })
}
