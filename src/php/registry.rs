//! `RedisKit\registry()`: the registry's entries as PHP arrays.
use super::{binary, connection_arg, number_or_text, settings, throw};
use crate::registry::{self, Kind};
use ext_php_rs::boxed::ZBox;
use ext_php_rs::prelude::PhpResult;
use ext_php_rs::types::{ZendHashTable, Zval};

/// The group of the result a kind's entries go to.
fn group(k: Kind) -> &'static str {
    match k {
        Kind::Queue => "queues",
        Kind::Lock => "locks",
        Kind::Limiter => "limiters",
        Kind::Cache => "caches",
    }
}

pub fn list(connection: Option<&Zval>, prefix: Option<String>) -> PhpResult<ZBox<ZendHashTable>> {
    let conn = connection_arg(connection)?;
    let s = settings();
    let prefix = prefix.unwrap_or_else(|| s.prefix.clone());
    let dsn = conn.single(&s).map_err(throw)?;
    let (entries, full) = registry::list(&dsn, prefix.as_bytes()).map_err(throw)?;
    let mut groups: Vec<(Kind, ZBox<ZendHashTable>)> = Kind::ALL
        .into_iter()
        .map(|k| (k, ZendHashTable::new()))
        .collect();
    for e in entries {
        let mut row = ZendHashTable::with_capacity(2 + e.settings.len() as u32);
        row.insert("name", binary(e.name))?;
        row.insert("seen", e.seen)?;
        for (k, v) in &e.settings {
            row.insert(k.as_str(), number_or_text(v))?;
        }
        if let Some((_, g)) = groups.iter_mut().find(|(k, _)| *k == e.kind) {
            g.push(row)?;
        }
    }
    let mut out = ZendHashTable::with_capacity(5);
    for (k, g) in groups {
        out.insert(group(k), g)?;
    }
    out.insert(
        "full",
        full.into_iter()
            .map(|k| group(k).to_string())
            .collect::<Vec<_>>(),
    )?;
    Ok(out)
}
